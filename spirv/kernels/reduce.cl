// Per-group sums: each work-item stores its element in local memory (a local-pointer
// argument), a barrier, then work-item 0 sums the group's elements; a second barrier, then
// every work-item reads the group's sum back from a static local variable.
kernel void reduce(global const int *in, global int *partial, local int *scratch,
                   global int *echo) {
    local int total;
    size_t l = get_local_id(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (size_t k = 0; k < get_local_size(0); k++)
            s += scratch[k];
        total = s;
        partial[get_group_id(0)] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    echo[get_global_id(0)] = total + (int)l;
}
