//! The CPU driver synchronizes work: fences and timestamps, immediate lists, host waits with
//! timeouts, counter-based events, host functions, queue groups, events and pools, destroying
//! while work runs, bad use; in process through the generated C entry points. No test asserts
//! on time: timestamps are only compared with each other.
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad handles the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use zeh::exec::*;
use zeh::*;

/// Timestamps come from the device clock (`zeDeviceGetGlobalTimestamps`) and follow the order
/// in which a queue runs its commands.
#[test]
fn fences_and_timestamp_ordering() {
    let z = Ze::new();
    let q = z.queue(0, ASYNC);
    let pool = z.pool(
        ze_event_pool_flags_t::KERNEL_TIMESTAMP | ze_event_pool_flags_t::HOST_VISIBLE,
        8,
    );
    let events: Vec<_> = (0..4).map(|i| z.event(pool, i)).collect();
    let src = z.host(4 << 20);
    let dst = z.host(4 << 20);
    let stamps = z.host(64).cast::<u64>();
    let results = z.host(4 * 32).cast::<ze_kernel_timestamp_result_t>();
    let (mut host0, mut dev0) = (0, 0);
    ok!(ze::zeDeviceGetGlobalTimestamps(z.dev, &mut host0, &mut dev0));
    let l = z.list(0);
    ok!(ze::zeCommandListAppendWriteGlobalTimestamp(l, stamps, null_mut(), 0, null_mut()));
    copy(l, dst, src, 4 << 20, events[0], &mut []);
    fill(l, dst, &[1, 2, 3, 4], 1 << 20, events[1], &mut []);
    ok!(ze::zeCommandListAppendBarrier(l, events[2], 0, null_mut()));
    ok!(ze::zeCommandListAppendWriteGlobalTimestamp(l, stamps.wrapping_add(1), events[3], 0, null_mut()));
    let mut evs = events.clone();
    ok!(ze::zeCommandListAppendQueryKernelTimestamps(
        l,
        4,
        evs.as_mut_ptr(),
        results.cast(),
        [0usize, 32, 64, 96].as_ptr(),
        null_mut(),
        4,
        evs.as_mut_ptr()
    ));
    // Null offsets (`[optional]`): the results are packed.
    let packed = z.host(4 * 32).cast::<ze_kernel_timestamp_result_t>();
    ok!(ze::zeCommandListAppendQueryKernelTimestamps(
        l,
        4,
        evs.as_mut_ptr(),
        packed.cast(),
        null(),
        null_mut(),
        4,
        evs.as_mut_ptr()
    ));
    run(&z, q, l);
    let (mut host1, mut dev1) = (0, 0);
    ok!(ze::zeDeviceGetGlobalTimestamps(z.dev, &mut host1, &mut dev1));
    // SAFETY: written by the commands, which are done.
    let (t0, t1) = unsafe { (*stamps, *stamps.add(1)) };
    assert!(dev0 <= t0 && t0 <= t1 && t1 <= dev1, "{dev0} {t0} {t1} {dev1}");
    let mut prev_end = t0;
    for (i, &e) in events.iter().enumerate() {
        let mut r = ze_kernel_timestamp_result_t::default();
        ok!(ze::zeEventQueryKernelTimestamp(e, &mut r));
        assert!(prev_end <= r.global.kernelStart, "event {i} starts before the previous ends");
        assert!(r.global.kernelStart <= r.global.kernelEnd);
        assert_eq!(r.context.kernelStart, r.global.kernelStart);
        assert_eq!(r.context.kernelEnd, r.global.kernelEnd);
        prev_end = r.global.kernelEnd;
        // The same values through the query command, the Exp and the Ext queries.
        // SAFETY: written by the query command.
        let from_list = unsafe { *results.add(i) };
        // SAFETY: as above.
        let from_packed = unsafe { *packed.add(i) };
        assert_eq!(from_packed.global.kernelStart, from_list.global.kernelStart);
        assert_eq!(from_packed.global.kernelEnd, from_list.global.kernelEnd);
        assert_eq!(from_list.global.kernelStart, r.global.kernelStart);
        assert_eq!(from_list.global.kernelEnd, r.global.kernelEnd);
        let mut n = 0u32;
        ok!(ze::zeEventQueryTimestampsExp(e, z.dev, &mut n, null_mut()));
        assert_eq!(n, 1);
        let mut exp = [ze_kernel_timestamp_result_t::default()];
        ok!(ze::zeEventQueryTimestampsExp(e, z.dev, &mut n, exp.as_mut_ptr()));
        assert_eq!(exp[0].global.kernelEnd, r.global.kernelEnd);
        let mut k = ze_kernel_timestamp_result_t::default();
        let mut s = ze_synchronized_timestamp_result_ext_t::default();
        let mut ext = ze_event_query_kernel_timestamps_results_ext_properties_t {
            pKernelTimestampsBuffer: &mut k,
            pSynchronizedTimestampsBuffer: &mut s,
            ..Default::default()
        };
        n = 0;
        ok!(ze::zeEventQueryKernelTimestampsExt(e, z.dev, &mut n, null_mut()));
        assert_eq!(n, 1);
        ok!(ze::zeEventQueryKernelTimestampsExt(e, z.dev, &mut n, &mut ext));
        assert_eq!((k.global.kernelStart, s.global.kernelEnd), (r.global.kernelStart, r.global.kernelEnd));
    }
    // The last event is signaled by the command that wrote `t1`.
    let mut last = ze_kernel_timestamp_result_t::default();
    ok!(ze::zeEventQueryKernelTimestamp(events[3], &mut last));
    assert!(last.global.kernelStart <= t1 && t1 <= last.global.kernelEnd);
    // The device reports both kinds of kernel timestamp queries.
    let mut tsp = ze_event_query_kernel_timestamps_ext_properties_t::default();
    let mut props = ze_device_properties_t {
        pNext: (&mut tsp as *mut ze_event_query_kernel_timestamps_ext_properties_t).cast(),
        ..Default::default()
    };
    ok!(ze::zeDeviceGetProperties(z.dev, &mut props));
    assert_eq!(
        tsp.flags,
        ze_event_query_kernel_timestamps_ext_flags_t::KERNEL
            | ze_event_query_kernel_timestamps_ext_flags_t::SYNCHRONIZED
    );
    // Fences: created signaled, of their queue only.
    let desc = ze_fence_desc_t {
        flags: ze_fence_flags_t::SIGNALED,
        ..Default::default()
    };
    let mut f = null_mut();
    ok!(ze::zeFenceCreate(q, &desc, &mut f));
    ok!(ze::zeFenceQueryStatus(f));
    ok!(ze::zeFenceHostSynchronize(f, 0));
    ok!(ze::zeFenceReset(f));
    check!(ze::zeFenceHostSynchronize(f, 1000), ZE_RESULT_NOT_READY);
    ok!(ze::zeFenceDestroy(f));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
    for e in events {
        ok!(ze::zeEventDestroy(e));
    }
    ok!(ze::zeEventPoolDestroy(pool));
    for p in [src, dst, stamps.cast(), results.cast()] {
        z.free(p);
    }
}

#[test]
fn immediate_lists_sync_and_async() {
    let z = Ze::new();
    let sync = z.immediate(0, SYNC);
    let asynchronous = z.immediate(0, ASYNC);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 4);
    let gate = z.event(pool, 0);
    let done = z.event(pool, 1);
    let a = z.host(1 << 12);
    let b = z.host(1 << 12);
    // Synchronous: done when the append returns.
    fill(sync, a, &[0xab], 1 << 12, null_mut(), &mut []);
    // SAFETY: done.
    assert!(unsafe { bytes(a, 1 << 12) }.iter().all(|&x| x == 0xab));
    // Asynchronous: waits for `gate` without blocking the caller.
    copy(asynchronous, b, a, 1 << 12, done, &mut [gate]);
    check!(ze::zeCommandListHostSynchronize(asynchronous, 0), ZE_RESULT_NOT_READY);
    check!(ze::zeCommandListHostSynchronize(asynchronous, 100_000), ZE_RESULT_NOT_READY);
    check!(ze::zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeCommandListHostSynchronize(asynchronous, FOREVER));
    ok!(ze::zeEventQueryStatus(done));
    // SAFETY: done.
    assert!(unsafe { bytes(b, 1 << 12) }.iter().all(|&x| x == 0xab));
    // Regular lists appended to an immediate list, with events around them.
    let regular = z.list(0);
    fill(regular, b, &[1, 2], 1 << 12, null_mut(), &mut []);
    ok!(ze::zeCommandListClose(regular));
    ok!(ze::zeEventHostReset(done));
    ok!(ze::zeEventHostReset(gate));
    let mut lists = [regular, regular];
    let mut waits = [gate];
    ok!(ze::zeCommandListImmediateAppendCommandListsExp(
        asynchronous,
        2,
        lists.as_mut_ptr(),
        done,
        1,
        waits.as_mut_ptr()
    ));
    check!(ze::zeEventHostSynchronize(done, 1000), ZE_RESULT_NOT_READY);
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeEventHostSynchronize(done, FOREVER));
    // SAFETY: done.
    assert!(unsafe { bytes(b, 1 << 12) }.chunks(2).all(|c| c == [1, 2]));
    // Queries.
    let mut yes = 0u8;
    ok!(ze::zeCommandListIsImmediate(asynchronous, &mut yes));
    assert_eq!(yes, 1);
    ok!(ze::zeCommandListIsImmediate(regular, &mut yes));
    assert_eq!(yes, 0);
    let mut mode = ze_command_queue_mode_t::DEFAULT;
    ok!(ze::zeCommandListImmediateGetMode(sync, &mut mode));
    assert_eq!(mode, SYNC);
    let mut index = 7;
    ok!(ze::zeCommandListImmediateGetIndex(asynchronous, &mut index));
    assert_eq!(index, 0);
    check!(ze::zeCommandListImmediateGetIndex(regular, &mut index), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let (mut dev, mut ctx) = (null_mut(), null_mut());
    ok!(ze::zeCommandListGetDeviceHandle(sync, &mut dev));
    ok!(ze::zeCommandListGetContextHandle(sync, &mut ctx));
    assert_eq!((dev, ctx), (z.dev, z.ctx));
    let mut ordinal = 9;
    ok!(ze::zeCommandListGetOrdinal(regular, &mut ordinal));
    assert_eq!(ordinal, 0);
    for l in [sync, asynchronous, regular] {
        ok!(ze::zeCommandListDestroy(l));
    }
    for e in [gate, done] {
        ok!(ze::zeEventDestroy(e));
    }
    ok!(ze::zeEventPoolDestroy(pool));
    z.free(a);
    z.free(b);
}

#[test]
fn host_waits_honour_timeouts() {
    let z = Ze::new();
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 2);
    let e = z.event(pool, 0);
    check!(ze::zeEventHostSynchronize(e, 0), ZE_RESULT_NOT_READY);
    check!(ze::zeEventHostSynchronize(e, 1), ZE_RESULT_NOT_READY);
    check!(ze::zeEventHostSynchronize(e, 2_000_000), ZE_RESULT_NOT_READY);
    // NOT_READY is an answer, not an error: no last-error record.
    assert!(!last_error().contains("NOT_READY"), "{}", last_error());
    // Another thread signals while this one waits forever.
    let raw = e as usize;
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(5));
        ok!(ze::zeEventHostSignal(raw as ze_event_handle_t));
    });
    ok!(ze::zeEventHostSynchronize(e, FOREVER));
    t.join().unwrap();
    ok!(ze::zeEventHostSynchronize(e, 0));
    // A queue whose work waits: synchronize and fence time out, then complete.
    ok!(ze::zeEventHostReset(e));
    let q = z.queue(0, ASYNC);
    let l = z.list(0);
    ok!(ze::zeCommandListAppendWaitOnEvents(l, 1, &mut { e }));
    ok!(ze::zeCommandListClose(l));
    let f = z.fence(q);
    let mut lists = [l];
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), f));
    check!(ze::zeCommandQueueSynchronize(q, 0), ZE_RESULT_NOT_READY);
    check!(ze::zeCommandQueueSynchronize(q, 1_000_000), ZE_RESULT_NOT_READY);
    check!(ze::zeFenceHostSynchronize(f, 1_000_000), ZE_RESULT_NOT_READY);
    check!(ze::zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
    ok!(ze::zeEventHostSignal(e));
    ok!(ze::zeCommandQueueSynchronize(q, FOREVER));
    ok!(ze::zeFenceQueryStatus(f));
    ok!(ze::zeFenceDestroy(f));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventPoolDestroy(pool));
}

#[test]
fn counter_based_events_order_in_order_lists() {
    let z = Ze::new();
    type F = ze_event_counter_based_flags_t;
    let imm = z.immediate(0, ASYNC);
    let other = z.immediate(1, ASYNC);
    let e = z.counter_event(F::IMMEDIATE | F::NON_IMMEDIATE | F::DEVICE_TIMESTAMP);
    let mut flags = F::empty();
    ok!(ze::zeEventGetCounterBasedFlags(e, &mut flags));
    assert_eq!(flags, F::IMMEDIATE | F::NON_IMMEDIATE | F::DEVICE_TIMESTAMP);
    // A new counter-based event is complete.
    ok!(ze::zeEventHostSynchronize(e, 0));
    let a = z.host(1 << 16);
    let b = z.host(1 << 16);
    for round in 0..50u8 {
        fill(imm, a, &[round], 1 << 16, e, &mut []);
        // `other` waits for the fill just submitted (the event's latest value).
        copy(other, b, a, 1 << 16, null_mut(), &mut [e]);
        ok!(ze::zeCommandListHostSynchronize(other, FOREVER));
        // SAFETY: done.
        assert!(unsafe { bytes(b, 1 << 16) }.iter().all(|&x| x == round), "round {round}");
    }
    let mut r = ze_kernel_timestamp_result_t::default();
    ok!(ze::zeEventQueryKernelTimestamp(e, &mut r));
    assert!(r.global.kernelStart <= r.global.kernelEnd && r.global.kernelStart > 0);
    // Regular lists take a new value at each execution.
    let q = z.queue(0, ASYNC);
    let l = z.list(0);
    fill(l, a, &[5], 1 << 16, e, &mut []);
    ok!(ze::zeCommandListClose(l));
    for _ in 0..5 {
        let mut lists = [l];
        ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), null_mut()));
        ok!(ze::zeEventHostSynchronize(e, FOREVER));
    }
    // The host cannot signal or reset them; lists need the matching flag.
    check!(ze::zeEventHostSignal(e), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    check!(ze::zeEventHostReset(e), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    check!(ze::zeCommandListAppendSignalEvent(imm, e), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    let only_imm = z.counter_event(F::IMMEDIATE);
    let r2 = z.list(0);
    check!(
        ze::zeCommandListAppendBarrier(r2, only_imm, 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT
    );
    let bad = ze_event_counter_based_desc_t::default();
    let mut never = null_mut();
    check!(
        ze::zeEventCounterBasedCreate(z.ctx, z.dev, &bad, &mut never),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    let mut pool = null_mut();
    ok!(ze::zeEventGetEventPool(e, &mut pool));
    assert!(pool.is_null());
    let mut max = 0u64;
    ok!(ze::zeDeviceGetCounterBasedEventMaxValue(z.dev, &mut max));
    assert_eq!(max, u64::MAX);
    ok!(ze::zeCommandQueueDestroy(q));
    for l in [l, r2, imm, other] {
        ok!(ze::zeCommandListDestroy(l));
    }
    for e in [e, only_imm] {
        ok!(ze::zeEventDestroy(e));
    }
    z.free(a);
    z.free(b);
}

#[test]
fn host_functions_run_in_order_on_the_queue() {
    let z = Ze::new();
    static ORDER: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());
    extern "system" fn record(data: *mut c_void) {
        ORDER.lock().unwrap().push(data as usize);
    }
    let imm = z.immediate(0, ASYNC);
    for i in 0..100usize {
        ok!(ze::zeCommandListAppendHostFunction(imm, Some(record), i as *mut c_void, null_mut(), null_mut(), 0, null_mut()));
    }
    ok!(ze::zeCommandListHostSynchronize(imm, FOREVER));
    assert_eq!(*ORDER.lock().unwrap(), (0..100).collect::<Vec<_>>());
    ok!(ze::zeCommandListDestroy(imm));
}

#[test]
fn queue_groups_modes_and_queries() {
    let z = Ze::new();
    let mut n = 0u32;
    ok!(ze::zeDeviceGetCommandQueueGroupProperties(z.dev, &mut n, null_mut()));
    let mut groups = vec![ze_command_queue_group_properties_t::default(); n as usize];
    ok!(ze::zeDeviceGetCommandQueueGroupProperties(z.dev, &mut n, groups.as_mut_ptr()));
    for (ordinal, g) in groups.iter().enumerate() {
        for mode in [DEFAULT, SYNC, ASYNC] {
            for priority in [
                ze_command_queue_priority_t::NORMAL,
                ze_command_queue_priority_t::PRIORITY_LOW,
                ze_command_queue_priority_t::PRIORITY_HIGH,
            ] {
                let desc = ze_command_queue_desc_t {
                    ordinal: ordinal as u32,
                    index: g.numQueues - 1,
                    flags: ze_command_queue_flags_t::IN_ORDER,
                    mode,
                    priority,
                    ..Default::default()
                };
                let mut q = null_mut();
                ok!(ze::zeCommandQueueCreate(z.ctx, z.dev, &desc, &mut q));
                let (mut o, mut i, mut m, mut p, mut f) = (9, 9, DEFAULT, ze_command_queue_priority_t::NORMAL, ze_command_queue_flags_t::empty());
                ok!(ze::zeCommandQueueGetOrdinal(q, &mut o));
                ok!(ze::zeCommandQueueGetIndex(q, &mut i));
                ok!(ze::zeCommandQueueGetMode(q, &mut m));
                ok!(ze::zeCommandQueueGetPriority(q, &mut p));
                ok!(ze::zeCommandQueueGetFlags(q, &mut f));
                assert_eq!((o, i, m, p, f), (desc.ordinal, desc.index, mode, priority, desc.flags));
                // Runs lists of its own group.
                let l = z.list(ordinal as u32);
                ok!(ze::zeCommandListAppendBarrier(l, null_mut(), 0, null_mut()));
                run(&z, q, l);
                ok!(ze::zeCommandListDestroy(l));
                ok!(ze::zeCommandQueueDestroy(q));
            }
        }
        // Index and ordinal checked.
        let mut q = null_mut();
        let bad_index = ze_command_queue_desc_t { ordinal: ordinal as u32, index: g.numQueues, ..Default::default() };
        check!(ze::zeCommandQueueCreate(z.ctx, z.dev, &bad_index, &mut q), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        let mut imm = null_mut();
        check!(ze::zeCommandListCreateImmediate(z.ctx, z.dev, &bad_index, &mut imm), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    let mut q = null_mut();
    let bad_ordinal = ze_command_queue_desc_t { ordinal: n, ..Default::default() };
    check!(ze::zeCommandQueueCreate(z.ctx, z.dev, &bad_ordinal, &mut q), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let desc = ze_command_list_desc_t { commandQueueGroupOrdinal: n, ..Default::default() };
    let mut l = null_mut();
    check!(ze::zeCommandListCreate(z.ctx, z.dev, &desc, &mut l), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Device-wide: every queue and immediate list drained; a system barrier.
    let imm = z.immediate(0, ASYNC);
    let p = z.host(1 << 20);
    fill(imm, p, &[3], 1 << 20, null_mut(), &mut []);
    ok!(ze::zeDeviceSynchronize(z.dev));
    // SAFETY: done.
    assert!(unsafe { bytes(p, 1 << 20) }.iter().all(|&x| x == 3));
    ok!(ze::zeContextSystemBarrier(z.ctx, z.dev));
    ok!(ze::zeCommandListDestroy(imm));
    z.free(p);
}

#[test]
fn event_and_pool_getters() {
    let z = Ze::new();
    let flags = ze_event_pool_flags_t::HOST_VISIBLE | ze_event_pool_flags_t::KERNEL_MAPPED_TIMESTAMP;
    let pool = z.pool(flags, 3);
    let desc = ze_event_desc_t {
        index: 2,
        signal: ze_event_scope_flags_t::DEVICE,
        wait: ze_event_scope_flags_t::HOST | ze_event_scope_flags_t::SUBDEVICE,
        ..Default::default()
    };
    let mut e = null_mut();
    ok!(ze::zeEventCreate(pool, &desc, &mut e));
    let (mut p, mut ctx, mut f) = (null_mut(), null_mut(), ze_event_pool_flags_t::empty());
    ok!(ze::zeEventGetEventPool(e, &mut p));
    ok!(ze::zeEventPoolGetContextHandle(pool, &mut ctx));
    ok!(ze::zeEventPoolGetFlags(pool, &mut f));
    assert_eq!((p, ctx, f), (pool, z.ctx, flags));
    let (mut s, mut w) = (ze_event_scope_flags_t::empty(), ze_event_scope_flags_t::empty());
    ok!(ze::zeEventGetSignalScope(e, &mut s));
    ok!(ze::zeEventGetWaitScope(e, &mut w));
    assert_eq!((s, w), (desc.signal, desc.wait));
    // Timestamps of a host-signaled event; NOT_READY before.
    let mut r = ze_kernel_timestamp_result_t::default();
    check!(ze::zeEventQueryKernelTimestamp(e, &mut r), ZE_RESULT_NOT_READY);
    ok!(ze::zeEventHostSignal(e));
    ok!(ze::zeEventQueryKernelTimestamp(e, &mut r));
    // Indices: in range, one live event each.
    let mut again = null_mut();
    check!(ze::zeEventCreate(pool, &desc, &mut again), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let far = ze_event_desc_t { index: 3, ..Default::default() };
    check!(ze::zeEventCreate(pool, &far, &mut again), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventCreate(pool, &desc, &mut again));
    // An event of a pool without timestamps has none.
    let plain = z.pool(ze_event_pool_flags_t::empty(), 1);
    let pe = z.event(plain, 0);
    ok!(ze::zeEventHostSignal(pe));
    check!(ze::zeEventQueryKernelTimestamp(pe, &mut r), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    for e in [again, pe] {
        ok!(ze::zeEventDestroy(e));
    }
    for p in [pool, plain] {
        ok!(ze::zeEventPoolDestroy(p));
    }
}

/// Destroying while work runs: a queue (or immediate list) waits for work that can finish,
/// and refuses (HANDLE_OBJECT_IN_USE) while its work waits for an event nobody signaled; a
/// regular list may go while a queue runs it.
#[test]
fn destroying_while_work_runs() {
    let z = Ze::new();
    let size = 64 << 20;
    let src = z.host(size);
    let dst = z.host(size);
    // SAFETY: `size` bytes.
    unsafe { std::ptr::write_bytes(src, 0x5c, size) };
    // A long copy: the destroy waits for it.
    let q = z.queue(0, ASYNC);
    let l = z.list(0);
    for _ in 0..4 {
        copy(l, dst, src, size, null_mut(), &mut []);
    }
    ok!(ze::zeCommandListClose(l));
    let mut lists = [l];
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), null_mut()));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
    // SAFETY: the queue drained before it went.
    assert!(unsafe { bytes(dst, size) }.iter().all(|&b| b == 0x5c));
    let imm = z.immediate(0, ASYNC);
    fill(imm, dst, &[1, 2, 3, 4], size, null_mut(), &mut []);
    ok!(ze::zeCommandListDestroy(imm));
    // SAFETY: as above.
    assert!(unsafe { bytes(dst, size) }.chunks(4).all(|c| c == [1, 2, 3, 4]));
    // Waiting for an event: refused until it is signaled.
    let pool = z.pool(ze_event_pool_flags_t::empty(), 1);
    let gate = z.event(pool, 0);
    let q = z.queue(1, ASYNC);
    let l = z.list(1);
    copy(l, dst, src, 4096, null_mut(), &mut [gate]);
    ok!(ze::zeCommandListClose(l));
    let mut lists = [l];
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), null_mut()));
    check!(ze::zeCommandQueueDestroy(q), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    check!(ze::zeEventDestroy(gate), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    check!(ze::zeEventPoolDestroy(pool), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeEventDestroy(gate));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeCommandListDestroy(l));
    z.free(src);
    z.free(dst);
}

#[test]
fn bad_use_gets_the_spec_codes() {
    let z = Ze::new();
    let imm = z.immediate(0, ASYNC);
    let copy_imm = z.immediate(1, ASYNC);
    let open = z.list(0);
    let closed = z.list(0);
    ok!(ze::zeCommandListClose(closed));
    let a = z.host(256);
    // Appending regular lists to an immediate one: closed, regular, same group.
    let mut lists = [open];
    check!(
        ze::zeCommandListImmediateAppendCommandListsExp(imm, 1, lists.as_mut_ptr(), null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    let mut lists = [closed];
    check!(
        ze::zeCommandListImmediateAppendCommandListsExp(copy_imm, 1, lists.as_mut_ptr(), null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE
    );
    check!(
        ze::zeCommandListImmediateAppendCommandListsExp(closed, 1, lists.as_mut_ptr(), null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    let mut lists = [imm];
    check!(
        ze::zeCommandListImmediateAppendCommandListsExp(copy_imm, 1, lists.as_mut_ptr(), null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // Region copies: sizes must match, pitches must hold the rows.
    let r1 = ze_copy_region_t { width: 8, height: 2, depth: 1, ..Default::default() };
    let r2 = ze_copy_region_t { width: 9, height: 2, depth: 1, ..Default::default() };
    check!(
        ze::zeCommandListAppendMemoryCopyRegion(open, a.cast(), &r1, 16, 0, a.wrapping_add(128).cast(), &r2, 16, 0, null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(
        ze::zeCommandListAppendMemoryCopyRegion(open, a.cast(), &r1, 4, 0, a.wrapping_add(128).cast(), &r1, 16, 0, null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // Interleaved rows of one buffer do not overlap; shifted ones do.
    let even = ze_copy_region_t { originX: 0, width: 8, height: 4, depth: 1, ..Default::default() };
    let odd = ze_copy_region_t { originX: 8, ..even };
    ok!(ze::zeCommandListAppendMemoryCopyRegion(open, a.cast(), &even, 16, 0, a.cast(), &odd, 16, 0, null_mut(), 0, null_mut()));
    let shifted = ze_copy_region_t { originX: 4, ..even };
    check!(
        ze::zeCommandListAppendMemoryCopyRegion(open, a.cast(), &even, 16, 0, a.cast(), &shifted, 16, 0, null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_OVERLAPPING_REGIONS
    );
    // Unknown advice (the generated validation); prefetch and known advice are accepted.
    ok!(ze::zeCommandListAppendMemoryPrefetch(open, a.cast(), 256));
    ok!(ze::zeCommandListAppendMemAdvise(open, z.dev, a.cast(), 256, ze_memory_advice_t::SET_READ_MOSTLY));
    check!(
        ze::zeCommandListAppendMemAdvise(open, z.dev, a.cast(), 256, ze_memory_advice_t(99)),
        ZE_RESULT_ERROR_INVALID_ENUMERATION
    );
    // Immediate-only queries of a regular list.
    let mut mode = DEFAULT;
    check!(ze::zeCommandListImmediateGetMode(open, &mut mode), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    for l in [imm, copy_imm, open, closed] {
        ok!(ze::zeCommandListDestroy(l));
    }
    z.free(a);
}

/// A host function that waits for its own queue cannot be answered by that queue: its waits
/// answer at once instead of hanging.
#[test]
fn host_function_waiting_for_its_own_queue_does_not_hang() {
    struct Probe {
        list: ze_command_list_handle_t,
        dev: ze_device_handle_t,
        results: [ze_result_t; 3],
    }
    extern "system" fn probe(data: *mut c_void) {
        // SAFETY: the test passes a live `Probe` and waits for this call.
        let p = unsafe { &mut *(data as *mut Probe) };
        // SAFETY: live handles.
        unsafe {
            p.results[0] = ze::zeCommandListHostSynchronize(p.list, FOREVER);
            p.results[1] = ze::zeCommandListDestroy(p.list);
            p.results[2] = ze::zeDeviceSynchronize(p.dev);
        }
    }
    let z = Ze::new();
    for mode in [ASYNC, SYNC] {
        let imm = z.immediate(0, mode);
        let mut p = Probe { list: imm, dev: z.dev, results: [ZE_RESULT_SUCCESS; 3] };
        ok!(ze::zeCommandListAppendHostFunction(
            imm,
            Some(probe),
            (&mut p as *mut Probe).cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut()
        ));
        ok!(ze::zeCommandListHostSynchronize(imm, FOREVER));
        assert_eq!(
            p.results,
            [ZE_RESULT_NOT_READY, ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, ZE_RESULT_SUCCESS],
            "{mode:?}"
        );
        ok!(ze::zeCommandListDestroy(imm));
    }
}

/// A host thread synchronizing an asynchronous list may run the queued work itself (no
/// hand-off to the queue's thread): chains of dependent copies stay in order, events signal
/// with ordered timestamps, work waiting for an event another thread signals later is waited
/// for, and host functions still run on the queue's thread, in order with the rest.
#[test]
fn synchronizing_hosts_run_queued_work_in_order() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("synchronizing_hosts_run_queued_work_in_order"));
    let imm = z.immediate(0, ASYNC);
    let n = 64usize;
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE | ze_event_pool_flags_t::KERNEL_TIMESTAMP, 2);
    let (ev, gate) = (z.event(pool, 0), z.event(pool, 1));
    static QUEUE_THREAD: std::sync::Mutex<Option<std::thread::ThreadId>> = std::sync::Mutex::new(None);
    extern "system" fn where_am_i(data: *mut c_void) {
        *QUEUE_THREAD.lock().unwrap() = Some(std::thread::current().id());
        // SAFETY: the test passes a pointer to `n` bytes it keeps alive.
        unsafe { *(data as *mut u8) = 0xab };
    }
    for round in 0..50 {
        let bufs: Vec<*mut u8> = (0..8).map(|_| z.host(n)).collect();
        let data = rng.bytes(n);
        // SAFETY: `n` bytes each.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), bufs[0], n) };
        // A chain: each copy reads what the one before wrote.
        for w in bufs.windows(2) {
            copy(imm, w[1], w[0], n, null_event(), &mut []);
        }
        if round % 5 == 0 {
            // A host function in the middle: it runs on the queue's thread, in order.
            ok!(ze::zeCommandListAppendHostFunction(imm, Some(where_am_i), bufs[7].cast(), null_mut(), null_mut(), 0, null_mut()));
        }
        copy(imm, bufs[0], bufs[7], 1, ev, &mut []);
        if round % 7 == 0 {
            // Work waiting for an event another thread signals later.
            ok!(ze::zeEventHostReset(gate));
            fill(imm, bufs[1], &[0x5a], n, null_event(), &mut [gate]);
            let g = gate as usize;
            let t = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(2));
                ok!(ze::zeEventHostSignal(g as ze_event_handle_t));
            });
            ok!(ze::zeCommandListHostSynchronize(imm, FOREVER));
            t.join().unwrap();
            // SAFETY: `n` bytes, the work is done.
            assert!(unsafe { std::slice::from_raw_parts(bufs[1], n) }.iter().all(|b| *b == 0x5a));
        } else if round % 2 == 1 {
            // The event the last command signals: everything before it has run too.
            ok!(ze::zeEventHostSynchronize(ev, FOREVER));
        } else {
            ok!(ze::zeCommandListHostSynchronize(imm, FOREVER));
        }
        ok!(ze::zeEventQueryStatus(ev));
        let mut ts = ze_kernel_timestamp_result_t::default();
        ok!(ze::zeEventQueryKernelTimestamp(ev, &mut ts));
        assert!(ts.global.kernelEnd >= ts.global.kernelStart);
        ok!(ze::zeEventHostReset(ev));
        for (i, b) in bufs.iter().enumerate().skip(2) {
            // SAFETY: `n` bytes each; the work is done.
            let got = unsafe { std::slice::from_raw_parts(*b, n) };
            if i == 7 && round % 5 == 0 {
                assert_eq!(got[0], 0xab, "round {round}");
                assert_eq!(&got[1..], &data[1..], "round {round}");
            } else {
                assert_eq!(got, &data[..], "round {round}: buffer {i}");
            }
        }
        let first = if round % 5 == 0 { 0xab } else { data[0] };
        // SAFETY: as above.
        assert_eq!(unsafe { *bufs[0] }, first, "round {round}");
        for b in bufs {
            z.free(b);
        }
    }
    assert_ne!(QUEUE_THREAD.lock().unwrap().unwrap(), std::thread::current().id());
    // The same through a queue and its fence: chains of copies in regular lists.
    let q = z.queue(0, ASYNC);
    let f = z.fence(q);
    for round in 0..20 {
        let bufs: Vec<*mut u8> = (0..4).map(|_| z.host(n)).collect();
        let data = rng.bytes(n);
        // SAFETY: `n` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), bufs[0], n) };
        let mut lists = Vec::new();
        for w in bufs.windows(2) {
            let l = z.list(0);
            copy(l, w[1], w[0], n, null_event(), &mut []);
            ok!(ze::zeCommandListClose(l));
            lists.push(l);
        }
        ok!(ze::zeFenceReset(f));
        ok!(ze::zeCommandQueueExecuteCommandLists(q, 2, lists.as_mut_ptr(), null_mut()));
        ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists[2..].as_mut_ptr(), f));
        if round % 2 == 0 {
            ok!(ze::zeFenceHostSynchronize(f, FOREVER));
        } else {
            ok!(ze::zeCommandQueueSynchronize(q, FOREVER));
        }
        // SAFETY: `n` bytes; the work is done.
        assert_eq!(unsafe { std::slice::from_raw_parts(bufs[3], n) }, &data[..], "round {round}");
        for l in lists {
            ok!(ze::zeCommandListDestroy(l));
        }
        for b in bufs {
            z.free(b);
        }
    }
    ok!(ze::zeFenceDestroy(f));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeEventDestroy(ev));
    ok!(ze::zeEventDestroy(gate));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeCommandListDestroy(imm));
}
