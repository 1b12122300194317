//! Through the CPU driver, in process: `half` kernel arguments set with
//! `zeKernelSetArgumentValue` (2-byte elements), and non-uniform sub-group operations
//! (`OpGroupNonUniform*`) in launches of many groups spread over the worker threads, against
//! host references.
// `ok!`/`check!` call the unsafe C entry points with valid arguments (or deliberately bad ones).
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ptr::null_mut;

use zeh::*;

/// Sets argument `i` to the bytes of `v`.
fn arg_bytes(k: ze_kernel_handle_t, i: u32, v: &[u8]) {
    ok!(ze::zeKernelSetArgumentValue(
        k,
        i,
        v.len(),
        v.as_ptr().cast()
    ));
}

/// Launches `k` on `groups` groups through a queue and waits.
fn launch(z: &Ze, k: ze_kernel_handle_t, groups: u32) {
    let q = z.queue(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let l = z.list(0);
    let g = ze_group_count_t {
        groupCountX: groups,
        groupCountY: 1,
        groupCountZ: 1,
    };
    ok!(ze::zeCommandListAppendLaunchKernel(
        l,
        k,
        &g,
        null_mut(),
        0,
        null_mut()
    ));
    run(z, q, l);
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeCommandQueueDestroy(q));
}

/// IEEE half bits of a float that is a normal half (or zero) exactly.
fn half_bits(x: f32) -> [u8; 2] {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let h = if x == 0.0 {
        sign
    } else {
        let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
        assert!((1..31).contains(&e));
        sign | ((e as u16) << 10) | ((b >> 13) & 0x3ff) as u16
    };
    h.to_le_bytes()
}

fn halves(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| half_bits(*x)).collect()
}

#[test]
fn half_arguments_set_with_two_byte_elements() {
    let z = Ze::new();
    let m = module(&z, &spv("half_arg"));
    let k = kernel(m, "half_args");
    let v: Vec<f32> = (0..32).map(|j| (j as f32 - 13.0) * 0.625).collect();
    let out = buffer(&z, &vec![f32::NAN; 40 * 6]);
    arg_bytes(k, 0, &(out as u64).to_le_bytes());
    // A half is 2 bytes: 4 (a float's size) is refused.
    check!(
        ze::zeKernelSetArgumentValue(k, 1, 4, (&1.0f32 as *const f32).cast()),
        ze_result_t::ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    arg_bytes(k, 1, &half_bits(-2.5));
    arg_bytes(k, 2, &halves(&v[0..2]));
    arg_bytes(k, 3, &3.75f32.to_le_bytes());
    // half3 is 8 bytes, as sizeof(half3) in OpenCL C; 6 is refused.
    check!(
        ze::zeKernelSetArgumentValue(k, 4, 6, halves(&v[2..5]).as_ptr().cast()),
        ze_result_t::ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    arg_bytes(k, 4, &halves(&v[2..6]));
    arg_bytes(k, 5, &halves(&v[6..10]));
    arg_bytes(k, 6, &halves(&v[10..18]));
    arg_bytes(k, 7, &halves(&v[16..32]));
    arg_bytes(k, 8, &(-300i16).to_le_bytes());
    ok!(ze::zeKernelSetGroupSize(k, 3, 1, 1));
    launch(&z, k, 2);
    let got = read(out, 40 * 6);
    for i in 0..6 {
        let o = &got[40 * i..40 * i + 38];
        let mut want = vec![-2.5, -2.5 * i as f32 + v[1]];
        want.extend(&v[0..2]);
        want.push(3.75);
        want.extend(&v[2..5]);
        want.extend(&v[6..18]);
        want.extend(&v[16..32]);
        want.push(-300.0);
        want.push(v[9] * v[9]);
        assert_eq!(o, &want[..], "item {i}");
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}

#[test]
fn non_uniform_sub_group_operations_on_worker_threads() {
    let z = Ze::new();
    let m = module(&z, &spv("nonuniform"));
    let k = kernel(m, "nu_arith_int");
    let mut p = ze_kernel_properties_t::default();
    ok!(ze::zeKernelGetProperties(k, &mut p));
    // Operand slots, the shuffles' second array and the arrival tags.
    assert!(p.localMemSize >= 20 * 1024, "{}", p.localMemSize);
    let (local, groups) = (20usize, 64usize);
    let n = local * groups;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 37 + 11) % 23 - 7).collect();
    let act: Vec<i32> = (0..n).map(|i| i32::from(i % 3 != 0)).collect();
    let (bi, ba) = (buffer(&z, &input), buffer(&z, &act));
    let bo = buffer(&z, &vec![0i32; 44 * n]);
    ok!(ze::zeKernelSetGroupSize(k, local as u32, 1, 1));
    for (i, p) in [bi as u64, ba as u64, bo as u64].iter().enumerate() {
        arg_bytes(k, i as u32, &p.to_le_bytes());
    }
    launch(&z, k, groups as u32);
    let out = read(bo, 44 * n);
    for g in 0..groups {
        for s in (0..local).step_by(8) {
            let items: Vec<usize> = (g * local + s..g * local + (s + 8).min(local)).collect();
            for (me, &i) in items.iter().enumerate() {
                let on = act[i] != 0;
                // Sums over the work-items in the same branch, before and up to `me`.
                let same = |k: &usize| (act[items[*k]] != 0) == on;
                let x = |k: usize| input[items[k]] * if on { 1 } else { 2 };
                let all: i32 = (0..items.len()).filter(same).map(x).sum();
                let upto: i32 = (0..=me).filter(same).map(x).sum();
                if on {
                    assert_eq!(
                        &out[44 * i..44 * i + 3],
                        &[all, upto, upto - x(me)],
                        "item {i}"
                    );
                } else {
                    assert_eq!(out[44 * i + 43], upto, "item {i}");
                }
            }
        }
    }
    ok!(ze::zeKernelDestroy(k));
    let k = kernel(m, "nu_then_barrier");
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 2001 - 1000).collect();
    let bi = buffer(&z, &input);
    let bo = buffer(&z, &vec![0i32; n]);
    ok!(ze::zeKernelSetGroupSize(k, local as u32, 1, 1));
    arg_bytes(k, 0, &(bi as u64).to_le_bytes());
    arg_bytes(k, 1, &(bo as u64).to_le_bytes());
    launch(&z, k, groups as u32);
    let out = read(bo, n);
    let mut x = input.clone();
    for g in 0..groups {
        for s in (0..local).step_by(8) {
            let items = g * local + s..g * local + (s + 8).min(local);
            let odd: i32 = items.clone().map(|i| input[i]).filter(|v| v & 1 != 0).sum();
            for i in items.filter(|&i| input[i] & 1 != 0) {
                x[i] = odd;
            }
        }
    }
    for (i, o) in out.iter().enumerate() {
        let (g, l) = (i / local, i % local);
        assert_eq!(*o, x[g * local + (l + 9) % local], "item {i}");
    }
    ok!(ze::zeKernelDestroy(k));
    ok!(ze::zeModuleDestroy(m));
}
