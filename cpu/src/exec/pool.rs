//! The worker pool: one set of threads, sized to the device's cores, that runs the parallel
//! part of commands (large copies and fills now, kernels later).
//!
//! [`WorkerPool::run`] splits a job into `n` numbered pieces. The calling thread (a queue's
//! thread, or the application's for synchronous queues) takes pieces too, so a job always makes
//! progress even when every worker is busy with another queue's job; it returns once every
//! piece has run. Jobs of several queues share the workers first come, first served.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::fault::{guarded, Fault};
use super::wait::{Timeout, Waiter};

/// The body of a job, called with each piece number.
type Body<'a> = dyn Fn(usize) + Sync + 'a;

struct Job {
    /// The body, with its lifetime erased: valid until `done == n` (see [`WorkerPool::run`]).
    body: *const Body<'static>,
    n: usize,
    next: AtomicUsize,
    done: AtomicUsize,
    panicked: AtomicBool,
    /// The first fault of a piece (the others run on: each piece is whole or faulted).
    fault: Mutex<Option<Fault>>,
    finished: Waiter,
}

// SAFETY: `body` points to a `Sync` closure that outlives every call made through it (the
// submitting thread waits for all pieces before it returns); the other fields are thread-safe.
unsafe impl Send for Job {}
// SAFETY: as above.
unsafe impl Sync for Job {}

impl Job {
    /// Claims and runs pieces until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.n {
                return;
            }
            // SAFETY: a piece below `n` was claimed, so the submitter is still waiting in `run`
            // and the body is alive.
            let body = unsafe { &*self.body };
            match catch_unwind(AssertUnwindSafe(|| guarded(|| body(i)))) {
                Ok(Ok(())) => {}
                Ok(Err(f)) => {
                    self.fault.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(f);
                }
                Err(_) => self.panicked.store(true, Ordering::Relaxed),
            }
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
                self.finished.notify();
            }
        }
    }

    fn exhausted(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.n
    }
}

struct Shared {
    jobs: Mutex<VecDeque<Arc<Job>>>,
    queued: AtomicUsize,
    wake: Waiter,
}

/// Threads that run the pieces of parallel jobs.
pub struct WorkerPool {
    shared: Arc<Shared>,
    threads: usize,
}

impl std::fmt::Debug for WorkerPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WorkerPool({} threads)", self.threads)
    }
}

impl WorkerPool {
    /// A pool of `threads` workers (at least one), started now. Its threads live as long as
    /// the process: the pool is made once per driver.
    pub fn new(threads: usize) -> WorkerPool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            jobs: Mutex::new(VecDeque::new()),
            queued: AtomicUsize::new(0),
            wake: Waiter::new(),
        });
        for i in 0..threads {
            let s = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("zekit-worker-{i}"))
                .spawn(move || worker(&s));
            // Without workers the submitting threads still run every piece themselves.
            drop(spawned);
        }
        WorkerPool { shared, threads }
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `body(0..n)`, spread over the workers and the calling thread; returns when every
    /// piece has run. A panicking piece is caught; `run` then panics once all pieces are done.
    /// Each piece runs with a recovery point (`super::fault`): a piece that faults ends there,
    /// and `run` returns the first fault once all pieces are done.
    pub fn run(&self, n: usize, body: &(dyn Fn(usize) + Sync)) -> Result<(), Fault> {
        if n <= 1 {
            return (0..n).try_for_each(|i| guarded(|| body(i)));
        }
        // SAFETY: only the lifetime is erased; `run` does not return before every claimed
        // piece finished (`done == n`), and no piece is claimed after `next` reached `n`.
        let body: *const Body<'static> = unsafe { std::mem::transmute(body as *const Body<'_>) };
        let job = Arc::new(Job {
            body,
            n,
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            fault: Mutex::new(None),
            finished: Waiter::new(),
        });
        {
            let mut jobs = self.shared.jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.push_back(job.clone());
            self.shared.queued.fetch_add(1, Ordering::SeqCst);
        }
        self.shared.wake.notify();
        job.work();
        job.finished
            .wait_until(Timeout::Forever, || job.done.load(Ordering::Acquire) == n);
        // Take the job out if no worker did.
        let mut jobs = self.shared.jobs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pos) = jobs.iter().position(|j| Arc::ptr_eq(j, &job)) {
            jobs.remove(pos);
            self.shared.queued.fetch_sub(1, Ordering::SeqCst);
        }
        drop(jobs);
        if job.panicked.load(Ordering::Relaxed) {
            panic!("a piece of a parallel job panicked");
        }
        let fault = job.fault.lock().unwrap_or_else(|e| e.into_inner()).take();
        fault.map_or(Ok(()), Err)
    }
}

fn worker(s: &Shared) {
    super::pin_library();
    loop {
        s.wake
            .wait_until(Timeout::Forever, || s.queued.load(Ordering::SeqCst) > 0);
        let job = {
            let mut jobs = s.jobs.lock().unwrap_or_else(|e| e.into_inner());
            // Drop jobs whose pieces are all claimed: their submitters finish them.
            while jobs.front().is_some_and(|j| j.exhausted()) {
                jobs.pop_front();
                s.queued.fetch_sub(1, Ordering::SeqCst);
            }
            jobs.front().cloned()
        };
        if let Some(job) = job {
            job.work();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_runs_once() {
        let pool = Arc::new(WorkerPool::new(3));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    for n in [0, 1, 2, 7, 100] {
                        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                        pool.run(n, &|i| {
                            hits[i].fetch_add(1, Ordering::Relaxed);
                        })
                        .unwrap();
                        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
