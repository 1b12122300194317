/* Linked functions that use their own module's program-scope variables, through the loader
 * (oneMKL VM's device functions and their tables, as Intel's SYCL runtime links them):
 * - a module program (ze_module_program_exp_desc_t) of link_data_user and link_data_lib is
 *   one module: the library's constant table and its writable `counter` are the module's,
 *   `counter` found by zeModuleGetGlobalPointer;
 * - zeModuleDynamicLink of link_data_ro (which reads only the constant table) with the
 *   library links; of link_data_user, whose `bump` uses the library's writable `counter`, it
 *   fails with MODULE_LINK_FAILURE and a log naming why.
 * Kernels come from ZEKIT_TEST_KERNELS (spirv/kernels). */
#include "zt.h"

enum { N = 100, G = 8 };

static unsigned char *spv(const char *dir, const char *name, size_t *size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/dpcpp/%s.spv", dir, name);
    return zt_read_file(path, size);
}

static ze_module_handle_t module_of(ze_context_handle_t ctx, ze_device_handle_t dev,
                                    const char *dir, const char *name) {
    size_t size = 0;
    unsigned char *bytes = spv(dir, name, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV,
                           size, bytes, NULL, NULL};
    ze_module_handle_t m = NULL;
    OK(zeModuleCreate(ctx, dev, &md, &m, NULL));
    free(bytes);
    return m;
}

/* Runs `name` of `m` over N work-items; checks out[i] = {10, 20, 30, 40}[i & 3]. */
static void run_table(ze_context_handle_t ctx, ze_device_handle_t dev, ze_module_handle_t m,
                      const char *name) {
    ze_kernel_handle_t k = zt_kernel(m, name);
    uint32_t *out = zt_host(ctx, N * sizeof(uint32_t));
    memset(out, 0xff, N * sizeof(uint32_t));
    OK(zeKernelSetGroupSize(k, G, 1, 1));
    OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    ze_command_list_handle_t l = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    /* Group counts round up; the kernel writes (N + G - 1) / G * G elements at most. */
    ze_group_count_t groups = {N / G, 1, 1};
    /* A synchronous immediate list: the append returns when the kernel is done. */
    OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    for (int i = 0; i < N / G * G; i++) {
        static const uint32_t table[4] = {10, 20, 30, 40};
        if (out[i] != table[i & 3]) {
            fprintf(stderr, "%s: out[%d] = %u, expected %u\n", name, i, out[i], table[i & 3]);
            exit(1);
        }
    }
    OK(zeCommandListDestroy(l));
    OK(zeKernelDestroy(k));
    OK(zeMemFree(ctx, out));
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);
    const char *dir = getenv("ZEKIT_TEST_KERNELS");
    EXPECT(dir != NULL);

    /* One module of two inputs. */
    size_t sizes[2];
    const uint8_t *inputs[2];
    inputs[0] = spv(dir, "link_data_user", &sizes[0]);
    inputs[1] = spv(dir, "link_data_lib", &sizes[1]);
    ze_module_program_exp_desc_t program = {ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC, NULL, 2,
                                            sizes, inputs, NULL, NULL};
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, &program, ZE_MODULE_FORMAT_IL_SPIRV,
                           0, NULL, NULL, NULL};
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    OK(zeModuleCreate(ctx, dev, &md, &m, &log));
    OK(zeModuleBuildLogDestroy(log));
    uint32_t *counter = NULL;
    size_t counter_size = 0;
    OK(zeModuleGetGlobalPointer(m, "counter", &counter_size, (void **)&counter));
    EXPECT(counter_size == 4 && *counter == 0);
    run_table(ctx, dev, m, "use_lib");
    printf("module program: table ok, counter = %u\n", *counter);
    EXPECT(*counter == N / G * G);
    run_table(ctx, dev, m, "use_lib");
    EXPECT(*counter == 2 * (N / G * G));
    OK(zeModuleDestroy(m));
    free((void *)inputs[0]);
    free((void *)inputs[1]);

    /* Separate modules: the constant table links, a write to the library's variable not. */
    ze_module_handle_t lib = module_of(ctx, dev, dir, "link_data_lib");
    ze_module_handle_t ro = module_of(ctx, dev, dir, "link_data_ro");
    ze_module_handle_t both[2] = {ro, lib};
    OK(zeModuleDynamicLink(2, both, NULL));
    run_table(ctx, dev, ro, "use_table");
    printf("dynamic link: constant table ok\n");
    ze_module_handle_t user = module_of(ctx, dev, dir, "link_data_user");
    both[0] = user;
    log = NULL;
    CHECK(zeModuleDynamicLink(2, both, &log), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
    size_t n = 0;
    OK(zeModuleBuildLogGetString(log, &n, NULL));
    char *text = malloc(n);
    OK(zeModuleBuildLogGetString(log, &n, text));
    printf("dynamic link of a writer: %s\n", text);
    free(text);
    OK(zeModuleBuildLogDestroy(log));
    OK(zeModuleDestroy(user));
    OK(zeModuleDestroy(ro));
    OK(zeModuleDestroy(lib));
    OK(zeContextDestroy(ctx));
    printf("module_program ok\n");
    return 0;
}
