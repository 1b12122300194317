//! SPIR-V kernels through the CPU driver, in process through the generated C entry points:
//! test kernels of `spirv/kernels` against a reference computed here, via a queue and both
//! kinds of immediate list (launches and modules: `kernel_launches.rs`, `kernel_modules.rs`).
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad ones the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

use zeh::kernels::*;
use zeh::*;

#[test]
fn vector_add_and_saxpy() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("vector_add_and_saxpy"));
    for (via, mode) in MODES.iter().enumerate() {
        let n = 64 * (1 + rng.below(64));
        let a: Vec<f32> = (0..n).map(|_| rng.below(10_000) as f32 / 7.0).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.below(10_000) as f32 / 3.0).collect();
        let (ba, bb, bc) = (
            Buf::new(&z, &a),
            Buf::new(&z, &b),
            Buf::new(&z, &vec![0f32; n]),
        );
        let m = module(&z, &spv("vector_add"));
        let k = kernel(m, "vector_add");
        ok!(ze::zeKernelSetGroupSize(k, 64, 1, 1));
        for (i, p) in [ba.p, bb.p, bc.p].iter().enumerate() {
            arg(k, i as u32, p);
        }
        submit(&z, via, |l| launch(l, k, groups(n as u32 / 64, 1, 1)));
        let c = bc.get();
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "{mode}: element {i}");
        }
        // saxpy with a bound: n - 5 elements change; each launch keeps the `a` it was given.
        let s = module(&z, &spv("saxpy"));
        let k2 = kernel(s, "saxpy");
        ok!(ze::zeKernelSetGroupSize(k2, 32, 1, 1));
        arg(k2, 1, &ba.p);
        arg(k2, 2, &bb.p);
        arg(k2, 3, &(n as u32 - 5));
        submit(&z, via, |l| {
            arg(k2, 0, &2.0f32);
            launch(l, k2, groups(n as u32 / 32, 1, 1));
            arg(k2, 0, &3.0f32);
            launch(l, k2, groups(n as u32 / 32, 1, 1));
        });
        let y = bb.get();
        for i in 0..n {
            let want = if i < n - 5 {
                3.0 * a[i] + (2.0 * a[i] + b[i])
            } else {
                b[i]
            };
            assert_eq!(y[i], want, "{mode}: saxpy element {i}");
        }
        for h in [k, k2] {
            ok!(ze::zeKernelDestroy(h));
        }
        ok!(ze::zeModuleDestroy(m));
        ok!(ze::zeModuleDestroy(s));
    }
}

#[test]
fn reduction_with_local_memory_and_barriers() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("reduction"));
    let m = module(&z, &spv("reduce"));
    let k = kernel(m, "reduce");
    for (via, local) in [(0, 1u32), (1, 64), (2, 256), (0, 1024)] {
        let ng = 1 + rng.below(40);
        let n = ng * local as usize;
        let input: Vec<i32> = (0..n).map(|_| rng.below(2001) as i32 - 1000).collect();
        let (bi, bp, be) = (
            Buf::new(&z, &input),
            Buf::new(&z, &vec![0i32; ng]),
            Buf::new(&z, &vec![0i32; n]),
        );
        ok!(ze::zeKernelSetGroupSize(k, local, 1, 1));
        arg(k, 0, &bi.p);
        arg(k, 1, &bp.p);
        ok!(ze::zeKernelSetArgumentValue(
            k,
            2,
            local as usize * 4,
            null()
        ));
        arg(k, 3, &be.p);
        submit(&z, via, |l| launch(l, k, groups(ng as u32, 1, 1)));
        let (partial, echo) = (bp.get(), be.get());
        for g in 0..ng {
            let l = local as usize;
            let s: i32 = input[g * l..(g + 1) * l].iter().sum();
            assert_eq!(partial[g], s, "group {g} of {ng}, local size {local}");
            for j in 0..l {
                assert_eq!(echo[g * l + j], s + j as i32);
            }
        }
    }
}

fn int_ops_reference(x: i32, y: i32) -> [i64; 13] {
    let (ux, uy) = (x as u32, y as u32);
    let mut a = [0i64; 13];
    a[0] = x.wrapping_add(y) as i64;
    a[1] = x.wrapping_sub(y) as i64;
    a[2] = x.wrapping_mul(y) as i64;
    a[3] = (x / y) as i64;
    a[4] = ((x + 3) % y) as i64;
    a[5] = (ux / uy) as i64;
    a[6] = x.wrapping_shl((y & 31) as u32) as i64;
    a[7] = (x >> (y & 31)) as i64;
    a[8] = (ux >> (uy & 31)) as i64;
    a[9] = ((x & y) ^ (x | !y)) as i64;
    a[10] = (x < y) as i64 + 2 * (ux < uy) as i64 + 4 * (x == y) as i64;
    a[11] = (x as i16 as i64) * (y as i8 as i64) + x.max(y) as i64;
    a[12] = (0..12).fold(0i64, |s, k| s.wrapping_add(a[k].wrapping_mul(k as i64 + 1)));
    a
}

#[test]
fn integer_ops_conversions_and_math() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("integer_ops_conversions_and_math"));
    let n = 256;
    // int_ops
    let x: Vec<i32> = (0..n).map(|_| rng.below(60_001) as i32 - 30_000).collect();
    let y: Vec<i32> = (0..n)
        .map(|_| match rng.below(60_001) as i32 - 30_000 {
            0 => 7,
            v => v,
        })
        .collect();
    let (bx, by, bo) = (
        Buf::new(&z, &x),
        Buf::new(&z, &y),
        Buf::new(&z, &vec![0i64; n * 13]),
    );
    let m = module(&z, &spv("int_ops"));
    let k = kernel(m, "int_ops");
    ok!(ze::zeKernelSetGroupSize(k, 16, 1, 1));
    arg(k, 0, &bx.p);
    arg(k, 1, &by.p);
    arg(k, 2, &bo.p);
    submit(&z, 2, |l| launch(l, k, groups(n as u32 / 16, 1, 1)));
    let out = bo.get();
    for i in 0..n {
        assert_eq!(
            out[i * 13..i * 13 + 13],
            int_ops_reference(x[i], y[i]),
            "int_ops({}, {})",
            x[i],
            y[i]
        );
    }
    // conversions
    let d: Vec<f64> = (0..n)
        .map(|_| (rng.below(2_000_001) as f64 - 1_000_000.0) / 7.0)
        .collect();
    let (bd, bl, bf) = (
        Buf::new(&z, &d),
        Buf::new(&z, &vec![0i64; n * 6]),
        Buf::new(&z, &vec![0f64; n * 4]),
    );
    let m2 = module(&z, &spv("conversions"));
    let k2 = kernel(m2, "conversions");
    ok!(ze::zeKernelSetGroupSize(k2, 8, 1, 1));
    arg(k2, 0, &bx.p);
    arg(k2, 1, &bd.p);
    arg(k2, 2, &bl.p);
    arg(k2, 3, &bf.p);
    submit(&z, 0, |l| launch(l, k2, groups(n as u32 / 8, 1, 1)));
    let (l, f) = (bl.get(), bf.get());
    for i in 0..n {
        let (xi, v) = (x[i], d[i]);
        let want = [
            xi as i8 as i64,
            xi as u8 as i64,
            xi as i16 as i64,
            xi as u16 as i64,
            xi as u32 as i64,
            v as i64,
        ];
        assert_eq!(l[i * 6..i * 6 + 6], want, "conversions of {xi}, {v}");
        let want = [
            xi as f64,
            xi as u32 as f64,
            v as f32 as f64,
            v.abs() as u64 as f64,
        ];
        assert_eq!(f[i * 4..i * 4 + 4], want, "float conversions of {xi}, {v}");
    }
    // math
    let v: Vec<f32> = (0..n)
        .map(|_| (rng.below(20_001) as f32 - 10_000.0) / 1000.0)
        .collect();
    let (bv, bm) = (Buf::new(&z, &v), Buf::new(&z, &vec![0f32; n * 9]));
    let m3 = module(&z, &spv("math"));
    let k3 = kernel(m3, "math");
    ok!(ze::zeKernelSetGroupSize(k3, 32, 1, 1));
    arg(k3, 0, &bv.p);
    arg(k3, 1, &bm.p);
    submit(&z, 1, |l| launch(l, k3, groups(n as u32 / 32, 1, 1)));
    let out = bm.get();
    for i in 0..n {
        let x = v[i];
        let want = [
            x.abs().sqrt(),
            x.abs(),
            x.min(0.5),
            x.max(0.5),
            x * 2.0 + 1.0,
            x.exp(),
            (x.abs() + 1.0).ln(),
            x.sin(),
            x.cos(),
        ];
        for (j, w) in want.iter().enumerate() {
            let got = out[i * 9 + j];
            assert!(
                (got - w).abs() <= 1e-6 * w.abs().max(1.0),
                "math {j} of {x}: {got} != {w}"
            );
        }
    }
    for h in [k, k2, k3] {
        ok!(ze::zeKernelDestroy(h));
    }
    for h in [m, m2, m3] {
        ok!(ze::zeModuleDestroy(h));
    }
}

#[test]
fn atomics_from_every_work_group() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("atomics"));
    let n = 4096;
    let input: Vec<i32> = (0..n).map(|_| rng.below(201) as i32 - 100).collect();
    let (bi, bc, bs, bsum) = (
        Buf::new(&z, &input),
        Buf::new(&z, &[0i32; 4]),
        Buf::new(&z, &vec![0i32; n]),
        Buf::new(&z, &[0i64]),
    );
    let m = module(&z, &spv("atomic_counter"));
    let k = kernel(m, "atomic_counter");
    ok!(ze::zeKernelSetGroupSize(k, 16, 1, 1));
    arg(k, 0, &bi.p);
    arg(k, 1, &0i32);
    arg(k, 2, &bc.p);
    arg(k, 3, &bs.p);
    arg(k, 4, &bsum.p);
    submit(&z, 0, |l| launch(l, k, groups(n as u32 / 16, 1, 1)));
    let count = bc.get();
    let mut positive: Vec<i32> = input.iter().copied().filter(|v| *v > 0).collect();
    assert_eq!(count[0] as usize, positive.len());
    let mut slots = bs.get()[..positive.len()].to_vec();
    slots.sort();
    positive.sort();
    assert_eq!(slots, positive);
    assert_eq!(bsum.get()[0], input.iter().map(|v| *v as i64).sum::<i64>());
    assert_eq!(count[1], -(n as i32));
    assert_eq!(count[2], 7);
    assert!((1..=n as i32).contains(&count[3]));
}

#[test]
fn every_builtin_in_3d_with_an_offset() {
    let z = Ze::new();
    let m = module(&z, &spv("builtins"));
    let k = kernel(m, "builtins");
    let (l, g, off) = ([4u32, 3, 2], [3u32, 2, 2], [5u32, 7, 1]);
    let gs: Vec<u64> = (0..3).map(|d| (l[d] * g[d]) as u64).collect();
    let items = (gs[0] * gs[1] * gs[2]) as usize;
    let out = Buf::new(&z, &vec![0u64; items * 24]);
    ok!(ze::zeKernelSetGroupSize(k, l[0], l[1], l[2]));
    ok!(ze::zeKernelSetGlobalOffsetExp(k, off[0], off[1], off[2]));
    arg(k, 0, &out.p);
    submit(&z, 2, |list| launch(list, k, groups(g[0], g[1], g[2])));
    let o = out.get();
    let mut seen = 0;
    for gz in 0..gs[2] {
        for gy in 0..gs[1] {
            for gx in 0..gs[0] {
                let gid = [gx, gy, gz];
                let lin = ((gz * gs[1] + gy) * gs[0] + gx) as usize;
                let w = &o[lin * 24..lin * 24 + 24];
                for d in 0..3 {
                    let want = [
                        gid[d] + off[d] as u64,
                        gid[d] % l[d] as u64,
                        gid[d] / l[d] as u64,
                        gs[d],
                        l[d] as u64,
                        g[d] as u64,
                        off[d] as u64,
                    ];
                    assert_eq!(
                        w[d * 7..d * 7 + 7],
                        want,
                        "work-item {gid:?}, dimension {d}"
                    );
                }
                let lid = gid
                    .map(|v| v)
                    .iter()
                    .zip(l)
                    .map(|(v, l)| v % l as u64)
                    .collect::<Vec<_>>();
                assert_eq!(w[21], 3);
                assert_eq!(w[22], lin as u64);
                assert_eq!(
                    w[23],
                    (lid[2] * l[1] as u64 + lid[1]) * l[0] as u64 + lid[0]
                );
                seen += 1;
            }
        }
    }
    assert_eq!(seen, items);
}

#[test]
fn program_scope_variables_and_specialization_constants() {
    let z = Ze::new();
    let m = module(&z, &spv("globals"));
    let k = kernel(m, "globals");
    let out = Buf::new(&z, &vec![0i32; 64]);
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    arg(k, 0, &out.p);
    submit(&z, 1, |l| launch(l, k, groups(8, 1, 1)));
    let o = out.get();
    for (i, v) in o.iter().enumerate() {
        assert_eq!(*v, [1, 2, 3, 4][i % 4] * [10, 20, 30, 40][i % 4]);
    }
    let (mut size, mut ptr) = (0usize, null_mut::<c_void>());
    let name = CString::new("bumps").unwrap();
    ok!(ze::zeModuleGetGlobalPointer(
        m,
        name.as_ptr(),
        &mut size,
        &mut ptr
    ));
    assert_eq!(size, 16);
    // SAFETY: the module's 4 ints, written by the finished launch.
    let bumps = unsafe { std::slice::from_raw_parts(ptr as *const i32, 4) };
    assert_eq!(bumps, [16, 16, 16, 16]);
    let name = CString::new("nope").unwrap();
    check!(
        ze::zeModuleGetGlobalPointer(m, name.as_ptr(), &mut size, &mut ptr),
        ZE_RESULT_ERROR_INVALID_GLOBAL_NAME
    );

    // spec.spv adds the constant 1000; make it SpecId 7 and give it 5.
    let bytes = spv("spec");
    let mut w: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let at = w
        .windows(4)
        .position(|x| x[0] == (4 << 16 | 43) && x[3] == 1000)
        .expect("OpConstant 1000");
    w[at] = 4 << 16 | 50;
    let id = w[at + 2];
    w.splice(5..5, [4 << 16 | 71, id, 1, 7]);
    let patched: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    for (value, want) in [(None, 1000), (Some(5i32), 5)] {
        let ids = [7u32, 99];
        let other = 123i64;
        let v = value.unwrap_or(0);
        let mut values = [
            (&v as *const i32).cast::<c_void>(),
            (&other as *const i64).cast(),
        ];
        let constants = ze_module_constants_t {
            numConstants: 2,
            pConstantIds: ids.as_ptr(),
            pConstantValues: values.as_mut_ptr(),
        };
        let mut desc = module_desc(&patched);
        if value.is_some() {
            desc.pConstants = &constants;
        }
        let mut sm = null_mut();
        ok!(ze::zeModuleCreate(z.ctx, z.dev, &desc, &mut sm, null_mut()));
        let sk = kernel(sm, "spec");
        let x = Buf::new(&z, &[1i32, 2, 3, 4]);
        arg(sk, 0, &x.p);
        submit(&z, 0, |l| launch(l, sk, groups(4, 1, 1)));
        assert_eq!(x.get(), [1 + want, 2 + want, 3 + want, 4 + want]);
        ok!(ze::zeKernelDestroy(sk));
        ok!(ze::zeModuleDestroy(sm));
    }
}

#[test]
fn indirect_and_cooperative_launches_and_destroyed_modules() {
    let z = Ze::new();
    let m = module(&z, &spv("vector_add"));
    let k = kernel(m, "vector_add");
    // The module goes first: the kernel keeps its code.
    ok!(ze::zeModuleDestroy(m));
    let n = 512;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (ba, bc) = (Buf::new(&z, &a), Buf::new(&z, &vec![0f32; n]));
    ok!(ze::zeKernelSetGroupSize(k, 16, 1, 1));
    arg(k, 0, &ba.p);
    arg(k, 1, &ba.p);
    arg(k, 2, &bc.p);
    let count = z
        .shared(std::mem::size_of::<ze_group_count_t>())
        .cast::<ze_group_count_t>();
    // SAFETY: a fresh allocation of one group count.
    unsafe { *count = groups(1, 1, 1) };
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let l = z.list(0);
    // `count` is the allocation above, read when the launch runs.
    ok!(ze::zeCommandListAppendLaunchKernelIndirect(
        l,
        k,
        &*count,
        null_mut(),
        0,
        null_mut()
    ));
    // SAFETY: as above: the group count is read when the list runs, not when appended.
    unsafe { *count = groups(n as u32 / 32, 1, 1) };
    run(&z, q, l);
    let c = bc.get();
    for i in 0..n {
        assert_eq!(c[i], if i < n / 2 { 2.0 * a[i] } else { 0.0 });
    }
    let mut max = 0;
    ok!(ze::zeKernelSuggestMaxCooperativeGroupCount(k, &mut max));
    assert!(max >= 1);
    ok!(ze::zeCommandListReset(l));
    ok!(ze::zeCommandListAppendLaunchCooperativeKernel(
        l,
        k,
        &groups(n as u32 / 16, 1, 1),
        null_mut(),
        0,
        null_mut()
    ));
    run(&z, q, l);
    assert!(bc.get().iter().zip(&a).all(|(c, a)| *c == 2.0 * a));
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
    ok!(ze::zeKernelDestroy(k));
}

#[test]
fn concurrent_launches_from_four_threads() {
    let z = Ze::new();
    let bytes = spv("reduce");
    let m = module(&z, &bytes);
    let m = m as usize;
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let z = &z;
            s.spawn(move || {
                let mut rng = Rng::new(seed("concurrent_launches") ^ t);
                let k = kernel(m as ze_module_handle_t, "reduce");
                let l = z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
                for _ in 0..20 {
                    let local = [1u32, 8, 32, 128][rng.below(4)];
                    let ng = 1 + rng.below(64);
                    let n = ng * local as usize;
                    let input: Vec<i32> = (0..n).map(|_| rng.below(1001) as i32 - 500).collect();
                    let (bi, bp, be) = (
                        Buf::new(z, &input),
                        Buf::new(z, &vec![0i32; ng]),
                        Buf::new(z, &vec![0i32; n]),
                    );
                    ok!(ze::zeKernelSetGroupSize(k, local, 1, 1));
                    arg(k, 0, &bi.p);
                    arg(k, 1, &bp.p);
                    ok!(ze::zeKernelSetArgumentValue(
                        k,
                        2,
                        local as usize * 4,
                        null()
                    ));
                    arg(k, 3, &be.p);
                    launch(l, k, groups(ng as u32, 1, 1));
                    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
                    let partial = bp.get();
                    for (g, got) in partial.iter().enumerate() {
                        let lo = g * local as usize;
                        let sum: i32 = input[lo..lo + local as usize].iter().sum();
                        assert_eq!(*got, sum);
                    }
                    for p in [bi.p as *mut u8, bp.p.cast(), be.p.cast()] {
                        z.free(p);
                    }
                }
                ok!(ze::zeCommandListDestroy(l));
                ok!(ze::zeKernelDestroy(k));
            });
        }
    });
    ok!(ze::zeModuleDestroy(m as ze_module_handle_t));
}

#[test]
fn struct_by_value_argument() {
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Params {
        scale: f32,
        offset: i32,
        big: i64,
        tag: i8,
    }
    let z = Ze::new();
    let m = module(&z, &spv("struct_arg"));
    let k = kernel(m, "struct_arg");
    let mut kp = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut kp));
    assert_eq!(kp.numKernelArgs, 2);
    let p = Params {
        scale: 2.5,
        offset: -7,
        big: 1 << 40,
        tag: -3,
    };
    let out = Buf::new(&z, &[0i64; 64]);
    ok!(ze::zeKernelSetGroupSize(k, 16, 1, 1));
    // The struct's exact size only.
    check!(
        ze::zeKernelSetArgumentValue(k, 0, 16, (&p as *const Params).cast()),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    arg(k, 0, &p);
    arg(k, 1, &out.p);
    submit(&z, 1, |l| launch(l, k, groups(4, 1, 1)));
    for (i, v) in out.get().iter().enumerate() {
        let want = (p.scale * i as f32) as i64 + p.offset as i64 + p.big + p.tag as i64;
        assert_eq!(*v, want, "element {i}");
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn barriers_in_loops_tree_reduction_and_scan() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("barriers_in_loops"));
    let m = module(&z, &spv("tree_reduce"));
    let k = kernel(m, "tree_reduce");
    for (via, local) in [(0, 1u32), (1, 2), (2, 64), (0, 256), (1, 1024)] {
        let ng = 1 + rng.below(16);
        let n = ng * local as usize;
        let input: Vec<i32> = (0..n).map(|_| rng.below(2001) as i32 - 1000).collect();
        let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0i32; ng]));
        ok!(ze::zeKernelSetGroupSize(k, local, 1, 1));
        arg(k, 0, &bi.p);
        arg(k, 1, &bo.p);
        ok!(ze::zeKernelSetArgumentValue(
            k,
            2,
            local as usize * 4,
            null()
        ));
        submit(&z, via, |l| launch(l, k, groups(ng as u32, 1, 1)));
        for (g, got) in bo.get().iter().enumerate() {
            let l = local as usize;
            assert_eq!(
                *got,
                input[g * l..(g + 1) * l].iter().sum::<i32>(),
                "local size {local}"
            );
        }
    }
    // Prefix sums per group of 256; the last group is partial (its extra work-items return
    // before the first barrier).
    let m2 = module(&z, &spv("scan"));
    let k2 = kernel(m2, "scan");
    let n = 256 * 3 + 77;
    let input: Vec<i32> = (0..n).map(|_| rng.below(201) as i32 - 100).collect();
    let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0i32; n]));
    ok!(ze::zeKernelSetGroupSize(k2, 256, 1, 1));
    arg(k2, 0, &bi.p);
    arg(k2, 1, &bo.p);
    arg(k2, 2, &(n as u32));
    submit(&z, 2, |l| launch(l, k2, groups(4, 1, 1)));
    let out = bo.get();
    for (g, chunk) in input.chunks(256).enumerate() {
        let mut acc = 0;
        for (j, v) in chunk.iter().enumerate() {
            acc += v;
            assert_eq!(out[g * 256 + j], acc, "group {g}, item {j}");
        }
    }
    for h in [k, k2] {
        ok!(ze::zeKernelDestroy(h));
    }
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeModuleDestroy(m2));
}

#[test]
fn required_group_size() {
    let z = Ze::new();
    let m = module(&z, &spv("reqd"));
    let k = kernel(m, "reqd");
    let mut kp = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut kp));
    assert_eq!(
        (
            kp.requiredGroupSizeX,
            kp.requiredGroupSizeY,
            kp.requiredGroupSizeZ
        ),
        (8, 2, 1)
    );
    let (mut x, mut y, mut w) = (0, 0, 0);
    ok!(ze::zeKernelSuggestGroupSize(
        k, 64, 4, 1, &mut x, &mut y, &mut w
    ));
    assert_eq!((x, y, w), (8, 2, 1));
    check!(
        ze::zeKernelSetGroupSize(k, 4, 4, 1),
        ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
    );
    assert!(
        last_error().contains("requires the group size 8x2x1"),
        "{}",
        last_error()
    );
    ok!(ze::zeKernelSetGroupSize(k, 8, 2, 1));
    // The required size is also the default: launch 4x2 groups of 8x2.
    let out = Buf::new(&z, &[u32::MAX; 128]);
    arg(k, 0, &out.p);
    submit(&z, 0, |l| launch(l, k, groups(4, 2, 1)));
    let o = out.get();
    for gy in 0..4 {
        for gx in 0..32 {
            assert_eq!(
                o[gy * 32 + gx],
                ((gy % 2) * 8 + gx % 8) as u32,
                "({gx}, {gy})"
            );
        }
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn vector_types() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("vector_types"));
    let m = module(&z, &spv("vectors"));
    let k = kernel(m, "vectors");
    let n = 64;
    let f = |rng: &mut Rng| (rng.below(20_001) as f32 - 10_000.0) / 100.0;
    let a: Vec<[f32; 4]> = (0..n)
        .map(|_| [f(&mut rng), f(&mut rng), f(&mut rng), f(&mut rng)])
        .collect();
    let b: Vec<[f32; 4]> = (0..n)
        .map(|_| [f(&mut rng), f(&mut rng), f(&mut rng), f(&mut rng)])
        .collect();
    let kv = [0.5f32, -1.0, 2.0, 3.0];
    let (ba, bb) = (Buf::new(&z, &a), Buf::new(&z, &b));
    let (bc, bd, bdots) = (
        Buf::new(&z, &vec![[0f32; 4]; n * 3]),
        Buf::new(&z, &vec![[0i32; 2]; n]),
        Buf::new(&z, &vec![0f32; n]),
    );
    ok!(ze::zeKernelSetGroupSize(k, 16, 1, 1));
    arg(k, 0, &ba.p);
    arg(k, 1, &bb.p);
    arg(k, 2, &bc.p);
    arg(k, 3, &bd.p);
    arg(k, 4, &kv);
    arg(k, 5, &bdots.p);
    submit(&z, 0, |l| launch(l, k, groups(n as u32 / 16, 1, 1)));
    let (c, d, dots) = (bc.get(), bd.get(), bdots.get());
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let mut s: Vec<f32> = (0..4).map(|j| x[j] * y[j] + kv[j]).collect();
        s.swap(0, 1);
        assert_eq!(c[i * 3].to_vec(), s, "s of {i}");
        let mm: Vec<f32> = (0..4).map(|j| x[j].max(y[j]) - y[j].abs().sqrt()).collect();
        assert_eq!(c[i * 3 + 1].to_vec(), mm, "m of {i}");
        let pick: Vec<f32> = (0..4)
            .map(|j| if x[j] < y[j] { y[j] } else { x[j] })
            .collect();
        let add = [x[3], y[2], 1.0, i as f32];
        let want: Vec<f32> = (0..4).map(|j| pick[j] + add[j]).collect();
        assert_eq!(c[i * 3 + 2].to_vec(), want, "pick of {i}");
        let t = [(x[0] as i32) * 3 + i as i32, (x[2] as i32) * -2 + i as i32];
        assert_eq!(d[i], [t[0] >> 1, t[1] >> 1], "t of {i}");
        let dot = x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3];
        assert!(
            (dots[i] - dot).abs() <= 1e-3 * dot.abs().max(1.0),
            "dot of {i}: {} {dot}",
            dots[i]
        );
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn more_opencl_std_functions() {
    let z = Ze::new();
    let mut rng = Rng::new(seed("more_opencl_std_functions"));
    let n = 128;
    let f = |rng: &mut Rng| (rng.below(16_001) as f32 - 8000.0) / 1000.0;
    let x: Vec<f32> = (0..n).map(|_| f(&mut rng)).collect();
    let y: Vec<f32> = (0..n)
        .map(|_| match f(&mut rng) {
            0.0 => 0.5,
            v => v,
        })
        .collect();
    let a: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let b: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let (bx, by, ba, bb) = (
        Buf::new(&z, &x),
        Buf::new(&z, &y),
        Buf::new(&z, &a),
        Buf::new(&z, &b),
    );
    let (bo, bi) = (
        Buf::new(&z, &vec![0f32; n * 24]),
        Buf::new(&z, &vec![0i32; n * 8]),
    );
    let m = module(&z, &spv("math2"));
    let k = kernel(m, "math2");
    ok!(ze::zeKernelSetGroupSize(k, 32, 1, 1));
    for (j, p) in [
        bx.p as usize,
        by.p as usize,
        bo.p as usize,
        ba.p as usize,
        bb.p as usize,
        bi.p as usize,
    ]
    .iter()
    .enumerate()
    {
        arg(k, j as u32, &(*p as u64));
    }
    submit(&z, 2, |l| launch(l, k, groups(n as u32 / 32, 1, 1)));
    let (o, r) = (bo.get(), bi.get());
    for i in 0..n {
        let (v, w) = (x[i], y[i]);
        let sign = if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            v
        };
        let fdim = if v > w { v - w } else { 0.0 };
        let maxmag = if v.abs() > w.abs() {
            v
        } else if w.abs() > v.abs() {
            w
        } else {
            v.max(w)
        };
        let minmag = if v.abs() < w.abs() {
            v
        } else if w.abs() < v.abs() {
            w
        } else {
            v.min(w)
        };
        let want = [
            v.tan(),
            (v / 16.0).asin(),
            (v / 16.0).acos(),
            v.atan2(w),
            v.exp2(),
            (v.abs() + 1.0).log2(),
            (v.abs() + 1.0).log10(),
            1.0 / (v.abs() + 1.0).sqrt(),
            v.cbrt(),
            v.tanh(),
            (v * 2.0).round(),
            (v * 2.0).round_ties_even(),
            v.copysign(w),
            v.hypot(w),
            v.abs().sqrt() + v.sin() + v.cos(),
            1.0 / w + v / w,
            v.clamp(-1.0, 2.0),
            v + (w - v) * 0.25,
            if v < w { 0.0 } else { 1.0 },
            v * (180.0 / std::f32::consts::PI) + w * (std::f32::consts::PI / 180.0),
            sign,
            v.floor() + w.ceil() + v.trunc(),
            v.abs().powf(1.5),
            fdim + maxmag + minmag,
        ];
        for (j, want) in want.iter().enumerate() {
            let got = o[i * 24 + j];
            assert!(
                (got - want).abs() <= 1e-5 * want.abs().max(1.0),
                "function {j} of ({v}, {w}): {got} != {want}"
            );
        }
        let (p, q) = (a[i], b[i]);
        let want = [
            p.wrapping_abs(),
            p.clamp(-100, 100),
            p.leading_zeros() as i32,
            p.count_ones() as i32,
            ((p as i64 * q as i64) >> 32) as i32,
            p.rotate_left(q as u32 & 31),
            (p & 0xfff) * (q & 0xfff) + 7,
            ((p as u32 as u64 * q as u32 as u64) >> 32) as i32,
        ];
        assert_eq!(r[i * 8..i * 8 + 8], want, "integer functions of ({p}, {q})");
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn private_memory_across_barriers_bounds_the_group_size() {
    let z = Ze::new();
    let m = module(&z, &spv("big_private"));
    let k = kernel(m, "big_private");
    let mut kp = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut kp));
    assert!(kp.privateMemSize >= 65536, "{}", kp.privateMemSize);
    let input: Vec<i32> = (0..16384).map(|i| (i * 37) % 1000).collect();
    let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0i32; 2048]));
    arg(k, 0, &bi.p);
    arg(k, 1, &bo.p);
    let l = z.immediate(0, ze_command_queue_mode_t::SYNCHRONOUS);
    // 1024 work-items x 64 KiB: more than a group may use.
    ok!(ze::zeKernelSetGroupSize(k, 1024, 1, 1));
    check!(
        ze::zeCommandListAppendLaunchKernel(l, k, &groups(2, 1, 1), null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );
    assert!(
        last_error().contains("use smaller groups"),
        "{}",
        last_error()
    );
    ok!(ze::zeKernelSetGroupSize(k, 128, 1, 1));
    launch(l, k, groups(16, 1, 1));
    let out = bo.get();
    for (g, v) in out.iter().enumerate() {
        let lid = g % 128;
        let want = input[(input[lid] & 16383) as usize] + lid as i32;
        assert_eq!(*v, want, "work-item {g}");
    }
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}
