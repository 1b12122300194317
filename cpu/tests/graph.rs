//! Graph capture and replay through the C entry points: a captured copy/fill chain replayed
//! twice with its memory changed in between, forks and joins across immediate lists, subgraphs,
//! dumps and destruction callbacks, and the codes of capture misuse.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

use zeh::*;

const ASYNC: ze_command_queue_mode_t = ze_command_queue_mode_t::ASYNCHRONOUS;
const SYNC: ze_command_queue_mode_t = ze_command_queue_mode_t::SYNCHRONOUS;

fn begin(l: ze_command_list_handle_t) {
    ok!(ze::zeCommandListBeginGraphCaptureExt(l, std::ptr::null()));
}

fn end(l: ze_command_list_handle_t) -> ze_graph_handle_t {
    let mut g = null_mut();
    ok!(ze::zeCommandListEndGraphCaptureExt(l, std::ptr::null(), &mut g));
    assert!(!g.is_null());
    g
}

fn instantiate(g: ze_graph_handle_t) -> ze_executable_graph_handle_t {
    let mut x = null_mut();
    ok!(ze::zeGraphInstantiateExt(g, std::ptr::null(), &mut x));
    x
}

fn replay(l: ze_command_list_handle_t, x: ze_executable_graph_handle_t) {
    ok!(ze::zeCommandListAppendGraphExt(l, x, std::ptr::null(), null_mut(), 0, null_mut()));
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
}

fn capturing(l: ze_command_list_handle_t) -> ze_result_t {
    // SAFETY: a live list.
    unsafe { ze::zeCommandListIsGraphCaptureEnabledExt(l) }
}

/// Sets `n` bytes at `p` (the tests' idle buffers).
fn set(p: *mut u8, n: usize, v: u8) {
    // SAFETY: the tests' buffers.
    unsafe { std::ptr::write_bytes(p, v, n) };
}

fn get(p: *const u8, n: usize) -> Vec<u8> {
    // SAFETY: the tests' buffers, idle.
    unsafe { bytes(p, n) }.to_vec()
}

static DESTROYED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "system" fn on_destroy(data: *mut c_void) {
    DESTROYED.fetch_add(data as usize, Ordering::SeqCst);
}

#[test]
fn captured_chain_replays_with_memory_of_replay_time() {
    let z = Ze::new();
    let l = z.immediate(0, ASYNC);
    let (a, b, c) = (z.host(64), z.host(64), z.host(64));
    set(a, 64, 0xaa);
    set(b, 64, 0);
    set(c, 64, 0);
    assert_eq!(capturing(l), ZE_RESULT_QUERY_FALSE);
    begin(l);
    assert_eq!(capturing(l), ZE_RESULT_QUERY_TRUE);
    fill(l, a, &[0x11], 32, null_event(), &mut []);
    copy(l, b, a, 64, null_event(), &mut []);
    fill(l, c, &[0x22, 0x33], 64, null_event(), &mut []);
    // SAFETY: c and b hold 64 bytes.
    copy(l, c, unsafe { b.add(16) }, 16, null_event(), &mut []);
    let mut g0 = null_mut();
    ok!(ze::zeCommandListGetGraphExt(l, &mut g0));
    // Nothing ran (the barrier is recorded too).
    ok!(ze::zeCommandListAppendBarrier(l, null_mut(), 0, null_mut()));
    assert_eq!(get(a, 64), vec![0xaa; 64]);
    assert_eq!(get(b, 64), vec![0; 64]);
    let g = end(l);
    assert_eq!(g, g0);
    assert_eq!(capturing(l), ZE_RESULT_QUERY_FALSE);
    check!(ze::zeGraphIsEmptyExt(g), ZE_RESULT_QUERY_FALSE);
    let mut primary = null_mut();
    ok!(ze::zeGraphGetPrimaryCommandListExt(g, &mut primary));
    assert_eq!(primary, l);
    let x = instantiate(g);
    let mut source = null_mut();
    ok!(ze::zeExecutableGraphGetSourceGraphExt(x, &mut source));
    assert_eq!(source, g);
    // After the capture, appends run again.
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    assert_eq!(get(a, 64), vec![0xaa; 64]);

    replay(l, x);
    let mut want_b = vec![0x11; 32];
    want_b.extend([0xaa; 32]);
    assert_eq!(get(b, 64), want_b);
    let mut want_c: Vec<u8> = [0x22, 0x33].repeat(32);
    want_c[..16].copy_from_slice(&want_b[16..32]);
    assert_eq!(get(c, 64), want_c);

    // The commands hold pointers: a replay reads memory as it is then.
    set(a, 64, 0x5c);
    set(b, 64, 0);
    set(c, 64, 0);
    replay(l, x);
    let mut want_b = vec![0x11; 32];
    want_b.extend([0x5c; 32]);
    assert_eq!(get(b, 64), want_b);
    assert_eq!(&get(c, 64)[..16], &[0x11; 16]);
    assert_eq!(&get(c, 64)[16..18], &[0x22, 0x33]);

    // A replay signals its event and waits for its wait events.
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 2);
    let (go, done) = (z.event(pool, 0), z.event(pool, 1));
    set(b, 64, 0);
    let mut waits = [go];
    ok!(ze::zeCommandListAppendGraphExt(l, x, std::ptr::null(), done, 1, waits.as_mut_ptr()));
    std::thread::sleep(std::time::Duration::from_millis(20));
    check!(ze::zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    assert_eq!(get(b, 64), vec![0; 64]);
    ok!(ze::zeEventHostSignal(go));
    ok!(ze::zeEventHostSynchronize(done, FOREVER));
    assert_eq!(get(b, 64), want_b);

    // Dump.
    let path = std::env::temp_dir().join(format!("zekit-graph-{}.txt", std::process::id()));
    let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    ok!(ze::zeGraphDumpContentsExt(g, cpath.as_ptr(), std::ptr::null()));
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(text.contains("5 command(s)"), "{text}");
    assert!(text.contains("Fill") && text.contains("Copy"), "{text}");
    let simple = ze_record_replay_graph_ext_dump_desc_t {
        mode: ze_record_replay_graph_ext_dump_mode_t::SIMPLE,
        ..Default::default()
    };
    ok!(ze::zeGraphDumpContentsExt(g, cpath.as_ptr(), (&simple as *const ze_record_replay_graph_ext_dump_desc_t).cast()));
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(!text.contains("pattern"), "{text}");
    let bad = c"/nonexistent-dir/x/graph.txt";
    check!(ze::zeGraphDumpContentsExt(g, bad.as_ptr(), std::ptr::null()), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    // Destruction: the executable graph, then the graph (its callback runs once).
    ok!(ze::zeGraphSetDestructionCallbackExt(g, Some(on_destroy), 7usize as *mut c_void, std::ptr::null()));
    ok!(ze::zeExecutableGraphDestroyExt(x));
    let before = DESTROYED.load(Ordering::SeqCst);
    ok!(ze::zeGraphDestroyExt(g));
    assert_eq!(DESTROYED.load(Ordering::SeqCst) - before, 7);
    check!(ze::zeGraphDestroyExt(g), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ok!(ze::zeCommandListDestroy(l));
}

#[test]
fn capture_misuse_codes() {
    let z = Ze::new();
    let l = z.immediate(0, ASYNC);
    let mut g = null_mut();
    check!(ze::zeCommandListEndGraphCaptureExt(l, std::ptr::null(), &mut g), ZE_RESULT_ERROR_COMMAND_LIST_NOT_CAPTURING);
    // A failed call nulls its [out] handle (the seed's rule for zeCommandListGetGraphExt).
    g = 0x1234 as ze_graph_handle_t;
    check!(ze::zeCommandListGetGraphExt(l, &mut g), ZE_RESULT_ERROR_COMMAND_LIST_NOT_CAPTURING);
    assert!(g.is_null());
    g = 0x1234 as ze_graph_handle_t;
    check!(ze::zeCommandListEndGraphCaptureExt(l, std::ptr::null(), &mut g), ZE_RESULT_ERROR_COMMAND_LIST_NOT_CAPTURING);
    assert!(g.is_null());
    // zeGraphCreateExt with a dead context.
    let mut dead = null_mut();
    ok!(ze::zeContextCreate(z.drv, &ze_context_desc_t::default(), &mut dead));
    ok!(ze::zeContextDestroy(dead));
    g = 0x1234 as ze_graph_handle_t;
    check!(ze::zeGraphCreateExt(dead, std::ptr::null(), &mut g), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(g.is_null());
    // Regular and synchronous lists cannot capture.
    let r = z.list(0);
    check!(ze::zeCommandListBeginGraphCaptureExt(r, std::ptr::null()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let s = z.immediate(0, SYNC);
    check!(ze::zeCommandListBeginGraphCaptureExt(s, std::ptr::null()), ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED);
    // A graph never captured is empty and cannot be instantiated.
    let mut empty = null_mut();
    ok!(ze::zeGraphCreateExt(z.ctx, std::ptr::null(), &mut empty));
    check!(ze::zeGraphIsEmptyExt(empty), ZE_RESULT_QUERY_TRUE);
    let mut x = null_mut();
    check!(ze::zeGraphInstantiateExt(empty, std::ptr::null(), &mut x), ZE_RESULT_ERROR_INVALID_GRAPH);

    // Capture into it.
    ok!(ze::zeCommandListBeginCaptureIntoGraphExt(l, empty, std::ptr::null()));
    check!(ze::zeCommandListBeginGraphCaptureExt(l, std::ptr::null()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let l2 = z.immediate(0, ASYNC);
    check!(ze::zeCommandListBeginCaptureIntoGraphExt(l2, empty, std::ptr::null()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let e = z.event(pool, 0);
    let buf = z.host(16);
    fill(l, buf, &[1], 16, e, &mut []);
    check!(ze::zeGraphIsEmptyExt(empty), ZE_RESULT_QUERY_FALSE);
    // Synchronous operations on captured work.
    check!(ze::zeCommandListHostSynchronize(l, 0), ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED);
    check!(ze::zeEventHostSynchronize(e, 0), ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED);
    check!(ze::zeCommandListReset(l), ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED);
    check!(ze::zeCommandListDestroy(l), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    // A synchronous list cannot fork from the capture.
    let mut waits = [e];
    check!(ze::zeCommandListAppendBarrier(s, null_mut(), 1, waits.as_mut_ptr()), ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED);
    // The graph cannot be instantiated or destroyed while captured.
    check!(ze::zeGraphInstantiateExt(empty, std::ptr::null(), &mut x), ZE_RESULT_ERROR_INVALID_GRAPH);
    check!(ze::zeGraphDestroyExt(empty), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    let g = end(l);
    assert_eq!(g, empty);
    // Captured once: not again.
    check!(ze::zeCommandListBeginCaptureIntoGraphExt(l, g, std::ptr::null()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // The event was not signaled by the capture, and can be synchronized again.
    check!(ze::zeEventHostSynchronize(e, 0), ZE_RESULT_NOT_READY);
    let x = instantiate(g);
    // Replays need an immediate list of the capture's queue group.
    check!(ze::zeCommandListAppendGraphExt(r, x, std::ptr::null(), null_mut(), 0, null_mut()), ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
    let mut n = 0u32;
    ok!(ze::zeDeviceGetCommandQueueGroupProperties(z.dev, &mut n, null_mut()));
    if n > 1 {
        let other = z.immediate(1, ASYNC);
        check!(ze::zeCommandListAppendGraphExt(other, x, std::ptr::null(), null_mut(), 0, null_mut()), ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
    }
    replay(l, x);
    ok!(ze::zeEventHostSynchronize(e, FOREVER));
    assert_eq!(get(buf, 16), vec![1; 16]);
    ok!(ze::zeExecutableGraphDestroyExt(x));
    ok!(ze::zeGraphDestroyExt(g));
}

#[test]
fn forks_joins_and_merges() {
    let z = Ze::new();
    let (l1, l2, l3) = (z.immediate(0, ASYNC), z.immediate(0, ASYNC), z.immediate(0, ASYNC));
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 8);
    let e: Vec<_> = (0..8).map(|i| z.event(pool, i)).collect();
    let (a, b, c) = (z.host(32), z.host(32), z.host(32));
    set(a, 32, 0);
    set(b, 32, 0);
    set(c, 32, 0);
    begin(l1);
    fill(l1, a, &[3], 32, e[0], &mut []);
    // l2 waits on captured work: it forks into the capture.
    copy(l2, b, a, 32, e[1], &mut [e[0]]);
    assert_eq!(capturing(l2), ZE_RESULT_QUERY_TRUE);
    // l3 forks too, but appends work after its last signal the parent waits for.
    ok!(ze::zeCommandListAppendBarrier(l3, e[2], 1, [e[0]].as_mut_ptr()));
    fill(l3, c, &[9], 16, null_event(), &mut []);
    // The parent joins l2.
    copy(l1, c, b, 32, null_event(), &mut [e[1]]);
    let mut g = null_mut();
    check!(ze::zeCommandListEndGraphCaptureExt(l1, std::ptr::null(), &mut g), ZE_RESULT_ERROR_GRAPH_UNJOINED_FORKS);
    assert_eq!(capturing(l1), ZE_RESULT_QUERY_TRUE);
    // Only the primary list ends the capture.
    check!(ze::zeCommandListEndGraphCaptureExt(l2, std::ptr::null(), &mut g), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Join l3: it signals, the parent waits.
    ok!(ze::zeCommandListAppendSignalEvent(l3, e[3]));
    ok!(ze::zeCommandListAppendWaitOnEvents(l1, 1, [e[3]].as_mut_ptr()));
    let g = end(l1);
    for l in [l1, l2, l3] {
        assert_eq!(capturing(l), ZE_RESULT_QUERY_FALSE);
    }
    // Nothing ran, no event was signaled.
    assert_eq!(get(b, 32), vec![0; 32]);
    for ev in &e[..4] {
        check!(ze::zeEventQueryStatus(*ev), ZE_RESULT_NOT_READY);
    }
    let x = instantiate(g);
    for round in 0..2u8 {
        set(b, 32, 0);
        set(c, 32, 0);
        for ev in &e[..4] {
            ok!(ze::zeEventHostReset(*ev));
        }
        replay(l1, x);
        assert_eq!(get(b, 32), vec![3; 32], "round {round}");
        // The copy c <- b ran after l3's fill of c (capture order).
        assert_eq!(get(c, 32), vec![3; 32], "round {round}");
    }

    // Two captures cannot merge.
    begin(l1);
    begin(l3);
    fill(l1, a, &[1], 32, e[4], &mut []);
    let mut waits = [e[4]];
    check!(ze::zeCommandListAppendBarrier(l3, null_mut(), 1, waits.as_mut_ptr()), ZE_RESULT_ERROR_GRAPH_CAPTURE_MERGE_ATTEMPT);
    fill(l3, b, &[2], 32, e[5], &mut []);
    // A free list waiting on both captures' events.
    let mut both = [e[4], e[5]];
    check!(ze::zeCommandListAppendBarrier(l2, null_mut(), 2, both.as_mut_ptr()), ZE_RESULT_ERROR_GRAPH_CAPTURE_MERGE_ATTEMPT);
    let g1 = end(l1);
    let g3 = end(l3);

    // Subgraphs: a capture that appends an executable graph records it.
    let x1 = instantiate(g1);
    begin(l2);
    ok!(ze::zeCommandListAppendGraphExt(l2, x1, std::ptr::null(), null_mut(), 0, null_mut()));
    copy(l2, c, a, 32, null_event(), &mut []);
    let g2 = end(l2);
    let x2 = instantiate(g2);
    set(a, 32, 0);
    set(c, 32, 0);
    ok!(ze::zeEventHostReset(e[4]));
    replay(l2, x2);
    assert_eq!(get(c, 32), vec![1; 32]);
    for x in [x, x1, x2] {
        ok!(ze::zeExecutableGraphDestroyExt(x));
    }
    for g in [g, g1, g2, g3] {
        ok!(ze::zeGraphDestroyExt(g));
    }
}

#[test]
fn device_reports_record_replay() {
    let z = Ze::new();
    let mut rr = ze_record_replay_graph_ext_properties_t::default();
    let mut p = ze_device_properties_t {
        pNext: (&mut rr as *mut ze_record_replay_graph_ext_properties_t).cast(),
        ..Default::default()
    };
    ok!(ze::zeDeviceGetProperties(z.dev, &mut p));
    assert!(rr.graphFlags.intersects(ze_record_replay_graph_ext_flags_t::SUBGRAPHS));
    assert!(rr.graphFlags.intersects(ze_record_replay_graph_ext_flags_t::IMMUTABLE_GRAPH));
}

#[test]
fn work_after_a_join_invalidates_the_capture() {
    let z = Ze::new();
    let (l1, l2) = (z.immediate(0, ASYNC), z.immediate(0, ASYNC));
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 8);
    let e: Vec<_> = (0..8).map(|i| z.event(pool, i)).collect();
    let (a, b, c) = (z.host(32), z.host(32), z.host(32));
    let mut g = null_mut();
    ok!(ze::zeGraphCreateExt(z.ctx, std::ptr::null(), &mut g));

    // Work after a join, then another join with the child's last signal: valid (only the last
    // signal joins), and a signal or wait after a join is no work.
    begin(l1);
    fill(l1, a, &[1], 32, e[0], &mut []);
    copy(l2, b, a, 32, e[1], &mut [e[0]]);
    copy(l1, c, b, 32, null_event(), &mut [e[1]]);
    fill(l2, b, &[2], 32, e[2], &mut []);
    ok!(ze::zeCommandListAppendWaitOnEvents(l1, 1, [e[2]].as_mut_ptr()));
    ok!(ze::zeCommandListAppendSignalEvent(l2, e[3]));
    ok!(ze::zeCommandListAppendWaitOnEvents(l2, 1, [e[0]].as_mut_ptr()));
    let valid = end(l1);

    // Work after the (last) join and no join after it: the capture is invalidated.
    ok!(ze::zeCommandListBeginCaptureIntoGraphExt(l1, g, std::ptr::null()));
    fill(l1, a, &[1], 32, e[4], &mut []);
    copy(l2, b, a, 32, e[5], &mut [e[4]]);
    assert_eq!(capturing(l2), ZE_RESULT_QUERY_TRUE);
    copy(l1, c, b, 32, null_event(), &mut [e[5]]);
    fill(l2, b, &[2], 32, null_event(), &mut []);
    let mut out = null_mut();
    check!(ze::zeCommandListEndGraphCaptureExt(l1, std::ptr::null(), &mut out), ZE_RESULT_ERROR_GRAPH_CAPTURE_INVALIDATED);
    assert!(last_error().contains("after they were joined"), "{}", last_error());
    // The capture is over on every list; the graph is invalid.
    assert_eq!(capturing(l1), ZE_RESULT_QUERY_FALSE);
    assert_eq!(capturing(l2), ZE_RESULT_QUERY_FALSE);
    let mut x = null_mut();
    check!(ze::zeGraphInstantiateExt(g, std::ptr::null(), &mut x), ZE_RESULT_ERROR_GRAPH_CAPTURE_INVALIDATED);
    check!(ze::zeCommandListBeginCaptureIntoGraphExt(l1, g, std::ptr::null()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // The lists work normally again.
    set(a, 32, 0);
    fill(l2, a, &[4], 32, null_event(), &mut []);
    ok!(ze::zeCommandListHostSynchronize(l2, FOREVER));
    assert_eq!(get(a, 32), vec![4; 32]);
    ok!(ze::zeGraphDestroyExt(g));

    // The same with a graph the driver made: it is released (its destruction callback runs),
    // the lists free.
    static INVALIDATED_GONE: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "system" fn gone(_: *mut c_void) {
        INVALIDATED_GONE.fetch_add(1, Ordering::SeqCst);
    }
    begin(l1);
    let mut implicit = null_mut();
    ok!(ze::zeCommandListGetGraphExt(l1, &mut implicit));
    ok!(ze::zeGraphSetDestructionCallbackExt(implicit, Some(gone), null_mut(), std::ptr::null()));
    fill(l1, a, &[1], 32, e[6], &mut []);
    copy(l2, b, a, 32, e[7], &mut [e[6]]);
    copy(l1, c, b, 32, null_event(), &mut [e[7]]);
    fill(l2, b, &[2], 32, null_event(), &mut []);
    out = 0x1234 as ze_graph_handle_t;
    check!(ze::zeCommandListEndGraphCaptureExt(l1, std::ptr::null(), &mut out), ZE_RESULT_ERROR_GRAPH_CAPTURE_INVALIDATED);
    assert!(out.is_null());
    assert_eq!(capturing(l1), ZE_RESULT_QUERY_FALSE);
    assert_eq!(INVALIDATED_GONE.load(Ordering::SeqCst), 1);
    check!(ze::zeGraphIsEmptyExt(implicit), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    let xv = instantiate(valid);
    ok!(ze::zeExecutableGraphDestroyExt(xv));
    ok!(ze::zeGraphDestroyExt(valid));
}

#[test]
fn internal_counter_based_events_stay_inside_the_capture() {
    type F = ze_event_counter_based_flags_t;
    let z = Ze::new();
    let (l1, l2, l3) = (z.immediate(0, ASYNC), z.immediate(0, ASYNC), z.immediate(0, ASYNC));
    let both = F::IMMEDIATE | F::NON_IMMEDIATE;
    let internal = z.counter_event(both);
    let external = z.counter_event(both | F::GRAPH_EXTERNAL);
    let r = z.list(0);
    let a = z.host(64);
    begin(l1);
    fill(l1, a, &[1], 32, internal, &mut []);
    // SAFETY: a holds 64 bytes.
    fill(l1, unsafe { a.add(32) }, &[2], 32, external, &mut []);
    // The host, a regular list and a list outside the capture cannot use the internal event.
    check!(ze::zeEventHostSynchronize(internal, 0), ZE_RESULT_ERROR_GRAPH_INTERNAL_EVENT);
    assert!(last_error().contains("GRAPH_EXTERNAL"), "{}", last_error());
    check!(ze::zeEventQueryStatus(internal), ZE_RESULT_ERROR_GRAPH_INTERNAL_EVENT);
    check!(ze::zeCommandListAppendBarrier(r, null_mut(), 1, [internal].as_mut_ptr()), ZE_RESULT_ERROR_GRAPH_INTERNAL_EVENT);
    check!(ze::zeCommandListAppendBarrier(r, internal, 0, null_mut()), ZE_RESULT_ERROR_GRAPH_INTERNAL_EVENT);
    check!(ze::zeCommandListAppendBarrier(l3, internal, 0, null_mut()), ZE_RESULT_ERROR_GRAPH_INTERNAL_EVENT);
    assert_eq!(capturing(l3), ZE_RESULT_QUERY_FALSE);
    // The external one may be used outside (a host wait on captured work stays unsupported).
    check!(ze::zeEventHostSynchronize(external, 0), ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED);
    ok!(ze::zeCommandListAppendBarrier(r, null_mut(), 1, [external].as_mut_ptr()));
    // An immediate list waiting on the internal event forks into the capture (inside the graph).
    ok!(ze::zeCommandListAppendBarrier(l2, null_mut(), 1, [internal].as_mut_ptr()));
    assert_eq!(capturing(l2), ZE_RESULT_QUERY_TRUE);
    // An IPC counter-based event with GRAPH_EXTERNAL cannot be captured (no CB_EXTERNAL_IPC).
    let ipc_external = z.counter_event(both | F::IPC | F::GRAPH_EXTERNAL);
    check!(ze::zeCommandListAppendBarrier(l1, ipc_external, 0, null_mut()), ZE_RESULT_ERROR_GRAPH_CAPTURE_UNSUPPORTED);
    let g = end(l1);
    // After the capture the event is the application's again.
    ok!(ze::zeEventQueryStatus(internal));
    ok!(ze::zeEventHostSynchronize(internal, 0));
    ok!(ze::zeCommandListAppendBarrier(l3, internal, 0, null_mut()));
    ok!(ze::zeCommandListHostSynchronize(l3, FOREVER));
    let x = instantiate(g);
    set(a, 64, 0);
    replay(l1, x);
    ok!(ze::zeEventHostSynchronize(internal, FOREVER));
    let mut want = vec![1; 32];
    want.extend([2; 32]);
    assert_eq!(get(a, 64), want);
    ok!(ze::zeExecutableGraphDestroyExt(x));
    ok!(ze::zeGraphDestroyExt(g));
    ok!(ze::zeCommandListDestroy(r));
}

/// A non-atomic increment of the `Counter` it is given, with yields between the read and the
/// write, and a check that no other run of it overlaps.
struct Counter {
    value: std::cell::UnsafeCell<u64>,
    running: std::sync::atomic::AtomicBool,
    overlaps: AtomicUsize,
}

// SAFETY: `value` is only touched by `increment`, whose runs the test checks do not overlap.
unsafe impl Sync for Counter {}

unsafe extern "system" fn increment(data: *mut c_void) {
    // SAFETY: the test passes a live `Counter`.
    let c = unsafe { &*(data as *const Counter) };
    if c.running.swap(true, Ordering::SeqCst) {
        c.overlaps.fetch_add(1, Ordering::SeqCst);
    }
    // SAFETY: see `Counter`.
    let v = unsafe { *c.value.get() };
    for _ in 0..20 {
        std::thread::yield_now();
    }
    // SAFETY: see `Counter`.
    unsafe { *c.value.get() = v + 1 };
    c.running.store(false, Ordering::SeqCst);
}

#[test]
fn replays_of_one_executable_graph_on_several_lists_run_one_at_a_time() {
    let z = Ze::new();
    let lists: Vec<_> = (0..3).map(|_| z.immediate(0, ASYNC)).collect();
    let counter = Counter {
        value: std::cell::UnsafeCell::new(0),
        running: std::sync::atomic::AtomicBool::new(false),
        overlaps: AtomicUsize::new(0),
    };
    let data = &counter as *const Counter as *mut c_void;
    begin(lists[0]);
    for _ in 0..2 {
        ok!(ze::zeCommandListAppendHostFunction(lists[0], Some(increment), data, null_mut(), null_mut(), 0, null_mut()));
    }
    let g = end(lists[0]);
    let x = instantiate(g);
    let rounds = 40;
    for _ in 0..rounds {
        for &l in &lists {
            ok!(ze::zeCommandListAppendGraphExt(l, x, std::ptr::null(), null_mut(), 0, null_mut()));
        }
    }
    for &l in &lists {
        ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    }
    assert_eq!(counter.overlaps.load(Ordering::SeqCst), 0, "two replays of the graph overlapped");
    // SAFETY: every replay ran (the lists synchronized).
    assert_eq!(unsafe { *counter.value.get() }, 2 * rounds * lists.len() as u64);
    ok!(ze::zeExecutableGraphDestroyExt(x));
    ok!(ze::zeGraphDestroyExt(g));
}
