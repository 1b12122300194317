//! Mutable command lists (`ZE_experimental_mutable_command_list`) through the generated C
//! entry points: each change, then the list run again with its results checked, and each
//! misuse's code.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use zeh::*;

type F = ze_mutable_command_exp_flags_t;

fn groups(x: u32, y: u32, z: u32) -> ze_group_count_t {
    ze_group_count_t {
        groupCountX: x,
        groupCountY: y,
        groupCountZ: z,
    }
}

fn mutable_list(z: &Ze) -> ze_command_list_handle_t {
    let m = ze_mutable_command_list_exp_desc_t::default();
    let desc = ze_command_list_desc_t {
        pNext: (&m as *const ze_mutable_command_list_exp_desc_t).cast(),
        ..Default::default()
    };
    let mut l = null_mut();
    ok!(ze::zeCommandListCreate(z.ctx, z.dev, &desc, &mut l));
    l
}

fn id_desc(flags: F) -> ze_mutable_command_id_exp_desc_t {
    ze_mutable_command_id_exp_desc_t {
        flags,
        ..Default::default()
    }
}

fn next_id(l: ze_command_list_handle_t, flags: F) -> u64 {
    let mut id = 0;
    ok!(ze::zeCommandListGetNextCommandIdExp(l, &id_desc(flags), &mut id));
    id
}

fn launch(l: ze_command_list_handle_t, k: ze_kernel_handle_t, g: ze_group_count_t) {
    ok!(ze::zeCommandListAppendLaunchKernel(l, k, &g, null_mut(), 0, null_mut()));
}

/// A change of an argument to the bytes of `v`.
fn arg_desc<T>(id: u64, index: u32, v: &T) -> ze_mutable_kernel_argument_exp_desc_t {
    ze_mutable_kernel_argument_exp_desc_t {
        commandId: id,
        argIndex: index,
        argSize: std::mem::size_of::<T>(),
        pArgValue: (v as *const T).cast(),
        ..Default::default()
    }
}

/// `zeCommandListUpdateMutableCommandsExp` with `links` chained in order (each starts with
/// stype and pNext).
fn update(l: ze_command_list_handle_t, links: &mut [*mut ze_base_desc_t]) -> ze_result_t {
    for i in 0..links.len() {
        let next = links.get(i + 1).copied().unwrap_or(null_mut());
        // SAFETY: each link is a live descriptor that starts with stype and pNext.
        unsafe { (*links[i]).pNext = next.cast() };
    }
    let head = ze_mutable_commands_exp_desc_t {
        pNext: links.first().copied().unwrap_or(null_mut()).cast(),
        ..Default::default()
    };
    // SAFETY: a valid list handle and a chain of live descriptors.
    unsafe { ze::zeCommandListUpdateMutableCommandsExp(l, &head) }
}

fn link<T>(d: &mut T) -> *mut ze_base_desc_t {
    (d as *mut T).cast()
}

fn read_f32(p: *const f32, n: usize) -> Vec<f32> {
    read(p, n)
}

#[test]
fn kernel_arguments_and_group_count_change_the_next_run() {
    let z = Ze::new();
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let m = module(&z, &spv("saxpy"));
    let k = kernel(m, "saxpy");
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    let n = 64usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (px, py, py2) = (buffer(&z, &x), buffer(&z, &vec![1f32; n]), buffer(&z, &vec![10f32; n]));
    arg(k, 0, &2f32);
    arg(k, 1, &px);
    arg(k, 2, &py);
    arg(k, 3, &(n as u32));
    let l = mutable_list(&z);
    let mut is = 0u8;
    ok!(ze::zeCommandListIsMutableExp(l, &mut is));
    assert_eq!(is, 1);
    let id = next_id(l, F::KERNEL_ARGUMENTS | F::GROUP_COUNT);
    launch(l, k, groups(n as u32 / 8, 1, 1));
    run(&z, q, l);
    let y = read_f32(py, n);
    assert!((0..n).all(|i| y[i] == 2.0 * i as f32 + 1.0), "{y:?}");

    // a = 3, y = the second buffer, half the groups (the bound n stays 64).
    let (mut a, mut yarg) = (arg_desc(id, 0, &3f32), arg_desc(id, 2, &py2));
    let half = groups(n as u32 / 16, 1, 1);
    let mut count = ze_mutable_group_count_exp_desc_t {
        commandId: id,
        pGroupCount: &half,
        ..Default::default()
    };
    assert_eq!(update(l, &mut [link(&mut a), link(&mut yarg), link(&mut count)]), ZE_RESULT_SUCCESS, "{}", last_error());
    ok!(ze::zeCommandListClose(l));
    run(&z, q, l);
    let (y, y2) = (read_f32(py, n), read_f32(py2, n));
    assert!((0..n).all(|i| y[i] == 2.0 * i as f32 + 1.0), "first buffer untouched: {y:?}");
    for (i, v) in y2.iter().enumerate() {
        let want = if i < n / 2 { 3.0 * i as f32 + 10.0 } else { 10.0 };
        assert_eq!(*v, want, "element {i}");
    }
    // The kernel object keeps its own arguments: a regular list launches with a = 2 into y.
    let plain = z.list(0);
    launch(plain, k, groups(n as u32 / 8, 1, 1));
    run(&z, q, plain);
    let y = read_f32(py, n);
    assert!((0..n).all(|i| y[i] == 4.0 * i as f32 + 1.0), "{y:?}");
    ok!(ze::zeCommandListDestroy(plain));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
}

/// A submission made before an update runs the commands it was given; the next one the
/// changed ones.
#[test]
fn submitted_work_keeps_its_commands() {
    let z = Ze::new();
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let m = module(&z, &spv("saxpy"));
    let k = kernel(m, "saxpy");
    let n = 32usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (px, py) = (buffer(&z, &x), buffer(&z, &vec![1f32; n]));
    arg(k, 0, &2f32);
    arg(k, 1, &px);
    arg(k, 2, &py);
    arg(k, 3, &(n as u32));
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let gate = z.event(pool, 0);
    let l = mutable_list(&z);
    let id = next_id(l, F::KERNEL_ARGUMENTS);
    let mut waits = [gate];
    let g = groups(n as u32, 1, 1);
    ok!(ze::zeCommandListAppendLaunchKernel(l, k, &g, null_mut(), 1, waits.as_mut_ptr()));
    ok!(ze::zeCommandListClose(l));
    let mut lists = [l];
    // The first run waits on the gate; the update comes meanwhile; the second run follows.
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), null_mut()));
    let mut a = arg_desc(id, 0, &3f32);
    assert_eq!(update(l, &mut [link(&mut a)]), ZE_RESULT_SUCCESS, "{}", last_error());
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), null_mut()));
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeCommandQueueSynchronize(q, FOREVER));
    let y = read_f32(py, n);
    assert!((0..n).all(|i| y[i] == 5.0 * i as f32 + 1.0), "2x then 3x added: {y:?}");
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
}

#[test]
fn group_size_and_global_offset_change_the_next_run() {
    let z = Ze::new();
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let m = module(&z, &spv("builtins"));
    let k = kernel(m, "builtins");
    let items = 16usize;
    let out = buffer(&z, &vec![0u64; items * 24]);
    arg(k, 0, &out);
    ok!(ze::zeKernelSetGroupSize(k, 4, 1, 1));
    let l = mutable_list(&z);
    let id = next_id(l, F::GROUP_SIZE | F::GLOBAL_OFFSET | F::GROUP_COUNT);
    launch(l, k, groups(4, 1, 1));
    run(&z, q, l);
    let o = read(out, items * 24);
    assert_eq!((o[4], o[5], o[6]), (4, 4, 0), "local size, groups, offset of item 0");

    let mut size = ze_mutable_group_size_exp_desc_t {
        commandId: id,
        groupSizeX: 8,
        groupSizeY: 1,
        groupSizeZ: 1,
        ..Default::default()
    };
    let two = groups(2, 1, 1);
    let mut count = ze_mutable_group_count_exp_desc_t {
        commandId: id,
        pGroupCount: &two,
        ..Default::default()
    };
    let mut offset = ze_mutable_global_offset_exp_desc_t {
        commandId: id,
        offsetX: 100,
        ..Default::default()
    };
    assert_eq!(update(l, &mut [link(&mut size), link(&mut count), link(&mut offset)]), ZE_RESULT_SUCCESS, "{}", last_error());
    run(&z, q, l);
    let o = read(out, items * 24);
    for i in 0..items {
        let r = &o[i * 24..i * 24 + 7];
        assert_eq!(r, &[100 + i as u64, i as u64 % 8, i as u64 / 8, 16, 8, 2, 100], "item {i}");
    }
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
}

fn signaled(e: ze_event_handle_t) -> bool {
    // SAFETY: a live event.
    unsafe { ze::zeEventQueryStatus(e) == ZE_RESULT_SUCCESS }
}

#[test]
fn signal_and_wait_events_change() {
    let z = Ze::new();
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 4);
    let (s1, s2, w1, w2) = (z.event(pool, 0), z.event(pool, 1), z.event(pool, 2), z.event(pool, 3));
    let l = mutable_list(&z);
    let id = next_id(l, F::SIGNAL_EVENT | F::WAIT_EVENTS);
    let mut waits = [w1];
    ok!(ze::zeCommandListAppendBarrier(l, s1, 1, waits.as_mut_ptr()));
    ok!(ze::zeEventHostSignal(w1));
    run(&z, q, l);
    assert!(signaled(s1) && !signaled(s2));

    ok!(ze::zeCommandListUpdateMutableCommandSignalEventExp(l, id, s2));
    let mut waits = [w2];
    ok!(ze::zeCommandListUpdateMutableCommandWaitEventsExp(l, id, 1, waits.as_mut_ptr()));
    ok!(ze::zeEventHostReset(s1));
    ok!(ze::zeEventHostReset(w1));
    ok!(ze::zeEventHostSignal(w2));
    run(&z, q, l);
    assert!(!signaled(s1) && signaled(s2), "the new event signaled, after the new wait");

    // More waits than the command was appended with.
    let mut two = [w1, w2];
    check!(ze::zeCommandListUpdateMutableCommandWaitEventsExp(l, id, 2, two.as_mut_ptr()), ZE_RESULT_ERROR_INVALID_SIZE);
    check!(ze::zeCommandListUpdateMutableCommandWaitEventsExp(l, id, 1, null_mut()), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    // None at all, and no signal: the command runs unconditionally and signals nothing.
    ok!(ze::zeCommandListUpdateMutableCommandWaitEventsExp(l, id, 0, null_mut()));
    ok!(ze::zeCommandListUpdateMutableCommandSignalEventExp(l, id, null_mut()));
    ok!(ze::zeEventHostReset(s2));
    ok!(ze::zeEventHostReset(w2));
    run(&z, q, l);
    assert!(!signaled(s1) && !signaled(s2));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
}

fn next_id_with(l: ze_command_list_handle_t, flags: F, kernels: &mut [ze_kernel_handle_t]) -> u64 {
    let mut id = 0;
    ok!(ze::zeCommandListGetNextCommandIdWithKernelsExp(
        l,
        &id_desc(flags),
        kernels.len() as u32,
        kernels.as_mut_ptr(),
        &mut id
    ));
    id
}

fn switch(l: ze_command_list_handle_t, id: u64, k: ze_kernel_handle_t) -> ze_result_t {
    let (mut ids, mut ks) = ([id], [k]);
    // SAFETY: a valid list and arrays of one element.
    unsafe { ze::zeCommandListUpdateMutableCommandKernelsExp(l, 1, ids.as_mut_ptr(), ks.as_mut_ptr()) }
}

#[test]
fn kernels_switch_among_those_named() {
    let z = Ze::new();
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let m = module(&z, &spv("attrs"));
    // out[i] = i + 1, + 2, + 3, + 4.
    let (k1, k2, k3, k4) = (kernel(m, "attrs_uint"), kernel(m, "attrs_double2"), kernel(m, "attrs_char16"), kernel(m, "attrs_none"));
    let n = 32usize;
    let (out, out2) = (buffer(&z, &vec![0u32; n]), buffer(&z, &vec![0u32; n]));
    for k in [k1, k2, k4] {
        arg(k, 0, &out);
        ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    }
    ok!(ze::zeKernelSetGroupSize(k3, 4, 1, 1));
    let l = mutable_list(&z);
    let id = next_id_with(l, F::KERNEL_INSTRUCTION | F::KERNEL_ARGUMENTS, &mut [k2, k3]);
    launch(l, k1, groups(n as u32 / 8, 1, 1));
    run(&z, q, l);
    assert_eq!(read(out, n), (1..=n as u32).collect::<Vec<_>>());

    assert_eq!(switch(l, id, k2), ZE_RESULT_SUCCESS, "{}", last_error());
    run(&z, q, l);
    assert_eq!(read(out, n), (2..n as u32 + 2).collect::<Vec<_>>());

    // Not named for this id.
    assert_eq!(switch(l, id, k4), ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE);
    // k3 has no argument set: the list cannot run until the update gives it.
    assert_eq!(switch(l, id, k3), ZE_RESULT_SUCCESS, "{}", last_error());
    let f = z.fence(q);
    let mut lists = [l];
    check!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), f), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("argument 0"), "{}", last_error());
    let mut a = arg_desc(id, 0, &out2);
    assert_eq!(update(l, &mut [link(&mut a)]), ZE_RESULT_SUCCESS, "{}", last_error());
    ok!(ze::zeCommandQueueExecuteCommandLists(q, 1, lists.as_mut_ptr(), f));
    ok!(ze::zeFenceHostSynchronize(f, FOREVER));
    // k3's group size (4) with the group count the command had (4 groups): 16 items.
    let want: Vec<u32> = (0..n as u32).map(|i| if i < 16 { i + 3 } else { 0 }).collect();
    assert_eq!(read(out2, n), want);
    // Back to the kernel the command was appended with (not in the list given, allowed).
    assert_eq!(switch(l, id, k1), ZE_RESULT_SUCCESS, "{}", last_error());
    run(&z, q, l);
    assert_eq!(read(out, n), (1..=n as u32).collect::<Vec<_>>());
    ok!(ze::zeFenceDestroy(f));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
}

#[test]
fn misuse_has_its_codes() {
    let z = Ze::new();
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let m = module(&z, &spv("saxpy"));
    let k = kernel(m, "saxpy");
    let n = 16usize;
    let (px, py) = (buffer(&z, &vec![1f32; n]), buffer(&z, &vec![0f32; n]));
    arg(k, 0, &2f32);
    arg(k, 1, &px);
    arg(k, 2, &py);
    arg(k, 3, &(n as u32));
    let mut id = 0u64;

    // Lists that are not mutable.
    let plain = z.list(0);
    let mut is = 1u8;
    ok!(ze::zeCommandListIsMutableExp(plain, &mut is));
    assert_eq!(is, 0);
    check!(ze::zeCommandListGetNextCommandIdExp(plain, &id_desc(F::KERNEL_ARGUMENTS), &mut id), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("not a mutable command list"), "{}", last_error());
    ok!(ze::zeCommandListClose(plain));
    check!(ze::zeCommandListUpdateMutableCommandSignalEventExp(plain, 1, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let imm = z.immediate(0, ze_command_queue_mode_t::SYNCHRONOUS);
    ok!(ze::zeCommandListIsMutableExp(imm, &mut is));
    assert_eq!(is, 0);
    check!(ze::zeCommandListGetNextCommandIdExp(imm, &id_desc(F::KERNEL_ARGUMENTS), &mut id), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    // Creation flags: none defined.
    let bad = ze_mutable_command_list_exp_desc_t {
        flags: ze_mutable_command_list_exp_flags_t::RESERVED,
        ..Default::default()
    };
    let desc = ze_command_list_desc_t {
        pNext: (&bad as *const ze_mutable_command_list_exp_desc_t).cast(),
        ..Default::default()
    };
    let mut h = null_mut();
    check!(ze::zeCommandListCreate(z.ctx, z.dev, &desc, &mut h), ZE_RESULT_ERROR_INVALID_ENUMERATION);

    let l = mutable_list(&z);
    check!(ze::zeCommandListGetNextCommandIdExp(l, &id_desc(F::GRAPH_ARGUMENTS), &mut id), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    check!(
        ze::zeCommandListGetNextCommandIdWithKernelsExp(l, &id_desc(F::KERNEL_INSTRUCTION), 2, null_mut(), &mut id),
        ZE_RESULT_ERROR_INVALID_NULL_POINTER
    );
    // Kernel parts on a command that is not a launch: the append fails, the id stays.
    let id1 = next_id(l, F::KERNEL_ARGUMENTS | F::SIGNAL_EVENT);
    check!(ze::zeCommandListAppendBarrier(l, null_mut(), 0, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    launch(l, k, groups(2, 1, 1));
    // A group count cannot change on an indirect launch.
    next_id(l, F::GROUP_COUNT);
    let g = groups(2, 1, 1);
    check!(ze::zeCommandListAppendLaunchKernelIndirect(l, k, &g, null_mut(), 0, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // An id replaced before its append names nothing.
    let lost = next_id(l, F::KERNEL_ARGUMENTS);
    let id2 = next_id(l, F::KERNEL_ARGUMENTS);
    assert!(id2 > lost && lost > id1);
    launch(l, k, groups(2, 1, 1));
    // Updates need the list closed.
    let mut a = arg_desc(id1, 0, &5f32);
    assert_eq!(update(l, &mut [link(&mut a)]), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("open"), "{}", last_error());
    ok!(ze::zeCommandListClose(l));
    check!(ze::zeCommandListGetNextCommandIdExp(l, &id_desc(F::KERNEL_ARGUMENTS), &mut id), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    // Unknown ids.
    for bad in [0, lost, id2 + 100] {
        let mut a = arg_desc(bad, 0, &5f32);
        assert_eq!(update(l, &mut [link(&mut a)]), ZE_RESULT_ERROR_INVALID_ARGUMENT, "id {bad}");
        assert!(last_error().contains("names no command"), "{}", last_error());
    }
    // Parts the id's flags did not allow.
    let one = groups(1, 1, 1);
    let mut count = ze_mutable_group_count_exp_desc_t {
        commandId: id1,
        pGroupCount: &one,
        ..Default::default()
    };
    assert_eq!(update(l, &mut [link(&mut count)]), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("GROUP_COUNT"), "{}", last_error());
    check!(ze::zeCommandListUpdateMutableCommandSignalEventExp(l, id2, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    check!(ze::zeCommandListUpdateMutableCommandWaitEventsExp(l, id1, 0, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_eq!(switch(l, id1, k), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // zeKernelSetArgumentValue's rules.
    let mut a = arg_desc(id1, 4, &5f32);
    assert_eq!(update(l, &mut [link(&mut a)]), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    let mut a = arg_desc(id1, 0, &5f64);
    a.argSize = 2;
    assert_eq!(update(l, &mut [link(&mut a)]), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    // All or nothing: a good change before a bad one is not kept.
    let mut good = arg_desc(id1, 0, &7f32);
    let mut worse = arg_desc(id1, 9, &7f32);
    assert_eq!(update(l, &mut [link(&mut good), link(&mut worse)]), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    run(&z, q, l);
    // Two launches of y += 2 * x over 16 items (2 groups of 1 work-item: y[0..2]).
    assert_eq!(read_f32(py, 2), [4.0, 4.0], "the unchanged a = 2");
    // A null group count, reserved head flags, a graph argument.
    let mut count = ze_mutable_group_count_exp_desc_t {
        commandId: id1,
        pGroupCount: null(),
        ..Default::default()
    };
    assert_eq!(update(l, &mut [link(&mut count)]), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    let head = ze_mutable_commands_exp_desc_t {
        flags: 1,
        ..Default::default()
    };
    check!(ze::zeCommandListUpdateMutableCommandsExp(l, &head), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    let mut graph = ze_mutable_graph_argument_exp_desc_t {
        commandId: id1,
        pArgValue: (&px as *const *mut f32).cast::<c_void>(),
        ..Default::default()
    };
    assert_eq!(update(l, &mut [link(&mut graph)]), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);

    // After a reset the ids name nothing.
    ok!(ze::zeCommandListReset(l));
    ok!(ze::zeCommandListClose(l));
    check!(ze::zeCommandListUpdateMutableCommandSignalEventExp(l, id1, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandListDestroy(plain));
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeCommandQueueDestroy(q));
}

/// A local-memory argument (its size, no value) and the group size changed together.
#[test]
fn local_memory_argument_changes_with_the_group_size() {
    let z = Ze::new();
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let m = module(&z, &spv("reduce"));
    let k = kernel(m, "reduce");
    let n = 64usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 3 - 50).collect();
    let (pi, pp, pe) = (buffer(&z, &input), buffer(&z, &vec![0i32; n]), buffer(&z, &vec![0i32; n]));
    ok!(ze::zeKernelSetGroupSize(k, 4, 1, 1));
    arg(k, 0, &pi);
    arg(k, 1, &pp);
    ok!(ze::zeKernelSetArgumentValue(k, 2, 4 * 4, null()));
    arg(k, 3, &pe);
    let l = mutable_list(&z);
    let id = next_id(l, F::KERNEL_ARGUMENTS | F::GROUP_SIZE | F::GROUP_COUNT);
    launch(l, k, groups(n as u32 / 4, 1, 1));
    run(&z, q, l);
    let sums = |g: usize| -> Vec<i32> { input.chunks(g).map(|c| c.iter().sum()).collect() };
    assert_eq!(read(pp, n / 4), sums(4));

    let mut size = ze_mutable_group_size_exp_desc_t {
        commandId: id,
        groupSizeX: 16,
        groupSizeY: 1,
        groupSizeZ: 1,
        ..Default::default()
    };
    let four = groups(n as u32 / 16, 1, 1);
    let mut count = ze_mutable_group_count_exp_desc_t {
        commandId: id,
        pGroupCount: &four,
        ..Default::default()
    };
    let mut scratch = ze_mutable_kernel_argument_exp_desc_t {
        commandId: id,
        argIndex: 2,
        argSize: 16 * 4,
        pArgValue: null(),
        ..Default::default()
    };
    // More local memory than the device has: zeKernelSetArgumentValue's code.
    let mut huge = ze_mutable_kernel_argument_exp_desc_t {
        argSize: 1 << 20,
        ..scratch
    };
    assert_eq!(update(l, &mut [link(&mut huge)]), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    assert_eq!(update(l, &mut [link(&mut size), link(&mut count), link(&mut scratch)]), ZE_RESULT_SUCCESS, "{}", last_error());
    run(&z, q, l);
    assert_eq!(read(pp, n / 16), sums(16));
    let echo = read(pe, n);
    for (i, e) in echo.iter().enumerate() {
        assert_eq!(*e, sums(16)[i / 16] + (i % 16) as i32, "item {i}");
    }
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
}

#[test]
fn group_size_rules() {
    let z = Ze::new();
    let m = module(&z, &spv("reqd"));
    let k = kernel(m, "reqd");
    let out = buffer(&z, &vec![0u32; 64]);
    arg(k, 0, &out);
    let l = mutable_list(&z);
    let id = next_id(l, F::GROUP_SIZE);
    launch(l, k, groups(1, 1, 1));
    ok!(ze::zeCommandListClose(l));
    for (x, y) in [(4, 4), (0, 1)] {
        let mut size = ze_mutable_group_size_exp_desc_t {
            commandId: id,
            groupSizeX: x,
            groupSizeY: y,
            groupSizeZ: 1,
            ..Default::default()
        };
        assert_eq!(update(l, &mut [link(&mut size)]), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "{x}x{y}");
    }
    let mut size = ze_mutable_group_size_exp_desc_t {
        commandId: id,
        groupSizeX: 8,
        groupSizeY: 2,
        groupSizeZ: 1,
        ..Default::default()
    };
    assert_eq!(update(l, &mut [link(&mut size)]), ZE_RESULT_SUCCESS, "the required size: {}", last_error());
    ok!(ze::zeCommandListDestroy(l));
}

#[test]
fn device_reports_what_it_changes() {
    let z = Ze::new();
    let mut mcl = ze_mutable_command_list_exp_properties_t::default();
    let mut p = ze_device_properties_t {
        pNext: (&mut mcl as *mut ze_mutable_command_list_exp_properties_t).cast(),
        ..Default::default()
    };
    ok!(ze::zeDeviceGetProperties(z.dev, &mut p));
    assert_eq!(mcl.mutableCommandListFlags.0, 0);
    assert_eq!(mcl.mutableCommandFlags.0, 0x7f, "all but GRAPH_ARGUMENTS");
    let mut n = 0u32;
    ok!(ze::zeDriverGetExtensionProperties(z.drv, &mut n, null_mut()));
    let mut ext = vec![ze_driver_extension_properties_t::default(); n as usize];
    ok!(ze::zeDriverGetExtensionProperties(z.drv, &mut n, ext.as_mut_ptr()));
    let found = ext
        .iter()
        .find(|e| c_str(e.name.as_ptr()) == "ZE_experimental_mutable_command_list")
        .expect("the extension is listed");
    assert_eq!(found.version, ZE_MAKE_VERSION(1, 1));
}

/// A counter-based event given as the new signal, and the changed list run by an immediate
/// list (`zeCommandListImmediateAppendCommandListsExp`); an event a regular list cannot use is
/// refused as at an append.
#[test]
fn counter_based_signal_and_immediate_append() {
    type C = ze_event_counter_based_flags_t;
    let z = Ze::new();
    let m = module(&z, &spv("saxpy"));
    let k = kernel(m, "saxpy");
    let n = 16usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (px, py) = (buffer(&z, &x), buffer(&z, &vec![0f32; n]));
    arg(k, 0, &1f32);
    arg(k, 1, &px);
    arg(k, 2, &py);
    arg(k, 3, &(n as u32));
    let l = mutable_list(&z);
    let id = next_id(l, F::KERNEL_ARGUMENTS | F::SIGNAL_EVENT);
    launch(l, k, groups(n as u32, 1, 1));
    ok!(ze::zeCommandListClose(l));
    let only_imm = z.counter_event(C::IMMEDIATE);
    check!(ze::zeCommandListUpdateMutableCommandSignalEventExp(l, id, only_imm), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    let e = z.counter_event(C::IMMEDIATE | C::NON_IMMEDIATE);
    ok!(ze::zeCommandListUpdateMutableCommandSignalEventExp(l, id, e));
    let mut a = arg_desc(id, 0, &4f32);
    assert_eq!(update(l, &mut [link(&mut a)]), ZE_RESULT_SUCCESS, "{}", last_error());
    let imm = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let mut lists = [l];
    ok!(ze::zeCommandListImmediateAppendCommandListsExp(imm, 1, lists.as_mut_ptr(), null_mut(), 0, null_mut()));
    ok!(ze::zeEventHostSynchronize(e, FOREVER));
    let y = read_f32(py, n);
    assert!((0..n).all(|i| y[i] == 4.0 * i as f32), "{y:?}");
    ok!(ze::zeCommandListHostSynchronize(imm, FOREVER));
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeCommandListDestroy(l));
}
