//! Faults in kernels and copies end the command, not the process.
//!
//! A kernel or a copy that touches memory it must not (a read-only page, an unmapped address,
//! an out-of-bounds index) raises SIGSEGV or SIGBUS on the thread that runs it. [`guarded`] runs
//! a piece of work with a recovery point on its thread (`csrc/fault.c`: `sigsetjmp`); the
//! driver's signal handler, installed once, jumps back there and `guarded` returns the
//! [`Fault`]. The command that faulted ends with `ZE_RESULT_ERROR_DEVICE_LOST` on its queue,
//! list, event and fence (`super::engine`), as a GPU page fault does; the process lives.
//!
//! As in wasmtime's trap handling, a signal on a thread with no recovery point (anywhere outside
//! a guarded piece) goes to the handler installed before the driver's, or to the default action:
//! the driver turns only its own work's faults into errors. The driver's threads get an
//! alternate signal stack (`prepare_thread`), so even a kernel that overflows its stack is
//! caught.
//!
//! What a jump skips: the frames between the recovery point and the faulting instruction are
//! the work itself (generated code, `memcpy`, the runtime shims it calls), which own nothing
//! that needs dropping; every recovery point sits right around such work (a pool piece, a
//! launch's loop over its groups, a serial copy).

use std::ffi::c_void;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Once;

extern "C" {
    fn zekit_fault_try(
        body: extern "C" fn(*mut c_void),
        data: *mut c_void,
        signal: *mut i32,
        addr: *mut usize,
    ) -> i32;
    fn zekit_fault_install() -> i32;
}

/// A fault that ended a piece of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The signal (SIGSEGV or SIGBUS).
    pub signal: i32,
    /// The address the work touched.
    pub addr: usize,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self.signal {
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGBUS => "SIGBUS",
            _ => "a signal",
        };
        write!(f, "{name} at {:#x}", self.addr)
    }
}

static INSTALL: Once = Once::new();

/// Installs the signal handler (once per process).
fn install() {
    INSTALL.call_once(|| {
        // SAFETY: installs a handler for SIGSEGV and SIGBUS; `fault.c` keeps the previous ones
        // and forwards every signal it does not recover from to them.
        if unsafe { zekit_fault_install() } != 0 {
            zekit_icd_rt::log_error("zekit", "cannot install the fault handler: a faulting kernel or copy will end the process");
        }
    });
}

/// Gives the calling thread (one the driver started) an alternate signal stack, so that the
/// handler runs even when the work overflowed the thread's stack.
pub(crate) fn prepare_thread() {
    install();
    const SIZE: usize = 64 << 10;
    // SAFETY: a query of the current alternate stack, into a local.
    let mut old: libc::stack_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::sigaltstack(std::ptr::null(), &mut old) } != 0 || old.ss_flags & libc::SS_DISABLE == 0 {
        return; // already has one (Rust's runtime gives its threads one in Rust programs)
    }
    // SAFETY: a fresh anonymous mapping, never unmapped: the thread may use it until it ends
    // (the driver's threads live as long as the process).
    let stack = unsafe {
        libc::mmap(std::ptr::null_mut(), SIZE, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
    };
    if stack == libc::MAP_FAILED {
        return;
    }
    let st = libc::stack_t { ss_sp: stack, ss_flags: 0, ss_size: SIZE };
    // SAFETY: `st` describes the mapping above.
    unsafe { libc::sigaltstack(&st, std::ptr::null_mut()) };
}

/// Runs `work` with a recovery point on this thread: a SIGSEGV or SIGBUS it raises returns
/// `Err` (the rest of `work` does not run); a panic in it goes on unwinding after the recovery
/// point is gone.
///
/// `work` must own nothing that needs dropping while it may fault (see the module docs).
pub fn guarded<F: FnOnce()>(work: F) -> Result<(), Fault> {
    install();
    struct Call<F> {
        work: Option<F>,
        panic: Option<Box<dyn std::any::Any + Send>>,
    }
    extern "C" fn body<F: FnOnce()>(data: *mut c_void) {
        // SAFETY: `data` is the `Call<F>` below, alive for the whole `zekit_fault_try`.
        let call = unsafe { &mut *data.cast::<Call<F>>() };
        if let Some(work) = call.work.take() {
            // A panic must not unwind through the C frame: it is carried out and resumed.
            if let Err(p) = catch_unwind(AssertUnwindSafe(work)) {
                call.panic = Some(p);
            }
        }
    }
    let mut call = Call { work: Some(work), panic: None };
    let (mut signal, mut addr) = (0i32, 0usize);
    // SAFETY: `body::<F>` takes the `Call<F>` it is given; the out-parameters are locals. A
    // fault jumps back into `zekit_fault_try` over frames of `work` only, which own nothing to
    // drop (this function's contract).
    let faulted = unsafe { zekit_fault_try(body::<F>, (&raw mut call).cast(), &mut signal, &mut addr) };
    if let Some(p) = call.panic.take() {
        resume_unwind(p);
    }
    if faulted != 0 {
        return Err(Fault { signal, addr });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_is_an_error_and_the_thread_goes_on() {
        // SAFETY: a page with no access: reading it faults.
        let page = unsafe {
            libc::mmap(std::ptr::null_mut(), 4096, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
        assert_ne!(page, libc::MAP_FAILED);
        for _ in 0..3 {
            // SAFETY: deliberately faults; `guarded` recovers.
            let r = guarded(|| unsafe {
                std::ptr::read_volatile(page.cast::<u8>().add(8));
            });
            assert_eq!(r, Err(Fault { signal: libc::SIGSEGV, addr: page as usize + 8 }));
        }
        // Nested: the inner recovery point takes the fault, the outer work goes on.
        let mut after = false;
        let outer = guarded(|| {
            // SAFETY: as above.
            let inner = guarded(|| unsafe { std::ptr::write_volatile(page.cast::<u8>(), 1) });
            assert!(inner.is_err());
            after = true;
        });
        assert_eq!(outer, Ok(()));
        assert!(after);
        let panic = catch_unwind(|| guarded(|| panic!("in guarded work")));
        assert!(panic.is_err());
        // SAFETY: the mapping above.
        unsafe { libc::munmap(page, 4096) };
    }
}
