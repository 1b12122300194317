//! Function pointers through the CPU driver (`spirv/kernels/fnptr.cl`): pointers from
//! `zeModuleGetFunctionPointer` passed to kernels as arguments and in buffers, the same values
//! the kernels compute, bad values, unknown names, native binaries. References computed here.
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad ones the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use zeh::*;

const N: usize = 64;

fn pointer(m: ze_module_handle_t, name: &str) -> u64 {
    let name = CString::new(name).unwrap();
    let mut f: *mut c_void = null_mut();
    ok!(ze::zeModuleGetFunctionPointer(m, name.as_ptr(), &mut f));
    assert!(!f.is_null());
    f as u64
}

/// Runs `k` over `N` work-items in groups of 8: through a queue (`via` 0) or a synchronous
/// immediate list (1) or an asynchronous one (2).
fn launch(z: &Ze, k: ze_kernel_handle_t, global: usize, via: usize) {
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    let g = ze_group_count_t {
        groupCountX: global.div_ceil(8) as u32,
        groupCountY: 1,
        groupCountZ: 1,
    };
    let append = |l| {
        ok!(ze::zeCommandListAppendLaunchKernel(
            l,
            k,
            &g,
            null_mut(),
            0,
            null_mut()
        ))
    };
    submit(z, via, append);
}

fn ints(seed: i32) -> Vec<i32> {
    (0..N as i32).map(|i| (i * 29 + seed) % 37 - 18).collect()
}

/// `fp_arg` of module `m` called with pointer `f`: f(a, b) * 16 + which.
fn run_arg(z: &Ze, m: ze_module_handle_t, f: u64, via: usize) -> Vec<i32> {
    let k = kernel(m, "fp_arg");
    let (a, b) = (buffer(z, &ints(4)), buffer(z, &ints(9)));
    let out = buffer(z, &[-1i32; N]);
    arg(k, 0, &a);
    arg(k, 1, &b);
    arg(k, 2, &out);
    arg(k, 3, &f);
    launch(z, k, N, via);
    ok!(ze::zeKernelDestroy(k));
    read(out, N)
}

type Op = fn(i32, i32) -> i32;
const OPS: [(&str, Op, i32); 4] = [
    ("add", |a, b| a.wrapping_add(b), 1),
    ("sub", |a, b| a.wrapping_sub(b), 2),
    ("mul", |a, b| a.wrapping_mul(b), 3),
    ("max_of", |a, b| a.max(b), 0),
];

#[test]
fn host_pointers_called_by_kernels() {
    let z = Ze::new();
    let m = module_as(&z, &spv("fnptr"), ze_module_format_t::IL_SPIRV);
    let (a, b) = (ints(4), ints(9));
    for via in 0..3 {
        for (name, op, which) in OPS {
            let out = run_arg(&z, m, pointer(m, name), via);
            for i in 0..N {
                assert_eq!(out[i], op(a[i], b[i]) * 16 + which, "{name} via {via}, {i}");
            }
        }
    }

    // The values the kernels compute are the host's.
    let k = kernel(m, "fp_store");
    let out = buffer(&z, &[0u64; 6]);
    arg(k, 0, &out);
    launch(&z, k, 1, 0);
    let names = ["add", "sub", "mul", "max_of", "half_of", "put_twice"];
    let want: Vec<u64> = names.iter().map(|n| pointer(m, n)).collect();
    assert_eq!(read(out, 6), want);
    ok!(ze::zeKernelDestroy(k));

    // Pointers in structs in a buffer: { float (*)(float); float scale; }.
    let k = kernel(m, "fp_struct");
    let (half, square) = (pointer(m, "half_of"), pointer(m, "square"));
    let ops: Vec<[u64; 2]> = (0..N)
        .map(|i| {
            let f = if i % 2 == 0 { half } else { square };
            [f, u64::from((i as f32 + 1.0).to_bits())]
        })
        .collect();
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.5 - 7.0).collect();
    let (po, px, pout) = (buffer(&z, &ops), buffer(&z, &x), buffer(&z, &[0f32; N]));
    arg(k, 0, &po);
    arg(k, 1, &px);
    arg(k, 2, &pout);
    launch(&z, k, N, 2);
    let out = read(pout, N);
    for i in 0..N {
        let v = if i % 2 == 0 { x[i] * 0.5 } else { x[i] * x[i] };
        assert_eq!(out[i], v * (i as f32 + 1.0), "{i}");
    }
    ok!(ze::zeKernelDestroy(k));

    // A kernel's name still gives its work-group function, not a slot of the data.
    let entry = pointer(m, "fp_arg");
    assert!(!want.contains(&entry));
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn bad_pointers_and_unknown_names() {
    let z = Ze::new();
    let m = module_as(&z, &spv("fnptr"), ze_module_format_t::IL_SPIRV);
    let other = module_as(&z, &spv("fnptr"), ze_module_format_t::IL_SPIRV);
    // Another instance of the module has its own pointers; passed here they are unknown, as
    // are garbage, a kernel's work-group function and a function of another signature: the
    // call returns 0, the launch completes.
    assert_ne!(pointer(m, "add"), pointer(other, "add"));
    for bad in [
        0,
        0xdead_beef,
        pointer(other, "add"),
        pointer(m, "fp_arg"),
        pointer(m, "square"),
        pointer(m, "add") + 8 * 1024,
    ] {
        assert_eq!(run_arg(&z, m, bad, 1), vec![0; N], "{bad:#x}");
    }
    // Recursion through a pointer: the recursive call returns 0.
    let k = kernel(m, "fp_recursive");
    let n: Vec<i32> = (0..N as i32).map(|i| i - 5).collect();
    let (pn, pout) = (buffer(&z, &n), buffer(&z, &[-1i32; N]));
    let me = pointer(m, "countdown");
    arg(k, 0, &pn);
    arg(k, 1, &pout);
    arg(k, 2, &me);
    launch(&z, k, N, 0);
    let want: Vec<i32> = n.iter().map(|x| (*x).max(0)).collect();
    assert_eq!(read(pout, N), want);
    ok!(ze::zeKernelDestroy(k));

    let mut f: *mut c_void = null_mut();
    for bad in ["nope", "__const.fp_table.ops", ""] {
        let name = CString::new(bad).unwrap();
        check!(
            ze::zeModuleGetFunctionPointer(m, name.as_ptr(), &mut f),
            ze_result_t::ERROR_INVALID_FUNCTION_NAME
        );
        assert!(
            last_error().contains(&format!("`{bad}`")),
            "{}",
            last_error()
        );
    }
    ok!(ze::zeModuleDestroy(other));
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn native_binary_keeps_function_pointers() {
    let z = Ze::new();
    let m = module_as(&z, &spv("fnptr"), ze_module_format_t::IL_SPIRV);
    let mut size = 0usize;
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, null_mut()));
    let mut bin = vec![0u8; size];
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, bin.as_mut_ptr()));
    let n = module_as(&z, &bin, ze_module_format_t::NATIVE);
    assert_ne!(pointer(m, "mul"), pointer(n, "mul"));
    let (a, b) = (ints(4), ints(9));
    let out = run_arg(&z, n, pointer(n, "mul"), 2);
    for i in 0..N {
        assert_eq!(out[i], a[i].wrapping_mul(b[i]) * 16 + 3, "{i}");
    }
    // The constant table of pointers was relocated to the loaded module's data.
    let k = kernel(n, "fp_table");
    let sel: Vec<i32> = (0..N as i32).map(|i| i % 4).collect();
    let (ps, pa, pb, pout) = (buffer(&z, &sel), buffer(&z, &a), buffer(&z, &b), buffer(&z, &[0i32; N]));
    for (i, p) in [ps, pa, pb, pout].iter().enumerate() {
        arg(k, i as u32, p);
    }
    launch(&z, k, N, 0);
    let out = read(pout, N);
    for i in 0..N {
        assert_eq!(out[i], OPS[i % 4].1(a[i], b[i]), "{i}");
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(n));
    ok!(ze::zeModuleDestroy(m));
}

fn link_spv(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../spirv/kernels/link/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn pointers_to_imported_functions_after_dynamic_link() {
    let z = Ze::new();
    let user = module_as(&z, &link_spv("fp_user"), ze_module_format_t::IL_SPIRV);
    let lib = module_as(&z, &link_spv("link_lib"), ze_module_format_t::IL_SPIRV);
    let name = CString::new("negate").unwrap();
    let mut f: *mut c_void = null_mut();
    check!(
        ze::zeModuleGetFunctionPointer(user, name.as_ptr(), &mut f),
        ze_result_t::ERROR_INVALID_MODULE_UNLINKED
    );
    let mut mods = [user, lib];
    ok!(ze::zeModuleDynamicLink(2, mods.as_mut_ptr(), null_mut()));
    // `twice` (imported from link_lib) through a pointer taken in fp_user, `negate` (its own)
    // from a table and as the host's argument.
    let input: Vec<i32> = (0..N as i32).map(|i| i * 3 - 50).collect();
    let run = |extra: u64| {
        let k = kernel(user, "fp_user");
        let (pi, po) = (buffer(&z, &input), buffer(&z, &[7i32; N]));
        arg(k, 0, &pi);
        arg(k, 1, &po);
        arg(k, 2, &extra);
        launch(&z, k, N, 0);
        ok!(ze::zeKernelDestroy(k));
        read(po, N)
    };
    let out = run(pointer(user, "negate"));
    for i in 0..N {
        let want = if i % 3 == 0 { 2 * input[i] } else { -input[i] };
        assert_eq!(out[i], want, "{i}");
    }
    // The library does not use function pointers: its functions have no pointer value; a
    // pointer of another module (another instance of fnptr.cl) is unknown here: 0.
    let twice = CString::new("twice").unwrap();
    check!(
        ze::zeModuleGetFunctionPointer(lib, twice.as_ptr(), &mut f),
        ze_result_t::ERROR_INVALID_FUNCTION_NAME
    );
    let other = module_as(&z, &spv("fnptr"), ze_module_format_t::IL_SPIRV);
    let out = run(pointer(other, "add"));
    for i in (2..N).step_by(3) {
        assert_eq!(out[i], 0, "{i}");
    }
    ok!(ze::zeModuleDestroy(other));
    ok!(ze::zeModuleDestroy(user));
    ok!(ze::zeModuleDestroy(lib));
}

#[test]
fn linked_functions_calling_through_pointers_are_refused() {
    let z = Ze::new();
    let user = module_as(&z, &link_spv("fp_lib_user"), ze_module_format_t::IL_SPIRV);
    let lib = module_as(&z, &link_spv("fp_lib"), ze_module_format_t::IL_SPIRV);
    // The library itself builds and gives its functions' pointers.
    assert_ne!(pointer(lib, "inc"), pointer(lib, "dec"));
    let mut mods = [user, lib];
    check!(
        ze::zeModuleDynamicLink(2, mods.as_mut_ptr(), null_mut()),
        ze_result_t::ERROR_MODULE_LINK_FAILURE
    );
    let e = last_error();
    assert!(e.contains("function pointer in a linked function"), "{e}");
    assert!(e.contains("`pick`"), "{e}");
    ok!(ze::zeModuleDestroy(user));
    ok!(ze::zeModuleDestroy(lib));
}
