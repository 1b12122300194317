// FP32 multiply-add throughput, as clpeak measures it: each work-item runs 128 × 16 dependent
// `mad`s on two floats (2 flops each, 4096 flops per work-item) in `mad_v1`, and the same chain on
// float4 values (4 independent lanes, 16384 flops per work-item) in `mad_v4`; `fma_v1` and
// `fma_v4` are the same with `fma` (fused, where `mad` may or may not be). `a` is a run-time
// value so nothing folds; the result is stored so nothing is dropped.
#define MAD_4(x, y) x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define MAD_16(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y)
#define FMA_4(x, y) x = fma(y, x, y); y = fma(x, y, x); x = fma(y, x, y); y = fma(x, y, x);
#define FMA_16(x, y) FMA_4(x, y) FMA_4(x, y) FMA_4(x, y) FMA_4(x, y)

kernel void mad_v1(global float *out, float a) {
    float x = a;
    float y = (float)get_local_id(0);
    for (int i = 0; i < 128; i++) {
        MAD_16(x, y)
    }
    out[get_global_id(0)] = y;
}

kernel void mad_v4(global float *out, float a) {
    float4 x = (float4)(a, a + 1.0f, a + 2.0f, a + 3.0f);
    float4 y = (float4)get_local_id(0);
    for (int i = 0; i < 128; i++) {
        MAD_16(x, y)
    }
    out[get_global_id(0)] = y.s0 + y.s1 + y.s2 + y.s3;
}

kernel void fma_v1(global float *out, float a) {
    float x = a;
    float y = (float)get_local_id(0);
    for (int i = 0; i < 128; i++) {
        FMA_16(x, y)
    }
    out[get_global_id(0)] = y;
}

kernel void fma_v4(global float *out, float a) {
    float4 x = (float4)(a, a + 1.0f, a + 2.0f, a + 3.0f);
    float4 y = (float4)get_local_id(0);
    for (int i = 0; i < 128; i++) {
        FMA_16(x, y)
    }
    out[get_global_id(0)] = y.s0 + y.s1 + y.s2 + y.s3;
}
