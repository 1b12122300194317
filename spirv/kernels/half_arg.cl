// `half` kernel arguments by value: scalars and vectors of 2-byte elements, between other
// arguments (each at its own aligned offset).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void half_args(global float *out, half s, half2 v2, float f, half3 v3, half4 v4,
                      half8 v8, half16 v16, short after) {
    size_t i = get_global_id(0);
    global float *o = out + 40 * i;
    half k = (half)(float)i;
    o[0] = s;
    o[1] = s * k + v2.y;
    o[2] = v2.x;
    o[3] = v2.y;
    o[4] = f;
    for (int j = 0; j < 3; j++)
        o[5 + j] = v3[j];
    for (int j = 0; j < 4; j++)
        o[8 + j] = v4[j];
    for (int j = 0; j < 8; j++)
        o[12 + j] = v8[j];
    for (int j = 0; j < 16; j++)
        o[20 + j] = v16[j];
    o[36] = after;
    o[37] = (v4 * v4).w;
}
