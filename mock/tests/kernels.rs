//! Modules, kernels and launches in the mock, in process (hooks on), with the committed SPIR-V
//! kernels of `spirv/kernels/`: module and kernel queries, argument checks, host callbacks
//! that emulate a kernel (and what happens without one), launches in order with copies and
//! events, indirect launches, malformed SPIR-V, the call log and the launch log.

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use zekit_icd::entry as ze;
use zekit_mock::{KernelArg, KernelLaunch};
use zekit_sys::*;

#[macro_use]
mod common;
use common::*;

fn spirv(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../spirv/kernels/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

impl Env {
    fn module_result(
        &self,
        il: &[u8],
        log: Option<&mut ze_module_build_log_handle_t>,
    ) -> (ze_result_t, ze_module_handle_t) {
        let desc = ze_module_desc_t {
            format: ZE_MODULE_FORMAT_IL_SPIRV,
            inputSize: il.len(),
            pInputModule: il.as_ptr(),
            ..Default::default()
        };
        let mut m = null_mut();
        let log = log.map_or(null_mut(), |l| l as *mut _);
        let r = call!(ze::zeModuleCreate(
            self.ctx,
            self.device,
            &desc,
            &mut m,
            log
        ));
        (r, m)
    }
    fn module(&self, name: &str) -> ze_module_handle_t {
        let (r, m) = self.module_result(&spirv(name), None);
        assert_eq!(r, ZE_RESULT_SUCCESS, "{name}");
        m
    }
    fn kernel(&self, module: ze_module_handle_t, name: &str) -> ze_kernel_handle_t {
        let name = CString::new(name).unwrap();
        let desc = ze_kernel_desc_t {
            pKernelName: name.as_ptr(),
            ..Default::default()
        };
        let mut k = null_mut();
        ok!(ze::zeKernelCreate(module, &desc, &mut k));
        k
    }
    fn shared(&self, size: usize) -> *mut c_void {
        let mut p = null_mut();
        ok!(ze::zeMemAllocShared(
            self.ctx,
            &ze_device_mem_alloc_desc_t::default(),
            &ze_host_mem_alloc_desc_t::default(),
            size,
            0,
            self.device,
            &mut p
        ));
        p
    }
}

fn set_ptr(k: ze_kernel_handle_t, i: u32, p: *mut c_void) {
    ok!(ze::zeKernelSetArgumentValue(
        k,
        i,
        8,
        &p as *const *mut c_void as *const c_void
    ));
}

fn groups(x: u32) -> ze_group_count_t {
    ze_group_count_t {
        groupCountX: x,
        groupCountY: 1,
        groupCountZ: 1,
    }
}

/// `c = a + b` over `launch.global_size()[0]` floats: what `vector_add.cl` does.
fn vector_add(l: &KernelLaunch) {
    let (a, b, c) = (
        l.arg_ptr::<f32>(0),
        l.arg_ptr::<f32>(1),
        l.arg_ptr::<f32>(2),
    );
    for i in 0..l.global_size()[0] as usize {
        // SAFETY: the test passes buffers of global_size floats.
        unsafe { *c.add(i) = *a.add(i) + *b.add(i) };
    }
}

fn floats<'a>(p: *mut c_void, n: usize) -> &'a mut [f32] {
    // SAFETY: the tests only pass allocations of at least `n` floats.
    unsafe { std::slice::from_raw_parts_mut(p as *mut f32, n) }
}

#[test]
fn modules_report_their_kernels_and_kernels_their_properties() {
    let e = env();
    let mut log = null_mut();
    let (r, m) = e.module_result(&spirv("vector_add"), Some(&mut log));
    assert_eq!(r, ZE_RESULT_SUCCESS);
    let mut size = 0;
    ok!(ze::zeModuleBuildLogGetString(log, &mut size, null_mut()));
    let mut text = vec![0 as c_char; size];
    ok!(ze::zeModuleBuildLogGetString(
        log,
        &mut size,
        text.as_mut_ptr()
    ));
    // SAFETY: the mock wrote a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(text.as_ptr()) }.to_string_lossy();
    assert!(text.contains("vector_add"), "{text}");
    ok!(ze::zeModuleBuildLogDestroy(log));

    let mut n = 0;
    ok!(ze::zeModuleGetKernelNames(m, &mut n, null_mut()));
    assert_eq!(n, 1);
    let mut names = [null(); 1];
    ok!(ze::zeModuleGetKernelNames(m, &mut n, names.as_mut_ptr()));
    // SAFETY: the mock hands out names that live with the module.
    let first = unsafe { CStr::from_ptr(names[0]) };
    assert_eq!(first.to_str(), Ok("vector_add"));
    let mut mp = ze_module_properties_t::default();
    ok!(ze::zeModuleGetProperties(m, &mut mp));
    assert_eq!(mp.flags, ze_module_property_flags_t::empty());

    let k = e.kernel(m, "vector_add");
    let mut kp = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut kp));
    assert_eq!(kp.numKernelArgs, 3);
    assert_eq!(kp.requiredGroupSizeX, 0);
    let mut size = 0;
    ok!(ze::zeKernelGetName(k, &mut size, null_mut()));
    assert_eq!(size, "vector_add".len() + 1);
    let mut name = vec![0 as c_char; size];
    ok!(ze::zeKernelGetName(k, &mut size, name.as_mut_ptr()));
    // SAFETY: NUL-terminated by the mock.
    let got = unsafe { CStr::from_ptr(name.as_ptr()) };
    assert_eq!(got.to_str(), Ok("vector_add"));

    // Unknown kernel name, native format.
    let bad = CString::new("vector_sub").unwrap();
    let mut k2 = null_mut();
    let desc = ze_kernel_desc_t {
        pKernelName: bad.as_ptr(),
        ..Default::default()
    };
    assert_eq!(
        call!(ze::zeKernelCreate(m, &desc, &mut k2)),
        ZE_RESULT_ERROR_INVALID_KERNEL_NAME
    );
    let il = spirv("vector_add");
    let native = ze_module_desc_t {
        format: ZE_MODULE_FORMAT_NATIVE,
        inputSize: il.len(),
        pInputModule: il.as_ptr(),
        ..Default::default()
    };
    let mut m2 = null_mut();
    assert_eq!(
        call!(ze::zeModuleCreate(
            e.ctx,
            e.device,
            &native,
            &mut m2,
            null_mut()
        )),
        ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
    );

    // A required group size: reported, suggested, and the only one accepted.
    let mr = e.module("reqd");
    let kr = e.kernel(mr, "reqd");
    ok!(ze::zeKernelGetProperties(kr, &mut kp));
    assert_eq!(
        (
            kp.requiredGroupSizeX,
            kp.requiredGroupSizeY,
            kp.requiredGroupSizeZ
        ),
        (8, 2, 1)
    );
    let (mut x, mut y, mut z) = (0, 0, 0);
    ok!(ze::zeKernelSuggestGroupSize(
        kr, 64, 64, 1, &mut x, &mut y, &mut z
    ));
    assert_eq!((x, y, z), (8, 2, 1));
    assert_eq!(
        call!(ze::zeKernelSetGroupSize(kr, 4, 4, 1)),
        ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
    );
    ok!(ze::zeKernelSetGroupSize(kr, 8, 2, 1));
    ok!(ze::zeKernelSuggestGroupSize(
        k, 1024, 1, 1, &mut x, &mut y, &mut z
    ));
    assert_eq!((x, y, z), (256, 1, 1));
    assert_eq!(
        call!(ze::zeKernelSetGroupSize(k, 0, 1, 1)),
        ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
    );

    // Recorders.
    ok!(ze::zeKernelSetIndirectAccess(
        k,
        ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST.into()
    ));
    let mut flags = ze_kernel_indirect_access_flags_t::empty();
    ok!(ze::zeKernelGetIndirectAccess(k, &mut flags));
    assert_eq!(flags, ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST.into());
    ok!(ze::zeKernelSetCacheConfig(
        k,
        ZE_CACHE_CONFIG_FLAG_LARGE_SLM.into()
    ));

    // A module may go before its kernels.
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeKernelGetProperties(k, &mut kp));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeKernelDestroy(kr));
    ok!(ze::zeModuleDestroy(mr));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn arguments_are_checked_against_the_layout() {
    let e = env();
    let m = e.module("vector_add");
    let k = e.kernel(m, "vector_add");
    let p = e.shared(64);
    let v = 0u64;
    let pv = &v as *const u64 as *const c_void;
    assert_eq!(
        call!(ze::zeKernelSetArgumentValue(k, 3, 8, pv)),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX
    );
    assert_eq!(
        call!(ze::zeKernelSetArgumentValue(k, 0, 4, pv)),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    set_ptr(k, 0, p);
    set_ptr(k, 1, p);
    // Argument 2 never set: the launch is refused at the append.
    let list = e.immediate();
    assert_eq!(
        call!(ze::zeCommandListAppendLaunchKernel(
            list,
            k,
            &groups(1),
            null_mut(),
            0,
            null_mut()
        )),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert!(
        zekit_mock::last_error().contains("argument 2 of kernel `vector_add` was never set"),
        "{}",
        zekit_mock::last_error()
    );
    // A null pointer argument is a value like any other.
    ok!(ze::zeKernelSetArgumentValue(k, 2, 8, null()));

    // By value: exactly the struct's size; local memory: a size and no value.
    let ms = e.module("struct_arg");
    let ks = e.kernel(ms, "struct_arg");
    let params = [0u8; 24];
    assert_eq!(
        call!(ze::zeKernelSetArgumentValue(
            ks,
            0,
            16,
            params.as_ptr().cast()
        )),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    // A null value for a by-value argument is zeros (the spec's "considered null").
    ok!(ze::zeKernelSetArgumentValue(ks, 0, 24, null()));
    ok!(ze::zeKernelSetArgumentValue(
        ks,
        0,
        24,
        params.as_ptr().cast()
    ));
    let mr = e.module("reduce");
    let kr = e.kernel(mr, "reduce");
    assert_eq!(
        call!(ze::zeKernelSetArgumentValue(kr, 2, 256, pv)),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert_eq!(
        call!(ze::zeKernelSetArgumentValue(kr, 2, 1 << 30, null())),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    ok!(ze::zeKernelSetArgumentValue(kr, 2, 256, null()));
    for k in [k, ks, kr] {
        ok!(ze::zeKernelDestroy(k));
    }
    for m in [m, ms, mr] {
        ok!(ze::zeModuleDestroy(m));
    }
    ok!(ze::zeCommandListDestroy(list));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn a_callback_emulates_vector_add_on_shared_memory() {
    let e = env();
    const N: usize = 256;
    let seen: Arc<Mutex<Vec<KernelLaunch>>> = Arc::default();
    let s2 = seen.clone();
    zekit_mock::script().on_kernel("vector_add", move |l: &KernelLaunch| {
        s2.lock().unwrap().push(l.clone());
        vector_add(l);
    });
    let (a, b, c) = (e.shared(N * 4), e.shared(N * 4), e.shared(N * 4));
    for i in 0..N {
        floats(a, N)[i] = i as f32;
        floats(b, N)[i] = 2.0 * i as f32;
    }
    let m = e.module("vector_add");
    let k = e.kernel(m, "vector_add");
    for (i, p) in [a, b, c].into_iter().enumerate() {
        set_ptr(k, i as u32, p);
    }
    ok!(ze::zeKernelSetGroupSize(k, 64, 1, 1));

    // A regular list through a queue.
    let mut q = null_mut();
    ok!(ze::zeCommandQueueCreate(
        e.ctx,
        e.device,
        &ze_command_queue_desc_t::default(),
        &mut q
    ));
    let mut list = null_mut();
    ok!(ze::zeCommandListCreate(
        e.ctx,
        e.device,
        &ze_command_list_desc_t::default(),
        &mut list
    ));
    ok!(ze::zeCommandListAppendLaunchKernel(
        list,
        k,
        &groups((N / 64) as u32),
        null_mut(),
        0,
        null_mut()
    ));
    assert!(
        seen.lock().unwrap().is_empty(),
        "nothing runs before execution"
    );
    ok!(ze::zeCommandListClose(list));
    ok!(ze::zeCommandQueueExecuteCommandLists(
        q,
        1,
        &mut list,
        null_mut()
    ));
    ok!(ze::zeCommandQueueSynchronize(q, u64::MAX));
    for i in 0..N {
        assert_eq!(floats(c, N)[i], 3.0 * i as f32, "c[{i}]");
    }
    let launches = seen.lock().unwrap().clone();
    assert_eq!(launches.len(), 1);
    let l = &launches[0];
    assert_eq!(l.kernel, "vector_add");
    assert_eq!(l.group_count, [4, 1, 1]);
    assert_eq!(l.group_size, [64, 1, 1]);
    assert_eq!(l.global_offset, [0, 0, 0]);
    assert_eq!(l.global_size(), [256, 1, 1]);
    assert_eq!(l.args[0], KernelArg::Pointer(a as u64));
    assert_eq!(l.function, "zeCommandListAppendLaunchKernel");

    // An immediate list runs it at the append; the launch log has both.
    floats(c, N).fill(0.0);
    let imm = e.immediate();
    ok!(ze::zeCommandListAppendLaunchKernel(
        imm,
        k,
        &groups((N / 64) as u32),
        null_mut(),
        0,
        null_mut()
    ));
    assert_eq!(floats(c, N)[N - 1], 3.0 * (N - 1) as f32);
    assert_eq!(zekit_mock::script().launches_of("vector_add").len(), 2);

    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeCommandListDestroy(list));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn without_a_callback_a_launch_runs_and_leaves_memory_untouched() {
    let e = env();
    let c = e.shared(1024);
    // SAFETY: 1024 bytes of shared memory.
    unsafe { std::ptr::write_bytes(c as *mut u8, 0xAB, 1024) };
    let m = e.module("vector_add");
    let k = e.kernel(m, "vector_add");
    for i in 0..3 {
        set_ptr(k, i, c);
    }
    let imm = e.immediate();
    ok!(ze::zeCommandListAppendLaunchKernel(
        imm,
        k,
        &groups(256),
        null_mut(),
        0,
        null_mut()
    ));
    // SAFETY: as above.
    let bytes = unsafe { std::slice::from_raw_parts(c as *const u8, 1024) };
    assert!(bytes.iter().all(|&b| b == 0xAB));
    let launches = zekit_mock::script().launches();
    assert_eq!(launches.len(), 1);
    assert_eq!(launches[0].group_count, [256, 1, 1]);
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn launches_run_in_order_with_copies_and_events() {
    let e = env();
    const N: usize = 64;
    zekit_mock::script().on_kernel("vector_add", vector_add);
    let (a, b, c, d) = (
        e.shared(N * 4),
        e.shared(N * 4),
        e.shared(N * 4),
        e.shared(N * 4),
    );
    floats(a, N).fill(1.0);
    floats(b, N).fill(2.0);
    let m = e.module("vector_add");
    let k = e.kernel(m, "vector_add");
    for (i, p) in [a, b, c].into_iter().enumerate() {
        set_ptr(k, i as u32, p);
    }
    let mut pool = null_mut();
    ok!(ze::zeEventPoolCreate(
        e.ctx,
        &ze_event_pool_desc_t {
            flags: ZE_EVENT_POOL_FLAG_HOST_VISIBLE.into(),
            count: 2,
            ..Default::default()
        },
        0,
        null_mut(),
        &mut pool
    ));
    let (mut gate, mut done) = (null_mut(), null_mut());
    ok!(ze::zeEventCreate(
        pool,
        &ze_event_desc_t::default(),
        &mut gate
    ));
    ok!(ze::zeEventCreate(
        pool,
        &ze_event_desc_t {
            index: 1,
            ..Default::default()
        },
        &mut done
    ));
    // An asynchronous immediate list: the launch waits for the gate, the copy after it
    // sees its result.
    let mut imm = null_mut();
    ok!(ze::zeCommandListCreateImmediate(
        e.ctx,
        e.device,
        &ze_command_queue_desc_t::default(),
        &mut imm
    ));
    ok!(ze::zeCommandListAppendLaunchKernel(
        imm,
        k,
        &groups(N as u32),
        null_mut(),
        1,
        &mut gate
    ));
    ok!(ze::zeCommandListAppendMemoryCopy(
        imm,
        d,
        c,
        N * 4,
        done,
        0,
        null_mut()
    ));
    assert!(zekit_mock::script().launches().is_empty());
    assert_eq!(floats(d, N)[0], 0.0);
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeEventHostSynchronize(done, u64::MAX));
    assert!(floats(d, N).iter().all(|&x| x == 3.0));

    // Indirect: the group count is read when the launch runs.
    ok!(ze::zeEventHostReset(gate));
    floats(c, N).fill(0.0);
    let counts = e.shared(std::mem::size_of::<ze_group_count_t>()) as *mut ze_group_count_t;
    ok!(ze::zeCommandListAppendLaunchKernelIndirect(
        imm,
        k,
        counts,
        null_mut(),
        1,
        &mut gate
    ));
    // SAFETY: shared memory of one ze_group_count_t.
    unsafe { counts.write(groups(8)) };
    ok!(ze::zeEventHostSignal(gate));
    ok!(ze::zeCommandListHostSynchronize(imm, u64::MAX));
    let last = zekit_mock::script().launches().pop().unwrap();
    assert_eq!(last.group_count, [8, 1, 1]);
    assert_eq!(last.function, "zeCommandListAppendLaunchKernelIndirect");
    assert!(floats(c, N)[..8].iter().all(|&x| x == 3.0));
    assert!(floats(c, N)[8..].iter().all(|&x| x == 0.0));

    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeEventDestroy(gate));
    ok!(ze::zeEventDestroy(done));
    ok!(ze::zeEventPoolDestroy(pool));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn malformed_spirv_is_a_build_failure_with_its_reason() {
    let e = env();
    let mut log = null_mut();
    let (r, m) = e.module_result(&[0x03, 0x02, 0x23, 0x07, 1, 2, 3, 4], Some(&mut log));
    assert_eq!(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    assert!(m.is_null());
    // A failed build still hands out its log, which names the reason (so does the last error).
    assert!(!log.is_null());
    let mut size = 0;
    ok!(ze::zeModuleBuildLogGetString(log, &mut size, null_mut()));
    let mut text = vec![0 as c_char; size];
    ok!(ze::zeModuleBuildLogGetString(log, &mut size, text.as_mut_ptr()));
    // SAFETY: the mock wrote a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(text.as_ptr()) }.to_string_lossy();
    assert!(text.contains("invalid SPIR-V"), "{text}");
    ok!(ze::zeModuleBuildLogDestroy(log));
    let why = zekit_mock::last_error();
    assert!(why.contains("invalid SPIR-V"), "{why}");
    // Without a log pointer the failure is the same.
    let mut m2: ze_module_handle_t = 0x1234 as _;
    let bad = [0x03u8, 0x02, 0x23, 0x07, 1, 2, 3, 4];
    let desc = ze_module_desc_t {
        format: ZE_MODULE_FORMAT_IL_SPIRV,
        inputSize: bad.len(),
        pInputModule: bad.as_ptr(),
        ..Default::default()
    };
    assert_eq!(
        call!(ze::zeModuleCreate(e.ctx, e.device, &desc, &mut m2, null_mut())),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    assert!(m2.is_null(), "a failed create leaves a null module handle, not the caller's garbage");
    let mut half = spirv("vector_add");
    half.truncate(half.len() / 2);
    assert_eq!(
        e.module_result(&half, None).0,
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    assert_eq!(e.module_result(&[], None).0, ZE_RESULT_ERROR_INVALID_SIZE);
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn launches_are_in_the_call_log_with_their_arguments() {
    let e = env();
    let script = zekit_mock::script();
    let exp = script
        .expect("zeCommandListAppendLaunchKernel")
        .with(|a| {
            a.get("kernel") == Some("struct_arg")
                && a.get("arg0").is_some_and(|v| v.starts_with("["))
        })
        .named("struct_arg launch");
    let m = e.module("struct_arg");
    let k = e.kernel(m, "struct_arg");
    let mut params = [0u8; 24];
    params[..4].copy_from_slice(&2.0f32.to_le_bytes());
    params[4..8].copy_from_slice(&7i32.to_le_bytes());
    ok!(ze::zeKernelSetArgumentValue(
        k,
        0,
        24,
        params.as_ptr().cast()
    ));
    let out = e.shared(64);
    set_ptr(k, 1, out);
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    let ran = Arc::new(AtomicUsize::new(0));
    let r2 = ran.clone();
    script.on_kernel("struct_arg", move |l| {
        // The struct's fields, read from its bytes.
        let p: [u8; 24] = l.arg(0);
        assert_eq!(f32::from_le_bytes(p[..4].try_into().unwrap()), 2.0);
        assert_eq!(l.try_arg::<u32>(0), None, "24 bytes, not 4");
        r2.fetch_add(1, Ordering::Relaxed);
    });
    let imm = e.immediate();
    ok!(ze::zeCommandListAppendLaunchKernel(
        imm,
        k,
        &groups(2),
        null_mut(),
        0,
        null_mut()
    ));
    assert_eq!(ran.load(Ordering::Relaxed), 1);
    assert_eq!(exp.count(), 1);
    let call = &script.calls_to("zeCommandListAppendLaunchKernel")[0];
    assert_eq!(call.arg("kernel"), Some("struct_arg"));
    assert_eq!(call.arg("groupSize"), Some("[8, 1, 1]"));
    assert_eq!(
        call.arg("arg1"),
        Some(format!("{:#x}", out as usize).as_str())
    );
    assert!(call
        .arg("arg0")
        .unwrap()
        .starts_with("[00 00 00 40 07 00 00 00"));
    assert!(script.render_log().contains("kernel=struct_arg"));
    // A launch whose argument is still unset shows it as such.
    let k2 = e.kernel(m, "struct_arg");
    assert_ne!(
        call!(ze::zeCommandListAppendLaunchKernel(
            imm,
            k2,
            &groups(1),
            null_mut(),
            0,
            null_mut()
        )),
        ZE_RESULT_SUCCESS
    );
    let last = script
        .calls_to("zeCommandListAppendLaunchKernel")
        .pop()
        .unwrap();
    assert_eq!(last.arg("arg0"), Some("unset"));
    assert!(script.checkpoint().is_ok());
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeKernelDestroy(k2));
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn a_panicking_callback_is_an_error_and_a_violation() {
    let e = env();
    let script = zekit_mock::script();
    script.on_kernel("vector_add", |l| {
        // Argument 0 is a pointer: asking for a value is the test's mistake.
        let _: u32 = l.arg(0);
    });
    let m = e.module("vector_add");
    let k = e.kernel(m, "vector_add");
    let p = e.shared(64);
    for i in 0..3 {
        set_ptr(k, i, p);
    }
    let imm = e.immediate();
    assert_eq!(
        call!(ze::zeCommandListAppendLaunchKernel(
            imm,
            k,
            &groups(1),
            null_mut(),
            0,
            null_mut()
        )),
        ZE_RESULT_ERROR_UNKNOWN
    );
    let why = zekit_mock::last_error();
    assert!(
        why.contains("the host callback of kernel `vector_add` panicked")
            && why.contains("argument 0 is not a 4-byte value (a pointer)"),
        "{why}"
    );
    let violations = script.verify().unwrap_err();
    assert!(violations[0].contains("panicked"), "{violations:?}");
    // The mock goes on: a replaced callback works.
    script.on_kernel("vector_add", |_| {});
    ok!(ze::zeCommandListAppendLaunchKernel(
        imm,
        k,
        &groups(1),
        null_mut(),
        0,
        null_mut()
    ));
    assert!(script.remove_kernel_callback("vector_add"));
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn global_variables_are_readable_and_writable() {
    let e = env();
    let m = e.module("globals");
    let name = CString::new("table").unwrap();
    let mut size = 0;
    let mut ptr = null_mut();
    ok!(ze::zeModuleGetGlobalPointer(
        m,
        name.as_ptr(),
        &mut size,
        &mut ptr
    ));
    assert_eq!(size, 16);
    // SAFETY: the module's 16 bytes of `table`.
    let table = unsafe { std::slice::from_raw_parts_mut(ptr as *mut i32, 4) };
    assert_eq!(table, [1, 2, 3, 4]);
    table[0] = 9;
    let missing = CString::new("nope").unwrap();
    assert_eq!(
        call!(ze::zeModuleGetGlobalPointer(
            m,
            missing.as_ptr(),
            &mut size,
            &mut ptr
        )),
        ZE_RESULT_ERROR_INVALID_GLOBAL_NAME
    );
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn multiple_kernels_indirect_runs_as_many_launches_as_the_count_buffer_says() {
    let e = env();
    zekit_mock::script().on_kernel("vector_add", vector_add);
    let m = e.module("vector_add");
    let (k1, k2) = (e.kernel(m, "vector_add"), e.kernel(m, "vector_add"));
    let (a, c1, c2) = (e.shared(64 * 4), e.shared(64 * 4), e.shared(64 * 4));
    floats(a, 64).fill(1.0);
    for (k, c) in [(k1, c1), (k2, c2)] {
        set_ptr(k, 0, a);
        set_ptr(k, 1, a);
        set_ptr(k, 2, c);
    }
    let count = e.shared(4) as *mut u32;
    let counts = e.shared(2 * std::mem::size_of::<ze_group_count_t>()) as *mut ze_group_count_t;
    // SAFETY: shared memory of one u32 and two group counts.
    unsafe {
        count.write(1);
        counts.write(groups(16));
        counts.add(1).write(groups(64));
    }
    let imm = e.immediate();
    let mut kernels = [k1, k2];
    ok!(ze::zeCommandListAppendLaunchMultipleKernelsIndirect(
        imm,
        2,
        kernels.as_mut_ptr(),
        count,
        counts,
        null_mut(),
        0,
        null_mut()
    ));
    let l = zekit_mock::script().launches();
    assert_eq!(l.len(), 1, "the count buffer says 1");
    assert_eq!(l[0].group_count, [16, 1, 1]);
    assert!(floats(c1, 64)[..16].iter().all(|&x| x == 2.0));
    assert!(floats(c1, 64)[16..].iter().all(|&x| x == 0.0));
    assert!(floats(c2, 64).iter().all(|&x| x == 0.0));
    // SAFETY: as above.
    unsafe { count.write(2) };
    ok!(ze::zeCommandListAppendLaunchMultipleKernelsIndirect(
        imm,
        2,
        kernels.as_mut_ptr(),
        count,
        counts,
        null_mut(),
        0,
        null_mut()
    ));
    assert_eq!(zekit_mock::script().launches().len(), 3);
    assert!(floats(c2, 64).iter().all(|&x| x == 2.0));
    ok!(ze::zeCommandListDestroy(imm));
    ok!(ze::zeKernelDestroy(k1));
    ok!(ze::zeKernelDestroy(k2));
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}

#[test]
fn image_and_sampler_arguments_are_recorded() {
    let e = env();
    let seen: Arc<Mutex<Vec<KernelLaunch>>> = Arc::default();
    let s2 = seen.clone();
    zekit_mock::script().on_kernel("sample_2d", move |l: &KernelLaunch| {
        s2.lock().unwrap().push(l.clone());
    });
    let m = e.module("images");
    let k = e.kernel(m, "sample_2d");
    // Image and sampler arguments: any non-null handle is taken and recorded as it is.
    let (img, smp) = (0x1000usize, 0x2000usize);
    let ph = |h: &usize| h as *const usize as *const c_void;
    assert_eq!(
        call!(ze::zeKernelSetArgumentValue(k, 0, 4, ph(&img))),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    assert_eq!(
        call!(ze::zeKernelSetArgumentValue(k, 1, 8, null())),
        ZE_RESULT_ERROR_INVALID_NULL_HANDLE
    );
    assert!(
        zekit_mock::last_error().contains("argument 1 of kernel `sample_2d` takes a sampler handle"),
        "{}",
        zekit_mock::last_error()
    );
    ok!(ze::zeKernelSetArgumentValue(k, 0, 8, ph(&img)));
    ok!(ze::zeKernelSetArgumentValue(k, 1, 8, ph(&smp)));
    let p = e.shared(64);
    set_ptr(k, 2, p);
    set_ptr(k, 3, p);
    let list = e.immediate();
    ok!(ze::zeCommandListAppendLaunchKernel(
        list,
        k,
        &groups(1),
        null_mut(),
        0,
        null_mut()
    ));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].args[0], KernelArg::Handle(0x1000));
    assert_eq!(seen[0].args[1], KernelArg::Handle(0x2000));
    assert_eq!(seen[0].args[0].to_string(), "0x1000");
    ok!(ze::zeCommandListDestroy(list));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeContextDestroy(e.ctx));
}
