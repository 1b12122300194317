/* Discovery and properties through the loader: prints key=value lines the test compares with
 * the device profile. */
#include "common.h"

int main(void) {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    first_device(&driver, &device);

    ze_driver_properties_t dp = {ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, NULL};
    CHECK(zeDriverGetProperties(driver, &dp));
    printf("driver.version=0x%x\n", dp.driverVersion);
    uint32_t n = 0;
    CHECK(zeDriverGetExtensionProperties(driver, &n, NULL));
    ze_driver_extension_properties_t ext[8];
    EXPECT(n <= 8);
    CHECK(zeDriverGetExtensionProperties(driver, &n, ext));
    for (uint32_t i = 0; i < n; i++)
        printf("extension=%s %u.%u\n", ext[i].name, ZE_MAJOR_VERSION(ext[i].version),
               ZE_MINOR_VERSION(ext[i].version));
    ze_api_version_t version;
    CHECK(zeDriverGetApiVersion(driver, &version));
    printf("driver.api=%u.%u\n", ZE_MAJOR_VERSION(version), ZE_MINOR_VERSION(version));

    ze_device_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, NULL};
    CHECK(zeDeviceGetProperties(device, &p));
    printf("device.name=%s\n", p.name);
    printf("device.type=%d\n", (int)p.type);
    printf("device.vendorId=0x%x\n", p.vendorId);
    printf("device.deviceId=0x%x\n", p.deviceId);
    printf("device.coreClockRate=%u\n", p.coreClockRate);
    printf("device.maxMemAllocSize=%llu\n", (unsigned long long)p.maxMemAllocSize);
    printf("device.eus=%u\n", p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice);

    ze_device_compute_properties_t c = {ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES, NULL};
    CHECK(zeDeviceGetComputeProperties(device, &c));
    printf("compute.maxTotalGroupSize=%u\n", c.maxTotalGroupSize);
    printf("compute.numSubGroupSizes=%u\n", c.numSubGroupSizes);

    n = 0;
    CHECK(zeDeviceGetMemoryProperties(device, &n, NULL));
    ze_device_memory_properties_t mem[4];
    EXPECT(n >= 1 && n <= 4);
    for (uint32_t i = 0; i < n; i++)
        mem[i] = (ze_device_memory_properties_t){ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES, NULL};
    CHECK(zeDeviceGetMemoryProperties(device, &n, mem));
    for (uint32_t i = 0; i < n; i++)
        printf("memory[%u]=%s %llu\n", i, mem[i].name, (unsigned long long)mem[i].totalSize);

    n = 0;
    CHECK(zeDeviceGetCacheProperties(device, &n, NULL));
    ze_device_cache_properties_t cache[4];
    EXPECT(n >= 1 && n <= 4);
    for (uint32_t i = 0; i < n; i++)
        cache[i] = (ze_device_cache_properties_t){ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES, NULL};
    CHECK(zeDeviceGetCacheProperties(device, &n, cache));
    printf("cache[0]=%zu\n", cache[0].cacheSize);

    n = 0;
    CHECK(zeDeviceGetCommandQueueGroupProperties(device, &n, NULL));
    ze_command_queue_group_properties_t groups[8];
    EXPECT(n >= 1 && n <= 8);
    for (uint32_t i = 0; i < n; i++)
        groups[i] = (ze_command_queue_group_properties_t){
            ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES, NULL};
    CHECK(zeDeviceGetCommandQueueGroupProperties(device, &n, groups));
    for (uint32_t i = 0; i < n; i++)
        printf("group[%u]=flags 0x%x queues %u fill %zu\n", i, groups[i].flags,
               groups[i].numQueues, groups[i].maxMemoryFillPatternSize);

    ze_device_memory_access_properties_t ma = {
        ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES, NULL};
    CHECK(zeDeviceGetMemoryAccessProperties(device, &ma));
    printf("access.host=0x%x\n", ma.hostAllocCapabilities);
    printf("access.system=0x%x\n", ma.sharedSystemAllocCapabilities);

    ze_device_module_properties_t mp = {ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, NULL};
    CHECK(zeDeviceGetModuleProperties(device, &mp));
    printf("module.spirv=%u.%u\n", ZE_MAJOR_VERSION(mp.spirvVersionSupported),
           ZE_MINOR_VERSION(mp.spirvVersionSupported));
    printf("module.maxArgumentsSize=%u\n", mp.maxArgumentsSize);

    n = 7;
    CHECK(zeDeviceGetSubDevices(device, &n, NULL));
    printf("subdevices=%u\n", n);
    printf("done\n");
    return 0;
}
