// A required work-group size: the kernel records each work-item's linear local id.
__attribute__((reqd_work_group_size(8, 2, 1)))
kernel void reqd(global uint *out) {
    out[get_global_linear_id()] = (uint)get_local_linear_id();
}
