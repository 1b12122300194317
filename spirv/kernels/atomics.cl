// Atomics beyond atomic_counter: a histogram in local memory (32-bit, then added into global
// bins), 64-bit local atomics, the C11-style atomics with explicit orders and scopes, float and
// double add/min/max (exact here: the values are small multiples of 1/4), and atomic flags.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

kernel void histogram(global const uint *in, global uint *bins, global long *stats) {
    local uint hist[16];
    local long lstats[4];
    size_t l = get_local_id(0);
    if (l < 16) hist[l] = 0;
    if (l == 0) {
        lstats[0] = 0;
        lstats[1] = 0x7fffffffffffffffL;
        lstats[2] = -0x7fffffffffffffffL;
        lstats[3] = -1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint v = in[get_global_id(0)];
    atomic_inc(&hist[v % 16]);
    long w = (long)v * 1000000007L - 5000000000L;
    atom_add(&lstats[0], w);
    atom_min(&lstats[1], w);
    atom_max(&lstats[2], w);
    atom_and(&lstats[3], ~(1L << (v % 64)));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 16) atomic_add(&bins[l], hist[l]);
    if (l == 0) {
        atom_add(&stats[0], lstats[0]);
        atom_min(&stats[1], lstats[1]);
        atom_max(&stats[2], lstats[2]);
        atom_and(&stats[3], lstats[3]);
    }
}

kernel void c11(global const int *in, global atomic_int *ai, global atomic_uint *au,
                global atomic_long *al, global atomic_ulong *aul, global int *old) {
    size_t i = get_global_id(0);
    int v = in[i];
    atomic_fetch_add_explicit(&ai[0], v, memory_order_relaxed, memory_scope_device);
    atomic_fetch_sub_explicit(&ai[1], v, memory_order_acq_rel, memory_scope_work_group);
    atomic_fetch_min_explicit(&ai[2], v, memory_order_seq_cst);
    atomic_fetch_max(&ai[3], v);
    atomic_fetch_or(&au[0], 1u << (v & 31));
    atomic_fetch_xor(&au[1], (uint)v);
    atomic_fetch_and(&au[2], ~(1u << (v & 31)));
    atomic_fetch_min(&au[3], (uint)v);
    atomic_fetch_max(&au[4], (uint)v);
    atomic_fetch_add(&al[0], (long)v << 33);
    atomic_fetch_min(&al[1], (long)v * -3);
    atomic_fetch_or(&aul[0], 1ul << (v & 63));
    atomic_fetch_max(&aul[1], (ulong)v << 40);
    // Each work-item raises ai[4] to its index + 1 with a compare-exchange loop.
    int seen = atomic_load_explicit(&ai[4], memory_order_acquire);
    while (seen < (int)i + 1 &&
           !atomic_compare_exchange_weak(&ai[4], &seen, (int)i + 1)) {
    }
    old[i] = atomic_exchange(&ai[5], (int)i);
    if (i == 0) atomic_store_explicit(&ai[6], 42, memory_order_release);
}

kernel void float_atomics(global const float *in, global atomic_float *f,
                          global atomic_double *d, global float *out) {
    size_t i = get_global_id(0);
    float v = in[i];
    atomic_fetch_add_explicit(&f[0], v, memory_order_relaxed);
    atomic_fetch_min_explicit(&f[1], v, memory_order_relaxed);
    atomic_fetch_max_explicit(&f[2], v, memory_order_relaxed);
    atomic_fetch_add_explicit(&d[0], (double)v * 2.0, memory_order_relaxed);
    atomic_fetch_min_explicit(&d[1], (double)v, memory_order_relaxed);
    atomic_fetch_max_explicit(&d[2], (double)v, memory_order_relaxed);
    // Local float atomics: one sum per group.
    local atomic_float sum;
    if (get_local_id(0) == 0) atomic_store(&sum, 0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_fetch_add_explicit(&sum, v, memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) out[get_group_id(0)] = atomic_load(&sum);
    float was = atomic_exchange(&f[3], v);
    out[get_num_groups(0) + i] = was;
}

kernel void flags(global atomic_flag *flag, global int *winners, global atomic_flag *cleared) {
    if (!atomic_flag_test_and_set(flag)) atomic_fetch_add((global atomic_int *)winners, 1);
    atomic_flag_clear(&cleared[get_global_id(0)]);
}
