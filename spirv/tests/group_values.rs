//! Kernels with barriers whose spilled values every work-item computes alike
//! (`kernels/group_values.cl`), on Cranelift and, when it is built in, on the LLVM tier, which
//! keeps such values once per group and vectorizes the segments' own loops
//! (`backend/llvm/rounds.rs`). Group sizes leave partial vectors.

mod common;

use common::{addr, program, run_1d_locals};
use zekit_spirv::jit::{self, Tier};

/// The tiers this build has.
fn tiers() -> Vec<Tier> {
    let mut t = vec![Tier::Cranelift];
    if jit::HAS_LLVM {
        t.push(Tier::Llvm);
    }
    t
}

/// What `gv_tree` leaves in each group: its values summed as the tree adds them.
fn tree(xs: &[f32]) -> f32 {
    let mut v = xs.to_vec();
    let mut s = 1;
    while s < v.len() {
        for l in (0..v.len()).step_by(2 * s) {
            if l + s < v.len() {
                v[l] += v[l + s];
            }
        }
        s *= 2;
    }
    v[0]
}

#[test]
fn a_tree_sum_with_the_step_kept_once_per_group_is_right() {
    for tier in tiers() {
        jit::set_tier(tier);
        let before = jit::llvm_group_values_on_this_thread();
        let p = program("group_values");
        if tier == Tier::Llvm {
            // `s` at least, in `gv_tree`.
            assert!(jit::llvm_group_values_on_this_thread() > before, "no value kept per group");
        }
        for local in [1u64, 2, 3, 7, 16, 17, 33, 64, 100, 256] {
            let n = (local * 3) as usize;
            let mut a: Vec<f32> = (0..n).map(|i| (i % 13) as f32 * 0.5 + 1.0).collect();
            let mut o = vec![f32::NAN; n];
            run_1d_locals(&p, "gv_tree", &[addr(&mut a), addr(&mut o), 0], n as u64, local, &[local as usize * 4]);
            for (g, chunk) in a.chunks(local as usize).enumerate() {
                let sum = tree(chunk);
                for l in 0..local as usize {
                    let i = g * local as usize + l;
                    assert_eq!(o[i], sum + l as f32, "{tier:?}, local {local}, [{i}]");
                }
            }
        }
    }
}

#[test]
fn a_value_alike_in_every_work_item_used_again_without_a_barrier_stays_per_work_item() {
    for tier in tiers() {
        jit::set_tier(tier);
        let p = program("group_values");
        for local in [1u64, 5, 16, 19, 64] {
            let n = (local * 2) as usize;
            let mut o = vec![0i32; n];
            let k = 7i32;
            let trips = 6;
            let args = [addr(&mut o), 0, k as u64, trips as u64];
            run_1d_locals(&p, "gv_odd_barrier", &args, n as u64, local, &[local as usize * 4]);
            for (i, got) in o.iter().enumerate() {
                let l = i % local as usize;
                let next = ((l + 1) % local as usize) as i32;
                let (mut u, mut acc) = (k, 0i32);
                for it in 0..trips {
                    acc = acc.wrapping_add(u.wrapping_mul(next));
                    u = u.wrapping_mul(3).wrapping_add(it);
                }
                assert_eq!(*got, acc, "{tier:?}, local {local}, [{i}]");
            }
        }
    }
}

#[test]
fn collectives_whose_first_work_item_combines_are_right() {
    for tier in tiers() {
        jit::set_tier(tier);
        let p = program("group_values");
        for local in [1u64, 2, 7, 16, 17, 33, 100, 256] {
            let groups = 3usize;
            let n = local as usize * groups;
            let mut a: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 101 - 50).collect();
            let mut o = vec![0i32; n];
            let mut f = vec![-1i32; groups];
            common::run_1d(&p, "gv_collectives", &[addr(&mut a), addr(&mut o), addr(&mut f)], n as u64, local);
            for (g, chunk) in a.chunks(local as usize).enumerate() {
                let m = *chunk.iter().max().unwrap();
                let mut s = 0;
                for (l, x) in chunk.iter().enumerate() {
                    s += x;
                    let i = g * local as usize + l;
                    assert_eq!(o[i], s * 3 + m, "{tier:?}, local {local}, [{i}]");
                }
                assert_eq!(f[g], chunk[0] + m, "{tier:?}, local {local}, group {g}");
            }
        }
    }
}
