// Non-uniform sub-group operations (cl_khr_subgroup_non_uniform_vote, _ballot,
// _non_uniform_arithmetic, cl_khr_subgroup_shuffle, _shuffle_relative, _clustered_reduce):
// OpGroupNonUniform*. Work-items with act[i] == 0 take the other branch, so with act all ones
// the whole sub-group takes part, else only the active work-items of each branch.

// Votes, broadcasts, ballots and shuffles: 24 ints per work-item.
kernel void nu_votes(global const int *in, global const int *act, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *o = out + 24 * i;
    if (act[i]) {
        o[0] = sub_group_elect();
        o[1] = sub_group_non_uniform_all(x > 0);
        o[2] = sub_group_non_uniform_any(x > 5);
        o[3] = sub_group_non_uniform_all_equal(x);
        o[4] = sub_group_non_uniform_all_equal(x / 100);
        o[5] = sub_group_non_uniform_broadcast(x, 2);
        o[6] = sub_group_broadcast_first(x);
        uint4 b = sub_group_ballot(x > 2);
        o[7] = b.x;
        o[8] = b.y | b.z | b.w;
        o[9] = sub_group_inverse_ballot(b);
        o[10] = sub_group_ballot_bit_extract(b, 3);
        o[11] = sub_group_ballot_bit_count(b);
        o[12] = sub_group_ballot_inclusive_scan(b);
        o[13] = sub_group_ballot_exclusive_scan(b);
        o[14] = sub_group_ballot_find_lsb(b);
        o[15] = sub_group_ballot_find_msb(b);
        uint sl = get_sub_group_local_id();
        o[16] = sub_group_shuffle(x, (sl * 3 + 1) % get_sub_group_size());
        o[17] = sub_group_shuffle_xor(x, 1);
        o[18] = sub_group_shuffle_up(x, 1);
        o[19] = sub_group_shuffle_down(x, 2);
        o[20] = sub_group_non_uniform_all_equal((float)(x / 100));
        o[21] = sub_group_non_uniform_broadcast((char)x, 1);
        o[22] = sub_group_ballot_bit_extract((uint4)(0, 1 << 4, 0, 0), 36) * 2 +
                sub_group_inverse_ballot((uint4)(0xA5, 0, 0, 0));
    } else {
        // Told apart from the other branch's exchanges.
        o[23] = sub_group_non_uniform_reduce_max(x) * 2 + sub_group_elect();
    }
}

#define RIE(op, x) sub_group_non_uniform_reduce_##op(x), sub_group_non_uniform_scan_inclusive_##op(x), sub_group_non_uniform_scan_exclusive_##op(x)
#define PUT3(k, op, x) { int3 r = (int3)(RIE(op, x)); o[k] = r.x; o[k + 1] = r.y; o[k + 2] = r.z; }

// Integer arithmetic: reduce, inclusive and exclusive scan of 10 operations, then clustered
// reductions: 44 ints per work-item.
kernel void nu_arith_int(global const int *in, global const int *act, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *o = out + 44 * i;
    if (act[i]) {
        PUT3(0, add, x);
        PUT3(3, mul, x);
        PUT3(6, min, x);
        PUT3(9, max, x);
        PUT3(12, and, x);
        PUT3(15, or, x);
        PUT3(18, xor, x);
        PUT3(21, logical_and, x);
        PUT3(24, logical_or, x);
        PUT3(27, logical_xor, x);
        o[30] = sub_group_clustered_reduce_add(x, 1);
        o[31] = sub_group_clustered_reduce_add(x, 2);
        o[32] = sub_group_clustered_reduce_add(x, 4);
        o[33] = sub_group_clustered_reduce_add(x, 8);
        o[34] = sub_group_clustered_reduce_mul(x, 2);
        o[35] = sub_group_clustered_reduce_min(x, 4);
        o[36] = sub_group_clustered_reduce_max(x, 2);
        o[37] = sub_group_clustered_reduce_and(x, 8);
        o[38] = sub_group_clustered_reduce_or(x, 4);
        o[39] = sub_group_clustered_reduce_xor(x, 2);
        o[40] = sub_group_clustered_reduce_logical_and(x, 4);
        o[41] = sub_group_clustered_reduce_logical_or(x, 2);
        o[42] = sub_group_clustered_reduce_logical_xor(x, 8);
    } else {
        o[43] = sub_group_non_uniform_scan_inclusive_add(x * 2);
    }
}

// Other integer widths and signedness: 20 longs per work-item.
kernel void nu_arith_wide(global const int *in, global const int *act, global long *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    global long *o = out + 20 * i;
    if (act[i]) {
        uint u = (uint)x;
        o[0] = sub_group_non_uniform_reduce_min(u);
        o[1] = sub_group_non_uniform_scan_inclusive_min(u);
        o[2] = sub_group_non_uniform_scan_exclusive_min(u);
        o[3] = sub_group_non_uniform_reduce_max(u);
        o[4] = sub_group_non_uniform_scan_inclusive_max(u);
        o[5] = sub_group_non_uniform_scan_exclusive_max(u);
        long l = (long)x * 1000000007L;
        o[6] = sub_group_non_uniform_reduce_add(l);
        o[7] = sub_group_non_uniform_scan_inclusive_add(l);
        o[8] = sub_group_non_uniform_scan_exclusive_add(l);
        o[9] = sub_group_non_uniform_reduce_min(l);
        o[10] = sub_group_non_uniform_scan_exclusive_max(l);
        o[11] = sub_group_non_uniform_reduce_max((ulong)l);
        o[12] = sub_group_non_uniform_scan_inclusive_add((char)x);
        o[13] = sub_group_non_uniform_reduce_min((short)(x * 300));
        o[14] = sub_group_non_uniform_scan_exclusive_min((uchar)x);
        o[15] = sub_group_clustered_reduce_max((ulong)l, 4);
        o[16] = sub_group_shuffle(l, 0);
        o[17] = sub_group_shuffle_xor((ushort)x, 2);
        o[18] = sub_group_non_uniform_all_equal((char)(x / 100));
        o[19] = sub_group_non_uniform_broadcast(l, 1);
    }
}

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// Floats, doubles and halves: 24 doubles per work-item.
kernel void nu_arith_float(global const float *in, global const int *act, global double *out) {
    size_t i = get_global_id(0);
    float x = in[i];
    global double *o = out + 24 * i;
    if (act[i]) {
        o[0] = sub_group_non_uniform_reduce_add(x);
        o[1] = sub_group_non_uniform_scan_inclusive_add(x);
        o[2] = sub_group_non_uniform_scan_exclusive_add(x);
        o[3] = sub_group_non_uniform_reduce_mul(x);
        o[4] = sub_group_non_uniform_scan_inclusive_mul(x);
        o[5] = sub_group_non_uniform_scan_exclusive_mul(x);
        o[6] = sub_group_non_uniform_reduce_min(x);
        o[7] = sub_group_non_uniform_scan_inclusive_min(x);
        o[8] = sub_group_non_uniform_scan_exclusive_min(x);
        o[9] = sub_group_non_uniform_reduce_max(x);
        o[10] = sub_group_non_uniform_scan_inclusive_max(x);
        o[11] = sub_group_non_uniform_scan_exclusive_max(x);
        o[12] = sub_group_clustered_reduce_add(x, 4);
        double d = (double)x / 3.0;
        o[13] = sub_group_non_uniform_reduce_add(d);
        o[14] = sub_group_non_uniform_scan_inclusive_add(d);
        o[15] = sub_group_non_uniform_scan_exclusive_max(d);
        half h = (half)x;
        o[16] = sub_group_non_uniform_reduce_add(h);
        o[17] = sub_group_non_uniform_scan_inclusive_add(h);
        o[18] = sub_group_non_uniform_scan_exclusive_add(h);
        o[19] = sub_group_non_uniform_scan_inclusive_mul(h);
        o[20] = sub_group_non_uniform_reduce_min(h);
        o[21] = sub_group_shuffle_down(x, 1);
        o[22] = sub_group_broadcast_first(d);
        o[23] = sub_group_shuffle_up(h, 3);
    }
}

// Work-items leave a loop at different iterations: at iteration j, the work-items of the
// sub-group still in the loop take part.
kernel void nu_loop(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int s = 0;
    for (int j = 0; j < in[i]; j++)
        s += sub_group_non_uniform_reduce_add(j + 1) * (j + 1) + sub_group_elect();
    out[i] = s;
}

// A divergent exchange, then a work-group barrier: the work-items that skipped the exchange
// wait at the barrier for those in it, then read values of other sub-groups.
kernel void nu_then_barrier(global const int *in, global int *out) {
    local int tmp[256];
    size_t l = get_local_id(0), n = get_local_size(0);
    int x = in[get_global_id(0)];
    if (x & 1)
        x = sub_group_non_uniform_reduce_add(x);
    tmp[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[(l + 9) % n];
}

// Sub-groups taking different paths through sub-group collectives (cl_khr_subgroups), then a
// work-group barrier.
kernel void sub_groups_apart(global const int *in, global int *out) {
    local int tmp[256];
    size_t l = get_local_id(0), n = get_local_size(0);
    int x = in[get_global_id(0)];
    if (get_sub_group_id() % 2 == 0) {
        x = sub_group_reduce_add(x);
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        x += sub_group_scan_inclusive_max(x + (int)get_sub_group_local_id());
    }
    tmp[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[(l + 8) % n];
}

// Vector operands (OpenCL C's functions take scalars; SPIR-V allows vectors, element by
// element), written as SPIR-V built-in calls.
int2 __attribute__((overloadable)) __spirv_GroupNonUniformIAdd(int scope, int op, int2 x);
float4 __attribute__((overloadable)) __spirv_GroupNonUniformShuffleXor(int scope, float4 x, uint m);
bool __attribute__((overloadable)) __spirv_GroupNonUniformAllEqual(int scope, int3 x);

kernel void nu_vectors(global const int *in, global const int *act, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *o = out + 8 * i;
    if (act[i]) {
        int2 s = __spirv_GroupNonUniformIAdd(3, 1, (int2)(x, x * 3));
        float4 f = __spirv_GroupNonUniformShuffleXor(3, (float4)(x, 1, 2, -x), 1u);
        o[0] = s.x;
        o[1] = s.y;
        o[2] = (int)f.x;
        o[3] = (int)f.y;
        o[4] = (int)f.z;
        o[5] = (int)f.w;
        o[6] = __spirv_GroupNonUniformAllEqual(3, (int3)(x / 100, 7, x / 1000));
    }
}

// Work-items that diverged come together again at the next sub-group operation: the ones that
// skipped a branch's exchange, or left a loop early, wait for the others there.
kernel void nu_reconverge(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *o = out + 6 * i;
    int a = 0;
    if (x & 1)
        a = sub_group_non_uniform_reduce_add(x);
    o[0] = a;
    o[1] = sub_group_non_uniform_reduce_add(x);
    o[2] = sub_group_reduce_max(x);
    int d = 0;
    for (int j = 0; j < (x & 3); j++)
        d += sub_group_non_uniform_scan_inclusive_add(j + 1);
    o[3] = d;
    o[4] = sub_group_non_uniform_reduce_min(x);
    int f;
    if (x & 2)
        f = sub_group_elect();
    else
        f = 100 * sub_group_broadcast_first(x);
    o[5] = f;
}
