// Record stores that must not stream (lockstep.rs `which_record_stores_can_stream`).

// Addresses from the local id: every group writes the same bytes.
kernel void ns_local(global const float4 *a, global float4 *o) {
    o[get_local_id(0)] = a[get_global_id(0)];
}

// A kernel with atomics: another work-item may wait on what it stored.
kernel void ns_atomic(global const float4 *a, global float4 *o, global int *done) {
    size_t i = get_global_id(0);
    o[i] = a[i];
    atomic_inc(done);
}
