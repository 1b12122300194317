/* The mock's C control API, used from C. Built two ways: linked against libze_zekit_mock.so
 * (ZEKIT_MOCK_LINKED), or looking the functions up with dlopen(RTLD_NOLOAD) + dlsym in the
 * instance the loader loaded (the path in ZE_ENABLE_ALT_DRIVERS).
 * argv[1]: a scenario file expecting two zeMemFree calls; argv[2]: where to write the log. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <zekit/zekit_mock.h>
#include "common.h"

#ifdef ZEKIT_MOCK_LINKED
#define API(name) name
#else
static void *lib;
static void *sym(const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(1);
    }
    return f;
}
#define API(name) ((zekit_pfn##name##_t)sym("zekit" #name))
#define zekitMockReset API(MockReset)
#define zekitMockSetResult API(MockSetResult)
#define zekitMockCallCount API(MockCallCount)
#define zekitMockWriteLog API(MockWriteLog)
#define zekitMockLoadScenario API(MockLoadScenario)
#define zekitMockVerify API(MockVerify)
#endif

int main(int argc, char **argv) {
    EXPECT(argc == 3);
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    first_device(&driver, &device);
#ifndef ZEKIT_MOCK_LINKED
    const char *path = getenv("ZE_ENABLE_ALT_DRIVERS");
    EXPECT(path != NULL);
    lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) {
        fprintf(stderr, "the loader has not loaded %s: %s\n", path, dlerror());
        return 1;
    }
#endif
    /* The loader's own calls (zeInit, zeDriverGet, ...) are in the log; start afresh. */
    EXPECT(zekitMockCallCount("zeDriverGet") >= 2);
    zekitMockReset();
    EXPECT(zekitMockCallCount(NULL) == 0);

    EXPECT(zekitMockSetResult("zeMemAllocHost", 2, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY) ==
           ZE_RESULT_SUCCESS);
    EXPECT(zekitMockSetResult("zeNoSuchFunction", 0, ZE_RESULT_ERROR_UNKNOWN) ==
           ZE_RESULT_ERROR_INVALID_ARGUMENT);
    EXPECT(zekitMockSetResult(NULL, 0, ZE_RESULT_ERROR_UNKNOWN) ==
           ZE_RESULT_ERROR_INVALID_NULL_POINTER);

    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(driver, &cd, &ctx));
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p[3] = {NULL, NULL, NULL};
    ze_result_t r[3];
    for (int i = 0; i < 3; i++) r[i] = zeMemAllocHost(ctx, &hd, 64, 0, &p[i]);
    EXPECT(r[0] == ZE_RESULT_SUCCESS);
    EXPECT(r[1] == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    EXPECT(r[2] == ZE_RESULT_SUCCESS);
    EXPECT(zekitMockCallCount("zeMemAllocHost") == 3);
    EXPECT(zekitMockCallCount("zeNoSuchFunction") == 0);

    /* Expectations from a scenario file: not met yet, then met. */
    EXPECT(zekitMockLoadScenario("/nonexistent/scenario.yml") == ZE_RESULT_ERROR_INVALID_ARGUMENT);
    EXPECT(zekitMockLoadScenario(argv[1]) == ZE_RESULT_SUCCESS);
    char msg[512];
    int32_t failures = zekitMockVerify(msg, sizeof msg);
    EXPECT(failures == 1);
    EXPECT(strstr(msg, "zeMemFree") != NULL);
    printf("verify before: %s\n", msg);
    EXPECT(zekitMockVerify(NULL, 0) == 1);
    char tiny[4];
    EXPECT(zekitMockVerify(tiny, sizeof tiny) == 1 && strlen(tiny) == 3);
    CHECK(zeMemFree(ctx, p[0]));
    CHECK(zeMemFree(ctx, p[2]));
    EXPECT(zekitMockVerify(msg, sizeof msg) == 0 && msg[0] == 0);
    CHECK(zeContextDestroy(ctx));

    EXPECT(zekitMockWriteLog(argv[2]) == ZE_RESULT_SUCCESS);
    EXPECT(zekitMockWriteLog("/nonexistent/dir/log.txt") == ZE_RESULT_ERROR_UNKNOWN);
    printf("control ok\n");
    return 0;
}
