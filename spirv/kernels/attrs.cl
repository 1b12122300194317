// Kernel attributes the compiler reports (zeKernelGetSourceAttributes): a required size, a
// size hint and a vector type hint; each kernel writes its work-items' global ids.
__attribute__((reqd_work_group_size(8, 1, 1)))
__attribute__((work_group_size_hint(16, 1, 1)))
__attribute__((vec_type_hint(float4)))
kernel void attrs_all(global uint *out) {
    out[get_global_id(0)] = (uint)get_global_id(0);
}

__attribute__((work_group_size_hint(4, 2, 1)))
kernel void attrs_hint(global uint *out) {
    out[get_global_linear_id()] = (uint)get_global_linear_id();
}

__attribute__((vec_type_hint(uint)))
kernel void attrs_uint(global uint *out) {
    out[get_global_id(0)] = (uint)get_global_id(0) + 1;
}

__attribute__((vec_type_hint(double2)))
kernel void attrs_double2(global uint *out) {
    out[get_global_id(0)] = (uint)get_global_id(0) + 2;
}

__attribute__((vec_type_hint(char16)))
kernel void attrs_char16(global uint *out) {
    out[get_global_id(0)] = (uint)get_global_id(0) + 3;
}

kernel void attrs_none(global uint *out) {
    out[get_global_id(0)] = (uint)get_global_id(0) + 4;
}
