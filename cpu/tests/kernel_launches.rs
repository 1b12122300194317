//! Kernel launches through the CPU driver, in process: several kernels and indirect launches,
//! launches with parameters and arguments, async copies, atomics, collectives, structs, required
//! sub-group sizes.
// `ok!`/`check!` call the unsafe C entry points; every call passes valid arguments (or
// deliberately bad ones the driver must reject).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use zeh::kernels::*;
use zeh::*;

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

/// A kernel that leaves no trace has nothing to run: its launches complete at once, however
/// many groups they have, and a dead load through a bad pointer does not fault (it would
/// end the launch with DEVICE_LOST if it ran); the same body with a store runs.
#[test]
fn launches_of_kernels_without_effects_have_nothing_to_run() {
    let z = Ze::new();
    let m = module(&z, &spv("dpcpp/no_effects"));
    let (quiet, writes) = (kernel(m, "reads_only"), kernel(m, "writes"));
    let bad = 16usize as *mut c_void;
    for k in [quiet, writes] {
        ok!(ze::zeKernelSetGroupSize(k, 1, 1, 1));
        arg(k, 0, &bad);
    }
    for (via, mode) in MODES.iter().enumerate() {
        submit(&z, via, |l| launch(l, quiet, groups(65535, 65535, 1)));
        let b = Buf::new(&z, &[7u32]);
        arg(writes, 0, &b.p);
        submit(&z, via, |l| launch(l, writes, groups(1, 1, 1)));
        assert_eq!(b.get(), vec![21], "{mode}");
    }
    ok!(ze::zeKernelDestroy(quiet));
    ok!(ze::zeKernelDestroy(writes));
    ok!(ze::zeModuleDestroy(m));
}

/// Kernels tier up to LLVM's code (`ZEKIT_TIER=auto`, LLVM built in) between launches, in a
/// process of their own: the threshold (`ZEKIT_TIER_UP_MS=0`: after the first launch) and the
/// tier are read from the environment once.
#[cfg(feature = "llvm")]
#[test]
fn kernels_tier_up_to_llvm_between_launches() {
    if std::env::var_os("ZEKIT_TIER_UP_CHILD").is_none() {
        tier_up_child("kernels_tier_up_to_llvm_between_launches");
        return;
    }
    let upgrades = zekit_spirv::jit::tierup::upgrades;
    let z = Ze::new();
    let m = module(&z, &spv("saxpy"));
    let k = kernel(m, "saxpy");
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let (bx, by) = (Buf::new(&z, &x), Buf::new(&z, &vec![1f32; n]));
    ok!(ze::zeKernelSetGroupSize(k, 64, 1, 1));
    arg(k, 0, &3f32);
    arg(k, 1, &bx.p);
    arg(k, 2, &by.p);
    arg(k, 3, &(n as u32));
    // y = 3x + y, launch after launch: Cranelift's code first, then LLVM's.
    let mut expect = vec![1f32; n];
    let mut step = |z: &Ze| {
        submit(z, 0, |l| launch(l, k, groups(n.div_ceil(64) as u32, 1, 1)));
        for (e, x) in expect.iter_mut().zip(&x) {
            *e += 3.0 * x;
        }
        assert_eq!(by.get(), expect);
    };
    assert_eq!(upgrades(), 0);
    step(&z);
    let t = std::time::Instant::now();
    while upgrades() == 0 {
        assert!(t.elapsed().as_secs() < 120, "saxpy did not tier up in 2 minutes");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // On LLVM's code now, with the same results.
    for _ in 0..3 {
        step(&z);
    }
    assert_eq!(upgrades(), 1);
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

/// A process that ends while a kernel is being compiled by LLVM in the background ends cleanly:
/// the exit waits for that compilation (`spirv/src/backend/tierup.rs`, `at_exit`). Three
/// processes, each ending right after queueing its second kernel.
#[cfg(feature = "llvm")]
#[test]
fn exiting_during_a_tier_up_compilation_is_clean() {
    if std::env::var_os("ZEKIT_TIER_UP_CHILD").is_none() {
        for _ in 0..3 {
            tier_up_child("exiting_during_a_tier_up_compilation_is_clean");
        }
        return;
    }
    let z = Ze::new();
    let m = module(&z, &spv("saxpy"));
    let k = kernel(m, "saxpy");
    let n = 64usize;
    let (bx, by) = (Buf::new(&z, &vec![1f32; n]), Buf::new(&z, &vec![0f32; n]));
    ok!(ze::zeKernelSetGroupSize(k, 64, 1, 1));
    arg(k, 0, &2f32);
    arg(k, 1, &bx.p);
    arg(k, 2, &by.p);
    arg(k, 3, &(n as u32));
    submit(&z, 0, |l| launch(l, k, groups(1, 1, 1)));
    assert_eq!(by.get(), vec![2f32; n]);
    // The process's first LLVM compilation (saxpy) ran on the launching thread; the next one,
    // vector_add's, runs in the background, and the process ends now, most likely during it.
    let m2 = module(&z, &spv("vector_add"));
    let add = kernel(m2, "vector_add");
    let bc = Buf::new(&z, &vec![0f32; n]);
    ok!(ze::zeKernelSetGroupSize(add, 64, 1, 1));
    arg(add, 0, &bx.p);
    arg(add, 1, &by.p);
    arg(add, 2, &bc.p);
    submit(&z, 0, |l| launch(l, add, groups(1, 1, 1)));
    assert_eq!(bc.get(), vec![3f32; n]);
    assert!(zekit_spirv::jit::tierup::pending() + zekit_spirv::jit::tierup::upgrades() as usize > 1);
}

/// Runs test `name` of this binary in a process of its own in which kernels tier up after
/// their first launch (`ZEKIT_TIER=auto`, `ZEKIT_TIER_UP_MS=0`: the environment is read once),
/// and asserts that it passed and exited cleanly.
#[cfg(feature = "llvm")]
fn tier_up_child(name: &str) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1"])
        .env("ZEKIT_TIER_UP_CHILD", "1")
        .env("ZEKIT_TIER", "auto")
        .env("ZEKIT_TIER_UP_MS", "0")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child: {:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("1 passed"), "{text}");
}
