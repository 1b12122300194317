//! SPIR-V kernels through the CPU driver, in process through the generated C entry points:
//! every test kernel of `spirv/kernels` against a reference computed here, via a queue and
//! both kinds of immediate list; the module and kernel API and its errors.
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad ones the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};

use zeh::*;

fn groups(x: u32, y: u32, z: u32) -> ze_group_count_t {
    ze_group_count_t {
        groupCountX: x,
        groupCountY: y,
        groupCountZ: z,
    }
}

/// Driver memory of `n` elements of `T`, initialised from `init`.
struct Buf<T: Copy> {
    p: *mut T,
    n: usize,
}

impl<T: Copy> Buf<T> {
    fn new(z: &Ze, init: &[T]) -> Buf<T> {
        let p = z.shared(std::mem::size_of_val(init).max(8)).cast::<T>();
        // SAFETY: a fresh allocation of that many elements.
        unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), p, init.len()) };
        Buf { p, n: init.len() }
    }
    fn get(&self) -> Vec<T> {
        // SAFETY: `n` elements the finished kernels wrote.
        unsafe { std::slice::from_raw_parts(self.p, self.n) }.to_vec()
    }
}

const MODES: [&str; 3] = ["queue", "immediate sync", "immediate async"];

fn launch(l: ze_command_list_handle_t, k: ze_kernel_handle_t, g: ze_group_count_t) {
    ok!(ze::zeCommandListAppendLaunchKernel(
        l,
        k,
        &g,
        null_mut(),
        0,
        null_mut()
    ));
}

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
fn module_and_kernel_queries_and_errors() {
    let z = Ze::new();
    let mut p = ze_device_module_properties_t::default();
    ok!(ze::zeDeviceGetModuleProperties(z.dev, &mut p));
    assert_eq!(p.spirvVersionSupported, ZE_MAKE_VERSION(1, 6));

    let bytes = spv("reduce");
    let flags = CString::new("-cl-fast-relaxed-math").unwrap();
    let mut desc = module_desc(&bytes);
    desc.pBuildFlags = flags.as_ptr();
    let (mut m, mut log) = (null_mut(), null_mut());
    ok!(ze::zeModuleCreate(z.ctx, z.dev, &desc, &mut m, &mut log));
    let mut size = 0usize;
    ok!(ze::zeModuleBuildLogGetString(log, &mut size, null_mut()));
    let mut text = vec![0 as c_char; size];
    ok!(ze::zeModuleBuildLogGetString(
        log,
        &mut size,
        text.as_mut_ptr()
    ));
    // SAFETY: NUL-terminated by the driver.
    let text = unsafe { CStr::from_ptr(text.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    assert!(
        text.contains("reduce") && text.contains("-cl-fast-relaxed-math"),
        "{text}"
    );
    ok!(ze::zeModuleBuildLogDestroy(log));

    let mut count = 0;
    ok!(ze::zeModuleGetKernelNames(m, &mut count, null_mut()));
    assert_eq!(count, 1);
    let mut names = [null::<c_char>(); 1];
    ok!(ze::zeModuleGetKernelNames(
        m,
        &mut count,
        names.as_mut_ptr()
    ));
    // SAFETY: a name the module owns.
    let first = unsafe { CStr::from_ptr(names[0]) };
    assert_eq!(first.to_str().unwrap(), "reduce");
    let mut mp = ze_module_properties_t::default();
    ok!(ze::zeModuleGetProperties(m, &mut mp));
    assert!(mp.flags.is_empty());

    let bad = CString::new("nope").unwrap();
    let kd = ze_kernel_desc_t {
        pKernelName: bad.as_ptr(),
        ..Default::default()
    };
    let mut k = null_mut();
    check!(
        ze::zeKernelCreate(m, &kd, &mut k),
        ZE_RESULT_ERROR_INVALID_KERNEL_NAME
    );
    let k = kernel(m, "reduce");
    let mut kp = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut kp));
    assert_eq!(kp.numKernelArgs, 4);
    assert_eq!(kp.localMemSize, 4);
    assert!(kp.privateMemSize > 0);
    let mut size = 0;
    ok!(ze::zeKernelGetName(k, &mut size, null_mut()));
    assert_eq!(size, 7);
    let mut name = [0 as c_char; 7];
    ok!(ze::zeKernelGetName(k, &mut size, name.as_mut_ptr()));
    // SAFETY: NUL-terminated by the driver.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) };
    assert_eq!(name.to_str().unwrap(), "reduce");

    for (x, y, zz) in [(0, 1, 1), (2048, 1, 1), (64, 64, 1), (1, 1, 0)] {
        check!(
            ze::zeKernelSetGroupSize(k, x, y, zz),
            ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
        );
    }
    ok!(ze::zeKernelSetGroupSize(k, 8, 8, 16));
    let (mut gx, mut gy, mut gz) = (0, 0, 0);
    ok!(ze::zeKernelSuggestGroupSize(
        k, 1000, 6, 1, &mut gx, &mut gy, &mut gz
    ));
    assert!(
        1000 % gx == 0 && 6 % gy == 0 && gz == 1 && gx * gy <= 256,
        "{gx} {gy} {gz}"
    );

    let p = 0u64;
    check!(
        ze::zeKernelSetArgumentValue(k, 4, 8, (&p as *const u64).cast()),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX
    );
    check!(
        ze::zeKernelSetArgumentValue(k, 0, 4, (&p as *const u64).cast()),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    check!(
        ze::zeKernelSetArgumentValue(k, 2, 0, null()),
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    check!(
        ze::zeKernelSetArgumentValue(k, 2, 8, (&p as *const u64).cast()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // A launch with arguments never set is refused at the append.
    let l = z.list(0);
    check!(
        ze::zeCommandListAppendLaunchKernel(l, k, &groups(1, 1, 1), null_mut(), 0, null_mut()),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert!(last_error().contains("never set"), "{}", last_error());
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));

    // Bad and unsupported SPIR-V: MODULE_BUILD_FAILURE and a reason; NATIVE: INVALID_NATIVE_BINARY.
    let mut m = null_mut();
    let garbage = [0x07u8, 0x23, 0x02, 0x03, 1, 2, 3, 4];
    check!(
        ze::zeModuleCreate(z.ctx, z.dev, &module_desc(&garbage), &mut m, null_mut()),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    assert!(last_error().contains("invalid SPIR-V"), "{}", last_error());
    let mut w: Vec<u32> = spv("vector_add")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let fadd = w.iter().position(|x| *x == (5 << 16 | 129)).unwrap();
    w[fadd] = 5 << 16 | 84; // OpTranspose
    let dot: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut log = null_mut();
    m = 0x1234 as _;
    check!(
        ze::zeModuleCreate(z.ctx, z.dev, &module_desc(&dot), &mut m, &mut log),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    assert!(
        last_error().contains("unsupported: kernel `vector_add`: instruction OpTranspose"),
        "{}",
        last_error()
    );
    // The failed build hands out its log, naming the instruction; the module handle is null.
    assert!(m.is_null());
    let text = log_text(log);
    assert!(text.contains("instruction OpTranspose"), "{text}");
    let mut native = module_desc(&dot);
    native.format = ze_module_format_t::NATIVE;
    check!(
        ze::zeModuleCreate(z.ctx, z.dev, &native, &mut m, null_mut()),
        ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
    );
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

#[test]
fn multiple_kernels_indirect_reads_count_and_groups_when_it_runs() {
    let z = Ze::new();
    let m_add = module(&z, &spv("vector_add"));
    let m_saxpy = module(&z, &spv("saxpy"));
    let (add, saxpy) = (kernel(m_add, "vector_add"), kernel(m_saxpy, "saxpy"));
    let n = 256usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (ba, bc, by) = (
        Buf::new(&z, &a),
        Buf::new(&z, &vec![0f32; n]),
        Buf::new(&z, &vec![1f32; n]),
    );
    ok!(ze::zeKernelSetGroupSize(add, 16, 1, 1));
    ok!(ze::zeKernelSetGroupSize(saxpy, 32, 1, 1));
    arg(add, 0, &ba.p);
    arg(add, 1, &ba.p);
    arg(add, 2, &bc.p);
    arg(saxpy, 0, &3f32);
    arg(saxpy, 1, &ba.p);
    arg(saxpy, 2, &by.p);
    arg(saxpy, 3, &(n as u32));
    let count = z.shared(4).cast::<u32>();
    let counts = z
        .shared(2 * std::mem::size_of::<ze_group_count_t>())
        .cast::<ze_group_count_t>();
    // SAFETY: fresh allocations of one count and two group counts.
    unsafe {
        *count = 0;
        *counts = groups(0, 0, 0);
        *counts.add(1) = groups(0, 0, 0);
    }
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let l = z.list(0);
    let mut ks = [add, saxpy];
    ok!(ze::zeCommandListAppendLaunchMultipleKernelsIndirect(
        l,
        2,
        ks.as_mut_ptr(),
        count,
        counts,
        null_mut(),
        0,
        null_mut()
    ));
    // Arguments changed after the append do not reach the appended launches.
    arg(saxpy, 0, &100f32);
    // SAFETY: the buffers above; the command reads them when it runs.
    unsafe {
        *count = 1;
        *counts = groups(n as u32 / 16, 1, 1);
        *counts.add(1) = groups(n as u32 / 32, 1, 1);
    }
    run(&z, q, l);
    // Only the first kernel ran.
    assert!(bc.get().iter().zip(&a).all(|(c, a)| *c == 2.0 * a));
    assert!(by.get().iter().all(|y| *y == 1.0));
    // Both, the second over half of the elements.
    // SAFETY: as above.
    unsafe {
        *count = 2;
        *counts.add(1) = groups(n as u32 / 64, 1, 1);
    }
    run(&z, q, l);
    let y = by.get();
    for i in 0..n {
        assert_eq!(y[i], if i < n / 2 { 3.0 * a[i] + 1.0 } else { 1.0 }, "{i}");
    }
    // A count beyond the kernels given runs each once.
    // SAFETY: as above.
    unsafe { *count = 7 };
    run(&z, q, l);
    assert_eq!(by.get()[1], 3.0 * 2.0 + 1.0);
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
    for k in [add, saxpy] {
        ok!(ze::zeKernelDestroy(k));
    }
    ok!(ze::zeModuleDestroy(m_add));
    ok!(ze::zeModuleDestroy(m_saxpy));
}

#[test]
fn launches_with_parameters_and_with_arguments() {
    let z = Ze::new();
    let m = module(&z, &spv("saxpy"));
    let k = kernel(m, "saxpy");
    let n = 128usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let (bx, by) = (Buf::new(&z, &x), Buf::new(&z, &vec![2f32; n]));
    for (via, mode) in MODES.iter().enumerate() {
        // SAFETY: the buffer's `n` elements, no launch in flight.
        unsafe { std::slice::from_raw_parts_mut(by.p, n) }.fill(2.0);
        submit(&z, via, |l| {
            // With arguments: the group size and every argument in the call (a scalar, two
            // buffers, a scalar), each pointer addressing the value.
            let (a, nn) = (4f32, n as u32);
            let mut values: [*mut c_void; 4] = [
                (&a as *const f32).cast_mut().cast(),
                (&bx.p as *const *mut f32).cast_mut().cast(),
                (&by.p as *const *mut f32).cast_mut().cast(),
                (&nn as *const u32).cast_mut().cast(),
            ];
            ok!(ze::zeCommandListAppendLaunchKernelWithArguments(
                l,
                k,
                groups(n as u32 / 8, 1, 1),
                ze_group_size_t {
                    groupSizeX: 8,
                    groupSizeY: 1,
                    groupSizeZ: 1
                },
                values.as_mut_ptr(),
                null(),
                null_mut(),
                0,
                null_mut()
            ));
            // A second launch with another `a`, then one with parameters and a cooperative
            // descriptor: it uses the arguments the previous call left on the kernel.
            let a2 = 1f32;
            values[0] = (&a2 as *const f32).cast_mut().cast();
            ok!(ze::zeCommandListAppendLaunchKernelWithArguments(
                l,
                k,
                groups(n as u32 / 8, 1, 1),
                ze_group_size_t {
                    groupSizeX: 8,
                    groupSizeY: 1,
                    groupSizeZ: 1
                },
                values.as_mut_ptr(),
                null(),
                null_mut(),
                0,
                null_mut()
            ));
            let coop = ze_command_list_append_launch_kernel_param_cooperative_desc_t {
                stype: ze_structure_type_t::COMMAND_LIST_APPEND_PARAM_COOPERATIVE_DESC,
                pNext: null(),
                isCooperative: 1,
            };
            ok!(ze::zeCommandListAppendLaunchKernelWithParameters(
                l,
                k,
                &groups(n as u32 / 16, 1, 1),
                (&coop as *const ze_command_list_append_launch_kernel_param_cooperative_desc_t)
                    .cast(),
                null_mut(),
                0,
                null_mut()
            ));
            // Changing the kernel afterwards changes none of the three.
            arg(k, 0, &1000f32);
        });
        let y = by.get();
        for i in 0..n {
            // 2 + 4x, + x, then the first half + x again (group size 8, n/16 groups).
            let want = 2.0 + 4.0 * x[i] + x[i] + if i < n / 2 { x[i] } else { 0.0 };
            assert_eq!(y[i], want, "{mode}: element {i}");
        }
    }
    // Errors: a wrong group size, a null value for a by-value argument, a foreign structure
    // in pNext.
    let l = z.list(0);
    let mut none: [*mut c_void; 4] = [null_mut(); 4];
    check!(
        ze::zeCommandListAppendLaunchKernelWithArguments(
            l,
            k,
            groups(1, 1, 1),
            ze_group_size_t {
                groupSizeX: 0,
                groupSizeY: 1,
                groupSizeZ: 1
            },
            none.as_mut_ptr(),
            null(),
            null_mut(),
            0,
            null_mut()
        ),
        ze_result_t::ERROR_INVALID_GROUP_SIZE_DIMENSION
    );
    // Every value pointer null: a by-value argument is zeros (as `zeKernelSetArgumentValue`
    // takes it; the SYCL adapter passes a zero value so), buffers are null, and with `n` = 0
    // the kernel touches nothing.
    check!(
        ze::zeCommandListAppendLaunchKernelWithArguments(
            l,
            k,
            groups(1, 1, 1),
            ze_group_size_t {
                groupSizeX: 1,
                groupSizeY: 1,
                groupSizeZ: 1
            },
            none.as_mut_ptr(),
            null(),
            null_mut(),
            0,
            null_mut()
        ),
        ze_result_t::SUCCESS
    );
    let foreign = ze_module_program_exp_desc_t::default();
    check!(
        ze::zeCommandListAppendLaunchKernelWithParameters(
            l,
            k,
            &groups(1, 1, 1),
            (&foreign as *const ze_module_program_exp_desc_t).cast(),
            null_mut(),
            0,
            null_mut()
        ),
        ze_result_t::ERROR_UNSUPPORTED_FEATURE
    );
    // A cooperative descriptor chained to itself: a cycle.
    let mut cycle = ze_command_list_append_launch_kernel_param_cooperative_desc_t {
        stype: ze_structure_type_t::COMMAND_LIST_APPEND_PARAM_COOPERATIVE_DESC,
        pNext: null(),
        isCooperative: 1,
    };
    cycle.pNext = (&cycle as *const ze_command_list_append_launch_kernel_param_cooperative_desc_t).cast();
    check!(
        ze::zeCommandListAppendLaunchKernelWithParameters(
            l,
            k,
            &groups(1, 1, 1),
            (&cycle as *const ze_command_list_append_launch_kernel_param_cooperative_desc_t).cast(),
            null_mut(),
            0,
            null_mut()
        ),
        ze_result_t::ERROR_INVALID_ARGUMENT
    );
    ok!(ze::zeCommandListDestroy(l));

    // A local-memory argument: its pointer addresses the size in bytes.
    let m2 = module(&z, &spv("reduce"));
    let r = kernel(m2, "reduce");
    let groups_n = 4usize;
    let size = 32usize;
    let input: Vec<i32> = (0..(groups_n * size) as i32).collect();
    let (bi, bp, be) = (
        Buf::new(&z, &input),
        Buf::new(&z, &vec![0i32; groups_n]),
        Buf::new(&z, &vec![0i32; groups_n * size]),
    );
    let local = size * 4;
    let mut values: [*mut c_void; 4] = [
        (&bi.p as *const *mut i32).cast_mut().cast(),
        (&bp.p as *const *mut i32).cast_mut().cast(),
        (&local as *const usize).cast_mut().cast(),
        (&be.p as *const *mut i32).cast_mut().cast(),
    ];
    submit(&z, 1, |l| {
        ok!(ze::zeCommandListAppendLaunchKernelWithArguments(
            l,
            r,
            groups(groups_n as u32, 1, 1),
            ze_group_size_t {
                groupSizeX: size as u32,
                groupSizeY: 1,
                groupSizeZ: 1
            },
            values.as_mut_ptr(),
            null(),
            null_mut(),
            0,
            null_mut()
        ));
    });
    let p = bp.get();
    for g in 0..groups_n {
        let want: i32 = input[g * size..(g + 1) * size].iter().sum();
        assert_eq!(p[g], want);
    }
    ok!(ze::zeKernelDestroy(r));
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m2));
    ok!(ze::zeModuleDestroy(m));
}

/// The text of a build log, which the call destroys.
fn log_text(log: ze_module_build_log_handle_t) -> String {
    let mut size = 0;
    ok!(ze::zeModuleBuildLogGetString(log, &mut size, null_mut()));
    let mut buf = vec![0u8; size];
    ok!(ze::zeModuleBuildLogGetString(
        log,
        &mut size,
        buf.as_mut_ptr().cast()
    ));
    ok!(ze::zeModuleBuildLogDestroy(log));
    CStr::from_bytes_until_nul(&buf)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn link_spv(name: &str) -> Vec<u8> {
    spv(&format!("link/{name}"))
}

#[test]
fn dynamic_link_imports_exports_and_function_pointers() {
    let z = Ze::new();
    let user = module(&z, &link_spv("link_user"));
    let lib = module(&z, &link_spv("link_lib"));
    // The importer reports its imports and cannot give kernels before it is linked.
    let mut props = ze_module_properties_t::default();
    ok!(ze::zeModuleGetProperties(user, &mut props));
    assert_eq!(props.flags, ze_module_property_flags_t::IMPORTS);
    ok!(ze::zeModuleGetProperties(lib, &mut props));
    assert_eq!(props.flags, ze_module_property_flags_t::empty());
    let name = CString::new("link_user").unwrap();
    let desc = ze_kernel_desc_t {
        pKernelName: name.as_ptr(),
        ..Default::default()
    };
    let mut k = null_mut();
    check!(
        ze::zeKernelCreate(user, &desc, &mut k),
        ze_result_t::ERROR_INVALID_MODULE_UNLINKED
    );
    let mut count = 0;
    ok!(ze::zeModuleGetKernelNames(user, &mut count, null_mut()));
    assert_eq!(count, 1);

    // Inspection: imports, which of them the given modules cannot resolve, exports.
    let inspect = |mods: &mut [ze_module_handle_t]| {
        let mut desc = ze_linkage_inspection_ext_desc_t {
            flags: ze_linkage_inspection_ext_flags_t::IMPORTS
                | ze_linkage_inspection_ext_flags_t::UNRESOLVABLE_IMPORTS
                | ze_linkage_inspection_ext_flags_t::EXPORTS,
            ..Default::default()
        };
        let mut log = null_mut();
        ok!(ze::zeModuleInspectLinkageExt(
            &mut desc,
            mods.len() as u32,
            mods.as_mut_ptr(),
            &mut log
        ));
        log_text(log)
    };
    let alone = inspect(&mut [user]);
    assert!(
        alone.contains("module 0: imports: scale_add, twice"),
        "{alone}"
    );
    assert!(
        alone.contains("module 0: unresolvable imports: scale_add, twice"),
        "{alone}"
    );
    let both = inspect(&mut [user, lib]);
    assert!(
        both.lines().any(|l| l == "module 0: unresolvable imports: "),
        "{both}"
    );
    assert!(
        both.contains("module 1: exports: scale_add, twice"),
        "{both}"
    );

    // Linking alone fails, naming the symbol; nothing is linked.
    let mut mods = [user];
    let mut log = null_mut();
    check!(
        ze::zeModuleDynamicLink(1, mods.as_mut_ptr(), &mut log),
        ze_result_t::ERROR_MODULE_LINK_FAILURE
    );
    assert!(
        last_error().contains("unresolved import `scale_add`"),
        "{}",
        last_error()
    );
    // The link log comes back on failure too, naming the symbol.
    let text = log_text(log);
    assert!(text.contains("unresolved import `scale_add`"), "{text}");
    check!(
        ze::zeKernelCreate(user, &desc, &mut k),
        ze_result_t::ERROR_INVALID_MODULE_UNLINKED
    );

    // Linked with the library: the kernel runs with the library's functions inlined.
    let mut mods = [user, lib];
    let mut log = null_mut();
    ok!(ze::zeModuleDynamicLink(2, mods.as_mut_ptr(), &mut log));
    let text = log_text(log);
    assert!(text.contains("module 0: linked scale_add, twice"), "{text}");
    let k = kernel(user, "link_user");
    let n = 64usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0f32; n]));
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    arg(k, 0, &bi.p);
    arg(k, 1, &bo.p);
    submit(&z, 1, |l| launch(l, k, groups(n as u32 / 8, 1, 1)));
    let out = bo.get();
    for i in 0..n {
        // scale_add(x, 3) = 3x + twice(3); + twice(i).
        assert_eq!(out[i], input[i] * 3.0 + 6.0 + 2.0 * i as f32, "{i}");
    }
    // Linking again is allowed and changes nothing.
    ok!(ze::zeModuleDynamicLink(2, mods.as_mut_ptr(), null_mut()));

    // Function pointers: a kernel's work-group function, callable from the host.
    let mut f: *mut c_void = null_mut();
    ok!(ze::zeModuleGetFunctionPointer(user, name.as_ptr(), &mut f));
    assert!(!f.is_null());
    let mut data = vec![0f32; 8];
    let args: [u64; 2] = [bi.p as u64, data.as_mut_ptr() as u64];
    let mut ctx = zekit_spirv::GroupCtx {
        local_size: [8, 1, 1],
        num_groups: [1, 1, 1],
        work_dim: 1,
        args: args.as_ptr() as usize,
        ..Default::default()
    };
    let mut private = vec![0u128; 64];
    ctx.private_mem = private.as_mut_ptr() as usize;
    // SAFETY: the address is the kernel's work-group function (the module is alive), called
    // with a context for one group of 8 whose buffers hold 8 elements.
    unsafe {
        let run: extern "C" fn(*mut zekit_spirv::GroupCtx) = std::mem::transmute(f);
        run(&mut ctx);
    }
    for i in 0..8 {
        assert_eq!(data[i], input[i] * 3.0 + 6.0 + 2.0 * i as f32);
    }
    // An exported function is inlined: it has no address; an unknown name neither.
    for bad in ["twice", "nope"] {
        let bad = CString::new(bad).unwrap();
        check!(
            ze::zeModuleGetFunctionPointer(lib, bad.as_ptr(), &mut f),
            ze_result_t::ERROR_INVALID_FUNCTION_NAME
        );
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(user));
    ok!(ze::zeModuleDestroy(lib));
}

/// The native binary of a module (size query, then the bytes).
fn native_binary(m: ze_module_handle_t) -> Vec<u8> {
    let mut size = 0usize;
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, null_mut()));
    assert!(size > 20);
    let mut small = vec![0u8; 8];
    let mut too_few = 8usize;
    check!(
        ze::zeModuleGetNativeBinary(m, &mut too_few, small.as_mut_ptr()),
        ze_result_t::ERROR_INVALID_SIZE
    );
    let mut bytes = vec![0u8; size];
    ok!(ze::zeModuleGetNativeBinary(m, &mut size, bytes.as_mut_ptr()));
    assert_eq!(size, bytes.len());
    bytes
}

fn native_desc(bytes: &[u8]) -> ze_module_desc_t {
    ze_module_desc_t {
        format: ze_module_format_t::NATIVE,
        ..module_desc(bytes)
    }
}

/// `async_work_group_copy` / `async_work_group_strided_copy` and `wait_group_events` through
/// the driver, in each way of submitting.
#[test]
fn async_work_group_copies() {
    let z = Ze::new();
    let (local, count) = (8usize, 4usize);
    let items = local * count;
    let input: Vec<f32> = (0..4 * items).map(|i| i as f32 - 30.0).collect();
    let strided: Vec<i32> = (0..items as i32).map(|i| i * 5 + 1).collect();
    let m = module(&z, &spv("async_copy"));
    let k = kernel(m, "async_copy");
    ok!(ze::zeKernelSetGroupSize(k, local as u32, 1, 1));
    for (via, mode) in MODES.iter().enumerate() {
        let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0f32; items]));
        let (bs, bso) = (Buf::new(&z, &strided), Buf::new(&z, &vec![0i32; items]));
        arg(k, 0, &bi.p);
        arg(k, 1, &bo.p);
        arg(k, 2, &bs.p);
        arg(k, 3, &bso.p);
        submit(&z, via, |l| launch(l, k, groups(count as u32, 1, 1)));
        let (out, sout) = (bo.get(), bso.get());
        for g in 0..count {
            for l in 0..local {
                let t = &input[4 * (g * local + local - 1 - l)..][..4];
                assert_eq!(out[g * local + l], t[0] + t[1] * 2.0 + t[2] * 3.0 + t[3] * 4.0);
                let at = l * count + g;
                assert_eq!(sout[at], strided[at] * 2 + l as i32, "{mode}");
            }
        }
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

/// Native binaries made in this process run in another one, where the driver's code sits at
/// other addresses: `vector_add` in groups of 5 (lockstep turns with inactive lanes, through the
/// lane shims) and `copy4` with every launch asking for non-temporal stores (through the
/// streaming shims). The child is this test again, with `ZEKIT_NATIVE_CHILD` naming the files.
#[test]
fn native_binaries_run_in_another_process() {
    let z = Ze::new();
    let n = 100usize;
    let a: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.25 - 7.0).collect();
    let b: Vec<f32> = (0..4 * n).map(|i| 3.0 - i as f32).collect();
    let run = |va: ze_module_handle_t, c4: ze_module_handle_t| {
        let (ba, bb, bc) = (Buf::new(&z, &a), Buf::new(&z, &b), Buf::new(&z, &vec![0f32; 4 * n]));
        let k = kernel(va, "vector_add");
        ok!(ze::zeKernelSetGroupSize(k, 5, 1, 1));
        for (i, p) in [ba.p, bb.p, bc.p].iter().enumerate() {
            arg(k, i as u32, p);
        }
        submit(&z, 0, |l| launch(l, k, groups(n as u32 / 5, 1, 1)));
        let sum = bc.get();
        for i in 0..n {
            assert_eq!(sum[i], a[i] + b[i], "vector_add [{i}]");
        }
        ok!(ze::zeKernelDestroy(k));
        let k = kernel(c4, "copy4");
        ok!(ze::zeKernelSetGroupSize(k, 20, 1, 1));
        arg(k, 0, &ba.p);
        arg(k, 1, &bc.p);
        submit(&z, 0, |l| launch(l, k, groups(n as u32 / 20, 1, 1)));
        assert_eq!(bc.get(), a, "copy4");
        ok!(ze::zeKernelDestroy(k));
    };
    let load = |bytes: &[u8]| {
        let mut m = null_mut();
        ok!(ze::zeModuleCreate(z.ctx, z.dev, &native_desc(bytes), &mut m, null_mut()));
        m
    };
    if let Ok(dir) = std::env::var("ZEKIT_NATIVE_CHILD") {
        let dir = std::path::PathBuf::from(dir);
        let va = load(&std::fs::read(dir.join("vector_add.bin")).unwrap());
        let c4 = load(&std::fs::read(dir.join("copy4.bin")).unwrap());
        run(va, c4);
        ok!(ze::zeModuleDestroy(va));
        ok!(ze::zeModuleDestroy(c4));
        return;
    }
    let (va, c4) = (module(&z, &spv("vector_add")), module(&z, &spv("bench/copy4")));
    run(va, c4);
    let dir = std::env::temp_dir().join(format!("zekit-native-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vector_add.bin"), native_binary(va)).unwrap();
    std::fs::write(dir.join("copy4.bin"), native_binary(c4)).unwrap();
    ok!(ze::zeModuleDestroy(va));
    ok!(ze::zeModuleDestroy(c4));
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "native_binaries_run_in_another_process", "--test-threads=1"])
        .env("ZEKIT_NATIVE_CHILD", &dir)
        .env("ZEKIT_STREAM_STORES", "1")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child: {:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("1 passed"), "{text}");
}

#[test]
fn native_binaries_load_without_compiling() {
    let z = Ze::new();
    let compiled = zekit_spirv::jit::compilations_on_this_thread;
    // Math through relocated calls to the math functions: the same bits from both modules.
    let n = 64usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 20.0) * 0.37).collect();
    let run_math = |m: ze_module_handle_t| {
        let k = kernel(m, "math");
        let (bx, bo) = (Buf::new(&z, &x), Buf::new(&z, &vec![0f32; 9 * n]));
        ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
        arg(k, 0, &bx.p);
        arg(k, 1, &bo.p);
        submit(&z, 1, |l| launch(l, k, groups(n as u32 / 8, 1, 1)));
        ok!(ze::zeKernelDestroy(k));
        bo.get().iter().map(|f| f.to_bits()).collect::<Vec<u32>>()
    };
    let before = compiled();
    let from_spirv = module(&z, &spv("math"));
    assert_eq!(compiled(), before + 1);
    let bytes = native_binary(from_spirv);
    // The math functions are named in relocations, not baked-in addresses.
    for sym in [&b"zekit_f32_Sin"[..], b"zekit_f32_Exp"] {
        assert!(bytes.windows(sym.len()).any(|w| w == sym));
    }
    let (mut m, mut log) = (null_mut(), null_mut());
    ok!(ze::zeModuleCreate(
        z.ctx,
        z.dev,
        &native_desc(&bytes),
        &mut m,
        &mut log
    ));
    // Loading compiled nothing.
    assert_eq!(compiled(), before + 1);
    assert!(log_text(log).contains("nothing compiled"));
    let want = run_math(from_spirv);
    assert_eq!(run_math(m), want);
    // Its own native binary is the same bytes.
    assert_eq!(native_binary(m), bytes);
    ok!(ze::zeModuleDestroy(m));
    ok!(ze::zeModuleDestroy(from_spirv));

    // Program-scope variables: the loaded module has its own, with their initial values.
    let g = module(&z, &spv("globals"));
    let bytes = native_binary(g);
    ok!(ze::zeModuleDestroy(g));
    let mut m = null_mut();
    ok!(ze::zeModuleCreate(
        z.ctx,
        z.dev,
        &native_desc(&bytes),
        &mut m,
        null_mut()
    ));
    let k = kernel(m, "globals");
    let out = Buf::new(&z, &vec![0i32; 64]);
    ok!(ze::zeKernelSetGroupSize(k, 8, 1, 1));
    arg(k, 0, &out.p);
    submit(&z, 1, |l| launch(l, k, groups(8, 1, 1)));
    for (i, v) in out.get().iter().enumerate() {
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
    // SAFETY: the module's 4 ints, written by the finished launch.
    let bumps = unsafe { std::slice::from_raw_parts(ptr as *const i32, 4) };
    assert_eq!(bumps, [16, 16, 16, 16]);
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));

    // Refused cleanly: SPIR-V, a truncated or corrupt binary, another version, a CPU feature
    // the host lacks (the binary re-signed so that only the feature check can fail).
    let refuse = |b: &[u8], why: &str| {
        let mut m = null_mut();
        check!(
            ze::zeModuleCreate(z.ctx, z.dev, &native_desc(b), &mut m, null_mut()),
            ze_result_t::ERROR_INVALID_NATIVE_BINARY
        );
        assert!(last_error().contains(why), "{why}: {}", last_error());
    };
    refuse(&spv("vector_add"), "not a zekit native binary");
    refuse(&bytes[..bytes.len() / 2], "checksum");
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0x40;
    refuse(&corrupt, "checksum");
    let mut v2 = bytes.clone();
    v2[8] = 99;
    refuse(&v2, "format version 99");
    // Rebuild the binary with a made-up CPU feature added to its list.
    let mut r = &bytes[20..];
    let take = |r: &mut &[u8], n: usize| {
        let (a, b) = r.split_at(n);
        *r = b;
        a.to_vec()
    };
    let len = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap()) as usize;
    let mut body = Vec::new();
    let tl = take(&mut r, 8);
    body.extend(&tl);
    body.extend(take(&mut r, len(&tl)));
    let nf = u32::from_le_bytes(take(&mut r, 4).try_into().unwrap());
    body.extend((nf + 1).to_le_bytes());
    let feature = b"has_avx1024";
    body.extend((feature.len() as u64).to_le_bytes());
    body.extend(feature);
    body.extend(r);
    let sum = body.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut foreign = bytes[..12].to_vec();
    foreign.extend(sum.to_le_bytes());
    foreign.extend(body);
    refuse(&foreign, "CPU features this host lacks: has_avx1024");
}

#[test]
fn histogram_and_float_atomics_from_every_work_group() {
    let z = Ze::new();
    let n = 4096usize;
    let m = module(&z, &spv("atomics"));
    let input: Vec<u32> = (0..n as u32).map(|i| (i * 37 + 11) % 97).collect();
    let (bi, bins, stats) = (
        Buf::new(&z, &input),
        Buf::new(&z, &[0u32; 16]),
        Buf::new(&z, &[0i64, i64::MAX, i64::MIN, -1]),
    );
    let k = kernel(m, "histogram");
    ok!(ze::zeKernelSetGroupSize(k, 64, 1, 1));
    arg(k, 0, &bi.p);
    arg(k, 1, &bins.p);
    arg(k, 2, &stats.p);
    submit(&z, 0, |l| launch(l, k, groups(n as u32 / 64, 1, 1)));
    let mut want = [0u32; 16];
    let mut ws = [0i64, i64::MAX, -i64::MAX, -1];
    for &v in &input {
        want[(v % 16) as usize] += 1;
        let w = i64::from(v) * 1_000_000_007 - 5_000_000_000;
        ws[0] += w;
        ws[1] = ws[1].min(w);
        ws[2] = ws[2].max(w);
        ws[3] &= !(1i64 << (v % 64));
    }
    assert_eq!(bins.get(), want);
    assert_eq!(stats.get(), ws);
    // Float sums of quarters are exact in any order.
    let xs: Vec<f32> = (0..n).map(|i| ((i * 13) % 41) as f32 * 0.25 - 3.0).collect();
    let (bx, bf, bd, bo) = (
        Buf::new(&z, &xs),
        Buf::new(&z, &[0.0f32, f32::INFINITY, f32::NEG_INFINITY, 0.0]),
        Buf::new(&z, &[0.0f64, f64::INFINITY, f64::NEG_INFINITY]),
        Buf::new(&z, &vec![0.0f32; n / 32 + n]),
    );
    let k = kernel(m, "float_atomics");
    ok!(ze::zeKernelSetGroupSize(k, 32, 1, 1));
    for (i, p) in [bx.p.cast::<c_void>(), bf.p.cast(), bd.p.cast(), bo.p.cast()].iter().enumerate() {
        arg(k, i as u32, p);
    }
    submit(&z, 1, |l| launch(l, k, groups(n as u32 / 32, 1, 1)));
    let sum: f32 = xs.iter().sum();
    let min = xs.iter().copied().fold(f32::INFINITY, f32::min);
    let max = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let f = bf.get();
    assert_eq!(&f[..3], &[sum, min, max]);
    assert!(xs.contains(&f[3]));
    assert_eq!(bd.get(), [2.0 * f64::from(sum), f64::from(min), f64::from(max)]);
    let out = bo.get();
    for g in 0..n / 32 {
        assert_eq!(out[g], xs[g * 32..g * 32 + 32].iter().sum::<f32>(), "group {g}");
    }
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn work_group_and_sub_group_collectives() {
    let z = Ze::new();
    let m = module(&z, &spv("groups"));
    let k = kernel(m, "wg_int");
    let mut p = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut p));
    // The collectives' slots: 8 bytes per work-item of the largest group.
    assert!(p.localMemSize >= 8 * 1024, "{}", p.localMemSize);
    assert_eq!((p.maxSubgroupSize, p.maxNumSubgroups), (8, 1024 / 8));
    let mut c = ze_device_compute_properties_t::default();
    ok!(ze::zeDeviceGetComputeProperties(z.dev, &mut c));
    assert_eq!(c.numSubGroupSizes, 2);
    assert_eq!(c.subGroupSizes[..2], [8, 16]);
    for (via, local) in [(0usize, 1usize), (1, 48), (2, 256), (0, 1024)] {
        let n = local * 6;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 101 - 30).collect();
        let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0i32; 12 * n]));
        ok!(ze::zeKernelSetGroupSize(k, local as u32, 1, 1));
        arg(k, 0, &bi.p);
        arg(k, 1, &bo.p);
        submit(&z, via, |l| launch(l, k, groups(6, 1, 1)));
        let out = bo.get();
        for (g, xs) in input.chunks(local).enumerate() {
            let (mut sum, mut min, mut max) = (0i32, i32::MAX, i32::MIN);
            for (l, &x) in xs.iter().enumerate() {
                let o = &out[12 * (g * local + l)..];
                assert_eq!([o[2], o[5], o[8]], [sum, min, max], "{} local {local}", MODES[via]);
                sum += x;
                min = min.min(x);
                max = max.max(x);
                assert_eq!([o[1], o[4], o[7], o[9]], [sum, min, max, xs[local / 3]]);
            }
            let o = &out[12 * g * local..];
            assert_eq!([o[0], o[3], o[6]], [sum, min, max]);
            assert_eq!(o[10], xs.iter().all(|x| *x > -40) as i32);
            assert_eq!(o[11], xs.contains(&13) as i32);
        }
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
    let m = module(&z, &spv("subgroups"));
    let k = kernel(m, "subgroups");
    let local = 20usize;
    let n = local * 50;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 13) % 17 - 3).collect();
    let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0i32; 14 * n]));
    ok!(ze::zeKernelSetGroupSize(k, local as u32, 1, 1));
    arg(k, 0, &bi.p);
    arg(k, 1, &bo.p);
    submit(&z, 0, |l| launch(l, k, groups(50, 1, 1)));
    let out = bo.get();
    for (g, group) in input.chunks(local).enumerate() {
        for (sg, xs) in group.chunks(8).enumerate() {
            for l in 0..xs.len() {
                let o = &out[14 * (g * local + sg * 8 + l)..];
                let want = [xs.len() as i32, 8, 3, sg as i32, l as i32, 3, xs.iter().sum()];
                assert_eq!(&o[..7], &want, "item {}", g * local + sg * 8 + l);
                assert_eq!(o[10], xs[1]);
            }
        }
    }
    // Shuffles: 16 KiB of slots (the operands and the `next`/`previous` ones).
    let k = kernel(m, "shuffles");
    let mut p = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut p));
    assert!(p.localMemSize >= 16 * 1024, "{}", p.localMemSize);
    let (local, n, c) = (32usize, 32 * 40, 3usize);
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 29) % 31 - 9).collect();
    let (bi, bo) = (Buf::new(&z, &input), Buf::new(&z, &vec![0i64; 4 * n]));
    ok!(ze::zeKernelSetGroupSize(k, local as u32, 1, 1));
    arg(k, 0, &bi.p);
    arg(k, 1, &bo.p);
    arg(k, 2, &(c as u32));
    submit(&z, 2, |l| launch(l, k, groups(40, 1, 1)));
    let out = bo.get();
    for (s, xs) in input.chunks(8).enumerate() {
        for l in 0..8 {
            let down = if l + c < 8 { xs[l + c] as f32 } else { xs[l + c - 8] as f32 + 0.5 };
            let up = if c <= l { i64::from(xs[l - c]) * 1000 } else { i64::from(xs[l + 8 - c]) };
            let want = [i64::from(xs[c]), down as i64, up, i64::from(xs[l ^ c] as u32)];
            assert_eq!(&out[4 * (s * 8 + l)..4 * (s * 8 + l) + 4], &want, "item {}", s * 8 + l);
        }
    }
    ok!(ze::zeModuleDestroy(m));
}

/// Structs and arrays as SSA values (`aggregates_ssa.ll`): a struct returned by value, select
/// and phi of aggregates, whole-struct loads and stores, aggregate constants.
#[test]
fn structs_and_arrays_as_values() {
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct Nested {
        a: i32,
        b: f32,
        c: i64,
        arr: [i32; 3],
    }
    let z = Ze::new();
    let m = module(&z, &spv("aggregates_ssa"));
    let k = kernel(m, "aggregates_ssa");
    let n = 96usize;
    let input: Vec<f32> = (0..2 * n).map(|k| k as f32 * 0.5 - 20.0).collect();
    for (via, mode) in MODES.iter().enumerate() {
        let inp = Buf::new(&z, &input);
        let out = Buf::new(&z, &vec![0f32; 2 * n]);
        let whole = Buf::new(&z, &vec![Nested::default(); n]);
        let sums = Buf::new(&z, &vec![0i64; n]);
        ok!(ze::zeKernelSetGroupSize(k, 32, 1, 1));
        arg(k, 0, &inp.p);
        arg(k, 1, &out.p);
        arg(k, 2, &whole.p);
        arg(k, 3, &sums.p);
        submit(&z, via, |l| launch(l, k, groups(3, 1, 1)));
        let (out, whole, sums) = (out.get(), whole.get(), sums.get());
        for i in 0..n {
            let (x, y) = (input[2 * i], input[2 * i + 1]);
            let want = if i % 2 == 1 { (y, x) } else { (x, y) };
            assert_eq!((out[2 * i], out[2 * i + 1]), want, "{mode}: {i}");
            let ii = i as i32;
            let (a, b, c) = if i == 5 {
                (7, 2.5f32, -1i64)
            } else {
                (ii * 3, ii as f32 * 0.5, (i as i64) << 33)
            };
            // The nested OpCompositeInsert adds 1 to member c.
            let c = c + 1;
            let mut arr = [ii, ii + 1, ii * ii];
            arr.rotate_left(i % 3 + 1);
            assert_eq!(whole[i], Nested { a, b, c, arr }, "{mode}: {i}");
            let sum = i64::from(a) + b as i64 + c + arr.iter().map(|x| i64::from(*x)).sum::<i64>();
            assert_eq!(sums[i], sum + 30 + i64::from(a as i16), "{mode}: {i}");
        }
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

/// `vector_add.spv` with its kernel renamed to `name` (same length: every occurrence of the
/// name's bytes is replaced, so the module stays valid).
fn vector_add_named(name: &str) -> Vec<u8> {
    let old = b"vector_add";
    assert_eq!(name.len(), old.len());
    let mut bytes = spv("vector_add");
    let mut i = 0;
    while i + old.len() <= bytes.len() {
        if &bytes[i..i + old.len()] == old {
            bytes[i..i + old.len()].copy_from_slice(name.as_bytes());
            i += old.len();
        } else {
            i += 1;
        }
    }
    bytes
}

/// Runs kernel `name` (vector_add's code) of `m` over 256 elements and checks the sums.
fn check_vector_add(z: &Ze, m: ze_module_handle_t, name: &str) {
    let n = 256;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let (ba, bb, bc) = (Buf::new(z, &a), Buf::new(z, &b), Buf::new(z, &vec![0f32; n]));
    let k = kernel(m, name);
    ok!(ze::zeKernelSetGroupSize(k, 32, 1, 1));
    for (i, p) in [ba.p, bb.p, bc.p].iter().enumerate() {
        arg(k, i as u32, p);
    }
    submit(z, 2, |l| launch(l, k, groups(n as u32 / 32, 1, 1)));
    let c = bc.get();
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "{name}: element {i}");
    }
    ok!(ze::zeKernelDestroy(k));
}

#[test]
fn code_generator_failure_answers_every_consumer() {
    let z = Ze::new();
    // zeModuleCreate returns before the code is generated: the failure comes at the consumers.
    ze_zekit_cpu::model::build_pool::fail_codegen_of("vector_adX");
    let m = module(&z, &vector_add_named("vector_adX"));
    let name = CString::new("vector_adX").unwrap();
    let desc = ze_kernel_desc_t {
        pKernelName: name.as_ptr(),
        ..Default::default()
    };
    for _ in 0..2 {
        let mut k = null_mut();
        check!(
            ze::zeKernelCreate(m, &desc, &mut k),
            ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
        );
        assert!(k.is_null());
        let e = zeh::last_error();
        assert!(e.contains("kernel `vector_adX`") && e.contains("internal compiler error"), "{e}");
    }
    let mut size = 0;
    check!(
        ze::zeModuleGetNativeBinary(m, &mut size, null_mut()),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    let mut f = null_mut();
    check!(
        ze::zeModuleGetFunctionPointer(m, name.as_ptr(), &mut f),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    ok!(ze::zeModuleDestroy(m));
    // Other modules are not affected.
    let m = module(&z, &spv("vector_add"));
    check_vector_add(&z, m, "vector_add");
    ok!(ze::zeModuleDestroy(m));
}

/// `subgroups.spv` with its `intel_reqd_sub_group_size(8)` kernel asking for `size` instead.
fn subgroups_requiring(size: u32) -> Vec<u8> {
    let mut w: Vec<u32> = spv("subgroups")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // OpExecutionMode %k SubgroupSize 8
    let at = (5..w.len() - 3)
        .find(|&i| w[i] == (4 << 16 | 16) && w[i + 2] == 35 && w[i + 3] == 8)
        .expect("the SubgroupSize execution mode");
    w[at + 3] = size;
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn required_sub_group_sizes_through_the_loader() {
    let z = Ze::new();
    let props = |k| {
        let mut pref = ze_kernel_preferred_group_size_properties_t::default();
        let mut p = ze_kernel_properties_t {
            pNext: (&mut pref as *mut ze_kernel_preferred_group_size_properties_t).cast(),
            ..Default::default()
        };
        ok!(ze::zeKernelGetProperties(k, &mut p));
        (p.requiredSubgroupSize, p.maxSubgroupSize, p.maxNumSubgroups, pref.preferredMultiple)
    };
    for (size, want_reqd) in [(8u32, 8u32), (16, 16)] {
        let m = module(&z, &subgroups_requiring(size));
        let k = kernel(m, "reqd_sub_group");
        assert_eq!(props(k), (want_reqd, size, 1024 / size, size));
        // A kernel that requires nothing has sub-groups of 8.
        let plain = kernel(m, "subgroups");
        assert_eq!(props(plain), (0, 8, 128, 8));
        let (local, groups_n) = (20usize, 3usize);
        let bo = Buf::new(&z, &vec![0i32; local * groups_n]);
        ok!(ze::zeKernelSetGroupSize(k, local as u32, 1, 1));
        arg(k, 0, &bo.p);
        submit(&z, 0, |l| launch(l, k, groups(groups_n as u32, 1, 1)));
        let s = size as usize;
        let want: Vec<i32> = (0..local * groups_n)
            .map(|i| {
                let l = i % local;
                let len = s.min(local - l / s * s);
                (len * 100 + l % s) as i32
            })
            .collect();
        assert_eq!(bo.get(), want, "sub-groups of {size}");
        ok!(ze::zeKernelDestroy(k));
        ok!(ze::zeKernelDestroy(plain));
        ok!(ze::zeModuleDestroy(m));
    }
    // Sizes the device does not report are refused, naming the size.
    let mut m = null_mut();
    check!(
        ze::zeModuleCreate(z.ctx, z.dev, &module_desc(&subgroups_requiring(32)), &mut m, null_mut()),
        ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
    );
    assert!(last_error().contains("required sub-group size of 32"), "{}", last_error());
}

#[test]
fn modules_destroyed_while_their_code_is_generated() {
    let z = Ze::new();
    let names = ["vector_add", "math", "reduce", "atomics", "vectors"];
    let corpus: Vec<Vec<u8>> = names
        .iter()
        .filter_map(|n| {
            std::fs::read(format!("{}/../spirv/kernels/{n}.spv", env!("CARGO_MANIFEST_DIR"))).ok()
        })
        .collect();
    assert!(corpus.len() >= 2);
    for _ in 0..10 {
        let ms: Vec<_> = corpus.iter().map(|b| module(&z, b)).collect();
        for m in ms {
            ok!(ze::zeModuleDestroy(m));
        }
    }
    // Then the workers still build modules.
    let m = module(&z, &spv("vector_add"));
    check_vector_add(&z, m, "vector_add");
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn kernels_created_from_several_threads_while_the_code_is_generated() {
    let z = Ze::new();
    for _ in 0..4 {
        let m = module(&z, &spv("vector_add"));
        let mh = m as usize;
        let zr = &z;
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || check_vector_add(zr, mh as ze_module_handle_t, "vector_add"));
            }
        });
        ok!(ze::zeModuleDestroy(m));
    }
}
