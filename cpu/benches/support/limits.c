// The machine's own limits, for the benches' "percent of the machine" figures: FP32 FMA loops at
// 512, 256 and 128 bits, and a copy with non-temporal stores. `support/limits.rs` compiles this
// file with the system's C compiler at run time and calls it on every usable core at once.
#include <immintrin.h>
#include <stddef.h>

// Twelve independent accumulators: more than an FMA's latency times the FMA ports (4 × 2 on the
// cores of today), so the loop is bound by FMA throughput alone. Each iteration is 12 FMAs of
// the vector width; the sum of the lanes is returned so that nothing is dropped.
#define ACC12(T, FMA, SET)                                                                     \
    T x0 = SET(a), x1 = SET(a + 1), x2 = SET(a + 2), x3 = SET(a + 3), x4 = SET(a + 4),         \
      x5 = SET(a + 5), x6 = SET(a + 6), x7 = SET(a + 7), x8 = SET(a + 8), x9 = SET(a + 9),     \
      x10 = SET(a + 10), x11 = SET(a + 11);                                                    \
    T m = SET(mul), c = SET(add);                                                              \
    for (long i = 0; i < iters; i++) {                                                         \
        x0 = FMA(x0, m, c); x1 = FMA(x1, m, c); x2 = FMA(x2, m, c); x3 = FMA(x3, m, c);       \
        x4 = FMA(x4, m, c); x5 = FMA(x5, m, c); x6 = FMA(x6, m, c); x7 = FMA(x7, m, c);       \
        x8 = FMA(x8, m, c); x9 = FMA(x9, m, c); x10 = FMA(x10, m, c); x11 = FMA(x11, m, c);   \
    }

// The twelve accumulators summed, with the vector width's `ADD`.
#define SUM12(ADD) \
    ADD(ADD(ADD(ADD(x0, x1), ADD(x2, x3)), ADD(ADD(x4, x5), ADD(x6, x7))), ADD(ADD(x8, x9), ADD(x10, x11)))

__attribute__((target("avx512f"))) float zekit_fma512(long iters, float a, float mul, float add) {
    ACC12(__m512, _mm512_fmadd_ps, _mm512_set1_ps)
    return _mm512_reduce_add_ps(SUM12(_mm512_add_ps));
}

__attribute__((target("avx2,fma"))) float zekit_fma256(long iters, float a, float mul, float add) {
    ACC12(__m256, _mm256_fmadd_ps, _mm256_set1_ps)
    float l[8];
    _mm256_storeu_ps(l, SUM12(_mm256_add_ps));
    return l[0] + l[1] + l[2] + l[3] + l[4] + l[5] + l[6] + l[7];
}

__attribute__((target("fma"))) float zekit_fma128(long iters, float a, float mul, float add) {
    ACC12(__m128, _mm_fmadd_ps, _mm_set1_ps)
    float l[4];
    _mm_storeu_ps(l, SUM12(_mm_add_ps));
    return l[0] + l[1] + l[2] + l[3];
}

// Copies `n` bytes (a multiple of 64, both pointers 16-byte aligned) with non-temporal stores,
// which write memory without reading the destination into the cache first.
void zekit_copy_nt(float *dst, const float *src, size_t n) {
    for (size_t i = 0; i < n / 4; i += 16) {
        __m128 a = _mm_load_ps(src + i), b = _mm_load_ps(src + i + 4);
        __m128 c = _mm_load_ps(src + i + 8), d = _mm_load_ps(src + i + 12);
        _mm_stream_ps(dst + i, a);
        _mm_stream_ps(dst + i + 4, b);
        _mm_stream_ps(dst + i + 8, c);
        _mm_stream_ps(dst + i + 12, d);
    }
    _mm_sfence();
}
