// Kernels with barriers whose spilled values every work-item computes alike: the LLVM tier
// keeps those once per group (`backend/llvm/rounds.rs`, `group_values`). Run on both tiers by
// `tests/group_values.rs`.

// A tree sum of each group's values at any group size: the step `s` is the same in every
// work-item (a value for the group), the test `l % (2 s) == 0` is not.
kernel void gv_tree(global const float *in, global float *out, local float *scratch) {
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    for (size_t s = 1; s < n; s *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l % (2 * s) == 0 && l + s < n)
            scratch[l] += scratch[l + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = scratch[0] + (float)l;
}

// A barrier in every other trip: after it, the loop comes round to the same uses without
// another barrier, so `u` (alike in every work-item) is used from its slot after the segment
// computed it again and must stay per work-item.
kernel void gv_odd_barrier(global int *out, local int *scratch, int n, int trips) {
    size_t l = get_local_id(0);
    int u = n, acc = 0;
    scratch[l] = (int)l;
    for (int it = 0; it < trips; it++) {
        if (it % 2 == 0)
            barrier(CLK_LOCAL_MEM_FENCE);
        acc += u * scratch[(l + 1) % get_local_size(0)];
        u = u * 3 + it;
    }
    out[get_global_id(0)] = acc;
}

// Work-group collectives, whose first work-item combines the slots (the LLVM tier runs it on
// its own before the others), and a test of the first work-item in the kernel's own code.
kernel void gv_collectives(global const int *in, global int *out, global int *firsts) {
    int x = in[get_global_id(0)];
    int s = work_group_scan_inclusive_add(x);
    int m = work_group_reduce_max(x);
    out[get_global_id(0)] = s * 3 + m;
    if (get_local_linear_id() == 0)
        firsts[get_group_id(0)] = s + m;
}
