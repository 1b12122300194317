//! Event state in shared memory, for the events of IPC event pools: a `memfd` of one 32-byte
//! slot per event, mapped `MAP_SHARED` by the pool that made it and by every pool opened from
//! its IPC handle, in this process or another. A slot holds the signaled word (0 or 1) and the
//! start and end timestamps. Waiters spin briefly, then sleep in `futex(FUTEX_WAIT)` on the word
//! (a shared futex: it works across processes); signaling stores 1 and wakes them all.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use super::wait::{Timeout, SPIN};

/// Bytes of one event's slot.
pub const SLOT_SIZE: usize = 32;

#[repr(C)]
struct Slot {
    signaled: AtomicU32,
    _pad: u32,
    start: AtomicU64,
    end: AtomicU64,
    _pad2: u64,
}

/// The slots of an IPC event pool, mapped in this process.
#[derive(Debug)]
pub struct SharedEvents {
    fd: OwnedFd,
    base: *mut u8,
    len: usize,
    count: usize,
}

// SAFETY: the mapping is only accessed through atomics; the pointer is stable for the object's
// life.
unsafe impl Send for SharedEvents {}
// SAFETY: as above.
unsafe impl Sync for SharedEvents {}

impl SharedEvents {
    fn map(fd: OwnedFd, count: usize) -> std::io::Result<SharedEvents> {
        let len = count
            .checked_mul(SLOT_SIZE)
            .ok_or_else(|| std::io::Error::from_raw_os_error(libc::EOVERFLOW))?;
        // SAFETY: a new shared mapping chosen by the kernel.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(SharedEvents {
            fd,
            base: p.cast(),
            len,
            count,
        })
    }

    /// New slots for `count` events, all unsignaled.
    pub fn new(count: usize) -> std::io::Result<SharedEvents> {
        let len = count
            .checked_mul(SLOT_SIZE)
            .ok_or_else(|| std::io::Error::from_raw_os_error(libc::EOVERFLOW))?;
        let fd = crate::model::vm::memfd("zekit-events", len)?;
        Self::map(fd, count)
    }

    /// The slots of another pool, from its file (`count` events; the file must be that large).
    pub fn open(fd: OwnedFd, count: usize) -> std::io::Result<SharedEvents> {
        // SAFETY: an all-zero `stat` is a valid value to be overwritten.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a valid out-pointer; `fd` is ours.
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if (st.st_size as u64) < (count as u64).saturating_mul(SLOT_SIZE as u64) {
            return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
        }
        Self::map(fd, count)
    }

    /// The memfd (what the pool's IPC handle names).
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// Number of slots.
    pub fn count(&self) -> usize {
        self.count
    }

    fn slot(&self, index: usize) -> &Slot {
        assert!(index < self.count, "slot {index} of {}", self.count);
        // SAFETY: `index < count`, so the slot lies inside the mapping, which is aligned to the
        // page and lives as long as `self`; `Slot` is made of atomics (any bit pattern valid).
        unsafe { &*self.base.add(index * SLOT_SIZE).cast::<Slot>() }
    }

    /// Whether event `index` is signaled.
    pub fn is_signaled(&self, index: usize) -> bool {
        self.slot(index).signaled.load(Ordering::Acquire) != 0
    }

    /// Signals event `index`, recording `(start, end)` when `record`.
    pub fn signal(&self, index: usize, record: Option<(u64, u64)>) {
        let s = self.slot(index);
        if let Some((a, b)) = record {
            s.start.store(a, Ordering::Relaxed);
            s.end.store(b, Ordering::Relaxed);
        }
        s.signaled.store(1, Ordering::Release);
        // SAFETY: FUTEX_WAKE on a word of our mapping; wakes every waiter of any process.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                s.signaled.as_ptr(),
                libc::FUTEX_WAKE,
                i32::MAX,
            );
        }
    }

    /// Resets event `index` (and its timestamps).
    pub fn reset(&self, index: usize) {
        let s = self.slot(index);
        s.signaled.store(0, Ordering::Release);
        s.start.store(0, Ordering::Relaxed);
        s.end.store(0, Ordering::Relaxed);
    }

    /// `(start, end)` of event `index`.
    pub fn timestamps(&self, index: usize) -> (u64, u64) {
        let s = self.slot(index);
        (s.start.load(Ordering::Relaxed), s.end.load(Ordering::Relaxed))
    }

    /// Waits until event `index` is signaled; whether it was before `timeout`.
    pub fn wait(&self, index: usize, timeout: Timeout) -> bool {
        let s = self.slot(index);
        let done = || s.signaled.load(Ordering::Acquire) != 0;
        if done() {
            return true;
        }
        let start = Instant::now();
        let deadline = match timeout {
            Timeout::Poll => return false,
            Timeout::Forever => None,
            Timeout::After(d) => start.checked_add(d),
        };
        while start.elapsed() < SPIN {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        loop {
            if done() {
                return true;
            }
            let rel = match deadline {
                None => None,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return done();
                    }
                    Some(d - now)
                }
            };
            let ts = rel.map(|r| libc::timespec {
                tv_sec: r.as_secs().min(i64::MAX as u64) as libc::time_t,
                tv_nsec: r.subsec_nanos() as libc::c_long,
            });
            let ts_ptr = ts
                .as_ref()
                .map_or(std::ptr::null(), |t| t as *const libc::timespec);
            // SAFETY: FUTEX_WAIT on a word of our mapping, expecting 0 (not signaled); returns
            // at once if it changed, on a wake-up, a signal or the timeout.
            unsafe {
                libc::syscall(libc::SYS_futex, s.signaled.as_ptr(), libc::FUTEX_WAIT, 0, ts_ptr);
            }
        }
    }
}

impl Drop for SharedEvents {
    fn drop(&mut self) {
        // SAFETY: our own mapping, unmapped once.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// Bytes of a shared counter-based event's file.
pub const COUNTER_SIZE: usize = 64;

/// The state of an IPC counter-based event (`ZE_EVENT_COUNTER_BASED_FLAG_IPC`) in a `memfd` of
/// [`COUNTER_SIZE`] bytes, mapped `MAP_SHARED` by the event that made it and by every event
/// opened from its IPC handle, in this process or another. Layout (native endian): the target
/// (the value the last submitted signaling command takes) at 0, the value reached at 8, the
/// start and end timestamps of the command that reached it at 16 and 24, a 32-bit wake word at
/// 32. Signaling commands of every process take their values from the shared target; reaching
/// a value raises `reached` (never lowers it), adds 1 to the wake word and wakes its futex
/// waiters (a shared futex). A waiter reads the wake word, checks `reached`, then sleeps in
/// `futex(FUTEX_WAIT)` on the word with the value read.
#[derive(Debug)]
pub struct SharedCounter {
    fd: OwnedFd,
    base: *mut u8,
}

#[repr(C)]
struct CounterSlot {
    target: AtomicU64,
    reached: AtomicU64,
    start: AtomicU64,
    end: AtomicU64,
    wake: AtomicU32,
}

// SAFETY: the mapping is only accessed through atomics; the pointer is stable for the object's
// life.
unsafe impl Send for SharedCounter {}
// SAFETY: as above.
unsafe impl Sync for SharedCounter {}

impl SharedCounter {
    fn map(fd: OwnedFd) -> std::io::Result<SharedCounter> {
        // SAFETY: a new shared mapping chosen by the kernel.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                COUNTER_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(SharedCounter { fd, base: p.cast() })
    }

    /// A new counter (nothing submitted: complete).
    pub fn new() -> std::io::Result<SharedCounter> {
        Self::map(crate::model::vm::memfd("zekit-counter-event", COUNTER_SIZE)?)
    }

    /// The counter of another event, from its file (at least [`COUNTER_SIZE`] bytes).
    pub fn open(fd: OwnedFd) -> std::io::Result<SharedCounter> {
        // SAFETY: an all-zero `stat` is a valid value to be overwritten.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a valid out-pointer; `fd` is ours.
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if (st.st_size as u64) < COUNTER_SIZE as u64 {
            return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
        }
        Self::map(fd)
    }

    /// The memfd (what the event's IPC handle names).
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    fn slot(&self) -> &CounterSlot {
        // SAFETY: the mapping holds COUNTER_SIZE bytes, is page-aligned and lives as long as
        // `self`; `CounterSlot` is made of atomics (any bit pattern valid).
        unsafe { &*self.base.cast::<CounterSlot>() }
    }

    /// A signaling command is submitted: the value it will reach.
    pub fn arm(&self) -> u64 {
        self.slot().target.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// The value the last submitted signaling command will reach.
    pub fn target(&self) -> u64 {
        self.slot().target.load(Ordering::Acquire)
    }

    /// The highest value reached.
    pub fn reached(&self) -> u64 {
        self.slot().reached.load(Ordering::Acquire)
    }

    /// The command that took `value` ran from `start` to `end` (recorded when `record`).
    pub fn reach(&self, value: u64, record: Option<(u64, u64)>) {
        let s = self.slot();
        if let Some((a, b)) = record {
            s.start.store(a, Ordering::Relaxed);
            s.end.store(b, Ordering::Relaxed);
        }
        s.reached.fetch_max(value, Ordering::AcqRel);
        s.wake.fetch_add(1, Ordering::AcqRel);
        // SAFETY: FUTEX_WAKE on a word of our mapping; wakes every waiter of any process.
        unsafe {
            libc::syscall(libc::SYS_futex, s.wake.as_ptr(), libc::FUTEX_WAKE, i32::MAX);
        }
    }

    /// `(start, end)` of the command that reached the counter last.
    pub fn timestamps(&self) -> (u64, u64) {
        let s = self.slot();
        (s.start.load(Ordering::Relaxed), s.end.load(Ordering::Relaxed))
    }

    /// Waits until `done()` (a condition on this counter); whether it held before `timeout`.
    pub fn wait(&self, timeout: Timeout, done: impl Fn() -> bool) -> bool {
        let s = self.slot();
        if done() {
            return true;
        }
        let start = Instant::now();
        let deadline = match timeout {
            Timeout::Poll => return false,
            Timeout::Forever => None,
            Timeout::After(d) => start.checked_add(d),
        };
        while start.elapsed() < SPIN {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        loop {
            let seen = s.wake.load(Ordering::Acquire);
            if done() {
                return true;
            }
            let rel = match deadline {
                None => None,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return done();
                    }
                    Some(d - now)
                }
            };
            let ts = rel.map(|r| libc::timespec {
                tv_sec: r.as_secs().min(i64::MAX as u64) as libc::time_t,
                tv_nsec: r.subsec_nanos() as libc::c_long,
            });
            let ts_ptr = ts
                .as_ref()
                .map_or(std::ptr::null(), |t| t as *const libc::timespec);
            // SAFETY: FUTEX_WAIT on a word of our mapping, expecting the value read before the
            // check; returns at once if it changed, on a wake-up, a signal or the timeout.
            unsafe {
                libc::syscall(libc::SYS_futex, s.wake.as_ptr(), libc::FUTEX_WAIT, seen, ts_ptr);
            }
        }
    }
}

impl Drop for SharedCounter {
    fn drop(&mut self) {
        // SAFETY: our own mapping, unmapped once.
        unsafe { libc::munmap(self.base.cast(), COUNTER_SIZE) };
    }
}
