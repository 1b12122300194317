// A kernel calling functions it imports (defined in link_lib.cl, resolved by
// zeModuleDynamicLink): out[i] = scale_add(in[i], 3) + twice(i).
float scale_add(float x, int k);
int twice(int x);

kernel void link_user(global const float *in, global float *out) {
    int i = (int)get_global_id(0);
    out[i] = scale_add(in[i], 3) + (float)twice(i);
}
