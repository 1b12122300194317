/* Allocates device memory argv[1] times and prints each result: the scenario in
 * ZEKIT_MOCK_SCENARIO decides which fail. */
#include "common.h"

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 3;
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    first_device(&driver, &device);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(driver, &cd, &ctx));
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    for (int i = 1; i <= count; i++) {
        void *p = NULL;
        ze_result_t r = zeMemAllocDevice(ctx, &dd, 1024, 0, device, &p);
        printf("alloc %d: 0x%x\n", i, (unsigned)r);
        if (r == ZE_RESULT_SUCCESS) CHECK(zeMemFree(ctx, p));
    }
    CHECK(zeContextDestroy(ctx));
    return 0;
}
