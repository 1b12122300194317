//! Throughput of many small lists (issue 17 section 5): thousands of small kernel launches and
//! copies through a regular command list and an asynchronous immediate command list
//! interleaved on one queue group, in process through the generated C entry points
//! (`zekit_icd::entry`). Each variant runs on the compute group (ordinal 0) and, for
//! comparison, on the copy group (the ordinal whose only flag is `COPY`: copies only, as a copy
//! engine takes no kernels).
//!
//! 1. **Alternating, host-synchronized**: iterations alternate (a) the regular list reset, a
//!    launch of `vector_add` (`spirv/kernels/vector_add.spv`, 256 work-items in groups of 64)
//!    and a 1 KiB copy appended, the list closed, executed on a queue with a fence,
//!    `zeFenceHostSynchronize` + `zeFenceReset`; (b) the same launch and copy appended to the
//!    immediate list, the copy signaling an event, `zeEventHostSynchronize` +
//!    `zeEventHostReset`.
//! 2. **Event ping-pong**, the pattern of the conformance suite's mixed-list tests
//!    (`test_cmdlist_mixed`, 10,000 iterations a case, only run where a group has two queues:
//!    the compute group here): the regular list holds `ZEKIT_BENCH_OPS` steps of {wait for
//!    event A, reset A, launch, copy signaling B}, the immediate list as many of {launch (or
//!    copy) waiting for B, reset B, copy (or signal) signaling A}; the host executes the list,
//!    signals A, appends the immediate steps, then waits for the fence and the immediate list.
//!    Every step waits for the other list's last step.
//! 3. Yardsticks measured in the same run: two plain threads passing a token through a
//!    `Mutex` + `Condvar` (what one step costs when it needs the other thread to run: a
//!    futex wake and a thread switch, the price of a hand-off on this machine); and the work
//!    itself (`vector_add` as a loop and the copy as `memcpy` on the calling thread).
//!
//! Figures are microseconds per appended launch or copy: a run's time over its launches and
//! copies. Rounds alternate the variants (their order rotating); medians over rounds are
//! printed, with the compute / copy group ratios and the ping-pong / token-pass ratio. Nothing
//! asserts on time. `cargo bench -p zekit-cpu --bench throughput`;
//! `ZEKIT_BENCH_ROUNDS` sets the rounds (default 5), `ZEKIT_BENCH_OPS` the iterations (steps)
//! per variant per round (default 2000).

// The driver's library (`zekit-cpu`), under the name these files use.
extern crate zekit_cpu as zekit_driver_core;

#[path = "support/ze.rs"]
mod support;

use support::{env_usize, median, ok, setup, Device};

use std::ffi::c_void;
use std::path::PathBuf;
use std::ptr::null_mut;
use std::time::Instant;

use zekit_icd::entry as ze;
use zekit_sys::*;

/// Bytes of each copy (and of each `vector_add` operand: 256 floats).
const SIZE: usize = 1024;
const ITEMS: u32 = (SIZE / 4) as u32;
const GROUP: u32 = 64;

/// A queue group's queue, fence, regular list, asynchronous immediate list and event.
struct Side {
    queue: ze_command_queue_handle_t,
    fence: ze_fence_handle_t,
    list: ze_command_list_handle_t,
    imm: ze_command_list_handle_t,
    pool: ze_event_pool_handle_t,
    event: ze_event_handle_t,
    event2: ze_event_handle_t,
}

impl Side {
    fn new(d: &Device, ordinal: u32) -> Side {
        let (mut queue, mut fence, mut list, mut imm, mut pool, mut event, mut event2) =
            (null_mut(), null_mut(), null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        let qdesc = ze_command_queue_desc_t {
            ordinal,
            mode: ze_command_queue_mode_t::ASYNCHRONOUS,
            ..Default::default()
        };
        let ldesc = ze_command_list_desc_t { commandQueueGroupOrdinal: ordinal, ..Default::default() };
        let pdesc = ze_event_pool_desc_t {
            flags: ze_event_pool_flags_t::HOST_VISIBLE,
            count: 2,
            ..Default::default()
        };
        let edesc = ze_event_desc_t {
            signal: ze_event_scope_flags_t::HOST,
            wait: ze_event_scope_flags_t::HOST,
            ..Default::default()
        };
        let mut dev = d.dev;
        // SAFETY: valid context, device and descriptors.
        unsafe {
            ok("queue", ze::zeCommandQueueCreate(d.ctx, d.dev, &qdesc, &mut queue));
            ok("fence", ze::zeFenceCreate(queue, &ze_fence_desc_t::default(), &mut fence));
            ok("list", ze::zeCommandListCreate(d.ctx, d.dev, &ldesc, &mut list));
            ok("immediate", ze::zeCommandListCreateImmediate(d.ctx, d.dev, &qdesc, &mut imm));
            ok("event pool", ze::zeEventPoolCreate(d.ctx, &pdesc, 1, &mut dev, &mut pool));
            ok("event", ze::zeEventCreate(pool, &edesc, &mut event));
            let edesc2 = ze_event_desc_t { index: 1, ..edesc };
            ok("event", ze::zeEventCreate(pool, &edesc2, &mut event2));
        }
        Side { queue, fence, list, imm, pool, event, event2 }
    }

    /// `n` iterations, alternating (a) regular and (b) immediate (module docs); seconds.
    fn run(&self, n: usize, kernel: Option<ze_kernel_handle_t>, dst: *mut c_void, src: *mut c_void) -> f64 {
        let groups = ze_group_count_t { groupCountX: ITEMS / GROUP, groupCountY: 1, groupCountZ: 1 };
        let t = Instant::now();
        for i in 0..n {
            // SAFETY: live handles; the kernel's arguments are set, the buffers hold SIZE bytes.
            unsafe {
                if i % 2 == 0 {
                    ok("reset", ze::zeCommandListReset(self.list));
                    if let Some(k) = kernel {
                        ok("launch", ze::zeCommandListAppendLaunchKernel(self.list, k, &groups, null_mut(), 0, null_mut()));
                    }
                    ok("copy", ze::zeCommandListAppendMemoryCopy(self.list, dst, src, SIZE, null_mut(), 0, null_mut()));
                    ok("close", ze::zeCommandListClose(self.list));
                    let mut lists = [self.list];
                    ok("execute", ze::zeCommandQueueExecuteCommandLists(self.queue, 1, lists.as_mut_ptr(), self.fence));
                    ok("fence synchronize", ze::zeFenceHostSynchronize(self.fence, u64::MAX));
                    ok("fence reset", ze::zeFenceReset(self.fence));
                } else {
                    if let Some(k) = kernel {
                        ok("launch", ze::zeCommandListAppendLaunchKernel(self.imm, k, &groups, null_mut(), 0, null_mut()));
                    }
                    ok("copy", ze::zeCommandListAppendMemoryCopy(self.imm, dst, src, SIZE, self.event, 0, null_mut()));
                    ok("event synchronize", ze::zeEventHostSynchronize(self.event, u64::MAX));
                    ok("event reset", ze::zeEventHostReset(self.event));
                }
            }
        }
        t.elapsed().as_secs_f64()
    }

    /// The event ping-pong (module docs): `n` steps on the regular list and `n` on the
    /// immediate list, each waiting for the other's; seconds.
    fn ping_pong(&self, n: usize, kernel: Option<ze_kernel_handle_t>, dst: *mut c_void, src: *mut c_void) -> f64 {
        let groups = ze_group_count_t { groupCountX: ITEMS / GROUP, groupCountY: 1, groupCountZ: 1 };
        let (mut ping, mut pong) = ([self.event], [self.event2]);
        let t = Instant::now();
        // SAFETY: live handles; the kernel's arguments are set, the buffers hold SIZE bytes;
        // the event arrays outlive the calls.
        unsafe {
            ok("reset", ze::zeCommandListReset(self.list));
            for _ in 0..n {
                ok("wait", ze::zeCommandListAppendWaitOnEvents(self.list, 1, ping.as_mut_ptr()));
                ok("reset event", ze::zeCommandListAppendEventReset(self.list, self.event));
                if let Some(k) = kernel {
                    ok("launch", ze::zeCommandListAppendLaunchKernel(self.list, k, &groups, null_mut(), 0, null_mut()));
                }
                ok("copy", ze::zeCommandListAppendMemoryCopy(self.list, dst, src, SIZE, self.event2, 0, null_mut()));
            }
            ok("close", ze::zeCommandListClose(self.list));
            let mut lists = [self.list];
            ok("execute", ze::zeCommandQueueExecuteCommandLists(self.queue, 1, lists.as_mut_ptr(), self.fence));
            ok("signal", ze::zeEventHostSignal(self.event));
            for _ in 0..n {
                if let Some(k) = kernel {
                    ok("launch", ze::zeCommandListAppendLaunchKernel(self.imm, k, &groups, null_mut(), 1, pong.as_mut_ptr()));
                    ok("reset event", ze::zeCommandListAppendEventReset(self.imm, self.event2));
                } else {
                    ok("copy", ze::zeCommandListAppendMemoryCopy(self.imm, dst, src, SIZE, null_mut(), 1, pong.as_mut_ptr()));
                    ok("reset event", ze::zeCommandListAppendEventReset(self.imm, self.event2));
                }
                if kernel.is_some() {
                    ok("copy", ze::zeCommandListAppendMemoryCopy(self.imm, dst, src, SIZE, self.event, 0, null_mut()));
                } else {
                    ok("signal", ze::zeCommandListAppendSignalEvent(self.imm, self.event));
                }
            }
            ok("fence synchronize", ze::zeFenceHostSynchronize(self.fence, u64::MAX));
            ok("fence reset", ze::zeFenceReset(self.fence));
            ok("host synchronize", ze::zeCommandListHostSynchronize(self.imm, u64::MAX));
            ok("event reset", ze::zeEventHostReset(self.event));
        }
        t.elapsed().as_secs_f64()
    }

    fn destroy(self) {
        // SAFETY: handles made by `new`, idle.
        unsafe {
            ze::zeEventDestroy(self.event);
            ze::zeEventDestroy(self.event2);
            ze::zeEventPoolDestroy(self.pool);
            ze::zeCommandListDestroy(self.imm);
            ze::zeCommandListDestroy(self.list);
            ze::zeFenceDestroy(self.fence);
            ze::zeCommandQueueDestroy(self.queue);
        }
    }
}

/// The ordinal of the group whose only flag is `COPY`.
fn copy_ordinal(d: &Device) -> u32 {
    let mut n = 0u32;
    // SAFETY: first the count, then that many properties.
    unsafe {
        ok("groups", ze::zeDeviceGetCommandQueueGroupProperties(d.dev, &mut n, null_mut()));
        let mut props = vec![ze_command_queue_group_properties_t::default(); n as usize];
        ok("groups", ze::zeDeviceGetCommandQueueGroupProperties(d.dev, &mut n, props.as_mut_ptr()));
        props
            .iter()
            .position(|p| p.flags == ze_command_queue_group_property_flags_t::COPY)
            .expect("a copy-only queue group") as u32
    }
}

/// `vector_add` of `spirv/kernels/vector_add.spv`, groups of [`GROUP`], over `a`, `b`, `c`.
fn vector_add(d: &Device, a: *mut c_void, b: *mut c_void, c: *mut c_void) -> (ze_module_handle_t, ze_kernel_handle_t) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spirv/kernels/vector_add.spv");
    let spv = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mdesc = ze_module_desc_t {
        format: ze_module_format_t::IL_SPIRV,
        inputSize: spv.len(),
        pInputModule: spv.as_ptr(),
        ..Default::default()
    };
    let (mut m, mut k) = (null_mut(), null_mut());
    let kdesc = ze_kernel_desc_t { pKernelName: c"vector_add".as_ptr(), ..Default::default() };
    // SAFETY: valid context, device and descriptors; `spv` outlives the call; each argument
    // is a pointer, given by address.
    unsafe {
        ok("module", ze::zeModuleCreate(d.ctx, d.dev, &mdesc, &mut m, null_mut()));
        ok("kernel", ze::zeKernelCreate(m, &kdesc, &mut k));
        ok("group size", ze::zeKernelSetGroupSize(k, GROUP, 1, 1));
        for (i, p) in [a, b, c].iter().enumerate() {
            let arg = (p as *const *mut c_void).cast();
            ok("argument", ze::zeKernelSetArgumentValue(k, i as u32, size_of::<*mut c_void>(), arg));
        }
    }
    (m, k)
}

/// The yardstick of a hand-off: two threads passing a token back and forth through a `Mutex`
/// and a `Condvar`, `n` times each way (what a step of the ping-pong costs if it needs the
/// other thread to run); seconds.
fn token(n: usize) -> f64 {
    use std::sync::{Arc, Condvar, Mutex};
    let pair = Arc::new((Mutex::new(0usize), Condvar::new()));
    let other = pair.clone();
    let t = Instant::now();
    let peer = std::thread::spawn(move || {
        let (m, cv) = &*other;
        let mut g = m.lock().unwrap();
        for i in 0..n {
            while *g != 2 * i + 1 {
                g = cv.wait(g).unwrap();
            }
            *g += 1;
            cv.notify_one();
        }
    });
    let (m, cv) = &*pair;
    let mut g = m.lock().unwrap();
    for i in 0..n {
        *g += 1;
        cv.notify_one();
        while *g != 2 * i + 2 {
            g = cv.wait(g).unwrap();
        }
    }
    drop(g);
    peer.join().unwrap();
    t.elapsed().as_secs_f64()
}

/// The floor: the copy as `memcpy` and `vector_add` as a loop, on this thread; seconds.
fn floor(n: usize, a: *mut c_void, b: *mut c_void, c: *mut c_void, dst: *mut c_void, src: *mut c_void) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        // SAFETY: every buffer holds SIZE bytes; dst and src are distinct, as are a, b and c.
        unsafe {
            let (a, b, c) = (a.cast::<f32>(), b.cast::<f32>(), c.cast::<f32>());
            for i in 0..ITEMS as usize {
                *c.add(i) = *a.add(i) + *b.add(i);
            }
            std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), SIZE);
        }
        std::hint::black_box((c, dst));
    }
    t.elapsed().as_secs_f64()
}

fn main() {
    let rounds = env_usize("ZEKIT_BENCH_ROUNDS", 5).max(1);
    let ops = env_usize("ZEKIT_BENCH_OPS", 2000).max(2);
    let d = setup();
    let host = zekit_driver_core::host::host();
    println!(
        "zekit CPU driver on {} ({} usable cores); {ops} iterations per variant, {rounds} rounds, variants alternating",
        host.model_name, host.usable_cores
    );
    let [a, b, c, dst, src] = [(); 5].map(|_| d.device_mem(SIZE));
    for p in [a, b, c, dst, src] {
        // SAFETY: SIZE writable bytes.
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, SIZE) };
    }
    let (module, kernel) = vector_add(&d, a, b, c);
    let compute = Side::new(&d, 0);
    let copy = Side::new(&d, copy_ordinal(&d));

    // Name, appended work commands (launches and copies) per run, and the variant.
    type Variant<'a> = (&'a str, usize, Box<dyn Fn() -> f64 + 'a>);
    let variants: Vec<Variant> = vec![
        ("(1) alternating, compute group, launch + copy", 2 * ops, Box::new(|| compute.run(ops, Some(kernel), dst, src))),
        ("(1) alternating, compute group, copy only    ", ops, Box::new(|| compute.run(ops, None, dst, src))),
        ("(1) alternating, copy group, copy only       ", ops, Box::new(|| copy.run(ops, None, dst, src))),
        ("(2) ping-pong, compute group, launch + copy  ", 4 * ops, Box::new(|| compute.ping_pong(ops, Some(kernel), dst, src))),
        ("(2) ping-pong, compute group, copy only      ", 2 * ops, Box::new(|| compute.ping_pong(ops, None, dst, src))),
        ("(2) ping-pong, copy group, copy only         ", 2 * ops, Box::new(|| copy.ping_pong(ops, None, dst, src))),
        ("(3) two threads passing a token, per pass    ", 2 * ops, Box::new(|| token(ops))),
        ("(3) vector_add as a loop + memcpy, per op    ", 2 * ops, Box::new(|| floor(ops, a, b, c, dst, src))),
    ];
    // Warm-up (the kernel's code, the threads, the caches).
    for (_, _, v) in &variants {
        v();
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for r in 0..rounds {
        for j in 0..variants.len() {
            let k = (j + r) % variants.len();
            let (_, n, v) = &variants[k];
            times[k].push(v() / *n as f64 * 1e6);
        }
    }
    let us: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
    println!("microseconds per appended launch or {SIZE}-byte copy (medians of rounds):");
    for ((name, _, _), us) in variants.iter().zip(&us) {
        println!("  {name}: {us:8.2} us");
    }
    println!("  (1) compute launch + copy / copy group copy  : {:8.2}x (goal: <= 1)", us[0] / us[2]);
    println!("  (2) compute launch + copy / copy group copy  : {:8.2}x (goal: <= 1)", us[3] / us[5]);
    println!("  (2) compute launch + copy / token pass       : {:8.2}x (< 1: no thread switch per step)", us[3] / us[6]);

    drop(variants);
    compute.destroy();
    copy.destroy();
    // SAFETY: handles made above, idle.
    unsafe {
        ze::zeKernelDestroy(kernel);
        ze::zeModuleDestroy(module);
        for p in [a, b, c, dst, src] {
            ze::zeMemFree(d.ctx, p);
        }
        ze::zeContextDestroy(d.ctx);
    }
}
