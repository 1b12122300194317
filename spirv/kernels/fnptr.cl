// Function pointers (clang's __cl_clang_function_pointers, SPV_INTEL_function_pointers): a
// constant table selected by data, a private table, a pointer passed by the host as a kernel
// argument (from zeModuleGetFunctionPointer), pointers stored in buffers and structs, compared,
// passed to another function, and a pointer to a function calling through a pointer to itself.
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

typedef int (*binop)(int, int);
typedef float (*unop)(float);
typedef void (*writer)(global float *, float);

int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b; }
int mul(int a, int b) { return a * b; }
int max_of(int a, int b) { return a > b ? a : b; }

float half_of(float x) { return x * 0.5f; }
float square(float x) { return x * x; }

void put_twice(global float *p, float x) { *p = 2.0f * x; }
void put_neg(global float *p, float x) { *p = -x; }

// Calls `f` twice: a pointer passed to another function.
__attribute__((noinline)) int apply_twice(binop f, int a, int b) { return f(f(a, b), b); }

// out[i] = ops[sel[i] % 4](a[i], b[i]) through a table in constant memory.
kernel void fp_table(global const int *sel, global const int *a, global const int *b,
                     global int *out) {
    const binop ops[4] = {add, sub, mul, max_of};
    size_t i = get_global_id(0);
    out[i] = ops[(uint)sel[i] % 4u](a[i], b[i]);
}

// A private table filled at run time, a choice by data, and the pointer handed to a function.
kernel void fp_private(global const int *a, global const int *b, global int *out) {
    size_t i = get_global_id(0);
    binop ops[2];
    ops[0] = a[i] > b[i] ? sub : add;
    ops[1] = (i & 2) ? mul : max_of;
    out[2 * i] = ops[i & 1](a[i], b[i]);
    out[2 * i + 1] = apply_twice(ops[0], a[i], b[i]);
}

// A pointer from the host (zeModuleGetFunctionPointer) as a kernel argument; comparisons with
// the module's own pointers: out[i] = f(a[i], b[i]) * 16 + which (1 add, 2 sub, 3 mul, 0 other).
kernel void fp_arg(global const int *a, global const int *b, global int *out, ulong fa) {
    binop f = (binop)fa;
    size_t i = get_global_id(0);
    int which = f == add ? 1 : f == sub ? 2 : f == mul ? 3 : 0;
    out[i] = f(a[i], b[i]) * 16 + which;
}

// The module's pointers written to a buffer, for the host to compare with its own.
kernel void fp_store(global ulong *out) {
    out[0] = (ulong)add;
    out[1] = (ulong)sub;
    out[2] = (ulong)mul;
    out[3] = (ulong)max_of;
    out[4] = (ulong)half_of;
    out[5] = (ulong)put_twice;
}

typedef struct {
    unop f;
    float scale;
} scaled_op;

// Pointers in structs in a buffer, of another signature (float -> float).
kernel void fp_struct(global const scaled_op *ops, global const float *x, global float *out) {
    size_t i = get_global_id(0);
    out[i] = ops[i].f(x[i]) * ops[i].scale;
}

// Void functions with a pointer argument, chosen by data.
kernel void fp_void(global const float *x, global float *out) {
    size_t i = get_global_id(0);
    writer w = x[i] < 0.0f ? put_neg : put_twice;
    w(out + i, x[i]);
}

// A function calling through a pointer to itself: recursion, which the compiler does not
// inline (that inner call returns 0). The host passes the pointer (so that clang cannot turn
// the calls into direct ones).
int countdown(int n, ulong self) {
    int (*f)(int, ulong) = (int (*)(int, ulong))self;
    return n <= 0 ? 0 : n + f(n - 1, self);
}

kernel void fp_recursive(global const int *n, global int *out, ulong self) {
    int (*f)(int, ulong) = (int (*)(int, ulong))self;
    size_t i = get_global_id(0);
    out[i] = f(n[i], self);
}
