//! A small library written against `zekit`, the way a downstream crate would: it takes an
//! [`Api`] and never asks where it comes from. `src/main.rs` passes `Api::load()` (the official
//! loader, then the CPU driver or any real driver); the unit tests below pass `Api::mock()` and
//! steer the mock with `zekit_mock::script()`.

use zekit::sys::*;
use zekit::{Api, Context, Device, Driver, Result};

/// The first device of the first driver, after `zeInit`.
pub fn first_device(api: &Api) -> Result<(Driver, Device)> {
    api.init(ze_init_flags_t(0))?;
    let driver = api.drivers()?.into_iter().next().ok_or_else(|| none("zeDriverGet", "no driver"))?;
    let device = driver.devices()?.into_iter().next().ok_or_else(|| none("zeDeviceGet", "no device"))?;
    Ok((driver, device))
}

fn none(function: &'static str, what: &str) -> zekit::Error {
    zekit::Error::new(ZE_RESULT_ERROR_UNINITIALIZED, function, what)
}

/// The names of every device of every driver.
pub fn device_names(api: &Api) -> Result<Vec<String>> {
    api.init(ze_init_flags_t(0))?;
    let mut names = vec![];
    for driver in api.drivers()? {
        for device in driver.devices()? {
            names.push(zekit::util::string_from_chars(&device.properties()?.name));
        }
    }
    Ok(names)
}

/// Uploads `data` into device memory, copies it on the device to a second buffer, and reads
/// that back: a command queue, a command list, two copies and a barrier.
pub fn round_trip(context: &Context, device: &Device, data: &[u8]) -> Result<Vec<u8>> {
    let n = data.len();
    let mut staging = context.alloc_host(n, 64)?;
    staging.as_mut_slice().copy_from_slice(data);
    let a = context.alloc_device(device, n, 64)?;
    let b = context.alloc_device(device, n, 64)?;
    let back = context.alloc_shared(Some(device), n, 64)?;

    let queue = context.create_command_queue(device, &ze_command_queue_desc_t::default())?;
    let list = context.create_command_list(device, &ze_command_list_desc_t::default())?;
    list.append_memory_copy(&a, &staging, n, None, &[])?;
    list.append_barrier(None, &[])?;
    list.append_memory_copy(&b, &a, n, None, &[])?;
    list.append_barrier(None, &[])?;
    list.append_memory_copy(&back, &b, n, None, &[])?;
    list.close()?;
    queue.execute_command_lists(&[&list], None)?;
    queue.synchronize(u64::MAX)?;
    Ok(back.as_slice().to_vec())
}

/// The saxpy kernel (`spirv/kernels/saxpy.cl`: `y = a * x + y`), compiled to SPIR-V.
pub const SAXPY_SPV: &[u8] = include_bytes!("../../../spirv/kernels/saxpy.spv");

/// `a * x + y` computed on the device by the saxpy kernel: a module, a kernel, its arguments,
/// and a launch on an immediate command list.
pub fn saxpy(context: &Context, device: &Device, a: f32, x: &[f32], y: &[f32]) -> Result<Vec<f32>> {
    let n = x.len().min(y.len());
    let bytes = n * std::mem::size_of::<f32>();
    let mut xs = context.alloc_shared(Some(device), bytes.max(4), 64)?;
    let mut ys = context.alloc_shared(Some(device), bytes.max(4), 64)?;
    for (dst, v) in xs.as_mut_slice().chunks_exact_mut(4).zip(x) {
        dst.copy_from_slice(&v.to_ne_bytes());
    }
    for (dst, v) in ys.as_mut_slice().chunks_exact_mut(4).zip(y) {
        dst.copy_from_slice(&v.to_ne_bytes());
    }
    let module = context.create_module_spirv(device, SAXPY_SPV, "")?;
    let kernel = module.create_kernel("saxpy")?;
    kernel.set_arg_value(0, a)?;
    kernel.set_arg_memory(1, &xs)?;
    kernel.set_arg_memory(2, &ys)?;
    kernel.set_arg_value(3, n as u32)?;
    let (gx, _, _) = kernel.suggest_group_size(n.max(1) as u32, 1, 1)?;
    let gx = gx.max(1);
    kernel.set_group_size(gx, 1, 1)?;
    let groups = ze_group_count_t { groupCountX: (n as u32).div_ceil(gx), groupCountY: 1, groupCountZ: 1 };
    let list = context.create_command_list_immediate(device, &ze_command_queue_desc_t::default())?;
    list.append_launch_kernel(&kernel, &groups, None, &[])?;
    list.host_synchronize(u64::MAX)?;
    Ok(ys.as_slice().chunks_exact(4).take(n).map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]])).collect())
}

#[cfg(test)]
mod tests {
    use std::sync::{Mutex, MutexGuard};

    use super::*;

    /// The mock and its script are process-wide: one test at a time, each from a clean script.
    fn mock() -> (Api, MutexGuard<'static, ()>) {
        static LOCK: Mutex<()> = Mutex::new(());
        let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let api = Api::mock();
        zekit_mock::script().reset();
        (api, guard)
    }

    #[test]
    fn names_come_from_the_device_profile() {
        let (api, _g) = mock();
        let names = device_names(&api).expect("device names");
        assert_eq!(names.len(), 1, "the mock has one device: {names:?}");
        assert!(!names[0].is_empty());
    }

    #[test]
    fn the_round_trip_returns_the_data() {
        let (api, _g) = mock();
        let (driver, device) = first_device(&api).expect("device");
        let context = driver.create_context(&ze_context_desc_t::default()).expect("context");
        let data: Vec<u8> = (0..=255).collect();
        assert_eq!(round_trip(&context, &device, &data).expect("round trip"), data);
    }

    /// Fault injection: the second device allocation fails; the function returns that error.
    #[test]
    fn a_failed_allocation_is_returned() {
        let (api, _g) = mock();
        let (driver, device) = first_device(&api).expect("device");
        let context = driver.create_context(&ze_context_desc_t::default()).expect("context");
        zekit_mock::script().on("zeMemAllocDevice").nth(2).returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
        let e = round_trip(&context, &device, &[1, 2, 3]).expect_err("the allocation fails");
        assert_eq!(e.code(), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
        assert_eq!(e.function(), "zeMemAllocDevice");
        // Nothing leaked: what was allocated before the failure is freed.
        let s = zekit_mock::script();
        assert_eq!(s.call_count("zeMemFree"), 2, "the staging buffer and the first device buffer");
        assert_eq!(s.call_count("zeCommandQueueCreate"), 0, "it stopped at the failure");
    }

    /// Expectations: the work is submitted once, with one list, and everything is released.
    #[test]
    fn the_work_is_submitted_once() {
        let (api, _g) = mock();
        let (driver, device) = first_device(&api).expect("device");
        let context = driver.create_context(&ze_context_desc_t::default()).expect("context");
        let s = zekit_mock::script();
        s.expect("zeCommandQueueExecuteCommandLists").times(1).with(|a| a.u64("numCommandLists") == Some(1));
        s.expect("zeCommandListAppendMemoryCopy").times(3);
        s.expect("zeCommandQueueSynchronize").at_least(1);
        s.expect("zeCommandListDestroy").times(1);
        s.expect("zeCommandQueueDestroy").times(1);
        s.expect("zeMemFree").times(4);
        round_trip(&context, &device, &[9; 100]).expect("round trip");
        assert_eq!(s.verify(), Ok(()));
    }

    /// A kernel on the mock: the mock reads the module's entry points and argument layout, and
    /// a host callback emulates `saxpy` from the launch's arguments. `tests/cpu.rs` runs the
    /// same function on the CPU driver's compiled kernel.
    #[test]
    fn saxpy_runs_against_a_host_callback() {
        let (api, _g) = mock();
        let (driver, device) = first_device(&api).expect("device");
        let context = driver.create_context(&ze_context_desc_t::default()).expect("context");
        let s = zekit_mock::script();
        s.on_kernel("saxpy", |l: &zekit_mock::KernelLaunch| {
            let (a, x, y, n) = (l.arg::<f32>(0), l.arg_ptr::<f32>(1), l.arg_ptr::<f32>(2), l.arg::<u32>(3));
            let items = l.global_size()[0].min(u64::from(n)) as usize;
            for i in 0..items {
                // SAFETY: the test's own shared allocations, `n` floats each, alive during the
                // launch (the callback runs inside the launch on this thread).
                unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
            }
        });
        let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..1000).map(|i| 1.0 - i as f32 * 0.5).collect();
        let out = saxpy(&context, &device, 2.0, &x, &y).expect("saxpy");
        let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.0 * x + y).collect();
        assert_eq!(out, want);
        // The launch is in the launch log with the arguments the library set.
        let launches = s.launches_of("saxpy");
        assert_eq!(launches.len(), 1);
        assert_eq!(launches[0].arg::<u32>(3), 1000);
        assert!(launches[0].global_size()[0] >= 1000);
    }

    /// Without a callback a launch changes nothing: the library gets `y` back unchanged.
    #[test]
    fn without_a_callback_the_kernel_does_nothing() {
        let (api, _g) = mock();
        let (driver, device) = first_device(&api).expect("device");
        let context = driver.create_context(&ze_context_desc_t::default()).expect("context");
        let y = [1.0f32, 2.0, 3.0];
        assert_eq!(saxpy(&context, &device, 5.0, &[1.0; 3], &y).expect("saxpy"), y);
    }
}
