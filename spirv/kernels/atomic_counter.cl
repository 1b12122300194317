// Every work-item whose value passes the threshold takes a slot from a global counter.
kernel void atomic_counter(global const int *in, int threshold, global int *count,
                           global int *slots, global long *sum) {
    size_t i = get_global_id(0);
    if (in[i] > threshold) {
        int slot = atomic_add(count, 1);
        slots[slot] = in[i];
    }
    atom_add(sum, (long)in[i]);
    atomic_sub(count + 1, 1);
    atomic_xchg(count + 2, 7);
    atomic_cmpxchg(count + 3, 0, (int)i + 1);
}
