//! What zekit's generated parameter validation costs on a real entry point.
//!
//! Installs the mock WITHOUT hooks (no call log, no script: its plain default behaviour) and
//! times `zekit_icd::entry::zeCommandListAppendMemoryCopy` (64 bytes, host → device memory,
//! appended to a regular command list that is reset every 1024 appends, untimed) with
//! validation on and with `zekit_icd_rt::set_validation(false)`, in interleaved rounds. Prints the
//! median ns/call of each and their ratio (target: validation adds under 10%).
//!
//! `cargo bench -p zekit-mock`; `ZEKIT_BENCH_ROUNDS` and `ZEKIT_BENCH_CALLS` (per round) tune it.

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use zekit_icd::entry;
use zekit_sys::*;

/// Appends between resets of the command list.
const CHUNK: usize = 1024;
const SIZE: usize = 64;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn check(what: &str, r: ze_result_t) {
    assert_eq!(r, ZE_RESULT_SUCCESS, "{what}");
}

struct Setup {
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    src: *mut c_void,
}

fn setup() -> Setup {
    zekit_mock::install_without_hooks();
    // SAFETY: the entry points are called as a C program would, with valid arguments.
    unsafe {
        check("zeInit", entry::zeInit(ze_init_flags_t(0)));
        let mut n = 1u32;
        let mut driver: ze_driver_handle_t = null_mut();
        check("zeDriverGet", entry::zeDriverGet(&mut n, &mut driver));
        let mut device: ze_device_handle_t = null_mut();
        check(
            "zeDeviceGet",
            entry::zeDeviceGet(driver, &mut n, &mut device),
        );
        let mut ctx: ze_context_handle_t = null_mut();
        check(
            "zeContextCreate",
            entry::zeContextCreate(driver, &ze_context_desc_t::default(), &mut ctx),
        );
        let mut src = null_mut();
        check(
            "zeMemAllocHost",
            entry::zeMemAllocHost(
                ctx,
                &ze_host_mem_alloc_desc_t::default(),
                SIZE,
                64,
                &mut src,
            ),
        );
        let mut dst = null_mut();
        check(
            "zeMemAllocDevice",
            entry::zeMemAllocDevice(
                ctx,
                &ze_device_mem_alloc_desc_t::default(),
                SIZE,
                64,
                device,
                &mut dst,
            ),
        );
        let mut list: ze_command_list_handle_t = null_mut();
        check(
            "zeCommandListCreate",
            entry::zeCommandListCreate(ctx, device, &ze_command_list_desc_t::default(), &mut list),
        );
        Setup { list, dst, src }
    }
}

/// ns per append over `calls` appends.
fn measure(s: &Setup, validation: bool, calls: usize) -> f64 {
    zekit_icd_rt::set_validation(validation);
    let mut total = Duration::ZERO;
    let mut failures = 0usize;
    let mut done = 0;
    while done < calls {
        let k = CHUNK.min(calls - done);
        let t = Instant::now();
        for _ in 0..k {
            // SAFETY: valid list and USM pointers of SIZE bytes.
            let r = unsafe {
                entry::zeCommandListAppendMemoryCopy(
                    black_box(s.list),
                    black_box(s.dst),
                    black_box(s.src),
                    black_box(SIZE),
                    null_mut(),
                    0,
                    null_mut(),
                )
            };
            failures += usize::from(black_box(r) != ZE_RESULT_SUCCESS);
        }
        total += t.elapsed();
        done += k;
        // SAFETY: valid list.
        check("zeCommandListReset", unsafe {
            entry::zeCommandListReset(s.list)
        });
    }
    assert_eq!(failures, 0, "appends failed");
    total.as_nanos() as f64 / calls as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds = env_usize("ZEKIT_BENCH_ROUNDS", 21).max(1);
    let calls = env_usize("ZEKIT_BENCH_CALLS", 200_000).max(1);
    let s = setup();
    // Warm up both paths.
    measure(&s, true, calls / 4 + 1);
    measure(&s, false, calls / 4 + 1);
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        // Alternate which variant goes first.
        if r % 2 == 0 {
            on.push(measure(&s, true, calls));
            off.push(measure(&s, false, calls));
        } else {
            off.push(measure(&s, false, calls));
            on.push(measure(&s, true, calls));
        }
    }
    zekit_icd_rt::set_validation(true);
    let (on, off) = (median(&mut on), median(&mut off));
    let ratio = on / off;
    println!(
        "zeCommandListAppendMemoryCopy ({SIZE} B, mock without hooks): {rounds} interleaved rounds x {calls} calls"
    );
    println!("  validation on : {on:8.1} ns/call (median)");
    println!("  validation off: {off:8.1} ns/call (median)");
    println!(
        "  on/off        : {ratio:8.3} ({:+.1}%; target: under +10%)",
        (ratio - 1.0) * 100.0
    );
}
