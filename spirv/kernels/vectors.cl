// OpenCL vector types: loads and stores of float4 and int2, element-wise arithmetic, swizzles,
// comparisons and select, conversions, dot, math, a vector argument by value.
kernel void vectors(global const float4 *a, global const float4 *b, global float4 *c,
                    global int2 *d, float4 k, global float *dots) {
    size_t i = get_global_id(0);
    float4 x = a[i], y = b[i];
    float4 s = x * y + k;
    s.xy = s.yx;
    float4 m = fmax(x, y) - sqrt(fabs(y));
    int4 lt = isless(x, y);
    float4 pick = select(x, y, lt);
    c[i * 3] = s;
    c[i * 3 + 1] = m;
    c[i * 3 + 2] = pick + (float4)(x.w, y.z, 1.0f, (float)i);
    int2 t = convert_int2(x.xz) * (int2)(3, -2) + (int2)((int)i);
    d[i] = t >> 1;
    dots[i] = dot(x, y);
}
