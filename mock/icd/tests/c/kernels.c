/* Modules, kernels and a host callback that emulates vector_add, through the loader.
 * Linked against libze_zekit_mock.so (for zekitMockOnKernel) and with -rdynamic (so that a
 * scenario's `kernels:` finds c_vector_add with dlsym).
 * argv[1]: vector_add.spv; argv[2]: "control" (register the callback with zekitMockOnKernel)
 * or "scenario" (ZEKIT_MOCK_SCENARIO registered it when the mock was loaded). */
#include <zekit/zekit_mock.h>
#include "common.h"

#define N 256

static int calls;

/* c = a + b over the launch's global size, as vector_add.cl does. */
void c_vector_add(const zekit_mock_kernel_launch_t *launch, void *user) {
    if (launch->numArgs != 3 || strcmp(launch->kernel, "vector_add") != 0) {
        fprintf(stderr, "unexpected launch of %s with %u arguments\n", launch->kernel,
                launch->numArgs);
        exit(1);
    }
    float *p[3];
    for (int i = 0; i < 3; i++) {
        if (launch->args[i].kind != ZEKIT_MOCK_KERNEL_ARG_POINTER || launch->args[i].size != 8)
            exit(2);
        memcpy(&p[i], launch->args[i].value, sizeof p[i]);
    }
    size_t n = (size_t)launch->groupCount[0] * launch->groupSize[0];
    for (size_t i = 0; i < n; i++)
        p[2][i] = p[0][i] + p[1][i];
    calls++;
    if (user)
        ++*(int *)user;
}

int main(int argc, char **argv) {
    EXPECT(argc == 3);
    int control = strcmp(argv[2], "control") == 0;
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    first_device(&driver, &device);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(driver, &cd, &ctx));

    size_t size;
    unsigned char *il = read_file(argv[1], &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC};
    md.format = ZE_MODULE_FORMAT_IL_SPIRV;
    md.inputSize = size;
    md.pInputModule = il;
    ze_module_handle_t module;
    ze_module_build_log_handle_t log;
    CHECK(zeModuleCreate(ctx, device, &md, &module, &log));
    CHECK(zeModuleBuildLogDestroy(log));
    uint32_t count = 0;
    CHECK(zeModuleGetKernelNames(module, &count, NULL));
    EXPECT(count == 1);
    const char *name;
    CHECK(zeModuleGetKernelNames(module, &count, &name));
    EXPECT(strcmp(name, "vector_add") == 0);
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vector_add"};
    ze_kernel_handle_t kernel;
    CHECK(zeKernelCreate(module, &kd, &kernel));
    kd.pKernelName = "nope";
    ze_kernel_handle_t bad;
    EXPECT(zeKernelCreate(module, &kd, &bad) == ZE_RESULT_ERROR_INVALID_KERNEL_NAME);

    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    float *buf[3];
    for (int i = 0; i < 3; i++) {
        CHECK(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 0, device, (void **)&buf[i]));
        CHECK(zeKernelSetArgumentValue(kernel, (uint32_t)i, sizeof(void *), &buf[i]));
    }
    EXPECT(zeKernelSetArgumentValue(kernel, 3, sizeof(void *), &buf[0]) ==
           ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    for (int i = 0; i < N; i++) {
        buf[0][i] = (float)i;
        buf[1][i] = 0.5f;
    }
    CHECK(zeKernelSetGroupSize(kernel, 32, 1, 1));

    int user_calls = 0;
    if (control) {
        EXPECT(zekitMockOnKernel(NULL, c_vector_add, NULL) == ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        CHECK(zekitMockOnKernel("vector_add", c_vector_add, &user_calls));
    }

    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    qd.mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    ze_command_list_handle_t list;
    CHECK(zeCommandListCreateImmediate(ctx, device, &qd, &list));
    ze_group_count_t groups = {N / 32, 1, 1};
    CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    for (int i = 0; i < N; i++)
        EXPECT(buf[2][i] == (float)i + 0.5f);
    EXPECT(calls == 1);
    EXPECT(user_calls == (control ? 1 : 0));

    if (control) {
        /* Without the callback the launch does nothing. */
        CHECK(zekitMockOnKernel("vector_add", NULL, NULL));
        memset(buf[2], 0, N * sizeof(float));
        CHECK(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
        EXPECT(buf[2][N - 1] == 0.0f);
        EXPECT(calls == 1);
        EXPECT(zekitMockCallCount("zeCommandListAppendLaunchKernel") == 2);
    }

    CHECK(zeCommandListDestroy(list));
    for (int i = 0; i < 3; i++)
        CHECK(zeMemFree(ctx, buf[i]));
    CHECK(zeKernelDestroy(kernel));
    CHECK(zeModuleDestroy(module));
    CHECK(zeContextDestroy(ctx));
    free(il);
    printf("kernels ok (%s)\n", argv[2]);
    return 0;
}
