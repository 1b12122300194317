//! Non-uniform sub-group operations (`OpGroupNonUniform*`, kernels `nonuniform.cl` and
//! `nonuniform_wg.cl`) and `half` arguments by value (`half_arg.cl`), run directly (without the
//! driver) against host references: every operation, reduce and scans, several input and
//! activity patterns (the whole sub-group, alternate work-items, one, none, pseudo-random), group
//! sizes that are not multiples of 8, at each sub-group size the device reports (8 and 16).
#![cfg(feature = "jit")]

mod common;
use common::*;

/// Group sizes run (1 to 64, most not multiples of 8).
const LOCALS: [usize; 6] = [1, 5, 8, 13, 20, 64];
/// Marks an output word the kernel did not write.
const UNSET: i32 = 0x5a5a_5a5a;

/// Which work-items take the first branch, by pattern.
fn activity(pattern: usize, n: usize) -> Vec<i32> {
    let mut s = 0x2545_f491u32;
    (0..n)
        .map(|i| {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
            i32::from(match pattern {
                0 => true,
                1 => i % 2 == 1,
                2 => i % 8 == 5,
                3 => i % 16 >= 8,
                _ => !(s >> 16).is_multiple_of(3),
            })
        })
        .collect()
}

/// Integer inputs by pattern (several equal values, zeros, negatives).
fn int_inputs(pattern: usize, n: usize) -> Vec<i32> {
    (0..n as i32)
        .map(|i| match pattern % 3 {
            0 => (i * 37 + 11) % 23 - 7,
            1 => 300 + i % 2,
            _ => (i * 7919) % 2001 - 1000,
        })
        .collect()
}

/// The sub-groups of a 1D launch with sub-groups of `size`: for each, the global ids of its
/// work-items in order.
fn sub_groups(n: usize, local: usize, size: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for g in (0..n).step_by(local) {
        for s in (0..local).step_by(size) {
            out.push((g + s..g + (s + size).min(local)).collect());
        }
    }
    out
}

/// `kernels/<name>.spv` compiled at each sub-group size the device reports, with the size.
fn programs(name: &str) -> Vec<(usize, zekit_spirv::Program)> {
    zekit_spirv::ir::SUB_GROUP_SIZES
        .iter()
        .map(|&s| (s as usize, program_with_sub_group_size(name, s)))
        .collect()
}

/// Folds `f` over `xs` in order; `None` when empty.
fn fold<T: Copy>(xs: &[T], f: &dyn Fn(T, T) -> T) -> Option<T> {
    let mut it = xs.iter().copied();
    let first = it.next()?;
    Some(it.fold(first, f))
}

/// Reduce, inclusive scan and exclusive scan at index `me` of the values of the active
/// work-items `act` (in sub-group order).
fn rie<T: Copy>(xs: &[T], act: &[bool], me: usize, f: &dyn Fn(T, T) -> T, id: T) -> [T; 3] {
    let pick = |upto: usize| -> Vec<T> {
        (0..upto.min(xs.len()))
            .filter(|&k| act[k])
            .map(|k| xs[k])
            .collect()
    };
    [
        fold(&pick(xs.len()), f).unwrap_or(id),
        fold(&pick(me + 1), f).unwrap_or(id),
        fold(&pick(me), f).unwrap_or(id),
    ]
}

/// The reduction over the active work-items of `me`'s cluster of `c`.
fn clustered<T: Copy>(xs: &[T], act: &[bool], me: usize, c: usize, f: &dyn Fn(T, T) -> T) -> T {
    let v: Vec<T> = (0..xs.len())
        .filter(|&k| act[k] && k / c == me / c)
        .map(|k| xs[k])
        .collect();
    fold(&v, f).expect("me is active")
}

/// Runs `kernel` of `nonuniform` over every activity and input pattern and group size, at
/// each sub-group size the device reports, with `words` output words of `T` per work-item, and
/// calls `check` per sub-group.
#[allow(clippy::type_complexity)]
fn each_run<T: Copy + Default>(
    kernel: &str,
    words: usize,
    fill: T,
    check: &dyn Fn(&[i32], &[bool], &[&[T]], &str),
) {
    for size in zekit_spirv::ir::SUB_GROUP_SIZES {
        let p = program_with_sub_group_size("nonuniform", size);
        each_run_at(&p, size as usize, kernel, words, fill, check);
    }
}

/// [`each_run`] at one sub-group size, `p` compiled for it.
#[allow(clippy::type_complexity)]
fn each_run_at<T: Copy + Default>(
    p: &zekit_spirv::Program,
    size: usize,
    kernel: &str,
    words: usize,
    fill: T,
    check: &dyn Fn(&[i32], &[bool], &[&[T]], &str),
) {
    for local in LOCALS {
        for pattern in 0..5 {
            let n = local * 3;
            let input = int_inputs(pattern, n);
            let act = activity(pattern, n);
            let mut out = vec![fill; words * n];
            run_1d(
                p,
                kernel,
                &[input.as_ptr() as u64, act.as_ptr() as u64, addr(&mut out)],
                n as u64,
                local as u64,
            );
            for sg in sub_groups(n, local, size) {
                let xs: Vec<i32> = sg.iter().map(|&i| input[i]).collect();
                let a: Vec<bool> = sg.iter().map(|&i| act[i] != 0).collect();
                let outs: Vec<&[T]> = sg
                    .iter()
                    .map(|&i| &out[words * i..words * (i + 1)])
                    .collect();
                let what = format!(
                    "{kernel}: sub-groups of {size}, local {local} pattern {pattern} items {sg:?}"
                );
                check(&xs, &a, &outs, &what);
            }
        }
    }
}

/// `Some(k)` when `k` is an active index of the sub-group.
fn active(act: &[bool], k: usize) -> Option<usize> {
    (k < act.len() && act[k]).then_some(k)
}

#[test]
fn votes_broadcasts_ballots_and_shuffles() {
    each_run::<i32>("nu_votes", 24, UNSET, &|xs, act, outs, what| {
        let size = xs.len();
        let inact: Vec<bool> = act.iter().map(|a| !a).collect();
        let first = act.iter().position(|a| *a);
        let first_in = inact.iter().position(|a| *a);
        let on: Vec<i32> = (0..size).filter(|&k| act[k]).map(|k| xs[k]).collect();
        let ballot: u32 = (0..size)
            .filter(|&k| act[k] && xs[k] > 2)
            .map(|k| 1 << k)
            .sum();
        for (me, o) in outs.iter().enumerate() {
            let what = format!("{what} me {me}");
            if !act[me] {
                assert_eq!(&o[..23], &[UNSET; 23], "{what}");
                let max = (0..size)
                    .filter(|&k| inact[k])
                    .map(|k| xs[k])
                    .max()
                    .unwrap();
                assert_eq!(o[23], max * 2 + i32::from(Some(me) == first_in), "{what}");
                continue;
            }
            assert_eq!(o[23], UNSET, "{what}");
            let x = xs[me];
            let low = |n: usize| ballot & ((1u32 << n) - 1);
            let mut want = vec![
                i32::from(Some(me) == first),
                i32::from(on.iter().all(|x| *x > 0)),
                i32::from(on.iter().any(|x| *x > 5)),
                i32::from(on.iter().all(|y| *y == on[0])),
                i32::from(on.iter().all(|y| *y / 100 == on[0] / 100)),
                UNSET,
                xs[first.unwrap()],
                ballot as i32,
                0,
                i32::from(x > 2),
                i32::from(active(act, 3).is_some_and(|k| xs[k] > 2)),
                ballot.count_ones() as i32,
                low(me + 1).count_ones() as i32,
                low(me).count_ones() as i32,
                ballot.trailing_zeros() as i32,
                31 - ballot.leading_zeros() as i32,
            ];
            // Reads of inactive or missing work-items are undefined: not compared.
            let read = |k: Option<usize>| k.and_then(|k| active(act, k)).map_or(UNSET, |k| xs[k]);
            want[5] = read(Some(2));
            want.push(read(Some((me * 3 + 1) % size)));
            want.push(read(Some(me ^ 1)));
            want.push(read(me.checked_sub(1)));
            want.push(read(Some(me + 2)));
            want.push(i32::from(on.iter().all(|y| *y / 100 == on[0] / 100)));
            want.push(read(Some(1)) as i8 as i32);
            want.push(2 + ((0xA5 >> me) & 1));
            for (k, w) in want.iter().enumerate() {
                let unset =
                    matches!(k, 5 | 16..=19) && *w == UNSET || k == 21 && active(act, 1).is_none();
                if !unset {
                    assert_eq!(o[k], *w, "{what} word {k}");
                }
            }
        }
    });
}

#[test]
fn integer_reductions_scans_and_clusters() {
    type F = fn(i32, i32) -> i32;
    let ops: [(F, i32); 10] = [
        (i32::wrapping_add, 0),
        (i32::wrapping_mul, 1),
        (i32::min, i32::MAX),
        (i32::max, i32::MIN),
        (|a, b| a & b, -1),
        (|a, b| a | b, 0),
        (|a, b| a ^ b, 0),
        (|a, b| a & b, 1),
        (|a, b| a | b, 0),
        (|a, b| a ^ b, 0),
    ];
    each_run::<i32>("nu_arith_int", 44, UNSET, &|xs, act, outs, what| {
        let logical: Vec<i32> = xs.iter().map(|x| i32::from(*x != 0)).collect();
        let inact: Vec<bool> = act.iter().map(|a| !a).collect();
        let doubled: Vec<i32> = xs.iter().map(|x| x * 2).collect();
        for (me, o) in outs.iter().enumerate() {
            let what = format!("{what} me {me}");
            if !act[me] {
                assert_eq!(&o[..43], &[UNSET; 43], "{what}");
                let r = rie(&doubled, &inact, me, &|a, b| a + b, 0);
                assert_eq!(o[43], r[1], "{what}");
                continue;
            }
            let mut want = Vec::new();
            for (j, (f, id)) in ops.iter().enumerate() {
                let vals = if j >= 7 { &logical } else { xs };
                want.extend(rie(vals, act, me, f, *id));
            }
            let c = |v: &[i32], c: usize, f: F| clustered(v, act, me, c, &f);
            want.extend([
                c(xs, 1, ops[0].0),
                c(xs, 2, ops[0].0),
                c(xs, 4, ops[0].0),
                c(xs, 8, ops[0].0),
                c(xs, 2, ops[1].0),
                c(xs, 4, ops[2].0),
                c(xs, 2, ops[3].0),
                c(xs, 8, ops[4].0),
                c(xs, 4, ops[5].0),
                c(xs, 2, ops[6].0),
                c(&logical, 4, ops[7].0),
                c(&logical, 2, ops[8].0),
                c(&logical, 8, ops[9].0),
                UNSET,
            ]);
            assert_eq!(&o[..], &want[..], "{what}");
        }
    });
}

#[test]
fn unsigned_long_short_and_char_operations() {
    each_run::<i64>("nu_arith_wide", 20, i64::MIN, &|xs, act, outs, what| {
        let u: Vec<u32> = xs.iter().map(|x| *x as u32).collect();
        let l: Vec<i64> = xs.iter().map(|x| i64::from(*x) * 1_000_000_007).collect();
        let c: Vec<i8> = xs.iter().map(|x| *x as i8).collect();
        let s: Vec<i16> = xs.iter().map(|x| x.wrapping_mul(300) as i16).collect();
        let uc: Vec<u8> = xs.iter().map(|x| *x as u8).collect();
        let on: Vec<i8> = (0..xs.len())
            .filter(|&k| act[k])
            .map(|k| (xs[k] / 100) as i8)
            .collect();
        for (me, o) in outs.iter().enumerate() {
            let what = format!("{what} me {me}");
            if !act[me] {
                assert_eq!(&o[..], &[i64::MIN; 20], "{what}");
                continue;
            }
            let umin = rie(&u, act, me, &u32::min, u32::MAX);
            let umax = rie(&u, act, me, &u32::max, 0);
            let add = rie(&l, act, me, &i64::wrapping_add, 0);
            let mut want: Vec<i64> = umin.iter().chain(&umax).map(|v| i64::from(*v)).collect();
            want.extend(add);
            want.push(rie(&l, act, me, &i64::min, i64::MAX)[0]);
            want.push(rie(&l, act, me, &i64::max, i64::MIN)[2]);
            let lu: Vec<u64> = l.iter().map(|v| *v as u64).collect();
            want.push(rie(&lu, act, me, &u64::max, 0)[0] as i64);
            want.push(i64::from(rie(&c, act, me, &i8::wrapping_add, 0)[1]));
            want.push(i64::from(rie(&s, act, me, &i16::min, i16::MAX)[0]));
            want.push(i64::from(rie(&uc, act, me, &u8::min, u8::MAX)[2]));
            want.push(clustered(&lu, act, me, 4, &u64::max) as i64);
            want.push(active(act, 0).map_or(i64::MIN, |k| l[k]));
            let x2 = active(act, me ^ 2).map_or(i64::MIN, |k| i64::from(xs[k] as u16));
            want.push(x2);
            want.push(i64::from(on.iter().all(|v| *v == on[0])));
            want.push(active(act, 1).map_or(i64::MIN, |k| l[k]));
            for (k, w) in want.iter().enumerate() {
                if *w != i64::MIN || !matches!(k, 16 | 17 | 19) {
                    assert_eq!(o[k], *w, "{what} word {k}");
                }
            }
        }
    });
}

#[test]
fn vector_operands_element_by_element() {
    each_run::<i32>("nu_vectors", 8, UNSET, &|xs, act, outs, what| {
        let x3: Vec<i32> = xs.iter().map(|x| x * 3).collect();
        let on: Vec<i32> = (0..xs.len()).filter(|&k| act[k]).map(|k| xs[k]).collect();
        for (me, o) in outs.iter().enumerate() {
            let what = format!("{what} me {me}");
            if !act[me] {
                assert_eq!(o, &[UNSET; 8], "{what}");
                continue;
            }
            let add = |v: &[i32]| rie(v, act, me, &|a, b| a + b, 0)[1];
            assert_eq!(&o[..2], &[add(xs), add(&x3)], "{what}");
            if let Some(k) = active(act, me ^ 1) {
                assert_eq!(&o[2..6], &[xs[k], 1, 2, -xs[k]], "{what}");
            }
            let eq = on
                .iter()
                .all(|y| y / 100 == on[0] / 100 && y / 1000 == on[0] / 1000);
            assert_eq!(o[6], i32::from(eq), "{what}");
        }
    });
}

/// `x` rounded to the nearest half (ties to even; normal range only).
fn to_half(x: f64) -> f64 {
    if x == 0.0 {
        return x;
    }
    let e = x.abs().log2().floor().max(-14.0);
    let ulp = 2f64.powf(e - 10.0);
    (x / ulp).round_ties_even() * ulp
}

#[test]
fn float_double_and_half_operations() {
    for (size, p) in programs("nonuniform") {
        for local in LOCALS {
            for pattern in 0..5 {
                let n = local * 3;
                let input: Vec<f32> = int_inputs(pattern, n)
                    .iter()
                    .map(|x| (x % 13) as f32 * 0.37 + 0.11)
                    .collect();
                let act = activity(pattern, n);
                let mut out = vec![f64::NAN; 24 * n];
                run_1d(
                    &p,
                    "nu_arith_float",
                    &[input.as_ptr() as u64, act.as_ptr() as u64, addr(&mut out)],
                    n as u64,
                    local as u64,
                );
                for sg in sub_groups(n, local, size) {
                    let xs: Vec<f32> = sg.iter().map(|&i| input[i]).collect();
                    let a: Vec<bool> = sg.iter().map(|&i| act[i] != 0).collect();
                    let d: Vec<f64> = xs.iter().map(|x| f64::from(*x) / 3.0).collect();
                    let h: Vec<f64> = xs.iter().map(|x| to_half(f64::from(*x))).collect();
                    let hadd = |a: f64, b: f64| to_half(a + b);
                    let hmul = |a: f64, b: f64| to_half(a * b);
                    for (me, &i) in sg.iter().enumerate() {
                        let o = &out[24 * i..24 * i + 24];
                        let what = format!(
                            "sub-groups of {size}, local {local} pattern {pattern} item {i}"
                        );
                        if !a[me] {
                            assert!(o.iter().all(|v| v.is_nan()), "{what}");
                            continue;
                        }
                        let mut want: Vec<f64> = Vec::new();
                        for (f, id) in [
                            (&(|a: f32, b: f32| a + b) as &dyn Fn(f32, f32) -> f32, 0.0),
                            (&|a, b| a * b, 1.0),
                            (&f32::min, f32::INFINITY),
                            (&f32::max, f32::NEG_INFINITY),
                        ] {
                            want.extend(rie(&xs, &a, me, f, id).map(f64::from));
                        }
                        want.push(f64::from(clustered(&xs, &a, me, 4, &|a, b| a + b)));
                        let dadd = rie(&d, &a, me, &|a, b| a + b, 0.0);
                        want.extend(&dadd[..2]);
                        want.push(rie(&d, &a, me, &f64::max, f64::NEG_INFINITY)[2]);
                        want.extend(rie(&h, &a, me, &hadd, 0.0));
                        want.push(rie(&h, &a, me, &hmul, 1.0)[1]);
                        want.push(rie(&h, &a, me, &f64::min, f64::INFINITY)[0]);
                        let read = |k: Option<usize>, v: &[f64]| {
                            k.and_then(|k| active(&a, k)).map_or(f64::NAN, |k| v[k])
                        };
                        let xd: Vec<f64> = xs.iter().map(|x| f64::from(*x)).collect();
                        want.push(read(Some(me + 1), &xd));
                        want.push(d[a.iter().position(|x| *x).unwrap()]);
                        want.push(read(me.checked_sub(3), &h));
                        for (k, w) in want.iter().enumerate() {
                            if !w.is_nan() {
                                assert_eq!(o[k], *w, "{what} word {k}");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn work_items_leaving_a_loop_at_different_iterations() {
    for (size, p) in programs("nonuniform") {
        for local in LOCALS {
            for pattern in 0..3 {
                let n = local * 4;
                let input: Vec<i32> = int_inputs(pattern, n)
                    .iter()
                    .map(|x| x.rem_euclid(6))
                    .collect();
                let mut out = vec![UNSET; n];
                run_1d(
                    &p,
                    "nu_loop",
                    &[input.as_ptr() as u64, addr(&mut out)],
                    n as u64,
                    local as u64,
                );
                for sg in sub_groups(n, local, size) {
                    for (me, &i) in sg.iter().enumerate() {
                        let mut s = 0;
                        for j in 0..input[i] {
                            let on: Vec<usize> =
                                (0..sg.len()).filter(|&k| input[sg[k]] > j).collect();
                            s += (j + 1) * on.len() as i32 * (j + 1) + i32::from(on[0] == me);
                        }
                        assert_eq!(out[i], s, "local {local} pattern {pattern} item {i}");
                    }
                }
            }
        }
    }
}

#[test]
fn diverged_work_items_come_together_at_the_next_operation() {
    for (size, p) in programs("nonuniform") {
        for local in LOCALS {
            for pattern in 0..3 {
                let n = local * 3;
                let input = int_inputs(pattern, n);
                let mut out = vec![UNSET; 6 * n];
                run_1d(
                    &p,
                    "nu_reconverge",
                    &[input.as_ptr() as u64, addr(&mut out)],
                    n as u64,
                    local as u64,
                );
                for sg in sub_groups(n, local, size) {
                    let xs: Vec<i32> = sg.iter().map(|&i| input[i]).collect();
                    let odd: i32 = xs.iter().filter(|x| *x & 1 != 0).sum();
                    for (me, &i) in sg.iter().enumerate() {
                        let x = xs[me];
                        let mut d = 0;
                        for j in 0..x & 3 {
                            let before = (0..=me).filter(|&k| xs[k] & 3 > j).count() as i32;
                            d += (j + 1) * before;
                        }
                        let branch = |k: &usize| (xs[*k] & 2) == (x & 2);
                        let first = (0..xs.len()).find(branch).unwrap();
                        let f = if x & 2 != 0 {
                            i32::from(first == me)
                        } else {
                            100 * xs[first]
                        };
                        let want = [
                            if x & 1 != 0 { odd } else { 0 },
                            xs.iter().sum(),
                            *xs.iter().max().unwrap(),
                            d,
                            *xs.iter().min().unwrap(),
                            f,
                        ];
                        let what = format!(
                            "sub-groups of {size}, local {local} pattern {pattern} item {i}"
                        );
                        assert_eq!(&out[6 * i..6 * i + 6], &want, "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn divergent_exchange_then_work_group_barrier() {
    for (size, p) in programs("nonuniform") {
        for local in LOCALS {
            for pattern in 0..3 {
                let n = local * 3;
                let input = int_inputs(pattern + 2, n);
                let mut out = vec![UNSET; n];
                run_1d(
                    &p,
                    "nu_then_barrier",
                    &[input.as_ptr() as u64, addr(&mut out)],
                    n as u64,
                    local as u64,
                );
                let mut x = input.clone();
                for sg in sub_groups(n, local, size) {
                    let odd: i32 = sg.iter().map(|&i| input[i]).filter(|v| v & 1 != 0).sum();
                    for &i in &sg {
                        if input[i] & 1 != 0 {
                            x[i] = odd;
                        }
                    }
                }
                for (i, o) in out.iter().enumerate() {
                    let (g, l) = (i / local, i % local);
                    let want = x[g * local + (l + 9) % local];
                    assert_eq!(*o, want, "local {local} pattern {pattern} item {i}");
                }
            }
        }
    }
}

#[test]
fn sub_groups_taking_different_paths_through_collectives() {
    for (size, p) in programs("nonuniform") {
        for local in LOCALS {
            let n = local * 3;
            let input = int_inputs(0, n);
            let mut out = vec![UNSET; n];
            run_1d(
                &p,
                "sub_groups_apart",
                &[input.as_ptr() as u64, addr(&mut out)],
                n as u64,
                local as u64,
            );
            let mut x = input.clone();
            for sg in sub_groups(n, local, size) {
                if (sg[0] % local / size) % 2 == 0 {
                    let sum: i32 = sg.iter().map(|&i| input[i]).sum();
                    for (me, &i) in sg.iter().enumerate() {
                        x[i] = sum + sum + me as i32;
                    }
                }
            }
            for (i, o) in out.iter().enumerate() {
                let (g, l) = (i / local, i % local);
                assert_eq!(*o, x[g * local + (l + 8) % local], "local {local} item {i}");
            }
        }
    }
}

#[test]
fn work_group_scope() {
    let p = program("nonuniform_wg");
    for local in LOCALS {
        let n = local * 3;
        let input = int_inputs(2, n);
        let mut out = vec![UNSET; 3 * n];
        run_1d(
            &p,
            "nu_work_group",
            &[input.as_ptr() as u64, addr(&mut out)],
            n as u64,
            local as u64,
        );
        for (g, xs) in input.chunks(local).enumerate() {
            let all = vec![true; local];
            let max = xs
                .iter()
                .map(|x| *x as f32)
                .fold(f32::NEG_INFINITY, f32::max);
            let u: Vec<u32> = xs.iter().map(|x| *x as u32).collect();
            for me in 0..local {
                let i = g * local + me;
                let want = [
                    rie(xs, &all, me, &|a, b| a + b, 0)[1],
                    max as i32,
                    rie(&u, &all, me, &u32::min, u32::MAX)[2] as i32,
                ];
                assert_eq!(&out[3 * i..3 * i + 3], &want, "local {local} item {i}");
            }
        }
    }
}

#[test]
fn work_group_scope_without_a_twin_is_refused() {
    let path = format!("{}/kernels/nonuniform_wg.spv", env!("CARGO_MANIFEST_DIR"));
    let mut words: Vec<u32> = std::fs::read(path)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // OpGroupNonUniformIAdd (6 words) becomes OpGroupNonUniformBallotBitCount, which has no
    // OpGroup* (or KHR uniform) twin at Workgroup scope.
    let at = words.iter().position(|w| *w == (6 << 16 | 349)).unwrap();
    words[at] = 6 << 16 | 342;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let e = zekit_spirv::compile(&bytes, &Default::default()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("OpGroupNonUniformBallotBitCount in Workgroup scope"),
        "{msg}"
    );
}

/// IEEE half bits of a float that is a half exactly.
fn half_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x == 0.0 {
        return sign;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "{x} is a normal half");
    sign | ((e as u16) << 10) | ((b >> 13) & 0x3ff) as u16
}

#[test]
fn half_arguments_by_value() {
    let p = program("half_arg");
    let k = p.kernel("half_args").unwrap();
    let sizes: Vec<u32> = k.info.args.iter().map(|a| a.size).collect();
    assert_eq!(sizes, [8, 2, 4, 4, 8, 8, 16, 32, 2]);
    let v: Vec<f32> = (0..32).map(|j| (j as f32 - 11.0) * 0.375).collect();
    let (s, f, after) = (1.5f32, 2.25f32, -7i16);
    let mut out = vec![f32::NAN; 40 * 4];
    let mut block = vec![0u8; k.info.args_size as usize];
    let mut put = |idx: usize, bytes: &[u8]| {
        let o = k.info.args[idx].offset as usize;
        block[o..o + bytes.len()].copy_from_slice(bytes);
    };
    let halves = |xs: &[f32]| -> Vec<u8> {
        xs.iter()
            .flat_map(|x| half_bits(*x).to_le_bytes())
            .collect()
    };
    put(0, &addr(&mut out).to_le_bytes());
    put(1, &halves(&[s]));
    put(2, &halves(&v[0..2]));
    put(3, &f.to_le_bytes());
    put(4, &halves(&v[2..6]));
    put(5, &halves(&v[6..10]));
    put(6, &halves(&v[10..18]));
    put(7, &halves(&v[16..32]));
    put(8, &after.to_le_bytes());
    // The argument block holds every argument at its offset; `out` has the 40 floats per
    // work-item the kernel writes.
    run_groups(k, &block, [4, 1], [4, 1], false);
    for i in 0..4 {
        let o = &out[40 * i..40 * i + 40];
        let mut want = vec![s, to_half(f64::from(s) * i as f64 + f64::from(v[1])) as f32];
        want.extend(&v[0..2]);
        want.push(f);
        want.extend(&v[2..5]);
        want.extend(&v[6..10]);
        want.extend(&v[10..18]);
        want.extend(&v[16..32]);
        want.push(f32::from(after));
        want.push(to_half(f64::from(v[9]) * f64::from(v[9])) as f32);
        assert_eq!(&o[..38], &want[..], "item {i}");
    }
}
