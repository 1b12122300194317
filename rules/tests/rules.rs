//! Every rule against its limits: kernel arguments against the layouts the compiler reports for
//! committed kernels (`spirv/kernels/*.spv`, read without compiling), group sizes, allocations
//! and fills.

use std::collections::HashMap;

use zekit_rules::args::{self, ArgValue as V, LocalBudget};
use zekit_rules::memory::{self, SizeLimit};
use zekit_rules::{fill, group, Limits, ZeError};
use zekit_spirv::KernelInfo;
use zekit_sys::ze_result_t as R;

const LIMITS: Limits = Limits {
    max_group_size: [1024, 512, 64],
    max_total_group_size: 1024,
    max_shared_local_memory: 65536,
    max_mem_alloc_size: 1 << 30,
    max_alignment: 1 << 20,
};

fn kernels(name: &str) -> Vec<KernelInfo> {
    let path = format!("{}/../spirv/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR"));
    zekit_spirv::check(&std::fs::read(path).unwrap(), &HashMap::new()).unwrap()
}

/// The value, or the code of the rule it broke.
fn code<T>(r: Result<T, ZeError>) -> Result<T, R> {
    r.map_err(|e| e.code())
}

#[test]
fn argument_values_are_checked_against_the_layout() {
    let budget = |others| LocalBudget {
        max: 1024,
        others,
        note: " (the limit)",
    };
    let reduce = &kernels("reduce")[0];
    let arg = |i, size, v, b, strict| code(args::check(reduce, i, size, v, b, strict));
    let ptr = 0x1000u64.to_le_bytes();
    // Buffers: 8 bytes, a null value is 0.
    assert_eq!(arg(0, 8, Some(&ptr), budget(0), false), Ok(V::Pointer(0x1000)));
    assert_eq!(arg(0, 8, None, budget(0), false), Ok(V::Pointer(0)));
    assert_eq!(
        arg(0, 4, Some(&ptr[..4]), budget(0), false),
        Err(R::ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    );
    // Local memory: a size with a null value, within the budget (static locals count).
    let static_local = reduce.local_static_size as usize;
    assert_eq!(arg(2, 64, None, budget(0), false), Ok(V::Local(64)));
    assert_eq!(arg(2, 64, Some(&ptr), budget(0), false), Err(R::ERROR_INVALID_ARGUMENT));
    assert_eq!(arg(2, 0, None, budget(0), false), Err(R::ERROR_INVALID_KERNEL_ARGUMENT_SIZE));
    let room = 1024 - static_local;
    assert_eq!(arg(2, room, None, budget(0), false), Ok(V::Local(room)));
    assert_eq!(
        arg(2, room - 9, None, budget(10), false),
        Err(R::ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    );
    let e = args::check(reduce, 2, 2048, None, budget(0), false).unwrap_err();
    assert!(e.reason().contains("1024 bytes (the limit)"), "{}", e.reason());
    // No such argument.
    let e = args::check(reduce, 4, 8, Some(&ptr), budget(0), false).unwrap_err();
    assert_eq!(
        (e.code(), e.reason()),
        (R::ERROR_INVALID_KERNEL_ARGUMENT_INDEX, "kernel `reduce` has 4 arguments, not argument 4")
    );
    // Scalars: their size; a null value is zeros (the spec: "considered null").
    let saxpy = &kernels("saxpy")[0];
    let arg = |i, size, v, strict| code(args::check(saxpy, i, size, v, budget(0), strict));
    let a = 2.5f32.to_le_bytes();
    assert_eq!(arg(0, 4, Some(&a), false), Ok(V::Bytes(&a)));
    assert_eq!(arg(0, 4, None, false), Ok(V::Zero));
    assert_eq!(arg(0, 4, None, true), Ok(V::Zero));
    assert_eq!(arg(0, 2, Some(&a[..2]), false), Err(R::ERROR_INVALID_KERNEL_ARGUMENT_SIZE));
    // More bytes than the scalar has: its first bytes when the rest widen the value (zero or
    // sign extension, as an `int` set from a `size_t`), unless strict; other bytes are refused.
    let zero_ext = [a, [0; 4]].concat();
    assert_eq!(arg(0, 8, Some(&zero_ext), false), Ok(V::Bytes(&a)));
    let minus = (-5i32).to_le_bytes();
    let sign_ext = (-5i64).to_le_bytes();
    assert_eq!(arg(0, 8, Some(&sign_ext), false), Ok(V::Bytes(&minus)));
    let other = [a, [0xee; 4]].concat();
    assert_eq!(arg(0, 8, Some(&other), false), Err(R::ERROR_INVALID_KERNEL_ARGUMENT_SIZE));
    assert_eq!(arg(0, 8, None, false), Ok(V::Zero));
    assert_eq!(arg(0, 8, Some(&zero_ext), true), Err(R::ERROR_INVALID_KERNEL_ARGUMENT_SIZE));
    // Images: an 8-byte handle, a null one is 0 (the driver refuses it).
    let images = kernels("images");
    let read_f = images.iter().find(|k| k.name == "read_f").unwrap();
    let arg = |size, v| code(args::check(read_f, 0, size, v, budget(0), false));
    assert_eq!(arg(8, Some(&ptr)), Ok(V::Handle(0x1000)));
    assert_eq!(arg(8, None), Ok(V::Handle(0)));
    let e = args::check(read_f, 0, 4, Some(&ptr[..4]), budget(0), false).unwrap_err();
    assert!(e.reason().contains("an image handle (8 bytes)"), "{}", e.reason());
}

#[test]
fn group_sizes_within_the_limits_and_the_required_size() {
    let bad = Err(R::ERROR_INVALID_GROUP_SIZE_DIMENSION);
    for ok in [[1, 1, 1], [1024, 1, 1], [2, 512, 1], [1, 16, 64], [16, 8, 8]] {
        assert_eq!(code(group::check("k", None, ok, &LIMITS)), Ok(()), "{ok:?}");
    }
    for size in [[0, 1, 1], [1, 0, 1], [1025, 1, 1], [1, 513, 1], [1, 1, 65], [32, 32, 2]] {
        assert_eq!(code(group::check("k", None, size, &LIMITS)), bad, "{size:?}");
    }
    let e = group::check("k", None, [32, 32, 2], &LIMITS).unwrap_err();
    assert!(e.reason().contains("maxGroupSize (1024x512x64)"), "{}", e.reason());
    assert!(e.reason().contains("maxTotalGroupSize (1024)"), "{}", e.reason());
    // A required size is the only one.
    assert_eq!(code(group::check("k", Some([8, 2, 1]), [8, 2, 1], &LIMITS)), Ok(()));
    let e = group::check("k", Some([8, 2, 1]), [16, 1, 1], &LIMITS).unwrap_err();
    assert_eq!(e.reason(), "kernel `k` requires the group size 8x2x1, not 16x1x1");
}

#[test]
fn suggested_group_sizes_divide_the_global_size() {
    let s = |global| group::suggest(None, global, &LIMITS);
    assert_eq!(s([1024, 1, 1]), [256, 1, 1]);
    assert_eq!(s([1000, 1, 1]), [250, 1, 1]);
    assert_eq!(s([7, 1, 1]), [7, 1, 1]);
    assert_eq!(s([64, 64, 1]), [64, 4, 1]);
    assert_eq!(s([0, 0, 0]), [1, 1, 1]);
    assert_eq!(group::suggest(Some([8, 2, 1]), [1024, 1, 1], &LIMITS), [8, 2, 1]);
    let small = Limits {
        max_total_group_size: 32,
        ..LIMITS
    };
    assert_eq!(group::suggest(None, [1024, 1, 1], &small), [32, 1, 1]);
    for global in [[1u32, 1, 1], [17, 3, 5], [4096, 3, 2], [1 << 20, 1, 1]] {
        let g = s(global);
        assert!(g.iter().product::<u32>() <= 256, "{global:?} -> {g:?}");
        assert!(global.iter().zip(g).all(|(n, d)| n.max(&1) % d == 0), "{global:?} -> {g:?}");
    }
}

#[test]
fn allocation_sizes_and_alignments() {
    let alloc = |size, align, limit| code(memory::allocation(size, align, limit, &LIMITS));
    assert_eq!(alloc(64, 0, SizeLimit::Strict), Ok(memory::DEFAULT_ALIGNMENT));
    assert_eq!(alloc(64, 4096, SizeLimit::Strict), Ok(4096));
    assert_eq!(alloc(64, 1 << 20, SizeLimit::Strict), Ok(1 << 20));
    assert_eq!(alloc(0, 0, SizeLimit::Strict), Err(R::ERROR_UNSUPPORTED_SIZE));
    assert_eq!(alloc((1 << 30) + 1, 0, SizeLimit::Strict), Err(R::ERROR_UNSUPPORTED_SIZE));
    assert_eq!(alloc((1 << 30) + 1, 0, SizeLimit::Relaxed), Ok(64));
    for align in [3, 48, 1 << 21] {
        assert_eq!(alloc(64, align, SizeLimit::Strict), Err(R::ERROR_UNSUPPORTED_ALIGNMENT));
    }
}

#[test]
fn fill_patterns_at_each_level() {
    let f = |p, size, strict| code(fill::check(p, size, 128, strict));
    assert_eq!(f(4, 64, false), Ok(false));
    assert_eq!(f(4, 64, true), Ok(false));
    // Not a power of two: accepted and noted, unless strict.
    assert_eq!(f(3, 12, false), Ok(true));
    assert_eq!(f(3, 12, true), Err(R::ERROR_INVALID_SIZE));
    assert_eq!(f(0, 12, false), Err(R::ERROR_INVALID_SIZE));
    assert_eq!(f(4, 10, false), Err(R::ERROR_INVALID_SIZE));
    assert_eq!(f(256, 256, false), Err(R::ERROR_UNSUPPORTED_SIZE));
    assert_eq!(code(fill::check(1 << 20, 1 << 20, usize::MAX, false)), Ok(false));
}
