/* What programs in the wild do that the spec's letter refuses, and compute-runtime accepts:
 * descriptors whose stype is left at 0, an int argument set from 8 bytes, fill patterns of 512
 * and 12 bytes, a device allocation with memory ordinal 1; and what every level keeps (a fill
 * on a closed list, a pattern of 0 bytes). With ZT_STRICT=1 (run with ZEKIT_VALIDATION=strict)
 * each leniency must be refused with the spec's code instead. ZEKIT_TEST_SPV names saxpy.spv. */
#include <unistd.h>

#include "zt.h"

static int strict;

/* `call` succeeds at the compatible level and returns `code` under strict validation. */
#define LENIENT(call, code) CHECK(call, strict ? (code) : ZE_RESULT_SUCCESS)

int main(void) {
    strict = getenv("ZT_STRICT") != NULL;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    /* stype left at 0 on zeMemAllocHost, zeMemFreeExt and zeEventPoolCreate. */
    ze_host_mem_alloc_desc_t hd = {0};
    void *host = NULL;
    LENIENT(zeMemAllocHost(ctx, &hd, 4096, 0, &host), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    if (!strict) {
        EXPECT(host != NULL);
        memset(host, 0x5a, 4096);
        ze_memory_free_ext_desc_t fd = {0};
        OK(zeMemFreeExt(ctx, &fd, host));
    }
    ze_event_pool_desc_t pd = {0};
    pd.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    pd.count = 2;
    ze_event_pool_handle_t pool = NULL;
    LENIENT(zeEventPoolCreate(ctx, &pd, 0, NULL, &pool), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    if (!strict) OK(zeEventPoolDestroy(pool));
    printf("stype 0 %s\n", strict ? "refused" : "accepted");

    /* Memory ordinal 1, as on a GPU with two memories. */
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 1};
    void *dmem = NULL;
    LENIENT(zeMemAllocDevice(ctx, &dd, 1 << 16, 0, dev, &dmem), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    if (!strict) {
        EXPECT(dmem != NULL);
        OK(zeMemFree(ctx, dmem));
    } else {
        EXPECT(dmem == NULL);
    }
    printf("memory ordinal 1 %s\n", strict ? "refused" : "accepted");

    /* zeVirtualMemQueryPageSize of size 0: the page size (callers divide by it). */
    size_t ps = 0;
    LENIENT(zeVirtualMemQueryPageSize(ctx, dev, 0, &ps), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    EXPECT(strict || ps == (size_t)sysconf(_SC_PAGESIZE));
    printf("page size of size 0 %s\n", strict ? "refused" : "answered");

    /* saxpy(float a, x, y, uint n): `n` set from a 64-bit variable (as `sizeof(size_t)`): its
     * value widened. `a` from a double's 8 bytes has no one meaning: refused at every level. */
    ze_module_handle_t m = zt_module(ctx, dev, "ZEKIT_TEST_SPV");
    ze_kernel_handle_t k = zt_kernel(m, "saxpy");
    enum { N = 1000 };
    float *x = zt_host(ctx, N * sizeof(float));
    float *y = zt_host(ctx, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    double a_double = 2.0;
    CHECK(zeKernelSetArgumentValue(k, 0, 8, &a_double), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    float a = 2.0f;
    OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    uint64_t n8 = N - 1; /* the last element stays untouched */
    OK(zeKernelSetArgumentValue(k, 1, sizeof x, &x));
    OK(zeKernelSetArgumentValue(k, 2, sizeof y, &y));
    LENIENT(zeKernelSetArgumentValue(k, 3, 8, &n8), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    ze_command_list_handle_t imm = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    if (!strict) {
        OK(zeKernelSetGroupSize(k, 8, 1, 1));
        ze_group_count_t groups = {N / 8, 1, 1};
        OK(zeCommandListAppendLaunchKernel(imm, k, &groups, NULL, 0, NULL));
        for (int i = 0; i < N; i++) EXPECT(y[i] == (i < N - 1 ? 2.0f * i + 1.0f : 1.0f));
        /* A null value for a by-value argument is zeros (every level): a = 0 leaves y. */
        OK(zeKernelSetArgumentValue(k, 0, 4, NULL));
        OK(zeCommandListAppendLaunchKernel(imm, k, &groups, NULL, 0, NULL));
        for (int i = 0; i < N; i++) EXPECT(y[i] == (i < N - 1 ? 2.0f * i + 1.0f : 1.0f));
        printf("kernel argument of 8 bytes for 4 ok\n");
    }

    /* Fill patterns of 512 bytes (above a power-of-two limit of 256) and 12 (not a power of
     * two), through an event the program waits on. */
    ze_command_queue_group_properties_t groups[2];
    uint32_t ng = 2;
    memset(groups, 0, sizeof groups);
    for (uint32_t i = 0; i < 2; i++) groups[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    OK(zeDeviceGetCommandQueueGroupProperties(dev, &ng, groups));
    EXPECT(groups[0].maxMemoryFillPatternSize == SIZE_MAX);
    unsigned char pattern[512];
    for (int i = 0; i < 512; i++) pattern[i] = (unsigned char)(i * 7 + 1);
    unsigned char *buf = zt_host(ctx, 512 * 64);
    ze_event_pool_handle_t ep = zt_pool(ctx, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
    ze_event_handle_t ev = zt_event(ep, 0);
    ze_command_list_handle_t async = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    OK(zeCommandListAppendMemoryFill(async, buf, pattern, 512, 512 * 64, ev, 0, NULL));
    OK(zeEventHostSynchronize(ev, UINT64_MAX));
    for (int i = 0; i < 512 * 64; i++) EXPECT(buf[i] == pattern[i % 512]);
    OK(zeEventHostReset(ev));
    LENIENT(zeCommandListAppendMemoryFill(async, buf, pattern, 12, 12 * 100, ev, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    if (!strict) {
        OK(zeEventHostSynchronize(ev, UINT64_MAX));
        for (int i = 0; i < 1200; i++) EXPECT(buf[i] == pattern[i % 12]);
        printf("fill patterns of 512 and 12 bytes ok\n");
    }

    /* Every level: a pattern of 0 bytes, a fill on a closed list. */
    CHECK(zeCommandListAppendMemoryFill(async, buf, pattern, 0, 0, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ze_command_list_handle_t l = zt_list(ctx, dev, 0);
    OK(zeCommandListClose(l));
    CHECK(zeCommandListAppendMemoryFill(l, buf, pattern, 4, 64, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    printf("fill on a closed list refused\n");

    OK(zeCommandListDestroy(l));
    OK(zeCommandListDestroy(async));
    OK(zeCommandListDestroy(imm));
    OK(zeEventDestroy(ev));
    OK(zeEventPoolDestroy(ep));
    OK(zeMemFree(ctx, buf));
    OK(zeMemFree(ctx, x));
    OK(zeMemFree(ctx, y));
    OK(zeKernelDestroy(k));
    OK(zeModuleDestroy(m));
    OK(zeContextDestroy(ctx));
    printf("leniency ok\n");
    return 0;
}
