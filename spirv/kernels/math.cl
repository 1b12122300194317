// OpenCL.std functions.
kernel void math(global const float *x, global float *out) {
    size_t i = get_global_id(0);
    float v = x[i];
    out[i * 9 + 0] = sqrt(fabs(v));
    out[i * 9 + 1] = fabs(v);
    out[i * 9 + 2] = fmin(v, 0.5f);
    out[i * 9 + 3] = fmax(v, 0.5f);
    out[i * 9 + 4] = mad(v, 2.0f, 1.0f);
    out[i * 9 + 5] = exp(v);
    out[i * 9 + 6] = log(fabs(v) + 1.0f);
    out[i * 9 + 7] = sin(v);
    out[i * 9 + 8] = cos(v);
}
