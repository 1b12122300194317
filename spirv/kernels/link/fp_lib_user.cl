// Imports `pick` from fp_lib.cl, which calls through a function pointer: refused at the link.
int pick(int x, int up);

kernel void fp_lib_user(global int *out) {
    int i = (int)get_global_id(0);
    out[i] = pick(i, i & 1);
}
