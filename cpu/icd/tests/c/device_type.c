/* (6) ZEKIT_DEVICE_TYPE: zeInit(INIT_FLAGS) through the loader, then how many drivers are
 * reported and what type the device reports. */
#include "zt.h"

int main(void) {
    const char *f = getenv("INIT_FLAGS");
    ze_init_flags_t flags = f ? (ze_init_flags_t)strtoul(f, NULL, 0) : 0;
    ze_result_t r = zeInit(flags);
    printf("zeInit(0x%x) = 0x%x\n", (unsigned)flags, (unsigned)r);
    uint32_t n = 0;
    if (r == ZE_RESULT_SUCCESS) r = zeDriverGet(&n, NULL);
    printf("drivers = %u\n", r == ZE_RESULT_SUCCESS ? n : 0);
    if (r == ZE_RESULT_SUCCESS && n == 1) {
        ze_driver_handle_t drv;
        ze_device_handle_t dev;
        OK(zeDriverGet(&n, &drv));
        n = 1;
        OK(zeDeviceGet(drv, &n, &dev));
        ze_device_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
        OK(zeDeviceGetProperties(dev, &p));
        printf("device type = %s\n", p.type == ZE_DEVICE_TYPE_GPU   ? "GPU"
                                     : p.type == ZE_DEVICE_TYPE_CPU ? "CPU"
                                                                    : "other");
    }
    printf("device type ok\n");
    return 0;
}
