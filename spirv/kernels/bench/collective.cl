// The sum of `workloads.cl`'s `sum_local` with the work-group collective, in a module of its
// own: PoCL 3.1 has no `work_group_reduce_add` and refuses any module that calls it.
kernel void sum_collective(global const float *in, global float *out) {
    float s = work_group_reduce_add(in[get_global_id(0)]);
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = s;
}
