//! OpenCL.std beyond the first milestone, run directly (without the driver) against host
//! references: `vload`/`vstore` (half too), geometric, integer, common and math functions,
//! functions with pointer results.
#![cfg(feature = "jit")]

use std::collections::HashMap;
use zekit_spirv::{compile, ArgKind, GroupCtx, Program};

fn program(name: &str) -> Program {
    let spv = std::fs::read(format!("{}/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR"))).unwrap();
    compile(&spv, &HashMap::new()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs every group of a 1D launch sequentially; `args` are buffer addresses (8-byte words).
fn run_1d(p: &Program, kernel: &str, args: &[u64], global: u64, local: u64) {
    let k = p.kernel(kernel).unwrap();
    let mut block = vec![0u64; (k.info.args_size as usize).div_ceil(8) + 1];
    for (a, v) in k.info.args.iter().zip(args) {
        assert_ne!(a.kind, ArgKind::Local);
        block[a.offset as usize / 8] = *v;
    }
    let mut local_mem = vec![0u8; k.info.local_static_size as usize + 16];
    let mut private = vec![0u8; k.info.private_size as usize * local as usize + 16];
    for g in 0..global / local {
        let mut ctx = GroupCtx {
            group_id: [g, 0, 0],
            local_size: [local, 1, 1],
            num_groups: [global / local, 1, 1],
            global_offset: [0; 3],
            work_dim: 1,
            args: block.as_ptr() as usize,
            local_mem: local_mem.as_mut_ptr() as usize,
            private_mem: private.as_mut_ptr() as usize,
        };
        // SAFETY: the arguments point to live vectors of the sizes the kernels index.
        unsafe { k.run_group(&mut ctx) };
    }
}

fn addr<T>(v: &mut [T]) -> u64 {
    v.as_mut_ptr() as u64
}

/// An IEEE half's value (exact in f64).
fn half_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Every finite half and the infinities, ordered by value (one zero: +0).
fn halves_by_value() -> Vec<u16> {
    let mut v: Vec<u16> = (0..=0xffffu16)
        .filter(|h| (h & 0x7c00) != 0x7c00 || (h & 0x3ff) == 0)
        .filter(|h| *h != 0x8000)
        .collect();
    v.sort_by(|a, b| half_value(*a).partial_cmp(&half_value(*b)).unwrap());
    v
}

/// The half a float rounds to in `mode` (0 nearest even, 1 toward zero, 2 up, 3 down),
/// chosen among all halves by the definition of each mode (an independent reference).
fn round_to_half(x: f32, mode: u32, table: &[u16]) -> u16 {
    let x = f64::from(x);
    if x.is_nan() {
        return 0x7e00;
    }
    let max = 65504.0;
    let neg = x.is_sign_negative();
    // The largest half ≤ x and the smallest half ≥ x (infinities at the ends).
    let below = table.iter().rev().find(|h| half_value(**h) <= x).copied();
    let above = table.iter().find(|h| half_value(**h) >= x).copied();
    let pick = |h: u16| if half_value(h) == 0.0 && neg { 0x8000 } else { h };
    let (b, a) = (below.unwrap_or(0xfc00), above.unwrap_or(0x7c00));
    let r = match mode {
        1 => {
            if x >= 0.0 {
                if x.abs() > max && x.is_finite() { 0x7bff } else { b }
            } else if x.abs() > max && x.is_finite() {
                0xfbff
            } else {
                a
            }
        }
        2 => a,
        3 => b,
        _ => {
            if x.abs() >= 65520.0 {
                if neg { 0xfc00 } else { 0x7c00 }
            } else {
                let (db, da) = (x - half_value(b), half_value(a) - x);
                if db < da || (db == da && b & 1 == 0) { b } else { a }
            }
        }
    };
    // Finite values never round up/down to infinity past ±max in rtp/rtn only when
    // they exceed max: rtp of a large negative stays -max, rtn of a large positive +max.
    let r = match (mode, x.is_finite()) {
        (2, true) if x < -max => 0xfbff,
        (3, true) if x > max => 0x7bff,
        _ => r,
    };
    pick(r)
}

#[test]
fn vload_vstore_and_halves() {
    let p = program("vload");
    let n = 8usize;
    let src: Vec<f32> = (0..16 * n + 16).map(|k| k as f32 * 0.5 - 3.0).collect();
    let isrc: Vec<i32> = (0..3 * n as i32 + 4).map(|k| k * 7 - 20).collect();
    // Halves: a mix of normals, subnormals, zeros, infinities.
    let hsrc: Vec<u16> = (0..4 * n as u16 + 4)
        .map(|k| [0x3c00, 0x0001, 0x8000, 0x7c00, 0xfc00, 0x3555, 0x03ff, 0xc8a0][k as usize % 8] ^ (k << 2))
        .collect();
    // Floats to round: ties, values between halves, overflow, subnormal ranges, negatives.
    let x: Vec<f32> = vec![
        1.0, 1.000_488_3, 1.000_976_6, -1.000_732_4, 65519.0, 65520.0, -70000.0, 1e-7, -3e-8,
        0.333_333_34, -2.718_281_7, 5.960_464_5e-8, 2.980_232_2e-8, 1e10, -0.0, 1234.567,
        f32::INFINITY, 6.1e-5, -6.1e-5, 3.0e-5, 0.1, -0.1, 100.03, 7.0, 8.5, 9.25, 10.125,
        11.0625, 12.03125, 13.015625, 14.0078125, 15.00390625, 17.0, 18.0, 19.0,
    ];
    let mut out = vec![0f32; 33 * n];
    let mut iout = vec![0i32; 3 * n];
    let mut hf = vec![0f32; 8 * n];
    let mut ho = vec![0xdeadu16; 13 * n];
    let (mut src, mut isrc, mut hsrc, mut x) = (src, isrc, hsrc, x);
    run_1d(
        &p,
        "vload",
        &[addr(&mut src), addr(&mut out), addr(&mut isrc), addr(&mut iout), addr(&mut hsrc), addr(&mut hf), addr(&mut x), addr(&mut ho)],
        n as u64,
        4,
    );
    for i in 0..n {
        for k in 0..2 {
            assert_eq!(out[2 * i + k], src[1 + 2 * i + k] + 1.0);
        }
        for k in 0..3 {
            assert_eq!(out[2 * n + 3 * i + k], src[2 + 3 * i + k] * 2.0);
            assert_eq!(iout[3 * i + k], isrc[1 + 3 * i + 2 - k] + 1 + k as i32);
        }
        for k in 0..4 {
            assert_eq!(out[5 * n + 4 * i + k], src[4 * i + k] - 1.0);
        }
        for k in 0..8 {
            assert_eq!(out[9 * n + 8 * i + k], src[3 + 8 * i + k]);
        }
        for k in 0..16 {
            assert_eq!(out[17 * n + 16 * i + k], src[16 * i + k]);
        }
        let same = |a: f32, h: u16| {
            let v = half_value(h);
            assert!(a as f64 == v || (a.is_nan() && v.is_nan()), "{a} vs half {h:#06x} = {v}");
        };
        same(hf[i], hsrc[i]);
        for k in 0..4 {
            same(hf[n + 4 * i + k], hsrc[4 * i + k]);
        }
        for k in 0..3 {
            same(hf[5 * n + 3 * i + k], hsrc[4 * i + k]);
        }
    }
    let table = halves_by_value();
    for i in 0..n {
        for (j, mode) in [0, 1, 2, 3, 0].into_iter().enumerate() {
            let want = round_to_half(x[i], mode, &table);
            assert_eq!(ho[5 * i + j], want, "x = {:e}, mode {mode}", x[i]);
        }
        for k in 0..4 {
            assert_eq!(ho[5 * n + 4 * i + k], round_to_half(x[4 * i + k], 1, &table));
        }
        for k in 0..3 {
            assert_eq!(ho[9 * n + 4 * i + k], round_to_half(x[4 * i + k], 0, &table));
        }
        assert_eq!(ho[9 * n + 4 * i + 3], 0xdead, "vstorea_half3 leaves the fourth half");
    }
}
