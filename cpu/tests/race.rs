//! Destroys racing calls on other threads. A handle resolves to a reference-counted object
//! for the duration of each call, and `zeContextDestroy` (a `[release]` function) only takes
//! the handle out of the registry, so a call that already holds the context finishes on it,
//! and a call that comes after the destroy gets `ZE_RESULT_ERROR_INVALID_ARGUMENT`: never a
//! crash, never freed memory read or written.
//!
//! `ZEKIT_RACE_ITERATIONS` sets how many contexts are made and destroyed (100,000 by default).
//! `race_is_clean_under_valgrind` runs the race again in a child process under valgrind
//! (memcheck), which fails on any invalid read or write.

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::Arc;

use zekit_icd::entry;
use zekit_sys::*;

const WORKERS: usize = 2;

fn iterations() -> u64 {
    std::env::var("ZEKIT_RACE_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000)
}

/// Outcomes seen by the workers: (successes, INVALID_ARGUMENT answers).
fn race(iterations: u64) -> (u64, u64) {
    zekit_icd::install(zekit_driver_core::api::dispatch());
    zekit_icd_rt::set_logging(false);
    // SAFETY: valid pointers for every call; handles come from the driver.
    let drv = unsafe {
        assert_eq!(entry::zeInit(ze_init_flags_t(0)), ZE_RESULT_SUCCESS);
        let mut n = 1u32;
        let mut drv: ze_driver_handle_t = null_mut();
        assert_eq!(entry::zeDriverGet(&mut n, &mut drv), ZE_RESULT_SUCCESS);
        drv
    };
    let current = Arc::new(AtomicPtr::<c_void>::new(null_mut()));
    // `generation` counts published contexts; `taken` is the last one a worker started a call on.
    let generation = Arc::new(AtomicU64::new(0));
    let taken = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let ok = Arc::new(AtomicU64::new(0));
    let rejected = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (current, stop, ok, rejected) = (current.clone(), stop.clone(), ok.clone(), rejected.clone());
            let (generation, taken) = (generation.clone(), taken.clone());
            std::thread::spawn(move || {
                let count = |r: ze_result_t| match r {
                    ZE_RESULT_SUCCESS => ok.fetch_add(1, Ordering::Relaxed),
                    ZE_RESULT_ERROR_INVALID_ARGUMENT => rejected.fetch_add(1, Ordering::Relaxed),
                    other => panic!("unexpected {other:?}"),
                };
                let mut seen = 0;
                while !stop.load(Ordering::Acquire) {
                    // One call per new context, racing its destroy; yield while there is none
                    // (under valgrind, threads take turns).
                    let g = generation.load(Ordering::Acquire);
                    if g == seen {
                        std::thread::yield_now();
                        continue;
                    }
                    seen = g;
                    let ctx = current.load(Ordering::Acquire);
                    taken.fetch_max(g, Ordering::AcqRel);
                    // SAFETY: the context may be destroyed at any moment: that is the test. The
                    // entry points check it; the pointers passed are valid.
                    unsafe {
                        if w % 2 == 0 {
                            count(entry::zeContextGetStatus(ctx.cast()));
                        } else {
                            let desc = ze_host_mem_alloc_desc_t::default();
                            let mut p: *mut c_void = null_mut();
                            let r = entry::zeMemAllocHost(ctx.cast(), &desc, 64, 0, &mut p);
                            count(r);
                            if r == ZE_RESULT_SUCCESS {
                                // (Touching `p` here would be the application's bug: the
                                // context, and with it `p`, may be gone already.)
                                count(entry::zeMemFree(ctx.cast(), p));
                            }
                        }
                    }
                }
            })
        })
        .collect();
    for _ in 0..iterations {
        let desc = ze_context_desc_t::default();
        let mut ctx: ze_context_handle_t = null_mut();
        // SAFETY: valid driver handle, descriptor and output pointer.
        unsafe {
            assert_eq!(entry::zeContextCreate(drv, &desc, &mut ctx), ZE_RESULT_SUCCESS);
        }
        current.store(ctx.cast(), Ordering::Release);
        let g = generation.fetch_add(1, Ordering::AcqRel) + 1;
        // Destroy as soon as a worker has started its call on this context (or soon anyway).
        for _ in 0..1000 {
            if taken.load(Ordering::Acquire) >= g {
                break;
            }
            std::thread::yield_now();
        }
        // SAFETY: the handle is live here; only this thread destroys it.
        unsafe {
            assert_eq!(entry::zeContextDestroy(ctx), ZE_RESULT_SUCCESS);
            // A second destroy, and any use from now on, is refused.
            assert_eq!(entry::zeContextDestroy(ctx), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
    }
    stop.store(true, Ordering::Release);
    for w in workers {
        w.join().expect("a worker panicked");
    }
    (ok.load(Ordering::Relaxed), rejected.load(Ordering::Relaxed))
}

#[test]
fn destroys_race_calls_without_harm() {
    let n = iterations();
    let (ok, rejected) = race(n);
    println!("{n} contexts destroyed under {WORKERS} threads: {ok} calls succeeded, {rejected} refused");
    assert!(ok + rejected > 0, "the workers made no calls");
}

#[test]
fn race_is_clean_under_valgrind() {
    if std::env::var_os("ZEKIT_UNDER_VALGRIND").is_some() {
        return; // the child itself
    }
    // `cargo xtask test` names the valgrind to use (installed, or unpacked into target/).
    let valgrind = std::env::var("ZEKIT_VALGRIND").unwrap_or_else(|_| "valgrind".into());
    let have = std::process::Command::new(&valgrind).arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(have, "valgrind is missing: run `cargo xtask test` (it fetches it into target/) or apt-get install valgrind");
    let iterations = std::env::var("ZEKIT_VALGRIND_RACE_ITERATIONS").unwrap_or_else(|_| "100000".into());
    let out = std::process::Command::new(&valgrind)
        .args(["--error-exitcode=99", "--quiet", "--fair-sched=yes"])
        .arg(std::env::current_exe().expect("test binary"))
        .args(["destroys_race_calls_without_harm", "--exact", "--nocapture", "--test-threads=1"])
        .env("ZEKIT_UNDER_VALGRIND", "1")
        .env("ZEKIT_RACE_ITERATIONS", &iterations)
        .output()
        .expect("run valgrind");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}\n{stderr}");
    assert!(out.status.success(), "valgrind found errors or the race failed ({}):\n{stderr}", out.status);
    assert!(stdout.contains("contexts destroyed"), "{stdout}");
    assert!(!stderr.contains("Invalid read") && !stderr.contains("Invalid write"), "{stderr}");
}
