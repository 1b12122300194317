// Images and samplers in kernels (cpu/tests/image_kernels.rs, the C test
// image_sample.c): reads and writes of every image type and channel kind, sampling with
// sampler arguments and program-scope samplers, and the image queries.

const sampler_t repeat_linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
const sampler_t mirror_nearest = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST;
const sampler_t clamp_nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

// out[y * w + x] = the texel at (x, y) of a 2D image, as floats / ints / uints.
kernel void read_f(read_only image2d_t img, global float4 *out) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * get_global_size(0) + x] = read_imagef(img, (int2)(x, y));
}
kernel void read_i(read_only image2d_t img, global int4 *out) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * get_global_size(0) + x] = read_imagei(img, (int2)(x, y));
}
kernel void read_ui(read_only image2d_t img, global uint4 *out) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * get_global_size(0) + x] = read_imageui(img, (int2)(x, y));
}
kernel void write_f(write_only image2d_t img, global const float4 *in) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imagef(img, (int2)(x, y), in[y * get_global_size(0) + x]);
}
kernel void write_i(write_only image2d_t img, global const int4 *in) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imagei(img, (int2)(x, y), in[y * get_global_size(0) + x]);
}
kernel void write_ui(write_only image2d_t img, global const uint4 *in) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imageui(img, (int2)(x, y), in[y * get_global_size(0) + x]);
}

// Every image type: dst = src + 1 texel by texel (floats), global size = the image's extents.
kernel void inc_1d(read_only image1d_t src, write_only image1d_t dst) {
  int x = get_global_id(0);
  write_imagef(dst, x, read_imagef(src, x) + 1.0f);
}
kernel void inc_buffer(read_only image1d_buffer_t src, write_only image1d_buffer_t dst) {
  int x = get_global_id(0);
  write_imagef(dst, x, read_imagef(src, x) + 1.0f);
}
kernel void inc_1d_array(read_only image1d_array_t src, write_only image1d_array_t dst) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(dst, p, read_imagef(src, p) + 1.0f);
}
kernel void inc_2d_array(read_only image2d_array_t src, write_only image2d_array_t dst) {
  int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
  write_imagef(dst, p, read_imagef(src, p) + 1.0f);
}
kernel void inc_3d(read_only image3d_t src, write_only image3d_t dst) {
  int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
  write_imagef(dst, p, read_imagef(src, p) + 1.0f);
}
// A read-write image, updated in place.
kernel void inc_rw(read_write image2d_t img) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(img, p, read_imagef(img, p) + 1.0f);
}

// Sampling at float coordinates: out[i] = sample(coords[i]).
kernel void sample_1d(read_only image1d_t img, sampler_t s, global const float *c, global float4 *out) {
  int i = get_global_id(0);
  out[i] = read_imagef(img, s, c[i]);
}
kernel void sample_2d(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out) {
  int i = get_global_id(0);
  out[i] = read_imagef(img, s, c[i]);
}
kernel void sample_3d(read_only image3d_t img, sampler_t s, global const float4 *c, global float4 *out) {
  int i = get_global_id(0);
  out[i] = read_imagef(img, s, c[i]);
}
kernel void sample_1d_array(read_only image1d_array_t img, sampler_t s, global const float2 *c, global float4 *out) {
  int i = get_global_id(0);
  out[i] = read_imagef(img, s, c[i]);
}
kernel void sample_2d_array(read_only image2d_array_t img, sampler_t s, global const float4 *c, global float4 *out) {
  int i = get_global_id(0);
  out[i] = read_imagef(img, s, c[i]);
}
// Integer coordinates with a sampler, and integer texels.
kernel void sample_2d_int(read_only image2d_t img, sampler_t s, global const int2 *c, global float4 *out) {
  int i = get_global_id(0);
  out[i] = read_imagef(img, s, c[i]);
}
kernel void sample_2d_ui(read_only image2d_t img, sampler_t s, global const float2 *c, global uint4 *out) {
  int i = get_global_id(0);
  out[i] = read_imageui(img, s, c[i]);
}
// Program-scope samplers: out[3 * i + k] for each of the three.
kernel void sample_const(read_only image2d_t img, global const float2 *c, global float4 *out) {
  int i = get_global_id(0);
  out[3 * i] = read_imagef(img, repeat_linear, c[i]);
  out[3 * i + 1] = read_imagef(img, mirror_nearest, c[i]);
  out[3 * i + 2] = read_imagef(img, clamp_nearest, c[i]);
}

// Queries.
kernel void query(read_only image2d_t a, read_only image3d_t b, read_only image2d_array_t c,
                  read_only image1d_array_t d, read_only image1d_buffer_t e, global int *out) {
  out[0] = get_image_width(a);
  out[1] = get_image_height(a);
  out[2] = get_image_channel_data_type(a);
  out[3] = get_image_channel_order(a);
  int4 bd = get_image_dim(b);
  out[4] = bd.x;
  out[5] = bd.y;
  out[6] = bd.z;
  out[7] = get_image_depth(b);
  out[8] = get_image_width(c);
  out[9] = get_image_height(c);
  out[10] = get_image_array_size(c);
  out[11] = get_image_width(d);
  out[12] = get_image_array_size(d);
  out[13] = get_image_width(e);
  out[14] = get_image_channel_data_type(e);
  out[15] = get_image_channel_order(e);
}

// Half texels (cl_khr_fp16): read_imageh rounds to half, write_imageh converts from half.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void read_h(read_only image2d_t img, global half4 *out) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * get_global_size(0) + x] = read_imageh(img, (int2)(x, y));
}
kernel void write_h(write_only image2d_t img, global const half4 *in) {
  int x = get_global_id(0), y = get_global_id(1);
  write_imageh(img, (int2)(x, y), in[y * get_global_size(0) + x]);
}
