/* (1) Discovery through the loader: driver, its properties and extensions, the CPU device. */
#include "zt.h"

int main(void) {
    ze_driver_handle_t drv;
    zt_discover(&drv, NULL);

    ze_api_version_t version = 0;
    OK(zeDriverGetApiVersion(drv, &version));
    printf("api version = %u.%u\n", ZE_MAJOR_VERSION(version), ZE_MINOR_VERSION(version));
    EXPECT(ZE_MAJOR_VERSION(version) == 1 && ZE_MINOR_VERSION(version) >= 4);

    ze_driver_ddi_handles_ext_properties_t ddi = {
        ZE_STRUCTURE_TYPE_DRIVER_DDI_HANDLES_EXT_PROPERTIES, NULL, 0};
    ze_driver_memory_free_ext_properties_t free_props = {
        ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES, &ddi, 0};
    ze_driver_properties_t props = {ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, &free_props};
    OK(zeDriverGetProperties(drv, &props));
    zt_uuid("driver uuid", props.uuid.id);
    printf("driver version = 0x%08x\n", props.driverVersion);
    printf("ddi handles flags = 0x%x\n", ddi.flags);
    printf("free policies = 0x%x\n", free_props.freePolicies);
    EXPECT(ddi.flags & ZE_DRIVER_DDI_HANDLE_EXT_FLAG_DDI_HANDLE_EXT_SUPPORTED);
    EXPECT(free_props.freePolicies == (ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE |
                                       ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE));

    ze_driver_ipc_properties_t ipc = {ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES, NULL, 0xff};
    OK(zeDriverGetIpcProperties(drv, &ipc));
    printf("ipc flags = 0x%x\n", ipc.flags);
    EXPECT(ipc.flags == (ZE_IPC_PROPERTY_FLAG_MEMORY | ZE_IPC_PROPERTY_FLAG_EVENT_POOL));

    uint32_t n = 0;
    OK(zeDriverGetExtensionProperties(drv, &n, NULL));
    EXPECT(n >= 1 && n < 64);
    ze_driver_extension_properties_t ext[64];
    OK(zeDriverGetExtensionProperties(drv, &n, ext));
    int ddi_found = 0, free_found = 0;
    for (uint32_t i = 0; i < n; i++) {
        printf("extension %s %u.%u\n", ext[i].name, ZE_MAJOR_VERSION(ext[i].version),
               ZE_MINOR_VERSION(ext[i].version));
        if (strcmp(ext[i].name, ZE_DRIVER_DDI_HANDLES_EXT_NAME) == 0) {
            EXPECT(ext[i].version == ZE_MAKE_VERSION(1, 1));
            ddi_found = 1;
        }
        if (strcmp(ext[i].name, ZE_MEMORY_FREE_POLICIES_EXT_NAME) == 0) free_found = 1;
    }
    EXPECT(ddi_found && free_found);

    void *fn = NULL;
    OK(zeDriverGetExtensionFunctionAddress(drv, "zeMemFreeExt", &fn));
    EXPECT(fn != NULL);
    CHECK(zeDriverGetExtensionFunctionAddress(drv, "zeNoSuchFunctionExt", &fn),
          ZE_RESULT_ERROR_INVALID_ARGUMENT);

    uint32_t ndev = 0;
    OK(zeDeviceGet(drv, &ndev, NULL));
    printf("devices = %u\n", ndev);
    EXPECT(ndev == 1);
    ze_device_handle_t dev = NULL;
    OK(zeDeviceGet(drv, &ndev, &dev));
    ze_device_properties_t dp = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    OK(zeDeviceGetProperties(dev, &dp));
    printf("device type = %d\n", (int)dp.type);
    printf("device name = %s\n", dp.name);
    EXPECT(dp.type == ZE_DEVICE_TYPE_CPU);
    EXPECT(strncmp(dp.name, "zekit CPU: ", 11) == 0);
    /* Same handles every time. */
    ze_device_handle_t again = NULL;
    OK(zeDeviceGet(drv, &ndev, &again));
    EXPECT(again == dev);

    printf("discovery ok\n");
    return 0;
}
