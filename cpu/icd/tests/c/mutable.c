/* Mutable command lists through the loader (ZE_experimental_mutable_command_list, functions
 * newer than the loader's API 1.4 fetched by name): a saxpy launch (SPIR-V in ZEKIT_TEST_SPV)
 * recorded with a command id, run; its argument, group count and signal event changed on the
 * closed list, run again and checked; then misuse and its codes. */
#include "zt.h"

enum { N = 256, GROUP = 16 };

static void run(ze_command_queue_handle_t q, ze_command_list_handle_t l, ze_fence_handle_t f) {
    OK(zeFenceReset(f));
    OK(zeCommandQueueExecuteCommandLists(q, 1, &l, f));
    OK(zeFenceHostSynchronize(f, UINT64_MAX));
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    ze_context_handle_t ctx = zt_context(drv);

    ze_pfnCommandListGetNextCommandIdExp_t next_id =
        (ze_pfnCommandListGetNextCommandIdExp_t)zt_ext(drv, "zeCommandListGetNextCommandIdExp");
    ze_pfnCommandListUpdateMutableCommandsExp_t update =
        (ze_pfnCommandListUpdateMutableCommandsExp_t)zt_ext(drv, "zeCommandListUpdateMutableCommandsExp");
    ze_pfnCommandListUpdateMutableCommandSignalEventExp_t update_signal =
        (ze_pfnCommandListUpdateMutableCommandSignalEventExp_t)zt_ext(
            drv, "zeCommandListUpdateMutableCommandSignalEventExp");
    ze_pfnCommandListUpdateMutableCommandWaitEventsExp_t update_waits =
        (ze_pfnCommandListUpdateMutableCommandWaitEventsExp_t)zt_ext(
            drv, "zeCommandListUpdateMutableCommandWaitEventsExp");
    ze_pfnCommandListIsMutableExp_t is_mutable =
        (ze_pfnCommandListIsMutableExp_t)zt_ext(drv, "zeCommandListIsMutableExp");

    ze_mutable_command_list_exp_properties_t mp = {
        ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_LIST_EXP_PROPERTIES, NULL, 0, 0};
    ze_device_properties_t dp = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, &mp};
    OK(zeDeviceGetProperties(dev, &dp));
    printf("mutable command flags = 0x%x\n", (unsigned)mp.mutableCommandFlags);

    ze_module_handle_t m = zt_module(ctx, dev, "ZEKIT_TEST_SPV");
    ze_kernel_handle_t k = zt_kernel(m, "saxpy");
    OK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    float *x = zt_host(ctx, N * sizeof(float));
    float *y = zt_host(ctx, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    float a = 2.0f;
    uint32_t n = N;
    OK(zeKernelSetArgumentValue(k, 0, sizeof a, &a));
    OK(zeKernelSetArgumentValue(k, 1, sizeof x, &x));
    OK(zeKernelSetArgumentValue(k, 2, sizeof y, &y));
    OK(zeKernelSetArgumentValue(k, 3, sizeof n, &n));

    ze_event_pool_handle_t pool = zt_pool(ctx, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2);
    ze_event_handle_t e1 = zt_event(pool, 0), e2 = zt_event(pool, 1);

    ze_mutable_command_list_exp_desc_t mut = {ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_LIST_EXP_DESC, NULL, 0};
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, &mut, 0, 0};
    ze_command_list_handle_t l = NULL;
    OK(zeCommandListCreate(ctx, dev, &ld, &l));
    ze_bool_t yes = 0;
    OK(is_mutable(l, &yes));
    EXPECT(yes);

    ze_mutable_command_id_exp_desc_t idd = {
        ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_ID_EXP_DESC, NULL,
        ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_ARGUMENTS | ZE_MUTABLE_COMMAND_EXP_FLAG_GROUP_COUNT |
            ZE_MUTABLE_COMMAND_EXP_FLAG_SIGNAL_EVENT | ZE_MUTABLE_COMMAND_EXP_FLAG_WAIT_EVENTS};
    uint64_t id = 0;
    OK(next_id(l, &idd, &id));
    ze_group_count_t all = {N / GROUP, 1, 1};
    OK(zeCommandListAppendLaunchKernel(l, k, &all, e1, 0, NULL));
    OK(zeCommandListClose(l));

    ze_command_queue_handle_t q = zt_queue(ctx, dev, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t f = NULL;
    OK(zeFenceCreate(q, &fd, &f));
    run(q, l, f);
    for (int i = 0; i < N; i++) EXPECT(y[i] == 2.0f * (float)i + 1.0f);
    OK(zeEventQueryStatus(e1));
    printf("first run ok\n");

    /* a = 3 on the first half (half the groups), signaling e2 instead of e1. */
    float a3 = 3.0f;
    ze_group_count_t half = {N / GROUP / 2, 1, 1};
    ze_mutable_group_count_exp_desc_t count = {ZE_STRUCTURE_TYPE_MUTABLE_GROUP_COUNT_EXP_DESC, NULL, id, &half};
    ze_mutable_kernel_argument_exp_desc_t arg = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, &count, id, 0, sizeof a3, &a3};
    ze_mutable_commands_exp_desc_t head = {ZE_STRUCTURE_TYPE_MUTABLE_COMMANDS_EXP_DESC, &arg, 0};
    OK(update(l, &head));
    OK(update_signal(l, id, e2));
    OK(zeCommandListClose(l));
    OK(zeEventHostReset(e1));
    for (int i = 0; i < N; i++) y[i] = 1.0f;
    run(q, l, f);
    for (int i = 0; i < N; i++) EXPECT(y[i] == (i < N / 2 ? 3.0f * (float)i + 1.0f : 1.0f));
    CHECK(zeEventQueryStatus(e1), ZE_RESULT_NOT_READY);
    OK(zeEventQueryStatus(e2));
    printf("updated run ok\n");

    /* Misuse. */
    ze_mutable_kernel_argument_exp_desc_t unknown = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, NULL, id + 7, 0, sizeof a3, &a3};
    head.pNext = &unknown;
    CHECK(update(l, &head), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_mutable_kernel_argument_exp_desc_t index = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, NULL, id, 4, sizeof a3, &a3};
    head.pNext = &index;
    CHECK(update(l, &head), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    ze_mutable_kernel_argument_exp_desc_t size = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, NULL, id, 0, 2, &a3};
    head.pNext = &size;
    CHECK(update(l, &head), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    ze_event_handle_t waits[1] = {e1};
    CHECK(update_waits(l, id, 1, waits), ZE_RESULT_ERROR_INVALID_SIZE);
    ze_command_list_handle_t plain = zt_list(ctx, dev, 0);
    OK(is_mutable(plain, &yes));
    EXPECT(!yes);
    CHECK(next_id(plain, &idd, &id), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(zeCommandListClose(plain));
    CHECK(update_signal(plain, 1, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    printf("misuse ok\n");

    OK(zeCommandListDestroy(plain));
    OK(zeFenceDestroy(f));
    OK(zeCommandQueueDestroy(q));
    OK(zeCommandListDestroy(l));
    OK(zeEventDestroy(e1));
    OK(zeEventDestroy(e2));
    OK(zeEventPoolDestroy(pool));
    OK(zeKernelDestroy(k));
    OK(zeModuleDestroy(m));
    OK(zeMemFree(ctx, x));
    OK(zeMemFree(ctx, y));
    OK(zeContextDestroy(ctx));
    printf("mutable ok\n");
    return 0;
}
