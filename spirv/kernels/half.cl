// `half` values (cl_khr_fp16): loads and stores, arithmetic rounded to half, conversions
// from and to float, double and int, a half constant table, half vectors, as_ushort.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

constant half table[4] = {1.5h, -0.25h, 65504.0h, 0.000061035156h};

kernel void half_ops(global const half *a, global const half *b, global half *o,
                     global float *f, global const float *x, global const double *d,
                     global ushort *bits) {
    size_t i = get_global_id(0);
    half p = a[i], q = b[i];
    size_t n = get_global_size(0);
    global half *r = o + 15 * i;
    r[0] = p + q;
    r[1] = p - q;
    r[2] = p * q;
    r[3] = p / q;
    r[4] = -p;
    r[5] = (half)x[i];
    r[6] = (half)d[i];
    r[7] = (half)(int)(x[i] * 1000.0f);
    r[8] = p * table[i % 4] + q;
    half2 v = vload2(i, a) * (half2)(q, (half)2.0f);
    vstore2(convert_half2((double2)(d[i], -d[i])), 0, r + 12);
    vstore2(v, 0, r + 9);
    r[11] = p < q ? p : q;
    f[2 * i] = (float)p * 3.0f;
    f[2 * i + 1] = (float)(p * q);
    bits[i] = as_ushort(p + q) ^ (ushort)i;
    r[14] = as_half((ushort)(i * 1000 + bits[n + i]));
}
