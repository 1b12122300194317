/* (8) Bad use of queues, lists, events and fences through the loader: each gets the spec's
 * code and one log line, never a crash or a hang. Prints how many failures it provoked (the
 * test counts the driver's log lines against it); NOT_READY is an answer, not a failure. */
#include "zt.h"

static int failures = 0;
#define FAIL(call, code)                                                                      \
    do {                                                                                      \
        CHECK(call, code);                                                                    \
        failures++;                                                                           \
    } while (0)

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);
    ze_pfnCommandListHostSynchronize_t list_sync =
        (ze_pfnCommandListHostSynchronize_t)zt_ext(drv, "zeCommandListHostSynchronize");
    uint8_t *a = zt_host(ctx, 4096), *b = zt_host(ctx, 4096);

    ze_command_queue_handle_t q = zt_queue(ctx, dev, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_queue_handle_t copy_q = zt_queue(ctx, dev, 1, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t open = zt_list(ctx, dev, 0);
    OK(zeCommandListAppendMemoryCopy(open, b, a, 64, NULL, 0, NULL));

    /* Executing a list that is not closed. */
    FAIL(zeCommandQueueExecuteCommandLists(q, 1, &open, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Appending to a closed list. */
    OK(zeCommandListClose(open));
    FAIL(zeCommandListAppendMemoryCopy(open, b, a, 64, NULL, 0, NULL),
         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* An immediate list given to a queue. */
    ze_command_list_handle_t imm = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    FAIL(zeCommandQueueExecuteCommandLists(q, 1, &imm, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* A list of the compute group on a copy queue; nothing of the call runs. */
    ze_event_pool_handle_t pool = zt_pool(ctx, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 8);
    ze_event_handle_t marker = zt_event(pool, 0);
    ze_command_list_handle_t copy_list = zt_list(ctx, dev, 1);
    OK(zeCommandListAppendSignalEvent(copy_list, marker));
    OK(zeCommandListClose(copy_list));
    ze_command_list_handle_t mixed[] = {copy_list, open};
    FAIL(zeCommandQueueExecuteCommandLists(copy_q, 2, mixed, NULL),
         ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
    OK(zeCommandQueueSynchronize(copy_q, UINT64_MAX));
    CHECK(zeEventQueryStatus(marker), ZE_RESULT_NOT_READY);
    /* A fence of another queue. */
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t other_fence;
    OK(zeFenceCreate(copy_q, &fd, &other_fence));
    FAIL(zeCommandQueueExecuteCommandLists(q, 1, &open, other_fence),
         ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    /* Host synchronize of a regular list. */
    FAIL(list_sync(open, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Queue ordinal and index out of range. */
    ze_command_queue_desc_t bad = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 2, 0, 0, 0, 0};
    ze_command_queue_handle_t never;
    FAIL(zeCommandQueueCreate(ctx, dev, &bad, &never), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    bad.ordinal = 1;
    bad.index = 1;
    FAIL(zeCommandQueueCreate(ctx, dev, &bad, &never), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* A fill whose size is not a multiple of its pattern, a pattern of 0 bytes (any other size
     * is accepted: leniency.c). */
    uint8_t pattern[512] = {0};
    FAIL(zeCommandListAppendMemoryFill(imm, a, pattern, 3, 3 * 16 + 1, NULL, 0, NULL),
         ZE_RESULT_ERROR_INVALID_SIZE);
    FAIL(zeCommandListAppendMemoryFill(imm, a, pattern, 0, 512, NULL, 0, NULL),
         ZE_RESULT_ERROR_INVALID_SIZE);
    /* Overlapping region copy. */
    ze_copy_region_t r1 = {0, 0, 0, 32, 4, 1}, r2 = {16, 1, 0, 32, 4, 1};
    FAIL(zeCommandListAppendMemoryCopyRegion(imm, a, &r1, 64, 0, a, &r2, 64, 0, NULL, 0, NULL),
         ZE_RESULT_ERROR_OVERLAPPING_REGIONS);

    /* Waits that time out: NOT_READY, not logged. */
    ze_event_handle_t gate = zt_event(pool, 1);
    CHECK(zeEventHostSynchronize(gate, 0), ZE_RESULT_NOT_READY);
    CHECK(zeEventHostSynchronize(gate, 1000000), ZE_RESULT_NOT_READY);

    /* Destroying a queue whose work waits for an event nobody signaled: refused; once the
     * event is signaled the queue drains and goes. The same for an immediate list, an event
     * awaited by submitted work, and its pool. */
    ze_command_list_handle_t waiting = zt_list(ctx, dev, 0);
    OK(zeCommandListAppendMemoryCopy(waiting, b, a, 64, NULL, 1, &gate));
    OK(zeCommandListClose(waiting));
    OK(zeCommandQueueExecuteCommandLists(q, 1, &waiting, NULL));
    OK(zeCommandListAppendBarrier(imm, NULL, 1, &gate));
    CHECK(zeCommandQueueSynchronize(q, 1000), ZE_RESULT_NOT_READY);
    FAIL(zeCommandQueueDestroy(q), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    FAIL(zeCommandListDestroy(imm), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    FAIL(zeEventDestroy(gate), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    FAIL(zeEventPoolDestroy(pool), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    /* The list itself may go: the queue keeps what it runs. */
    OK(zeCommandListDestroy(waiting));
    OK(zeEventHostSignal(gate));
    OK(zeCommandQueueDestroy(q));
    OK(zeCommandListDestroy(imm));

    /* Events of a destroyed pool. */
    OK(zeEventPoolDestroy(pool));
    FAIL(zeEventHostSignal(marker), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    FAIL(zeEventQueryStatus(marker), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_command_list_handle_t late = zt_list(ctx, dev, 0);
    FAIL(zeCommandListAppendBarrier(late, marker, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(zeEventDestroy(marker));
    OK(zeEventDestroy(gate));
    /* Destroyed handles. */
    FAIL(zeEventDestroy(gate), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    FAIL(zeCommandQueueSynchronize(q, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    OK(zeFenceDestroy(other_fence));
    ze_command_list_handle_t rest[] = {open, copy_list, late};
    for (int i = 0; i < 3; i++) OK(zeCommandListDestroy(rest[i]));
    OK(zeCommandQueueDestroy(copy_q));
    OK(zeContextDestroy(ctx));
    printf("expected failures = %d\n", failures);
    printf("bad use ok\n");
    return 0;
}
