/* One invalid call (a NULL descriptor); prints its result. Under the validation layer the
 * layer answers it; without the layer, zekit's own validation in the mock does. */
#include "common.h"

int main(void) {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    first_device(&driver, &device);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(driver, &cd, &ctx));
    void *p = NULL;
    ze_result_t r = zeMemAllocHost(ctx, NULL, 64, 0, &p);
    printf("invalid: 0x%x\n", (unsigned)r);
    CHECK(zeContextDestroy(ctx));
    return 0;
}
