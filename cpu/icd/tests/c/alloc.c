/* (4) Allocations: host/device/shared with alignments, properties, address ranges, frees. */
#include "zt.h"

static ze_context_handle_t ctx;
static ze_device_handle_t dev;

static void check_alloc(void *p, size_t size, size_t align, ze_memory_type_t type) {
    EXPECT(p != NULL);
    if (align) EXPECT(((uintptr_t)p % align) == 0);
    memset(p, 0xab, size); /* usable from the host */

    ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t owner = (ze_device_handle_t)(uintptr_t)1;
    char *interior = (char *)p + size / 2;
    OK(zeMemGetAllocProperties(ctx, interior, &props, &owner));
    printf("alloc %p size %zu align %zu: type %d id %" PRIu64 " pageSize %" PRIu64 " device %p\n", p,
           size, align, (int)props.type, props.id, props.pageSize, (void *)owner);
    EXPECT(props.type == type && props.id != 0 && props.pageSize >= 4096);
    EXPECT(owner == (type == ZE_MEMORY_TYPE_HOST ? NULL : dev));

    void *base = NULL;
    size_t range = 0;
    OK(zeMemGetAddressRange(ctx, interior, &base, &range));
    EXPECT(base == p && range == size);
    OK(zeMemGetAddressRange(ctx, (char *)p + size - 1, &base, NULL));
    EXPECT(base == p);
}

int main(void) {
    ze_driver_handle_t drv;
    zt_discover(&drv, &dev);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    OK(zeContextCreate(drv, &cd, &ctx));

    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    const size_t aligns[] = {0, 1, 8, 64, 4096, 65536, 2u << 20};
    void *ptrs[3 * 7];
    int k = 0;
    for (unsigned i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
        size_t size = 100 + 1000 * i;
        void *h = NULL, *d = NULL, *s = NULL;
        OK(zeMemAllocHost(ctx, &hd, size, aligns[i], &h));
        check_alloc(h, size, aligns[i], ZE_MEMORY_TYPE_HOST);
        OK(zeMemAllocDevice(ctx, &dd, size, aligns[i], dev, &d));
        check_alloc(d, size, aligns[i], ZE_MEMORY_TYPE_DEVICE);
        OK(zeMemAllocShared(ctx, &dd, &hd, size, aligns[i], dev, &s));
        check_alloc(s, size, aligns[i], ZE_MEMORY_TYPE_SHARED);
        ptrs[k++] = h;
        ptrs[k++] = d;
        ptrs[k++] = s;
    }

    /* Shared without a device. */
    void *s0 = NULL;
    OK(zeMemAllocShared(ctx, &dd, &hd, 64, 0, NULL, &s0));
    ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t owner = dev;
    OK(zeMemGetAllocProperties(ctx, s0, &props, &owner));
    EXPECT(props.type == ZE_MEMORY_TYPE_SHARED && owner == NULL);

    /* Ids are unique. */
    uint64_t ids[3 * 7];
    for (int i = 0; i < k; i++) {
        OK(zeMemGetAllocProperties(ctx, ptrs[i], &props, NULL));
        ids[i] = props.id;
        for (int j = 0; j < i; j++) EXPECT(ids[j] != ids[i]);
    }

    /* A pointer the driver did not allocate. */
    int local = 0;
    OK(zeMemGetAllocProperties(ctx, &local, &props, NULL));
    printf("foreign pointer: type %d\n", (int)props.type);
    EXPECT(props.type == ZE_MEMORY_TYPE_UNKNOWN);
    void *base = NULL;
    CHECK(zeMemGetAddressRange(ctx, &local, &base, NULL), ZE_RESULT_ERROR_ADDRESS_NOT_FOUND);

    /* Bad requests. */
    void *bad = NULL;
    CHECK(zeMemAllocHost(ctx, &hd, 64, 3, &bad), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    CHECK(zeMemAllocDevice(ctx, &dd, 64, 48, dev, &bad), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    CHECK(zeMemAllocShared(ctx, &dd, &hd, 64, 100, dev, &bad), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    /* A power of two beyond the largest alignment (1 GiB). */
    CHECK(zeMemAllocDevice(ctx, &dd, 64, (size_t)1 << 31, dev, &bad),
          ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    CHECK(zeMemAllocHost(ctx, &hd, 0, 0, &bad), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ze_device_properties_t dp = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    OK(zeDeviceGetProperties(dev, &dp));
    CHECK(zeMemAllocDevice(ctx, &dd, dp.maxMemAllocSize + 1, 0, dev, &bad),
          ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    EXPECT(bad == NULL);
    printf("bad alignment, size: rejected\n");

    /* Relaxed limits accepted on the descriptor chain (a small size: nothing to exceed). */
    ze_relaxed_allocation_limits_exp_desc_t relaxed = {
        ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC, NULL,
        ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE};
    ze_device_mem_alloc_desc_t rd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &relaxed, 0, 0};
    void *r = NULL;
    OK(zeMemAllocDevice(ctx, &rd, 128, 0, dev, &r));
    OK(zeMemFree(ctx, r));

    /* Frees: interior pointer refused, zeMemFree, zeMemFreeExt with each policy, double free. */
    CHECK(zeMemFree(ctx, (char *)ptrs[0] + 1), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    const ze_driver_memory_free_policy_ext_flags_t policies[] = {
        0, ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE,
        ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE};
    for (int i = 0; i < k; i++) {
        if (i % 2 == 0) {
            OK(zeMemFree(ctx, ptrs[i]));
        } else {
            ze_memory_free_ext_desc_t fd = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL,
                                            policies[i % 3]};
            OK(zeMemFreeExt(ctx, &fd, ptrs[i]));
        }
        OK(zeMemGetAllocProperties(ctx, ptrs[i], &props, NULL));
        EXPECT(props.type == ZE_MEMORY_TYPE_UNKNOWN);
    }
    CHECK(zeMemFree(ctx, ptrs[0]), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_memory_free_ext_desc_t both = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL,
                                      ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE |
                                          ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE};
    CHECK(zeMemFreeExt(ctx, &both, s0), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    OK(zeMemFree(ctx, s0));

    OK(zeContextDestroy(ctx));
    printf("allocations ok\n");
    return 0;
}
