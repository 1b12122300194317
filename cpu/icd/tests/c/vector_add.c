/* Vector add end to end through the loader: a SPIR-V module (path in ZEKIT_TEST_SPV) built,
 * its kernel's arguments set, device buffers filled by copies, the kernel launched between
 * the copies on a regular list, the result copied back and checked; then bad SPIR-V. */
#include "zt.h"

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    ze_device_module_properties_t mp = {ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, NULL};
    OK(zeDeviceGetModuleProperties(dev, &mp));
    printf("spirv version = %u.%u\n", ZE_MAJOR_VERSION(mp.spirvVersionSupported),
           ZE_MINOR_VERSION(mp.spirvVersionSupported));

    const char *path = getenv("ZEKIT_TEST_SPV");
    EXPECT(path != NULL);
    size_t size = 0;
    unsigned char *spv = zt_read_file(path, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size,
                           spv, "-cl-std=CL2.0", NULL};
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    OK(zeModuleCreate(ctx, dev, &md, &module, &log));
    size_t log_size = 0;
    OK(zeModuleBuildLogGetString(log, &log_size, NULL));
    char *text = malloc(log_size);
    OK(zeModuleBuildLogGetString(log, &log_size, text));
    printf("build log = %s\n", text);
    free(text);
    OK(zeModuleBuildLogDestroy(log));

    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vector_add"};
    ze_kernel_handle_t kernel = NULL;
    OK(zeKernelCreate(module, &kd, &kernel));
    ze_kernel_properties_t kp = {ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES, NULL};
    OK(zeKernelGetProperties(kernel, &kp));
    printf("kernel arguments = %u\n", kp.numKernelArgs);

    enum { N = 100000 };
    uint32_t gx = 0, gy = 0, gz = 0;
    OK(zeKernelSuggestGroupSize(kernel, N, 1, 1, &gx, &gy, &gz));
    EXPECT(N % gx == 0 && gy == 1 && gz == 1);
    OK(zeKernelSetGroupSize(kernel, gx, gy, gz));
    printf("group size = %u\n", gx);

    float *host_a = zt_host(ctx, N * sizeof(float));
    float *host_b = zt_host(ctx, N * sizeof(float));
    float *host_c = zt_host(ctx, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        host_a[i] = (float)i * 0.5f;
        host_b[i] = (float)(N - i) * 2.0f;
        host_c[i] = -1.0f;
    }
    float *a = zt_device(ctx, dev, N * sizeof(float));
    float *b = zt_device(ctx, dev, N * sizeof(float));
    float *c = zt_device(ctx, dev, N * sizeof(float));
    OK(zeKernelSetArgumentValue(kernel, 0, sizeof a, &a));
    OK(zeKernelSetArgumentValue(kernel, 1, sizeof b, &b));
    OK(zeKernelSetArgumentValue(kernel, 2, sizeof c, &c));

    ze_command_queue_handle_t q = zt_queue(ctx, dev, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t list = NULL;
    OK(zeCommandListCreate(ctx, dev, &ld, &list));
    OK(zeCommandListAppendMemoryCopy(list, a, host_a, N * sizeof(float), NULL, 0, NULL));
    OK(zeCommandListAppendMemoryCopy(list, b, host_b, N * sizeof(float), NULL, 0, NULL));
    OK(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    ze_group_count_t groups = {N / gx, 1, 1};
    OK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    OK(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    OK(zeCommandListAppendMemoryCopy(list, host_c, c, N * sizeof(float), NULL, 0, NULL));
    OK(zeCommandListClose(list));
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence = NULL;
    OK(zeFenceCreate(q, &fd, &fence));
    OK(zeCommandQueueExecuteCommandLists(q, 1, &list, fence));
    OK(zeFenceHostSynchronize(fence, UINT64_MAX));
    for (int i = 0; i < N; i++) {
        if (host_c[i] != host_a[i] + host_b[i]) {
            fprintf(stderr, "c[%d] = %f, expected %f\n", i, host_c[i], host_a[i] + host_b[i]);
            exit(1);
        }
    }
    printf("vector add of %d elements ok\n", N);

    OK(zeFenceDestroy(fence));
    OK(zeCommandListDestroy(list));
    OK(zeCommandQueueDestroy(q));
    OK(zeKernelDestroy(kernel));
    OK(zeModuleDestroy(module));

    /* Bad SPIR-V is a build failure, not a crash. */
    unsigned char junk[64];
    memcpy(junk, spv, sizeof junk);
    junk[20] ^= 0xff;
    junk[21] ^= 0xff;
    ze_module_desc_t bad = md;
    bad.inputSize = sizeof junk;
    bad.pInputModule = junk;
    ze_module_handle_t none = NULL;
    CHECK(zeModuleCreate(ctx, dev, &bad, &none, NULL), ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    printf("bad module refused\n");

    free(spv);
    OK(zeContextDestroy(ctx));
    printf("vector_add ok\n");
    return 0;
}
