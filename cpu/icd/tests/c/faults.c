/* Faults end the command, not the process: a kernel writing an unmapped address, small and large
 * copies into read-only pages, each through another path (a regular list with a fence, an
 * asynchronous immediate list with an event, a synchronous immediate list); every one answers
 * ZE_RESULT_ERROR_DEVICE_LOST where the program looks, and a new context then runs a kernel and
 * a copy correctly. ZEKIT_TEST_SPV names saxpy.spv. */
#include "zt.h"

enum { N = 4096 };

static void set_saxpy(ze_kernel_handle_t k, float a, float *x, float *y, uint32_t n) {
    OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    OK(zeKernelSetArgumentValue(k, 1, sizeof x, &x));
    OK(zeKernelSetArgumentValue(k, 2, sizeof y, &y));
    OK(zeKernelSetArgumentValue(k, 3, sizeof n, &n));
    OK(zeKernelSetGroupSize(k, 64, 1, 1));
}

/* A read-only range of `size` bytes (a virtual mapping whose pages were set READONLY). */
static char *read_only(ze_context_handle_t ctx, ze_device_handle_t dev, size_t size,
                       ze_physical_mem_handle_t *phys) {
    size_t ps = 0;
    OK(zeVirtualMemQueryPageSize(ctx, dev, size, &ps));
    size = (size + ps - 1) / ps * ps;
    ze_physical_mem_desc_t pd = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, 0, size};
    OK(zePhysicalMemCreate(ctx, dev, &pd, phys));
    void *va = NULL;
    OK(zeVirtualMemReserve(ctx, NULL, size, &va));
    OK(zeVirtualMemMap(ctx, va, size, *phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    OK(zeVirtualMemSetAccessAttribute(ctx, va, size, ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    return va;
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    /* The device says read-only pages are enforced. */
    ze_device_readonly_memory_ext_properties_t ro = {ZE_STRUCTURE_TYPE_DEVICE_READONLY_MEMORY_EXT_PROPERTIES, NULL, 0};
    ze_device_properties_t dp = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, &ro};
    OK(zeDeviceGetProperties(dev, &dp));
    EXPECT(ro.readonlyCapability == ZE_DEVICE_READONLY_MEMORY_CAPABILITY_ENFORCED);

    ze_module_handle_t m = zt_module(ctx, dev, "ZEKIT_TEST_SPV");
    ze_kernel_handle_t k = zt_kernel(m, "saxpy");
    float *x = zt_host(ctx, N * sizeof(float));
    for (int i = 0; i < N; i++) x[i] = (float)i;

    /* 1. A kernel that writes an unmapped address, on a regular list with a fence and an event;
     *    the command after it is skipped, its event completes as lost too. */
    ze_command_queue_handle_t q = zt_queue(ctx, dev, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list(ctx, dev, 0);
    ze_event_pool_handle_t pool = zt_pool(ctx, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 4);
    ze_event_handle_t e0 = zt_event(pool, 0), e1 = zt_event(pool, 1);
    set_saxpy(k, 2.0f, x, (float *)(uintptr_t)0x1000, N);
    ze_group_count_t groups = {N / 64, 1, 1};
    OK(zeCommandListAppendLaunchKernel(l, k, &groups, e0, 0, NULL));
    float *after = zt_host(ctx, 64);
    after[0] = 7.0f;
    float zero = 0.0f;
    OK(zeCommandListAppendMemoryFill(l, after, &zero, sizeof zero, 64, e1, 0, NULL));
    OK(zeCommandListClose(l));
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence = NULL;
    OK(zeFenceCreate(q, &fd, &fence));
    OK(zeCommandQueueExecuteCommandLists(q, 1, &l, fence));
    CHECK(zeFenceHostSynchronize(fence, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
    CHECK(zeFenceQueryStatus(fence), ZE_RESULT_ERROR_DEVICE_LOST);
    CHECK(zeCommandQueueSynchronize(q, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
    CHECK(zeEventHostSynchronize(e0, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
    CHECK(zeEventQueryStatus(e1), ZE_RESULT_ERROR_DEVICE_LOST);
    EXPECT(after[0] == 7.0f); /* skipped */
    printf("kernel fault: device lost\n");

    /* 2. A small copy into a read-only page, on an asynchronous immediate list with an event. */
    ze_physical_mem_handle_t phys_small, phys_large;
    char *small = read_only(ctx, dev, 4096, &phys_small);
    ze_command_list_handle_t async = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_handle_t e2 = zt_event(pool, 2);
    OK(zeCommandListAppendMemoryCopy(async, small, x, 256, e2, 0, NULL));
    CHECK(zeEventHostSynchronize(e2, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
    /* Newer than Debian's loader (API 1.4): from the driver by name. */
    ze_pfnCommandListHostSynchronize_t host_sync =
        (ze_pfnCommandListHostSynchronize_t)zt_ext(drv, "zeCommandListHostSynchronize");
    CHECK(host_sync(async, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
    /* Resetting the event forgets the loss. */
    OK(zeEventHostReset(e2));
    OK(zeEventHostSignal(e2));
    OK(zeEventHostSynchronize(e2, 0));
    printf("small copy fault: device lost\n");

    /* 3. A copy of 8 MiB into read-only pages, split over the worker threads, on a synchronous
     *    immediate list: the append itself answers. */
    size_t big = 8 << 20;
    char *large = read_only(ctx, dev, big, &phys_large);
    char *src = zt_host(ctx, big);
    memset(src, 1, big);
    ze_command_list_handle_t sync = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    CHECK(zeCommandListAppendMemoryCopy(sync, large, src, big, NULL, 0, NULL), ZE_RESULT_ERROR_DEVICE_LOST);
    /* ... and so does a fill. */
    CHECK(zeCommandListAppendMemoryFill(sync, large, &zero, sizeof zero, big, NULL, 0, NULL), ZE_RESULT_ERROR_DEVICE_LOST);
    printf("large copy fault: device lost\n");

    /* 4. The process lives; a new context, queue and list run a kernel and a copy correctly. */
    ze_context_handle_t ctx2 = zt_context(drv);
    ze_module_handle_t m2 = zt_module(ctx2, dev, "ZEKIT_TEST_SPV");
    ze_kernel_handle_t k2 = zt_kernel(m2, "saxpy");
    float *x2 = zt_host(ctx2, N * sizeof(float));
    float *y2 = zt_host(ctx2, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        x2[i] = (float)i;
        y2[i] = 1.0f;
    }
    set_saxpy(k2, 3.0f, x2, y2, N);
    ze_command_list_handle_t imm2 = zt_immediate(ctx2, dev, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    OK(zeCommandListAppendLaunchKernel(imm2, k2, &groups, NULL, 0, NULL));
    for (int i = 0; i < N; i++) EXPECT(y2[i] == 3.0f * i + 1.0f);
    OK(zeCommandListAppendMemoryCopy(imm2, y2, x2, N * sizeof(float), NULL, 0, NULL));
    for (int i = 0; i < N; i++) EXPECT(y2[i] == (float)i);
    printf("a new context works\n");

    OK(zeCommandListDestroy(imm2));
    OK(zeKernelDestroy(k2));
    OK(zeModuleDestroy(m2));
    OK(zeMemFree(ctx2, x2));
    OK(zeMemFree(ctx2, y2));
    OK(zeContextDestroy(ctx2));
    OK(zeCommandListDestroy(sync));
    OK(zeCommandListDestroy(async));
    OK(zeCommandListDestroy(l));
    OK(zeFenceDestroy(fence));
    OK(zeCommandQueueDestroy(q));
    OK(zeEventDestroy(e0));
    OK(zeEventDestroy(e1));
    OK(zeEventDestroy(e2));
    OK(zeEventPoolDestroy(pool));
    OK(zeMemFree(ctx, x));
    OK(zeMemFree(ctx, src));
    OK(zeMemFree(ctx, after));
    OK(zeKernelDestroy(k));
    OK(zeModuleDestroy(m));
    printf("faults ok\n");
    return 0;
}
