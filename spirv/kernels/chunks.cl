// Indices made from the x id by masks, shifts and divisions by values known only at launch:
// the LLVM tier runs such x loops in chunks of 16 work-items, with the row computed once per
// chunk and the column consecutive (backend/llvm/tiles.rs). Each kernel also runs where the
// values do not qualify (a shift under 4, a divisor that is not a multiple of 16, a group
// that starts off a multiple of 16), where the x loop runs as before.

// A 2D index by a division, the column as what is left (how compilers write `i % n` beside
// `i / n`); no loop of its own (LLVM's innermost-loop vectorizer).
kernel void chunk_div(uint n, global const float *a, global float *b) {
    uint i = get_global_id(0);
    uint r = i / n, c = i - r * n;
    b[i] = a[r * n + c] * 2.0f + a[c] - (float)r;
}

// Row and column by shift and mask, through an inner loop (the outer-loop vectorizer).
kernel void chunk_shift(uint log_n, uint rows, global const float *a, global float *b) {
    uint n = 1u << log_n;
    uint i = get_global_id(0);
    uint row = i >> log_n, col = i & (n - 1);
    float s = 0.0f;
    for (uint k = 0; k < rows; k++)
        s = fma(a[(row + k) * n + col], (float)(k + 1), s);
    b[i] = s + (float)row;
}

// The local id, offset by a multiple of 16 known at launch, split by a mask, a divisor and a
// remainder.
kernel void chunk_local(uint off, uint m, uint d, uint e, global uint *out) {
    uint l = get_local_id(0) + off;
    uint lo = l & m, hi = l / d, rem = l % e;
    out[get_global_id(0)] = lo * 1000003u + hi * 1009u + rem;
}
