// 64 KiB of private memory per work-item, kept across a barrier: with barriers each work-item
// of a group needs its own copy, which bounds the group size the driver accepts.
kernel void big_private(global const int *in, global int *out) {
    int a[16384];
    size_t l = get_local_id(0);
    for (int k = 0; k < 16384; k++)
        a[k] = in[k] + (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = a[in[l] & 16383];
}
