//! Atomics (integer, float, flags; global and local memory), work-group collectives and
//! sub-groups, run directly (without the driver) against host references.
#![cfg(feature = "jit")]

use std::collections::HashMap;

use zekit_spirv::compile;

mod common;
use common::*;

#[test]
fn histogram_with_local_atomics() {
    let p = program("atomics");
    let (global, local) = (256u64, 64u64);
    let input: Vec<u32> = (0..global as u32).map(|i| (i * 37 + 11) % 97).collect();
    let mut bins = vec![0u32; 16];
    let mut stats = vec![0i64, i64::MAX, i64::MIN, -1];
    run_1d(
        &p,
        "histogram",
        &[input.as_ptr() as u64, addr(&mut bins), addr(&mut stats)],
        global,
        local,
    );
    let mut want = vec![0u32; 16];
    let mut ws = [0i64, i64::MAX, -i64::MAX, -1];
    for &v in &input {
        want[(v % 16) as usize] += 1;
        let w = i64::from(v) * 1_000_000_007 - 5_000_000_000;
        ws[0] += w;
        ws[1] = ws[1].min(w);
        ws[2] = ws[2].max(w);
        ws[3] &= !(1i64 << (v % 64));
    }
    assert_eq!(bins, want);
    assert_eq!(stats, ws);
}

#[test]
fn c11_atomics_with_orders_and_scopes() {
    let p = program("atomics");
    let n = 100usize;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 29) % 71 - 20).collect();
    let mut ai = vec![0i32, 0, i32::MAX, i32::MIN, 0, -1, 0];
    let mut au = vec![0u32, 0, u32::MAX, u32::MAX, 0];
    let mut al = vec![0i64, i64::MAX];
    let mut aul = vec![0u64, 0];
    let mut old = vec![0i32; n];
    run_1d(
        &p,
        "c11",
        &[
            input.as_ptr() as u64,
            addr(&mut ai),
            addr(&mut au),
            addr(&mut al),
            addr(&mut aul),
            addr(&mut old),
        ],
        n as u64,
        10,
    );
    let mut want_u = [0u32, 0, u32::MAX, u32::MAX, 0];
    let (mut al0, mut al1, mut aul0, mut aul1) = (0i64, i64::MAX, 0u64, 0u64);
    for &v in &input {
        want_u[0] |= 1 << (v & 31);
        want_u[1] ^= v as u32;
        want_u[2] &= !(1 << (v & 31));
        want_u[3] = want_u[3].min(v as u32);
        want_u[4] = want_u[4].max(v as u32);
        al0 += i64::from(v) << 33;
        al1 = al1.min(i64::from(v) * -3);
        aul0 |= 1 << (v & 63);
        aul1 = aul1.max((v as i64 as u64) << 40);
    }
    let sum: i32 = input.iter().sum();
    assert_eq!(
        ai,
        [
            sum,
            -sum,
            *input.iter().min().unwrap(),
            *input.iter().max().unwrap(),
            n as i32,
            n as i32 - 1,
            42
        ]
    );
    assert_eq!(au, want_u);
    assert_eq!(al, [al0, al1]);
    assert_eq!(aul, [aul0, aul1]);
    // Run sequentially, each exchange sees the previous work-item's index.
    let want_old: Vec<i32> = (-1..n as i32 - 1).collect();
    assert_eq!(old, want_old);
}

#[test]
fn float_atomics_add_min_max() {
    let p = program("atomics");
    let (global, local) = (96u64, 32u64);
    let input: Vec<f32> = (0..global)
        .map(|i| ((i * 13) % 41) as f32 * 0.25 - 3.0)
        .collect();
    let mut f = vec![0.0f32, f32::INFINITY, f32::NEG_INFINITY, 0.0];
    let mut d = vec![1.0f64, f64::INFINITY, f64::NEG_INFINITY];
    let mut out = vec![0.0f32; (global / local + global) as usize];
    run_1d(
        &p,
        "float_atomics",
        &[
            input.as_ptr() as u64,
            addr(&mut f),
            addr(&mut d),
            addr(&mut out),
        ],
        global,
        local,
    );
    let sum: f32 = input.iter().sum();
    let min = input.iter().copied().fold(f32::INFINITY, f32::min);
    let max = input.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(f, [sum, min, max, input[global as usize - 1]]);
    assert_eq!(
        d,
        [1.0 + 2.0 * f64::from(sum), f64::from(min), f64::from(max)]
    );
    for g in 0..(global / local) as usize {
        let s: f32 = input[g * local as usize..(g + 1) * local as usize]
            .iter()
            .sum();
        assert_eq!(out[g], s, "group {g}");
    }
    let groups = (global / local) as usize;
    assert_eq!(out[groups], 0.0);
    assert_eq!(&out[groups + 1..], &input[..global as usize - 1]);
}

#[test]
fn atomic_flags() {
    let p = program("atomics");
    let mut flag = vec![0i32];
    let mut winners = vec![0i32];
    let mut cleared = vec![1i32; 40];
    run_1d(
        &p,
        "flags",
        &[addr(&mut flag), addr(&mut winners), addr(&mut cleared)],
        40,
        8,
    );
    assert_eq!((flag[0] != 0, winners[0]), (true, 1));
    assert_eq!(cleared, vec![0; 40]);
}

/// Reduction, inclusive and exclusive scans of `xs` in order.
fn scans<T: Copy>(xs: &[T], f: impl Fn(T, T) -> T, id: T) -> (T, Vec<T>, Vec<T>) {
    let (mut acc, mut inc, mut exc) = (id, Vec::new(), Vec::new());
    for (k, &x) in xs.iter().enumerate() {
        exc.push(acc);
        acc = if k == 0 { x } else { f(acc, x) };
        inc.push(acc);
    }
    (acc, inc, exc)
}

#[test]
fn work_group_collectives_on_ints() {
    let p = program("groups");
    assert!(p.kernel("wg_int").unwrap().info.barriers);
    for local in [1usize, 3, 7, 32, 64, 256] {
        let n = local * 3;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 101 - 30).collect();
        let mut out = vec![0i32; 12 * n];
        run_1d(
            &p,
            "wg_int",
            &[input.as_ptr() as u64, addr(&mut out)],
            n as u64,
            local as u64,
        );
        for (g, xs) in input.chunks(local).enumerate() {
            let add = scans(xs, |a, b| a + b, 0);
            let min = scans(xs, i32::min, i32::MAX);
            let max = scans(xs, i32::max, i32::MIN);
            for (l, x) in xs.iter().enumerate() {
                let want = [
                    add.0,
                    add.1[l],
                    add.2[l],
                    min.0,
                    min.1[l],
                    min.2[l],
                    max.0,
                    max.1[l],
                    max.2[l],
                    xs[local / 3],
                    xs.iter().all(|x| *x > -40) as i32,
                    xs.contains(&13) as i32,
                ];
                let i = g * local + l;
                assert_eq!(
                    &out[12 * i..12 * i + 12],
                    &want,
                    "local {local} item {i} (x {x})"
                );
            }
        }
    }
}

#[test]
fn work_group_collectives_on_unsigned_and_64_bit() {
    let p = program("groups");
    for local in [1usize, 5, 16, 100] {
        let n = local * 2;
        let input: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let mut out = vec![0u64; 9 * n];
        run_1d(
            &p,
            "wg_uint_long",
            &[input.as_ptr() as u64, addr(&mut out)],
            n as u64,
            local as u64,
        );
        for (g, xs) in input.chunks(local).enumerate() {
            let ys: Vec<i64> = xs
                .iter()
                .enumerate()
                .map(|(l, &x)| {
                    i64::from(x) * 3_000_000_000 - (g * local + l) as i64 * 7_000_000_000
                })
                .collect();
            let umin = scans(xs, u32::min, u32::MAX);
            let umax = scans(xs, u32::max, 0);
            let add = scans(&ys, |a, b| a.wrapping_add(b), 0);
            let smin = scans(&ys, i64::min, i64::MAX);
            let umax64 = ys.iter().map(|y| *y as u64).max().unwrap();
            for l in 0..local {
                let want = [
                    u64::from(umin.0),
                    u64::from(umax.1[l]),
                    u64::from(umin.2[l]),
                    u64::from(umax.2[l]),
                    add.0 as u64,
                    add.2[l] as u64,
                    smin.1[l] as u64,
                    umax64,
                    ys[0] as u64,
                ];
                let i = g * local + l;
                assert_eq!(&out[9 * i..9 * i + 9], &want, "local {local} item {i}");
            }
        }
    }
}

#[test]
fn work_group_collectives_on_floats() {
    let p = program("groups");
    for local in [1usize, 6, 64, 129] {
        let n = local * 2;
        let input: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 / 7.0 - 50.0)
            .collect();
        let mut out = vec![0f64; 9 * n];
        run_1d(
            &p,
            "wg_float",
            &[input.as_ptr() as u64, addr(&mut out)],
            n as u64,
            local as u64,
        );
        for (g, xs) in input.chunks(local).enumerate() {
            let ds: Vec<f64> = xs.iter().map(|x| f64::from(*x) * 1.5).collect();
            let add = scans(xs, |a, b| a + b, 0.0);
            let min = scans(xs, f32::min, f32::INFINITY);
            let max = scans(xs, f32::max, f32::NEG_INFINITY);
            let dmax = scans(&ds, f64::max, f64::NEG_INFINITY);
            let dadd = scans(&ds, |a, b| a + b, 0.0);
            for l in 0..local {
                let want = [
                    f64::from(reduce4(xs, |a, b| a + b)),
                    f64::from(add.1[l]),
                    f64::from(add.2[l]),
                    f64::from(min.0),
                    f64::from(min.2[l]),
                    f64::from(max.1[l]),
                    dmax.2[l],
                    dadd.1[l],
                    ds[local - 1],
                ];
                let i = g * local + l;
                assert_eq!(&out[9 * i..9 * i + 9], &want, "local {local} item {i}");
            }
        }
    }
}

#[test]
fn work_group_collectives_in_2d_groups_and_loops() {
    let p = program("groups");
    for (lx, ly) in [(1usize, 1usize), (4, 3), (8, 8), (3, 16)] {
        let (gx, gy) = (lx * 2, ly * 3);
        let input: Vec<i32> = (0..(gx * gy) as i32).map(|i| (i * 53) % 97).collect();
        let mut out = vec![0i32; 4 * gx * gy];
        run_2d(
            &p,
            "wg_2d",
            &[input.as_ptr() as u64, addr(&mut out)],
            [gx as u64, gy as u64],
            [lx as u64, ly as u64],
        );
        for (bx, by) in (0..2).flat_map(|x| (0..3).map(move |y| (x, y))) {
            // The group's values in linear order (x fastest).
            let idx: Vec<usize> = (0..ly)
                .flat_map(|y| (0..lx).map(move |x| (by * ly + y) * gx + bx * lx + x))
                .collect();
            let xs: Vec<i32> = idx.iter().map(|&i| input[i]).collect();
            let add = scans(&xs, |a, b| a + b, 0);
            let bcast = xs[(ly - 1) * lx + 1.min(lx - 1)];
            let max = *xs.iter().max().unwrap();
            for (l, &i) in idx.iter().enumerate() {
                let want = [add.1[l], bcast, max, l as i32];
                assert_eq!(&out[4 * i..4 * i + 4], &want, "group {lx}x{ly} item {i}");
            }
        }
    }
    for local in [1usize, 9, 64] {
        let n = local * 2;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 11 % 29).collect();
        let mut out = vec![0i32; n];
        run_1d(
            &p,
            "wg_loop",
            &[input.as_ptr() as u64, addr(&mut out), 5],
            n as u64,
            local as u64,
        );
        for (g, xs) in input.chunks(local).enumerate() {
            let mut xs = xs.to_vec();
            for r in 0..5 {
                xs = scans(&xs, |a, b| a + b, 0)
                    .2
                    .iter()
                    .map(|e| e % 1000 + r)
                    .collect();
            }
            assert_eq!(&out[g * local..(g + 1) * local], &xs[..], "local {local}");
        }
    }
}

#[test]
fn sub_groups_of_8_and_16() {
    for size in zekit_spirv::ir::SUB_GROUP_SIZES.map(|s| s as usize) {
        let p = program_with_sub_group_size("subgroups", size as u32);
        for local in [1usize, 5, 8, 20, 64] {
            let n = local * 3;
            let input: Vec<i32> = (0..n as i32).map(|i| (i * 13) % 17 - 3).collect();
            let mut out = vec![0i32; 14 * n];
            run_1d(
                &p,
                "subgroups",
                &[input.as_ptr() as u64, addr(&mut out)],
                n as u64,
                local as u64,
            );
            for (g, group) in input.chunks(local).enumerate() {
                let num = local.div_ceil(size);
                for (sg, xs) in group.chunks(size).enumerate() {
                    let add = scans(xs, |a, b| a + b, 0);
                    let min = scans(xs, i32::min, i32::MAX);
                    let umax = scans(
                        &xs.iter().map(|x| *x as i64 as u64).collect::<Vec<_>>(),
                        u64::max,
                        0,
                    );
                    for (l, _) in xs.iter().enumerate() {
                        let want = [
                            xs.len() as i32,
                            local.min(size) as i32,
                            num as i32,
                            sg as i32,
                            l as i32,
                            num as i32,
                            add.0,
                            min.1[l],
                            add.2[l],
                            *xs.iter().max().unwrap(),
                            xs[1.min(xs.len() - 1)],
                            xs.contains(&5) as i32,
                            xs.iter().all(|x| *x >= 0) as i32,
                            umax.2[l] as i32,
                        ];
                        let i = g * local + sg * size + l;
                        assert_eq!(
                            &out[14 * i..14 * i + 14],
                            &want,
                            "sub-groups of {size}, local {local} item {i}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn sub_group_shuffles() {
    for size in zekit_spirv::ir::SUB_GROUP_SIZES.map(|s| s as usize) {
        let p = program_with_sub_group_size("subgroups", size as u32);
        for local in [size, 3 * size, 64] {
            let n = local * 2;
            let input: Vec<i32> = (0..n as i32).map(|i| (i * 29) % 31 - 9).collect();
            for c in 0..8usize {
                let mut out = vec![0i64; 4 * n];
                run_1d(
                    &p,
                    "shuffles",
                    &[input.as_ptr() as u64, addr(&mut out), c as u64],
                    n as u64,
                    local as u64,
                );
                for (s, xs) in input.chunks(size).enumerate() {
                    for l in 0..size {
                        let down = if l + c < size {
                            xs[l + c] as f32
                        } else {
                            xs[l + c - size] as f32 + 0.5
                        };
                        let up = if c <= l {
                            i64::from(xs[l - c]) * 1000
                        } else {
                            i64::from(xs[l + size - c])
                        };
                        let want = [
                            i64::from(xs[c]),
                            down as i64,
                            up,
                            i64::from(xs[l ^ c] as u32),
                        ];
                        let i = s * size + l;
                        assert_eq!(
                            &out[4 * i..4 * i + 4],
                            &want,
                            "sub-groups of {size}, local {local} c {c} item {i}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn required_sub_group_sizes_of_8_and_16_run_others_are_refused() {
    let p = program("subgroups");
    let mut out = vec![0i32; 12];
    run_1d(&p, "reqd_sub_group", &[addr(&mut out)], 12, 12);
    let want: Vec<i32> = (0..12)
        .map(|i| if i < 8 { 800 + i } else { 400 + i - 8 })
        .collect();
    assert_eq!(out, want);
    assert_eq!(
        p.kernel("reqd_sub_group").unwrap().info.reqd_sub_group_size,
        Some(8)
    );
    // The same module asking for sub-groups of 16 (OpExecutionMode %k SubgroupSize 16): one
    // sub-group of 12 here, and two of 16 and 4 in a group of 20.
    let spv = std::fs::read(format!(
        "{}/kernels/subgroups.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let p = program_with_sub_group_size("subgroups", 16);
    let k = p.kernel("reqd_sub_group").unwrap();
    assert_eq!(k.info.reqd_sub_group_size, Some(16));
    assert_eq!(k.info.sub_group_size(), 16);
    run_1d(&p, "reqd_sub_group", &[addr(&mut out)], 12, 12);
    assert_eq!(out, (0..12).map(|i| 1200 + i).collect::<Vec<_>>());
    let mut out = vec![0i32; 40];
    run_1d(&p, "reqd_sub_group", &[addr(&mut out)], 40, 20);
    let want: Vec<i32> = (0..40)
        .map(|i| match i % 20 {
            l if l < 16 => 1600 + l,
            l => 400 + l - 16,
        })
        .collect();
    assert_eq!(out, want);
    for size in [4, 32] {
        let Err(e) = compile(&with_sub_group_size(&spv, size), &HashMap::new()) else {
            panic!("a required sub-group size of {size} must be refused")
        };
        let said = format!("required sub-group size of {size}");
        assert!(e.to_string().contains(&said), "{e}");
    }
}

/// `async_work_group_copy` and `async_work_group_strided_copy` both ways with
/// `wait_group_events`: against the host, for group sizes that do and do not divide evenly
/// among the work-items' shares.
#[test]
fn async_work_group_copies() {
    let p = program("async_copy");
    for local in [1u64, 3, 8, 64] {
        let groups = 5u64;
        let items = (groups * local) as usize;
        let input: Vec<f32> = (0..4 * items).map(|i| i as f32 * 0.5 - 7.0).collect();
        // Row r, column g at r * groups + g.
        let strided: Vec<i32> = (0..items as i32).map(|i| i * 7 - 100).collect();
        let mut out = vec![f32::NAN; items];
        let mut sout = vec![i32::MIN; items];
        run_1d(
            &p,
            "async_copy",
            &[
                input.as_ptr() as u64,
                out.as_mut_ptr() as u64,
                strided.as_ptr() as u64,
                sout.as_mut_ptr() as u64,
            ],
            items as u64,
            local,
        );
        let (l_, g_) = (local as usize, groups as usize);
        for g in 0..g_ {
            for l in 0..l_ {
                let t = &input[4 * (g * l_ + l_ - 1 - l)..][..4];
                let want = t[0] + t[1] * 2.0 + t[2] * 3.0 + t[3] * 4.0;
                assert_eq!(out[g * l_ + l], want, "local {local} group {g} item {l}");
                let at = l * g_ + g;
                assert_eq!(
                    sout[at],
                    strided[at] * 2 + l as i32,
                    "local {local} group {g} row {l}"
                );
            }
        }
    }
}
