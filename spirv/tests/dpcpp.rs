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

/// (nan, inf, finite, normal, sign bit) of a float.
fn classes32(x: f32) -> [u32; 5] {
    [x.is_nan(), x.is_infinite(), x.is_finite(), x.is_normal(), x.is_sign_negative()].map(u32::from)
}

fn classes64(x: f64) -> [u32; 5] {
    [x.is_nan(), x.is_infinite(), x.is_finite(), x.is_normal(), x.is_sign_negative()].map(u32::from)
}

#[test]
fn float_classes() {
    // Each float with the classes of its nearest half, by hand: (nan, inf, finite, normal, sign).
    let cases: [(f32, [u32; 5]); 16] = [
        (0.0, [0, 0, 1, 0, 0]),
        (-0.0, [0, 0, 1, 0, 1]),
        (1.0, [0, 0, 1, 1, 0]),
        (-1.5, [0, 0, 1, 1, 1]),
        (f32::INFINITY, [0, 1, 0, 0, 0]),
        (f32::NEG_INFINITY, [0, 1, 0, 0, 1]),
        (f32::NAN, [1, 0, 0, 0, 0]),
        (-f32::NAN, [1, 0, 0, 0, 1]),
        (f32::MIN_POSITIVE, [0, 0, 1, 0, 0]),
        (-1e-40, [0, 0, 1, 0, 1]),
        (f32::MAX, [0, 1, 0, 0, 0]),
        (65504.0, [0, 0, 1, 1, 0]),
        (-70000.0, [0, 1, 0, 0, 1]),
        (1e-5, [0, 0, 1, 0, 0]),
        (6.2e-5, [0, 0, 1, 1, 0]),
        (-1e-8, [0, 0, 1, 0, 1]),
    ];
    let doubles: [f64; 16] = [
        0.0,
        -0.0,
        1.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MIN_POSITIVE,
        -1e-310,
        f64::MAX,
        1e300,
        -1e-300,
        f64::MIN_POSITIVE / 2.0,
        2.5e-308,
        -0.5,
    ];
    let n = cases.len();
    let f: Vec<f32> = cases.iter().map(|c| c.0).collect();
    let mut out = vec![9u32; 20 * n];
    let p = dpcpp("floats");
    run_1d(&p, "classify", &[addr(&mut out), f.as_ptr() as u64, doubles.as_ptr() as u64, n as u64], n as u64, 4);
    for (i, (x, half)) in cases.iter().enumerate() {
        let y = doubles[i];
        let want = [classes32(*x), classes64(y), classes32(-*x), *half];
        for (g, w) in want.iter().enumerate() {
            for (t, w) in w.iter().enumerate() {
                let k = g * 5 + t;
                assert_eq!(out[k * n + i], *w, "test {k} of x {x:e} y {y:e}");
            }
        }
    }
}

#[test]
fn vector_bitcasts() {
    // No half in these bytes is a NaN (a half is carried as the f32 of its value).
    let input: Vec<u8> = (0..16u8).map(|k| k * 7 + 1).collect();
    let mut out = vec![0u8; 16 * 23];
    let p = dpcpp("bitcasts");
    run_1d(&p, "bitcasts", &[addr(&mut out), input.as_ptr() as u64], 1, 1);
    // Bytes each pair moves (the listing in bitcasts.spvasm).
    let widths = [16, 16, 8, 8, 8, 8, 8, 8, 8, 8, 4, 4, 16, 16, 16, 4, 4, 2, 12, 16, 8, 16, 8];
    for (k, w) in widths.iter().enumerate() {
        assert_eq!(&out[16 * k..16 * k + w], &input[..*w], "pair {k}");
        assert!(out[16 * k + w..16 * (k + 1)].iter().all(|b| *b == 0), "pair {k} wrote past its width");
    }
}

/// `x` rounded to the nearest half (ties to even), as an f32.
fn round_half(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let a = f64::from(x.abs());
    // The spacing of halves around `a`: 2^-24 below 2^-14, else 2^(e - 10).
    let e = if a < 2f64.powi(-14) { -14 } else { a.log2().floor() as i32 };
    let ulp = 2f64.powi(e - 10);
    let r = (a / ulp).round_ties_even() * ulp;
    let r = if r >= 65520.0 { f64::INFINITY } else { r };
    (r as f32).copysign(x)
}

/// Combines two results of operation `j` of groups.spvasm (values as u32 bits).
fn group_combine(j: usize, a: u32, b: u32) -> u32 {
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    match j {
        0 => a.wrapping_mul(b),
        1 | 4 => a & b,
        2 | 5 => a | b,
        3 | 6 => a ^ b,
        7 => (fa * fb).to_bits(),
        8 => round_half(fa + fb).to_bits(),
        9 => round_half(fa * fb).to_bits(),
        10 => fa.min(fb).to_bits(),
        _ => fa.max(fb).to_bits(),
    }
}

fn group_identity(j: usize) -> u32 {
    [1, u32::MAX, 0, 0, 1, 0, 0, 1f32.to_bits(), 0, 1f32.to_bits(), f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits()][j]
}

/// OpGroupIMulKHR, the bitwise and logical KHR group instructions, OpGroupFMulKHR on float,
/// and OpGroupFAdd/FMulKHR/FMin/FMax on half, with Reduce and both scans, at Workgroup and
/// Subgroup scope (sub-groups of 8), for groups of 1, 3, 8, 13 and 64 work-items.
#[test]
fn uniform_group_instructions() {
    let p = dpcpp("groups");
    for local in [1usize, 3, 8, 13, 64] {
        let n = 2 * local;
        let mut s = 0x9e37_79b9u32;
        let x: Vec<u32> = (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                s | 1
            })
            .collect();
        let fx: Vec<f32> = (0..n).map(|i| 1.0 + ((i * 37 % 9) as f32 - 4.0) / 128.0).collect();
        let mut out = vec![0x5a5a_5a5au32; 72 * n];
        run_1d(&p, "groups", &[addr(&mut out), x.as_ptr() as u64, fx.as_ptr() as u64, n as u64], n as u64, local as u64);
        for k in 0..72 {
            let (sub, j, g) = (k >= 36, k % 36 / 3, k % 3);
            let input = |i: usize| match j {
                0..=3 => x[i],
                4..=6 => u32::from(x[i] % 5 != 0),
                7 => fx[i].to_bits(),
                _ => round_half(fx[i]).to_bits(),
            };
            for i in 0..n {
                let l = i % local;
                let (start, end) = if sub {
                    let st = l / 8 * 8;
                    (st, (st + 8).min(local))
                } else {
                    (0, local)
                };
                let base = i - l;
                let upto = match g {
                    0 => end,
                    1 => l + 1,
                    _ => l,
                };
                let want = (start..upto)
                    .map(|m| input(base + m))
                    .reduce(|a, b| group_combine(j, a, b))
                    .unwrap_or_else(|| group_identity(j));
                assert_eq!(out[k * n + i], want, "local {local} result {k} item {i}");
            }
        }
    }
}
