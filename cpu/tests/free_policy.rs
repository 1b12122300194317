//! `zeMemFreeExt` with work in flight: a blocking free waits for the queued copy that writes the
//! allocation; a deferred free returns at once and releases the memory after the copy ran.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::time::{Duration, Instant};

use zeh::*;

type F = ze_driver_memory_free_policy_ext_flags_t;

fn pending_deferred(z: &Ze) -> usize {
    let h = zekit_icd::Handle::<zekit_icd::kinds::Context>::from_raw(z.ctx.cast()).unwrap();
    h.get::<zekit_cpu::objects::ContextObject>()
        .unwrap()
        .pending_deferred_frees()
}

/// An asynchronous immediate list with a copy of `size` bytes into `dst` that waits for an
/// event nobody signaled yet; returns (list, pool, event).
fn parked_copy(
    z: &Ze,
    dst: *mut u8,
    src: *const u8,
    size: usize,
) -> (ze_command_list_handle_t, ze_event_pool_handle_t, ze_event_handle_t) {
    let l = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let pool = z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let mut e = z.event(pool, 0);
    ok!(ze::zeCommandListAppendMemoryCopy(l, dst.cast(), src.cast(), size, std::ptr::null_mut(), 1, &mut e));
    (l, pool, e)
}

fn signal_later(e: ze_event_handle_t, after: Duration) -> std::thread::JoinHandle<()> {
    let e = e as usize;
    std::thread::spawn(move || {
        std::thread::sleep(after);
        // SAFETY: a live event handle.
        let r = unsafe { ze::zeEventHostSignal(e as ze_event_handle_t) };
        assert_eq!(r, ZE_RESULT_SUCCESS);
    })
}

#[test]
fn blocking_free_waits_for_the_work_using_the_memory() {
    let z = Ze::new();
    let size = 1 << 16;
    let src = z.host(size);
    let dst = z.device_mem(size);
    let (l, pool, e) = parked_copy(&z, dst, src, size);
    let t = signal_later(e, Duration::from_millis(60));
    let start = Instant::now();
    let desc = ze_memory_free_ext_desc_t {
        freePolicy: F::BLOCKING_FREE,
        ..Default::default()
    };
    ok!(ze::zeMemFreeExt(z.ctx, &desc, dst.cast()));
    assert!(start.elapsed() >= Duration::from_millis(40), "returned before the copy ran");
    ok!(ze::zeCommandListHostSynchronize(l, 0));
    t.join().unwrap();
    check!(ze::zeMemFreeExt(z.ctx, &desc, dst.cast()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Nothing in flight: it frees at once.
    let p = z.device_mem(64);
    ok!(ze::zeMemFreeExt(z.ctx, &desc, p.cast()));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeMemFree(z.ctx, src.cast()));
}

#[test]
fn deferred_free_releases_after_the_work() {
    let z = Ze::new();
    let size = 1 << 16;
    let src = z.host(size);
    let dst = z.device_mem(size);
    let (l, pool, e) = parked_copy(&z, dst, src, size);
    let desc = ze_memory_free_ext_desc_t {
        freePolicy: F::DEFER_FREE,
        ..Default::default()
    };
    let start = Instant::now();
    ok!(ze::zeMemFreeExt(z.ctx, &desc, dst.cast()));
    assert!(start.elapsed() < Duration::from_millis(1000));
    check!(ze::zeCommandListHostSynchronize(l, 0), ZE_RESULT_NOT_READY);
    assert_eq!(pending_deferred(&z), 1, "kept while the copy is queued");
    // Freed for the application already.
    check!(ze::zeMemFree(z.ctx, dst.cast()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // The copy runs into the still-mapped memory, then the memory goes.
    ok!(ze::zeEventHostSignal(e));
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    assert_eq!(pending_deferred(&z), 0, "released once the copy ran");
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeMemFree(z.ctx, src.cast()));
}

#[test]
fn context_destroy_waits_for_deferred_frees() {
    let z = Ze::new();
    let mut ctx = std::ptr::null_mut();
    ok!(ze::zeContextCreate(z.drv, &ze_context_desc_t::default(), &mut ctx));
    let z2 = Ze {
        drv: z.drv,
        dev: z.dev,
        ctx,
    };
    let size = 4096;
    let src = z.host(size);
    let dst = z2.device_mem(size);
    // The list belongs to the context whose allocation it writes.
    let (l, pool, e) = parked_copy(&z2, dst, src, size);
    let desc = ze_memory_free_ext_desc_t {
        freePolicy: F::DEFER_FREE,
        ..Default::default()
    };
    ok!(ze::zeMemFreeExt(ctx, &desc, dst.cast()));
    let t = signal_later(e, Duration::from_millis(30));
    let start = Instant::now();
    ok!(ze::zeContextDestroy(ctx));
    assert!(start.elapsed() >= Duration::from_millis(15), "the destroy waited for the copy");
    ok!(ze::zeCommandListHostSynchronize(l, 0));
    t.join().unwrap();
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeMemFree(z.ctx, src.cast()));
}
