// Sub-groups (cl_khr_subgroups): 8 consecutive work-items of a group in linear order, the last
// one smaller when the group size is not a multiple of 8.
kernel void subgroups(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *o = out + 14 * i;
    o[0] = get_sub_group_size();
    o[1] = get_max_sub_group_size();
    o[2] = get_num_sub_groups();
    o[3] = get_sub_group_id();
    o[4] = get_sub_group_local_id();
    o[5] = get_enqueued_num_sub_groups();
    o[6] = sub_group_reduce_add(x);
    o[7] = sub_group_scan_inclusive_min(x);
    o[8] = sub_group_scan_exclusive_add(x);
    o[9] = sub_group_reduce_max(x);
    o[10] = sub_group_broadcast(x, 1);
    o[11] = sub_group_any(x == 5);
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
    o[12] = sub_group_all(x >= 0);
    o[13] = (int)sub_group_scan_exclusive_max((ulong)x);
}

// intel_sub_group_shuffle* (SPV_INTEL_subgroups): clang-15 does not declare them for spir64.
int __attribute__((overloadable)) intel_sub_group_shuffle(int x, uint c);
float __attribute__((overloadable)) intel_sub_group_shuffle_down(float cur, float next, uint d);
long __attribute__((overloadable)) intel_sub_group_shuffle_up(long prev, long cur, uint d);
uint __attribute__((overloadable)) intel_sub_group_shuffle_xor(uint x, uint c);

kernel void shuffles(global const int *in, global long *out, uint c) {
    size_t i = get_global_id(0);
    int x = in[i];
    global long *o = out + 4 * i;
    o[0] = intel_sub_group_shuffle(x, c % get_sub_group_size());
    o[1] = (long)intel_sub_group_shuffle_down((float)x, (float)x + 0.5f, c);
    o[2] = intel_sub_group_shuffle_up((long)x, (long)x * 1000, c);
    o[3] = intel_sub_group_shuffle_xor((uint)x, c % 8);
}

// A required sub-group size: 8 (16 is accepted too; other sizes are refused).
__attribute__((intel_reqd_sub_group_size(8)))
kernel void reqd_sub_group(global int *out) {
    out[get_global_id(0)] = get_sub_group_size() * 100 + get_sub_group_local_id();
}
