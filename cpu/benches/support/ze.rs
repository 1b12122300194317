//! What the benches share: the CPU driver installed in process behind the generated entry
//! points, a context on its device, and the little statistics they print.

#![allow(dead_code)]

use std::ffi::{c_void, CString};
use std::path::PathBuf;
use std::ptr::null_mut;
use std::time::Instant;

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

    /// `zeMemFree` of memory made by [`Device::device_mem`], idle.
    pub fn free(&self, p: *mut c_void) {
        // SAFETY: memory of this context that no command uses any more.
        ok("zeMemFree", unsafe { ze::zeMemFree(self.ctx, p) });
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

impl Device {
    /// `zeModuleCreate` of SPIR-V; `Err` with the build log's first line on failure.
    pub fn module(&self, spv: &[u8]) -> Result<ze_module_handle_t, ze_result_t> {
        let desc = ze_module_desc_t {
            format: ze_module_format_t::IL_SPIRV,
            inputSize: spv.len(),
            pInputModule: spv.as_ptr(),
            ..Default::default()
        };
        let mut m = null_mut();
        // SAFETY: valid context, device and descriptor; `spv` outlives the call.
        let r = unsafe { ze::zeModuleCreate(self.ctx, self.dev, &desc, &mut m, null_mut()) };
        if r == ZE_RESULT_SUCCESS {
            Ok(m)
        } else {
            Err(r)
        }
    }
}

/// The committed kernels, `spirv/kernels` (`ZEKIT_KERNELS_DIR` names another copy: where the
/// bench binary runs away from its checkout).
pub fn kernels_dir() -> PathBuf {
    match std::env::var_os("ZEKIT_KERNELS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spirv/kernels"),
    }
}

pub fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask kernels`)", path.display()))
}

pub fn kernel(m: ze_module_handle_t, name: &str, group: u32) -> ze_kernel_handle_t {
    let name = CString::new(name).expect("name");
    let desc = ze_kernel_desc_t { pKernelName: name.as_ptr(), ..Default::default() };
    let mut k = null_mut();
    // SAFETY: a live module, a NUL-terminated name.
    unsafe {
        ok("zeKernelCreate", ze::zeKernelCreate(m, &desc, &mut k));
        ok("zeKernelSetGroupSize", ze::zeKernelSetGroupSize(k, group, 1, 1));
    }
    k
}

pub fn arg<T>(k: ze_kernel_handle_t, i: u32, v: &T) {
    // SAFETY: `v` is `size_of::<T>()` readable bytes.
    ok("zeKernelSetArgumentValue", unsafe {
        ze::zeKernelSetArgumentValue(k, i, std::mem::size_of::<T>(), (v as *const T).cast())
    });
}

/// Appends a launch of `groups` groups and waits for it; seconds.
pub fn launch_and_wait(l: ze_command_list_handle_t, k: ze_kernel_handle_t, groups: u32) -> f64 {
    let g = ze_group_count_t { groupCountX: groups, groupCountY: 1, groupCountZ: 1 };
    let t = Instant::now();
    // SAFETY: a live list and kernel whose arguments are all set.
    unsafe {
        ok("launch", ze::zeCommandListAppendLaunchKernel(l, k, &g, null_mut(), 0, null_mut()));
        ok("host synchronize", ze::zeCommandListHostSynchronize(l, u64::MAX));
    }
    t.elapsed().as_secs_f64()
}

/// Groups for about `target` seconds of `run(groups)`, from one timed run of `probe`
/// groups (after a warm-up).
pub fn calibrate(probe: u32, max: u32, target: f64, mut run: impl FnMut(u32) -> f64) -> u32 {
    run(probe);
    let t = run(probe);
    ((probe as f64 * target / t) as u32).clamp(1, max)
}

pub fn destroy_module(m: ze_module_handle_t) {
    // SAFETY: a module made by `Device::module`, no kernel of it alive.
    ok("zeModuleDestroy", unsafe { ze::zeModuleDestroy(m) });
}

/// `zeKernelCreate` (then `zeKernelDestroy`) of every kernel of `m`: waits until the code of
/// each is generated (`zeModuleCreate` returns before that).
pub fn create_every_kernel(m: ze_module_handle_t) {
    let mut n = 0u32;
    // SAFETY: a live module; first the count, then that many name pointers.
    unsafe {
        ok("zeModuleGetKernelNames", ze::zeModuleGetKernelNames(m, &mut n, null_mut()));
        let mut names = vec![std::ptr::null(); n as usize];
        ok("zeModuleGetKernelNames", ze::zeModuleGetKernelNames(m, &mut n, names.as_mut_ptr()));
        for name in names {
            let desc = ze_kernel_desc_t { pKernelName: name, ..Default::default() };
            let mut k = null_mut();
            ok("zeKernelCreate", ze::zeKernelCreate(m, &desc, &mut k));
            ok("zeKernelDestroy", ze::zeKernelDestroy(k));
        }
    }
}
