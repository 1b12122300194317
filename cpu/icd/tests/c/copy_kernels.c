/* Copy kernels through the loader on a synchronous immediate list: the float4 copy `copy4` over 64 MiB
 * (a launch larger than many last-level caches, so its stores stream; ZEKIT_STREAM_STORES
 * forces either way), then `async_copy` (async_work_group_copy, the strided variant both ways,
 * wait_group_events) in groups of 16. SPIR-V paths in ZEKIT_TEST_COPY4 and ZEKIT_TEST_ASYNC. */
#include "zt.h"

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);
    ze_command_list_handle_t imm = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);

    /* copy4: 4 Mi float4s, every element distinct. */
    ze_module_handle_t m4 = zt_module(ctx, dev, "ZEKIT_TEST_COPY4");
    ze_kernel_handle_t copy4 = zt_kernel(m4, "copy4");
    enum { ITEMS = 4 << 20, LOCAL = 256 };
    size_t bytes = (size_t)ITEMS * 16;
    uint32_t *src = zt_device(ctx, dev, bytes);
    uint32_t *dst = zt_device(ctx, dev, bytes);
    for (size_t i = 0; i < (size_t)ITEMS * 4; i++) {
        src[i] = (uint32_t)(i * 2654435761u);
        dst[i] = 0;
    }
    OK(zeKernelSetGroupSize(copy4, LOCAL, 1, 1));
    OK(zeKernelSetArgumentValue(copy4, 0, sizeof src, &src));
    OK(zeKernelSetArgumentValue(copy4, 1, sizeof dst, &dst));
    ze_group_count_t g4 = {ITEMS / LOCAL, 1, 1};
    OK(zeCommandListAppendLaunchKernel(imm, copy4, &g4, NULL, 0, NULL));
    EXPECT(memcmp(src, dst, bytes) == 0);
    printf("copy4 of %zu MiB ok\n", bytes >> 20);

    /* async_copy: 6 groups of 16. */
    ze_module_handle_t ma = zt_module(ctx, dev, "ZEKIT_TEST_ASYNC");
    ze_kernel_handle_t ac = zt_kernel(ma, "async_copy");
    enum { L = 16, G = 6, N = L * G };
    float *in = zt_device(ctx, dev, N * 16);
    float *out = zt_device(ctx, dev, N * 4);
    int32_t *strided = zt_device(ctx, dev, N * 4);
    int32_t *sout = zt_device(ctx, dev, N * 4);
    for (int i = 0; i < N * 4; i++)
        in[i] = (float)i * 0.25f - 3.0f;
    for (int i = 0; i < N; i++) {
        strided[i] = i * 3 - 40;
        sout[i] = 0;
    }
    OK(zeKernelSetGroupSize(ac, L, 1, 1));
    OK(zeKernelSetArgumentValue(ac, 0, sizeof in, &in));
    OK(zeKernelSetArgumentValue(ac, 1, sizeof out, &out));
    OK(zeKernelSetArgumentValue(ac, 2, sizeof strided, &strided));
    OK(zeKernelSetArgumentValue(ac, 3, sizeof sout, &sout));
    ze_group_count_t ga = {G, 1, 1};
    OK(zeCommandListAppendLaunchKernel(imm, ac, &ga, NULL, 0, NULL));
    for (int g = 0; g < G; g++) {
        for (int l = 0; l < L; l++) {
            const float *t = &in[4 * (g * L + L - 1 - l)];
            EXPECT(out[g * L + l] == t[0] + t[1] * 2.0f + t[2] * 3.0f + t[3] * 4.0f);
            int at = l * G + g;
            EXPECT(sout[at] == strided[at] * 2 + l);
        }
    }
    printf("async work-group copies ok\n");

    OK(zeKernelDestroy(ac));
    OK(zeModuleDestroy(ma));
    OK(zeKernelDestroy(copy4));
    OK(zeModuleDestroy(m4));
    OK(zeCommandListDestroy(imm));
    OK(zeContextDestroy(ctx));
    printf("copy_kernels ok\n");
    return 0;
}
