//! OpenCL.std beyond the first milestone, run directly (without the driver) against host
//! references: `vload`/`vstore` (half too), geometric, integer, common and math functions,
//! functions with pointer results.
#![cfg(feature = "jit")]

mod common;
use common::*;

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
fn round_to_half(x: impl Into<f64>, mode: u32, table: &[u16]) -> u16 {
    let x: f64 = x.into();
    if x.is_nan() {
        return 0x7e00;
    }
    let max = 65504.0;
    let neg = x.is_sign_negative();
    // The largest half ≤ x and the smallest half ≥ x (infinities at the ends).
    let below = table.iter().rev().find(|h| half_value(**h) <= x).copied();
    let above = table.iter().find(|h| half_value(**h) >= x).copied();
    let pick = |h: u16| {
        if half_value(h) == 0.0 && neg {
            0x8000
        } else {
            h
        }
    };
    let (b, a) = (below.unwrap_or(0xfc00), above.unwrap_or(0x7c00));
    let r = match mode {
        1 => {
            if x >= 0.0 {
                if x.abs() > max && x.is_finite() {
                    0x7bff
                } else {
                    b
                }
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
                if neg {
                    0xfc00
                } else {
                    0x7c00
                }
            } else {
                let (db, da) = (x - half_value(b), half_value(a) - x);
                if db < da || (db == da && b & 1 == 0) {
                    b
                } else {
                    a
                }
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
        .map(|k| {
            [
                0x3c00, 0x0001, 0x8000, 0x7c00, 0xfc00, 0x3555, 0x03ff, 0xc8a0,
            ][k as usize % 8]
                ^ (k << 2)
        })
        .collect();
    // Floats to round: ties, values between halves, overflow, subnormal ranges, negatives.
    let x: Vec<f32> = vec![
        1.0,
        1.000_488_3,
        1.000_976_6,
        -1.000_732_4,
        65519.0,
        65520.0,
        -70000.0,
        1e-7,
        -3e-8,
        0.333_333_34,
        -2.718_281_7,
        5.960_464_5e-8,
        2.980_232_2e-8,
        1e10,
        -0.0,
        1234.567,
        f32::INFINITY,
        6.1e-5,
        -6.1e-5,
        3.0e-5,
        0.1,
        -0.1,
        100.03,
        7.0,
        8.5,
        9.25,
        10.125,
        11.0625,
        12.03125,
        13.015625,
        14.0078125,
        15.5,
        17.0,
        18.0,
        19.0,
    ];
    let mut out = vec![0f32; 33 * n];
    let mut iout = vec![0i32; 3 * n];
    let mut hf = vec![0f32; 8 * n];
    let mut ho = vec![0xdeadu16; 13 * n];
    let (mut src, mut isrc, mut hsrc, mut x) = (src, isrc, hsrc, x);
    run_1d(
        &p,
        "vload",
        &[
            addr(&mut src),
            addr(&mut out),
            addr(&mut isrc),
            addr(&mut iout),
            addr(&mut hsrc),
            addr(&mut hf),
            addr(&mut x),
            addr(&mut ho),
        ],
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
            assert!(
                a as f64 == v || (a.is_nan() && v.is_nan()),
                "{a} vs half {h:#06x} = {v}"
            );
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
            assert_eq!(
                ho[5 * n + 4 * i + k],
                round_to_half(x[4 * i + k], 1, &table)
            );
        }
        for k in 0..3 {
            assert_eq!(
                ho[9 * n + 4 * i + k],
                round_to_half(x[4 * i + k], 0, &table)
            );
        }
        assert_eq!(
            ho[9 * n + 4 * i + 3],
            0xdead,
            "vstorea_half3 leaves the fourth half"
        );
    }
}

/// A deterministic sequence mixing edge values and pseudo-random ones.
fn mixed<T: Copy>(n: usize, edges: &[T], from_bits: impl Fn(u64) -> T) -> Vec<T> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|k| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if k % 3 == 0 || s.is_multiple_of(4) {
                edges[(s >> 8) as usize % edges.len()]
            } else {
                from_bits(s)
            }
        })
        .collect()
}

#[test]
fn integer_functions() {
    let p = program("int_fns");
    let n = 96usize;
    let edges32 = [
        0,
        1,
        -1,
        2,
        -2,
        i32::MAX,
        i32::MIN,
        i32::MAX - 1,
        i32::MIN + 1,
        0x4000_0000,
        46341,
        -46341,
        0x7fff,
        0x80,
        -0x81,
        12345,
    ];
    let edges64 = [
        0,
        1,
        -1,
        i64::MAX,
        i64::MIN,
        i64::MAX - 1,
        i64::MIN + 1,
        1 << 32,
        3_037_000_500,
        -3_037_000_500,
        1 << 62,
        -(1 << 62),
        0x7f,
        99,
    ];
    let mut a = mixed(3 * n, &edges32, |s| (s >> 16) as i32 >> (s % 24));
    let mut l = mixed(3 * n, &edges64, |s| (s as i64) >> (s % 48));
    let mut o = vec![0i32; 24 * n];
    let mut lo = vec![0i64; 14 * n];
    let mut co = vec![0i8; 6 * n];
    let mut so = vec![0i16; 2 * n];
    run_1d(
        &p,
        "int_fns",
        &[
            addr(&mut a),
            addr(&mut o),
            addr(&mut l),
            addr(&mut lo),
            addr(&mut co),
            addr(&mut so),
        ],
        n as u64,
        32,
    );
    let sat32 = |x: i64| x.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    let sat64 = |x: i128| x.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    for i in 0..n {
        let (x, y, z) = (a[3 * i], a[3 * i + 1], a[3 * i + 2]);
        let (ux, uy, uz) = (x as u32, y as u32, z as u32);
        let (wx, wy, wz) = (i64::from(x), i64::from(y), i64::from(z));
        let (vx, vy, vz) = (u64::from(ux), u64::from(uy), u64::from(uz));
        let want: [i32; 24] = [
            (wx - wy).unsigned_abs() as i32,
            ux.abs_diff(uy) as i32,
            x.saturating_add(y),
            ux.saturating_add(uy) as i32,
            x.saturating_sub(y),
            ux.saturating_sub(uy) as i32,
            ((wx + wy) >> 1) as i32,
            ((vx + vy) >> 1) as i32,
            ((wx + wy + 1) >> 1) as i32,
            ((vx + vy + 1) >> 1) as i32,
            x.trailing_zeros() as i32,
            x.count_ones() as i32,
            (((wx * wy) >> 32) as i32).wrapping_add(z),
            (((vx * vy) >> 32) as u32).wrapping_add(uz) as i32,
            sat32(wx * wy + wz),
            (vx * vy + vz).min(u64::from(u32::MAX)) as i32,
            (x & !z) | (y & z),
            (x & !z) | (y & z),
            x.saturating_add(y).wrapping_add(x.trailing_zeros() as i32),
            y.saturating_add(y).wrapping_add(y.trailing_zeros() as i32),
            z.saturating_add(y).wrapping_add(z.trailing_zeros() as i32),
            a.get(3 * i + 3).map_or(0, |w| {
                w.saturating_add(y).wrapping_add(w.trailing_zeros() as i32)
            }),
            32,
            ux.count_ones() as i32,
        ];
        let got = &o[24 * i..24 * i + 24];
        for (j, (g, w)) in got.iter().zip(want).enumerate() {
            if j == 21 && i == n - 1 {
                continue; // the vector reads one past the inputs' last triple
            }
            assert_eq!(*g, w, "int item {j} of ({x}, {y}, {z})");
        }
        let (p, q, r) = (l[3 * i], l[3 * i + 1], l[3 * i + 2]);
        let (up, uq, ur) = (p as u64, q as u64, r as u64);
        let (wp, wq, wr) = (i128::from(p), i128::from(q), i128::from(r));
        let want: [i64; 14] = [
            p.saturating_add(q),
            up.saturating_add(uq) as i64,
            p.saturating_sub(q),
            up.saturating_sub(uq) as i64,
            sat64(wp * wq + wr),
            (u128::from(up) * u128::from(uq) + u128::from(ur)).min(u128::from(u64::MAX)) as i64,
            i64::from(p.trailing_zeros()),
            (i64::from(x) << 32) | i64::from(uy),
            ((u64::from(ux) << 32) | u64::from(uy)) as i64,
            (((wp * wq) >> 64) as i64).wrapping_add(r),
            p.abs_diff(q) as i64,
            i64::from(p.count_ones()),
            ((u128::from(up) + u128::from(uq) + 1) >> 1) as i64,
            ((wp + wq) >> 1) as i64,
        ];
        for (j, (g, w)) in lo[14 * i..14 * i + 14].iter().zip(want).enumerate() {
            assert_eq!(*g, w, "long item {j} of ({p}, {q}, {r})");
        }
        let (ca, cb, cc) = (x as i8, y as i8, z as i8);
        let (ua8, ub8, uc8) = (x as u8, y as u8, z as u8);
        let want: [i8; 6] = [
            ca.saturating_add(cb),
            ca.saturating_sub(cb),
            (i32::from(ca) * i32::from(cb) + i32::from(cc)).clamp(-128, 127) as i8,
            (u32::from(ua8) * u32::from(ub8) + u32::from(uc8)).min(255) as u8 as i8,
            ua8.saturating_add(ub8) as i8,
            ua8.saturating_sub(ub8) as i8,
        ];
        assert_eq!(
            &co[6 * i..6 * i + 6],
            &want,
            "char items of ({x}, {y}, {z})"
        );
        let want = [
            ((i16::from(ca) << 8) | i16::from(ub8)),
            ((i32::from(x as i16) + i32::from(y as i16)) >> 1) as i16,
        ];
        assert_eq!(&so[2 * i..2 * i + 2], &want, "short items of ({x}, {y})");
    }
}

/// `got` within `ulps` units in the last place of `want` (at `want`'s magnitude, at least
/// the smallest normal's), or both NaN.
fn close32(got: f32, want: f64, ulps: f64, what: &str) {
    let ulp = (want.abs().max(f64::from(f32::MIN_POSITIVE))) * f64::from(f32::EPSILON);
    assert!(
        (f64::from(got) - want).abs() <= ulps * ulp
            || (got.is_nan() && want.is_nan())
            || got == want as f32,
        "{what}: {got:e} vs {want:e}"
    );
}

#[test]
fn geometric_common_and_shuffles() {
    let p = program("geometric");
    let n = 64usize;
    let f = |s: u64| ((s >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0) as f32;
    let mut a = mixed(4 * n, &[0.0f32, 1.0, -1.0, 0.5, 2.0, 1e-3, -1e3], f);
    let mut b = mixed(4 * n + 1, &[0.0f32, -0.5, 3.0, 1.5, 4.0, -2.0], f)[1..].to_vec();
    // One all-zero vector: normalize returns it unchanged.
    a[..4].copy_from_slice(&[0.0; 4]);
    let mut da: Vec<f64> = mixed(8 * n, &[0.0, 1.0, -1.0, 1e300, 3.5], |s| f(s) as f64 * 1.25);
    let mut o = vec![0f32; 40 * n];
    let mut dout = vec![0f64; 8 * n];
    run_1d(
        &p,
        "geometric",
        &[
            addr(&mut a),
            addr(&mut b),
            addr(&mut o),
            addr(&mut da),
            addr(&mut dout),
        ],
        n as u64,
        16,
    );
    let len = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let cross = |x: &[f64], y: &[f64]| {
        [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]
    };
    let cross_tol = |x: &[f64], y: &[f64]| {
        [
            (x[1] * y[2]).abs() + (x[2] * y[1]).abs(),
            (x[2] * y[0]).abs() + (x[0] * y[2]).abs(),
            (x[0] * y[1]).abs() + (x[1] * y[0]).abs(),
        ]
    };
    for i in 0..n {
        let x: Vec<f64> = a[4 * i..4 * i + 4].iter().map(|v| f64::from(*v)).collect();
        let y: Vec<f64> = b[4 * i..4 * i + 4].iter().map(|v| f64::from(*v)).collect();
        let r = &o[32 * i..32 * i + 32];
        let c = cross(&x, &y);
        let t = cross_tol(&x, &y);
        for k in 0..3 {
            for got in [r[k], r[4 + k]] {
                let e = 2.0 * t[k] * f64::from(f32::EPSILON);
                assert!(
                    (f64::from(got) - c[k]).abs() <= e,
                    "cross {k}: {got} vs {}",
                    c[k]
                );
            }
        }
        assert_eq!(r[3], 0.0);
        close32(r[7], len(&x), 3.0, "length4");
        close32(r[8], len(&x[..2]), 3.0, "length2");
        close32(r[9], x[0].abs(), 0.0, "length1");
        let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
        close32(r[10], len(&d), 4.0, "distance");
        close32(r[11], len(&x[..3]), 3.0, "fast_length");
        close32(r[12], (x[0] - y[0]).abs(), 1.0, "fast_distance1");
        let l = len(&x);
        for k in 0..4 {
            let want = if l == 0.0 { x[k] } else { x[k] / l };
            close32(r[13 + k], want, 4.0, "normalize");
        }
        let l2 = len(&y[2..]);
        for k in 0..2 {
            let want = if l2 == 0.0 { y[2 + k] } else { y[2 + k] / l2 };
            close32(r[17 + k], want, 4.0, "fast_normalize");
        }
        let ss = |e0: f64, e1: f64, v: f64| {
            let t = ((v - e0) / (e1 - e0)).clamp(0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        };
        for k in 0..4 {
            let got = f64::from(r[19 + k]);
            assert!(
                (got - ss(-1.0, 2.0, x[k])).abs() < 1e-6,
                "smoothstep {}",
                x[k]
            );
        }
        if y[0] != y[1] {
            let want = ss(y[0], y[1], x[2]);
            assert!(
                (f64::from(r[23]) - want).abs()
                    < 1e-5 * (1.0 + (x[2] - y[0]).abs() / (y[1] - y[0]).abs()),
                "smoothstep edges"
            );
        }
        for k in 0..4 {
            let want = a[4 * i + k].max(0.5) + b[4 * i + k].min(-0.25);
            assert_eq!(r[24 + k], want);
        }
        let m: Vec<usize> = (0..4)
            .map(|k| (b[4 * i + k] as i32 as u32 & 7) as usize)
            .collect();
        for k in 0..4 {
            assert_eq!(r[28 + k], a[4 * i + (m[k] & 3)], "shuffle");
        }
        let m2: Vec<usize> = m
            .iter()
            .copied()
            .chain(m.iter().rev().map(|v| v + 3))
            .collect();
        let both: Vec<f32> = a[4 * i..4 * i + 4]
            .iter()
            .chain(&b[4 * i..4 * i + 4])
            .copied()
            .collect();
        for k in 0..8 {
            assert_eq!(o[32 * n + 8 * i + k], both[m2[k] & 7], "shuffle2 {k}");
        }
        let dx = &da[8 * i..8 * i + 4];
        let dy = &da[8 * i + 4..8 * i + 8];
        let d = &dout[8 * i..8 * i + 8];
        let c = cross(dx, dy);
        let t = cross_tol(dx, dy);
        for k in 0..3 {
            let same = d[k] == c[k] || (d[k].is_nan() && c[k].is_nan());
            assert!(
                same || (d[k] - c[k]).abs() <= 2.0 * t[k] * f64::EPSILON,
                "double cross"
            );
        }
        assert_eq!(d[3], 0.0);
        let hyp = |v: &[f64]| v.iter().fold(0.0f64, |acc, x| acc.hypot(*x));
        let rel = |g: f64, w: f64| (g - w).abs() <= 4.0 * f64::EPSILON * w.abs();
        assert!(rel(d[4], hyp(dx)), "double length {} vs {}", d[4], hyp(dx));
        let dd: Vec<f64> = dx.iter().zip(dy).map(|(p, q)| p - q).collect();
        assert!(rel(d[5], hyp(&dd)), "double distance");
        let want = if hyp(dx) == 0.0 {
            dx[1]
        } else {
            dx[1] / hyp(dx)
        };
        assert!(rel(d[6], want), "double normalize");
        assert_eq!(d[7].to_bits(), 0x7ff8_0000_0000_0000, "nan(code)");
    }
}

/// The unbiased exponent of a finite nonzero float (subnormals included).
fn exponent32(x: f32) -> i32 {
    let b = x.abs().to_bits();
    let e = (b >> 23) as i32;
    if e == 0 {
        -127 - (b.leading_zeros() as i32 - 9)
    } else {
        e - 127
    }
}

fn next_after32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f32::from_bits(1).copysign(y);
    }
    let up = (y > x) == (x > 0.0);
    f32::from_bits(if up { x.to_bits() + 1 } else { x.to_bits() - 1 })
}

/// sin(pi x) and cos(pi x) exact at the multiples of 1/2.
fn sinpi_ref(x: f64) -> f64 {
    if (2.0 * x).fract() == 0.0 {
        let k = (2.0 * x).rem_euclid(4.0);
        return [0.0f64.copysign(x), 1.0, 0.0f64.copysign(-x), -1.0][k as usize];
    }
    (std::f64::consts::PI * x).sin()
}

fn cospi_ref(x: f64) -> f64 {
    if (2.0 * x).fract() == 0.0 {
        let k = (2.0 * x).rem_euclid(4.0);
        return [1.0, 0.0, -1.0, 0.0][k as usize];
    }
    (std::f64::consts::PI * x).cos()
}

#[test]
fn math_and_pointer_results() {
    let p = program("math3");
    let n = 128usize;
    let f = |s: u64| ((s >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0) as f32;
    let mut xs = mixed(
        n,
        &[
            0.0f32, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 2.0, 1e-40, -7.25, 9.5, 0.25, 1e-3, 6.0,
        ],
        f,
    );
    let mut ys = mixed(n + 3, &[1.0f32, -1.5, 0.75, 2.0, 3.0, -8.0, 1e-3], f)[3..].to_vec();
    for y in &mut ys {
        if *y == 0.0 {
            *y = 1.0;
        }
    }
    let mut ks = mixed(
        n,
        &[
            0i32,
            1,
            -1,
            3,
            -4,
            200,
            -200,
            1_000_000_000,
            -1_000_000_000,
            8,
            5,
        ],
        |s| (s >> 40) as i32 % 300,
    );
    let mut dx = mixed(n, &[0.0f64, -0.0, 1.0, -2.5, 1e300, 0.375, -1e-310], |s| {
        f64::from(f(s)) * 1.5
    });
    let mut o = vec![0f32; 40 * n];
    let mut io = vec![0i32; 8 * n];
    let mut dout = vec![0f64; 6 * n];
    run_1d(
        &p,
        "math3",
        &[
            addr(&mut xs),
            addr(&mut ys),
            addr(&mut ks),
            addr(&mut o),
            addr(&mut io),
            addr(&mut dx),
            addr(&mut dout),
        ],
        n as u64,
        32,
    );
    let pi = std::f64::consts::PI;
    for i in 0..n {
        let (x, y, k) = (xs[i], ys[i], ks[i]);
        let (xd, yd) = (f64::from(x), f64::from(y));
        let r = &o[40 * i..40 * i + 40];
        let q = &io[8 * i..8 * i + 8];
        let at = |what: &str| format!("{what}({x:e}, {y:e}, {k})");
        // (result, reference, ULPs allowed: OpenCL's limits for float)
        let checks: [(f32, f64, f64, &str); 14] = [
            (r[0], f64::from(x.abs() + 1.0).acosh(), 4.0, "acosh"),
            (r[1], xd.asinh(), 4.0, "asinh"),
            (r[2], (xd / 16.0).atanh(), 5.0, "atanh"),
            (r[3], (xd / 16.0).acos() / pi, 5.0, "acospi"),
            (r[4], (xd / 16.0).asin() / pi, 5.0, "asinpi"),
            (r[5], xd.atan() / pi, 5.0, "atanpi"),
            (r[6], xd.atan2(yd) / pi, 6.0, "atan2pi"),
            (r[7], cospi_ref(xd), 4.0, "cospi"),
            (r[8], sinpi_ref(xd), 4.0, "sinpi"),
            (r[10], libm::erf(xd), 16.0, "erf"),
            (r[11], libm::erfc(xd), 16.0, "erfc"),
            (r[12], libm::tgamma(xd), 16.0, "tgamma"),
            (r[13], libm::lgamma(xd), 16.0, "lgamma"),
            (r[27], xd.sin(), 4.0, "sincos.sin"),
        ];
        for (got, want, ulps, what) in checks {
            close32(got, want, ulps, &at(what));
        }
        let c = cospi_ref(xd);
        let tan = if c == 0.0 {
            f64::INFINITY.copysign(sinpi_ref(xd))
        } else {
            sinpi_ref(xd) / c
        };
        if tan.is_infinite() {
            assert!(r[9].is_infinite(), "{}", at("tanpi"));
        } else {
            close32(r[9], tan, 6.0, &at("tanpi"));
        }
        close32(r[28], xd.cos(), 4.0, &at("sincos.cos"));
        // Exact functions.
        let (want_logb, want_ilogb) = if x == 0.0 {
            (f32::NEG_INFINITY, i32::MIN)
        } else {
            (exponent32(x) as f32, exponent32(x))
        };
        assert_eq!(r[14], want_logb, "{}", at("logb"));
        assert_eq!(q[0], want_ilogb, "{}", at("ilogb"));
        assert_eq!(
            r[15],
            (xd * 2f64.powi(k.clamp(-400, 400))) as f32,
            "{}",
            at("ldexp")
        );
        close32(r[16], xd.powi(k % 9), 4.0, &at("pown"));
        let nr = k % 5;
        let root = if nr == 0 || (y < 0.0 && nr % 2 == 0) {
            f64::NAN
        } else {
            yd.abs().powf(1.0 / f64::from(nr)).copysign(yd)
        };
        close32(r[17], root, 4.0, &at("rootn"));
        assert_eq!(
            r[18].to_bits(),
            next_after32(x, y).to_bits(),
            "{}",
            at("nextafter")
        );
        assert_eq!(
            f64::from(r[19]),
            libm::remainder(xd, yd),
            "{}",
            at("remainder")
        );
        let fl = x.floor();
        assert_eq!(
            (r[20], r[21]),
            ((x - fl).min(1.0 - f32::EPSILON / 2.0), fl),
            "{}",
            at("fract")
        );
        let (m, e) = libm::frexp(xd);
        assert_eq!((f64::from(r[22]), q[1]), (m, e), "{}", at("frexp"));
        let (lg, sign) = libm::lgamma_r(xd);
        close32(r[23], lg, 16.0, &at("lgamma_r"));
        assert_eq!(q[2], sign, "{}", at("lgamma_r sign"));
        assert_eq!((r[24], r[25]), (x - x.trunc(), x.trunc()), "{}", at("modf"));
        let (rem, quo) = libm::remquo(xd, yd);
        assert_eq!(f64::from(r[26]), rem, "{}", at("remquo"));
        assert_eq!(
            q[3],
            quo.signum() * (quo.abs() & 0x7f),
            "{}",
            at("remquo quotient")
        );
        let v4 = [x, y, x + y, x * y];
        for j in 0..4 {
            close32(r[29 + j], f64::from(v4[j]).sin(), 4.0, &at("sincos4.sin"));
            close32(r[33 + j], f64::from(v4[j]).cos(), 4.0, &at("sincos4.cos"));
        }
        for (j, v) in [xd, yd].into_iter().enumerate() {
            let (m, e) = libm::frexp(v);
            assert_eq!((f64::from(r[37 + j]), q[4 + j]), (m, e), "{}", at("frexp2"));
        }
        assert_eq!(r[39], x - x.trunc(), "{}", at("modf2"));
        assert_eq!(
            (q[6], q[7]),
            (x.trunc() as i32, y.trunc() as i32),
            "{}",
            at("modf2 ip")
        );
        let v = dx[i];
        let d = &dout[6 * i..6 * i + 6];
        let near = |g: f64, w: f64, ulps: f64| {
            g == w
                || (g.is_nan() && w.is_nan())
                || (g - w).abs() <= ulps * f64::EPSILON * w.abs().max(f64::MIN_POSITIVE)
        };
        assert!(near(d[0], v.asinh(), 4.0), "double asinh({v:e}): {}", d[0]);
        let sp = sinpi_ref(v);
        assert!(
            near(d[1], sp, 4.0) || (d[1] - sp).abs() <= 4.0 * f64::EPSILON * v.abs(),
            "double sinpi({v:e})"
        );
        let fl = v.floor();
        let fr = if v.is_infinite() {
            0.0
        } else {
            (v - fl).min(1.0 - f64::EPSILON / 2.0)
        };
        assert_eq!((d[2], d[3]), (fr, fl), "double fract({v:e})");
        assert!(near(d[4], libm::erfc(v), 16.0), "double erfc({v:e})");
        assert_eq!(d[5], libm::remainder(v, 0.75), "double remainder({v:e})");
    }
}

#[test]
fn half_values() {
    let p = program("half");
    let n = 64usize;
    let table = halves_by_value();
    // Finite halves: edges (zeros, subnormals, the largest) and pseudo-random patterns.
    let pick = |s: u64| {
        let h = (s >> 20) as u16;
        if h & 0x7c00 == 0x7c00 {
            h & 0xbfff
        } else {
            h
        }
    };
    let mut a = mixed(
        2 * n,
        &[
            0x3c00u16, 0x8000, 0x0001, 0x7bff, 0xfbff, 0x3555, 0x0400, 0xc500,
        ],
        pick,
    );
    let mut b = mixed(
        n + 5,
        &[0x4000u16, 0xbc00, 0x3800, 0x0000, 0x5640, 0x1400],
        pick,
    )[5..]
        .to_vec();
    let mut x: Vec<f32> = mixed(
        n,
        &[1.000_488_3f32, 65519.0, 65520.0, -7e-8, 0.1, 3.0e-5, 1e9],
        |s| f32::from_bits((s >> 32) as u32 & 0x47ff_ffff | ((s as u32) & 0x8000_0000)).max(-1e5),
    );
    // 1 + 2^-11 + 2^-40: a float rounds it to the tie 1 + 2^-11 (then 1.0 as a half); the
    // double, rounded once, gives 1 + 2^-10.
    let mut d: Vec<f64> = mixed(
        n,
        &[1.0 + 2f64.powi(-11) + 2f64.powi(-40), -2.5e-8, 70000.0, 0.3],
        |s| f64::from((s >> 40) as i32) / 1e3,
    );
    let mut o = vec![0u16; 15 * n];
    let mut f = vec![0f32; 2 * n];
    let mut bits = vec![0u16; 2 * n];
    for (k, b) in bits[n..].iter_mut().enumerate() {
        *b = (k * 7) as u16;
    }
    run_1d(
        &p,
        "half_ops",
        &[
            addr(&mut a),
            addr(&mut b),
            addr(&mut o),
            addr(&mut f),
            addr(&mut x),
            addr(&mut d),
            addr(&mut bits),
        ],
        n as u64,
        16,
    );
    let hv = |h: u16| half_value(h);
    let same = |got: u16, want: u16, what: &str| {
        let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
        assert!(
            got == want || (nan(got) && nan(want)),
            "{what}: {got:#06x} vs {want:#06x}"
        );
    };
    let tbl = [1.5, -0.25, 65504.0, 0.000_061_035_156_25];
    for i in 0..n {
        let (pv, qv) = (hv(a[i]), hv(b[i]));
        let r = &o[15 * i..15 * i + 15];
        let rh = |v: f64| round_to_half(v, 0, &table);
        let at = |w: &str| format!("{w}({pv:e}, {qv:e})");
        same(r[0], rh(pv + qv), &at("add"));
        same(r[1], rh(pv - qv), &at("sub"));
        same(r[2], rh(pv * qv), &at("mul"));
        same(r[3], rh(pv / qv), &at("div"));
        same(r[4], a[i] ^ 0x8000, &at("neg"));
        same(r[5], rh(f64::from(x[i])), &format!("(half){:e}", x[i]));
        same(r[6], rh(d[i]), &format!("(half){:e}", d[i]));
        same(
            r[7],
            rh(f64::from((x[i] * 1000.0) as i32)),
            &format!("(half)(int){:e}", x[i]),
        );
        // p * t + q: exact then rounded, or (contracted to mad) the sum rounded to f32 first.
        let exact = pv * tbl[i % 4] + qv;
        let through_f32 = rh(f64::from(exact as f32));
        let want = rh(exact);
        assert!(r[8] == want || r[8] == through_f32, "{}", at("mad"));
        same(r[9], rh(hv(a[2 * i]) * qv), &at("vector mul"));
        same(r[10], rh(hv(a[2 * i + 1]) * 2.0), &at("vector mul 2"));
        same(r[11], if pv < qv { a[i] } else { b[i] }, &at("select"));
        same(r[12], rh(d[i]), &format!("convert_half2({:e})", d[i]));
        same(r[13], rh(-d[i]), &format!("convert_half2({:e})", -d[i]));
        assert_eq!(f[2 * i], pv as f32 * 3.0, "{}", at("to float"));
        assert_eq!(
            f64::from(f[2 * i + 1]),
            hv(rh(pv * qv)),
            "{}",
            at("product to float")
        );
        same(bits[i] ^ i as u16, rh(pv + qv), &at("as_ushort"));
        same(r[14], (i * 1000 + i * 7) as u16, "as_half");
    }
}

static PRINTED: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

fn collect(b: &[u8]) {
    PRINTED.lock().unwrap().extend_from_slice(b);
}

extern "C" {
    fn snprintf(
        buf: *mut std::ffi::c_char,
        n: usize,
        fmt: *const std::ffi::c_char,
        ...
    ) -> std::ffi::c_int;
}

/// The C library's formatting: the reference for the kernel's printf.
macro_rules! c_format {
    ($fmt:expr $(, $a:expr)*) => {{
        let mut buf = vec![0u8; 1024];
        let f = std::ffi::CString::new($fmt).unwrap();
        // SAFETY: the arguments match the format's conversions; the buffer is large enough
        // (snprintf truncates anyway).
        let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr() $(, $a)*) };
        buf.truncate(n as usize);
        String::from_utf8(buf).unwrap()
    }};
}

#[test]
fn printf_matches_the_c_library() {
    use std::ffi::{c_int, c_long, c_uint, c_ulong, CString};
    let p = program("printf");
    let n = 12usize;
    let mut a = mixed(n + 3, &[0, -1, 42, i32::MAX, i32::MIN, 7, -300, 255], |s| {
        (s >> 20) as i32
    });
    let mut f = mixed(
        n,
        &[
            0.0f32,
            -0.0,
            1.5,
            -2.25e-5,
            123456.79,
            1e30,
            0.1,
            f32::INFINITY,
            f32::NAN,
        ],
        |s| ((s >> 11) as f64 / (1u64 << 53) as f64 * 2e4 - 1e4) as f32,
    );
    PRINTED.lock().unwrap().clear();
    zekit_spirv::printf::set_sink(Some(collect));
    run_1d(&p, "printf_k", &[addr(&mut a), addr(&mut f)], n as u64, 4);
    zekit_spirv::printf::set_sink(None);
    let got = String::from_utf8(PRINTED.lock().unwrap().clone()).unwrap();
    let (s1, s2) = (CString::new("str").unwrap(), CString::new("abc").unwrap());
    let mut want = String::new();
    for i in 0..n {
        let (v, x) = (a[i], f64::from(f[i]));
        want += &c_format!(
            "item %d: [%5d|%-5d|%05d|%+d|%x|%#X|%o|%u|%.3d]\n",
            i as c_int,
            v,
            v,
            v,
            v,
            v,
            v,
            v,
            v as c_uint,
            v
        );
        want += &c_format!(
            "%f %.2f %e %.3E %g %G %10.4f %-12.1e| %+.0f %#.0e %g\n",
            x,
            x,
            x,
            x,
            x,
            x,
            x,
            x,
            x,
            x,
            f64::from(f[i] * 1e-6)
        );
        want += &c_format!(
            "%s %5.2s %c %ld %hd %hhd %lx %%\n",
            s1.as_ptr(),
            s2.as_ptr(),
            65 + i as c_int,
            c_long::from(v) * 100000,
            c_int::from(v as i16),
            c_int::from(v as i8),
            v as i64 as c_ulong
        );
        let v4: Vec<String> = a[i..i + 4].iter().map(|e| c_format!("%d", *e)).collect();
        want += &format!(
            "{}|{},{}|{},{}\n",
            v4.join(","),
            c_format!("%f", x),
            c_format!("%f", -x),
            c_format!("%#hhx", c_uint::from(v as u8)),
            c_format!("%#hhx", c_uint::from(i as u8))
        );
    }
    assert_eq!(got, want);
}
