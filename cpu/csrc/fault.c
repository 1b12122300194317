/* Recovery points for faults in kernels and copies (cpu/src/exec/fault.rs).
 *
 * zekit_fault_try runs body(data) with a recovery point on this thread. A SIGSEGV or SIGBUS
 * raised on this thread while it runs jumps back there (siglongjmp out of the handler) and
 * zekit_fault_try returns 1 with the signal and address; a signal on a thread with no recovery
 * point goes to the handler that was installed before ours, or to the default action.
 *
 * The handler is installed with SA_NODEFER, so the signal is not left blocked after the jump
 * (sigsetjmp then need not save the signal mask, which would cost a system call per try), and
 * with SA_ONSTACK, so a thread with an alternate signal stack survives an overflow of its own. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct zekit_fault_frame {
    sigjmp_buf buf;
    int signal;
    uintptr_t addr;
};

/* Initial-exec: the handler reads it without calling into the dynamic linker. */
static __thread struct zekit_fault_frame *zekit_fault_current
    __attribute__((tls_model("initial-exec")));

static struct sigaction zekit_previous_segv, zekit_previous_bus;

typedef void (*zekit_fault_body)(void *);

int zekit_fault_try(zekit_fault_body body, void *data, int *signal, uintptr_t *addr) {
    struct zekit_fault_frame frame;
    struct zekit_fault_frame *volatile outer = zekit_fault_current;
    if (sigsetjmp(frame.buf, 0) == 0) {
        zekit_fault_current = &frame;
        body(data);
        zekit_fault_current = outer;
        return 0;
    }
    zekit_fault_current = outer;
    *signal = frame.signal;
    *addr = frame.addr;
    return 1;
}

static void zekit_fault_handler(int sig, siginfo_t *info, void *context) {
    struct zekit_fault_frame *frame = zekit_fault_current;
    if (frame != NULL) {
        frame->signal = sig;
        frame->addr = (uintptr_t)info->si_addr;
        siglongjmp(frame->buf, 1);
    }
    struct sigaction *prev = sig == SIGBUS ? &zekit_previous_bus : &zekit_previous_segv;
    if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction != NULL) {
        prev->sa_sigaction(sig, info, context);
        return;
    }
    if (!(prev->sa_flags & SA_SIGINFO) && prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    /* No recovery point and no handler before ours: the default action, as if zekit had
     * installed nothing (the faulting instruction runs again and the signal kills the process). */
    signal(sig, SIG_DFL);
}

/* Installs the handler for SIGSEGV and SIGBUS (once; the caller serializes). Returns 0, or -1
 * when sigaction failed. */
int zekit_fault_install(void) {
    struct sigaction sa;
    sa.sa_sigaction = zekit_fault_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    if (sigaction(SIGSEGV, &sa, &zekit_previous_segv) != 0) return -1;
    if (sigaction(SIGBUS, &sa, &zekit_previous_bus) != 0) return -1;
    return 0;
}
