/* Contexts, allocations, a copy host -> device -> host through a command list and a queue, a
 * fill, events and a fence, through the loader. Exits 0 when every byte is right. */
#include "common.h"

#define N 4096

int main(void) {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    first_device(&driver, &device);

    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(driver, &cd, &ctx));

    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    unsigned char *src, *back, *shared;
    void *dev;
    CHECK(zeMemAllocHost(ctx, &hd, N, 64, (void **)&src));
    CHECK(zeMemAllocHost(ctx, &hd, N, 64, (void **)&back));
    CHECK(zeMemAllocDevice(ctx, &dd, N, 256, device, &dev));
    CHECK(zeMemAllocShared(ctx, &dd, &hd, N, 0, device, (void **)&shared));
    EXPECT(((uintptr_t)dev % 256) == 0);
    for (int i = 0; i < N; i++) src[i] = (unsigned char)(i * 13 + 1);

    ze_memory_allocation_properties_t ap = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, NULL};
    ze_device_handle_t owner = NULL;
    CHECK(zeMemGetAllocProperties(ctx, dev, &ap, &owner));
    EXPECT(ap.type == ZE_MEMORY_TYPE_DEVICE && owner == device);
    CHECK(zeMemGetAllocProperties(ctx, src, &ap, NULL));
    EXPECT(ap.type == ZE_MEMORY_TYPE_HOST);
    CHECK(zeMemGetAllocProperties(ctx, shared, &ap, NULL));
    EXPECT(ap.type == ZE_MEMORY_TYPE_SHARED);
    void *base = NULL;
    size_t size = 0;
    CHECK(zeMemGetAddressRange(ctx, (char *)dev + 100, &base, &size));
    EXPECT(base == dev && size == N);

    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_DEFAULT, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue;
    CHECK(zeCommandQueueCreate(ctx, device, &qd, &queue));
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t list;
    CHECK(zeCommandListCreate(ctx, device, &ld, &list));

    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ze_event_pool_handle_t pool;
    CHECK(zeEventPoolCreate(ctx, &pd, 1, &device, &pool));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                          ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t copied;
    CHECK(zeEventCreate(pool, &ed, &copied));

    /* host -> device, barrier, device -> host (signals `copied`), fill the shared buffer. */
    CHECK(zeCommandListAppendMemoryCopy(list, dev, src, N, NULL, 0, NULL));
    CHECK(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    CHECK(zeCommandListAppendMemoryCopy(list, back, dev, N, copied, 0, NULL));
    uint32_t pattern = 0xC0FFEE11u;
    CHECK(zeCommandListAppendMemoryFill(list, shared, &pattern, sizeof pattern, N, NULL, 1,
                                        &copied));
    CHECK(zeCommandListClose(list));

    ze_fence_desc_t fd = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence;
    CHECK(zeFenceCreate(queue, &fd, &fence));
    CHECK(zeCommandQueueExecuteCommandLists(queue, 1, &list, fence));
    CHECK(zeFenceHostSynchronize(fence, UINT64_MAX));
    CHECK(zeEventHostSynchronize(copied, UINT64_MAX));
    CHECK(zeCommandQueueSynchronize(queue, UINT64_MAX));

    EXPECT(memcmp(src, back, N) == 0);
    for (int i = 0; i < N; i += 4) EXPECT(memcmp(shared + i, &pattern, 4) == 0);

    /* An unsignaled event times out instead of hanging. */
    ze_event_handle_t never;
    ed.index = 1;
    CHECK(zeEventCreate(pool, &ed, &never));
    EXPECT(zeEventHostSynchronize(never, 1000000) == ZE_RESULT_NOT_READY);
    EXPECT(zeEventQueryStatus(never) == ZE_RESULT_NOT_READY);

    CHECK(zeEventDestroy(never));
    CHECK(zeEventDestroy(copied));
    CHECK(zeEventPoolDestroy(pool));
    CHECK(zeFenceDestroy(fence));
    CHECK(zeCommandListDestroy(list));
    CHECK(zeCommandQueueDestroy(queue));
    CHECK(zeMemFree(ctx, src));
    CHECK(zeMemFree(ctx, back));
    CHECK(zeMemFree(ctx, dev));
    CHECK(zeMemFree(ctx, shared));
    CHECK(zeContextDestroy(ctx));
    printf("copy ok\n");
    return 0;
}
