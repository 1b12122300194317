//! What the benches share: the CPU driver installed in process behind the generated entry
//! points, a context on its device, and the little statistics they print.

#![allow(dead_code)]

use std::ffi::c_void;
use std::ptr::null_mut;

use zekit_icd::entry as ze;
use zekit_sys::*;

use crate::zekit_driver_core;

pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

pub fn ok(what: &str, r: ze_result_t) {
    assert_eq!(r, ZE_RESULT_SUCCESS, "{what}");
}

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub struct Device {
    pub dev: ze_device_handle_t,
    pub ctx: ze_context_handle_t,
}

pub fn setup() -> Device {
    zekit_icd::install(zekit_driver_core::api::dispatch());
    // SAFETY: the entry points are called as a C program would, with valid arguments.
    unsafe {
        ok("zeInit", ze::zeInit(ze_init_flags_t(0)));
        let mut n = 1u32;
        let mut drv = null_mut();
        ok("zeDriverGet", ze::zeDriverGet(&mut n, &mut drv));
        let mut dev = null_mut();
        ok("zeDeviceGet", ze::zeDeviceGet(drv, &mut n, &mut dev));
        let mut ctx = null_mut();
        ok("zeContextCreate", ze::zeContextCreate(drv, &ze_context_desc_t::default(), &mut ctx));
        Device { dev, ctx }
    }
}

impl Device {
    pub fn device_mem(&self, size: usize) -> *mut c_void {
        let mut p = null_mut();
        // SAFETY: valid arguments.
        ok("zeMemAllocDevice", unsafe {
            ze::zeMemAllocDevice(self.ctx, &ze_device_mem_alloc_desc_t::default(), size, 4096, self.dev, &mut p)
        });
        p
    }

    pub fn immediate(&self, mode: ze_command_queue_mode_t) -> ze_command_list_handle_t {
        let desc = ze_command_queue_desc_t { mode, ..Default::default() };
        let mut l = null_mut();
        // SAFETY: valid arguments.
        ok("zeCommandListCreateImmediate", unsafe {
            ze::zeCommandListCreateImmediate(self.ctx, self.dev, &desc, &mut l)
        });
        l
    }
}
