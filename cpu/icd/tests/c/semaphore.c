/* External semaphores through the loader, between two processes: the parent makes two eventfds
 * (binary semaphores, one per direction) and a 16-byte memfd (a timeline: 64-bit counter at 0,
 * futex word at 8), then forks before either process touches Level Zero. Each process imports
 * the three fds into its own driver. The child's queue signals (binary, timeline 5) while the
 * parent's queue waits; then the parent's queue signals (binary, timeline 7) while the child's
 * waits. Functions newer than API 1.4 come from zeDriverGetExtensionFunctionAddress. */
#define _GNU_SOURCE /* memfd_create */
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zt.h"

typedef struct {
    ze_pfnDeviceImportExternalSemaphoreExt_t import;
    ze_pfnDeviceReleaseExternalSemaphoreExt_t release;
    ze_pfnCommandListAppendSignalExternalSemaphoreExt_t signal;
    ze_pfnCommandListAppendWaitExternalSemaphoreExt_t wait;
    ze_pfnCommandListHostSynchronize_t sync;
} fns_t;

static ze_external_semaphore_ext_handle_t import(const fns_t *f, ze_device_handle_t dev,
                                                 ze_external_semaphore_ext_flags_t type, int fd) {
    ze_external_semaphore_fd_ext_desc_t fd_desc = {ZE_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_FD_EXT_DESC,
                                                   NULL, fd};
    ze_external_semaphore_ext_desc_t desc = {ZE_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_EXT_DESC,
                                             &fd_desc, type};
    ze_external_semaphore_ext_handle_t s = NULL;
    OK(f->import(dev, &desc, &s));
    return s;
}

static void signal_sem(const fns_t *f, ze_command_list_handle_t l,
                       ze_external_semaphore_ext_handle_t s, uint64_t value) {
    ze_external_semaphore_signal_params_ext_t p = {
        ZE_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_EXT, NULL, value};
    OK(f->signal(l, 1, &s, &p, NULL, 0, NULL));
}

static void wait_sem(const fns_t *f, ze_command_list_handle_t l,
                     ze_external_semaphore_ext_handle_t s, uint64_t value, ze_event_handle_t e) {
    ze_external_semaphore_wait_params_ext_t p = {ZE_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_WAIT_PARAMS_EXT,
                                                 NULL, value};
    OK(f->wait(l, 1, &s, &p, e, 0, NULL));
}

static void run(int is_child, int up, int down, int tl) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    fns_t f = {
        (ze_pfnDeviceImportExternalSemaphoreExt_t)zt_ext(drv, "zeDeviceImportExternalSemaphoreExt"),
        (ze_pfnDeviceReleaseExternalSemaphoreExt_t)zt_ext(drv, "zeDeviceReleaseExternalSemaphoreExt"),
        (ze_pfnCommandListAppendSignalExternalSemaphoreExt_t)zt_ext(
            drv, "zeCommandListAppendSignalExternalSemaphoreExt"),
        (ze_pfnCommandListAppendWaitExternalSemaphoreExt_t)zt_ext(
            drv, "zeCommandListAppendWaitExternalSemaphoreExt"),
        (ze_pfnCommandListHostSynchronize_t)zt_ext(drv, "zeCommandListHostSynchronize"),
    };
    ze_context_handle_t ctx = zt_context(drv);
    ze_command_list_handle_t l = zt_immediate(ctx, dev, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_external_semaphore_ext_handle_t s_up =
        import(&f, dev, ZE_EXTERNAL_SEMAPHORE_EXT_FLAG_OPAQUE_FD, up);
    ze_external_semaphore_ext_handle_t s_down =
        import(&f, dev, ZE_EXTERNAL_SEMAPHORE_EXT_FLAG_OPAQUE_FD, down);
    ze_external_semaphore_ext_handle_t s_tl =
        import(&f, dev, ZE_EXTERNAL_SEMAPHORE_EXT_FLAG_VK_TIMELINE_SEMAPHORE_FD, tl);
    /* Another type is refused truthfully. */
    ze_external_semaphore_ext_desc_t win = {ZE_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_EXT_DESC, NULL,
                                            ZE_EXTERNAL_SEMAPHORE_EXT_FLAG_OPAQUE_WIN32};
    ze_external_semaphore_ext_handle_t none = NULL;
    CHECK(f.import(dev, &win, &none), ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION);
    if (is_child) {
        signal_sem(&f, l, s_up, 0);
        signal_sem(&f, l, s_tl, 5);
        wait_sem(&f, l, s_down, 0, NULL);
        wait_sem(&f, l, s_tl, 7, NULL);
        OK(f.sync(l, 20000000000ull));
        printf("child ok\n");
    } else {
        ze_event_pool_handle_t pool = zt_pool(ctx, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1);
        ze_event_handle_t got = zt_event(pool, 0);
        wait_sem(&f, l, s_up, 0, NULL);
        wait_sem(&f, l, s_tl, 5, got);
        OK(zeEventHostSynchronize(got, 20000000000ull));
        printf("parent saw the child's signals = yes\n");
        signal_sem(&f, l, s_down, 0);
        signal_sem(&f, l, s_tl, 7);
        OK(f.sync(l, UINT64_MAX));
        OK(zeEventDestroy(got));
        OK(zeEventPoolDestroy(pool));
    }
    fflush(stdout);
    OK(f.release(s_up));
    OK(f.release(s_down));
    OK(f.release(s_tl));
    OK(zeCommandListDestroy(l));
    OK(zeContextDestroy(ctx));
}

int main(void) {
    int up = eventfd(0, 0), down = eventfd(0, 0);
    int tl = memfd_create("timeline", 0);
    EXPECT(up >= 0 && down >= 0 && tl >= 0);
    EXPECT(ftruncate(tl, 16) == 0);
    fflush(stdout);
    pid_t child = fork();
    EXPECT(child >= 0);
    if (child == 0) {
        run(1, up, down, tl);
        exit(0);
    }
    run(0, up, down, tl);
    int status = 0;
    EXPECT(waitpid(child, &status, 0) == child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The counter as any process sees it. */
    uint64_t *counter = mmap(NULL, 16, PROT_READ, MAP_SHARED, tl, 0);
    EXPECT(counter != MAP_FAILED);
    printf("timeline = %" PRIu64 "\n", counter[0]);
    printf("ok\n");
    return 0;
}
