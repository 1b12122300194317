// Global memory bandwidth: one float4 read and one float4 write per work-item.
kernel void copy4(global const float4 *src, global float4 *dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i];
}
