/* (3) Contexts: create, create with devices, status, destroy (with live allocations). */
#include "zt.h"

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);

    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t a = NULL, b = NULL, c = NULL;
    OK(zeContextCreate(drv, &desc, &a));
    EXPECT(a != NULL);
    OK(zeContextGetStatus(a));
    OK(zeContextCreateEx(drv, &desc, 1, &dev, &b));
    OK(zeContextCreateEx(drv, &desc, 0, NULL, &c));
    EXPECT(b != NULL && c != NULL && a != b && b != c);
    printf("contexts = %p %p %p\n", (void *)a, (void *)b, (void *)c);

    /* Unknown flags. */
    ze_context_desc_t bad = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0x80};
    ze_context_handle_t never = NULL;
    CHECK(zeContextCreate(drv, &bad, &never), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    EXPECT(never == NULL);

    /* Allocations belong to their context. */
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    OK(zeMemAllocHost(a, &hd, 256, 0, &p));
    ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    OK(zeMemGetAllocProperties(b, p, &props, NULL));
    EXPECT(props.type == ZE_MEMORY_TYPE_UNKNOWN);
    CHECK(zeMemFree(b, p), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(zeMemGetAllocProperties(a, p, &props, NULL));
    EXPECT(props.type == ZE_MEMORY_TYPE_HOST);

    /* Destroying a context frees what it still holds. */
    void *q = NULL;
    OK(zeMemAllocShared(c, &(ze_device_mem_alloc_desc_t){ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC},
                        &hd, 4096, 64, dev, &q));
    memset(q, 0x5a, 4096);
    OK(zeContextDestroy(c));
    OK(zeContextDestroy(b));
    OK(zeMemFree(a, p));
    OK(zeContextDestroy(a));
    printf("contexts ok\n");
    return 0;
}
