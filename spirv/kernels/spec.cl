// Adds 1000 to each element; the tests turn the constant 1000 into a specialization constant
// (SpecId 7) by patching the binary, since OpenCL C cannot declare one.
kernel void spec(global int *x) {
    size_t i = get_global_id(0);
    x[i] += 1000;
}
