//! Atomics (integer, float, flags; global and local memory), work-group collectives and
//! sub-groups, run directly (without the driver) against host references.
#![cfg(feature = "jit")]

use std::collections::HashMap;
use zekit_spirv::{compile, GroupCtx, Program};

fn program(name: &str) -> Program {
    let spv = std::fs::read(format!("{}/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR"))).unwrap();
    compile(&spv, &HashMap::new()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs every group of a 1D launch sequentially; `args` are 8-byte words (no local arguments).
fn run_1d(p: &Program, kernel: &str, args: &[u64], global: u64, local: u64) {
    let k = p.kernel(kernel).unwrap();
    let mut block = vec![0u64; (k.info.args_size as usize).div_ceil(8) + 1];
    for (a, v) in k.info.args.iter().zip(args) {
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

fn ptr<T>(v: &mut [T]) -> u64 {
    v.as_mut_ptr() as u64
}

#[test]
fn histogram_with_local_atomics() {
    let p = program("atomics");
    let (global, local) = (256u64, 64u64);
    let input: Vec<u32> = (0..global as u32).map(|i| (i * 37 + 11) % 97).collect();
    let mut bins = vec![0u32; 16];
    let mut stats = vec![0i64, i64::MAX, i64::MIN, -1];
    run_1d(&p, "histogram", &[input.as_ptr() as u64, ptr(&mut bins), ptr(&mut stats)], global, local);
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
        &[input.as_ptr() as u64, ptr(&mut ai), ptr(&mut au), ptr(&mut al), ptr(&mut aul), ptr(&mut old)],
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
        [sum, -sum, *input.iter().min().unwrap(), *input.iter().max().unwrap(), n as i32, n as i32 - 1, 42]
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
    let input: Vec<f32> = (0..global).map(|i| ((i * 13) % 41) as f32 * 0.25 - 3.0).collect();
    let mut f = vec![0.0f32, f32::INFINITY, f32::NEG_INFINITY, 0.0];
    let mut d = vec![1.0f64, f64::INFINITY, f64::NEG_INFINITY];
    let mut out = vec![0.0f32; (global / local + global) as usize];
    run_1d(&p, "float_atomics", &[input.as_ptr() as u64, ptr(&mut f), ptr(&mut d), ptr(&mut out)], global, local);
    let sum: f32 = input.iter().sum();
    let min = input.iter().copied().fold(f32::INFINITY, f32::min);
    let max = input.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(f, [sum, min, max, input[global as usize - 1]]);
    assert_eq!(d, [1.0 + 2.0 * f64::from(sum), f64::from(min), f64::from(max)]);
    for g in 0..(global / local) as usize {
        let s: f32 = input[g * local as usize..(g + 1) * local as usize].iter().sum();
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
    run_1d(&p, "flags", &[ptr(&mut flag), ptr(&mut winners), ptr(&mut cleared)], 40, 8);
    assert_eq!((flag[0] != 0, winners[0]), (true, 1));
    assert_eq!(cleared, vec![0; 40]);
}
