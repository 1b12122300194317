// async_work_group_copy and async_work_group_strided_copy (OpGroupAsyncCopy) with
// wait_group_events (OpGroupWaitEvents), both directions, for groups of up to 64.
kernel void async_copy(global const float4 *in, global float *out, global const int *strided,
                       global int *sout) {
    local float4 tile[64];
    local int col[64];
    size_t g = get_group_id(0), n = get_local_size(0), l = get_local_id(0);
    event_t e[2];
    // Global to local: contiguous float4s, and column g of a row-major matrix with one row per
    // work-item of the group and one column per group.
    e[0] = async_work_group_copy(tile, in + g * n, n, 0);
    e[1] = async_work_group_strided_copy(col, strided + g, n, get_num_groups(0), 0);
    wait_group_events(2, e);
    float4 t = tile[n - 1 - l];
    out[g * n + l] = t.x + t.y * 2.0f + t.z * 3.0f + t.w * 4.0f;
    col[l] = col[l] * 2 + (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    // Local to global, strided: back into column g.
    event_t e2 = async_work_group_strided_copy(sout + g, col, n, get_num_groups(0), 0);
    wait_group_events(1, &e2);
}
