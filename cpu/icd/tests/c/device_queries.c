/* (2) Every device query of the Device page prints what the CPU driver answers. Functions newer
 * than Debian's loader (API 1.4) are called through the driver's own DDI tables. */
#include "zt.h"

static void print_fp(const char *what, ze_device_fp_flags_t f) {
    printf("%s = 0x%x\n", what, f);
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);

    /* zeDeviceGetProperties, with the EU count and usable memory extensions chained. */
    ze_eu_count_ext_t eu = {ZE_STRUCTURE_TYPE_EU_COUNT_EXT, NULL, 0};
    ze_device_usablemem_size_ext_properties_t usable = {
        ZE_STRUCTURE_TYPE_DEVICE_USABLEMEM_SIZE_EXT_PROPERTIES, &eu, 0};
    ze_device_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, &usable};
    OK(zeDeviceGetProperties(dev, &p));
    printf("type = %d\nvendorId = 0x%x\ndeviceId = 0x%x\nflags = 0x%x\nsubdeviceId = %u\n",
           (int)p.type, p.vendorId, p.deviceId, p.flags, p.subdeviceId);
    printf("coreClockRate = %u\nmaxMemAllocSize = %" PRIu64 "\nmaxHardwareContexts = %u\n",
           p.coreClockRate, p.maxMemAllocSize, p.maxHardwareContexts);
    printf("maxCommandQueuePriority = %u\nnumThreadsPerEU = %u\nphysicalEUSimdWidth = %u\n",
           p.maxCommandQueuePriority, p.numThreadsPerEU, p.physicalEUSimdWidth);
    printf("numEUsPerSubslice = %u\nnumSubslicesPerSlice = %u\nnumSlices = %u\n",
           p.numEUsPerSubslice, p.numSubslicesPerSlice, p.numSlices);
    printf("timerResolution = %" PRIu64 "\ntimestampValidBits = %u\nkernelTimestampValidBits = %u\n",
           p.timerResolution, p.timestampValidBits, p.kernelTimestampValidBits);
    zt_uuid("uuid", p.uuid.id);
    printf("name = %s\n", p.name);
    printf("numTotalEUs = %u\ncurrUsableMemSize = %" PRIu64 "\n", eu.numTotalEUs,
           usable.currUsableMemSize);
    EXPECT(p.type == ZE_DEVICE_TYPE_CPU);
    EXPECT(p.timerResolution == 1);
    EXPECT(eu.numTotalEUs == p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice);
    EXPECT(usable.currUsableMemSize > 0 && usable.currUsableMemSize <= p.maxMemAllocSize);
    ze_device_properties_t p12 = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    OK(zeDeviceGetProperties(dev, &p12));
    printf("timerResolution (1.2, cycles/s) = %" PRIu64 "\n", p12.timerResolution);
    EXPECT(p12.timerResolution == 1000000000u);

    ze_device_compute_properties_t c = {ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    OK(zeDeviceGetComputeProperties(dev, &c));
    printf("maxTotalGroupSize = %u\nmaxGroupSize = %u %u %u\nmaxGroupCount = %u %u %u\n",
           c.maxTotalGroupSize, c.maxGroupSizeX, c.maxGroupSizeY, c.maxGroupSizeZ,
           c.maxGroupCountX, c.maxGroupCountY, c.maxGroupCountZ);
    printf("maxSharedLocalMemory = %u\nnumSubGroupSizes = %u\nsubGroupSizes = %u %u\n",
           c.maxSharedLocalMemory, c.numSubGroupSizes, c.subGroupSizes[0], c.subGroupSizes[1]);
    /* the compiler's sub-groups: 8, or 16 where a kernel requires it */
    EXPECT(c.numSubGroupSizes == 2 && c.subGroupSizes[0] == 8 && c.subGroupSizes[1] == 16);

    ze_device_module_properties_t m = {ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    OK(zeDeviceGetModuleProperties(dev, &m));
    printf("spirvVersionSupported = 0x%x\nmodule flags = 0x%x\n", m.spirvVersionSupported, m.flags);
    print_fp("fp16flags", m.fp16flags);
    print_fp("fp32flags", m.fp32flags);
    print_fp("fp64flags", m.fp64flags);
    printf("maxArgumentsSize = %u\nprintfBufferSize = %u\n", m.maxArgumentsSize, m.printfBufferSize);

    uint32_t n = 0;
    OK(zeDeviceGetCommandQueueGroupProperties(dev, &n, NULL));
    EXPECT(n == 2);
    ze_command_queue_group_properties_t g[2] = {{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES},
                                                {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES}};
    OK(zeDeviceGetCommandQueueGroupProperties(dev, &n, g));
    for (uint32_t i = 0; i < n; i++)
        printf("queue group %u flags = 0x%x maxMemoryFillPatternSize = %zu numQueues = %u\n", i,
               g[i].flags, g[i].maxMemoryFillPatternSize, g[i].numQueues);
    EXPECT(g[0].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
    EXPECT(g[1].flags == ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY);

    n = 0;
    OK(zeDeviceGetMemoryProperties(dev, &n, NULL));
    EXPECT(n == 1);
    ze_device_memory_properties_t mem = {ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    OK(zeDeviceGetMemoryProperties(dev, &n, &mem));
    printf("memory %s: maxClockRate = %u maxBusWidth = %u totalSize = %" PRIu64 "\n", mem.name,
           mem.maxClockRate, mem.maxBusWidth, mem.totalSize);
    EXPECT(mem.totalSize == p.maxMemAllocSize);

    ze_device_memory_access_properties_t a = {ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
    OK(zeDeviceGetMemoryAccessProperties(dev, &a));
    printf("access host = 0x%x device = 0x%x shared single = 0x%x cross = 0x%x system = 0x%x\n",
           a.hostAllocCapabilities, a.deviceAllocCapabilities,
           a.sharedSingleDeviceAllocCapabilities, a.sharedCrossDeviceAllocCapabilities,
           a.sharedSystemAllocCapabilities);
    EXPECT(a.hostAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_RW);

    n = 0;
    OK(zeDeviceGetCacheProperties(dev, &n, NULL));
    printf("caches = %u\n", n);
    EXPECT(n <= 8);
    ze_device_cache_line_size_ext_t line[8];
    ze_device_cache_properties_t caches[8];
    for (uint32_t i = 0; i < 8; i++) {
        line[i] = (ze_device_cache_line_size_ext_t){ZE_STRUCTURE_TYPE_DEVICE_CACHELINE_SIZE_EXT, NULL, 0};
        caches[i] = (ze_device_cache_properties_t){ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES, &line[i]};
    }
    OK(zeDeviceGetCacheProperties(dev, &n, caches));
    for (uint32_t i = 0; i < n; i++) {
        printf("cache %u: flags = 0x%x size = %zu line = %zu\n", i, caches[i].flags,
               caches[i].cacheSize, line[i].cacheLineSize);
        EXPECT(caches[i].cacheSize > 0 && line[i].cacheLineSize >= 16);
    }

    ze_device_image_properties_t img = {ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    OK(zeDeviceGetImageProperties(dev, &img));
    printf("image maxImageDims1D = %u maxSamplers = %u\n", img.maxImageDims1D, img.maxSamplers);

    ze_device_external_memory_properties_t ext = {ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES};
    OK(zeDeviceGetExternalMemoryProperties(dev, &ext));
    printf("external import = 0x%x export = 0x%x\n", ext.memoryAllocationImportTypes,
           ext.memoryAllocationExportTypes);

    ze_device_p2p_properties_t p2p = {ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES};
    OK(zeDeviceGetP2PProperties(dev, dev, &p2p));
    printf("p2p flags (self) = 0x%x\n", p2p.flags);
    ze_bool_t can = 0;
    OK(zeDeviceCanAccessPeer(dev, dev, &can));
    printf("can access peer (self) = %u\n", can);
    EXPECT(can);

    OK(zeDeviceGetStatus(dev));
    printf("status = SUCCESS\n");

    uint64_t host_ts = 0, dev_ts = 0, host_ts2 = 0, dev_ts2 = 0;
    OK(zeDeviceGetGlobalTimestamps(dev, &host_ts, &dev_ts));
    OK(zeDeviceGetGlobalTimestamps(dev, &host_ts2, &dev_ts2));
    printf("global timestamps = %" PRIu64 " %" PRIu64 "\n", host_ts, dev_ts);
    EXPECT(host_ts > 0 && host_ts2 >= host_ts && dev_ts2 >= dev_ts);

    n = 5;
    OK(zeDeviceGetSubDevices(dev, &n, NULL));
    printf("sub-devices = %u\n", n);
    EXPECT(n == 0);

    /* Newer than the loader: the driver's own tables at API 1.18. */
    zt_icd_tables_t t;
    zt_icd_tables(&t, ZE_MAKE_VERSION(1, 18));
    EXPECT(t.device.pfnGetRootDevice && t.device.pfnSynchronize && t.device.pfnGetCompilerInfo);

    ze_device_handle_t root = (ze_device_handle_t)(uintptr_t)1;
    OK(t.device.pfnGetRootDevice(dev, &root));
    printf("root device = %p\n", (void *)root);
    EXPECT(root == NULL);

    OK(t.device.pfnSynchronize(dev));
    printf("synchronize = SUCCESS\n");

    uint32_t inc = 0;
    OK(t.device.pfnGetAggregatedCopyOffloadIncrementValue(dev, &inc));
    printf("aggregated copy offload increment = %u\n", inc);
    EXPECT(inc == 1);

    uint64_t max_value = 0;
    OK(t.device.pfnGetCounterBasedEventMaxValue(dev, &max_value));
    printf("counter based event max value = 0x%" PRIx64 "\n", max_value);

    const char *key = NULL;
    OK(t.device.pfnGetRuntimeRequirementsKey(dev, &key));
    printf("runtime requirements key = %s\n", key);
    EXPECT(key && strcmp(key, "ZEKIT.L0.CPU") == 0);

    ze_validate_runtime_requirements_output_t out = {
        ZE_STRUCTURE_TYPE_RUNTIME_REQUIREMENTS_OUTPUT};
    OK(t.device.pfnValidateRuntimeRequirements(dev, "ZEKIT.L0.CPU", &out));
    printf("validate \"ZEKIT.L0.CPU\" = %d\n", (int)out.result);
    EXPECT(out.result == ZE_VALIDATE_RUNTIME_REQUIREMENTS_RESULT_REQUIREMENTS_MET);
    OK(t.device.pfnValidateRuntimeRequirements(dev, "INTEL.L0.GPU;x", &out));
    printf("validate \"INTEL.L0.GPU;x\" = %d\n", (int)out.result);
    EXPECT(out.result == ZE_VALIDATE_RUNTIME_REQUIREMENTS_RESULT_NOT_APPLICABLE);
    OK(t.device.pfnValidateRuntimeRequirements(dev, "ZEKIT.L0.CPU;arch=mips", &out));
    EXPECT(out.result == ZE_VALIDATE_RUNTIME_REQUIREMENTS_RESULT_REQUIREMENTS_NOT_MET);

    /* No module can exist yet, so requirements of an object are refused, not invented. */
    ze_runtime_requirements_module_desc_t obj = {ZE_STRUCTURE_TYPE_RUNTIME_REQUIREMENTS_MODULE_DESC,
                                                 NULL, (ze_module_handle_t)&p};
    size_t size = 0;
    CHECK(t.device.pfnGetRuntimeRequirements(dev, &obj, &size, NULL),
          ZE_RESULT_ERROR_INVALID_ARGUMENT);
    printf("runtime requirements of a foreign module = ZE_RESULT_ERROR_INVALID_ARGUMENT\n");

    const ze_device_compiler_info_t params[] = {
        ZE_DEVICE_COMPILER_INFO_SPIRV_CAPABILITIES, ZE_DEVICE_COMPILER_INFO_SPIRV_EXTENSIONS,
        ZE_DEVICE_COMPILER_INFO_COMPILER_OPTIONS, ZE_DEVICE_COMPILER_INFO_DRIVER_OPTIONS};
    for (unsigned i = 0; i < sizeof params / sizeof params[0]; i++) {
        size = 99;
        OK(t.device.pfnGetCompilerInfo(dev, params[i], NULL, &size, NULL));
        printf("compiler info %d size = %zu\n", (int)params[i], size);
        EXPECT(size == 0);
    }
    size = 0;
    CHECK(t.device.pfnGetCompilerInfo(dev, (ze_device_compiler_info_t)0x7777, NULL, &size, NULL),
          ZE_RESULT_ERROR_INVALID_ENUMERATION);

    const char *last = NULL;
    OK(t.driver.pfnGetLastErrorDescription(drv, &last));
    printf("last error = %s\n", last);
    EXPECT(last && strstr(last, "zeDeviceGetCompilerInfo") != NULL);

    printf("device queries ok\n");
    return 0;
}
