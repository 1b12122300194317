//! The CPU driver executes memory commands: copies between every kind of memory, region
//! copies, fills, dependencies across queues, list reuse (synchronization, events, fences,
//! queues: `exec_sync.rs`), in process through the generated C entry points. Random sizes and
//! offsets print their seed (`ZEKIT_SEED` replays a run). No test asserts on time.
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad handles the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

use zeh::exec::*;
use zeh::*;

#[derive(Clone, Copy, Debug)]
enum Mem {
    Host,
    Device,
    Shared,
    System,
}

/// Buffers of each kind of memory, `size` bytes each.
struct Buffers {
    ptrs: Vec<(Mem, *mut u8)>,
    system: Vec<Vec<u8>>,
    size: usize,
}

impl Buffers {
    fn new(z: &Ze, size: usize) -> Buffers {
        let mut system = vec![vec![0u8; size]];
        let ptrs = vec![
            (Mem::Host, z.host(size)),
            (Mem::Device, z.device_mem(size)),
            (Mem::Shared, z.shared(size)),
            (Mem::System, system[0].as_mut_ptr()),
        ];
        Buffers { ptrs, system, size }
    }
}

#[test]
fn copies_of_every_kind_byte_for_byte() {
    let d = Device::new();
    let mut rng = Rng::new(seed("copies"));
    let size = 3 << 20;
    let a = Buffers::new(&d.z, size);
    let b = Buffers::new(&d.z, size);
    for i in 0..240 {
        let (src_kind, src) = a.ptrs[rng.below(4)];
        let (dst_kind, dst) = b.ptrs[rng.below(4)];
        let len = if i % 12 == 0 {
            rng.range(1 << 20, (5 << 19) + 1) // split over the worker pool
        } else {
            rng.below(5000)
        };
        let (so, doff) = (rng.below(97), rng.below(97));
        let via = VIAS[i % 3];
        let src_data = rng.bytes(len);
        let before = rng.bytes(size.min(len + 512));
        // SAFETY: every buffer holds `size` bytes, offsets + len stay inside.
        unsafe {
            write(src.add(so), &src_data);
            write(dst, &before);
        }
        d.submit(via, |l| copy(l, dst.wrapping_add(doff), src.wrapping_add(so), len, null_event(), &mut []));
        // SAFETY: the copy is done.
        let got = unsafe { bytes(dst, before.len().max(doff + len)) };
        assert!(
            got[doff..doff + len] == src_data[..],
            "copy {i}: {len} bytes {src_kind:?}+{so} -> {dst_kind:?}+{doff} via {via:?}"
        );
        assert_eq!(got[..doff], before[..doff], "copy {i} wrote before its range");
        if doff + len < before.len() {
            assert_eq!(got[doff + len..], before[doff + len..], "copy {i} wrote after its range");
        }
    }
    for buffers in [&a, &b] {
        for &(kind, p) in &buffers.ptrs {
            if !matches!(kind, Mem::System) {
                d.z.free(p);
            }
        }
        assert_eq!(buffers.system[0].len(), buffers.size);
    }
}

#[test]
fn overlapping_copy_moves_like_memmove() {
    let d = Device::new();
    let p = d.z.host(4096);
    let data: Vec<u8> = (0..4096u32).map(|i| i as u8).collect();
    // SAFETY: 4096 bytes.
    unsafe { write(p, &data) };
    d.submit(Via::ImmediateSync, |l| copy(l, p.wrapping_add(100), p, 2000, null_event(), &mut []));
    // SAFETY: done.
    let got = unsafe { bytes(p, 4096) };
    assert_eq!(got[100..2100], data[..2000]);
    d.z.free(p);
}

#[test]
fn copy_from_another_context() {
    let d = Device::new();
    let other = Ze::new();
    let src = other.host(1000);
    let dst = d.z.device_mem(1000);
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 3) as u8).collect();
    // SAFETY: 1000 bytes.
    unsafe { write(src, &data) };
    for via in VIAS {
        d.submit(via, |l| {
            ok!(ze::zeCommandListAppendMemoryCopyFromContext(
                l,
                dst.cast(),
                other.ctx,
                src.cast(),
                1000,
                null_mut(),
                0,
                null_mut()
            ))
        });
        // SAFETY: done.
        assert_eq!(unsafe { bytes(dst, 1000) }, &data[..]);
        // SAFETY: 1000 bytes.
        unsafe { write(dst, &[0; 1000]) };
    }
    other.free(src);
    d.z.free(dst);
}

/// Reference region copy.
fn region_reference(
    dst: &mut [u8],
    (dr, dp, dsp): (&ze_copy_region_t, usize, usize),
    src: &[u8],
    (sr, sp, ssp): (&ze_copy_region_t, usize, usize),
) {
    for z in 0..sr.depth.max(1) as usize {
        for y in 0..sr.height.max(1) as usize {
            let s = (sr.originZ as usize + z) * ssp + (sr.originY as usize + y) * sp + sr.originX as usize;
            let t = (dr.originZ as usize + z) * dsp + (dr.originY as usize + y) * dp + dr.originX as usize;
            let w = sr.width as usize;
            dst[t..t + w].copy_from_slice(&src[s..s + w]);
        }
    }
}

#[test]
fn region_copies_byte_for_byte() {
    let d = Device::new();
    let mut rng = Rng::new(seed("regions"));
    for i in 0..150 {
        let big = i % 25 == 0;
        let (w, h, depth) = if big {
            (rng.range(1000, 3000), rng.range(300, 700), 1)
        } else {
            (rng.range(1, 80), rng.range(1, 20), rng.range(1, 5))
        };
        let mk = |rng: &mut Rng| {
            let r = ze_copy_region_t {
                originX: rng.below(9) as u32,
                originY: rng.below(5) as u32,
                originZ: if depth > 1 { rng.below(3) as u32 } else { 0 },
                width: w as u32,
                height: h as u32,
                depth: depth as u32,
            };
            let pitch = r.originX as usize + w + rng.below(9);
            let slice = pitch * (r.originY as usize + h) + pitch * rng.below(3);
            let len = slice * (r.originZ as usize + depth) + 64;
            (r, pitch, slice, len)
        };
        let (sr, sp, ssp, slen) = mk(&mut rng);
        let (dr, dp, dsp, dlen) = mk(&mut rng);
        let src_data = rng.bytes(slen);
        let dst_data = rng.bytes(dlen);
        let src = d.z.shared(slen);
        let dst = d.z.device_mem(dlen);
        // SAFETY: sizes as allocated.
        unsafe {
            write(src, &src_data);
            write(dst, &dst_data);
        }
        let via = VIAS[i % 3];
        d.submit(via, |l| {
            ok!(ze::zeCommandListAppendMemoryCopyRegion(
                l,
                dst.cast(),
                &dr,
                dp as u32,
                dsp as u32,
                src.cast(),
                &sr,
                sp as u32,
                ssp as u32,
                null_mut(),
                0,
                null_mut()
            ))
        });
        let mut expected = dst_data.clone();
        region_reference(&mut expected, (&dr, dp, dsp), &src_data, (&sr, sp, ssp));
        // SAFETY: done.
        let got = unsafe { bytes(dst, dlen) };
        assert!(got == &expected[..], "region copy {i} ({w}x{h}x{depth}) via {via:?}");
        d.z.free(src);
        d.z.free(dst);
    }
}

#[test]
fn fills_with_every_pattern_size() {
    let d = Device::new();
    let mut rng = Rng::new(seed("fills"));
    let mut n = 2u32;
    let mut groups = [ze_command_queue_group_properties_t::default(); 2];
    ok!(ze::zeDeviceGetCommandQueueGroupProperties(d.z.dev, &mut n, groups.as_mut_ptr()));
    // Any pattern size (compute-runtime reports SIZE_MAX for its compute engines too).
    assert_eq!(groups[0].maxMemoryFillPatternSize, usize::MAX);
    assert_eq!(groups[1].maxMemoryFillPatternSize, usize::MAX);
    let buf = d.z.shared(3 << 20);
    // Every power of two to 64 KiB, and lengths that are not (what programs pass in the wild).
    let sizes: Vec<usize> = (0..=16).map(|k| 1usize << k).chain([3, 12, 100, 1000, 4097, 10000, 300_000]).collect();
    for &p in &sizes {
        for (k, via) in VIAS.into_iter().enumerate() {
            let pattern = rng.bytes(p);
            let count = if k == 0 { rng.range(((1 << 20) / p).max(1), ((2 << 20) / p).max(2)) } else { rng.range(0, (300_000 / p).clamp(1, 300)) };
            let len = count * p;
            let off = rng.below(61);
            let guard = rng.bytes(64);
            // SAFETY: inside the 3 MiB buffer.
            unsafe {
                write(buf, &guard[..off.min(64)]);
                write(buf.add(off + len), &guard);
            }
            d.submit(via, |l| fill(l, buf.wrapping_add(off), &pattern, len, null_event(), &mut []));
            // SAFETY: done.
            let got = unsafe { bytes(buf, off + len + 64) };
            assert!(
                got[off..off + len].chunks(p).all(|c| c == &pattern[..]),
                "pattern {p}, {len} bytes at +{off} via {via:?}"
            );
            assert_eq!(got[..off], guard[..off]);
            assert_eq!(got[off + len..], guard[..]);
        }
    }
    // A size that is not a multiple of the pattern, a pattern of 0 bytes (strict validation
    // keeps the spec's power of two: tests/loader.rs, `leniency.c`).
    let l = d.z.list(0);
    let pattern = [0u8; 512];
    for (p, len) in [(4usize, 6usize), (0, 0), (0, 16)] {
        check!(
            ze::zeCommandListAppendMemoryFill(l, buf.cast(), pattern.as_ptr().cast(), p, len, null_mut(), 0, null_mut()),
            ZE_RESULT_ERROR_INVALID_SIZE
        );
    }
    ok!(ze::zeCommandListDestroy(l));
    d.z.free(buf);
}

/// A chain over four queues, submitted last queue first so that each really waits: queue
/// `k` waits for queue `k - 1`'s event, copies one buffer into the next, and signals.
#[test]
fn dependency_chain_across_queues() {
    let z = Ze::new();
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 8);
    let start = z.event(pool, 0);
    let events: Vec<_> = (1..=4).map(|i| z.event(pool, i)).collect();
    let queues: Vec<_> = (0..4).map(|i| z.queue(i % 2, ASYNC)).collect();
    let size = 1 << 16;
    let bufs: Vec<_> = (0..5).map(|_| z.device_mem(size)).collect();
    let data: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    for round in 0..20 {
        // SAFETY: `size` bytes each.
        unsafe {
            write(bufs[0], &data);
            for b in &bufs[1..] {
                write(*b, &vec![0; size]);
            }
        }
        let lists: Vec<_> = (0..4).map(|k| z.list(k as u32 % 2)).collect();
        for k in (0..4).rev() {
            let wait = if k == 0 { start } else { events[k - 1] };
            copy(lists[k], bufs[k + 1], bufs[k], size, events[k], &mut [wait]);
            ok!(ze::zeCommandListClose(lists[k]));
            let mut one = [lists[k]];
            ok!(ze::zeCommandQueueExecuteCommandLists(queues[k], 1, one.as_mut_ptr(), null_mut()));
        }
        // Nothing can have run: everything waits for `start`.
        check!(ze::zeEventQueryStatus(events[3]), ZE_RESULT_NOT_READY);
        check!(ze::zeCommandQueueSynchronize(queues[3], 0), ZE_RESULT_NOT_READY);
        ok!(ze::zeEventHostSignal(start));
        ok!(ze::zeEventHostSynchronize(events[3], FOREVER));
        // SAFETY: done.
        assert!(unsafe { bytes(bufs[4], size) } == &data[..], "round {round}");
        for &q in &queues {
            ok!(ze::zeCommandQueueSynchronize(q, FOREVER));
        }
        for l in lists {
            ok!(ze::zeCommandListDestroy(l));
        }
        for &e in events.iter().chain([&start]) {
            ok!(ze::zeEventHostReset(e));
        }
    }
    for q in queues {
        ok!(ze::zeCommandQueueDestroy(q));
    }
    for e in events.into_iter().chain([start]) {
        ok!(ze::zeEventDestroy(e));
    }
    ok!(ze::zeEventPoolDestroy(pool));
    for b in bufs {
        z.free(b);
    }
}

/// A list recorded once runs any number of times; reset, it records anew. Events reset inside
/// the list let it signal again on each run.
#[test]
fn regular_list_reuse_and_reset() {
    let z = Ze::new();
    let q = z.queue(0, ASYNC);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 2);
    let e = z.event(pool, 0);
    let counter = z.host(8);
    let l = z.list(0);
    // counter[0] += 1 per run, through a fill and a host function.
    extern "system" fn bump(data: *mut c_void) {
        // SAFETY: the test passes a live `AtomicUsize`.
        unsafe { &*(data as *const AtomicUsize) }.fetch_add(1, Ordering::SeqCst);
    }
    let runs = AtomicUsize::new(0);
    ok!(ze::zeCommandListAppendEventReset(l, e));
    fill(l, counter, &[7u8], 8, null_mut(), &mut []);
    ok!(ze::zeCommandListAppendHostFunction(
        l,
        Some(bump),
        &runs as *const AtomicUsize as *mut c_void,
        null_mut(),
        e,
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListClose(l));
    let f = z.fence(q);
    for i in 1..=25 {
        let mut lists = [l, l];
        ok!(ze::zeCommandQueueExecuteCommandLists(q, 2, lists.as_mut_ptr(), f));
        ok!(ze::zeFenceHostSynchronize(f, FOREVER));
        ok!(ze::zeEventHostSynchronize(e, FOREVER));
        assert_eq!(runs.load(Ordering::SeqCst), 2 * i);
        ok!(ze::zeFenceReset(f));
        check!(ze::zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
    }
    // Reset: the list is open and empty again.
    ok!(ze::zeCommandListReset(l));
    fill(l, counter, &[9u8], 8, null_mut(), &mut []);
    run(&z, q, l);
    // SAFETY: done.
    assert_eq!(unsafe { bytes(counter, 8) }, &[9u8; 8]);
    assert_eq!(runs.load(Ordering::SeqCst), 50);
    ok!(ze::zeFenceDestroy(f));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventPoolDestroy(pool));
    z.free(counter);
}
