// Work-group collectives: reduce, inclusive and exclusive scans for every operation, broadcast,
// any and all, on 32- and 64-bit integers and floats, in 1D and 2D groups and inside a loop.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

kernel void wg_int(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    global int *o = out + 12 * i;
    o[0] = work_group_reduce_add(x);
    o[1] = work_group_scan_inclusive_add(x);
    o[2] = work_group_scan_exclusive_add(x);
    o[3] = work_group_reduce_min(x);
    o[4] = work_group_scan_inclusive_min(x);
    o[5] = work_group_scan_exclusive_min(x);
    o[6] = work_group_reduce_max(x);
    o[7] = work_group_scan_inclusive_max(x);
    o[8] = work_group_scan_exclusive_max(x);
    o[9] = work_group_broadcast(x, get_local_size(0) / 3);
    o[10] = work_group_all(x > -40);
    o[11] = work_group_any(x == 13);
}

kernel void wg_uint_long(global const uint *in, global ulong *out) {
    size_t i = get_global_id(0);
    uint x = in[i];
    long y = (long)x * 3000000000L - (long)i * 7000000000L;
    global ulong *o = out + 9 * i;
    o[0] = work_group_reduce_min(x);
    o[1] = work_group_scan_inclusive_max(x);
    o[2] = work_group_scan_exclusive_min(x);
    o[3] = work_group_scan_exclusive_max(x);
    o[4] = work_group_reduce_add(y);
    o[5] = work_group_scan_exclusive_add(y);
    o[6] = work_group_scan_inclusive_min(y);
    o[7] = work_group_reduce_max((ulong)y);
    o[8] = work_group_broadcast((ulong)y, 0);
}

kernel void wg_float(global const float *in, global double *out) {
    size_t i = get_global_id(0);
    float x = in[i];
    double d = (double)x * 1.5;
    global double *o = out + 9 * i;
    o[0] = work_group_reduce_add(x);
    o[1] = work_group_scan_inclusive_add(x);
    o[2] = work_group_scan_exclusive_add(x);
    o[3] = work_group_reduce_min(x);
    o[4] = work_group_scan_exclusive_min(x);
    o[5] = work_group_scan_inclusive_max(x);
    o[6] = work_group_scan_exclusive_max(d);
    o[7] = work_group_scan_inclusive_add(d);
    o[8] = work_group_broadcast(d, get_local_size(0) - 1);
}

// 2D groups: the linear order is x fastest; broadcast takes (x, y).
kernel void wg_2d(global const int *in, global int *out) {
    size_t w = get_global_size(0);
    size_t i = get_global_id(1) * w + get_global_id(0);
    int x = in[i];
    out[4 * i] = work_group_scan_inclusive_add(x);
    out[4 * i + 1] = work_group_broadcast(x, 1, get_local_size(1) - 1);
    out[4 * i + 2] = work_group_reduce_max(x);
    out[4 * i + 3] = (int)get_local_linear_id();
}

// Collectives in a loop (every work-item runs the same number of iterations).
kernel void wg_loop(global const int *in, global int *out, int rounds) {
    size_t i = get_global_id(0);
    int x = in[i];
    for (int r = 0; r < rounds; r++) {
        x = work_group_scan_exclusive_add(x) % 1000 + r;
    }
    out[i] = x;
}
