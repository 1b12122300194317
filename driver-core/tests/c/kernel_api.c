/* Kernel queries through the loader: the source attributes of attrs.spv's kernels (path in
 * ZEKIT_TEST_SPV) with the size query, and scheduling hints, valid and with an unknown flag. */
#include "zt.h"

static ze_kernel_handle_t kernel(ze_module_handle_t module, const char *name) {
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t k = NULL;
    OK(zeKernelCreate(module, &kd, &k));
    return k;
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    const char *path = getenv("ZEKIT_TEST_SPV");
    EXPECT(path != NULL);
    size_t size = 0;
    unsigned char *spv = zt_read_file(path, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size,
                           spv, NULL, NULL};
    ze_module_handle_t module = NULL;
    OK(zeModuleCreate(ctx, dev, &md, &module, NULL));

    const char *names[] = {"attrs_all", "attrs_hint", "attrs_none"};
    for (int i = 0; i < 3; i++) {
        ze_kernel_handle_t k = kernel(module, names[i]);
        uint32_t n = 0;
        OK(zeKernelGetSourceAttributes(k, &n, NULL));
        char *text = malloc(n);
        EXPECT(text != NULL);
        uint32_t n2 = n;
        OK(zeKernelGetSourceAttributes(k, &n2, &text));
        EXPECT(n2 == n && strlen(text) + 1 == n);
        printf("attributes %s = %s\n", names[i], text);
        free(text);
        OK(zeKernelDestroy(k));
    }

    ze_kernel_handle_t k = kernel(module, "attrs_all");
    ze_scheduling_hint_exp_desc_t hint = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC, NULL,
                                          ZE_SCHEDULING_HINT_EXP_FLAG_ROUND_ROBIN};
    OK(zeKernelSchedulingHintExp(k, &hint));
    hint.flags = 0x8;
    CHECK(zeKernelSchedulingHintExp(k, &hint), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    printf("scheduling hints ok\n");
    OK(zeKernelDestroy(k));
    OK(zeModuleDestroy(module));
    OK(zeContextDestroy(ctx));
    free(spv);
    printf("kernel_api ok\n");
    return 0;
}
