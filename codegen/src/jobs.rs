//! Running the emitters on every core.
//!
//! `cargo xtask gen` spends most of its time turning token streams into text (syn parses,
//! prettyplease prints). Each generated file, or group of files, is a [`Job`]; [`run`] hands
//! the jobs to one worker per core, the most expensive first, so that no core idles while a
//! large file is still waiting. Token streams are not `Send`: a job builds its tokens in the
//! worker that renders them.
//!
//! A job may need what other jobs found (zekit-sys's layouts need every struct): it is made
//! [`Job::gathering`] the other jobs of its group, which hand their data over through a
//! [`Gather`]; it starts once all of them are done, and meanwhile the workers run other jobs.
//!
//! [`par_map`] maps a slice on every core (loading the spec's files).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use proc_macro2::TokenStream;

/// What a job produces for one file.
pub enum Output {
    /// Final text.
    Text(String),
    /// Rust tokens, formatted by [`crate::emit_rust::render`].
    Rust(TokenStream),
}

type Build<'a> = Box<dyn FnOnce() -> Result<Vec<(String, Output)>, String> + Send + 'a>;

/// Generated files: (path, text).
pub type Files = Vec<(String, String)>;

/// Some generated files: (path, output) pairs, made in one go.
pub struct Job<'a> {
    /// Names the job in errors and timings.
    pub name: String,
    /// Rough cost, relative to the other jobs (about a millisecond per unit on the full
    /// spec, including the cost of a job that gathers from this one): it only decides the
    /// order in which jobs start.
    pub cost: u32,
    /// The jobs of a group (`""`: none) may feed one gathering job.
    pub group: &'static str,
    /// Needs data from the other jobs of its group: starts when they are done.
    pub gathers: bool,
    build: Build<'a>,
}

impl<'a> Job<'a> {
    /// A job making any number of files.
    pub fn new(
        name: impl Into<String>,
        cost: u32,
        build: impl FnOnce() -> Result<Vec<(String, Output)>, String> + Send + 'a,
    ) -> Self {
        Job { name: name.into(), cost, group: "", gathers: false, build: Box::new(build) }
    }

    /// Puts the job in `group`.
    pub fn in_group(mut self, group: &'static str) -> Self {
        self.group = group;
        self
    }

    /// Makes the job need data from the other jobs of `group`: it starts when they are done.
    pub fn gathering(mut self, group: &'static str) -> Self {
        self.group = group;
        self.gathers = true;
        self
    }

    /// A job making one Rust file at `path` from the tokens `build` returns.
    pub fn rust(path: &str, cost: u32, build: impl FnOnce() -> TokenStream + Send + 'a) -> Self {
        let p = path.to_string();
        Job::new(path, cost, move || Ok(vec![(p, Output::Rust(build()))]))
    }

    /// A job making text files.
    pub fn text(
        name: impl Into<String>,
        cost: u32,
        build: impl FnOnce() -> Result<Files, String> + Send + 'a,
    ) -> Self {
        Job::new(name, cost, move || Ok(build()?.into_iter().map(|(p, t)| (p, Output::Text(t))).collect()))
    }

    /// The job's outputs, unformatted (tests compare renderings).
    pub fn build(self) -> Result<Vec<(String, Output)>, String> {
        (self.build)()
    }

    /// Builds and renders: (path, text) pairs.
    fn run(self) -> Result<Files, String> {
        self.build()?
            .into_iter()
            .map(|(path, out)| match out {
                Output::Text(t) => Ok((path, t)),
                Output::Rust(tokens) => crate::emit_rust::render(&path, tokens).map(|t| (path, t)),
            })
            .collect()
    }
}

/// How long one job took, and on which worker (0 is the calling thread).
#[derive(Debug, Clone)]
pub struct Timing {
    pub name: String,
    pub worker: usize,
    pub time: Duration,
}

/// The order in which jobs are considered: the most expensive first, except that a gathering
/// job comes right after the last of the other jobs of its group.
fn schedule(jobs: &[Job<'_>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..jobs.len()).filter(|&i| !jobs[i].gathers).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].cost));
    for g in (0..jobs.len()).filter(|&i| jobs[i].gathers) {
        let at = order.iter().rposition(|&i| jobs[i].group == jobs[g].group).map_or(0, |p| p + 1);
        order.insert(at, g);
    }
    order
}

/// Data that the jobs of a group hand to their gathering jobs: one slot per job.
pub struct Gather<T> {
    slots: Mutex<Vec<Option<T>>>,
}

impl<T> Gather<T> {
    /// Room for `n` jobs' data.
    pub fn new(n: usize) -> Arc<Self> {
        Arc::new(Gather { slots: Mutex::new((0..n).map(|_| None).collect()) })
    }

    /// Fills slot `i`.
    pub fn put(&self, i: usize, v: T) {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(v);
    }

    /// Every slot's data, in slot order; `None` if a job left its slot empty (it failed).
    pub fn get(&self) -> Option<Vec<T>>
    where
        T: Clone,
    {
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
    }
}

/// `f` of every item, in item order, computed on every core.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get()).min(items.len()).max(1);
    let next = AtomicUsize::new(0);
    let out: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        *out[i].lock().unwrap() = Some(r);
    };
    std::thread::scope(|s| {
        for _ in 1..workers {
            s.spawn(work);
        }
        work();
    });
    out.into_iter().map(|r| r.into_inner().unwrap().expect("every item is mapped")).collect()
}

/// Runs every job; returns their files in job order (the order does not depend on the
/// schedule), or the first error in job order. A panicking job is an error naming it.
pub fn run(jobs: Vec<Job<'_>>) -> Result<Files, String> {
    run_timed(jobs).0
}

/// [`run`], and how long each job took.
pub fn run_timed(jobs: Vec<Job<'_>>) -> (Result<Files, String>, Vec<Timing>) {
    let n = jobs.len();
    let order = schedule(&jobs);
    // A gathering job is ready once the other jobs of its group are done.
    let waits_for: Vec<Vec<usize>> = (0..n)
        .map(|g| match jobs[g].gathers {
            true => (0..n).filter(|&i| i != g && !jobs[i].gathers && jobs[i].group == jobs[g].group).collect(),
            false => vec![],
        })
        .collect();
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get()).min(n).max(1);
    let slots: Vec<Mutex<Option<Job>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let results: Vec<Mutex<Option<Result<Files, String>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let timings = Mutex::new(vec![]);
    // (taken, done) per job.
    let state = Mutex::new((vec![false; n], vec![false; n]));
    let changed = Condvar::new();
    let work = |worker: usize| loop {
        let i = {
            let mut st = state.lock().unwrap();
            loop {
                let (taken, done) = &mut *st;
                if let Some(&i) = order.iter().find(|&&i| !taken[i] && waits_for[i].iter().all(|&w| done[w])) {
                    taken[i] = true;
                    break Some(i);
                }
                if taken.iter().all(|&t| t) {
                    break None;
                }
                st = changed.wait(st).unwrap();
            }
        };
        let Some(i) = i else { break };
        let job = slots[i].lock().unwrap().take().expect("each job is taken once");
        let name = job.name.clone();
        let t0 = Instant::now();
        let res = catch_unwind(AssertUnwindSafe(|| job.run())).unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("{name}: the emitter panicked: {msg}"))
        });
        timings.lock().unwrap().push(Timing { name, worker, time: t0.elapsed() });
        *results[i].lock().unwrap() = Some(res);
        state.lock().unwrap().1[i] = true;
        changed.notify_all();
    };
    std::thread::scope(|s| {
        for w in 1..workers {
            let work = &work;
            s.spawn(move || work(w));
        }
        work(0);
    });
    let mut files = vec![];
    for r in results {
        match r.into_inner().unwrap() {
            Some(Ok(f)) => files.extend(f),
            Some(Err(e)) => return (Err(e), timings.into_inner().unwrap()),
            None => unreachable!("every job runs"),
        }
    }
    (Ok(files), timings.into_inner().unwrap())
}
