// A struct passed by value (a ByVal pointer parameter in SPIR-V).
typedef struct {
    float scale;
    int offset;
    long big;
    char tag;
} params_t;

kernel void struct_arg(params_t p, global long *out) {
    size_t i = get_global_id(0);
    out[i] = (long)(p.scale * (float)i) + p.offset + p.big + p.tag;
}
