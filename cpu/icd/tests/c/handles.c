/* (6) Wrong-type, destroyed and foreign handles give error codes, not crashes. */
#include "zt.h"

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);

    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx = NULL;
    OK(zeContextCreate(drv, &desc, &ctx));
    OK(zeContextDestroy(ctx));
    ze_result_t r = zeContextDestroy(ctx);
    printf("second zeContextDestroy = 0x%x\n", (unsigned)r);
    EXPECT(r != ZE_RESULT_SUCCESS);
    r = zeContextGetStatus(ctx);
    printf("zeContextGetStatus(destroyed) = 0x%x\n", (unsigned)r);
    EXPECT(r != ZE_RESULT_SUCCESS);
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    r = zeMemAllocHost(ctx, &hd, 64, 0, &p);
    printf("zeMemAllocHost(destroyed context) = 0x%x\n", (unsigned)r);
    EXPECT(r != ZE_RESULT_SUCCESS && p == NULL);

    /* A device handle where a context is expected, and the reverse. */
    r = zeContextGetStatus((ze_context_handle_t)dev);
    printf("zeContextGetStatus(device handle) = 0x%x\n", (unsigned)r);
    EXPECT(r != ZE_RESULT_SUCCESS);
    ze_context_handle_t live = NULL;
    OK(zeContextCreate(drv, &desc, &live));
    ze_device_properties_t dp = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    r = zeDeviceGetProperties((ze_device_handle_t)live, &dp);
    printf("zeDeviceGetProperties(context handle) = 0x%x\n", (unsigned)r);
    EXPECT(r != ZE_RESULT_SUCCESS);

    /* A pointer that is no handle at all. */
    uint64_t junk[16] = {0};
    r = zeContextGetStatus((ze_context_handle_t)junk);
    printf("zeContextGetStatus(junk) = 0x%x\n", (unsigned)r);
    EXPECT(r != ZE_RESULT_SUCCESS);

    /* Still fully working afterwards. */
    OK(zeContextGetStatus(live));
    OK(zeContextDestroy(live));
    printf("handles ok\n");
    return 0;
}
