/* What the SYCL runtime's Level Zero adapters ask of a driver beyond the common calls: residency
 * (all memory is resident), fp16 in the module properties, and Intel's functions looked up by
 * name: zeIntelGetDriverVersionString, zexCounterBasedEventCreate2,
 * zexDriverImportExternalPointer / ReleaseImportedPointer / GetHostPointerBaseAddress. */
#include "zt.h"

typedef struct {
    uint32_t stype;
    const void *pNext;
    uint32_t flags;
    ze_event_scope_flags_t signalScope;
    ze_event_scope_flags_t waitScope;
} zex_counter_based_event_desc_t;

/* Runtimes destroy their objects from exit handlers, after thread-local storage is torn down:
 * those calls must work, and a failing one stays quiet. */
static ze_context_handle_t exit_ctx;
static ze_module_handle_t exit_module;
static ze_kernel_handle_t exit_kernel;

static void at_exit(void) {
    int ok = zeKernelDestroy(exit_kernel) == ZE_RESULT_SUCCESS &&
             zeModuleDestroy(exit_module) == ZE_RESULT_SUCCESS &&
             zeMemFree(exit_ctx, (void *)(uintptr_t)0x1000) == ZE_RESULT_ERROR_INVALID_ARGUMENT &&
             zeContextDestroy(exit_ctx) == ZE_RESULT_SUCCESS;
    printf("exit-time calls %s\n", ok ? "ok" : "failed");
}

typedef ze_result_t (*version_string_t)(ze_driver_handle_t, char *, size_t *);
typedef ze_result_t (*cb_create2_t)(ze_context_handle_t, ze_device_handle_t,
                                    const zex_counter_based_event_desc_t *, ze_event_handle_t *);
typedef ze_result_t (*import_t)(ze_driver_handle_t, void *, size_t);
typedef ze_result_t (*release_t)(ze_driver_handle_t, void *);
typedef ze_result_t (*base_t)(ze_driver_handle_t, void *, void **);

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    /* Residency: everything is resident; evicting is a hint. */
    char *d = zt_device(ctx, dev, 1 << 20);
    OK(zeContextMakeMemoryResident(ctx, dev, d, 1 << 20));
    OK(zeContextEvictMemory(ctx, dev, d, 1 << 20));
    d[0] = 1; /* still usable */
    ze_image_desc_t id = {ZE_STRUCTURE_TYPE_IMAGE_DESC, NULL, 0, ZE_IMAGE_TYPE_2D,
                          {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UNORM,
                           ZE_IMAGE_FORMAT_SWIZZLE_R, ZE_IMAGE_FORMAT_SWIZZLE_G,
                           ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                          16, 16, 1, 0, 0};
    ze_image_handle_t img = NULL;
    OK(zeImageCreate(ctx, dev, &id, &img));
    OK(zeContextMakeImageResident(ctx, dev, img));
    OK(zeContextEvictImage(ctx, dev, img));
    printf("residency ok\n");

    /* fp16. */
    ze_device_module_properties_t mp = {ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, NULL};
    OK(zeDeviceGetModuleProperties(dev, &mp));
    EXPECT(mp.flags & ZE_DEVICE_MODULE_FLAG_FP16);
    EXPECT((mp.fp16flags & ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST) && (mp.fp16flags & ZE_DEVICE_FP_FLAG_INF_NAN));
    printf("fp16 reported\n");

    /* The version string: its length first, then the bytes. */
    version_string_t version = (version_string_t)zt_ext(drv, "zeIntelGetDriverVersionString");
    size_t n = 0;
    OK(version(drv, NULL, &n));
    EXPECT(n > 0);
    char buf[64];
    memset(buf, '#', sizeof buf);
    size_t m = n + 1;
    OK(version(drv, buf, &m));
    EXPECT(strlen(buf) == n);
    ze_driver_properties_t dp = {ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, NULL};
    OK(zeDriverGetProperties(drv, &dp));
    char decoded[64];
    snprintf(decoded, sizeof decoded, "%u.%u.%u", dp.driverVersion >> 24, (dp.driverVersion >> 16) & 0xff,
             dp.driverVersion & 0xffff);
    EXPECT(strcmp(decoded, buf) == 0);
    printf("driver version string = %s\n", buf);

    /* Counter-based events, the zex way, on an in-order immediate list. */
    cb_create2_t create2 = (cb_create2_t)zt_ext(drv, "zexCounterBasedEventCreate2");
    zex_counter_based_event_desc_t cd = {0x0003001C, NULL, 1 /* IMMEDIATE */ | 4 /* HOST_VISIBLE */,
                                         ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t ev = NULL;
    OK(create2(ctx, dev, &cd, &ev));
    EXPECT(ev != NULL);
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0,
                                  ZE_COMMAND_QUEUE_FLAG_IN_ORDER, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                  ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t imm = NULL;
    OK(zeCommandListCreateImmediate(ctx, dev, &qd, &imm));
    char *h = zt_host(ctx, 4096);
    unsigned char seven = 7;
    OK(zeCommandListAppendMemoryFill(imm, h, &seven, 1, 4096, ev, 0, NULL));
    OK(zeEventHostSynchronize(ev, UINT64_MAX));
    EXPECT(h[4095] == 7);
    cd.stype = 0x12345; /* not its structure type */
    ze_event_handle_t bad = NULL;
    CHECK(create2(ctx, dev, &cd, &bad), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    printf("zexCounterBasedEventCreate2 ok\n");

    /* Imported host pointers. */
    import_t import = (import_t)zt_ext(drv, "zexDriverImportExternalPointer");
    release_t release = (release_t)zt_ext(drv, "zexDriverReleaseImportedPointer");
    base_t base_of = (base_t)zt_ext(drv, "zexDriverGetHostPointerBaseAddress");
    char *mem = malloc(8192);
    OK(import(drv, mem, 8192));
    CHECK(import(drv, mem + 100, 16), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    void *b = NULL;
    OK(base_of(drv, mem + 5000, &b));
    EXPECT(b == mem);
    /* An imported pointer works in copies. */
    OK(zeCommandListAppendMemoryCopy(imm, mem, h, 4096, NULL, 0, NULL));
    OK(zeCommandListAppendBarrier(imm, ev, 0, NULL));
    OK(zeEventHostSynchronize(ev, UINT64_MAX));
    EXPECT(mem[4000] == 7);
    CHECK(release(drv, mem + 1), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(release(drv, mem));
    CHECK(base_of(drv, mem, &b), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    free(mem);
    printf("imported pointers ok\n");

    OK(zeCommandListDestroy(imm));
    OK(zeEventDestroy(ev));
    OK(zeImageDestroy(img));
    OK(zeMemFree(ctx, h));
    OK(zeMemFree(ctx, d));
    OK(zeContextDestroy(ctx));

    exit_ctx = zt_context(drv);
    exit_module = zt_module(exit_ctx, dev, "ZEKIT_TEST_SPV");
    exit_kernel = zt_kernel(exit_module, "saxpy");
    atexit(at_exit);
    printf("runtime_surface ok\n");
    return 0;
}
