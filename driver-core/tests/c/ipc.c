/* IPC memory through the loader: the parent allocates and fills device memory, exports a
 * handle, and runs itself again (fork + exec) with the handle in hex; the child opens it, checks
 * the parent's bytes and writes its own, which the parent then reads. */
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

static int child(const char *hex) {
    ze_device_handle_t dev;
    ze_context_handle_t ctx = setup(&dev);
    ze_ipc_mem_handle_t h;
    EXPECT(strlen(hex) == 2 * ZE_MAX_IPC_HANDLE_SIZE);
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++) {
        unsigned v;
        EXPECT(sscanf(hex + 2 * i, "%2x", &v) == 1);
        h.data[i] = (char)v;
    }
    void *q = NULL;
    OK(zeMemOpenIpcHandle(ctx, dev, h, 0, &q));
    unsigned char *b = q;
    for (int i = 0; i < SIZE; i++) EXPECT(b[i] == (unsigned char)(i % 251));
    for (int i = 0; i < SIZE; i++) b[i] = (unsigned char)(0xff - i % 13);
    OK(zeMemCloseIpcHandle(ctx, q));
    CHECK(zeMemCloseIpcHandle(ctx, q), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(zeContextDestroy(ctx));
    printf("child ok\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2) return child(argv[1]);
    ze_device_handle_t dev;
    ze_context_handle_t ctx = setup(&dev);
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    unsigned char *p = NULL;
    OK(zeMemAllocDevice(ctx, &dd, SIZE, 0, dev, (void **)&p));
    for (int i = 0; i < SIZE; i++) p[i] = (unsigned char)(i % 251);
    ze_ipc_mem_handle_t h;
    OK(zeMemGetIpcHandle(ctx, p, &h));
    char hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    for (int i = 0; i < ZE_MAX_IPC_HANDLE_SIZE; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)h.data[i]);
    fflush(stdout);
    pid_t pid = fork();
    EXPECT(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], hex, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    EXPECT(waitpid(pid, &status, 0) == pid);
    printf("child exit = %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < SIZE; i++) EXPECT(p[i] == (unsigned char)(0xff - i % 13));
    printf("parent sees the child's bytes = yes\n");
    OK(zeMemFree(ctx, p));
    OK(zeContextDestroy(ctx));
    printf("ok\n");
    return 0;
}
