/* Modules through the loader: zeModuleDynamicLink of an importing module with a library
 * module, the linked kernel launched by zeCommandListAppendLaunchMultipleKernelsIndirect
 * (count and group counts written after the append), and native binaries across processes:
 * with ZEKIT_TEST_SAVE=dir the native binaries of the linked module and of `math` are
 * written there; with ZEKIT_TEST_LOAD=dir they are loaded (another process: the code is
 * relocated for it) and run, `math` compared bit for bit with a build from SPIR-V.
 * Kernels come from ZEKIT_TEST_KERNELS (spirv/kernels). */
#include "zt.h"

static void write_file(const char *path, const unsigned char *data, size_t n) {
    FILE *f = fopen(path, "wb");
    EXPECT(f != NULL && fwrite(data, 1, n, f) == n);
    fclose(f);
}

static char *join(const char *dir, const char *name) {
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static ze_module_handle_t module_from(ze_context_handle_t ctx, ze_device_handle_t dev,
                                      ze_module_format_t format, const char *path) {
    size_t size = 0;
    unsigned char *bytes = zt_read_file(path, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, format, size, bytes, NULL, NULL};
    ze_module_handle_t m = NULL;
    OK(zeModuleCreate(ctx, dev, &md, &m, NULL));
    free(bytes);
    return m;
}

static void save_native(ze_module_handle_t m, const char *path) {
    size_t size = 0;
    OK(zeModuleGetNativeBinary(m, &size, NULL));
    unsigned char *bytes = malloc(size);
    OK(zeModuleGetNativeBinary(m, &size, bytes));
    write_file(path, bytes, size);
    free(bytes);
}

static ze_kernel_handle_t kernel_of(ze_module_handle_t m, const char *name) {
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t k = NULL;
    OK(zeKernelCreate(m, &kd, &k));
    return k;
}

enum { N = 256, G = 16 };

/* link_user through MultipleKernelsIndirect; checks out[i] = 3 in[i] + 6 + 2 i. */
static void run_link_user(ze_context_handle_t ctx, ze_device_handle_t dev, ze_module_handle_t m) {
    ze_kernel_handle_t k = kernel_of(m, "link_user");
    float *in = zt_host(ctx, N * sizeof(float));
    float *out = zt_host(ctx, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        in[i] = (float)i * 0.5f;
        out[i] = -1.0f;
    }
    OK(zeKernelSetGroupSize(k, G, 1, 1));
    OK(zeKernelSetArgumentValue(k, 0, sizeof in, &in));
    OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    uint32_t *count = zt_host(ctx, sizeof(uint32_t));
    ze_group_count_t *groups = zt_host(ctx, sizeof(ze_group_count_t));
    *count = 0;
    groups->groupCountX = groups->groupCountY = groups->groupCountZ = 0;
    ze_command_queue_handle_t q = zt_queue(ctx, dev, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t list = NULL;
    OK(zeCommandListCreate(ctx, dev, &ld, &list));
    OK(zeCommandListAppendLaunchMultipleKernelsIndirect(list, 1, &k, count, groups, NULL, 0, NULL));
    OK(zeCommandListClose(list));
    /* Read when the list runs, not when appended. */
    *count = 1;
    groups->groupCountX = N / G;
    groups->groupCountY = groups->groupCountZ = 1;
    OK(zeCommandQueueExecuteCommandLists(q, 1, &list, NULL));
    OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    for (int i = 0; i < N; i++) {
        float want = in[i] * 3.0f + 6.0f + 2.0f * (float)i;
        if (out[i] != want) {
            fprintf(stderr, "out[%d] = %f, expected %f\n", i, out[i], want);
            exit(1);
        }
    }
    OK(zeCommandListDestroy(list));
    OK(zeCommandQueueDestroy(q));
    OK(zeKernelDestroy(k));
    printf("link_user over %d elements ok\n", N);
}

/* math's 9 results per element, as bits. */
static uint32_t *run_math(ze_context_handle_t ctx, ze_device_handle_t dev, ze_module_handle_t m) {
    ze_kernel_handle_t k = kernel_of(m, "math");
    float *x = zt_host(ctx, 64 * sizeof(float));
    float *out = zt_host(ctx, 9 * 64 * sizeof(float));
    for (int i = 0; i < 64; i++)
        x[i] = ((float)i - 20.0f) * 0.37f;
    OK(zeKernelSetGroupSize(k, 8, 1, 1));
    OK(zeKernelSetArgumentValue(k, 0, sizeof x, &x));
    OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    ze_command_queue_handle_t q = zt_queue(ctx, dev, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t list = NULL;
    OK(zeCommandListCreate(ctx, dev, &ld, &list));
    ze_group_count_t g = {8, 1, 1};
    OK(zeCommandListAppendLaunchKernel(list, k, &g, NULL, 0, NULL));
    OK(zeCommandListClose(list));
    OK(zeCommandQueueExecuteCommandLists(q, 1, &list, NULL));
    OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    uint32_t *bits = malloc(9 * 64 * sizeof(uint32_t));
    memcpy(bits, out, 9 * 64 * sizeof(uint32_t));
    OK(zeCommandListDestroy(list));
    OK(zeCommandQueueDestroy(q));
    OK(zeKernelDestroy(k));
    return bits;
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);
    const char *kernels = getenv("ZEKIT_TEST_KERNELS");
    EXPECT(kernels != NULL);
    const char *save = getenv("ZEKIT_TEST_SAVE");
    const char *load = getenv("ZEKIT_TEST_LOAD");

    if (save != NULL) {
        ze_module_handle_t user =
            module_from(ctx, dev, ZE_MODULE_FORMAT_IL_SPIRV, join(kernels, "link/link_user.spv"));
        ze_module_handle_t lib =
            module_from(ctx, dev, ZE_MODULE_FORMAT_IL_SPIRV, join(kernels, "link/link_lib.spv"));
        ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL};
        OK(zeModuleGetProperties(user, &props));
        EXPECT(props.flags == ZE_MODULE_PROPERTY_FLAG_IMPORTS);
        /* Alone, its imports stay unresolved (one log line naming them). */
        CHECK(zeModuleDynamicLink(1, &user, NULL), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
        ze_module_handle_t both[2] = {user, lib};
        ze_module_build_log_handle_t log = NULL;
        OK(zeModuleDynamicLink(2, both, &log));
        size_t n = 0;
        OK(zeModuleBuildLogGetString(log, &n, NULL));
        char *text = malloc(n);
        OK(zeModuleBuildLogGetString(log, &n, text));
        printf("link log = %s\n", text);
        free(text);
        OK(zeModuleBuildLogDestroy(log));
        run_link_user(ctx, dev, user);
        save_native(user, join(save, "link_user.native"));
        ze_module_handle_t math =
            module_from(ctx, dev, ZE_MODULE_FORMAT_IL_SPIRV, join(kernels, "math.spv"));
        save_native(math, join(save, "math.native"));
        OK(zeModuleDestroy(math));
        OK(zeModuleDestroy(lib));
        OK(zeModuleDestroy(user));
        printf("native binaries saved\n");
    }
    if (load != NULL) {
        ze_module_handle_t user =
            module_from(ctx, dev, ZE_MODULE_FORMAT_NATIVE, join(load, "link_user.native"));
        run_link_user(ctx, dev, user);
        ze_module_handle_t math_native =
            module_from(ctx, dev, ZE_MODULE_FORMAT_NATIVE, join(load, "math.native"));
        ze_module_handle_t math =
            module_from(ctx, dev, ZE_MODULE_FORMAT_IL_SPIRV, join(kernels, "math.spv"));
        uint32_t *a = run_math(ctx, dev, math_native);
        uint32_t *b = run_math(ctx, dev, math);
        EXPECT(memcmp(a, b, 9 * 64 * sizeof(uint32_t)) == 0);
        printf("math from a native binary of another process ok\n");
        free(a);
        free(b);
        OK(zeModuleDestroy(math));
        OK(zeModuleDestroy(math_native));
        OK(zeModuleDestroy(user));
    }
    OK(zeContextDestroy(ctx));
    printf("module_link ok\n");
    return 0;
}
