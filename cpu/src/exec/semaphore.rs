//! External semaphores (`zeDeviceImportExternalSemaphoreExt`), as file descriptors another
//! process or library can signal and wait on without this driver:
//!
//! - **Binary** (`ZE_EXTERNAL_SEMAPHORE_EXT_FLAG_OPAQUE_FD`): an `eventfd`. Signaling writes
//!   the 8-byte value 1 (adds 1 to its counter); waiting blocks until it is readable, then
//!   reads 8 bytes, which consumes the signal (the whole counter, or 1 with `EFD_SEMAPHORE`).
//! - **Timeline** (`ZE_EXTERNAL_SEMAPHORE_EXT_FLAG_VK_TIMELINE_SEMAPHORE_FD`): a file of at
//!   least [`TIMELINE_SIZE`] bytes (a `memfd`, or any file that can be mapped `MAP_SHARED`)
//!   holding, at offset 0, the 64-bit counter (native endian, only ever raised) and, at offset
//!   8, a 32-bit wake word. Signaling `v` raises the counter to `max(counter, v)`, then adds 1
//!   to the wake word and wakes every `futex` waiter on it (a shared futex: not
//!   `FUTEX_PRIVATE_FLAG`). Waiting for `v` reads the wake word, returns if the counter is at
//!   least `v`, else `FUTEX_WAIT`s on the word with the value read, and loops.
//!
//! The driver duplicates the descriptor given to it: the application keeps (and closes) its
//! own.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bytes a timeline semaphore's file must hold: the counter and the wake word.
pub const TIMELINE_SIZE: usize = 16;

/// An imported semaphore.
#[derive(Debug)]
pub enum ExternalSemaphore {
    /// An `eventfd`.
    Binary(OwnedFd),
    /// A shared counter.
    Timeline(Timeline),
}

/// The mapped counter of a timeline semaphore.
#[derive(Debug)]
pub struct Timeline {
    _fd: OwnedFd,
    base: *mut u8,
}

// SAFETY: the mapping is only accessed through atomics; it lives as long as the object.
unsafe impl Send for Timeline {}
// SAFETY: as above.
unsafe impl Sync for Timeline {}

fn dup(fd: i32) -> std::io::Result<OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_DUPFD_CLOEXEC on any integer: an invalid one fails with EBADF.
    let d = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if d < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a new descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(d) })
}

/// Why an fd cannot be imported.
pub type ImportError = String;

impl ExternalSemaphore {
    /// A binary semaphore from the application's `eventfd` (duplicated).
    pub fn binary(fd: i32) -> Result<ExternalSemaphore, ImportError> {
        let owned = dup(fd).map_err(|e| format!("fd {fd}: {e}"))?;
        let link = std::fs::read_link(format!("/proc/self/fd/{}", owned.as_raw_fd()))
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        if link != "anon_inode:[eventfd]" {
            return Err(format!(
                "fd {fd} is not an eventfd ({link}); a binary semaphore is an eventfd"
            ));
        }
        Ok(ExternalSemaphore::Binary(owned))
    }

    /// A timeline semaphore from the application's file (duplicated and mapped).
    pub fn timeline(fd: i32) -> Result<ExternalSemaphore, ImportError> {
        let owned = dup(fd).map_err(|e| format!("fd {fd}: {e}"))?;
        // SAFETY: an all-zero `stat` is a valid value to be overwritten.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a valid out-pointer; the descriptor is ours.
        if unsafe { libc::fstat(owned.as_raw_fd(), &mut st) } != 0 {
            return Err(format!("fd {fd}: {}", std::io::Error::last_os_error()));
        }
        if (st.st_mode & libc::S_IFMT) != libc::S_IFREG || (st.st_size as u64) < TIMELINE_SIZE as u64 {
            return Err(format!(
                "fd {fd} is not a file of at least {TIMELINE_SIZE} bytes (a timeline semaphore is a memfd holding a 64-bit counter and a 32-bit futex word)"
            ));
        }
        // SAFETY: a new shared mapping of the file's first bytes, chosen by the kernel.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                TIMELINE_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                owned.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!("fd {fd}: mmap: {}", std::io::Error::last_os_error()));
        }
        Ok(ExternalSemaphore::Timeline(Timeline {
            _fd: owned,
            base: p.cast(),
        }))
    }

    /// Signals: `value` is the timeline value (ignored by a binary semaphore).
    pub fn signal(&self, value: u64) {
        match self {
            ExternalSemaphore::Binary(fd) => {
                let one = 1u64.to_ne_bytes();
                loop {
                    // SAFETY: 8 readable bytes.
                    let n = unsafe { libc::write(fd.as_raw_fd(), one.as_ptr().cast(), 8) };
                    if n == 8 || !retry() {
                        break;
                    }
                    if errno() == libc::EAGAIN {
                        // The counter is full (a reader must drain it): wait until writable.
                        poll(fd, libc::POLLOUT);
                    }
                }
            }
            ExternalSemaphore::Timeline(t) => {
                t.counter().fetch_max(value, Ordering::SeqCst);
                t.word().fetch_add(1, Ordering::SeqCst);
                // SAFETY: wakes waiters on a word of our shared mapping.
                unsafe {
                    libc::syscall(libc::SYS_futex, t.word().as_ptr(), libc::FUTEX_WAKE, i32::MAX);
                }
            }
        }
    }

    /// Blocks the calling thread until signaled (binary: consumes the signal) or until the
    /// counter reaches `value` (timeline).
    pub fn wait(&self, value: u64) {
        match self {
            ExternalSemaphore::Binary(fd) => {
                let mut buf = [0u8; 8];
                loop {
                    poll(fd, libc::POLLIN);
                    // SAFETY: 8 writable bytes.
                    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
                    if n == 8 || !retry() {
                        break;
                    }
                }
            }
            ExternalSemaphore::Timeline(t) => loop {
                let w = t.word().load(Ordering::SeqCst);
                if t.counter().load(Ordering::SeqCst) >= value {
                    break;
                }
                // SAFETY: waits on a word of our shared mapping while it holds `w`.
                unsafe {
                    libc::syscall(
                        libc::SYS_futex,
                        t.word().as_ptr(),
                        libc::FUTEX_WAIT,
                        w,
                        std::ptr::null::<libc::timespec>(),
                    );
                }
            },
        }
    }

    /// Whether a wait for `value` would return at once (a binary semaphore: the eventfd is
    /// readable; nothing is consumed).
    pub fn ready(&self, value: u64) -> bool {
        match self {
            ExternalSemaphore::Binary(fd) => {
                let mut p = libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd, no wait.
                unsafe { libc::poll(&mut p, 1, 0) == 1 }
            }
            ExternalSemaphore::Timeline(t) => t.counter().load(Ordering::SeqCst) >= value,
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// After a failed read or write: whether to try again (interrupted, or would block).
fn retry() -> bool {
    matches!(errno(), libc::EINTR | libc::EAGAIN)
}

fn poll(fd: &OwnedFd, events: i16) {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, -1) };
}

impl Timeline {
    fn counter(&self) -> &AtomicU64 {
        // SAFETY: offset 0 of a page-aligned mapping of TIMELINE_SIZE bytes, alive with self.
        unsafe { &*self.base.cast::<AtomicU64>() }
    }

    fn word(&self) -> &AtomicU32 {
        // SAFETY: offset 8 of the mapping (4-byte aligned, inside TIMELINE_SIZE bytes).
        unsafe { &*self.base.add(8).cast::<AtomicU32>() }
    }
}

impl Drop for Timeline {
    fn drop(&mut self) {
        // SAFETY: our own mapping, unmapped once.
        unsafe { libc::munmap(self.base.cast(), TIMELINE_SIZE) };
    }
}
