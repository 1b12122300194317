//! Structs and arrays as SSA values (`kernels/aggregates_ssa.ll`, LLVM IR through llvm-spirv:
//! clang's OpenCL C passes aggregates through memory on spir64), run against host references.
#![cfg(feature = "jit")]

use std::collections::HashMap;

use zekit_spirv::compile;

mod common;
use common::*;

/// `%nested = { { i32, float, i64 }, [3 x i32] }` in its natural layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Nested {
    a: i32,
    b: f32,
    c: i64,
    arr: [i32; 3],
}

#[test]
fn structs_and_arrays_as_values() {
    let p = program("aggregates_ssa");
    let n = 64usize;
    let input: Vec<f32> = (0..2 * n).map(|k| k as f32 * 1.25 - 7.0).collect();
    let mut out = vec![0f32; 2 * n];
    let mut whole = vec![Nested::default(); n];
    let mut sums = vec![0i64; n];
    run_1d(
        &p,
        "aggregates_ssa",
        &[
            input.as_ptr() as u64,
            out.as_mut_ptr() as u64,
            whole.as_mut_ptr() as u64,
            sums.as_mut_ptr() as u64,
        ],
        n as u64,
        16,
    );
    for i in 0..n {
        // swap2 returns the struct swapped; odd work-items select the swapped one.
        let (x, y) = (input[2 * i], input[2 * i + 1]);
        let (tx, ty) = if i % 2 == 1 { (y, x) } else { (x, y) };
        assert_eq!((out[2 * i], out[2 * i + 1]), (tx, ty), "work-item {i}");
        let ii = i as i32;
        // make_mixed, or the constant struct for work-item 5.
        let (a, b, c) = if i == 5 {
            (7, 2.5f32, -1i64)
        } else {
            (ii * 3, ii as f32 * 0.5, (i as i64) << 33)
        };
        // The nested OpCompositeInsert adds 1 to member c.
        let c = c + 1;
        // The array {i, i+1, i*i} rotated left (i % 3) + 1 times through a loop phi.
        let mut arr = [ii, ii + 1, ii * ii];
        arr.rotate_left(i % 3 + 1);
        let want = Nested { a, b, c, arr };
        assert_eq!(whole[i], want, "work-item {i}");
        let sum = i64::from(a) + b as i64 + c + arr.iter().map(|x| i64::from(*x)).sum::<i64>() + 30;
        // The i16 member of `%withvec` adds `a` truncated.
        let sum = sum + i64::from(a as i16);
        assert_eq!(sums[i], sum, "work-item {i}");
    }
}

/// The same shapes from OpenCL C (`kernels/struct_values.cl`): clang returns structs through
/// an sret pointer, passes them byval and copies them whole with OpCopyMemorySized.
#[test]
fn structs_by_value_from_opencl_c() {
    let p = program("struct_values");
    let n = 48usize;
    let input: Vec<f32> = (0..2 * n).map(|k| 3.0 - k as f32 * 0.75).collect();
    let mut out = vec![0f32; 2 * n];
    let mut whole = vec![Nested::default(); n];
    let mut sums = vec![0i64; n];
    run_1d(
        &p,
        "struct_values",
        &[
            input.as_ptr() as u64,
            out.as_mut_ptr() as u64,
            whole.as_mut_ptr() as u64,
            sums.as_mut_ptr() as u64,
        ],
        n as u64,
        8,
    );
    for i in 0..n {
        let (x, y) = (input[2 * i], input[2 * i + 1]);
        let (tx, ty) = if i % 2 == 1 { (y, x) } else { (x, y) };
        assert_eq!((out[2 * i], out[2 * i + 1]), (tx, ty), "work-item {i}");
        let ii = i as i32;
        let (a, b, c) = (ii * 3, ii as f32 * 0.5, (i as i64) << 33);
        let mut arr = [ii, ii + 1, ii * ii];
        arr.rotate_left(i % 3);
        assert_eq!(whole[i], Nested { a, b, c, arr }, "work-item {i}");
        let sum = i64::from(a) + b as i64 + c + arr.iter().map(|x| i64::from(*x)).sum::<i64>();
        assert_eq!(sums[i], sum, "work-item {i}");
    }
}

/// SPIR-V words of a committed kernel.
fn words(name: &str) -> Vec<u32> {
    std::fs::read(format!("{}/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An aggregate value of more than 256 scalars is refused by name, not lowered.
#[test]
fn oversized_aggregate_values_are_refused() {
    let mut w = words("aggregates_ssa");
    // The `[3 x i32]` of the loop's phi: OpTypeArray (28), length operand, set to 300.
    let mut at = 5;
    let mut len_id = None;
    while at < w.len() {
        let (n, op) = ((w[at] >> 16) as usize, w[at] & 0xffff);
        if op == 28 {
            len_id = Some(w[at + 3]);
        }
        at += n.max(1);
    }
    let len_id = len_id.expect("an OpTypeArray");
    let mut at = 5;
    while at < w.len() {
        let (n, op) = ((w[at] >> 16) as usize, w[at] & 0xffff);
        if op == 43 && w[at + 2] == len_id {
            assert_eq!(w[at + 3], 3);
            w[at + 3] = 300;
        }
        at += n.max(1);
    }
    let e = compile(&bytes(&w), &HashMap::new()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("unsupported: kernel `aggregates_ssa`")
            && e.to_string().contains("more than 256 scalars"),
        "{e}"
    );
}

/// A composite constant that contains itself is invalid SPIR-V, reported, not recursed into.
#[test]
fn self_containing_composite_constant_is_invalid() {
    let mut w = words("aggregates_ssa");
    // The `%mixed { i32 7, float 2.5, i64 -1 }` constant: OpConstantComposite (44) of 3 parts.
    let mut at = 5;
    let mut done = false;
    while at < w.len() {
        let (n, op) = ((w[at] >> 16) as usize, w[at] & 0xffff);
        if op == 44 && n == 6 && !done {
            w[at + 3] = w[at + 2];
            done = true;
        }
        at += n.max(1);
    }
    assert!(done);
    let e = compile(&bytes(&w), &HashMap::new()).unwrap_err();
    assert!(
        e.is_invalid() && e.to_string().contains("nested too deeply"),
        "{e}"
    );
}
