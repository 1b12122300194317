// y = a * x + y, with a bound check on n.
kernel void saxpy(float a, global const float *x, global float *y, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
