/* Images and samplers in a kernel through the loader: a 2D RGBA8 UNORM image filled by a copy,
 * a sampler (clamp to edge, linear, normalized coordinates), the `sample_2d` kernel of
 * images.spv (path in ZEKIT_TEST_SPV) run on a list of coordinates, and the results checked
 * against bilinear filtering computed here; then a sampler handle given for the image
 * argument is refused. */
#include <math.h>

#include "zt.h"

enum { W = 4, H = 4, N = 6 };

static unsigned char texels[H][W][4];

static float texel(int x, int y, int c) {
    x = x < 0 ? 0 : x >= W ? W - 1 : x; /* clamp to edge */
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    return (float)texels[y][x][c] / 255.0f;
}

/* Bilinear filtering at normalized (s, t), as OpenCL defines it. */
static float bilinear(float s, float t, int c) {
    float u = s * W - 0.5f, v = t * H - 0.5f;
    int i0 = (int)floorf(u), j0 = (int)floorf(v);
    float a = u - floorf(u), b = v - floorf(v);
    return (1 - a) * (1 - b) * texel(i0, j0, c) + a * (1 - b) * texel(i0 + 1, j0, c) +
           (1 - a) * b * texel(i0, j0 + 1, c) + a * b * texel(i0 + 1, j0 + 1, c);
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    ze_module_handle_t module = zt_module(ctx, dev, "ZEKIT_TEST_SPV");
    ze_kernel_handle_t kernel = zt_kernel(module, "sample_2d");

    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) texels[y][x][c] = (unsigned char)((x * 40 + y * 70 + c * 50) % 256);

    ze_image_desc_t id = {ZE_STRUCTURE_TYPE_IMAGE_DESC, NULL, 0, ZE_IMAGE_TYPE_2D,
                          {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UNORM,
                           ZE_IMAGE_FORMAT_SWIZZLE_R, ZE_IMAGE_FORMAT_SWIZZLE_G,
                           ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                          W, H, 0, 0, 0};
    ze_image_handle_t image = NULL;
    OK(zeImageCreate(ctx, dev, &id, &image));
    ze_sampler_desc_t sd = {ZE_STRUCTURE_TYPE_SAMPLER_DESC, NULL, ZE_SAMPLER_ADDRESS_MODE_CLAMP,
                            ZE_SAMPLER_FILTER_MODE_LINEAR, 1};
    ze_sampler_handle_t sampler = NULL;
    OK(zeSamplerCreate(ctx, dev, &sd, &sampler));

    float *coords = zt_host(ctx, N * 2 * sizeof(float));
    float *out = zt_host(ctx, N * 4 * sizeof(float));
    const float cs[N][2] = {{0.125f, 0.125f}, {0.3f, 0.6f}, {1.2f, -0.1f},
                            {0.875f, 0.5f}, {0.51f, 0.49f}, {-3.0f, 0.7f}};
    memcpy(coords, cs, sizeof cs);

    /* A sampler handle where the image goes: refused. */
    CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof sampler, &sampler), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(zeKernelSetArgumentValue(kernel, 0, sizeof image, &image));
    OK(zeKernelSetArgumentValue(kernel, 1, sizeof sampler, &sampler));
    OK(zeKernelSetArgumentValue(kernel, 2, sizeof coords, &coords));
    OK(zeKernelSetArgumentValue(kernel, 3, sizeof out, &out));
    OK(zeKernelSetGroupSize(kernel, 1, 1, 1));

    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    OK(zeCommandListCreateImmediate(ctx, dev, &qd, &list));
    OK(zeCommandListAppendImageCopyFromMemory(list, image, texels, NULL, NULL, 0, NULL));
    ze_group_count_t groups = {N, 1, 1};
    OK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    /* A synchronous immediate list: each append has finished when it returns. */

    for (int i = 0; i < N; i++) {
        for (int c = 0; c < 4; c++) {
            float want = bilinear(cs[i][0], cs[i][1], c);
            if (fabsf(out[4 * i + c] - want) > 1e-4f) {
                fprintf(stderr, "sample %d channel %d at (%f, %f): %f, expected %f\n", i, c,
                        cs[i][0], cs[i][1], out[4 * i + c], want);
                exit(1);
            }
        }
    }
    printf("%d bilinear samples ok\n", N);

    OK(zeCommandListDestroy(list));
    OK(zeSamplerDestroy(sampler));
    OK(zeImageDestroy(image));
    OK(zeMemFree(ctx, coords));
    OK(zeMemFree(ctx, out));
    OK(zeKernelDestroy(kernel));
    OK(zeModuleDestroy(module));
    OK(zeContextDestroy(ctx));
    printf("image_sample ok\n");
    return 0;
}
