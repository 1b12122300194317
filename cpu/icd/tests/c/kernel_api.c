/* Kernel queries through the loader: the source attributes of attrs.spv's kernels (path in
 * ZEKIT_TEST_SPV) with the size query, and scheduling hints, valid and with an unknown flag. */
#include "zt.h"

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    ze_module_handle_t module = zt_module(ctx, dev, "ZEKIT_TEST_SPV");

    const char *names[] = {"attrs_all", "attrs_hint", "attrs_none"};
    for (int i = 0; i < 3; i++) {
        ze_kernel_handle_t k = zt_kernel(module, names[i]);
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

    ze_kernel_handle_t k = zt_kernel(module, "attrs_all");
    ze_scheduling_hint_exp_desc_t hint = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC, NULL,
                                          ZE_SCHEDULING_HINT_EXP_FLAG_ROUND_ROBIN};
    OK(zeKernelSchedulingHintExp(k, &hint));
    hint.flags = 0x8;
    CHECK(zeKernelSchedulingHintExp(k, &hint), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    printf("scheduling hints ok\n");
    OK(zeKernelDestroy(k));
    OK(zeModuleDestroy(module));
    OK(zeContextDestroy(ctx));
    printf("kernel_api ok\n");
    return 0;
}
