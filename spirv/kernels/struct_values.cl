// Structs and arrays by value as clang emits them on spir64 (sret results, byval arguments,
// memcpy of whole structs, a small array indexed dynamically): see aggregates_ssa.ll for
// aggregates as SSA values.
typedef struct { float x, y; } float2x;
typedef struct { int a; float b; long c; } mixed_t;
typedef struct { mixed_t m; int arr[3]; } nested_t;

__attribute__((noinline)) float2x swap2(float2x v) {
    float2x r = { v.y, v.x };
    return r;
}

__attribute__((noinline)) mixed_t make_mixed(int i) {
    mixed_t m = { i * 3, (float)i * 0.5f, (long)i << 33 };
    return m;
}

kernel void struct_values(global const float *in, global float *out, global nested_t *whole,
                       global long *sums) {
    int i = (int)get_global_id(0);
    float2x v = { in[2 * i], in[2 * i + 1] };
    float2x s = swap2(v);
    float2x t = (i & 1) ? s : v;
    out[2 * i] = t.x;
    out[2 * i + 1] = t.y;
    nested_t n;
    n.m = make_mixed(i);
    int arr[3] = { i, i + 1, i * i };
    for (int k = 0; k < 3; k++) n.arr[k] = arr[(k + i) % 3];
    whole[i] = n;
    nested_t copy = whole[i];
    sums[i] = copy.m.a + (long)copy.m.b + copy.m.c + copy.arr[0] + copy.arr[1] + copy.arr[2];
}
