/* External memory through the loader, between two processes: the process forks before either
 * side touches Level Zero and the two talk over a Unix socket pair. The parent allocates device
 * memory made exportable (ze_external_memory_export_desc_t, OPAQUE_FD), fills it, exports it as
 * an fd (ze_external_memory_export_fd_t on zeMemGetAllocProperties) and sends the fd
 * (SCM_RIGHTS). The child imports it (ze_external_memory_import_fd_t on zeMemAllocHost), checks
 * the parent's bytes and overwrites them; then it exports memory of its own the same way and
 * sends that fd back; the parent checks the child's rewrite, imports the child's memory, checks
 * and rewrites it, and the child checks the parent's bytes. */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zt.h"

#define SIZE (3 * 4096 + 21)

static void send_fd(int sock, int fd) {
    char byte = 'f';
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    EXPECT(sendmsg(sock, &msg, 0) == 1);
}

static int recv_fd(int sock) {
    char byte = 0;
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    EXPECT(recvmsg(sock, &msg, 0) == 1 && byte == 'f');
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    EXPECT(c != NULL && c->cmsg_type == SCM_RIGHTS);
    int fd = -1;
    memcpy(&fd, CMSG_DATA(c), sizeof(int));
    EXPECT(fd >= 0);
    return fd;
}

static ze_context_handle_t setup(ze_device_handle_t *dev) {
    ze_driver_handle_t drv;
    zt_discover(&drv, dev);
    ze_device_external_memory_properties_t ext = {
        ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES};
    OK(zeDeviceGetExternalMemoryProperties(*dev, &ext));
    EXPECT(ext.memoryAllocationExportTypes & ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD);
    EXPECT(ext.memoryAllocationImportTypes & ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD);
    return zt_context(drv);
}

/* Device memory made exportable as OPAQUE_FD, filled with `seed`'s pattern; its fd in *fd. */
static unsigned char *exported(ze_context_handle_t ctx, ze_device_handle_t dev, int seed, int *fd) {
    ze_external_memory_export_desc_t ed = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL,
                                           ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD};
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &ed, 0, 0};
    unsigned char *p = NULL;
    OK(zeMemAllocDevice(ctx, &dd, SIZE, 0, dev, (void **)&p));
    for (int i = 0; i < SIZE; i++) p[i] = (unsigned char)(i * seed + seed);
    ze_external_memory_export_fd_t out = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD, NULL,
                                          ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD, -1};
    ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES,
                                               &out};
    OK(zeMemGetAllocProperties(ctx, p, &props, NULL));
    EXPECT(props.type == ZE_MEMORY_TYPE_DEVICE && out.fd >= 0);
    *fd = out.fd;
    return p;
}

static unsigned char *imported(ze_context_handle_t ctx, int fd) {
    ze_external_memory_import_fd_t id = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL,
                                         ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD, fd};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &id, 0};
    unsigned char *q = NULL;
    OK(zeMemAllocHost(ctx, &hd, SIZE, 0, (void **)&q));
    return q;
}

static int matches(const unsigned char *p, int seed) {
    for (int i = 0; i < SIZE; i++)
        if (p[i] != (unsigned char)(i * seed + seed)) return 0;
    return 1;
}

static void fill(unsigned char *p, int seed) {
    for (int i = 0; i < SIZE; i++) p[i] = (unsigned char)(i * seed + seed);
}

static void child(int sock) {
    ze_device_handle_t dev;
    ze_context_handle_t ctx = setup(&dev);
    int fd = recv_fd(sock);
    unsigned char *q = imported(ctx, fd);
    EXPECT(close(fd) == 0); /* the import keeps its own reference */
    EXPECT(matches(q, 3));
    fill(q, 5);
    int mine_fd = -1;
    unsigned char *mine = exported(ctx, dev, 7, &mine_fd);
    send_fd(sock, mine_fd);
    EXPECT(close(mine_fd) == 0);
    char done = 0;
    EXPECT(read(sock, &done, 1) == 1 && done == 'd');
    EXPECT(matches(mine, 11));
    OK(zeMemFree(ctx, q));
    OK(zeMemFree(ctx, mine));
    OK(zeContextDestroy(ctx));
    printf("child ok\n");
    fflush(stdout);
}

int main(void) {
    int sv[2];
    EXPECT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    fflush(stdout);
    pid_t pid = fork();
    EXPECT(pid >= 0);
    if (pid == 0) {
        close(sv[0]);
        child(sv[1]);
        exit(0);
    }
    close(sv[1]);
    ze_device_handle_t dev;
    ze_context_handle_t ctx = setup(&dev);
    int fd = -1;
    unsigned char *p = exported(ctx, dev, 3, &fd);
    send_fd(sv[0], fd);
    EXPECT(close(fd) == 0);
    int theirs_fd = recv_fd(sv[0]); /* sent after the child rewrote our memory */
    EXPECT(matches(p, 5));
    printf("parent sees the child's bytes = yes\n");
    unsigned char *theirs = imported(ctx, theirs_fd);
    EXPECT(close(theirs_fd) == 0);
    EXPECT(matches(theirs, 7));
    printf("parent imported the child's memory = yes\n");
    fill(theirs, 11);
    EXPECT(write(sv[0], "d", 1) == 1);
    int status = 0;
    EXPECT(waitpid(pid, &status, 0) == pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* A descriptor that is no file to map is refused, not a crash. */
    ze_external_memory_import_fd_t bad = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL,
                                          ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD, sv[0]};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &bad, 0};
    void *none = NULL;
    CHECK(zeMemAllocHost(ctx, &hd, SIZE, 0, &none), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(zeMemFree(ctx, theirs));
    OK(zeMemFree(ctx, p));
    OK(zeContextDestroy(ctx));
    printf("ok\n");
    return 0;
}
