/* The package's smoke test: the loader finds one driver with one device (zekit's), and a fill
 * runs on it. Prints the device's name and type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/ze_api.h>

#define OK(call)                                                                            \
    do {                                                                                    \
        ze_result_t r_ = (call);                                                            \
        if (r_ != ZE_RESULT_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d: %s = 0x%x\n", __FILE__, __LINE__, #call, (unsigned)r_); \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

int main(void) {
    OK(zeInit(0));
    uint32_t n = 1;
    ze_driver_handle_t drv;
    OK(zeDriverGet(&n, &drv));
    n = 1;
    ze_device_handle_t dev;
    OK(zeDeviceGet(drv, &n, &dev));
    ze_device_properties_t p = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, NULL};
    OK(zeDeviceGetProperties(dev, &p));
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    OK(zeContextCreate(drv, &cd, &ctx));
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t l;
    OK(zeCommandListCreateImmediate(ctx, dev, &qd, &l));
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    unsigned char *buf;
    OK(zeMemAllocHost(ctx, &hd, 4096, 0, (void **)&buf));
    unsigned char pattern = 0x5a;
    OK(zeCommandListAppendMemoryFill(l, buf, &pattern, 1, 4096, NULL, 0, NULL));
    for (int i = 0; i < 4096; i++)
        if (buf[i] != 0x5a) return 1;
    OK(zeMemFree(ctx, buf));
    OK(zeCommandListDestroy(l));
    OK(zeContextDestroy(ctx));
    printf("device = %s (%s)\n", p.name, p.type == ZE_DEVICE_TYPE_GPU ? "gpu" : "cpu");
    printf("smoke ok\n");
    return 0;
}
