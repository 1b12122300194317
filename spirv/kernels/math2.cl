// More OpenCL.std: trigonometric, exponential and rounding functions (full, native_ and half_
// precision alike), the derived ones, and integer functions.
kernel void math2(global const float *x, global const float *y, global float *out,
                  global const int *a, global const int *b, global int *iout) {
    size_t i = get_global_id(0);
    float v = x[i], w = y[i];
    global float *o = out + i * 24;
    o[0] = tan(v);
    o[1] = asin(v / 16.0f);
    o[2] = acos(v / 16.0f);
    o[3] = atan2(v, w);
    o[4] = exp2(v);
    o[5] = log2(fabs(v) + 1.0f);
    o[6] = log10(fabs(v) + 1.0f);
    o[7] = rsqrt(fabs(v) + 1.0f);
    o[8] = cbrt(v);
    o[9] = tanh(v);
    o[10] = round(v * 2.0f);
    o[11] = rint(v * 2.0f);
    o[12] = copysign(v, w);
    o[13] = hypot(v, w);
    o[14] = native_sqrt(fabs(v)) + half_sin(v) + native_cos(v);
    o[15] = native_recip(w) + native_divide(v, w);
    o[16] = clamp(v, -1.0f, 2.0f);
    o[17] = mix(v, w, 0.25f);
    o[18] = step(w, v);
    o[19] = degrees(v) + radians(w);
    o[20] = sign(v);
    o[21] = floor(v) + ceil(w) + trunc(v);
    o[22] = pow(fabs(v), 1.5f);
    o[23] = fdim(v, w) + maxmag(v, w) + minmag(v, w);
    int p = a[i], q = b[i];
    global int *r = iout + i * 8;
    r[0] = abs(p);
    r[1] = clamp(p, -100, 100);
    r[2] = clz(p);
    r[3] = popcount(p);
    r[4] = mul_hi(p, q);
    r[5] = rotate(p, q);
    r[6] = mad24(p & 0xfff, q & 0xfff, 7);
    r[7] = (int)mul_hi((uint)p, (uint)q);
}
