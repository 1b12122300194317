//! Kernels with work-group barriers in lockstep (`lockstep_barriers.cl`): four work-items per
//! turn through each segment, values of earlier rounds from each lane's spill slot or computed
//! again, partial turns at the ends of rows, whole groups leaving early, and local atomics.
//! Each runs in lockstep and one work-item at a time, against a host reference.
#![cfg(feature = "jit")]

mod common;

use common::{addr, program, run_1d, run_1d_locals, run_2d_locals};
use zekit_spirv::jit::{self, Lockstep};

/// `lockstep_barriers.spv` under `policy`, and how many of its kernels run in lockstep.
fn build(policy: Lockstep) -> (zekit_spirv::Program, u64) {
    // Counts of the Cranelift tier's lockstep lowering.
    jit::set_tier(jit::Tier::Cranelift);
    jit::set_lockstep(policy);
    let before = jit::lockstep_kernels_on_this_thread();
    let p = program("lockstep_barriers");
    let n = jit::lockstep_kernels_on_this_thread() - before;
    jit::set_lockstep(Lockstep::Auto);
    (p, n)
}

#[test]
fn barrier_kernels_run_in_lockstep() {
    assert_eq!(build(Lockstep::Always).1, 4);
    assert_eq!(build(Lockstep::Never).1, 0);
    // The tree reduction pays for its code by default: the rounds' dispatch is per turn.
    jit::set_lockstep(Lockstep::Auto);
    let before = jit::lockstep_kernels_on_this_thread();
    let _ = program("tree_reduce");
    assert_eq!(jit::lockstep_kernels_on_this_thread() - before, 1);
    // Work-group collectives (a barrier, then the first work-item's loop over the group's
    // values, lane by lane): all five kernels of `groups.cl`. `scan.cl`'s work-items past the
    // end return before its barriers, so some lanes of a turn may not reach them: one
    // work-item at a time.
    for (name, n) in [("groups", 5), ("scan", 0)] {
        jit::set_lockstep(Lockstep::Always);
        let before = jit::lockstep_kernels_on_this_thread();
        let _ = program(name);
        let got = jit::lockstep_kernels_on_this_thread() - before;
        jit::set_lockstep(Lockstep::Auto);
        assert_eq!(got, n, "{name}");
    }
}

/// Runs `kernel(in, out, local int[local])` over `input` in groups of `local`; its `out`.
fn run_with_ring(p: &zekit_spirv::Program, kernel: &str, input: &[i32], local: u64) -> Vec<i32> {
    let mut out = vec![0i32; input.len()];
    run_1d_locals(
        p,
        kernel,
        &[input.as_ptr() as u64, addr(&mut out), 0],
        input.len() as u64,
        local,
        &[local as usize * 4],
    );
    out
}

#[test]
fn values_cross_barriers_per_lane() {
    for policy in [Lockstep::Always, Lockstep::Never] {
        let (p, _) = build(policy);
        for local in [1u64, 2, 3, 4, 5, 7, 8, 61] {
            let groups = 3;
            let n = (groups * local) as usize;
            let input: Vec<i32> = (0..n as i32).map(|i| i * 5 - 40).collect();
            let out = run_with_ring(&p, "lb_neighbour", &input, local);
            let l = local as usize;
            let x = |i: usize| input[i] * 3 + (i % l) as i32;
            for (i, got) in out.iter().enumerate() {
                let g = i / l * l;
                let want = x(i) * 100 + x(g + (i % l + 1) % l);
                assert_eq!(*got, want, "{policy:?}, local {local}, item {i}");
            }
        }
    }
}

#[test]
fn rows_and_loops_of_barriers() {
    for policy in [Lockstep::Always, Lockstep::Never] {
        let (p, _) = build(policy);
        for (w, h) in [(1u64, 3u64), (2, 2), (3, 5), (4, 2), (5, 3), (9, 2), (16, 4)] {
            for steps in [0i32, 1, 3] {
                let (gx, gy) = (2u64, 2u64);
                let per = (w * h) as usize;
                let mut out = vec![0i32; per * (gx * gy) as usize];
                run_2d_locals(
                    &p,
                    "lb_rows",
                    &[addr(&mut out), 0, steps as u32 as u64],
                    [w * gx, h * gy],
                    [w, h],
                    &[per * 4],
                );
                let (w, h) = (w as usize, h as usize);
                let v: Vec<i32> = (0..per)
                    .map(|me| if me % w % 2 == 1 { (me * 7) as i32 } else { -(me as i32) })
                    .collect();
                let mut tile = v.clone();
                for _ in 0..steps {
                    tile = (0..per)
                        .map(|me| {
                            let (x, y) = (me % w, me / w);
                            tile[((y + 1) % h) * w + (x + w - 1) % w] + v[me]
                        })
                        .collect();
                }
                for g in 0..(gx * gy) as usize {
                    assert_eq!(&out[g * per..(g + 1) * per], &tile[..], "{policy:?}, {w}x{h}, {steps} steps, group {g}");
                }
            }
        }
    }
}

#[test]
fn groups_leave_early_and_count_in_local_memory() {
    for policy in [Lockstep::Always, Lockstep::Never] {
        let (p, _) = build(policy);
        for local in [16u64, 17, 19, 32, 61] {
            let groups = 4u64;
            let n = (groups * local) as usize;
            let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
            let mut bins = vec![u32::MAX; groups as usize * 16];
            let skip = 2u64;
            run_1d(&p, "lb_hist", &[input.as_ptr() as u64, addr(&mut bins), skip], n as u64, local);
            for g in 0..groups as usize {
                let mut want = [0u32; 16];
                for v in &input[g * local as usize..(g + 1) * local as usize] {
                    want[(v & 15) as usize] += 1;
                }
                let got = &bins[g * 16..g * 16 + 16];
                if g as u64 == skip {
                    assert!(got.iter().all(|b| *b == u32::MAX), "{policy:?}, local {local}: group {g} left");
                } else {
                    assert_eq!(got, &want[..], "{policy:?}, local {local}, group {g}");
                }
            }
        }
    }
}

#[test]
fn tile_rows_and_columns_of_the_local_id() {
    for policy in [Lockstep::Always, Lockstep::Never] {
        let (p, _) = build(policy);
        for local in [1u64, 3, 5, 16, 61, 256] {
            let groups = 2;
            let n = (groups * local) as usize;
            let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - 300).collect();
            let out = run_with_ring(&p, "lb_tile", &input, local);
            let m = local as usize;
            for (i, got) in out.iter().enumerate() {
                let (g, l) = (i / m * m, i % m);
                let t = ((l & 15) * 16 + (l >> 4)) % m;
                let want = input[g + t] * 3 + (l >> 2) as i32 * 1000 + (l & 7) as i32 - (l & 0x3b) as i32;
                assert_eq!(*got, want, "{policy:?}, local {local}, item {i}");
            }
        }
    }
}
