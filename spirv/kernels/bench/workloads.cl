// The workloads of `cpu/benches/workloads.rs`, run on zekit, on Intel's OpenCL CPU runtime (this
// SPIR-V, through clCreateProgramWithIL) and on PoCL (the bitcode translated back from it). Every
// kernel runs in 1D groups; where a kernel thinks in tiles it derives them from the linear ids.

// FP32 FMA chains. `a` and `b` are run-time values so nothing folds; the result is stored so
// nothing is dropped. One dependent chain of 2048 FMAs per work-item:
#define FMA8(x) x = fma(x, a, b); x = fma(x, a, b); x = fma(x, a, b); x = fma(x, a, b); \
                x = fma(x, a, b); x = fma(x, a, b); x = fma(x, a, b); x = fma(x, a, b);
kernel void fma_chain1(global float *out, float a, float b) {
    float x = (float)get_local_id(0);
    for (int i = 0; i < 256; i++) {
        FMA8(x)
    }
    out[get_global_id(0)] = x;
}

// Eight independent chains of 256 FMAs (2048 per work-item, as above).
kernel void fma_chain8(global float *out, float a, float b) {
    float x0 = (float)get_local_id(0), x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
    for (int i = 0; i < 256; i++) {
        x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
        x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    }
    out[get_global_id(0)] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
}

// One chain of 2048 FMAs on float4 values (4 lanes: 8192 FMAs per work-item).
kernel void fma_float4(global float *out, float a, float b) {
    float4 x = (float4)(0.0f, 1.0f, 2.0f, 3.0f) + (float)get_local_id(0);
    for (int i = 0; i < 256; i++) {
        FMA8(x)
    }
    out[get_global_id(0)] = (x.s0 + x.s1) + (x.s2 + x.s3);
}

// One chain of 2048 FMAs on float16 values (16 lanes: 32768 FMAs per work-item).
kernel void fma_float16(global float *out, float a, float b) {
    float16 x = (float16)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f,
                          8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f) + (float)get_local_id(0);
    for (int i = 0; i < 256; i++) {
        FMA8(x)
    }
    float8 h = x.lo + x.hi;
    float4 q = h.lo + h.hi;
    out[get_global_id(0)] = (q.s0 + q.s1) + (q.s2 + q.s3);
}

// Sum of a group's floats through local memory and barriers (a tree, one result per group).
kernel void sum_local(global const float *in, global float *out, local float *scratch) {
    size_t l = get_local_id(0);
    scratch[l] = in[get_global_id(0)];
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s)
            scratch[l] += scratch[l + s];
    }
    if (l == 0)
        out[get_group_id(0)] = scratch[0];
}

// C = A B for n × n row-major matrices (n = 2^log_n), one element per work-item. (Shifts and
// masks, not `/` and `%`: clang pairs those through a `freeze`, which llvm-spirv 15 cannot
// translate.)
kernel void sgemm_naive(uint log_n, global const float *a, global const float *b, global float *c) {
    uint n = 1u << log_n;
    uint i = get_global_id(0);
    uint row = i >> log_n, col = i & (n - 1);
    float acc = 0.0f;
    for (uint k = 0; k < n; k++)
        acc = fma(a[row * n + k], b[k * n + col], acc);
    c[i] = acc;
}

// The same with 16 × 16 tiles in local memory: a group of 256 computes one tile of C.
kernel void sgemm_tiled(uint log_n, global const float *a, global const float *b, global float *c) {
    local float ta[16][16];
    local float tb[16][16];
    uint n = 1u << log_n;
    uint l = get_local_id(0);
    uint ly = l >> 4, lx = l & 15;
    uint log_tiles = log_n - 4;
    uint g = get_group_id(0);
    uint row = (g >> log_tiles) * 16 + ly, col = (g & ((1u << log_tiles) - 1)) * 16 + lx;
    float acc = 0.0f;
    for (uint t = 0; t < n; t += 16) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; k++)
            acc = fma(ta[ly][k], tb[k][lx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

// All-pairs gravity: each work-item sums the pull of all n bodies (`w`: mass) on its own.
kernel void nbody(int n, float eps2, global const float4 *pos, global float4 *acc) {
    float4 p = pos[get_global_id(0)];
    float3 s = (float3)(0.0f);
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float3 d = q.xyz - p.xyz;
        float inv = rsqrt(dot(d, d) + eps2);
        s += d * (q.w * inv * inv * inv);
    }
    acc[get_global_id(0)] = (float4)(s, 0.0f);
}

// A 256-bin histogram of the low bytes, with atomics on global memory.
kernel void hist_global(global const uint *in, global uint *bins) {
    atomic_inc(&bins[in[get_global_id(0)] & 255]);
}

// The same through a group's own bins in local memory (groups of 256: one bin per work-item).
kernel void hist_local(global const uint *in, global uint *bins) {
    local uint lb[256];
    size_t l = get_local_id(0);
    lb[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&lb[in[get_global_id(0)] & 255]);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&bins[l], lb[l]);
}
