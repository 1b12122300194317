// Function pointers across zeModuleDynamicLink: a pointer to `twice`, which this module imports
// from link_lib.cl, in a table with a function of its own and one the host passes:
// out[i] = fs[i % 3](in[i]).
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

int twice(int x);

int negate(int x) { return -x; }

kernel void fp_user(global const int *in, global int *out, ulong extra) {
    int (*fs[3])(int) = {twice, negate, (int (*)(int))extra};
    size_t i = get_global_id(0);
    out[i] = fs[i % 3](in[i]);
}
