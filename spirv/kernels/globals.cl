// Program-scope variables: a table and a constant table the kernel reads, and counters it
// bumps (both read back through zeModuleGetGlobalPointer).
global int table[4] = {1, 2, 3, 4};
global int bumps[4];
constant int weights[4] = {10, 20, 30, 40};

kernel void globals(global int *out) {
    size_t i = get_global_id(0);
    out[i] = table[i % 4] * weights[i % 4];
    atomic_inc(&bumps[i % 4]);
}
