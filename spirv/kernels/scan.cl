// An inclusive prefix sum per work-group (Hillis-Steele): barriers inside a loop and inside a
// branch-free body, local memory as a static array; work-items past `n` leave early, before
// any barrier (undefined in OpenCL, common in practice: the finished ones are skipped).
kernel void scan(global const int *in, global int *out, uint n) {
    local int buf[256];
    size_t l = get_local_id(0);
    size_t g = get_global_id(0);
    if (g >= n)
        return;
    buf[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t count = min((size_t)get_local_size(0), (size_t)(n - (g - l)));
    for (size_t d = 1; d < count; d *= 2) {
        int v = l >= d ? buf[l - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        buf[l] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = buf[l];
}
