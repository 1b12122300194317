//! What executing work costs on the CPU driver, measured side by side in one run, in process
//! through the generated C entry points (`zekit_icd::entry`):
//!
//! 1. a 256 MiB device-to-device copy on an immediate list (appended, then
//!    `zeCommandListHostSynchronize`) against `memcpy` of the same buffers on the calling thread;
//! 2. the round trip of a 64-byte copy on an asynchronous immediate list and its host
//!    synchronize, back to back and after the queue's thread parked (and on a synchronous
//!    immediate list, for comparison);
//! 3. an empty regular list executed on a queue with a fence, and the fence's host synchronize;
//! 4. the 64-byte round trip against PoCL's (`clEnqueueCopyBuffer` + `clFinish`, Debian's
//!    `pocl-opencl-icd` through the OpenCL ICD loader; `cargo xtask bench` installs it), in
//!    alternating rounds. Without PoCL the bench says so and skips the ratio.
//!
//! Rounds alternate the variants; medians are printed (of rounds for the large copy, of single
//! calls for the round trips). `cargo bench -p zekit-cpu`;
//! `ZEKIT_BENCH_ROUNDS` sets the rounds of (1) (default 9), `ZEKIT_BENCH_TRIPS` the round
//! trips of (2) and (3) per round (default 2000).

// The driver's library (`zekit-cpu`), under the name these files use.
extern crate zekit_cpu as zekit_driver_core;

#[path = "support/opencl.rs"]
mod opencl;
#[path = "support/ze.rs"]
mod support;

use support::{env_usize, median, ok, setup};

use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::Instant;

use zekit_icd::entry as ze;
use zekit_sys::*;

const BIG: usize = 256 << 20;
const SMALL: usize = 64;

/// Appends a copy and waits for it; seconds.
fn copy_and_wait(l: ze_command_list_handle_t, dst: *mut c_void, src: *mut c_void, size: usize) -> f64 {
    let t = Instant::now();
    // SAFETY: valid list and buffers of `size` bytes.
    unsafe {
        ok("append", ze::zeCommandListAppendMemoryCopy(l, dst, src, size, null_mut(), 0, null_mut()));
        ok("host synchronize", ze::zeCommandListHostSynchronize(l, u64::MAX));
    }
    t.elapsed().as_secs_f64()
}

fn memcpy(dst: *mut c_void, src: *mut c_void, size: usize) -> f64 {
    let t = Instant::now();
    // SAFETY: two distinct buffers of `size` bytes.
    unsafe { std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), size) };
    std::hint::black_box(dst);
    t.elapsed().as_secs_f64()
}

fn main() {
    let rounds = env_usize("ZEKIT_BENCH_ROUNDS", 9).max(1);
    let trips = env_usize("ZEKIT_BENCH_TRIPS", 2000).max(1);
    let d = setup();
    let cores = zekit_driver_core::host::host().usable_cores;
    println!("zekit CPU driver, {cores} usable cores; medians of {rounds} interleaved rounds");

    // (1) 256 MiB device to device.
    let a = d.device_mem(BIG);
    let b = d.device_mem(BIG);
    // SAFETY: both buffers hold BIG bytes; touching them maps their pages before timing.
    unsafe {
        std::ptr::write_bytes(a.cast::<u8>(), 0x5a, BIG);
        std::ptr::write_bytes(b.cast::<u8>(), 0xa5, BIG);
    }
    let imm = d.immediate(ze_command_queue_mode_t::ASYNCHRONOUS);
    copy_and_wait(imm, b, a, BIG);
    memcpy(b, a, BIG);
    let (mut driver, mut plain) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        if r % 2 == 0 {
            driver.push(copy_and_wait(imm, b, a, BIG));
            plain.push(memcpy(b, a, BIG));
        } else {
            plain.push(memcpy(b, a, BIG));
            driver.push(copy_and_wait(imm, b, a, BIG));
        }
    }
    let (driver, plain) = (median(&mut driver), median(&mut plain));
    let gbs = |s: f64| BIG as f64 / s / 1e9;
    println!("256 MiB device-to-device copy:");
    println!("  immediate list + host synchronize: {:8.2} ms  {:6.2} GB/s", driver * 1e3, gbs(driver));
    println!("  memcpy, same buffers             : {:8.2} ms  {:6.2} GB/s", plain * 1e3, gbs(plain));
    println!("  memcpy time / driver time        : {:8.2}x", plain / driver);

    // (2) 64-byte round trips.
    let sync = d.immediate(ze_command_queue_mode_t::SYNCHRONOUS);
    // Median of single trips: robust to the machine's other load preempting a thread.
    let trip = |l: ze_command_list_handle_t| {
        let mut times: Vec<f64> = (0..trips).map(|_| copy_and_wait(l, b, a, SMALL) * 1e6).collect();
        median(&mut times)
    };
    trip(imm);
    trip(sync);
    let (mut asynchronous, mut synchronous) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        asynchronous.push(trip(imm));
        synchronous.push(trip(sync));
    }
    let (asynchronous, synchronous) = (median(&mut asynchronous), median(&mut synchronous));
    // The same after the queue's thread parked (past its spin): a wake-up per trip.
    let cold = |l: ze_command_list_handle_t| {
        let mut times: Vec<f64> = (0..200)
            .map(|_| {
                std::thread::sleep(std::time::Duration::from_micros(300));
                copy_and_wait(l, b, a, SMALL) * 1e6
            })
            .collect();
        median(&mut times)
    };
    let parked = cold(imm);
    println!("64-byte copy + zeCommandListHostSynchronize round trip:");
    println!("  asynchronous immediate list: {asynchronous:8.2} us (back to back)");
    println!("  synchronous immediate list : {synchronous:8.2} us");
    println!("  asynchronous / synchronous : {:8.2}x", asynchronous / synchronous);
    println!("  asynchronous, queue thread parked before each: {parked:8.2} us");

    // (4) The same round trip on PoCL, in alternating rounds.
    match opencl::Cl::open(opencl::Vendor::Pocl, SMALL) {
        Ok(cl) => {
            let cl_trip = || {
                let mut times: Vec<f64> = (0..trips)
                    .map(|_| {
                        let t = Instant::now();
                        cl.copy_and_finish(SMALL);
                        t.elapsed().as_secs_f64() * 1e6
                    })
                    .collect();
                median(&mut times)
            };
            cl_trip();
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for r in 0..rounds {
                if r % 2 == 0 {
                    ours.push(trip(imm));
                    theirs.push(cl_trip());
                } else {
                    theirs.push(cl_trip());
                    ours.push(trip(imm));
                }
            }
            let (ours, theirs) = (median(&mut ours), median(&mut theirs));
            println!("64-byte copy round trip against PoCL (same run, alternating rounds):");
            println!("  zekit: append + zeCommandListHostSynchronize: {ours:8.2} us");
            println!("  PoCL : clEnqueueCopyBuffer + clFinish       : {theirs:8.2} us");
            println!("  zekit time / PoCL time                      : {:8.3} (goal: <= 0.1)", ours / theirs);
        }
        Err(e) => println!("PoCL not available ({e}): run `cargo xtask bench`, which installs it"),
    }

    // (3) Empty regular list + fence.
    let mut q = null_mut();
    let mut list = null_mut();
    let mut fence = null_mut();
    // SAFETY: valid arguments throughout.
    unsafe {
        ok("queue", ze::zeCommandQueueCreate(d.ctx, d.dev, &ze_command_queue_desc_t::default(), &mut q));
        ok("list", ze::zeCommandListCreate(d.ctx, d.dev, &ze_command_list_desc_t::default(), &mut list));
        ok("close", ze::zeCommandListClose(list));
        ok("fence", ze::zeFenceCreate(q, &ze_fence_desc_t::default(), &mut fence));
    }
    let execute = || {
        let mut times: Vec<f64> = (0..trips)
            .map(|_| {
                let t = Instant::now();
                let mut lists = [list];
                // SAFETY: valid queue, closed list and fence of the queue.
                unsafe {
                    ok("execute", ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), fence));
                    ok("fence synchronize", ze::zeFenceHostSynchronize(fence, u64::MAX));
                }
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        median(&mut times)
    };
    execute();
    let mut empty: Vec<f64> = (0..rounds).map(|_| execute()).collect();
    println!("empty regular list: zeCommandQueueExecuteCommandLists + zeFenceHostSynchronize:");
    println!("  {:8.2} us", median(&mut empty));

    // SAFETY: handles made above, idle.
    unsafe {
        ze::zeFenceDestroy(fence);
        ze::zeCommandListDestroy(list);
        ze::zeCommandQueueDestroy(q);
        ze::zeCommandListDestroy(imm);
        ze::zeCommandListDestroy(sync);
        ze::zeMemFree(d.ctx, a);
        ze::zeMemFree(d.ctx, b);
        ze::zeContextDestroy(d.ctx);
    }
}
