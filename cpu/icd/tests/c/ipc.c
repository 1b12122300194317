/* IPC through the loader: the parent allocates and fills device memory, makes an IPC event
 * pool, exports both, and runs itself again (fork + exec) with the handles in hex; the child
 * opens the memory, checks the parent's bytes and writes its own, which the parent then reads;
 * and the two processes signal each other through the pool's events (one of them a blocking
 * wait released by the other process). */
#define _DEFAULT_SOURCE /* usleep */
#include <sys/wait.h>
#include <unistd.h>

#include "zt.h"

#define SIZE (2 * 4096 + 33)

static ze_context_handle_t setup(ze_device_handle_t *dev) {
    ze_driver_handle_t drv;
    zt_discover(&drv, dev);
    ze_driver_ipc_properties_t ipc = {ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES, NULL, 0};
    OK(zeDriverGetIpcProperties(drv, &ipc));
    EXPECT(ipc.flags & ZE_IPC_PROPERTY_FLAG_MEMORY);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    OK(zeContextCreate(drv, &cd, &ctx));
    return ctx;
}

static void unhex(const char *hex, char *out) {
    EXPECT(strlen(hex) == 2 * ZE_MAX_IPC_HANDLE_SIZE);
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++) {
        unsigned v;
        EXPECT(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (char)v;
    }
}

static void tohex(const char *data, char *hex) {
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)data[i]);
}

static ze_event_handle_t event(ze_event_pool_handle_t pool, uint32_t index) {
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, index, ZE_EVENT_SCOPE_FLAG_HOST,
                          ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t e;
    OK(zeEventCreate(pool, &ed, &e));
    return e;
}

static int child(const char *hex, const char *pool_hex) {
    ze_device_handle_t dev;
    ze_context_handle_t ctx = setup(&dev);
    ze_ipc_mem_handle_t h;
    unhex(hex, h.data);
    void *q = NULL;
    OK(zeMemOpenIpcHandle(ctx, dev, h, 0, &q));
    unsigned char *b = q;
    for (int i = 0; i < SIZE; i++) EXPECT(b[i] == (unsigned char)(i % 251));
    for (int i = 0; i < SIZE; i++) b[i] = (unsigned char)(0xff - i % 13);
    OK(zeMemCloseIpcHandle(ctx, q));
    CHECK(zeMemCloseIpcHandle(ctx, q), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    ze_ipc_event_pool_handle_t ph;
    unhex(pool_hex, ph.data);
    ze_event_pool_handle_t pool;
    OK(zeEventPoolOpenIpcHandle(ctx, ph, &pool));
    ze_event_handle_t e0 = event(pool, 0), e1 = event(pool, 1), e2 = event(pool, 2);
    OK(zeEventQueryStatus(e0)); /* signaled by the parent before this process started */
    OK(zeEventHostSignal(e1));
    OK(zeEventHostSynchronize(e2, 10000000000ull)); /* released by the parent */
    OK(zeEventDestroy(e0));
    OK(zeEventDestroy(e1));
    OK(zeEventDestroy(e2));
    OK(zeEventPoolCloseIpcHandle(pool));
    OK(zeContextDestroy(ctx));
    printf("child ok\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3) return child(argv[1], argv[2]);
    ze_device_handle_t dev;
    ze_context_handle_t ctx = setup(&dev);
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    unsigned char *p = NULL;
    OK(zeMemAllocDevice(ctx, &dd, SIZE, 0, dev, (void **)&p));
    for (int i = 0; i < SIZE; i++) p[i] = (unsigned char)(i % 251);
    ze_ipc_mem_handle_t h;
    OK(zeMemGetIpcHandle(ctx, p, &h));
    char hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1], pool_hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    tohex(h.data, hex);

    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                               ZE_EVENT_POOL_FLAG_IPC | ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 3};
    ze_event_pool_handle_t pool;
    OK(zeEventPoolCreate(ctx, &pd, 0, NULL, &pool));
    ze_event_handle_t e0 = event(pool, 0), e1 = event(pool, 1), e2 = event(pool, 2);
    OK(zeEventHostSignal(e0));
    ze_ipc_event_pool_handle_t ph;
    OK(zeEventPoolGetIpcHandle(pool, &ph));
    tohex(ph.data, pool_hex);

    fflush(stdout);
    pid_t pid = fork();
    EXPECT(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], hex, pool_hex, (char *)NULL);
        _exit(127);
    }
    OK(zeEventHostSynchronize(e1, 10000000000ull)); /* the child's signal */
    printf("parent saw the child's event = yes\n");
    usleep(20000);
    OK(zeEventHostSignal(e2));
    int status = 0;
    EXPECT(waitpid(pid, &status, 0) == pid);
    printf("child exit = %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < SIZE; i++) EXPECT(p[i] == (unsigned char)(0xff - i % 13));
    printf("parent sees the child's bytes = yes\n");
    OK(zeEventDestroy(e0));
    OK(zeEventDestroy(e1));
    OK(zeEventDestroy(e2));
    OK(zeEventPoolDestroy(pool));
    OK(zeMemFree(ctx, p));
    OK(zeContextDestroy(ctx));
    printf("ok\n");
    return 0;
}
