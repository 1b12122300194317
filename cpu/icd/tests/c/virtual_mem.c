/* Virtual memory through the loader: reserve, physical memory, two aliasing mappings, access
 * attributes (a forked child writing a read-only page dies of SIGSEGV), the spec's codes. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zt.h"

/* Runs `touch(p, write)` in a child; returns the signal that killed it, or 0. */
static int child_signal(volatile char *p, int write) {
    pid_t pid = fork();
    EXPECT(pid >= 0);
    if (pid == 0) {
        if (write) p[0] = 1; else (void)p[0];
        _exit(0);
    }
    int status = 0;
    EXPECT(waitpid(pid, &status, 0) == pid);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    zt_discover(&drv, &dev);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    OK(zeContextCreate(drv, &cd, &ctx));

    size_t ps = 0;
    OK(zeVirtualMemQueryPageSize(ctx, dev, 1, &ps));
    printf("page size = %zu\n", ps);
    EXPECT(ps == (size_t)sysconf(_SC_PAGESIZE));

    ze_physical_mem_desc_t pd = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL,
                                 ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_DEVICE, 2 * ps};
    ze_physical_mem_handle_t phys;
    OK(zePhysicalMemCreate(ctx, dev, &pd, &phys));
    pd.size = ps + 1;
    ze_physical_mem_handle_t bad;
    CHECK(zePhysicalMemCreate(ctx, dev, &pd, &bad), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);

    void *a, *b;
    OK(zeVirtualMemReserve(ctx, NULL, 4 * ps, &a));
    OK(zeVirtualMemReserve(ctx, NULL, 2 * ps, &b));
    CHECK(zeVirtualMemReserve(ctx, NULL, 0, &b), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    OK(zeVirtualMemMap(ctx, a, 2 * ps, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    OK(zeVirtualMemMap(ctx, b, 2 * ps, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    char *ca = a, *cb = b;
    ca[ps + 5] = 42;
    EXPECT(cb[ps + 5] == 42);
    cb[17] = 7;
    EXPECT(ca[17] == 7);
    printf("aliasing = yes\n");

    CHECK(zeVirtualMemMap(ctx, ca + ps, ps, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
          ZE_RESULT_ERROR_INVALID_ARGUMENT);
    CHECK(zeVirtualMemMap(ctx, ca + 2 * ps, ps, phys, 2 * ps, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
          ZE_RESULT_ERROR_INVALID_ARGUMENT);
    CHECK(zeVirtualMemMap(ctx, ca + 2 * ps, ps + 8, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
          ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    CHECK(zeVirtualMemMap(ctx, ca + 2 * ps, ps, phys, 8, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
          ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    CHECK(zePhysicalMemDestroy(ctx, phys), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);

    OK(zeVirtualMemSetAccessAttribute(ctx, a, ps, ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    ze_memory_access_attribute_t access;
    size_t n = 0;
    OK(zeVirtualMemGetAccessAttribute(ctx, a, 2 * ps, &access, &n));
    EXPECT(access == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY && n == ps);
    EXPECT(ca[17] == 7);
    int sig = child_signal(ca, 1);
    printf("write to a read-only page: signal %d\n", sig);
    EXPECT(sig == SIGSEGV);
    EXPECT(child_signal(cb, 1) == 0); /* the alias stays writable */
    EXPECT(ca[0] == 1);
    OK(zeVirtualMemSetAccessAttribute(ctx, a, ps, ZE_MEMORY_ACCESS_ATTRIBUTE_NONE));
    EXPECT(child_signal(ca, 0) == SIGSEGV);

    OK(zeVirtualMemUnmap(ctx, a, 2 * ps));
    CHECK(zeVirtualMemUnmap(ctx, a, 2 * ps), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    EXPECT(child_signal(ca + ps, 0) == SIGSEGV);
    OK(zeVirtualMemUnmap(ctx, b, 2 * ps));
    OK(zePhysicalMemDestroy(ctx, phys));
    CHECK(zeVirtualMemFree(ctx, a, 2 * ps), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    OK(zeVirtualMemFree(ctx, a, 4 * ps));
    OK(zeVirtualMemFree(ctx, b, 2 * ps));
    OK(zeContextDestroy(ctx));
    printf("ok\n");
    return 0;
}
