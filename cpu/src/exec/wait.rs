//! Waiting for a condition another thread makes true: a short spin, then the thread parks on a
//! `Mutex` + `Condvar` until it is notified or its timeout expires.
//!
//! A [`Waiter`] does not hold the condition; it only parks and wakes threads. The thread that
//! makes a condition true stores it first (atomics), then calls [`Waiter::notify`], which takes
//! the lock only when someone is parked. The waiting side registers itself under the lock and
//! re-checks the condition before parking, so a notification is never lost.

use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a waiter spins (checking the condition) before it parks.
pub const SPIN: Duration = Duration::from_micros(20);

/// A wait's limit, decoded from a Level Zero `timeout` in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeout {
    /// `0`: check once, never block.
    Poll,
    /// `UINT64_MAX`: wait until the condition holds.
    Forever,
    /// Any other value: at most this long.
    After(Duration),
}

impl Timeout {
    /// The Level Zero convention: `0` polls, `UINT64_MAX` waits forever, anything else is
    /// nanoseconds.
    pub const fn from_ns(ns: u64) -> Timeout {
        match ns {
            0 => Timeout::Poll,
            u64::MAX => Timeout::Forever,
            n => Timeout::After(Duration::from_nanos(n)),
        }
    }

    fn deadline(self, start: Instant) -> Option<Instant> {
        match self {
            Timeout::Poll => Some(start),
            Timeout::Forever => None,
            // A deadline too far to represent is forever.
            Timeout::After(d) => start.checked_add(d),
        }
    }
}

/// Parks threads until a condition holds (see the module docs).
#[derive(Debug, Default)]
pub struct Waiter {
    parked: AtomicUsize,
    lock: Mutex<()>,
    cv: Condvar,
}

impl Waiter {
    /// A waiter nobody waits on.
    pub const fn new() -> Waiter {
        Waiter {
            parked: AtomicUsize::new(0),
            lock: Mutex::new(()),
            cv: Condvar::new(),
        }
    }

    /// Waits until `done()` is true or `timeout` expires; returns whether `done()` held.
    /// `done` must only read state that is changed before a [`Waiter::notify`] of this waiter.
    pub fn wait_until(&self, timeout: Timeout, mut done: impl FnMut() -> bool) -> bool {
        if done() {
            return true;
        }
        if timeout == Timeout::Poll {
            return false;
        }
        let start = Instant::now();
        let deadline = timeout.deadline(start);
        let spin_end = start + SPIN;
        let mut i = 0u32;
        loop {
            std::hint::spin_loop();
            if done() {
                return true;
            }
            i = i.wrapping_add(1);
            if i.is_multiple_of(64) {
                let now = Instant::now();
                if deadline.is_some_and(|d| now >= d) {
                    return done();
                }
                if now >= spin_end {
                    break;
                }
                // Let another thread of this core run (the machine may have fewer cores than
                // busy threads).
                std::thread::yield_now();
            }
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.parked.fetch_add(1, Ordering::SeqCst);
        // Pairs with the fence in `notify`: either this check sees the new state, or the
        // notifier sees `parked > 0` and wakes us after we park.
        fence(Ordering::SeqCst);
        let reached = loop {
            if done() {
                break true;
            }
            match deadline {
                None => guard = self.cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        break done();
                    }
                    guard = self
                        .cv
                        .wait_timeout(guard, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        };
        self.parked.fetch_sub(1, Ordering::SeqCst);
        reached
    }

    /// Wakes every parked waiter. Call it after making the condition true.
    pub fn notify(&self) {
        fence(Ordering::SeqCst);
        if self.parked.load(Ordering::SeqCst) > 0 {
            // Taking the lock orders this wake-up after a waiter that is between its check
            // and its park.
            drop(self.lock.lock().unwrap_or_else(|e| e.into_inner()));
            self.cv.notify_all();
        }
    }
}

/// A boolean that threads can wait for: fences, and the state of regular events.
#[derive(Debug, Default)]
pub struct Flag {
    set: AtomicBool,
    waiter: Waiter,
}

impl Flag {
    /// A flag, set or not.
    pub const fn new(set: bool) -> Flag {
        Flag {
            set: AtomicBool::new(set),
            waiter: Waiter::new(),
        }
    }

    /// Whether the flag is set.
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Sets the flag and wakes its waiters.
    pub fn set(&self) {
        self.set.store(true, Ordering::Release);
        self.waiter.notify();
    }

    /// Clears the flag.
    pub fn clear(&self) {
        self.set.store(false, Ordering::Release);
    }

    /// Waits until the flag is set; whether it was before `timeout` expired.
    pub fn wait(&self, timeout: Timeout) -> bool {
        self.waiter.wait_until(timeout, || self.is_set())
    }

    /// Waits until the flag is set or `also()` holds (made true before a [`Flag::wake`]).
    pub fn wait_or(&self, also: impl Fn() -> bool) {
        self.waiter.wait_until(Timeout::Forever, || self.is_set() || also());
    }

    /// Wakes the flag's waiters without setting it (they re-check their conditions).
    pub fn wake(&self) {
        self.waiter.notify();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn timeouts() {
        assert_eq!(Timeout::from_ns(0), Timeout::Poll);
        assert_eq!(Timeout::from_ns(u64::MAX), Timeout::Forever);
        assert_eq!(
            Timeout::from_ns(5),
            Timeout::After(Duration::from_nanos(5))
        );
        let f = Flag::new(false);
        assert!(!f.wait(Timeout::Poll));
        assert!(!f.wait(Timeout::from_ns(1_000_000)));
        f.set();
        assert!(f.wait(Timeout::Poll));
        assert!(f.wait(Timeout::Forever));
    }

    #[test]
    fn wakes_a_parked_thread() {
        for _ in 0..200 {
            let f = Arc::new(Flag::new(false));
            let g = f.clone();
            let t = std::thread::spawn(move || g.wait(Timeout::Forever));
            std::thread::sleep(Duration::from_micros(50));
            f.set();
            assert!(t.join().unwrap());
        }
    }
}
