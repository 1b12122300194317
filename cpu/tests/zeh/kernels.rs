//! What the kernel tests share (`kernels.rs`, `kernel_launches.rs`, `kernel_modules.rs`):
//! group counts, driver buffers, the ways of submitting, a launch, a build log's text.

use std::ffi::CStr;
use std::ptr::null_mut;

use super::*;

/// A group count.
pub fn groups(x: u32, y: u32, z: u32) -> ze_group_count_t {
    ze_group_count_t {
        groupCountX: x,
        groupCountY: y,
        groupCountZ: z,
    }
}

/// Driver memory of `n` elements of `T`, initialised from `init`.
pub struct Buf<T: Copy> {
    pub p: *mut T,
    pub n: usize,
}

impl<T: Copy> Buf<T> {
    pub fn new(z: &Ze, init: &[T]) -> Buf<T> {
        let p = z.shared(std::mem::size_of_val(init).max(8)).cast::<T>();
        // SAFETY: a fresh allocation of that many elements.
        unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), p, init.len()) };
        Buf { p, n: init.len() }
    }
    pub fn get(&self) -> Vec<T> {
        // SAFETY: `n` elements the finished kernels wrote.
        unsafe { std::slice::from_raw_parts(self.p, self.n) }.to_vec()
    }
}

pub const MODES: [&str; 3] = ["queue", "immediate sync", "immediate async"];

pub fn launch(l: ze_command_list_handle_t, k: ze_kernel_handle_t, g: ze_group_count_t) {
    ok!(ze::zeCommandListAppendLaunchKernel(
        l,
        k,
        &g,
        null_mut(),
        0,
        null_mut()
    ));
}

/// The text of a build log, which the call destroys.
pub fn log_text(log: ze_module_build_log_handle_t) -> String {
    let mut size = 0;
    ok!(ze::zeModuleBuildLogGetString(log, &mut size, null_mut()));
    let mut buf = vec![0u8; size];
    ok!(ze::zeModuleBuildLogGetString(
        log,
        &mut size,
        buf.as_mut_ptr().cast()
    ));
    ok!(ze::zeModuleBuildLogDestroy(log));
    CStr::from_bytes_until_nul(&buf)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}
