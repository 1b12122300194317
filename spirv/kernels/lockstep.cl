// Kernels without divergent control flow, which the backend runs four work-items at a time
// (`jit_vec.rs`): each exercises one shape of value (affine ids and addresses, SIMD floats and
// ints, per-lane scalars) and the masked last iteration of a row.

// Affine addresses with the element's size as stride: vector loads and stores.
kernel void ls_affine(global const float *a, global const int *b, global float *fo, global int *io,
                      float s, int k) {
    size_t i = get_global_id(0);
    float x = a[i];
    int y = b[i];
    fo[i] = fma(x, s, x * x) - x / (s + 1.0f) + sqrt(fabs(x));
    io[i] = (y * k + 7) ^ (y & 0x5a) | (y - k);
}

// An `int` index (truncated and sign-extended: per-lane addresses), a stride-2 gather and a
// scatter in reverse order.
kernel void ls_gather(global const float *a, global float *o, int n) {
    int i = (int)get_global_id(0);
    o[n - 1 - i] = a[2 * i] + a[2 * i + 1];
}

// A uniform loop carrying varying values of several types (float, int, long, double).
kernel void ls_loop(global float *fo, global long *lo, global double *dout, int iters) {
    size_t i = get_global_id(0);
    float f = (float)i;
    int n = (int)i;
    long l = (long)i * 3;
    double d = (double)i;
    for (int j = 0; j < iters; j++) {
        f = mad(f, 0.5f, 1.0f);
        n = n * 3 + j;
        l = l + (long)n;
        d = d * 0.75 + 1.0;
    }
    fo[i] = f + (float)n;
    lo[i] = l;
    dout[i] = d;
}

// Built-ins per lane in 2D: local, global and linear ids, sub-group ids.
kernel void ls_ids(global uint *o) {
    size_t w = get_global_linear_id();
    o[w * 6 + 0] = (uint)get_local_id(0);
    o[w * 6 + 1] = (uint)get_local_id(1);
    o[w * 6 + 2] = (uint)get_local_linear_id();
    o[w * 6 + 3] = get_sub_group_local_id();
    o[w * 6 + 4] = get_sub_group_id();
    o[w * 6 + 5] = (uint)get_global_id(1);
}

// Atomics (each lane its own read-modify-write) and a uniform switch.
kernel void ls_atomics(global int *counter, global int *slots, int mode) {
    size_t i = get_global_id(0);
    int v;
    switch (mode) {
    case 0: v = 1; break;
    case 1: v = 2; break;
    default: v = 5; break;
    }
    int old = atomic_add(counter, v);
    slots[i] = old;
}

// Math that has no SIMD form (per-lane shims), comparisons and selects on varying values.
kernel void ls_math(global const float *a, global float *o) {
    size_t i = get_global_id(0);
    float x = a[i];
    float s = sin(x), e = exp(x);
    float y = select(e, s, (int)(x > 0.5f));
    o[i] = fmin(y, 0.75f) + (x == 0.25f ? 100.0f : 0.0f);
}

// Whole 16-byte records per work-item (float4, int4): one vector access per lane, a record
// copied as loaded, one rebuilt from arithmetic, one read for its fields.
kernel void ls_records(global const float4 *a, global float4 *copy, global float4 *scaled,
                       global const int4 *b, global int *sum) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    copy[i] = v;
    scaled[i] = v * 2.0f + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    int4 w = b[i];
    sum[i] = w.x + w.y * 2 + w.z * 3 + w.w * 4;
}

// Divergent control flow: lanes that take different paths run one side after the other with
// their lanes active; lanes that return retire.
kernel void ls_diverge(global const float *a, global float *o, global int *count,
                       global int *flag, int n, int iters) {
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float x = a[i];
    float acc = 0.0f;
    for (int j = 0; j < iters; j++) {
        if (x > 0.0f) {
            acc += sqrt(x) * (float)j;
            if (x > 10.0f)
                atomic_inc(count);
        } else {
            acc -= x;
        }
    }
    if (i == 5)
        flag[0] = 7;
    if (x < -5.0f) {
        o[i] = -1.0f;
        return;
    }
    o[i] = acc;
}

// A loop whose trip count differs per work-item: not run in lockstep.
kernel void ls_divergent_loop(global int *o) {
    int i = (int)get_global_id(0);
    int s = 0;
    for (int j = 0; j < i; j++)
        s = s * 31 + j;
    o[i] = s;
}

// `int` and `uint` indices (sign- and zero-extended to addresses): still vector accesses.
kernel void ls_int_index(global const float *a, global float *o, global const uint *b,
                         global uint *u) {
    int i = (int)get_global_id(0);
    o[i] = a[i] * 2.0f + 1.0f;
    uint j = (uint)get_global_id(0);
    u[j] = b[j] ^ (j * 3u);
}

// 16-byte records written at addresses made from the global id: when a launch asks for it
// (GroupCtx::stream), full turns write them with non-temporal stores.
kernel void ls_stream(global const float4 *a, global float4 *f, global int4 *n, int k) {
    size_t i = get_global_id(0);
    float4 v = a[i];
    f[i] = v * 0.5f - 1.0f;
    n[i] = convert_int4(v) * k + (int4)(1, 2, 3, 4);
}
