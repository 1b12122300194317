// OpenCL.std geometric and common functions, shuffles: cross, dot, length, distance,
// normalize (and fast_*), smoothstep, fmax/fmin with a scalar, shuffle, shuffle2, nan.
kernel void geometric(global const float4 *a, global const float4 *b, global float *o,
                      global const double4 *da, global double *dout) {
    size_t i = get_global_id(0);
    float4 x = a[i], y = b[i];
    global float *r = o + 32 * i;
    vstore4(cross(x, y), 0, r);
    vstore3(cross(x.xyz, y.xyz), 0, r + 4);
    r[7] = length(x);
    r[8] = length(x.xy);
    r[9] = length(x.x);
    r[10] = distance(x, y);
    r[11] = fast_length(x.xyz);
    r[12] = fast_distance(x.x, y.x);
    vstore4(normalize(x), 0, r + 13);
    vstore2(fast_normalize(y.zw), 0, r + 17);
    vstore4(smoothstep(-1.0f, 2.0f, x), 0, r + 19);
    r[23] = smoothstep(y.x, y.y, x.z);
    vstore4(fmax(x, 0.5f) + fmin(y, -0.25f), 0, r + 24);
    uint4 m = as_uint4(convert_int4(y)) & 7;
    vstore4(shuffle(x, m), 0, r + 28);
    float8 s = shuffle2(x, y, (uint8)(m, m.wzyx + 3));
    o[32 * get_global_size(0) + 8 * i] = s.s0;
    vstore8(s, 0, o + 32 * get_global_size(0) + 8 * i);
    double4 dx = da[2 * i], dy = da[2 * i + 1];
    global double *d = dout + 8 * i;
    vstore4(cross(dx, dy), 0, d);
    d[4] = length(dx);
    d[5] = distance(dx, dy);
    d[6] = normalize(dx).y;
    d[7] = as_double(as_ulong(nan((ulong)i)) ^ (ulong)i);
}
