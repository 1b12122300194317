//! Modules and kernels: what their C descriptors hold as raw pointers (the module's bytes,
//! build flags, a kernel's name, argument values) taken as slices, strings and values.

use std::ffi::{c_char, c_void};

use zekit_sys::*;

use crate::memory::Memory;
use crate::object::Release;
use crate::util::c_string;
use crate::{Context, Device, Error, Kernel, Module, ModuleBuildLog, Result};

/// A kernel argument passed by value: plain numbers. (Device code may still treat a number as
/// an address; what a kernel does is outside what Rust checks.)
pub trait KernelValue: Copy + 'static {}
macro_rules! kernel_values {
    ($($t:ty),*) => { $(impl KernelValue for $t {})* };
}
kernel_values!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);
impl<T: KernelValue, const N: usize> KernelValue for [T; N] {}

impl ModuleBuildLog {
    /// The build log's text (`zeModuleBuildLogGetString`, size query then text).
    pub fn text(&self) -> Result<String> {
        const F: &str = "zeModuleBuildLogGetString";
        let f = self.api().fns().ze.zeModuleBuildLogGetString.ok_or_else(|| Error::missing(F))?;
        let mut size = 0usize;
        // SAFETY: a live log, a local for the size, no buffer (the size query).
        let r = unsafe { f(self.as_raw(), &mut size, std::ptr::null_mut()) };
        self.api().check(r, F)?;
        let mut buf: Vec<c_char> = vec![0; size];
        // SAFETY: `buf` holds `size` characters, as the driver asked.
        let r = unsafe { f(self.as_raw(), &mut size, buf.as_mut_ptr()) };
        self.api().check(r, F)?;
        buf.truncate(size);
        Ok(crate::util::string_from_chars(&buf))
    }
}

impl Context {
    /// Builds a module for `device` from `input` in `format` (`ZE_MODULE_FORMAT_IL_SPIRV` or
    /// native) with `build_flags` (`zeModuleCreate`). On a build failure the error's detail
    /// holds the build log.
    pub fn create_module(&self, device: &Device, format: ze_module_format_t, input: &[u8], build_flags: &str) -> Result<Module> {
        const F: &str = "zeModuleCreate";
        let f = self.api().fns().ze.zeModuleCreate.ok_or_else(|| Error::missing(F))?;
        let flags = c_string(build_flags, F, "pBuildFlags")?;
        let desc = ze_module_desc_t {
            format,
            inputSize: input.len(),
            pInputModule: input.as_ptr(),
            pBuildFlags: flags.as_ptr(),
            ..Default::default()
        };
        let mut module: ze_module_handle_t = std::ptr::null_mut();
        let mut log: ze_module_build_log_handle_t = std::ptr::null_mut();
        // SAFETY: `desc` points at `input` and `flags`, alive for the call (the driver copies
        // what it keeps); the outputs are locals.
        let r = unsafe { f(self.as_raw(), device.as_raw(), &desc, &mut module, &mut log) };
        let api = self.api();
        let log = (!log.is_null()).then(|| {
            ModuleBuildLog::wrap(api, log, Some(self.keep_alive()), api.fns().ze.zeModuleBuildLogDestroy.map(Release::new))
        });
        if let Err(mut e) = api.check(r, F) {
            if let Some(text) = log.as_ref().and_then(|l| l.text().ok()).filter(|t| !t.is_empty()) {
                e = Error::new(e.code(), F, match e.detail() {
                    Some(d) => format!("{d}; build log: {text}"),
                    None => format!("build log: {text}"),
                });
            }
            return Err(e);
        }
        Ok(Module::wrap(api, module, Some(self.keep_alive()), api.fns().ze.zeModuleDestroy.map(Release::new)))
    }

    /// [`Context::create_module`] from SPIR-V.
    pub fn create_module_spirv(&self, device: &Device, spirv: &[u8], build_flags: &str) -> Result<Module> {
        self.create_module(device, ze_module_format_t::IL_SPIRV, spirv, build_flags)
    }
}

impl Module {
    /// The kernel `name` of this module (`zeKernelCreate`).
    pub fn create_kernel(&self, name: &str) -> Result<Kernel> {
        const F: &str = "zeKernelCreate";
        let f = self.api().fns().ze.zeKernelCreate.ok_or_else(|| Error::missing(F))?;
        let cname = c_string(name, F, "pKernelName")?;
        let desc = ze_kernel_desc_t { pKernelName: cname.as_ptr(), ..Default::default() };
        let mut k: ze_kernel_handle_t = std::ptr::null_mut();
        // SAFETY: `desc` points at `cname`, alive for the call; the output is a local.
        let r = unsafe { f(self.as_raw(), &desc, &mut k) };
        self.api().check(r, F)?;
        let api = self.api();
        Ok(Kernel::wrap(api, k, Some(self.keep_alive()), api.fns().ze.zeKernelDestroy.map(Release::new)))
    }
}

impl Kernel {
    fn set_arg(&self, index: u32, size: usize, value: *const c_void) -> Result<()> {
        const F: &str = "zeKernelSetArgumentValue";
        let f = self.api().fns().ze.zeKernelSetArgumentValue.ok_or_else(|| Error::missing(F))?;
        // SAFETY: `value` points at `size` readable bytes for the call (the driver copies
        // argument values when they are set).
        let r = unsafe { f(self.as_raw(), index, size, value) };
        self.api().check(r, F)
    }

    /// Sets argument `index` to the address of `mem`; the kernel keeps `mem` alive (and a
    /// command list that launches the kernel keeps the kernel).
    pub fn set_arg_memory(&self, index: u32, mem: &impl Memory) -> Result<()> {
        let p = mem.as_ptr();
        self.set_arg(index, std::mem::size_of::<*mut c_void>(), &p as *const *mut c_void as *const c_void)?;
        self.keep_value(mem.keep_alive());
        Ok(())
    }

    /// Sets argument `index` to `value` (its bytes).
    pub fn set_arg_value<T: KernelValue>(&self, index: u32, value: T) -> Result<()> {
        self.set_arg(index, std::mem::size_of::<T>(), &value as *const T as *const c_void)
    }

    /// Sets argument `index` to local memory of `size` bytes per work group.
    pub fn set_arg_local(&self, index: u32, size: usize) -> Result<()> {
        self.set_arg(index, size, std::ptr::null())
    }
}
