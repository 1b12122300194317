//! Modules and kernels through the CPU driver, in process: queries and errors, dynamic
//! linking, native binaries (in this process and another), the background code generator.
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad ones the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};

use zeh::kernels::*;
use zeh::*;

#[test]
fn module_and_kernel_queries_and_errors() {
    let z = Ze::new();
    let mut p = ze_device_module_properties_t::default();
    ok!(ze::zeDeviceGetModuleProperties(z.dev, &mut p));
    assert_eq!(p.spirvVersionSupported, ZE_MAKE_VERSION(1, 6));

    let bytes = spv("reduce");
    let flags = CString::new("-cl-fast-relaxed-math").unwrap();
    let mut desc = module_desc(&bytes);
    desc.pBuildFlags = flags.as_ptr();
    let (mut m, mut log) = (null_mut(), null_mut());
    ok!(ze::zeModuleCreate(z.ctx, z.dev, &desc, &mut m, &mut log));
    let mut size = 0usize;
    ok!(ze::zeModuleBuildLogGetString(log, &mut size, null_mut()));
    let mut text = vec![0 as c_char; size];
    ok!(ze::zeModuleBuildLogGetString(
        log,
        &mut size,
        text.as_mut_ptr()
    ));
    // SAFETY: NUL-terminated by the driver.
    let text = unsafe { CStr::from_ptr(text.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    assert!(
        text.contains("reduce") && text.contains("-cl-fast-relaxed-math"),
        "{text}"
    );
    ok!(ze::zeModuleBuildLogDestroy(log));

    let mut count = 0;
    ok!(ze::zeModuleGetKernelNames(m, &mut count, null_mut()));
    assert_eq!(count, 1);
    let mut names = [null::<c_char>(); 1];
    ok!(ze::zeModuleGetKernelNames(
        m,
        &mut count,
        names.as_mut_ptr()
    ));
    // SAFETY: a name the module owns.
    let first = unsafe { CStr::from_ptr(names[0]) };
    assert_eq!(first.to_str().unwrap(), "reduce");
    let mut mp = ze_module_properties_t::default();
    ok!(ze::zeModuleGetProperties(m, &mut mp));
    assert!(mp.flags.is_empty());

    let bad = CString::new("nope").unwrap();
    let kd = ze_kernel_desc_t {
        pKernelName: bad.as_ptr(),
        ..Default::default()
    };
    let mut k = null_mut();
    check!(
        ze::zeKernelCreate(m, &kd, &mut k),
        ZE_RESULT_ERROR_INVALID_KERNEL_NAME
    );
    let k = kernel(m, "reduce");
    let mut kp = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut kp));
    assert_eq!(kp.numKernelArgs, 4);
    assert_eq!(kp.localMemSize, 4);
    assert!(kp.privateMemSize > 0);
    let mut size = 0;
    ok!(ze::zeKernelGetName(k, &mut size, null_mut()));
    assert_eq!(size, 7);
    let mut name = [0 as c_char; 7];
    ok!(ze::zeKernelGetName(k, &mut size, name.as_mut_ptr()));
    // SAFETY: NUL-terminated by the driver.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) };
    assert_eq!(name.to_str().unwrap(), "reduce");

    for (x, y, zz) in [(0, 1, 1), (2048, 1, 1), (64, 64, 1), (1, 1, 0)] {
        check!(
            ze::zeKernelSetGroupSize(k, x, y, zz),
            ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
        );
    }
    ok!(ze::zeKernelSetGroupSize(k, 8, 8, 16));
    let (mut gx, mut gy, mut gz) = (0, 0, 0);
    ok!(ze::zeKernelSuggestGroupSize(
        k, 1000, 6, 1, &mut gx, &mut gy, &mut gz
    ));
    assert!(
        1000 % gx == 0 && 6 % gy == 0 && gz == 1 && gx * gy <= 256,
        "{gx} {gy} {gz}"
    );

    let p = 0u64;
    check!(
        ze::zeKernelSetArgumentValue(k, 4, 8, (&p as *const u64).cast()),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX
    );
    check!(
        ze::zeKernelSetArgumentValue(k, 0, 4, (&p as *const u64).cast()),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    check!(
        ze::zeKernelSetArgumentValue(k, 2, 0, null()),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    check!(
        ze::zeKernelSetArgumentValue(k, 2, 8, (&p as *const u64).cast()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // A launch with arguments never set is refused at the append.
    let l = z.list(0);
    check!(
        ze::zeCommandListAppendLaunchKernel(l, k, &groups(1, 1, 1), null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert!(last_error().contains("never set"), "{}", last_error());
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));

    // Bad and unsupported SPIR-V: MODULE_BUILD_FAILURE and a reason; NATIVE: INVALID_NATIVE_BINARY.
    let mut m = null_mut();
    let garbage = [0x07u8, 0x23, 0x02, 0x03, 1, 2, 3, 4];
    check!(
        ze::zeModuleCreate(z.ctx, z.dev, &module_desc(&garbage), &mut m, null_mut()),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    assert!(last_error().contains("invalid SPIR-V"), "{}", last_error());
    let mut w: Vec<u32> = spv("vector_add")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let fadd = w.iter().position(|x| *x == (5 << 16 | 129)).unwrap();
    w[fadd] = 5 << 16 | 84; // OpTranspose
    let dot: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut log = null_mut();
    m = 0x1234 as _;
    check!(
        ze::zeModuleCreate(z.ctx, z.dev, &module_desc(&dot), &mut m, &mut log),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    assert!(
        last_error().contains("unsupported: kernel `vector_add`: instruction OpTranspose"),
        "{}",
        last_error()
    );
    // The failed build hands out its log, naming the instruction; the module handle is null.
    assert!(m.is_null());
    let text = log_text(log);
    assert!(text.contains("instruction OpTranspose"), "{text}");
    let mut native = module_desc(&dot);
    native.format = ze_module_format_t::NATIVE;
    check!(
        ze::zeModuleCreate(z.ctx, z.dev, &native, &mut m, null_mut()),
        ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
    );
}

fn link_spv(name: &str) -> Vec<u8> {
    spv(&format!("link/{name}"))
}

#[test]
fn dynamic_link_imports_exports_and_function_pointers() {
    let z = Ze::new();
    let user = module(&z, &link_spv("link_user"));
    let lib = module(&z, &link_spv("link_lib"));
    // The importer reports its imports and cannot give kernels before it is linked.
    let mut props = ze_module_properties_t::default();
    ok!(ze::zeModuleGetProperties(user, &mut props));
    assert_eq!(props.flags, ze_module_property_flags_t::IMPORTS);
    ok!(ze::zeModuleGetProperties(lib, &mut props));
    assert_eq!(props.flags, ze_module_property_flags_t::empty());
    let name = CString::new("link_user").unwrap();
    let desc = ze_kernel_desc_t {
        pKernelName: name.as_ptr(),
        ..Default::default()
    };
    let mut k = null_mut();
    check!(
        ze::zeKernelCreate(user, &desc, &mut k),
        ze_result_t::ERROR_INVALID_MODULE_UNLINKED
    );
    let mut count = 0;
    ok!(ze::zeModuleGetKernelNames(user, &mut count, null_mut()));
    assert_eq!(count, 1);

    // Inspection: imports, which of them the given modules cannot resolve, exports.
    let inspect = |mods: &mut [ze_module_handle_t]| {
        let mut desc = ze_linkage_inspection_ext_desc_t {
            flags: ze_linkage_inspection_ext_flags_t::IMPORTS
                | ze_linkage_inspection_ext_flags_t::UNRESOLVABLE_IMPORTS
                | ze_linkage_inspection_ext_flags_t::EXPORTS,
            ..Default::default()
        };
        let mut log = null_mut();
        ok!(ze::zeModuleInspectLinkageExt(
            &mut desc,
            mods.len() as u32,
            mods.as_mut_ptr(),
            &mut log
        ));
        log_text(log)
    };
    let alone = inspect(&mut [user]);
    assert!(
        alone.contains("module 0: imports: scale_add, twice"),
        "{alone}"
    );
    assert!(
        alone.contains("module 0: unresolvable imports: scale_add, twice"),
        "{alone}"
    );
    let both = inspect(&mut [user, lib]);
    assert!(
        both.lines().any(|l| l == "module 0: unresolvable imports: "),
        "{both}"
    );
    assert!(
        both.contains("module 1: exports: scale_add, twice"),
        "{both}"
    );

    // Linking alone fails, naming the symbol; nothing is linked.
    let mut mods = [user];
    let mut log = null_mut();
    check!(
        ze::zeModuleDynamicLink(1, mods.as_mut_ptr(), &mut log),
        ze_result_t::ERROR_MODULE_LINK_FAILURE
    );
    assert!(
        last_error().contains("unresolved import `scale_add`"),
        "{}",
        last_error()
    );
    // The link log comes back on failure too, naming the symbol.
    let text = log_text(log);
    assert!(text.contains("unresolved import `scale_add`"), "{text}");
    check!(
        ze::zeKernelCreate(user, &desc, &mut k),
        ze_result_t::ERROR_INVALID_MODULE_UNLINKED
    );

    // Linked with the library: the kernel runs with the library's functions inlined.
    let mut mods = [user, lib];
    let mut log = null_mut();
    ok!(ze::zeModuleDynamicLink(2, mods.as_mut_ptr(), &mut log));
    let text = log_text(log);
    assert!(text.contains("module 0: linked scale_add, twice"), "{text}");
    let k = kernel(user, "link_user");
    let n = 64usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0f32; n]));
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    arg(k, 0, &bi.p);
    arg(k, 1, &bo.p);
    submit(&z, 1, |l| launch(l, k, groups(n as u32 / 8, 1, 1)));
    let out = bo.get();
    for i in 0..n {
        // scale_add(x, 3) = 3x + twice(3); + twice(i).
        assert_eq!(out[i], input[i] * 3.0 + 6.0 + 2.0 * i as f32, "{i}");
    }
    // Linking again is allowed and changes nothing.
    ok!(ze::zeModuleDynamicLink(2, mods.as_mut_ptr(), null_mut()));

    // Function pointers: a kernel's work-group function, callable from the host.
    let mut f: *mut c_void = null_mut();
    ok!(ze::zeModuleGetFunctionPointer(user, name.as_ptr(), &mut f));
    assert!(!f.is_null());
    let mut data = vec![0f32; 8];
    let args: [u64; 2] = [bi.p as u64, data.as_mut_ptr() as u64];
    let mut ctx = zekit_spirv::GroupCtx {
        local_size: [8, 1, 1],
        num_groups: [1, 1, 1],
        work_dim: 1,
        args: args.as_ptr() as usize,
        ..Default::default()
    };
    let mut private = vec![0u128; 64];
    ctx.private_mem = private.as_mut_ptr() as usize;
    // SAFETY: the address is the kernel's work-group function (the module is alive), called
    // with a context for one group of 8 whose buffers hold 8 elements.
    unsafe {
        let run: extern "C" fn(*mut zekit_spirv::GroupCtx) = std::mem::transmute(f);
        run(&mut ctx);
    }
    for i in 0..8 {
        assert_eq!(data[i], input[i] * 3.0 + 6.0 + 2.0 * i as f32);
    }
    // An exported function is inlined: it has no address; an unknown name neither.
    for bad in ["twice", "nope"] {
        let bad = CString::new(bad).unwrap();
        check!(
            ze::zeModuleGetFunctionPointer(lib, bad.as_ptr(), &mut f),
            ze_result_t::ERROR_INVALID_FUNCTION_NAME
        );
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(user));
    ok!(ze::zeModuleDestroy(lib));
}

/// The native binary of a module (size query, then the bytes).
fn native_binary(m: ze_module_handle_t) -> Vec<u8> {
    let mut size = 0usize;
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, null_mut()));
    assert!(size > 20);
    let mut small = vec![0u8; 8];
    let mut too_few = 8usize;
    check!(
        ze::zeModuleGetNativeBinary(m, &mut too_few, small.as_mut_ptr()),
        ze_result_t::ERROR_INVALID_SIZE
    );
    let mut bytes = vec![0u8; size];
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, bytes.as_mut_ptr()));
    assert_eq!(size, bytes.len());
    bytes
}

fn native_desc(bytes: &[u8]) -> ze_module_desc_t {
    ze_module_desc_t {
        format: ze_module_format_t::NATIVE,
        ..module_desc(bytes)
    }
}

/// Native binaries made in this process run in another one, where the driver's code sits at
/// other addresses: `vector_add` in groups of 5 (lockstep turns with inactive lanes, through the
/// lane shims) and `copy4` with every launch asking for non-temporal stores (through the
/// streaming shims). The child is this test again, with `ZEKIT_NATIVE_CHILD` naming the files.
#[test]
fn native_binaries_run_in_another_process() {
    let z = Ze::new();
    let n = 100usize;
    let a: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.25 - 7.0).collect();
    let b: Vec<f32> = (0..4 * n).map(|i| 3.0 - i as f32).collect();
    let run = |va: ze_module_handle_t, c4: ze_module_handle_t| {
        let (ba, bb, bc) = (Buf::new(&z, &a), Buf::new(&z, &b), Buf::new(&z, &vec![0f32; 4 * n]));
        let k = kernel(va, "vector_add");
        ok!(ze::zeKernelSetGroupSize(k, 5, 1, 1));
        for (i, p) in [ba.p, bb.p, bc.p].iter().enumerate() {
            arg(k, i as u32, p);
        }
        submit(&z, 0, |l| launch(l, k, groups(n as u32 / 5, 1, 1)));
        let sum = bc.get();
        for i in 0..n {
            assert_eq!(sum[i], a[i] + b[i], "vector_add [{i}]");
        }
        ok!(ze::zeKernelDestroy(k));
        let k = kernel(c4, "copy4");
        ok!(ze::zeKernelSetGroupSize(k, 20, 1, 1));
        arg(k, 0, &ba.p);
        arg(k, 1, &bc.p);
        submit(&z, 0, |l| launch(l, k, groups(n as u32 / 20, 1, 1)));
        assert_eq!(bc.get(), a, "copy4");
        ok!(ze::zeKernelDestroy(k));
    };
    let load = |bytes: &[u8]| {
        let mut m = null_mut();
        ok!(ze::zeModuleCreate(z.ctx, z.dev, &native_desc(bytes), &mut m, null_mut()));
        m
    };
    if let Ok(dir) = std::env::var("ZEKIT_NATIVE_CHILD") {
        let dir = std::path::PathBuf::from(dir);
        let va = load(&std::fs::read(dir.join("vector_add.bin")).unwrap());
        let c4 = load(&std::fs::read(dir.join("copy4.bin")).unwrap());
        run(va, c4);
        ok!(ze::zeModuleDestroy(va));
        ok!(ze::zeModuleDestroy(c4));
        return;
    }
    let (va, c4) = (module(&z, &spv("vector_add")), module(&z, &spv("bench/copy4")));
    run(va, c4);
    let dir = std::env::temp_dir().join(format!("zekit-native-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vector_add.bin"), native_binary(va)).unwrap();
    std::fs::write(dir.join("copy4.bin"), native_binary(c4)).unwrap();
    ok!(ze::zeModuleDestroy(va));
    ok!(ze::zeModuleDestroy(c4));
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "native_binaries_run_in_another_process", "--test-threads=1"])
        .env("ZEKIT_NATIVE_CHILD", &dir)
        .env("ZEKIT_STREAM_STORES", "1")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child: {:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("1 passed"), "{text}");
}

#[test]
fn native_binaries_load_without_compiling() {
    let z = Ze::new();
    let compiled = zekit_spirv::jit::compilations_on_this_thread;
    // Math through relocated calls to the math functions: the same bits from both modules.
    let n = 64usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 20.0) * 0.37).collect();
    let run_math = |m: ze_module_handle_t| {
        let k = kernel(m, "math");
        let (bx, bo) = (Buf::new(&z, &x), Buf::new(&z, &vec![0f32; 9 * n]));
        ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
        arg(k, 0, &bx.p);
        arg(k, 1, &bo.p);
        submit(&z, 1, |l| launch(l, k, groups(n as u32 / 8, 1, 1)));
        ok!(ze::zeKernelDestroy(k));
        bo.get().iter().map(|f| f.to_bits()).collect::<Vec<u32>>()
    };
    let before = compiled();
    let from_spirv = module(&z, &spv("math"));
    assert_eq!(compiled(), before + 1);
    let bytes = native_binary(from_spirv);
    // The math functions are named in relocations, not baked-in addresses.
    for sym in [&b"zekit_f32_Sin"[..], b"zekit_f32_Exp"] {
        assert!(bytes.windows(sym.len()).any(|w| w == sym));
    }
    let (mut m, mut log) = (null_mut(), null_mut());
    ok!(ze::zeModuleCreate(
        z.ctx,
        z.dev,
        &native_desc(&bytes),
        &mut m,
        &mut log
    ));
    // Loading compiled nothing.
    assert_eq!(compiled(), before + 1);
    assert!(log_text(log).contains("nothing compiled"));
    let want = run_math(from_spirv);
    assert_eq!(run_math(m), want);
    // Its own native binary is the same bytes.
    assert_eq!(native_binary(m), bytes);
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeModuleDestroy(from_spirv));

    // Program-scope variables: the loaded module has its own, with their initial values.
    let g = module(&z, &spv("globals"));
    let bytes = native_binary(g);
    ok!(ze::zeModuleDestroy(g));
    let mut m = null_mut();
    ok!(ze::zeModuleCreate(
        z.ctx,
        z.dev,
        &native_desc(&bytes),
        &mut m,
        null_mut()
    ));
    let k = kernel(m, "globals");
    let out = Buf::new(&z, &vec![0i32; 64]);
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    arg(k, 0, &out.p);
    submit(&z, 1, |l| launch(l, k, groups(8, 1, 1)));
    for (i, v) in out.get().iter().enumerate() {
        assert_eq!(*v, [1, 2, 3, 4][i % 4] * [10, 20, 30, 40][i % 4]);
    }
    let (mut size, mut ptr) = (0usize, null_mut::<c_void>());
    let name = CString::new("bumps").unwrap();
    ok!(ze::zeModuleGetGlobalPointer(
        m,
        name.as_ptr(),
        &mut size,
        &mut ptr
    ));
    // SAFETY: the module's 4 ints, written by the finished launch.
    let bumps = unsafe { std::slice::from_raw_parts(ptr as *const i32, 4) };
    assert_eq!(bumps, [16, 16, 16, 16]);
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));

    // Refused cleanly: SPIR-V, a truncated or corrupt binary, another version, a CPU feature
    // the host lacks (the binary re-signed so that only the feature check can fail).
    let refuse = |b: &[u8], why: &str| {
        let mut m = null_mut();
        check!(
            ze::zeModuleCreate(z.ctx, z.dev, &native_desc(b), &mut m, null_mut()),
            ze_result_t::ERROR_INVALID_NATIVE_BINARY
        );
        assert!(last_error().contains(why), "{why}: {}", last_error());
    };
    refuse(&spv("vector_add"), "not a zekit native binary");
    refuse(&bytes[..bytes.len() / 2], "checksum");
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0x40;
    refuse(&corrupt, "checksum");
    let mut v2 = bytes.clone();
    v2[8] = 99;
    refuse(&v2, "format version 99");
    // Rebuild the binary with a made-up CPU feature added to its list.
    let mut r = &bytes[20..];
    let take = |r: &mut &[u8], n: usize| {
        let (a, b) = r.split_at(n);
        *r = b;
        a.to_vec()
    };
    let len = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap()) as usize;
    let mut body = Vec::new();
    let tl = take(&mut r, 8);
    body.extend(&tl);
    body.extend(take(&mut r, len(&tl)));
    let nf = u32::from_le_bytes(take(&mut r, 4).try_into().unwrap());
    body.extend((nf + 1).to_le_bytes());
    let feature = b"has_avx1024";
    body.extend((feature.len() as u64).to_le_bytes());
    body.extend(feature);
    body.extend(r);
    let sum = body.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut foreign = bytes[..12].to_vec();
    foreign.extend(sum.to_le_bytes());
    foreign.extend(body);
    refuse(&foreign, "CPU features this host lacks: has_avx1024");
}

/// `vector_add.spv` with its kernel renamed to `name` (same length: every occurrence of the
/// name's bytes is replaced, so the module stays valid).
fn vector_add_named(name: &str) -> Vec<u8> {
    let old = b"vector_add";
    assert_eq!(name.len(), old.len());
    let mut bytes = spv("vector_add");
    let mut i = 0;
    while i + old.len() <= bytes.len() {
        if &bytes[i..i + old.len()] == old {
            bytes[i..i + old.len()].copy_from_slice(name.as_bytes());
            i += old.len();
        } else {
            i += 1;
        }
    }
    bytes
}

/// Runs kernel `name` (vector_add's code) of `m` over 256 elements and checks the sums.
fn check_vector_add(z: &Ze, m: ze_module_handle_t, name: &str) {
    let n = 256;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let (ba, bb, bc) = (Buf::new(z, &a), Buf::new(z, &b), Buf::new(z, &vec![0f32; n]));
    let k = kernel(m, name);
    ok!(ze::zeKernelSetGroupSize(k, 32, 1, 1));
    for (i, p) in [ba.p, bb.p, bc.p].iter().enumerate() {
        arg(k, i as u32, p);
    }
    submit(z, 2, |l| launch(l, k, groups(n as u32 / 32, 1, 1)));
    let c = bc.get();
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "{name}: element {i}");
    }
    ok!(ze::zeKernelDestroy(k));
}

#[test]
fn code_generator_failure_answers_every_consumer() {
    let z = Ze::new();
    // zeModuleCreate returns before the code is generated: the failure comes at the consumers.
    zekit_cpu::model::build_pool::fail_codegen_of("vector_adX");
    let m = module(&z, &vector_add_named("vector_adX"));
    let name = CString::new("vector_adX").unwrap();
    let desc = ze_kernel_desc_t {
        pKernelName: name.as_ptr(),
        ..Default::default()
    };
    for _ in 0..2 {
        let mut k = null_mut();
        check!(
            ze::zeKernelCreate(m, &desc, &mut k),
            ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
        );
        assert!(k.is_null());
        let e = zeh::last_error();
        assert!(e.contains("kernel `vector_adX`") && e.contains("internal compiler error"), "{e}");
    }
    let mut size = 0;
    check!(
        ze::zeModuleGetNativeBinary(m, &mut size, null_mut()),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    let mut f = null_mut();
    check!(
        ze::zeModuleGetFunctionPointer(m, name.as_ptr(), &mut f),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    ok!(ze::zeModuleDestroy(m));
    // Other modules are not affected.
    let m = module(&z, &spv("vector_add"));
    check_vector_add(&z, m, "vector_add");
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn modules_destroyed_while_their_code_is_generated() {
    let z = Ze::new();
    let names = ["vector_add", "math", "reduce", "atomics", "vectors"];
    let corpus: Vec<Vec<u8>> = names
        .iter()
        .filter_map(|n| {
            std::fs::read(format!("{}/../spirv/kernels/{n}.spv", env!("CARGO_MANIFEST_DIR"))).ok()
        })
        .collect();
    assert!(corpus.len() >= 2);
    for _ in 0..10 {
        let ms: Vec<_> = corpus.iter().map(|b| module(&z, b)).collect();
        for m in ms {
            ok!(ze::zeModuleDestroy(m));
        }
    }
    // Then the workers still build modules.
    let m = module(&z, &spv("vector_add"));
    check_vector_add(&z, m, "vector_add");
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn kernels_created_from_several_threads_while_the_code_is_generated() {
    let z = Ze::new();
    for _ in 0..4 {
        let m = module(&z, &spv("vector_add"));
        let mh = m as usize;
        let zr = &z;
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || check_vector_add(zr, mh as ze_module_handle_t, "vector_add"));
            }
        });
        ok!(ze::zeModuleDestroy(m));
    }
}
