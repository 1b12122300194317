//! Kernel callbacks and the launches that ran.

use std::sync::Arc;

use super::{lock, Script};
use crate::kernels::{KernelCallback, KernelLaunch};

impl Script {
    /// Registers `callback` for launches of the kernel `name` (replacing an earlier one): when
    /// such a launch runs, the callback receives it ([`KernelLaunch`]: group counts and sizes,
    /// argument values) and emulates the kernel's effect on memory. Without a callback a
    /// launch does nothing. See [`crate::kernels`] for what a callback may do and what a
    /// panic in it gives.
    pub fn on_kernel(&self, name: &str, callback: impl Fn(&KernelLaunch) + Send + Sync + 'static) {
        self.set_kernel_callback(name, Arc::new(callback));
    }

    /// Registers (or replaces) a callback already in an `Arc`.
    pub fn set_kernel_callback(&self, name: &str, callback: KernelCallback) {
        lock(&self.kernels).insert(name.to_string(), callback);
    }

    /// Removes the callback of kernel `name`; whether there was one.
    pub fn remove_kernel_callback(&self, name: &str) -> bool {
        lock(&self.kernels).remove(name).is_some()
    }

    /// The callback registered for kernel `name`.
    pub fn kernel_callback(&self, name: &str) -> Option<KernelCallback> {
        lock(&self.kernels).get(name).cloned()
    }

    /// Records a launch that ran (the mock's engine does).
    pub fn record_launch(&self, launch: KernelLaunch) {
        lock(&self.launches).push(launch);
    }

    /// Every launch that ran since the last [`reset`](Self::reset) or
    /// [`clear_launches`](Self::clear_launches), in the order they ran (with or without a
    /// callback). Appending a launch is in the call log too, with the kernel's name and
    /// arguments (see the README).
    pub fn launches(&self) -> Vec<KernelLaunch> {
        lock(&self.launches).clone()
    }

    /// The launches of kernel `name` that ran.
    pub fn launches_of(&self, name: &str) -> Vec<KernelLaunch> {
        lock(&self.launches)
            .iter()
            .filter(|l| l.kernel == name)
            .cloned()
            .collect()
    }

    /// Forgets the launches recorded so far.
    pub fn clear_launches(&self) {
        lock(&self.launches).clear();
    }
}
