/* zekit demo: a plain Level Zero program, run through the official loader on
 * zekit's CPU driver (`cargo xtask demo`). Exits non-zero on any failure. */
#include <stdio.h>
#include <string.h>
#include <level_zero/ze_api.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        ze_result_t r_ = (call);                                               \
        if (r_ != ZE_RESULT_SUCCESS) {                                         \
            fprintf(stderr, "%s failed: 0x%x\n", #call, (unsigned)r_);         \
            return 1;                                                          \
        }                                                                      \
    } while (0)

int main(void) {
    CHECK(zeInit(0));
    uint32_t nd = 1;
    ze_driver_handle_t driver;
    CHECK(zeDriverGet(&nd, &driver));
    ze_api_version_t version;
    CHECK(zeDriverGetApiVersion(driver, &version));
    printf("driver: API %u.%u\n", ZE_MAJOR_VERSION(version), ZE_MINOR_VERSION(version));

    uint32_t ndev = 1;
    ze_device_handle_t dev;
    CHECK(zeDeviceGet(driver, &ndev, &dev));
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    CHECK(zeDeviceGetProperties(dev, &props));
    printf("device: %s (type %s, %u MHz, %u slices x %u subslices, SIMD %u)\n", props.name,
           props.type == ZE_DEVICE_TYPE_CPU ? "CPU" : "other", props.coreClockRate, props.numSlices,
           props.numSubslicesPerSlice, props.physicalEUSimdWidth);

    uint32_t nmem = 1;
    ze_device_memory_properties_t mem = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    CHECK(zeDeviceGetMemoryProperties(dev, &nmem, &mem));
    printf("memory: %s, %.1f GiB\n", mem.name, (double)mem.totalSize / (1024.0 * 1024 * 1024));

    uint32_t ncache = 0;
    CHECK(zeDeviceGetCacheProperties(dev, &ncache, NULL));
    ze_device_cache_properties_t caches[8];
    if (ncache > 8) ncache = 8;
    for (uint32_t i = 0; i < ncache; i++) {
        memset(&caches[i], 0, sizeof caches[i]);
        caches[i].stype = ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES;
    }
    CHECK(zeDeviceGetCacheProperties(dev, &ncache, caches));
    for (uint32_t i = 0; i < ncache; i++) printf("cache %u: %zu KiB\n", i, caches[i].cacheSize / 1024);

    uint64_t host_ts, dev_ts;
    CHECK(zeDeviceGetGlobalTimestamps(dev, &host_ts, &dev_ts));
    printf("timestamps: host %llu ns, device %llu ns\n", (unsigned long long)host_ts,
           (unsigned long long)dev_ts);

    ze_context_desc_t cdesc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(driver, &cdesc, &ctx));
    ze_device_mem_alloc_desc_t ddesc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hdesc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *shared = NULL;
    CHECK(zeMemAllocShared(ctx, &ddesc, &hdesc, 1 << 20, 4096, dev, &shared));
    memset(shared, 0x5a, 1 << 20);
    ze_memory_allocation_properties_t ap = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    CHECK(zeMemGetAllocProperties(ctx, (char *)shared + 1000, &ap, NULL));
    void *base = NULL;
    size_t size = 0;
    CHECK(zeMemGetAddressRange(ctx, (char *)shared + 1000, &base, &size));
    printf("shared allocation: %zu bytes at %p (type %s, id %llu, page %zu)\n", size, base,
           ap.type == ZE_MEMORY_TYPE_SHARED ? "SHARED" : "?", (unsigned long long)ap.id, ap.pageSize);
    CHECK(zeMemFree(ctx, shared));
    ze_result_t r = zeMemFree(ctx, shared);
    printf("freeing it twice: 0x%x (an error, not a crash)\n", (unsigned)r);
    CHECK(zeContextDestroy(ctx));
    printf("demo: ok\n");
    return r == ZE_RESULT_SUCCESS;
}
