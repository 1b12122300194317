//! The kernel queries through the generated C entry points: source attributes (also after a
//! native-binary round trip), a kernel's own binary (`zeKernelGetBinaryExp`), scheduling hints,
//! and the extension structures of `zeKernelGetProperties`.
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad ones the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::null_mut;

use zeh::*;

fn spv(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../spirv/kernels/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn module_of(z: &Ze, format: ze_module_format_t, bytes: &[u8]) -> ze_module_handle_t {
    let desc = ze_module_desc_t {
        format,
        inputSize: bytes.len(),
        pInputModule: bytes.as_ptr(),
        ..Default::default()
    };
    let mut m = null_mut();
    ok!(ze::zeModuleCreate(z.ctx, z.dev, &desc, &mut m, null_mut()));
    m
}

fn module(z: &Ze, name: &str) -> ze_module_handle_t {
    module_of(z, ze_module_format_t::IL_SPIRV, &spv(name))
}

fn kernel(m: ze_module_handle_t, name: &str) -> ze_kernel_handle_t {
    let name = CString::new(name).unwrap();
    let desc = ze_kernel_desc_t {
        pKernelName: name.as_ptr(),
        ..Default::default()
    };
    let mut k = null_mut();
    ok!(ze::zeKernelCreate(m, &desc, &mut k));
    k
}

/// The source attributes through the size query then the copy.
fn attributes(k: ze_kernel_handle_t) -> String {
    let mut size = 0u32;
    ok!(ze::zeKernelGetSourceAttributes(k, &mut size, null_mut()));
    let mut buf = vec![b'#' as c_char; size as usize + 4];
    let mut p = buf.as_mut_ptr();
    let mut size2 = size;
    ok!(ze::zeKernelGetSourceAttributes(k, &mut size2, &mut p));
    assert_eq!(size2, size);
    // SAFETY: the driver wrote a NUL-terminated string of `size` bytes.
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
    assert_eq!(s.len() + 1, size as usize, "{s}");
    assert_eq!(buf[size as usize], b'#' as c_char, "wrote past *pSize");
    s
}

/// `attrs.cl`'s kernels and the attributes their source writes (`vec_type_hint(uint)` reads
/// back as `int`: SPIR-V's VecTypeHint keeps no signedness).
const ATTRS: &[(&str, &str)] = &[
    (
        "attrs_all",
        "reqd_work_group_size(8,1,1) work_group_size_hint(16,1,1) vec_type_hint(float4)",
    ),
    ("attrs_hint", "work_group_size_hint(4,2,1)"),
    ("attrs_uint", "vec_type_hint(int)"),
    ("attrs_double2", "vec_type_hint(double2)"),
    ("attrs_char16", "vec_type_hint(char16)"),
    ("attrs_none", ""),
];

#[test]
fn source_attributes_as_the_source_writes_them() {
    let z = Ze::new();
    let m = module(&z, "attrs");
    for (name, want) in ATTRS {
        let k = kernel(m, name);
        assert_eq!(attributes(k), *want, "{name}");
        ok!(ze::zeKernelDestroy(k));
    }
    // A kernel of another module without attributes, and one with only a required size.
    let v = module(&z, "vector_add");
    let k = kernel(v, "vector_add");
    assert_eq!(attributes(k), "");
    let r = module(&z, "reqd");
    let kr = kernel(r, "reqd");
    assert_eq!(attributes(kr), "reqd_work_group_size(8,2,1)");

    // A null `*pString` only asks the size too; a short buffer gets a truncated,
    // NUL-terminated string.
    let k = kernel(m, "attrs_all");
    let full = ATTRS[0].1;
    let mut size = 0u32;
    let mut p: *mut c_char = null_mut();
    ok!(ze::zeKernelGetSourceAttributes(k, &mut size, &mut p));
    assert_eq!(size as usize, full.len() + 1);
    let mut buf = [b'#' as c_char; 12];
    let mut p = buf.as_mut_ptr();
    let mut size = 10u32;
    ok!(ze::zeKernelGetSourceAttributes(k, &mut size, &mut p));
    assert_eq!(size, 10);
    // SAFETY: NUL-terminated within the 10 bytes.
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
    assert_eq!(s, &full[..9]);
    assert_eq!(buf[10], b'#' as c_char);
    check!(
        ze::zeKernelGetSourceAttributes(k, std::ptr::null_mut(), null_mut()),
        ZE_RESULT_ERROR_INVALID_NULL_POINTER
    );
    for k in [k, kr] {
        ok!(ze::zeKernelDestroy(k));
    }
    for m in [m, v, r] {
        ok!(ze::zeModuleDestroy(m));
    }
}

fn native_binary(m: ze_module_handle_t) -> Vec<u8> {
    let mut size = 0usize;
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, null_mut()));
    let mut b = vec![0u8; size];
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, b.as_mut_ptr()));
    b
}

#[test]
fn attributes_survive_a_native_binary() {
    let z = Ze::new();
    let m = module(&z, "attrs");
    let bytes = native_binary(m);
    let n = module_of(&z, ze_module_format_t::NATIVE, &bytes);
    for (name, want) in ATTRS {
        let k = kernel(n, name);
        assert_eq!(attributes(k), *want, "{name}");
        let mut p = ze_kernel_properties_t::default();
        ok!(ze::zeKernelGetProperties(k, &mut p));
        let reqd = [p.requiredGroupSizeX, p.requiredGroupSizeY, p.requiredGroupSizeZ];
        let want_reqd = if *name == "attrs_all" { [8, 1, 1] } else { [0, 0, 0] };
        assert_eq!(reqd, want_reqd, "{name}");
        ok!(ze::zeKernelDestroy(k));
    }
    ok!(ze::zeModuleDestroy(n));
    ok!(ze::zeModuleDestroy(m));
}

/// The kernel's binary through the size query then the copy.
fn binary(k: ze_kernel_handle_t) -> Vec<u8> {
    let mut size = 0usize;
    let mut probe = 0u8;
    ok!(ze::zeKernelGetBinaryExp(k, &mut size, &mut probe));
    assert!(size > 0);
    let mut b = vec![0xAAu8; size + 8];
    let mut size2 = size;
    ok!(ze::zeKernelGetBinaryExp(k, &mut size2, b.as_mut_ptr()));
    assert_eq!(size2, size);
    assert!(b[size..].iter().all(|x| *x == 0xAA), "wrote past the binary");
    b.truncate(size);
    b
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn kernel_binary_is_the_kernels_own_code() {
    let z = Ze::new();
    let m = module(&z, "attrs");
    let native = native_binary(m);
    let mut codes = Vec::new();
    for (name, _) in ATTRS {
        let k = kernel(m, name);
        let code = binary(k);
        // The module's native binary holds each kernel's code, preceded by its length.
        let mut framed = (code.len() as u64).to_le_bytes().to_vec();
        framed.extend(&code);
        assert!(contains(&native, &framed), "{name}: not in the native binary");
        assert!(!codes.contains(&code), "{name}: the same code as another kernel");
        codes.push(code);
        ok!(ze::zeKernelDestroy(k));
    }
    // A buffer one byte short: INVALID_SIZE, nothing written.
    let k = kernel(m, "attrs_all");
    let want = codes[0].len();
    let mut b = vec![0x55u8; want];
    let mut size = want - 1;
    check!(
        ze::zeKernelGetBinaryExp(k, &mut size, b.as_mut_ptr()),
        ZE_RESULT_ERROR_INVALID_SIZE
    );
    assert!(last_error().contains("takes"), "{}", last_error());
    assert!(b.iter().all(|x| *x == 0x55));
    check!(
        ze::zeKernelGetBinaryExp(k, &mut size, null_mut()),
        ZE_RESULT_ERROR_INVALID_NULL_POINTER
    );
    // The same bytes again, and from the kernel of a module loaded from the native binary.
    assert_eq!(binary(k), codes[0]);
    let n = module_of(&z, ze_module_format_t::NATIVE, &native);
    let kn = kernel(n, "attrs_all");
    assert_eq!(binary(kn), codes[0]);
    for k in [k, kn] {
        ok!(ze::zeKernelDestroy(k));
    }
    for m in [n, m] {
        ok!(ze::zeModuleDestroy(m));
    }
}

#[test]
fn scheduling_hints_are_taken_and_unknown_flags_refused() {
    let z = Ze::new();
    let m = module(&z, "attrs");
    let k = kernel(m, "attrs_none");
    type F = ze_scheduling_hint_exp_flags_t;
    for flags in [
        F::empty(),
        F::OLDEST_FIRST,
        F::ROUND_ROBIN,
        F::STALL_BASED_ROUND_ROBIN,
        F::from_bits_retain(F::OLDEST_FIRST.0 | F::ROUND_ROBIN.0),
    ] {
        let hint = ze_scheduling_hint_exp_desc_t {
            flags,
            ..Default::default()
        };
        ok!(ze::zeKernelSchedulingHintExp(k, &hint as *const _ as *mut _));
    }
    for bad in [0x8u32, 0x8000_0000, 0x7 | 0x10] {
        let hint = ze_scheduling_hint_exp_desc_t {
            flags: F::from_bits_retain(bad),
            ..Default::default()
        };
        check!(
            ze::zeKernelSchedulingHintExp(k, &hint as *const _ as *mut _),
            ZE_RESULT_ERROR_INVALID_ENUMERATION
        );
        assert!(last_error().contains("flags"), "{}", last_error());
    }
    // The device reports no hint as supported: none changes anything on the CPU.
    let mut sched = ze_scheduling_hint_exp_properties_t {
        schedulingHintFlags: F::from_bits_retain(0x7),
        ..Default::default()
    };
    let mut mp = ze_device_module_properties_t {
        pNext: (&mut sched as *mut ze_scheduling_hint_exp_properties_t).cast::<c_void>(),
        ..Default::default()
    };
    ok!(ze::zeDeviceGetModuleProperties(z.dev, &mut mp));
    assert_eq!(sched.schedulingHintFlags, F::empty());
    // The driver lists the extension.
    let mut n = 0u32;
    ok!(ze::zeDriverGetExtensionProperties(z.drv, &mut n, null_mut()));
    let mut ext = vec![ze_driver_extension_properties_t::default(); n as usize];
    ok!(ze::zeDriverGetExtensionProperties(z.drv, &mut n, ext.as_mut_ptr()));
    let names: Vec<String> = ext.iter().map(|e| c_str(e.name.as_ptr())).collect();
    for want in [
        "ZE_experimental_scheduling_hints",
        "ZE_extension_kernel_binary_exp",
        "ZE_extension_kernel_max_group_size_properties",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

/// `zeKernelGetProperties` with both extension structures chained.
fn group_props(k: ze_kernel_handle_t) -> (u32, u32) {
    let mut max = ze_kernel_max_group_size_properties_ext_t::default();
    let mut pref = ze_kernel_preferred_group_size_properties_t {
        pNext: (&mut max as *mut ze_kernel_max_group_size_properties_ext_t).cast::<c_void>(),
        ..Default::default()
    };
    let mut p = ze_kernel_properties_t {
        pNext: (&mut pref as *mut ze_kernel_preferred_group_size_properties_t).cast::<c_void>(),
        ..Default::default()
    };
    ok!(ze::zeKernelGetProperties(k, &mut p));
    (pref.preferredMultiple, max.maxGroupSize)
}

#[test]
fn preferred_and_max_group_size_properties() {
    let z = Ze::new();
    let m = module(&z, "attrs");
    // A required size bounds the group; otherwise the device's 1024.
    let k = kernel(m, "attrs_all");
    assert_eq!(group_props(k), (8, 8));
    let k2 = kernel(m, "attrs_hint");
    assert_eq!(group_props(k2), (8, 1024));
    let r = module(&z, "reqd");
    let kr = kernel(r, "reqd");
    assert_eq!(group_props(kr), (8, 16));
    // The max group size is one the kernel launches with.
    ok!(ze::zeKernelSetGroupSize(k2, 1024, 1, 1));
    check!(
        ze::zeKernelSetGroupSize(k2, 1025, 1, 1),
        ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
    );
    for k in [k, k2, kr] {
        ok!(ze::zeKernelDestroy(k));
    }
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeModuleDestroy(r));
}

#[test]
fn allocation_properties_are_the_buffer_arguments() {
    let z = Ze::new();
    let m = module(&z, "vector_add");
    let k = kernel(m, "vector_add");
    let (a, b) = (z.shared(256), z.device_mem(128));
    let c = z.host(64);
    // Argument 1 points inside its allocation; argument 2 is set to null.
    let b_in = b.wrapping_add(32);
    for (i, p) in [(0u32, a), (1, b_in)] {
        ok!(ze::zeKernelSetArgumentValue(
            k,
            i,
            8,
            (&p as *const *mut u8).cast()
        ));
    }
    ok!(ze::zeKernelSetArgumentValue(k, 2, 8, std::ptr::null()));
    let mut n = 0u32;
    ok!(ze::zeKernelGetAllocationPropertiesExp(k, &mut n, null_mut()));
    assert_eq!(n, 2);
    let mut out = vec![ze_kernel_allocation_exp_properties_t::default(); 3];
    n = 3;
    ok!(ze::zeKernelGetAllocationPropertiesExp(k, &mut n, out.as_mut_ptr()));
    assert_eq!(n, 2);
    let got: Vec<_> = out[..2]
        .iter()
        .map(|p| (p.argIndex, p.base, p.size, p.r#type))
        .collect();
    assert_eq!(
        got,
        [
            (0, a as u64, 256, ze_memory_type_t::SHARED),
            (1, b as u64, 128, ze_memory_type_t::DEVICE)
        ]
    );
    // Fewer slots than allocations: that many.
    n = 1;
    ok!(ze::zeKernelGetAllocationPropertiesExp(k, &mut n, out.as_mut_ptr()));
    assert_eq!((n, out[0].argIndex), (1, 0));
    // Now argument 2 too, a host allocation.
    ok!(ze::zeKernelSetArgumentValue(k, 2, 8, (&c as *const *mut u8).cast()));
    n = 0;
    ok!(ze::zeKernelGetAllocationPropertiesExp(k, &mut n, null_mut()));
    assert_eq!(n, 3);
    n = 3;
    ok!(ze::zeKernelGetAllocationPropertiesExp(k, &mut n, out.as_mut_ptr()));
    assert_eq!(
        (out[2].argIndex, out[2].base, out[2].size, out[2].r#type),
        (2, c as u64, 64, ze_memory_type_t::HOST)
    );
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
    for p in [a, b, c] {
        z.free(p);
    }
}
