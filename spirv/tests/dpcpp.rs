//! What Intel's DPC++ compiler emits (hand-written SPIR-V assembly in `kernels/dpcpp/`,
//! assembled by `kernels/dpcpp/assemble.py`; each `.spvasm` says which test runs it), run
//! directly against host references: hints that are parsed and ignored, the instructions
//! implemented with their meaning, LLVM intrinsics the translator left as imports, the KHR
//! uniform group instructions, sub-group block IO and rotations, built-ins through access
//! chains, `device_global`s, and the capabilities refused by name.
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
        let mut out = vec![0u32; 192];
        run_1d(&p, "hints", &[addr(&mut out), input.as_ptr() as u64], n as u64, 1);
        for i in 0..n {
            assert_eq!(out[i], 3 * input[i] + 1, "n {n} item {i}");
            assert_eq!(out[64 + i], input[i], "n {n} copy {i}");
            assert_eq!(out[128 + i], input[i], "n {n} sized copy {i}");
        }
        assert!(out[n..64].iter().all(|x| *x == 0));
    }
    // The LinkOnceODR helper is exported (for zeModuleDynamicLink), like an Export one.
    let path = format!("{}/kernels/dpcpp/hints.spv", env!("CARGO_MANIFEST_DIR"));
    let (imports, exports) = zekit_spirv::linkage(&std::fs::read(path).unwrap()).unwrap();
    assert!(imports.is_empty() && exports == ["_Z6helperPU3AS1jj"], "{imports:?} {exports:?}");
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
    // An unknown intrinsic is no import to link either: the module fails to compile at once.
    let path = format!("{}/kernels/dpcpp/unknown_intrinsic.spv", env!("CARGO_MANIFEST_DIR"));
    let (imports, _) = zekit_spirv::linkage(&std::fs::read(path).unwrap()).unwrap();
    assert!(imports.is_empty(), "{imports:?}");
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
                4..=6 => u32::from(!x[i].is_multiple_of(5)),
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
                let vals: Vec<u32> = (start..upto).map(|m| input(base + m)).collect();
                // Reduces in the compiler's order (unspecified by SPIR-V), scans in order.
                let want = match (g, vals.is_empty()) {
                    (_, true) => group_identity(j),
                    (0, false) => reduce4(&vals, |a, b| group_combine(j, a, b)),
                    _ => vals.into_iter().reduce(|a, b| group_combine(j, a, b)).unwrap(),
                };
                assert_eq!(out[k * n + i], want, "local {local} result {k} item {i}");
            }
        }
    }
}

/// Result `k` of intrinsics.spvasm on `w`-bit integers (as u64, zero-extended).
fn intrinsic_ref(k: usize, w: u32, x: u64, y: u64, z: u64) -> u64 {
    let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let s = |v: u64| -> i128 { (((v as u128) << (128 - w)) as i128) >> (128 - w) };
    let (smin, smax) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
    let (ux, uy) = (u128::from(x), u128::from(y));
    let sat_s = |v: i128| v.clamp(smin, smax) as u64 & m;
    let rev = |v: u64| v.reverse_bits() >> (64 - w);
    let flag = |b: bool| u64::from(b);
    match k {
        0 => (ux + uy).min(u128::from(m)) as u64,
        1 => x.saturating_sub(y),
        2 => sat_s(s(x) + s(y)),
        3 => sat_s(s(x) - s(y)),
        4 => x.min(y),
        5 => x.max(y),
        6 => (s(x).min(s(y)) as u64) & m,
        7 => (s(x).max(s(y)) as u64) & m,
        8 => (s(x).unsigned_abs() as u64) & m,
        9 => u64::from(x.leading_zeros() - (64 - w)),
        10 => u64::from(x.trailing_zeros().min(w)),
        11 | 12 => {
            // Funnel shifts: x:y (x high) shifted by z mod w; fshl keeps the high w bits,
            // fshr the low w bits.
            let cat = (ux << w) | uy;
            let sh = z % u64::from(w);
            if k == 11 {
                ((cat << sh) >> w) as u64 & m
            } else {
                (cat >> sh) as u64 & m
            }
        }
        13 => u64::from(x.count_ones()),
        14 => rev(x),
        15 => x.swap_bytes() >> (64 - w),
        16 => (x.wrapping_add(y)) & m,
        17 => flag(ux + uy > u128::from(m)),
        18 => x.wrapping_sub(y) & m,
        19 => flag(x < y),
        20 => x.wrapping_add(y) & m,
        21 => flag(s(x) + s(y) != s((x.wrapping_add(y)) & m)),
        22 => x.wrapping_sub(y) & m,
        23 => flag(s(x) - s(y) != s((x.wrapping_sub(y)) & m)),
        24 => x.wrapping_mul(y) & m,
        25 => flag(ux * uy > u128::from(m)),
        26 => x.wrapping_mul(y) & m,
        _ => flag(s(x) * s(y) != s(x.wrapping_mul(y) & m)),
    }
}

/// Runs kernel `name` of intrinsics.spvasm on `n` work-items of `lanes` elements of `w` bits
/// and checks every result against [`intrinsic_ref`].
fn check_intrinsics(p: &zekit_spirv::Program, name: &str, w: u32, lanes: usize) {
    let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let h = 1u64 << (w - 1);
    let special = [0, 1, 2, m, m - 1, h, h - 1, h + 1, 0x5555_5555_5555_5555 & m, 3 << (w / 2)];
    let mut st = 0x1234_5678_9abc_def1u64;
    let mut rand = || {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        st & m
    };
    // Every pair of special values, then random ones; z: shift amounts of all sizes.
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for a in special {
        for b in special {
            xs.push(a);
            ys.push(b);
        }
    }
    for _ in 0..60 {
        xs.push(rand());
        ys.push(rand());
    }
    let zs: Vec<u64> = (0..xs.len() as u64).map(|i| if i % 3 == 0 { i } else { i * 0x9e37 + (i % 5) * u64::from(w) } & m).collect();
    let elems = xs.len();
    assert_eq!(elems % lanes, 0);
    let n = elems / lanes;
    let bytes = (w / 8) as usize;
    let pack = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()[..bytes].to_vec()).collect() };
    let (a, b, c) = (pack(&xs), pack(&ys), pack(&zs));
    let mut out = vec![0xa5u8; 28 * elems * bytes];
    run_1d(p, name, &[addr(&mut out), a.as_ptr() as u64, b.as_ptr() as u64, c.as_ptr() as u64, n as u64], n as u64, 1);
    for k in 0..28 {
        for e in 0..elems {
            let at = (k * elems + e) * bytes;
            let mut got = [0u8; 8];
            got[..bytes].copy_from_slice(&out[at..at + bytes]);
            let got = u64::from_le_bytes(got);
            let want = if k == 15 && w == 8 { xs[e] } else { intrinsic_ref(k, w, xs[e], ys[e], zs[e]) };
            assert_eq!(got, want, "{name} result {k}: x {:#x} y {:#x} z {:#x}", xs[e], ys[e], zs[e]);
        }
    }
}

/// `llvm.*` integer intrinsics (saturating arithmetic, min/max, abs, funnel shifts, bit counts,
/// bitreverse, bswap, arithmetic with overflow) on 8 to 64 bits, v4i32 and v2i64.
#[test]
fn llvm_intrinsics() {
    let p = dpcpp("intrinsics");
    for (name, w, lanes) in [("intr8", 8, 1), ("intr16", 16, 1), ("intr32", 32, 1), ("intr64", 64, 1), ("intr_v4i32", 32, 4), ("intr_v2i64", 64, 2)] {
        check_intrinsics(&p, name, w, lanes);
    }
    // They are not imports to link.
    let path = format!("{}/kernels/dpcpp/intrinsics.spv", env!("CARGO_MANIFEST_DIR"));
    let (imports, _) = zekit_spirv::linkage(&std::fs::read(path).unwrap()).unwrap();
    assert!(imports.is_empty(), "{imports:?}");
}

/// The nearest bfloat16 (ties to even; a NaN quiet), as its bits.
fn bf16_ref(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

/// `x` rounded to tf32 (10 fraction bits, ties to even; a NaN quiet).
fn tf32_ref(x: f32) -> f32 {
    let b = x.to_bits();
    let r = if x.is_nan() { b | 0x40_0000 } else { b + 0xfff + ((b >> 13) & 1) };
    f32::from_bits(r & 0xffff_e000)
}

/// OpConvertFToBF16INTEL (scalar and vector), OpConvertBF16ToFINTEL, OpRoundFToTF32INTEL,
/// OpArithmeticFenceEXT.
#[test]
fn conversions() {
    let t = 2f32.powi(-8);
    let x: Vec<f32> = vec![
        1.0,
        1.0 + t,
        1.0 + 3.0 * t,
        1.0 + t + 2f32.powi(-20),
        -2.5,
        f32::MAX,
        -f32::MAX,
        f32::NAN,
        -f32::NAN,
        1e-40,
        f32::INFINITY,
        -0.0,
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        3.140_625_2,
        -65504.06,
    ];
    // Hand-checked: ties go to even, overflow to infinity.
    assert_eq!([bf16_ref(x[1]), bf16_ref(x[2]), bf16_ref(x[3]), bf16_ref(x[5])], [0x3f80, 0x3f82, 0x3f81, 0x7f80]);
    assert_eq!([tf32_ref(x[12]), tf32_ref(x[13])], [1.0, 1.0 + 2f32.powi(-9)]);
    let n = x.len();
    let mut bf = vec![0u16; 3 * n];
    let (mut back, mut tf, mut fenced) = (vec![0f32; n], vec![0f32; n], vec![0f32; n]);
    let p = dpcpp("convert");
    let args = [addr(&mut bf), addr(&mut back), addr(&mut tf), addr(&mut fenced), x.as_ptr() as u64, n as u64];
    run_1d(&p, "convert", &args, n as u64, 4);
    for (i, v) in x.iter().enumerate() {
        assert_eq!(bf[i], bf16_ref(*v), "bf16 of {v:e}");
        assert_eq!(bf[n + 2 * i], bf16_ref(*v), "vector bf16 of {v:e}");
        assert_eq!(bf[n + 2 * i + 1], bf16_ref(-*v), "vector bf16 of -{v:e}");
        assert_eq!(back[i].to_bits(), u32::from(bf16_ref(*v)) << 16, "bf16 back of {v:e}");
        assert_eq!(tf[i].to_bits(), tf32_ref(*v).to_bits(), "tf32 of {v:e}");
        assert_eq!(fenced[i].to_bits(), (v * 3.0).to_bits(), "fence of {v:e}");
    }
}

/// llvm.fma and llvm.fmuladd are fused (the test values' products need more than a float).
#[test]
fn fused_multiply_add() {
    let n = 16;
    let a: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 2f32.powi(-13)).collect();
    let c: Vec<f32> = (0..n).map(|i| -(1.0 + i as f32 * 2f32.powi(-12))).collect();
    let mut out = vec![0f32; 5 * n];
    let p = dpcpp("convert");
    run_1d(&p, "fmas", &[addr(&mut out), a.as_ptr() as u64, a.as_ptr() as u64, c.as_ptr() as u64, n as u64], n as u64, 8);
    let mut differ = 0;
    for i in 0..n {
        let fused = a[i].mul_add(a[i], c[i]);
        differ += usize::from(fused != a[i] * a[i] + c[i]);
        assert_eq!(out[i], fused, "fma {i}");
        assert_eq!(out[n + i], fused, "fmuladd {i}");
        assert_eq!(out[2 * n + i], fused, "v2f32 fma {i}");
        assert_eq!(out[3 * n + i], a[i].mul_add(c[i], a[i]), "v2f32 fma lane 1 {i}");
        let h = |x: f32| round_half(x);
        assert_eq!(out[4 * n + i], h(h(a[i]).mul_add(h(a[i]), h(c[i]))), "half fma {i}");
    }
    assert!(differ > 8, "the values do not tell fused from unfused");
    let ad: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 * 2f64.powi(-29)).collect();
    let cd: Vec<f64> = (0..n).map(|i| -(1.0 + i as f64 * 2f64.powi(-28))).collect();
    let mut outd = vec![0f64; n];
    run_1d(&p, "fmad", &[addr(&mut outd), ad.as_ptr() as u64, ad.as_ptr() as u64, cd.as_ptr() as u64], n as u64, 8);
    for i in 0..n {
        assert_eq!(outd[i], ad[i].mul_add(ad[i], cd[i]), "f64 fma {i}");
    }
}

/// OpReadClockKHR: a clock that does not go back, in nanoseconds, as a ulong and as a uint2.
#[test]
fn read_clock() {
    let p = dpcpp("convert");
    let mut first = vec![0u64; 32];
    run_1d(&p, "clock", &[addr(&mut first)], 16, 4);
    std::thread::sleep(std::time::Duration::from_millis(2));
    let mut second = vec![0u64; 32];
    run_1d(&p, "clock", &[addr(&mut second)], 16, 4);
    for out in [&first, &second] {
        for i in 0..16 {
            assert!(out[2 * i] <= out[2 * i + 1], "item {i}: {out:?}");
            if i >= 4 {
                // Groups run one after the other.
                assert!(out[2 * (i - 4) + 1] <= out[2 * i], "item {i}: {out:?}");
            }
        }
    }
    assert!(second[0] >= first[31] + 2_000_000, "{} then {}", first[31], second[0]);
}

/// The hints of hints2.spvasm (maximum registers, cache controls, fp max error, float
/// controls 2, fast composite, INTEL float controls 2, kernel attributes) change nothing.
#[test]
fn more_hints() {
    let p = dpcpp("hints2");
    let input: Vec<u32> = (0..40).map(|i| (u32::MAX - 50).wrapping_add(i * 3)).collect();
    let mut out = vec![0u32; 40];
    run_1d(&p, "inc", &[addr(&mut out), input.as_ptr() as u64], 40, 8);
    let want: Vec<u32> = input.iter().map(|x| x.wrapping_add(1)).collect();
    assert_eq!(out, want);
}

/// SPV_INTEL_long_composites: continuation instructions add operands to the struct type,
/// constant composite and composite construction before them.
#[test]
fn long_composites() {
    let p = dpcpp("long");
    let n = 12;
    let input: Vec<u32> = (0..n as u32).map(|i| i * 100).collect();
    let mut out = vec![0u32; 5 * n];
    run_1d(&p, "long", &[addr(&mut out), input.as_ptr() as u64, n as u64], n as u64, 4);
    for (i, x) in input.iter().enumerate() {
        assert_eq!(out[4 * i..4 * i + 4], [x + 10, x + 21, x + 32, x + 43], "item {i}");
        assert_eq!(out[4 * n + i], x * 5, "item {i}");
    }
}

/// A native binary names the clock function by symbol: loaded again (compiling nothing), its
/// kernels read the clock and its LLVM intrinsics still compute.
#[test]
fn native_binary_reads_the_clock() {
    let bytes = dpcpp("convert").native_binary().unwrap();
    let before = zekit_spirv::jit::compilations_on_this_thread();
    let q = zekit_spirv::native::load(&bytes).unwrap();
    assert_eq!(zekit_spirv::jit::compilations_on_this_thread(), before);
    let mut out = vec![0u64; 8];
    run_1d(&q, "clock", &[addr(&mut out)], 4, 4);
    std::thread::sleep(std::time::Duration::from_millis(1));
    let mut later = vec![0u64; 8];
    run_1d(&q, "clock", &[addr(&mut later)], 4, 4);
    assert!(out[0] <= out[1] && later[0] >= out[7] + 1_000_000, "{out:?} {later:?}");
    let a = [1.5f32, -2.0];
    let c = [0.25f32, 8.0];
    let mut fm = vec![0f32; 10];
    run_1d(&q, "fmas", &[addr(&mut fm), a.as_ptr() as u64, a.as_ptr() as u64, c.as_ptr() as u64, 2], 2, 2);
    assert_eq!(fm[..2], [2.5, 12.0]);
}

/// OpSubgroupBlockReadINTEL / WriteINTEL on 8 to 64-bit integers, scalars and vectors of 2 to
/// 16: element k of sub-group local id l at p[l + k * max sub-group size].
#[test]
fn sub_group_block_io() {
    let p = dpcpp("blockio");
    for (name, bytes, n) in [("blk_uint1", 4usize, 1usize), ("blk_uint2", 4, 2), ("blk_ushort4", 2, 4), ("blk_uchar16", 1, 16), ("blk_ulong8", 8, 8)] {
        for local in [1usize, 3, 8, 13, 16] {
            let groups = 2;
            let items = groups * local;
            // Room past the last group: a partial sub-group's stride reaches beyond it.
            let len = (items + 8) * n;
            let mask = if bytes == 8 { u64::MAX } else { (1u64 << (8 * bytes)) - 1 };
            let input: Vec<u64> = (0..len as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1) & mask).collect();
            let to_bytes = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()[..bytes].to_vec()).collect() };
            let from = |b: &[u8], i: usize| -> u64 {
                let mut w = [0u8; 8];
                w[..bytes].copy_from_slice(&b[i * bytes..(i + 1) * bytes]);
                u64::from_le_bytes(w)
            };
            let inb = to_bytes(&input);
            let mut out = vec![0u8; items * n * bytes];
            let mut copy = vec![0xeeu8; len * bytes];
            run_1d(&p, name, &[addr(&mut out), inb.as_ptr() as u64, addr(&mut copy)], items as u64, local as u64);
            let max = local.min(8);
            let mut written = vec![false; len];
            for gi in 0..items {
                let (g, lid) = (gi / local, gi % local);
                let (sg, l) = (lid / 8, lid % 8);
                let base = g * local * n + sg * max * n;
                for k in 0..n {
                    let at = base + l + max * k;
                    assert_eq!(from(&out, gi * n + k), input[at], "{name} local {local} item {gi} element {k}");
                    written[at] = true;
                }
            }
            for (i, w) in written.iter().enumerate() {
                let want = if *w { input[i] } else { from(&[0xee; 8], 0) };
                assert_eq!(from(&copy, i), want, "{name} local {local}: copy[{i}]");
            }
        }
    }
}

/// Result k of spv14.spvasm's `ints` / `longs` on `w`-bit values.
fn spv14_ref(k: usize, w: u32, x: u64, y: u64, o: u64, c: u64) -> u64 {
    let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let low = if c == 0 { 0 } else { m >> (u64::from(w) - c) };
    let s = |v: u64| -> i128 { (((v as u128) << (128 - w)) as i128) >> (128 - w) };
    let (ux, uy) = (u128::from(x), u128::from(y));
    match k {
        0 | 12 => x.reverse_bits() >> (64 - w),
        1 => (x & !(low << o) & m) | ((y << o) & (low << o)),
        2 => {
            let f = (x >> o) & low;
            if c == 0 { 0 } else { ((((f as u128) << (128 - c)) as i128 >> (128 - c)) as u64) & m }
        }
        3 | 13 => (x >> o) & low,
        4 => x.wrapping_add(y) & m,
        5 => u64::from(ux + uy > u128::from(m)),
        6 => x.wrapping_sub(y) & m,
        7 => u64::from(x < y),
        8 | 10 | 14 => x.wrapping_mul(y) & m,
        9 | 15 => ((ux * uy) >> w) as u64 & m,
        _ => ((s(x) * s(y)) >> w) as u64 & m,
    }
}

/// OpBitReverse, OpBitFieldInsert/SExtract/UExtract (scalars and vectors), OpIAddCarry,
/// OpISubBorrow, OpUMulExtended, OpSMulExtended on 32 and 64 bits, and OpPtrDiff,
/// OpPtrEqual, OpPtrNotEqual.
#[test]
fn carry_extended_bits_pointers() {
    let p = dpcpp("spv14");
    for (name, w, results) in [("ints", 32u32, 16usize), ("longs", 64, 12)] {
        let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let special = [0, 1, m, m - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 0x1234_5678_9abc_def0 & m];
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for a in special {
            for b in special {
                xs.push(a);
                ys.push(b);
            }
        }
        let n = xs.len() as u64;
        let offs: Vec<u64> = (0..n).map(|i| (i * 7) % u64::from(w)).collect();
        let cnts: Vec<u64> = (0..n as usize).map(|i| (i as u64 * 5) % (u64::from(w) - offs[i] + 1)).collect();
        let bytes = (w / 8) as usize;
        let pack = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()[..bytes].to_vec()).collect() };
        let (a, b, o, c) = (pack(&xs), pack(&ys), pack(&offs), pack(&cnts));
        let mut out = vec![0u8; results * n as usize * bytes];
        let args = [addr(&mut out), a.as_ptr() as u64, b.as_ptr() as u64, o.as_ptr() as u64, c.as_ptr() as u64, n];
        run_1d(&p, name, &args, n, 7);
        for k in 0..results {
            for i in 0..n as usize {
                let at = (k * n as usize + i) * bytes;
                let mut g = [0u8; 8];
                g[..bytes].copy_from_slice(&out[at..at + bytes]);
                let got = u64::from_le_bytes(g);
                let want = spv14_ref(k, w, xs[i], ys[i], offs[i], cnts[i]);
                assert_eq!(got, want, "{name} result {k}: x {:#x} y {:#x} offset {} count {}", xs[i], ys[i], offs[i], cnts[i]);
            }
        }
    }
    let data = vec![0u32; 64];
    let mut out = vec![9u64; 3 * 8];
    run_1d(&p, "ptrs", &[addr(&mut out), data.as_ptr() as u64], 8, 4);
    for i in 0..8u64 {
        let eq = u64::from(i == i * i);
        assert_eq!(out[3 * i as usize..3 * i as usize + 3], [2 * i, eq, 1 - eq], "item {i}");
    }
}

/// OpGroupNonUniformRotateKHR over the whole sub-group and in clusters of 4, sub-groups of 8
/// and smaller ones (groups of 3 and 13).
#[test]
fn sub_group_rotate() {
    let p = dpcpp("rotate");
    for local in [3usize, 8, 13, 16] {
        for delta in [0u32, 1, 3, 7, 9] {
            let n = 2 * local;
            let input: Vec<u32> = (0..n as u32).map(|i| i * 10 + 1).collect();
            let mut out = vec![0u32; 2 * n];
            run_1d(&p, "rotate", &[addr(&mut out), input.as_ptr() as u64, u64::from(delta)], n as u64, local as u64);
            for i in 0..n {
                let lid = i % local;
                let start = i - lid % 8;
                let size = (local - lid / 8 * 8).min(8);
                let me = lid % 8;
                let whole = start + (me + delta as usize) % size;
                let base = me & !3;
                let clustered = start + base + ((me + delta as usize) & 3);
                assert_eq!(out[2 * i], input[whole], "local {local} delta {delta} item {i}");
                if base + 4 <= size {
                    assert_eq!(out[2 * i + 1], input[clustered], "local {local} delta {delta} item {i} (clusters)");
                }
            }
        }
    }
}

/// OpControlBarrierArriveINTEL / WaitINTEL at Workgroup scope order a local-memory exchange.
#[test]
fn split_barrier() {
    let p = dpcpp("splitbar");
    for local in [1usize, 5, 8, 64] {
        let n = 3 * local;
        let input: Vec<u32> = (0..n as u32).map(|i| i * 7 + 3).collect();
        let mut out = vec![0u32; n];
        run_1d(&p, "neighbor", &[addr(&mut out), input.as_ptr() as u64], n as u64, local as u64);
        for i in 0..n {
            let start = i - i % local;
            assert_eq!(out[i], input[start + (i % local + 1) % local], "local {local} item {i}");
        }
    }
}

/// llvm.vector.reduce.* on v4i32 (every integer reduction) and v4f32 (the ordered fadd and
/// fmul from their start value, fmax, fmin).
#[test]
fn vector_reductions() {
    let p = dpcpp("reduce");
    let n = 12usize;
    let a: Vec<u32> = (0..4 * n as u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 3)).collect();
    let f: Vec<f32> = (0..4 * n).map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.37 + 1e-7 * i as f32).collect();
    let mut out = vec![0u32; 13 * n];
    run_1d(&p, "ired", &[addr(&mut out), a.as_ptr() as u64, f.as_ptr() as u64, n as u64], n as u64, 4);
    for i in 0..n {
        let v = &a[4 * i..4 * i + 4];
        let w = &f[4 * i..4 * i + 4];
        let fold = |g: &dyn Fn(u32, u32) -> u32| v[1..].iter().fold(v[0], |x, y| g(x, *y));
        let want = [
            fold(&|x, y| x.wrapping_add(y)),
            fold(&|x, y| x.wrapping_mul(y)),
            fold(&|x, y| x & y),
            fold(&|x, y| x | y),
            fold(&|x, y| x ^ y),
            fold(&|x, y| (x as i32).max(y as i32) as u32),
            fold(&|x, y| (x as i32).min(y as i32) as u32),
            fold(&u32::max),
            fold(&u32::min),
            w.iter().fold(0.5f32, |x, y| x + y).to_bits(),
            w.iter().fold(-2.0f32, |x, y| x * y).to_bits(),
            w[1..].iter().fold(w[0], |x, y| x.max(*y)).to_bits(),
            w[1..].iter().fold(w[0], |x, y| x.min(*y)).to_bits(),
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(out[k * n + i], *w, "reduction {k} of item {i}");
        }
    }
}

/// A `HostAccessINTEL` variable (SYCL's `device_global`) is exported under the decoration's
/// name: the host finds it (as zeModuleGetGlobalPointer does), reads its initializer, writes
/// it, and the kernel sees the write.
#[test]
fn device_global_by_its_host_access_name() {
    let p = dpcpp("device_global");
    let &(_, at, size) = p.globals.iter().find(|g| g.0 == "_Z9dg_uniqueid").expect("exported");
    assert_eq!(size, 4);
    // SAFETY: `at` is the address of the program's 4-byte variable, alive with `p`, and no
    // kernel runs meanwhile.
    unsafe {
        assert_eq!(*(at as *const u32), 41);
        *(at as *mut u32) = 100;
    }
    let mut out = vec![0u32; 8];
    run_1d(&p, "bump", &[addr(&mut out)], 8, 4);
    assert_eq!(out, (100..108).collect::<Vec<u32>>());
}

/// OpGroupNonUniformIMul, BitwiseXor, LogicalOr and FMul at Workgroup scope go through their
/// KHR uniform twins: every work-item of the group takes part.
#[test]
fn non_uniform_at_work_group_scope() {
    let p = dpcpp("nu_wg");
    for local in [1usize, 5, 8, 20] {
        let n = 2 * local;
        let x: Vec<u32> = (0..n as u32).map(|i| (i * 5 + 3) % 11).collect();
        let f: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 / 64.0).collect();
        let mut out = vec![0u32; 4 * n];
        run_1d(&p, "wg", &[addr(&mut out), x.as_ptr() as u64, f.as_ptr() as u64, n as u64], n as u64, local as u64);
        for i in 0..n {
            let g = i - i % local;
            let all = &x[g..g + local];
            let upto = &x[g..=i];
            assert_eq!(out[i], reduce4(all, |a, b| a.wrapping_mul(b)), "local {local} item {i}");
            assert_eq!(out[n + i], upto.iter().fold(0, |a, b| a ^ b), "local {local} item {i}");
            assert_eq!(out[2 * n + i], u32::from(x[g..i].contains(&7)), "local {local} item {i}");
            let prod = reduce4(&f[g..g + local], |a, b| a * b);
            assert_eq!(out[3 * n + i], prod.to_bits(), "local {local} item {i}");
        }
    }
}

/// Built-in variables (in CrossWorkgroup storage) read through access chains with constant
/// indices, byte offsets through `uchar*` and narrower loads, in a 2D launch.
#[test]
fn built_ins_through_access_chains() {
    let p = dpcpp("builtin_gep");
    let (gx, gy, lx, ly) = (8usize, 6usize, 4usize, 3usize);
    let n = gx * gy;
    let mut out = vec![u32::MAX; 4 * n];
    run_2d(&p, "ids", &[addr(&mut out), n as u64], [gx as u64, gy as u64], [lx as u64, ly as u64]);
    for y in 0..gy {
        for x in 0..gx {
            let i = y * gx + x;
            let got = [out[i], out[n + i], out[2 * n + i], out[3 * n + i]];
            assert_eq!(got, [x as u32, y as u32, (x % lx) as u32, (y % ly) as u32], "item ({x}, {y})");
        }
    }
}

/// An OpSwitch case that branches straight into a block with OpPhi passes that value.
#[test]
fn switch_into_phi() {
    let p = dpcpp("switch_phi");
    let input: Vec<u32> = vec![0, 1, 2, 3, 9, 2, 0, 1];
    let mut out = vec![0u32; input.len()];
    run_1d(&p, "switch_phi", &[addr(&mut out), input.as_ptr() as u64], input.len() as u64, 4);
    let want: Vec<u32> = input
        .iter()
        .map(|&x| match x {
            0 => 100,
            1 => 101,
            2 => x + 7,
            _ => x * 3,
        })
        .collect();
    assert_eq!(out, want);
}
