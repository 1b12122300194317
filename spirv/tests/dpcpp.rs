//! What Intel's DPC++ compiler emits (hand-written SPIR-V assembly in `kernels/dpcpp/`,
//! assembled by `kernels/dpcpp/assemble.py`), run directly against host references: hints that
//! are parsed and ignored, the instructions implemented with their meaning, LLVM intrinsics the
//! translator left as imports, the KHR uniform group instructions, and the capabilities refused
//! by name.
#![cfg(feature = "jit")]

mod common;
use common::*;

use std::collections::HashMap;

fn dpcpp(name: &str) -> zekit_spirv::Program {
    program(&format!("dpcpp/{name}"))
}

/// The error compiling `kernels/dpcpp/<name>.spv`.
fn refusal(name: &str) -> String {
    let path = format!("{}/kernels/dpcpp/{name}.spv", env!("CARGO_MANIFEST_DIR"));
    let spv = std::fs::read(path).unwrap();
    match zekit_spirv::compile(&spv, &HashMap::new()) {
        Ok(_) => panic!("{name} compiled"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn hints() {
    let p = dpcpp("hints");
    for n in [1usize, 7, 64] {
        let input: Vec<u32> = (0..n as u32).map(|i| i * 1000 + 7).collect();
        let mut out = vec![0u32; 128];
        run_1d(&p, "hints", &[addr(&mut out), input.as_ptr() as u64], n as u64, 1);
        for i in 0..n {
            assert_eq!(out[i], 3 * input[i] + 1, "n {n} item {i}");
            assert_eq!(out[64 + i], input[i], "n {n} copy {i}");
        }
        assert!(out[n..64].iter().all(|x| *x == 0));
    }
}

/// GlobalInvocationId declared in UniformConstant storage is the built-in all the same.
#[test]
fn builtin_in_uniform_constant() {
    let p = dpcpp("hints");
    let mut out = vec![u64::MAX; 24];
    run_1d(&p, "uc_ids", &[addr(&mut out)], 24, 8);
    assert_eq!(out, (0..24).collect::<Vec<u64>>());
}

/// Capabilities with no meaning on a CPU are refused naming them; others the compiler does not
/// implement are named where known; an unknown LLVM intrinsic is refused naming it.
#[test]
fn refused_capabilities() {
    for (kernel, want) in [
        ("refuse_vectorcomputeintel", "capability VectorComputeINTEL (5617) has no meaning on a CPU"),
        ("refuse_fpgaloopcontrolsintel", "capability FPGALoopControlsINTEL (5888) has no meaning on a CPU"),
        ("refuse_asmintel", "capability AsmINTEL (5606) has no meaning on a CPU"),
        ("refuse_pipes", "unsupported: capability Pipes (17)"),
        ("refuse_unknown", "unsupported: capability 7777"),
        ("unknown_intrinsic", "`llvm.sponentriq.i32`"),
    ] {
        let e = refusal(kernel);
        assert!(e.contains(want), "{kernel}: {e}");
    }
}
