//! Kernels the backend runs four work-items at a time (`jit_vec.rs`), against host references,
//! with group sizes that leave a partial last iteration in each row (1, 3, 5, 7, ...).
#![cfg(feature = "jit")]

mod common;

use common::{addr, ls_loop_expected, program, run_1d, run_1d_streaming, run_2d};
use zekit_spirv::jit::{self, Lockstep};

/// The kernels of `lockstep.cl`, in lockstep whenever they allow it (some would not pay for
/// their code under the default policy).
fn lockstep_program() -> zekit_spirv::Program {
    jit::set_lockstep(Lockstep::Always);
    program("lockstep")
}

/// Group sizes: below, at and between multiples of the four lanes.
const LOCALS: [u64; 8] = [1, 2, 3, 4, 5, 7, 8, 61];

fn ulps(a: f32, b: f32) -> u32 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

/// How many kernels of `kernels/<name>.spv` run in lockstep under `policy`.
fn in_lockstep(name: &str, policy: Lockstep) -> u64 {
    // Counts of the Cranelift tier's lockstep lowering.
    jit::set_tier(jit::Tier::Cranelift);
    jit::set_lockstep(policy);
    let before = jit::lockstep_kernels_on_this_thread();
    let _ = program(name);
    jit::lockstep_kernels_on_this_thread() - before
}

#[test]
fn which_kernels_run_in_lockstep() {
    // All can (`ls_divergent_loop` runs its divergent loop lane by lane).
    assert_eq!(in_lockstep("lockstep", Lockstep::Always), 11);
    assert_eq!(in_lockstep("lockstep", Lockstep::Never), 0);
    // Barriers that every lane of a turn reaches (`lockstep_barriers.rs` has more).
    assert_eq!(in_lockstep("reduce", Lockstep::Always), 1);
    // By default: the kernels that gain (SIMD arithmetic, vector and record accesses)...
    for (name, n) in [("bench/flops", 4), ("bench/copy4", 1), ("vector_add", 1), ("saxpy", 1)] {
        assert_eq!(in_lockstep(name, Lockstep::Auto), n, "{name}");
    }
    // ... but not those whose work is per lane anyway (math through calls).
    assert_eq!(in_lockstep("math", Lockstep::Always), 1);
    assert_eq!(in_lockstep("math", Lockstep::Auto), 0);
}

#[test]
fn affine_vector_accesses() {
    let p = lockstep_program();
    for local in LOCALS {
        let n = (local * 6) as usize;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.37 - 3.0).collect();
        let b: Vec<i32> = (0..n).map(|i| (i as i32 * 7919) ^ 0x1234).collect();
        let (mut a2, mut b2) = (a.clone(), b.clone());
        let mut fo = vec![f32::NAN; n + 4];
        let mut io = vec![-1i32; n + 4];
        let (s, k) = (1.5f32, 13i32);
        run_1d(
            &p,
            "ls_affine",
            &[addr(&mut a2), addr(&mut b2), addr(&mut fo), addr(&mut io), u64::from(s.to_bits()), k as u32 as u64],
            n as u64,
            local,
        );
        for i in 0..n {
            let x = a[i];
            let want = x.mul_add(s, x * x) - x / (s + 1.0) + x.abs().sqrt();
            assert!(ulps(fo[i], want) <= 1, "local {local} [{i}]: {} vs {want}", fo[i]);
            let y = b[i];
            let want = (y.wrapping_mul(k).wrapping_add(7)) ^ (y & 0x5a) | y.wrapping_sub(k);
            assert_eq!(io[i], want, "local {local} [{i}]");
        }
        // Nothing written past the launch.
        assert!(fo[n..].iter().all(|v| v.is_nan()) && io[n..].iter().all(|v| *v == -1));
    }
}

#[test]
fn gathers_and_scatters() {
    let p = lockstep_program();
    for local in LOCALS {
        let n = (local * 5) as usize;
        let mut a: Vec<f32> = (0..2 * n).map(|i| (i * i) as f32).collect();
        let mut o = vec![0f32; n];
        run_1d(&p, "ls_gather", &[addr(&mut a), addr(&mut o), n as u64], n as u64, local);
        for i in 0..n {
            assert_eq!(o[n - 1 - i], a[2 * i] + a[2 * i + 1], "local {local} [{i}]");
        }
    }
}

#[test]
fn uniform_loops_with_varying_values() {
    let p = lockstep_program();
    let iters = 37;
    for local in LOCALS {
        let n = (local * 3) as usize;
        let mut fo = vec![0f32; n];
        let mut lo = vec![0i64; n];
        let mut d = vec![0f64; n];
        run_1d(&p, "ls_loop", &[addr(&mut fo), addr(&mut lo), addr(&mut d), iters], n as u64, local);
        for i in 0..n {
            let (f, l, x) = ls_loop_expected(i, iters);
            assert_eq!(fo[i], f, "local {local} [{i}]");
            assert_eq!(lo[i], l, "local {local} [{i}]");
            assert_eq!(d[i], x, "local {local} [{i}]");
        }
    }
}

#[test]
fn ids_per_lane_in_two_dimensions() {
    let p = lockstep_program();
    for (lx, ly) in [(5u64, 3u64), (4, 2), (1, 4), (9, 1), (3, 3)] {
        let (gx, gy) = (lx * 2, ly * 3);
        let mut o = vec![u32::MAX; (gx * gy * 6) as usize];
        run_2d(&p, "ls_ids", &[addr(&mut o)], [gx, gy], [lx, ly]);
        for y in 0..gy {
            for x in 0..gx {
                let w = (y * gx + x) as usize;
                let (li, lj) = (x % lx, y % ly);
                let lin = lj * lx + li;
                let want = [li, lj, lin, lin % 8, lin / 8, y].map(|v| v as u32);
                assert_eq!(o[w * 6..w * 6 + 6], want, "group {lx}x{ly}, item ({x}, {y})");
            }
        }
    }
}

#[test]
fn atomics_per_lane_and_a_uniform_switch() {
    let p = lockstep_program();
    for local in LOCALS {
        for (mode, v) in [(0u64, 1i32), (1, 2), (9, 5)] {
            let n = (local * 4) as usize;
            let mut counter = vec![0i32; 1];
            let mut slots = vec![-1i32; n];
            run_1d(&p, "ls_atomics", &[addr(&mut counter), addr(&mut slots), mode], n as u64, local);
            assert_eq!(counter[0], v * n as i32);
            let mut olds = slots.clone();
            olds.sort();
            assert_eq!(olds, (0..n as i32).map(|i| i * v).collect::<Vec<_>>(), "local {local}");
        }
    }
}

#[test]
fn per_lane_math_and_selects() {
    let p = lockstep_program();
    for local in LOCALS {
        let n = (local * 4) as usize;
        let mut a: Vec<f32> = (0..n).map(|i| i as f32 / n as f32).collect();
        a[0] = 0.25;
        let mut o = vec![0f32; n];
        run_1d(&p, "ls_math", &[addr(&mut a), addr(&mut o)], n as u64, local);
        for i in 0..n {
            let x = a[i];
            let y = if x > 0.5 { (x as f64).sin() as f32 } else { (x as f64).exp() as f32 };
            let want = y.min(0.75) + if x == 0.25 { 100.0 } else { 0.0 };
            assert!(ulps(o[i], want) <= 2, "local {local} [{i}]: {} vs {want}", o[i]);
        }
    }
}

#[test]
fn whole_records_per_lane() {
    let p = lockstep_program();
    for local in LOCALS {
        let n = (local * 3) as usize;
        let mut a: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.5 - 7.0).collect();
        let mut b: Vec<i32> = (0..4 * n).map(|i| (i as i32 * 37) % 101 - 50).collect();
        // One record more than the launch covers: it must stay untouched.
        let mut copy = vec![f32::NAN; 4 * n + 4];
        let mut scaled = vec![f32::NAN; 4 * n + 4];
        let mut sum = vec![i32::MIN; n + 1];
        run_1d(
            &p,
            "ls_records",
            &[addr(&mut a), addr(&mut copy), addr(&mut scaled), addr(&mut b), addr(&mut sum)],
            n as u64,
            local,
        );
        assert_eq!(copy[..4 * n], a[..], "local {local}");
        for i in 0..4 * n {
            assert_eq!(scaled[i], a[i] * 2.0 + (i % 4 + 1) as f32, "local {local} [{i}]");
        }
        for i in 0..n {
            let w = &b[4 * i..4 * i + 4];
            assert_eq!(sum[i], w[0] + w[1] * 2 + w[2] * 3 + w[3] * 4, "local {local} [{i}]");
        }
        assert!(copy[4 * n..].iter().chain(&scaled[4 * n..]).all(|v| v.is_nan()));
        assert_eq!(sum[n], i32::MIN);
    }
}

#[test]
fn divergent_branches_and_returns() {
    let p = lockstep_program();
    let iters = 3;
    for local in LOCALS {
        // Work-items past `n` return at once; `n` is not a multiple of four.
        let total = (local * 5) as usize;
        let n = total - (total / 3).min(total - 1);
        let mut a: Vec<f32> = (0..total).map(|i| ((i * 7919) % 41) as f32 - 20.0).collect();
        let mut o = vec![f32::NAN; total];
        let mut count = vec![0i32];
        let mut flag = vec![0i32];
        run_1d(
            &p,
            "ls_diverge",
            &[addr(&mut a), addr(&mut o), addr(&mut count), addr(&mut flag), n as u64, iters],
            total as u64,
            local,
        );
        let mut want_count = 0;
        for i in 0..total {
            if i >= n {
                assert!(o[i].is_nan(), "local {local} [{i}] written");
                continue;
            }
            let x = a[i];
            let mut acc = 0f32;
            for j in 0..iters {
                if x > 0.0 {
                    acc += x.sqrt() * j as f32;
                    if x > 10.0 {
                        want_count += 1;
                    }
                } else {
                    acc -= x;
                }
            }
            let want = if x < -5.0 { -1.0 } else { acc };
            assert_eq!(o[i], want, "local {local} [{i}]");
        }
        assert_eq!(count[0], want_count, "local {local}");
        assert_eq!(flag[0], if n > 5 { 7 } else { 0 }, "local {local}");
    }
    // Counts of the Cranelift tier's lockstep lowering.
    jit::set_tier(jit::Tier::Cranelift);
    let before = jit::lockstep_kernels_on_this_thread();
    let _ = program("saxpy");
    assert_eq!(jit::lockstep_kernels_on_this_thread() - before, 1, "saxpy's bound check diverges");
}

#[test]
fn divergent_loops_run_one_work_item_at_a_time() {
    let p = lockstep_program();
    for local in [1u64, 3, 8] {
        let n = (local * 4) as usize;
        let mut o = vec![0i32; n];
        run_1d(&p, "ls_divergent_loop", &[addr(&mut o)], n as u64, local);
        for (i, v) in o.iter().enumerate() {
            let want = (0..i as i32).fold(0i32, |s, j| s.wrapping_mul(31).wrapping_add(j));
            assert_eq!(*v, want);
        }
    }
}

#[test]
fn int_and_uint_indices() {
    let p = lockstep_program();
    for local in LOCALS {
        let n = (local * 5) as usize;
        let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
        let mut b: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let mut o = vec![f32::NAN; n + 4];
        let mut u = vec![7u32; n + 4];
        run_1d(
            &p,
            "ls_int_index",
            &[addr(&mut a), addr(&mut o), addr(&mut b), addr(&mut u)],
            n as u64,
            local,
        );
        for i in 0..n {
            assert_eq!(o[i], a[i] * 2.0 + 1.0, "local {local} [{i}]");
            assert_eq!(u[i], b[i] ^ (i as u32 * 3), "local {local} [{i}]");
        }
        assert!(o[n..].iter().all(|v| v.is_nan()) && u[n..].iter().all(|v| *v == 7));
    }
    // By default too: the accesses are vector accesses.
    assert!(in_lockstep("lockstep", Lockstep::Auto) >= 1);
}

/// `ls_stream` with and without the launch asking for non-temporal stores, at a 16-byte aligned
/// output (the shims' `movntps`) and one 4 bytes off it (their plain stores): the same bytes as
/// the host's, and the stores of the last, partial turn of each row stay masked.
#[test]
fn streaming_record_stores() {
    let p = lockstep_program();
    for local in LOCALS {
        for (off, streaming) in [(0, true), (1, true), (0, false), (1, false)] {
            let n = (local * 6) as usize;
            let mut a: Vec<f32> = (0..4 * n).map(|i| (i as f32 * 1.37) - 50.0).collect();
            // 16-byte aligned storage; `off` words in.
            let mut f = vec![[f32::NAN; 4]; n + 2];
            let mut m = vec![[i32::MIN; 4]; n + 2];
            let fo = addr(&mut f) + 4 * off;
            let mo = addr(&mut m) + 4 * off;
            assert_eq!(addr(&mut f) % 16, 0);
            let args = [addr(&mut a), fo, mo, 3];
            if streaming {
                run_1d_streaming(&p, "ls_stream", &args, n as u64, local);
            } else {
                run_1d(&p, "ls_stream", &args, n as u64, local);
            }
            let fw: Vec<f32> = f.iter().flatten().copied().collect();
            let mw: Vec<i32> = m.iter().flatten().copied().collect();
            let o = off as usize;
            for i in 0..4 * n {
                let what = format!("local {local} off {off} streaming {streaming} [{i}]");
                assert_eq!(fw[o + i].to_bits(), (a[i] * 0.5 - 1.0).to_bits(), "{what}");
                assert_eq!(mw[o + i], (a[i] as i32) * 3 + (i % 4 + 1) as i32, "{what}");
            }
            assert!(fw[..o].iter().chain(&fw[o + 4 * n..]).all(|v| v.is_nan()));
            assert!(mw[..o].iter().chain(&mw[o + 4 * n..]).all(|v| *v == i32::MIN));
        }
    }
}

/// The record stores of `ls_stream` (addresses from the global id) can stream; those at
/// addresses from the local id cannot (every group writes the same bytes), nor those of a
/// kernel with atomics.
#[test]
fn which_record_stores_can_stream() {
    // The Cranelift tier's streaming shims.
    jit::set_tier(jit::Tier::Cranelift);
    let p = lockstep_program();
    let bytes = p.native_binary().unwrap();
    let has = |name: &[u8]| bytes.windows(name.len()).any(|w| w == name);
    let x86 = cfg!(target_arch = "x86_64");
    assert_eq!(has(b"zekit_stream_f32x4"), x86);
    assert_eq!(has(b"zekit_stream_i32x4"), x86);
    jit::set_lockstep(Lockstep::Always);
    let copy4 = program("bench/copy4").native_binary().unwrap();
    assert_eq!(copy4.windows(18).any(|w| w == b"zekit_stream_f32x4"), x86);
    assert_eq!(in_lockstep("lockstep_nostream", Lockstep::Always), 2);
    let none = program("lockstep_nostream").native_binary().unwrap();
    assert!(!none.windows(12).any(|w| w == b"zekit_stream"));
}

#[test]
fn record_stores_that_cannot_stream_are_right() {
    jit::set_lockstep(Lockstep::Always);
    let p2 = program("lockstep_nostream");
    for local in [4u64, 5] {
        let n = (local * 3) as usize;
        let mut a: Vec<f32> = (0..4 * n).map(|i| i as f32).collect();
        let mut o = vec![f32::NAN; 4 * n];
        let mut done = vec![0i32];
        run_1d_streaming(&p2, "ns_atomic", &[addr(&mut a), addr(&mut o), addr(&mut done)], n as u64, local);
        assert_eq!(o, a, "local {local}");
        assert_eq!(done[0], n as i32);
        let mut o = vec![f32::NAN; 4 * local as usize];
        run_1d_streaming(&p2, "ns_local", &[addr(&mut a), addr(&mut o)], n as u64, local);
        // The last group's records.
        assert_eq!(o[..], a[4 * (n - local as usize)..], "local {local}");
    }
}
