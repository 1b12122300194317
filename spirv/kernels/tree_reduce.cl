// The classic tree reduction: a barrier inside a loop (run in rounds, see src/regions.rs).
kernel void tree_reduce(global const int *in, global int *out, local int *scratch) {
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
