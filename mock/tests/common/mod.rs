//! What the mock's in-process tests share: one test at a time (the script and the engine are
//! per process), the call macros, and a driver, device and context to work in.
#![allow(dead_code)]

use std::ptr::null_mut;
use std::sync::{Mutex, MutexGuard};

use zekit_icd::entry as ze;
use zekit_sys::*;

/// The script and the engine are per process: tests take turns.
pub static LOCK: Mutex<()> = Mutex::new(());

/// Calls a C entry point and asserts success.
macro_rules! ok {
    ($call:expr) => {{
        // SAFETY: valid arguments, as a correct C program would pass.
        let r = unsafe { $call };
        assert_eq!(r, ZE_RESULT_SUCCESS, "{}", stringify!($call));
    }};
}

/// Calls a C entry point and returns its result.
macro_rules! call {
    ($call:expr) => {{
        // SAFETY: arguments a C program could pass (some wrong on purpose).
        unsafe { $call }
    }};
}

/// The lock held for the test, and a driver, device and context of the mock (no scenario).
pub struct Env {
    pub _guard: MutexGuard<'static, ()>,
    pub driver: ze_driver_handle_t,
    pub device: ze_device_handle_t,
    pub ctx: ze_context_handle_t,
}

/// Takes the lock, installs the mock with a fresh script, and makes a context.
pub fn env() -> Env {
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    zekit_mock::install();
    zekit_mock::script().reset();
    ok!(ze::zeInit(ze_init_flags_t(0)));
    let mut n = 1;
    let mut driver = null_mut();
    ok!(ze::zeDriverGet(&mut n, &mut driver));
    let mut device = null_mut();
    ok!(ze::zeDeviceGet(driver, &mut n, &mut device));
    let mut ctx = null_mut();
    ok!(ze::zeContextCreate(driver, &ze_context_desc_t::default(), &mut ctx));
    Env { _guard: guard, driver, device, ctx }
}

impl Env {
    /// A synchronous immediate command list of the context.
    pub fn immediate(&self) -> ze_command_list_handle_t {
        let desc = ze_command_queue_desc_t { mode: ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, ..Default::default() };
        let mut l = null_mut();
        ok!(ze::zeCommandListCreateImmediate(self.ctx, self.device, &desc, &mut l));
        l
    }
}
