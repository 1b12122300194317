//! Every committed kernel compiles; a few run directly (without the driver) against host
//! references.
#![cfg(feature = "jit")]

mod common;

use std::collections::HashMap;

use common::{program, run_1d_locals as run_1d};
use zekit_spirv::{compile, ArgKind};

#[test]
fn every_kernel_compiles_and_reports() {
    for name in [
        "vector_add",
        "saxpy",
        "reduce",
        "int_ops",
        "conversions",
        "math",
        "atomic_counter",
        "builtins",
        "globals",
        "spec",
        "struct_arg",
        "scan",
        "reqd",
        "vectors",
        "math2",
        "big_private",
    ] {
        let p = program(name);
        let k = p.kernel(name).unwrap();
        assert!(!k.info.args.is_empty(), "{name}");
    }
    let p = program("reduce");
    let info = &p.kernel("reduce").unwrap().info;
    assert!(info.barriers);
    let kinds: Vec<_> = info.args.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            ArgKind::Buffer,
            ArgKind::Buffer,
            ArgKind::Local,
            ArgKind::Buffer
        ]
    );
    assert_eq!(info.local_static_size, 4);
    let p = program("struct_arg");
    let a = p.kernel("struct_arg").unwrap().info.args[0];
    assert_eq!(
        (a.kind, a.size, a.space),
        (ArgKind::ByValue, 24, zekit_spirv::AddressSpace::Private)
    );
    let p = program("saxpy");
    let info = &p.kernel("saxpy").unwrap().info;
    let spaces: Vec<_> = info.args.iter().map(|a| (a.kind, a.size)).collect();
    assert_eq!(
        spaces,
        [
            (ArgKind::Scalar, 4),
            (ArgKind::Buffer, 8),
            (ArgKind::Buffer, 8),
            (ArgKind::Scalar, 4)
        ]
    );
    assert_eq!(info.args[1].space, zekit_spirv::AddressSpace::Global);
}

/// `bench/flops.spv`: llvm-spirv lays the loop's exit block out before the loop body that
/// dominates it; the lowering follows dominance, not the layout.
#[test]
fn mad_chain_with_exit_block_before_the_loop_runs() {
    let spv = std::fs::read(format!(
        "{}/kernels/bench/flops.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let p = compile(&spv, &HashMap::new()).unwrap_or_else(|e| panic!("flops: {e}"));
    let a = 0.5f32;
    let mut out = vec![0f32; 64];
    run_1d(
        &p,
        "mad_v1",
        &[out.as_mut_ptr() as u64, u64::from(a.to_bits())],
        64,
        16,
        &[],
    );
    for (i, &got) in out.iter().enumerate() {
        // `mad` may be fused or not.
        let chain = |fused: bool| {
            let mad = |a: f32, b: f32, c: f32| if fused { a.mul_add(b, c) } else { a * b + c };
            let (mut x, mut y) = (a, (i % 16) as f32);
            for _ in 0..128 * 4 {
                x = mad(y, x, y);
                y = mad(x, y, x);
                x = mad(y, x, y);
                y = mad(x, y, x);
            }
            y
        };
        let (f, u) = (chain(true), chain(false));
        assert!(
            got.to_bits() == f.to_bits() || got.to_bits() == u.to_bits(),
            "{i}: {got} (fused {f}, unfused {u})"
        );
    }
}

#[test]
fn vector_add_runs() {
    let p = program("vector_add");
    let a: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..256).map(|i| (i * 3) as f32 + 0.5).collect();
    let mut c = vec![0f32; 256];
    run_1d(
        &p,
        "vector_add",
        &[a.as_ptr() as u64, b.as_ptr() as u64, c.as_mut_ptr() as u64],
        256,
        32,
        &[],
    );
    for i in 0..256 {
        assert_eq!(c[i], a[i] + b[i]);
    }
}

#[test]
fn reduce_runs_with_barriers() {
    let p = program("reduce");
    let input: Vec<i32> = (0..128).map(|i| i * 7 - 100).collect();
    let mut partial = vec![0i32; 4];
    let mut echo = vec![0i32; 128];
    run_1d(
        &p,
        "reduce",
        &[
            input.as_ptr() as u64,
            partial.as_mut_ptr() as u64,
            0,
            echo.as_mut_ptr() as u64,
        ],
        128,
        32,
        &[32 * 4],
    );
    for g in 0..4 {
        let s: i32 = input[g * 32..g * 32 + 32].iter().sum();
        assert_eq!(partial[g], s);
        for l in 0..32 {
            assert_eq!(echo[g * 32 + l], s + l as i32);
        }
    }
}

#[test]
fn barriers_in_loops_run() {
    let p = program("tree_reduce");
    let info = &p.kernel("tree_reduce").unwrap().info;
    assert!(info.barriers);
    // Per work-item across the barrier: the loop's `s` (twice: it and its half), then the
    // resume state. The local id, the local memory's address, `&scratch[l]` and the argument
    // words are recomputed after the barrier instead of spilled.
    assert_eq!(info.private_size, 32);
    for local in [1u64, 2, 16, 64, 256] {
        let groups = 5;
        let input: Vec<i32> = (0..(groups * local) as i32).map(|i| i * 3 - 50).collect();
        let mut out = vec![0i32; groups as usize];
        run_1d(
            &p,
            "tree_reduce",
            &[input.as_ptr() as u64, out.as_mut_ptr() as u64, 0],
            groups * local,
            local,
            &[local as usize * 4],
        );
        for g in 0..groups as usize {
            let l = local as usize;
            assert_eq!(
                out[g],
                input[g * l..g * l + l].iter().sum::<i32>(),
                "local size {local}"
            );
        }
    }
}
