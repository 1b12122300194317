/* (7) Execution through the loader: queues of both groups, regular lists (reused), immediate
 * lists (synchronous and asynchronous), a dependency chain over several queues, fences, copies
 * and fills checked byte for byte, kernel timestamps in order, host functions, counter-based
 * events. Functions newer than the loader's API 1.4 come from
 * zeDriverGetExtensionFunctionAddress. */
#include "zt.h"

#define N_QUEUES 4
#define SIZE (3u << 20) /* above 1 MiB: split over the worker pool */

static void check_bytes(const uint8_t *p, size_t n, uint8_t (*f)(size_t), const char *what) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != f(i)) {
            fprintf(stderr, "%s: byte %zu is 0x%02x, expected 0x%02x\n", what, i, p[i], f(i));
            exit(1);
        }
}

static uint8_t pattern_a(size_t i) { return (uint8_t)(i * 7 + 3); }
static uint8_t pattern_fill(size_t i) { return (uint8_t)(0x10 + i % 4); }

static int host_calls = 0;
static void ZE_APICALL bump(void *data) { *(int *)data += 1; }

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    ze_pfnCommandListHostSynchronize_t list_sync =
        (ze_pfnCommandListHostSynchronize_t)zt_ext(drv, "zeCommandListHostSynchronize");
    ze_pfnCommandListAppendHostFunction_t host_function =
        (ze_pfnCommandListAppendHostFunction_t)zt_ext(drv, "zeCommandListAppendHostFunction");
    ze_pfnEventCounterBasedCreate_t counter_create =
        (ze_pfnEventCounterBasedCreate_t)zt_ext(drv, "zeEventCounterBasedCreate");
    ze_pfnCommandQueueGetOrdinal_t queue_ordinal =
        (ze_pfnCommandQueueGetOrdinal_t)zt_ext(drv, "zeCommandQueueGetOrdinal");

    uint8_t *bufs[N_QUEUES + 1];
    for (int i = 0; i <= N_QUEUES; i++) bufs[i] = i % 2 ? zt_device(ctx, dev, SIZE) : zt_host(ctx, SIZE);
    for (size_t i = 0; i < SIZE; i++) bufs[0][i] = pattern_a(i);

    /* A chain over four queues (both groups), submitted last first: queue k waits for queue
     * k-1's event, copies buffer k into k+1 and signals. The host starts it. */
    ze_event_pool_handle_t pool =
        zt_pool(ctx, ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 16);
    ze_event_handle_t start = zt_event(pool, 0), ev[N_QUEUES];
    ze_command_queue_handle_t q[N_QUEUES];
    ze_command_list_handle_t l[N_QUEUES];
    for (int k = 0; k < N_QUEUES; k++) {
        ev[k] = zt_event(pool, 1 + k);
        q[k] = zt_queue(ctx, dev, k % 2, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
        l[k] = zt_list(ctx, dev, k % 2);
        uint32_t ordinal = 9;
        OK(queue_ordinal(q[k], &ordinal));
        EXPECT(ordinal == (uint32_t)k % 2);
    }
    for (int k = N_QUEUES - 1; k >= 0; k--) {
        ze_event_handle_t wait = k == 0 ? start : ev[k - 1];
        OK(zeCommandListAppendMemoryCopy(l[k], bufs[k + 1], bufs[k], SIZE, ev[k], 1, &wait));
        OK(zeCommandListClose(l[k]));
        OK(zeCommandQueueExecuteCommandLists(q[k], 1, &l[k], NULL));
    }
    CHECK(zeEventQueryStatus(ev[N_QUEUES - 1]), ZE_RESULT_NOT_READY);
    CHECK(zeCommandQueueSynchronize(q[N_QUEUES - 1], 1000000), ZE_RESULT_NOT_READY);
    OK(zeEventHostSignal(start));
    for (int k = 0; k < N_QUEUES; k++) OK(zeCommandQueueSynchronize(q[k], UINT64_MAX));
    check_bytes(bufs[N_QUEUES], SIZE, pattern_a, "end of the chain");
    /* Kernel timestamps follow the chain. */
    uint64_t prev_end = 0;
    for (int k = 0; k < N_QUEUES; k++) {
        ze_kernel_timestamp_result_t ts;
        OK(zeEventQueryKernelTimestamp(ev[k], &ts));
        EXPECT(prev_end <= ts.global.kernelStart && ts.global.kernelStart <= ts.global.kernelEnd);
        prev_end = ts.global.kernelEnd;
    }
    printf("chain over %d queues ok\n", N_QUEUES);

    /* A regular list reused: fill, host function, fence; executed 10 times. */
    ze_command_list_handle_t reuse = zt_list(ctx, dev, 0);
    uint32_t pat = 0x13121110u;
    OK(zeCommandListAppendMemoryFill(reuse, bufs[1], &pat, 4, SIZE, NULL, 0, NULL));
    OK(host_function(reuse, bump, &host_calls, NULL, NULL, 0, NULL));
    OK(zeCommandListClose(reuse));
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence;
    OK(zeFenceCreate(q[0], &fd, &fence));
    for (int i = 0; i < 10; i++) {
        OK(zeCommandQueueExecuteCommandLists(q[0], 1, &reuse, fence));
        OK(zeFenceHostSynchronize(fence, UINT64_MAX));
        OK(zeFenceReset(fence));
    }
    EXPECT(host_calls == 10);
    check_bytes(bufs[1], SIZE, pattern_fill, "fill of a reused list");
    printf("reused list ok\n");

    /* Immediate lists: synchronous (done on return), asynchronous (host synchronize). */
    ze_command_list_handle_t sync = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_command_list_handle_t async = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    OK(zeCommandListAppendMemoryCopy(sync, bufs[2], bufs[0], SIZE, NULL, 0, NULL));
    check_bytes(bufs[2], SIZE, pattern_a, "synchronous immediate copy");
    OK(zeCommandListAppendMemoryFill(async, bufs[2], &pat, 4, SIZE, NULL, 0, NULL));
    OK(list_sync(async, UINT64_MAX));
    check_bytes(bufs[2], SIZE, pattern_fill, "asynchronous immediate fill");
    printf("immediate lists ok\n");

    /* Counter-based events order two in-order immediate lists. */
    ze_event_counter_based_desc_t cd = {ZE_STRUCTURE_TYPE_EVENT_COUNTER_BASED_DESC, NULL,
                                        ZE_EVENT_COUNTER_BASED_FLAG_IMMEDIATE, 0, 0};
    ze_event_handle_t cb;
    OK(counter_create(ctx, dev, &cd, &cb));
    ze_command_list_handle_t async2 = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    for (int round = 0; round < 20; round++) {
        OK(zeCommandListAppendMemoryCopy(async, bufs[3], bufs[round % 2 ? 2 : 0], SIZE, cb, 0, NULL));
        OK(zeCommandListAppendMemoryCopy(async2, bufs[4], bufs[3], SIZE, NULL, 1, &cb));
        OK(list_sync(async2, UINT64_MAX));
        check_bytes(bufs[4], SIZE, round % 2 ? pattern_fill : pattern_a, "counter-based order");
    }
    printf("counter-based events ok\n");

    ze_pfnDeviceSynchronize_t device_sync =
        (ze_pfnDeviceSynchronize_t)zt_ext(drv, "zeDeviceSynchronize");
    OK(device_sync(dev));
    OK(zeFenceDestroy(fence));
    ze_command_list_handle_t lists[] = {reuse, sync, async, async2};
    for (int i = 0; i < 4; i++) OK(zeCommandListDestroy(lists[i]));
    for (int k = 0; k < N_QUEUES; k++) {
        OK(zeCommandListDestroy(l[k]));
        OK(zeCommandQueueDestroy(q[k]));
        OK(zeEventDestroy(ev[k]));
    }
    OK(zeEventDestroy(start));
    OK(zeEventDestroy(cb));
    OK(zeEventPoolDestroy(pool));
    for (int i = 0; i <= N_QUEUES; i++) OK(zeMemFree(ctx, bufs[i]));
    OK(zeContextDestroy(ctx));
    printf("execute ok\n");
    return 0;
}
