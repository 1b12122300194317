/* Shared helpers of the CPU driver's C tests: result checks, discovery, and the driver's own
 * DDI tables for functions newer than Debian's loader (API 1.4) exports. */
#ifndef ZT_H
#define ZT_H

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>

/* Call must return `expect`; otherwise print and exit 1. */
#define CHECK(call, expect)                                                                   \
    do {                                                                                      \
        ze_result_t zt_r = (call);                                                            \
        if (zt_r != (expect)) {                                                               \
            fprintf(stderr, "%s:%d: %s returned 0x%x, expected %s (0x%x)\n", __FILE__,        \
                    __LINE__, #call, (unsigned)zt_r, #expect, (unsigned)(expect));            \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define OK(call) CHECK(call, ZE_RESULT_SUCCESS)

/* Condition must hold; otherwise print and exit 1. */
#define EXPECT(cond)                                                                          \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);               \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static inline void zt_uuid(const char *what, const uint8_t *id) {
    printf("%s = ", what);
    for (int i = 0; i < 16; i++) printf("%02x", id[i]);
    printf("\n");
}

/* Prints whether the loader's validation layer is mapped into this process. */
static inline void zt_print_layers(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "libze_validation_layer")) found = 1;
    if (maps) fclose(maps);
    printf("validation layer loaded = %s\n", found ? "yes" : "no");
}

/* zeInit(0), then the one driver and its one device. */
static inline void zt_discover(ze_driver_handle_t *drv, ze_device_handle_t *dev) {
    OK(zeInit(0));
    zt_print_layers();
    uint32_t n = 0;
    OK(zeDriverGet(&n, NULL));
    EXPECT(n == 1);
    OK(zeDriverGet(&n, drv));
    EXPECT(n == 1 && *drv != NULL);
    if (dev) {
        n = 0;
        OK(zeDeviceGet(*drv, &n, NULL));
        EXPECT(n == 1);
        OK(zeDeviceGet(*drv, &n, dev));
        EXPECT(n == 1 && *dev != NULL);
    }
}

/* The driver's own tables (the ICD named by ZE_ENABLE_ALT_DRIVERS, already loaded by the
 * loader), for functions Debian's loader does not export. Handles from the loader are the
 * driver's own: the loader does not wrap them for a single driver. */
typedef struct {
    ze_driver_dditable_t driver;
    ze_device_dditable_t device;
} zt_icd_tables_t;

static inline void zt_icd_tables(zt_icd_tables_t *t, ze_api_version_t version) {
    const char *path = getenv("ZE_ENABLE_ALT_DRIVERS");
    EXPECT(path != NULL);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(1);
    }
    ze_pfnGetDriverProcAddrTable_t get_driver =
        (ze_pfnGetDriverProcAddrTable_t)dlsym(lib, "zeGetDriverProcAddrTable");
    ze_pfnGetDeviceProcAddrTable_t get_device =
        (ze_pfnGetDeviceProcAddrTable_t)dlsym(lib, "zeGetDeviceProcAddrTable");
    EXPECT(get_driver != NULL && get_device != NULL);
    memset(t, 0, sizeof *t);
    OK(get_driver(version, &t->driver));
    OK(get_device(version, &t->device));
}

/* A function newer than the loader's API (1.4), by name from the driver. */
static inline void *zt_ext(ze_driver_handle_t drv, const char *name) {
    void *f = NULL;
    ze_result_t r = zeDriverGetExtensionFunctionAddress(drv, name, &f);
    if (r != ZE_RESULT_SUCCESS || f == NULL) {
        fprintf(stderr, "zeDriverGetExtensionFunctionAddress(%s) = 0x%x\n", name, (unsigned)r);
        exit(1);
    }
    return f;
}

/* A context, and a host allocation of `size` bytes in it. */
static inline ze_context_handle_t zt_context(ze_driver_handle_t drv) {
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx = NULL;
    OK(zeContextCreate(drv, &desc, &ctx));
    return ctx;
}

static inline void *zt_host(ze_context_handle_t ctx, size_t size) {
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    OK(zeMemAllocHost(ctx, &hd, size, 0, &p));
    return p;
}

static inline void *zt_device(ze_context_handle_t ctx, ze_device_handle_t dev, size_t size) {
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *p = NULL;
    OK(zeMemAllocDevice(ctx, &dd, size, 0, dev, &p));
    return p;
}

static inline ze_command_queue_handle_t zt_queue(ze_context_handle_t ctx, ze_device_handle_t dev,
                                                 uint32_t ordinal, ze_command_queue_mode_t mode) {
    ze_command_queue_desc_t d = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, ordinal, 0, 0, mode,
                                 ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q = NULL;
    OK(zeCommandQueueCreate(ctx, dev, &d, &q));
    return q;
}

static inline ze_command_list_handle_t zt_list(ze_context_handle_t ctx, ze_device_handle_t dev,
                                               uint32_t ordinal) {
    ze_command_list_desc_t d = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, ordinal, 0};
    ze_command_list_handle_t l = NULL;
    OK(zeCommandListCreate(ctx, dev, &d, &l));
    return l;
}

static inline ze_command_list_handle_t zt_immediate(ze_context_handle_t ctx, ze_device_handle_t dev,
                                                    ze_command_queue_mode_t mode) {
    ze_command_queue_desc_t d = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, mode,
                                 ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t l = NULL;
    OK(zeCommandListCreateImmediate(ctx, dev, &d, &l));
    return l;
}

static inline ze_event_pool_handle_t zt_pool(ze_context_handle_t ctx, ze_event_pool_flags_t flags,
                                             uint32_t count) {
    ze_event_pool_desc_t d = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, flags, count};
    ze_event_pool_handle_t p = NULL;
    OK(zeEventPoolCreate(ctx, &d, 0, NULL, &p));
    return p;
}

static inline ze_event_handle_t zt_event(ze_event_pool_handle_t pool, uint32_t index) {
    ze_event_desc_t d = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, index, ZE_EVENT_SCOPE_FLAG_HOST,
                         ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t e = NULL;
    OK(zeEventCreate(pool, &d, &e));
    return e;
}

/* The bytes of the file at `path` (malloc'd; exits on failure), their count in *size. */
static inline unsigned char *zt_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    EXPECT(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)n);
    EXPECT(data != NULL && fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* A module built from the SPIR-V file that environment variable `env` names (exits on
 * failure). */
static inline ze_module_handle_t zt_module(ze_context_handle_t ctx, ze_device_handle_t dev,
                                           const char *env) {
    const char *path = getenv(env);
    EXPECT(path != NULL);
    size_t size = 0;
    unsigned char *spv = zt_read_file(path, &size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size,
                           spv, "", NULL};
    ze_module_handle_t m = NULL;
    OK(zeModuleCreate(ctx, dev, &md, &m, NULL));
    free(spv);
    return m;
}

/* Kernel `name` of `module`. */
static inline ze_kernel_handle_t zt_kernel(ze_module_handle_t module, const char *name) {
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t k = NULL;
    OK(zeKernelCreate(module, &kd, &k));
    return k;
}

#endif
