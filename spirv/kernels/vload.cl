// vloadn/vstoren for n = 2, 3, 4, 8, 16 (unaligned offsets too), vload_half/vstore_half with
// every rounding mode, vload_halfn/vstore_halfn and the aligned vloada_halfn/vstorea_halfn.
kernel void vload(global const float *src, global float *out, global const int *isrc,
                  global int *iout, global const half *h, global float *hf,
                  global const float *x, global half *ho) {
    size_t i = get_global_id(0);
    // out: 2 + 3 + 4 + 8 + 16 = 33 floats per work-item, at their own strides.
    size_t n = get_global_size(0);
    vstore2(vload2(i, src + 1) + 1.0f, i, out);
    vstore3(vload3(i, src + 2) * 2.0f, i, out + 2 * n);
    vstore4(vload4(i, src) - 1.0f, i, out + 5 * n);
    vstore8(vload8(i, src + 3), i, out + 9 * n);
    vstore16(vload16(i, src), i, out + 17 * n);
    int3 v = vload3(i, isrc + 1);
    vstore3(v.zyx + (int3)(1, 2, 3), i, iout);
    // halves: one and four at a time, aligned three at a time (a stride of 4).
    hf[i] = vload_half(i, h);
    vstore4(vload_half4(i, h), i, hf + n);
    vstore3(vloada_half3(i, h), i, hf + 5 * n);
    // ho: per work-item x[i] stored with rte, rtz, rtp, rtn, default; then x4 as halves.
    prefetch(x + i, 1);
    float y = x[i];
    vstore_half_rte(y, 5 * i, ho);
    vstore_half_rtz(y, 5 * i + 1, ho);
    vstore_half_rtp(y, 5 * i + 2, ho);
    vstore_half_rtn(y, 5 * i + 3, ho);
    vstore_half(y, 5 * i + 4, ho);
    float4 y4 = vload4(i, x);
    vstore_half4_rtz(y4, i, ho + 5 * n);
    vstorea_half3(y4.xyz, i, ho + 9 * n);
}
