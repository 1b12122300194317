//! External semaphores through the C entry points: the fd conventions (an eventfd for a binary
//! semaphore, a memfd counter + futex word for a timeline one) driven from outside the driver,
//! refused types and bad fds, and signal/wait between two processes in both directions (the
//! test binary runs itself again as a child, `ZEKIT_SEM_CHILD` naming the inherited fds).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use zeh::*;

const ASYNC: ze_command_queue_mode_t = ze_command_queue_mode_t::ASYNCHRONOUS;
type F = ze_external_semaphore_ext_flags_t;

fn eventfd(cloexec: bool) -> i32 {
    let flags = if cloexec { libc::EFD_CLOEXEC } else { 0 };
    // SAFETY: plain syscall.
    let fd = unsafe { libc::eventfd(0, flags) };
    assert!(fd >= 0);
    fd
}

fn timeline_fd(cloexec: bool) -> i32 {
    let flags = if cloexec { libc::MFD_CLOEXEC } else { 0 };
    // SAFETY: a valid NUL-terminated name.
    let fd = unsafe { libc::memfd_create(c"timeline".as_ptr(), flags) };
    assert!(fd >= 0);
    // SAFETY: our fd.
    assert_eq!(unsafe { libc::ftruncate(fd, 16) }, 0);
    fd
}

/// What another library does to a timeline semaphore's file: map it and use the convention.
struct Counter(*mut u8);

impl Counter {
    fn map(fd: i32) -> Counter {
        // SAFETY: a shared mapping of the file's 16 bytes.
        let p = unsafe {
            libc::mmap(null_mut(), 16, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0)
        };
        assert_ne!(p, libc::MAP_FAILED);
        Counter(p.cast())
    }
    fn value(&self) -> &AtomicU64 {
        // SAFETY: offset 0 of the mapping.
        unsafe { &*self.0.cast::<AtomicU64>() }
    }
    fn word(&self) -> &AtomicU32 {
        // SAFETY: offset 8 of the mapping.
        unsafe { &*self.0.add(8).cast::<AtomicU32>() }
    }
    fn signal(&self, v: u64) {
        self.value().fetch_max(v, Ordering::SeqCst);
        self.word().fetch_add(1, Ordering::SeqCst);
        // SAFETY: wake on our mapping's word.
        unsafe { libc::syscall(libc::SYS_futex, self.word().as_ptr(), libc::FUTEX_WAKE, i32::MAX) };
    }
}

fn write_eventfd(fd: i32) {
    let one = 1u64.to_ne_bytes();
    // SAFETY: 8 readable bytes.
    assert_eq!(unsafe { libc::write(fd, one.as_ptr().cast(), 8) }, 8);
}

/// Non-blocking read of an eventfd's counter (0 when unsignaled).
fn read_eventfd(fd: i32) -> u64 {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one pollfd.
    if unsafe { libc::poll(&mut p, 1, 0) } != 1 {
        return 0;
    }
    let mut b = [0u8; 8];
    // SAFETY: 8 writable bytes.
    assert_eq!(unsafe { libc::read(fd, b.as_mut_ptr().cast(), 8) }, 8);
    u64::from_ne_bytes(b)
}

fn import(z: &Ze, flags: F, fd: Option<i32>) -> Result<ze_external_semaphore_ext_handle_t, ze_result_t> {
    let mut fd_desc = ze_external_semaphore_fd_ext_desc_t {
        fd: fd.unwrap_or(-1),
        ..Default::default()
    };
    let mut desc = ze_external_semaphore_ext_desc_t {
        flags,
        ..Default::default()
    };
    if fd.is_some() {
        desc.push_next(&mut fd_desc);
    }
    let mut h = null_mut();
    // SAFETY: valid descriptors.
    match unsafe { ze::zeDeviceImportExternalSemaphoreExt(z.dev, &desc, &mut h) } {
        ZE_RESULT_SUCCESS => Ok(h),
        e => Err(e),
    }
}

fn signal(l: ze_command_list_handle_t, s: ze_external_semaphore_ext_handle_t, value: u64, e: ze_event_handle_t) {
    let mut hs = [s];
    let mut p = [ze_external_semaphore_signal_params_ext_t { value, ..Default::default() }];
    ok!(ze::zeCommandListAppendSignalExternalSemaphoreExt(l, 1, hs.as_mut_ptr(), p.as_mut_ptr(), e, 0, null_mut()));
}

fn wait(l: ze_command_list_handle_t, s: ze_external_semaphore_ext_handle_t, value: u64, e: ze_event_handle_t) {
    let mut hs = [s];
    let mut p = [ze_external_semaphore_wait_params_ext_t { value, ..Default::default() }];
    ok!(ze::zeCommandListAppendWaitExternalSemaphoreExt(l, 1, hs.as_mut_ptr(), p.as_mut_ptr(), e, 0, null_mut()));
}

fn event_done(e: ze_event_handle_t) -> bool {
    // SAFETY: a live event.
    unsafe { ze::zeEventQueryStatus(e) == ZE_RESULT_SUCCESS }
}

#[test]
fn binary_semaphore_is_an_eventfd() {
    let z = Ze::new();
    let fd = eventfd(true);
    let s = import(&z, F::OPAQUE_FD, Some(fd)).unwrap();
    let l = z.immediate(0, ASYNC);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 2);
    let (e0, e1) = (z.event(pool, 0), z.event(pool, 1));
    // The driver signals: the eventfd becomes readable with 1.
    signal(l, s, 0, e0);
    ok!(ze::zeEventHostSynchronize(e0, FOREVER));
    assert_eq!(read_eventfd(fd), 1);
    // The driver waits: only the queue blocks, until someone writes the eventfd; the wait
    // consumes it.
    let src = z.host(64);
    let dst = z.host(64);
    // SAFETY: 64 bytes each.
    unsafe { write(src, &[7; 64]) };
    wait(l, s, 0, null_event());
    copy(l, dst, src, 64, e1, &mut []);
    std::thread::sleep(Duration::from_millis(50));
    assert!(!event_done(e1));
    write_eventfd(fd);
    ok!(ze::zeEventHostSynchronize(e1, FOREVER));
    // SAFETY: the copy is done.
    assert_eq!(unsafe { bytes(dst, 64) }, &[7; 64]);
    assert_eq!(read_eventfd(fd), 0);
    // A queue parked on an unsignaled semaphore: its list cannot be destroyed (it could wait
    // for ever) until the semaphore is signaled.
    wait(l, s, 0, null_event());
    std::thread::sleep(Duration::from_millis(20));
    check!(ze::zeCommandListDestroy(l), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    write_eventfd(fd);
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeDeviceReleaseExternalSemaphoreExt(s));
    // SAFETY: ours.
    unsafe { libc::close(fd) };
}

#[test]
fn timeline_semaphore_is_a_shared_counter() {
    let z = Ze::new();
    let fd = timeline_fd(true);
    let c = Counter::map(fd);
    let s = import(&z, F::VK_TIMELINE_SEMAPHORE_FD, Some(fd)).unwrap();
    let l = z.immediate(0, ASYNC);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 3);
    let (e0, e1, e2) = (z.event(pool, 0), z.event(pool, 1), z.event(pool, 2));
    signal(l, s, 5, e0);
    ok!(ze::zeEventHostSynchronize(e0, FOREVER));
    assert_eq!(c.value().load(Ordering::SeqCst), 5);
    // Signaling a lower value keeps the counter.
    signal(l, s, 3, e1);
    ok!(ze::zeEventHostSynchronize(e1, FOREVER));
    assert_eq!(c.value().load(Ordering::SeqCst), 5);
    // A wait for a reached value passes; one for a later value blocks until an outside signal.
    wait(l, s, 4, null_event());
    wait(l, s, 9, e2);
    std::thread::sleep(Duration::from_millis(50));
    assert!(!event_done(e2));
    c.signal(8);
    std::thread::sleep(Duration::from_millis(50));
    assert!(!event_done(e2));
    c.signal(9);
    ok!(ze::zeEventHostSynchronize(e2, FOREVER));
    wait(l, s, 10, null_event());
    std::thread::sleep(Duration::from_millis(20));
    check!(ze::zeCommandListDestroy(l), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    c.signal(10);
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeDeviceReleaseExternalSemaphoreExt(s));
    // SAFETY: ours.
    unsafe { libc::close(fd) };
}

#[test]
fn other_types_and_bad_fds_are_refused() {
    let z = Ze::new();
    for f in [F::OPAQUE_WIN32, F::OPAQUE_WIN32_KMT, F::D3D12_FENCE, F::D3D11_FENCE, F::KEYED_MUTEX, F::KEYED_MUTEX_KMT, F::VK_TIMELINE_SEMAPHORE_WIN32] {
        assert_eq!(import(&z, f, Some(0)), Err(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION), "{f:?}");
    }
    for f in [F::from_bits_retain(0), F::from_bits_retain(F::OPAQUE_FD.0 | F::VK_TIMELINE_SEMAPHORE_FD.0), F::from_bits_retain(1 << 20)] {
        assert!(matches!(import(&z, f, Some(0)), Err(ZE_RESULT_ERROR_INVALID_ENUMERATION | ZE_RESULT_ERROR_INVALID_ARGUMENT)), "{f:?}");
    }
    // No fd descriptor, a closed fd, a file that is not an eventfd, a too small timeline file.
    assert_eq!(import(&z, F::OPAQUE_FD, None), Err(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    assert_eq!(import(&z, F::OPAQUE_FD, Some(-1)), Err(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    assert_eq!(import(&z, F::OPAQUE_FD, Some(999_999)), Err(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    let t = timeline_fd(true);
    assert_eq!(import(&z, F::OPAQUE_FD, Some(t)), Err(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    let e = eventfd(true);
    assert_eq!(import(&z, F::VK_TIMELINE_SEMAPHORE_FD, Some(e)), Err(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    // SAFETY: ours.
    assert_eq!(unsafe { libc::ftruncate(t, 8) }, 0);
    assert_eq!(import(&z, F::VK_TIMELINE_SEMAPHORE_FD, Some(t)), Err(ZE_RESULT_ERROR_INVALID_ARGUMENT));
    // The driver keeps a duplicate: closing the application's fd does not break the handle.
    let s = import(&z, F::OPAQUE_FD, Some(e)).unwrap();
    let e2 = eventfd(true);
    let s2 = import(&z, F::OPAQUE_FD, Some(e2)).unwrap();
    // SAFETY: ours.
    unsafe { libc::close(e2) };
    let l = z.immediate(0, ASYNC);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let ev = z.event(pool, 0);
    signal(l, s2, 0, ev);
    ok!(ze::zeEventHostSynchronize(ev, FOREVER));
    // A regular list cannot take semaphore commands (immediate lists only).
    let r = z.list(0);
    let mut hs = [s];
    let mut p = [ze_external_semaphore_signal_params_ext_t::default()];
    check!(ze::zeCommandListAppendSignalExternalSemaphoreExt(r, 1, hs.as_mut_ptr(), p.as_mut_ptr(), null_mut(), 0, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Released semaphores are gone.
    ok!(ze::zeDeviceReleaseExternalSemaphoreExt(s));
    ok!(ze::zeDeviceReleaseExternalSemaphoreExt(s2));
    check!(ze::zeDeviceReleaseExternalSemaphoreExt(s), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    check!(ze::zeCommandListAppendSignalExternalSemaphoreExt(l, 1, hs.as_mut_ptr(), p.as_mut_ptr(), null_mut(), 0, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    // SAFETY: ours.
    unsafe {
        libc::close(t);
        libc::close(e);
    }
}

const CHILD_VAR: &str = "ZEKIT_SEM_CHILD";

/// The child: `to_parent:to_child:timeline`. Signals the parent (binary, timeline 5), then
/// waits for it (binary, timeline 7), all through its own driver.
/// Run by its parent by name (ignored otherwise; run without its parent's environment it
/// fails).
#[test]
#[ignore = "the child half of the cross-process semaphore test, run by it"]
fn semaphore_child() {
    let arg = std::env::var(CHILD_VAR).expect("run by its parent");
    let fds: Vec<i32> = arg.split(':').map(|s| s.parse().unwrap()).collect();
    let z = Ze::new();
    let up = import(&z, F::OPAQUE_FD, Some(fds[0])).unwrap();
    let down = import(&z, F::OPAQUE_FD, Some(fds[1])).unwrap();
    let tl = import(&z, F::VK_TIMELINE_SEMAPHORE_FD, Some(fds[2])).unwrap();
    let l = z.immediate(0, ASYNC);
    signal(l, up, 0, null_event());
    signal(l, tl, 5, null_event());
    wait(l, down, 0, null_event());
    wait(l, tl, 7, null_event());
    ok!(ze::zeCommandListHostSynchronize(l, 20_000_000_000));
}

#[test]
fn semaphores_between_processes() {
    let z = Ze::new();
    let (up, down, tl) = (eventfd(false), eventfd(false), timeline_fd(false));
    let s_up = import(&z, F::OPAQUE_FD, Some(up)).unwrap();
    let s_down = import(&z, F::OPAQUE_FD, Some(down)).unwrap();
    let s_tl = import(&z, F::VK_TIMELINE_SEMAPHORE_FD, Some(tl)).unwrap();
    let l = z.immediate(0, ASYNC);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let got = z.event(pool, 0);
    // The parent's queue waits for the child's signals.
    wait(l, s_up, 0, null_event());
    wait(l, s_tl, 5, got);
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "semaphore_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, format!("{up}:{down}:{tl}"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    ok!(ze::zeEventHostSynchronize(got, 20_000_000_000));
    // The child's queue now waits for the parent's.
    signal(l, s_down, 0, null_event());
    signal(l, s_tl, 7, null_event());
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the child did not finish");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success());
    // The child test ran (not 0 tests matched).
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert!(out.contains("1 passed"), "{out}");
    for s in [s_up, s_down, s_tl] {
        ok!(ze::zeDeviceReleaseExternalSemaphoreExt(s));
    }
    // SAFETY: ours.
    unsafe {
        libc::close(up);
        libc::close(down);
        libc::close(tl);
    }
}
