// Kernels with work-group barriers that run in lockstep (`spirv/tests/lockstep_barriers.rs`):
// every barrier is reached by every work-item, outside divergent branches.

// A value loaded before the barrier (spilled per lane: it cannot be computed again) and the
// neighbour's value through local memory after it.
kernel void lb_neighbour(global const int *in, global int *out, local int *ring) {
    size_t l = get_local_id(0), n = get_local_size(0);
    int x = in[get_global_id(0)] * 3 + (int)l;
    ring[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = x * 100 + ring[(l + 1) % n];
}

// Two dimensions (rows shorter than four lanes leave partial turns), a barrier inside a loop,
// and a value that lanes join from both sides of a branch kept across the barriers.
kernel void lb_rows(global int *out, local int *tile, int steps) {
    size_t x = get_local_id(0), y = get_local_id(1);
    size_t w = get_local_size(0), h = get_local_size(1);
    size_t me = y * w + x;
    int v;
    if (x & 1)
        v = (int)(me * 7);
    else
        v = -(int)me;
    tile[me] = v;
    for (int s = 0; s < steps; s++) {
        barrier(CLK_LOCAL_MEM_FENCE);
        int next = tile[((y + 1) % h) * w + (x + w - 1) % w] + v;
        barrier(CLK_LOCAL_MEM_FENCE);
        tile[me] = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t g = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    out[g * w * h + me] = tile[me];
}

// Whole groups that leave before a barrier (a uniform branch), and local atomics between
// barriers (a histogram of the group's values in 16 local bins).
kernel void lb_hist(global const uint *in, global uint *bins, uint skip) {
    local uint lb[16];
    size_t l = get_local_id(0);
    if (get_group_id(0) == skip)
        return;
    if (l < 16)
        lb[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&lb[in[get_global_id(0)] & 15]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 16)
        bins[get_group_id(0) * 16 + l] = lb[l];
}

// A group's values read back transposed through local memory, with the row and column of a
// 16-wide tiling of the local id (`l >> 4`, `l & 15`: the same in every lane of a turn, and
// consecutive in its lanes).
kernel void lb_tile(global const int *in, global int *out, local int *tile) {
    uint l = get_local_id(0), n = get_local_size(0);
    tile[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint r = l >> 4, c = l & 15;
    uint t = c * 16 + r;
    out[get_global_id(0)] = tile[t % n] * 3 + (int)(l >> 2) * 1000 + (int)(l & 7) - (int)(l & 0x3b);
}
