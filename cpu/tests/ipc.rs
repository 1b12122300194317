//! IPC memory handles in process through the C entry points: within the process (another
//! context opens the handle), range handles of virtual memory, the fd conversions, bad handles;
//! and between processes: the test binary runs itself again as a child (`ZEKIT_IPC_CHILD` holds
//! the handle in hex), which opens the handle, checks the parent's bytes and writes its own.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use zeh::*;

const RW: ze_memory_access_attribute_t = ze_memory_access_attribute_t::READWRITE;

fn hex(h: &ze_ipc_mem_handle_t) -> String {
    hex_bytes(&h.data)
}

fn hex_bytes(d: &[std::ffi::c_char]) -> String {
    d.iter().map(|&c| format!("{:02x}", c as u8)).collect()
}

fn unhex_pool(s: &str) -> ze_ipc_event_pool_handle_t {
    let mut h = ze_ipc_event_pool_handle_t::default();
    for (i, d) in h.data.iter_mut().enumerate() {
        *d = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap() as std::ffi::c_char;
    }
    h
}

fn unhex(s: &str) -> ze_ipc_mem_handle_t {
    let mut h = ze_ipc_mem_handle_t::default();
    for (i, d) in h.data.iter_mut().enumerate() {
        *d = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap() as std::ffi::c_char;
    }
    h
}

fn host_alloc(z: &Ze, size: usize) -> *mut u8 {
    let mut p = null_mut();
    ok!(ze::zeMemAllocHost(z.ctx, &ze_host_mem_alloc_desc_t::default(), size, 0, &mut p));
    p.cast()
}

fn device_alloc(z: &Ze, size: usize) -> *mut u8 {
    let mut p = null_mut();
    ok!(ze::zeMemAllocDevice(z.ctx, &ze_device_mem_alloc_desc_t::default(), size, 0, z.dev, &mut p));
    p.cast()
}

fn other_context(z: &Ze) -> ze_context_handle_t {
    let mut c = null_mut();
    ok!(ze::zeContextCreate(z.drv, &ze_context_desc_t::default(), &mut c));
    c
}

#[test]
fn driver_reports_memory_ipc() {
    let z = Ze::new();
    let mut p = ze_driver_ipc_properties_t::default();
    ok!(ze::zeDriverGetIpcProperties(z.drv, &mut p));
    assert!(p.flags.intersects(ze_ipc_property_flags_t::MEMORY));
    assert!(p.flags.intersects(ze_ipc_property_flags_t::EVENT_POOL));
}

#[test]
fn handle_opened_in_another_context_aliases() {
    let z = Ze::new();
    let c2 = other_context(&z);
    for size in [1usize, 100, 4096, 3 * 4096 + 5, 1 << 20] {
        let p = device_alloc(&z, size);
        let mut h = ze_ipc_mem_handle_t::default();
        // An interior pointer names its allocation.
        ok!(ze::zeMemGetIpcHandle(z.ctx, p.wrapping_add(size / 2).cast(), &mut h));
        let mut q: *mut c_void = null_mut();
        ok!(ze::zeMemOpenIpcHandle(c2, z.dev, h, ze_ipc_memory_flags_t(0), &mut q));
        let q = q.cast::<u8>();
        assert_ne!(p, q);
        // SAFETY: both are `size` bytes of the same memory.
        unsafe {
            *p.add(size - 1) = 0x11;
            assert_eq!(*q.add(size - 1), 0x11);
            *q = 0x22;
            assert_eq!(*p, 0x22);
        }
        let (mut base, mut len) = (null_mut(), 0usize);
        ok!(ze::zeMemGetAddressRange(c2, q.wrapping_add(size - 1).cast(), &mut base, &mut len));
        assert_eq!((base.cast::<u8>(), len), (q, size));
        ok!(ze::zeMemPutIpcHandle(z.ctx, h));
        ok!(ze::zeMemCloseIpcHandle(c2, q.cast()));
        check!(ze::zeMemCloseIpcHandle(c2, q.cast()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        // The fd conversions: the handle's fd, and a handle made from it.
        let mut fd = 0u64;
        ok!(ze::zeMemGetFileDescriptorFromIpcHandleExp(z.ctx, h, &mut fd));
        let mut h2 = ze_ipc_mem_handle_t::default();
        ok!(ze::zeMemGetIpcHandleFromFileDescriptorExp(z.ctx, fd, &mut h2));
        let mut r: *mut c_void = null_mut();
        ok!(ze::zeMemOpenIpcHandle(z.ctx, z.dev, h2, ze_ipc_memory_flags_t::BIAS_CACHED, &mut r));
        // SAFETY: the whole file, at least `size` bytes.
        unsafe { assert_eq!(*r.cast::<u8>(), 0x22) };
        ok!(ze::zeMemCloseIpcHandle(z.ctx, r));
        ok!(ze::zeMemFree(z.ctx, p.cast()));
        // The memory is gone: the handle no longer opens.
        let mut q2: *mut c_void = null_mut();
        check!(
            ze::zeMemOpenIpcHandle(c2, z.dev, h, ze_ipc_memory_flags_t(0), &mut q2),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
    }
    // A forged handle whose range runs past the memory is refused (no SIGBUS later).
    let p = device_alloc(&z, 4096);
    let mut h = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandle(z.ctx, p.cast(), &mut h));
    for (at, v) in [(40usize, 1u64 << 20), (32, 4096)] {
        let mut forged = h;
        for (i, b) in v.to_ne_bytes().into_iter().enumerate() {
            forged.data[at + i] = b as std::ffi::c_char;
        }
        let mut q: *mut c_void = null_mut();
        check!(
            ze::zeMemOpenIpcHandle(c2, z.dev, forged, ze_ipc_memory_flags_t(0), &mut q),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
    }
    ok!(ze::zeMemFree(z.ctx, p.cast()));
    // Not an allocation; not a handle of this driver.
    let mut local = 0u8;
    let mut h = ze_ipc_mem_handle_t::default();
    check!(
        ze::zeMemGetIpcHandle(z.ctx, (&raw mut local).cast(), &mut h),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    let mut q: *mut c_void = null_mut();
    check!(
        ze::zeMemOpenIpcHandle(c2, z.dev, ze_ipc_mem_handle_t::default(), ze_ipc_memory_flags_t(0), &mut q),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    check!(ze::zeMemPutIpcHandle(z.ctx, ze_ipc_mem_handle_t::default()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ok!(ze::zeContextDestroy(c2));
}

#[test]
fn range_handles_of_virtual_memory() {
    let z = Ze::new();
    let mut ps = 0usize;
    ok!(ze::zeVirtualMemQueryPageSize(z.ctx, z.dev, 1, &mut ps));
    let mut desc = ze_physical_mem_desc_t {
        size: 4 * ps,
        ..Default::default()
    };
    let (mut phys, mut phys2) = (null_mut(), null_mut());
    ok!(ze::zePhysicalMemCreate(z.ctx, z.dev, &raw mut desc, &mut phys));
    desc.size = ps;
    ok!(ze::zePhysicalMemCreate(z.ctx, z.dev, &raw mut desc, &mut phys2));
    let mut va: *mut c_void = null_mut();
    ok!(ze::zeVirtualMemReserve(z.ctx, null(), 8 * ps, &mut va));
    let va = va.cast::<u8>();
    // Pages 0..3 of va: physical pages 1..4 (mapped at a non-zero offset); page 3: phys2.
    ok!(ze::zeVirtualMemMap(z.ctx, va.cast(), 3 * ps, phys, ps, RW));
    ok!(ze::zeVirtualMemMap(z.ctx, va.wrapping_add(3 * ps).cast(), ps, phys2, 0, RW));
    // SAFETY: mapped read-write.
    unsafe {
        for i in 0..3 * ps {
            *va.add(i) = (i % 251) as u8;
        }
    }
    let handle = |ptr: *const u8, size: usize, expect: ze_result_t| {
        let range = ze_ipc_phys_mem_handle_range_ext_desc_t {
            size,
            ..Default::default()
        };
        let mut h = ze_ipc_mem_handle_t::default();
        check!(
            ze::zeMemGetIpcHandleWithProperties(z.ctx, ptr.cast(), (&raw const range).cast_mut().cast(), &mut h),
            expect
        );
        h
    };
    // From an offset inside the first page, across a split made by an access change.
    ok!(ze::zeVirtualMemSetAccessAttribute(z.ctx, va.wrapping_add(ps).cast(), ps, RW));
    let start = 100;
    let size = 2 * ps + 7;
    let h = handle(va.wrapping_add(start), size, ZE_RESULT_SUCCESS);
    let c2 = other_context(&z);
    let mut q: *mut c_void = null_mut();
    ok!(ze::zeMemOpenIpcHandle(c2, z.dev, h, ze_ipc_memory_flags_t(0), &mut q));
    let q = q.cast::<u8>();
    // SAFETY: `size` bytes mapped from the same physical memory.
    unsafe {
        for i in 0..size {
            assert_eq!(*q.add(i), ((start + i) % 251) as u8, "byte {i}");
        }
        *q.add(5) = 0xee;
        assert_eq!(*va.add(start + 5), 0xee);
    }
    let (mut base, mut len) = (null_mut(), 0usize);
    ok!(ze::zeMemGetAddressRange(c2, q.cast(), &mut base, &mut len));
    assert_eq!((base.cast::<u8>(), len), (q, size));
    ok!(ze::zeMemCloseIpcHandle(c2, q.cast()));
    // Two physical objects (three pieces: the access split of page 1 merges, phys at offset ps
    // and phys2), from inside the first page to inside the last: a manifest handle.
    let size = 4 * ps - 150;
    let h = handle(va.wrapping_add(100), size, ZE_RESULT_SUCCESS);
    // SAFETY: page 3 (phys2) is mapped read-write.
    unsafe {
        for i in 0..ps {
            *va.add(3 * ps + i) = (i % 13) as u8;
        }
    }
    let mut q: *mut c_void = null_mut();
    ok!(ze::zeMemOpenIpcHandle(c2, z.dev, h, ze_ipc_memory_flags_t(0), &mut q));
    let q = q.cast::<u8>();
    // SAFETY: `size` bytes mapped from the two objects, in the exporter's order.
    unsafe {
        for i in 0..size {
            let at = 100 + i;
            let want = if at < 3 * ps { if at == start + 5 { 0xee } else { (at % 251) as u8 } } else { ((at - 3 * ps) % 13) as u8 };
            assert_eq!(*q.add(i), want, "byte {i} of the multi-object range");
        }
        *q.add(size - 1) = 0x77;
        assert_eq!(*va.add(100 + size - 1), 0x77, "a write reaches phys2");
    }
    let (mut base, mut len) = (null_mut(), 0usize);
    ok!(ze::zeMemGetAddressRange(c2, q.cast(), &mut base, &mut len));
    assert_eq!(len, size);
    ok!(ze::zeMemCloseIpcHandle(c2, q.cast()));
    let mut fd = 0u64;
    check!(ze::zeMemGetFileDescriptorFromIpcHandleExp(z.ctx, h, &mut fd), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Another process opens it too (the child checks the pattern and writes its own).
    // SAFETY: the range is mapped read-write.
    unsafe {
        for i in 0..size {
            *va.add(100 + i) = (i % 253) as u8;
        }
    }
    run_ipc_child(&h, size);
    // SAFETY: as above, written by the child.
    unsafe {
        for i in 0..size {
            assert_eq!(*va.add(100 + i), (i % 127) as u8 ^ 0x80, "byte {i} from the child");
        }
    }
    // Put releases the manifest: the handle no longer opens.
    ok!(ze::zeMemPutIpcHandle(z.ctx, h));
    let mut gone: *mut c_void = null_mut();
    check!(ze::zeMemOpenIpcHandle(c2, z.dev, h, ze_ipc_memory_flags_t(0), &mut gone), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // A hole, size 0, a USM allocation.
    handle(va.wrapping_add(3 * ps), 2 * ps, ZE_RESULT_ERROR_ADDRESS_NOT_FOUND);
    handle(va, 0, ZE_RESULT_ERROR_INVALID_SIZE);
    let usm = host_alloc(&z, 64);
    handle(usm, 64, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Without the range descriptor: the USM allocation's handle.
    let mut h2 = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandleWithProperties(z.ctx, usm.cast(), null_mut(), &mut h2));
    ok!(ze::zeMemFree(z.ctx, usm.cast()));
    ok!(ze::zeVirtualMemFree(z.ctx, va.cast(), 8 * ps));
    ok!(ze::zePhysicalMemDestroy(z.ctx, phys));
    ok!(ze::zePhysicalMemDestroy(z.ctx, phys2));
    ok!(ze::zeContextDestroy(c2));
}

/// Plain `zeMemGetIpcHandle` (and the properties variant without a range) on a pointer inside
/// reserved, mapped memory: the handle is the mapped run around the pointer (one physical
/// object at contiguous offsets, across access splits); another context and another process
/// open it at the run's start.
#[test]
fn plain_handles_of_virtual_memory() {
    let z = Ze::new();
    let mut ps = 0usize;
    ok!(ze::zeVirtualMemQueryPageSize(z.ctx, z.dev, 1, &mut ps));
    let mut desc = ze_physical_mem_desc_t {
        size: 3 * ps,
        ..Default::default()
    };
    let (mut phys, mut phys2) = (null_mut(), null_mut());
    ok!(ze::zePhysicalMemCreate(z.ctx, z.dev, &raw mut desc, &mut phys));
    desc.size = ps;
    ok!(ze::zePhysicalMemCreate(z.ctx, z.dev, &raw mut desc, &mut phys2));
    let mut va: *mut c_void = null_mut();
    ok!(ze::zeVirtualMemReserve(z.ctx, null(), 6 * ps, &mut va));
    let va = va.cast::<u8>();
    // Page 0 unmapped; pages 1..4: phys; page 4: phys2 (adjacent, another object).
    ok!(ze::zeVirtualMemMap(z.ctx, va.wrapping_add(ps).cast(), 3 * ps, phys, 0, RW));
    ok!(ze::zeVirtualMemMap(z.ctx, va.wrapping_add(4 * ps).cast(), ps, phys2, 0, RW));
    ok!(ze::zeVirtualMemSetAccessAttribute(z.ctx, va.wrapping_add(2 * ps).cast(), ps, RW));
    let run = va.wrapping_add(ps);
    let size = 3 * ps;
    // SAFETY: pages 1..5 are mapped read-write.
    unsafe {
        for i in 0..size {
            *run.add(i) = (i % 253) as u8;
        }
        std::ptr::write_bytes(va.add(4 * ps), 0x5a, ps);
    }
    let mut h = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandle(z.ctx, va.wrapping_add(2 * ps + 5).cast(), &mut h));
    let mut h2 = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandleWithProperties(z.ctx, run.cast(), null_mut(), &mut h2));
    let c2 = other_context(&z);
    for h in [h, h2] {
        let mut q: *mut c_void = null_mut();
        ok!(ze::zeMemOpenIpcHandle(c2, z.dev, h, ze_ipc_memory_flags_t(0), &mut q));
        let q = q.cast::<u8>();
        // SAFETY: the run's `size` bytes, mapped from the same physical memory.
        unsafe {
            for i in 0..size {
                assert_eq!(*q.add(i), (i % 253) as u8, "byte {i} of the run");
            }
        }
        let (mut base, mut len) = (null_mut(), 0usize);
        ok!(ze::zeMemGetAddressRange(c2, q.cast(), &mut base, &mut len));
        assert_eq!((base.cast::<u8>(), len), (q, size), "the run, not phys2's page");
        ok!(ze::zeMemCloseIpcHandle(c2, q.cast()));
    }
    // Another process: checks the bytes, writes its own, which the parent sees.
    run_ipc_child(&h, size);
    // SAFETY: as above, written by the child.
    unsafe {
        for i in 0..size {
            assert_eq!(*run.add(i), (i % 127) as u8 ^ 0x80, "byte {i} from the child");
        }
        assert_eq!(*va.add(4 * ps), 0x5a, "phys2 untouched");
    }
    // phys2's page alone.
    let mut h3 = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandle(z.ctx, va.wrapping_add(4 * ps).cast(), &mut h3));
    let mut q: *mut c_void = null_mut();
    ok!(ze::zeMemOpenIpcHandle(c2, z.dev, h3, ze_ipc_memory_flags_t(0), &mut q));
    let (mut base, mut len) = (null_mut(), 0usize);
    ok!(ze::zeMemGetAddressRange(c2, q, &mut base, &mut len));
    assert_eq!(len, ps);
    // SAFETY: phys2's page.
    assert_eq!(unsafe { *q.cast::<u8>() }, 0x5a);
    ok!(ze::zeMemCloseIpcHandle(c2, q));
    for h in [h, h2, h3] {
        ok!(ze::zeMemPutIpcHandle(z.ctx, h));
    }
    // An unmapped page of the reservation is not memory.
    check!(ze::zeMemGetIpcHandle(z.ctx, va.cast(), &mut h), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ok!(ze::zeVirtualMemUnmap(z.ctx, run.cast(), size));
    check!(ze::zeMemGetIpcHandle(z.ctx, run.cast(), &mut h), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ok!(ze::zeVirtualMemFree(z.ctx, va.cast(), 6 * ps));
    ok!(ze::zePhysicalMemDestroy(z.ctx, phys));
    ok!(ze::zePhysicalMemDestroy(z.ctx, phys2));
    ok!(ze::zeContextDestroy(c2));
}

const CHILD_VAR: &str = "ZEKIT_IPC_CHILD";

/// The child's half of `another_process_reads_and_writes`, which runs it by name (ignored
/// otherwise; run without its parent's environment it fails).
#[test]
#[ignore = "the child half of another_process_reads_and_writes, run by it"]
fn ipc_child() {
    let arg = std::env::var(CHILD_VAR).expect("run by another_process_reads_and_writes");
    let (h, size) = arg.split_once(':').unwrap();
    let size: usize = size.parse().unwrap();
    let z = Ze::new();
    let mut q: *mut c_void = null_mut();
    ok!(ze::zeMemOpenIpcHandle(z.ctx, z.dev, unhex(h), ze_ipc_memory_flags_t(0), &mut q));
    let q = q.cast::<u8>();
    // SAFETY: `size` bytes of the parent's allocation.
    unsafe {
        for i in 0..size {
            assert_eq!(*q.add(i), (i % 253) as u8, "byte {i} from the parent");
        }
        for i in 0..size {
            *q.add(i) = (i % 127) as u8 ^ 0x80;
        }
    }
    ok!(ze::zeMemCloseIpcHandle(z.ctx, q.cast()));
    println!("child pid {} ok", std::process::id());
}

/// Runs `ipc_child` in a new process on `h` (`size` bytes); asserts it succeeded.
fn run_ipc_child(h: &ze_ipc_mem_handle_t, size: usize) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "ipc_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, format!("{}:{size}", hex(h)))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("child pid"),
        "child failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn another_process_reads_and_writes() {
    let z = Ze::new();
    let size = 3 * 4096 + 17;
    let p = device_alloc(&z, size);
    // SAFETY: `size` bytes just allocated.
    unsafe {
        for i in 0..size {
            *p.add(i) = (i % 253) as u8;
        }
    }
    let mut h = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandle(z.ctx, p.cast(), &mut h));
    run_ipc_child(&h, size);
    // SAFETY: `size` bytes, written by the child.
    unsafe {
        for i in 0..size {
            assert_eq!(*p.add(i), (i % 127) as u8 ^ 0x80, "byte {i} from the child");
        }
    }
    ok!(ze::zeMemPutIpcHandle(z.ctx, h));
    ok!(ze::zeMemFree(z.ctx, p.cast()));
}

const IPC_POOL: ze_event_pool_flags_t = ze_event_pool_flags_t(
    ze_event_pool_flags_t::IPC.0 | ze_event_pool_flags_t::HOST_VISIBLE.0,
);

#[test]
fn ipc_event_pool_opened_in_another_context() {
    let z = Ze::new();
    let flags = ze_event_pool_flags_t(IPC_POOL.0 | ze_event_pool_flags_t::KERNEL_TIMESTAMP.0);
    let pool = z.pool(flags, 4);
    let mut h = ze_ipc_event_pool_handle_t::default();
    ok!(ze::zeEventPoolGetIpcHandle(pool, &mut h));
    let c2 = other_context(&z);
    let mut opened = null_mut();
    ok!(ze::zeEventPoolOpenIpcHandle(c2, h, &mut opened));
    let mut f = ze_event_pool_flags_t(0);
    ok!(ze::zeEventPoolGetFlags(opened, &mut f));
    assert_eq!(f, flags);
    let a = z.event(pool, 1);
    let b = z.event(opened, 1);
    check!(ze::zeEventQueryStatus(b), ZE_RESULT_NOT_READY);
    ok!(ze::zeEventHostSignal(a));
    ok!(ze::zeEventQueryStatus(b));
    ok!(ze::zeEventHostSynchronize(b, FOREVER));
    ok!(ze::zeEventHostReset(b));
    check!(ze::zeEventQueryStatus(a), ZE_RESULT_NOT_READY);
    // A command of the opened pool's context signals; the exporter sees it, with timestamps.
    let list = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    ok!(ze::zeCommandListAppendBarrier(list, b, 0, null_mut()));
    ok!(ze::zeEventHostSynchronize(a, FOREVER));
    let mut ts = ze_kernel_timestamp_result_t::default();
    ok!(ze::zeEventQueryKernelTimestamp(a, &mut ts));
    assert!(ts.global.kernelStart > 0 && ts.global.kernelEnd >= ts.global.kernelStart);
    // A wait on one side, released from the other (a thread here; a process below).
    ok!(ze::zeEventHostReset(a));
    let b_addr = b as usize;
    let waiter = std::thread::spawn(move || {
        // SAFETY: a live event handle.
        unsafe { ze::zeEventHostSynchronize(b_addr as ze_event_handle_t, FOREVER) }
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    ok!(ze::zeEventHostSignal(a));
    assert_eq!(waiter.join().unwrap(), ZE_RESULT_SUCCESS);
    ok!(ze::zeCommandListHostSynchronize(list, FOREVER));
    ok!(ze::zeCommandListDestroy(list));
    // Pools without IPC have no handle; a created pool is not closed, an opened one is.
    let plain = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let mut h2 = ze_ipc_event_pool_handle_t::default();
    check!(ze::zeEventPoolGetIpcHandle(plain, &mut h2), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    check!(ze::zeEventPoolCloseIpcHandle(pool), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    let mut bad = null_mut();
    check!(
        ze::zeEventPoolOpenIpcHandle(c2, ze_ipc_event_pool_handle_t::default(), &mut bad),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    ok!(ze::zeEventPoolPutIpcHandle(z.ctx, h));
    ok!(ze::zeEventDestroy(b));
    ok!(ze::zeEventPoolCloseIpcHandle(opened));
    ok!(ze::zeEventDestroy(a));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeEventPoolDestroy(plain));
    ok!(ze::zeContextDestroy(c2));
}

const POOL_CHILD_VAR: &str = "ZEKIT_IPC_POOL_CHILD";

/// The child's half of `ipc_events_between_processes`, which runs it by name (ignored
/// otherwise; run without its parent's environment it fails).
#[test]
#[ignore = "the child half of ipc_events_between_processes, run by it"]
fn ipc_pool_child() {
    let arg = std::env::var(POOL_CHILD_VAR).expect("run by ipc_events_between_processes");
    let z = Ze::new();
    let mut pool = null_mut();
    ok!(ze::zeEventPoolOpenIpcHandle(z.ctx, unhex_pool(&arg), &mut pool));
    let e0 = z.event(pool, 0);
    let e1 = z.event(pool, 1);
    let e2 = z.event(pool, 2);
    // Signaled by the parent before this process started.
    ok!(ze::zeEventQueryStatus(e0));
    // Signal one for the parent, then wait for the parent's answer (it waits for e1 first).
    ok!(ze::zeEventHostSignal(e1));
    ok!(ze::zeEventHostSynchronize(e2, 10_000_000_000));
    ok!(ze::zeEventDestroy(e0));
    ok!(ze::zeEventDestroy(e1));
    ok!(ze::zeEventDestroy(e2));
    ok!(ze::zeEventPoolCloseIpcHandle(pool));
    println!("pool child pid {} ok", std::process::id());
}

#[test]
fn ipc_events_between_processes() {
    let z = Ze::new();
    let pool = z.pool(IPC_POOL, 3);
    let e0 = z.event(pool, 0);
    let e1 = z.event(pool, 1);
    let e2 = z.event(pool, 2);
    ok!(ze::zeEventHostSignal(e0));
    let mut h = ze_ipc_event_pool_handle_t::default();
    ok!(ze::zeEventPoolGetIpcHandle(pool, &mut h));
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "ipc_pool_child", "--nocapture", "--test-threads=1"])
        .env(POOL_CHILD_VAR, hex_bytes(&h.data))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The child's host signal wakes this wait (a futex on the shared slot).
    ok!(ze::zeEventHostSynchronize(e1, 10_000_000_000));
    // Let the child park on e2, then release it from here.
    std::thread::sleep(std::time::Duration::from_millis(30));
    ok!(ze::zeEventHostSignal(e2));
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("pool child pid"),
        "child failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    for e in [e0, e1, e2] {
        ok!(ze::zeEventDestroy(e));
    }
    ok!(ze::zeEventPoolDestroy(pool));
}

const FD_CHILD_VAR: &str = "ZEKIT_IPC_FD_LIMIT_CHILD";

/// Run by `allocations_past_the_fd_budget_still_work` in a fresh process with a low fd limit
/// (ignored otherwise; run without its parent's environment it fails).
#[test]
#[ignore = "the child half of allocations_past_the_fd_budget_still_work, run by it"]
fn fd_limit_child() {
    std::env::var(FD_CHILD_VAR).expect("run by allocations_past_the_fd_budget_still_work");
    let lim = libc::rlimit {
        rlim_cur: 64,
        rlim_max: 64,
    };
    // SAFETY: lowers this (child) process's own limit.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) }, 0);
    let z = Ze::new();
    let ptrs: Vec<*mut u8> = (0..200).map(|_| host_alloc(&z, 100)).collect();
    let mut exportable = 0;
    for &p in &ptrs {
        // SAFETY: 100 bytes each.
        unsafe { *p.add(99) = 7 };
        let mut h = ze_ipc_mem_handle_t::default();
        // SAFETY: valid arguments.
        match unsafe { ze::zeMemGetIpcHandle(z.ctx, p.cast(), &mut h) } {
            ZE_RESULT_SUCCESS => exportable += 1,
            r => assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE),
        }
    }
    assert_eq!(exportable, 32, "half the limit of 64");
    // Files can still be opened: the other half is the application's.
    assert!(std::fs::File::open("/proc/self/status").is_ok());
    ok!(ze::zeMemFree(z.ctx, ptrs[0].cast()));
    let q = host_alloc(&z, 100);
    let mut h = ze_ipc_mem_handle_t::default();
    ok!(ze::zeMemGetIpcHandle(z.ctx, q.cast(), &mut h));
    println!("fd limit child ok");
}

#[test]
fn allocations_past_the_fd_budget_still_work() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "fd_limit_child", "--nocapture", "--test-threads=1"])
        .env(FD_CHILD_VAR, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("fd limit child ok"),
        "child failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

const CB_IPC: ze_event_counter_based_flags_t = ze_event_counter_based_flags_t(
    ze_event_counter_based_flags_t::IMMEDIATE.0 | ze_event_counter_based_flags_t::IPC.0,
);

fn cb_handle(e: ze_event_handle_t) -> ze_ipc_event_counter_based_handle_t {
    let mut h = ze_ipc_event_counter_based_handle_t::default();
    ok!(ze::zeEventCounterBasedGetIpcHandle(e, &mut h));
    h
}

fn unhex_cb(s: &str) -> ze_ipc_event_counter_based_handle_t {
    let mut h = ze_ipc_event_counter_based_handle_t::default();
    for (i, d) in h.data.iter_mut().enumerate() {
        *d = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap() as std::ffi::c_char;
    }
    h
}

#[test]
fn counter_based_ipc_events_in_process() {
    let z = Ze::new();
    let mut props = ze_device_properties_t::default();
    let mut ev = ze_device_event_properties_t::default();
    props.pNext = (&mut ev as *mut ze_device_event_properties_t).cast();
    ok!(ze::zeDeviceGetProperties(z.dev, &mut props));
    assert!(ev.flags.intersects(ze_device_event_properties_flags_t::COUNTER_BASED_IPC));

    let e = z.counter_event(CB_IPC);
    let h = cb_handle(e);
    let c2 = other_context(&z);
    let mut opened = null_mut();
    ok!(ze::zeEventCounterBasedOpenIpcHandle(c2, h, &mut opened));
    let mut flags = ze_event_counter_based_flags_t::default();
    ok!(ze::zeEventGetCounterBasedFlags(opened, &mut flags));
    assert_eq!(flags, CB_IPC);
    // Nothing submitted: complete on both sides.
    ok!(ze::zeEventQueryStatus(opened));
    // A command gated by a regular event takes the next value: both sides see it pending.
    let l = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let gate = z.event(pool, 0);
    ok!(ze::zeCommandListAppendBarrier(l, e, 1, [gate].as_mut_ptr()));
    check!(ze::zeEventQueryStatus(opened), ZE_RESULT_NOT_READY);
    check!(ze::zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
    // A list of the other context waits on the opened event.
    let mut l2 = null_mut();
    let qd = ze_command_queue_desc_t {
        mode: ze_command_queue_mode_t::ASYNCHRONOUS,
        ..Default::default()
    };
    ok!(ze::zeCommandListCreateImmediate(c2, z.dev, &qd, &mut l2));
    let buf = z.host(8);
    // SAFETY: 8 bytes.
    unsafe { std::ptr::write_bytes(buf, 0, 8) };
    fill(l2, buf, &[9], 8, null_event(), &mut [opened]);
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeEventHostSynchronize(opened, 10_000_000_000));
    ok!(ze::zeCommandListHostSynchronize(l2, FOREVER));
    // SAFETY: idle.
    assert_eq!(unsafe { bytes(buf, 8) }, &[9; 8]);
    // The opened side signals: the creator sees it.
    ok!(ze::zeCommandListAppendBarrier(l2, opened, 0, null_mut()));
    ok!(ze::zeEventHostSynchronize(e, 10_000_000_000));

    // Refusals.
    check!(ze::zeEventCounterBasedCloseIpcHandle(e), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    let plain = z.counter_event(ze_event_counter_based_flags_t::IMMEDIATE);
    let mut hh = ze_ipc_event_counter_based_handle_t::default();
    check!(ze::zeEventCounterBasedGetIpcHandle(plain, &mut hh), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    check!(ze::zeEventCounterBasedGetIpcHandle(gate, &mut hh), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    let mut none = null_mut();
    check!(ze::zeEventCounterBasedOpenIpcHandle(c2, ze_ipc_event_counter_based_handle_t::default(), &mut none), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(none.is_null());

    ok!(ze::zeCommandListHostSynchronize(l2, FOREVER));
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    ok!(ze::zeEventCounterBasedCloseIpcHandle(opened));
    ok!(ze::zeCommandListDestroy(l2));
    ok!(ze::zeCommandListDestroy(l));
    for ev in [e, plain, gate] {
        ok!(ze::zeEventDestroy(ev));
    }
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeContextDestroy(c2));
}

const CB_CHILD_VAR: &str = "ZEKIT_IPC_CB_CHILD";

/// The child's half of `counter_based_ipc_events_between_processes`, which runs it by name
/// (ignored otherwise; run without its parent's environment it fails).
#[test]
#[ignore = "the child half of counter_based_ipc_events_between_processes, run by it"]
fn cb_child() {
    let arg = std::env::var(CB_CHILD_VAR).expect("run by counter_based_ipc_events_between_processes");
    let z = Ze::new();
    let mut e = null_mut();
    ok!(ze::zeEventCounterBasedOpenIpcHandle(z.ctx, unhex_cb(&arg), &mut e));
    // The parent's queue reaches the value it took before this process started.
    ok!(ze::zeEventHostSynchronize(e, 10_000_000_000));
    println!("child saw the parent's signal");
    // Take the next value with a command gated here, tell the parent, then release it.
    let l = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let gate = z.event(pool, 0);
    ok!(ze::zeCommandListAppendBarrier(l, e, 1, [gate].as_mut_ptr()));
    println!("armed");
    use std::io::Write as _;
    std::io::stdout().flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeEventCounterBasedCloseIpcHandle(e));
    println!("cb child pid {} ok", std::process::id());
}

#[test]
fn counter_based_ipc_events_between_processes() {
    use std::io::BufRead as _;
    let z = Ze::new();
    let e = z.counter_event(CB_IPC);
    let l = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let gate = z.event(pool, 0);
    // Value 1, reached when the gate opens (after the child started waiting for it).
    ok!(ze::zeCommandListAppendBarrier(l, e, 1, [gate].as_mut_ptr()));
    let h = cb_handle(e);
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "cb_child", "--nocapture", "--test-threads=1"])
        .env(CB_CHILD_VAR, hex_bytes(&h.data))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    ok!(ze::zeEventHostSignal(gate));
    // Wait for the child's "armed": it took value 2; this host wait ends when its queue
    // reaches it (a futex wake from the other process).
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push(line.clone());
        if line.ends_with("armed") {
            break;
        }
    }
    assert!(seen.iter().any(|l| l.ends_with("child saw the parent's signal")), "{seen:?}");
    ok!(ze::zeEventHostSynchronize(e, 10_000_000_000));
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && rest.iter().any(|l| l.starts_with("cb child pid")),
        "child failed: {}\n{seen:?}\n{rest:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventDestroy(gate));
    ok!(ze::zeEventPoolDestroy(pool));
}
