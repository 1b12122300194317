// OpGroupNonUniform* at Workgroup scope, written as SPIR-V built-in calls (OpenCL C has no such
// functions): the instructions with an OpGroup* twin. llvm-spirv-15 cannot translate these back
// to LLVM (an assertion), so this kernel has no bitcode for PoCL (xtask's NO_BITCODE).
int __attribute__((overloadable)) __spirv_GroupNonUniformIAdd(int scope, int op, int x);
float __attribute__((overloadable)) __spirv_GroupNonUniformFMax(int scope, int op, float x);
uint __attribute__((overloadable)) __spirv_GroupNonUniformUMin(int scope, int op, uint x);

kernel void nu_work_group(global const int *in, global int *out) {
    size_t i = get_global_id(0);
    int x = in[i];
    out[3 * i] = __spirv_GroupNonUniformIAdd(2, 1, x);
    out[3 * i + 1] = (int)__spirv_GroupNonUniformFMax(2, 0, (float)x);
    out[3 * i + 2] = (int)__spirv_GroupNonUniformUMin(2, 2, (uint)x);
}
