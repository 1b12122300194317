// Every built-in id, written per work-item (3D launches, global offsets).
kernel void builtins(global ulong *out) {
    size_t lin = (get_global_id(2) - get_global_offset(2)) * get_global_size(1) * get_global_size(0)
               + (get_global_id(1) - get_global_offset(1)) * get_global_size(0)
               + (get_global_id(0) - get_global_offset(0));
    global ulong *o = out + lin * 24;
    for (uint d = 0; d < 3; d++) {
        o[d * 7 + 0] = get_global_id(d);
        o[d * 7 + 1] = get_local_id(d);
        o[d * 7 + 2] = get_group_id(d);
        o[d * 7 + 3] = get_global_size(d);
        o[d * 7 + 4] = get_local_size(d);
        o[d * 7 + 5] = get_num_groups(d);
        o[d * 7 + 6] = get_global_offset(d);
    }
    o[21] = get_work_dim();
    o[22] = get_global_linear_id();
    o[23] = get_local_linear_id();
}
