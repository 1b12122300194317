//! Function pointers (`kernels/fnptr.cl`), run directly against host references: tables in
//! constant and private memory, pointers from the host as arguments and in structs, stored,
//! compared, passed on, recursion, bad pointer values, native binaries.
#![cfg(feature = "jit")]

mod common;

use common::{addr, program, run_1d};
use zekit_spirv::Program;

const N: usize = 64;

fn ints(seed: i32) -> Vec<i32> {
    (0..N as i32).map(|i| (i * 37 + seed) % 41 - 20).collect()
}

fn f(p: &Program, name: &str) -> u64 {
    p.function(name)
        .unwrap_or_else(|| panic!("no pointer for `{name}`")) as u64
}

fn add(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}
fn sub(a: i32, b: i32) -> i32 {
    a.wrapping_sub(b)
}
fn mul(a: i32, b: i32) -> i32 {
    a.wrapping_mul(b)
}
fn max_of(a: i32, b: i32) -> i32 {
    a.max(b)
}

#[test]
fn table_in_constant_memory_selected_by_data() {
    let p = program("fnptr");
    let sel: Vec<i32> = (0..N as i32).map(|i| (i * 7) % 11).collect();
    let (a, b) = (ints(3), ints(11));
    let mut out = vec![0i32; N];
    let (mut s2, mut a2, mut b2) = (sel.clone(), a.clone(), b.clone());
    run_1d(
        &p,
        "fp_table",
        &[addr(&mut s2), addr(&mut a2), addr(&mut b2), addr(&mut out)],
        N as u64,
        8,
    );
    let ops = [add, sub, mul, max_of];
    for i in 0..N {
        assert_eq!(out[i], ops[sel[i] as usize % 4](a[i], b[i]), "{i}");
    }
}

#[test]
fn private_table_and_pointer_passed_to_a_function() {
    let p = program("fnptr");
    let (mut a, mut b) = (ints(5), ints(17));
    let mut out = vec![0i32; 2 * N];
    run_1d(
        &p,
        "fp_private",
        &[addr(&mut a), addr(&mut b), addr(&mut out)],
        N as u64,
        16,
    );
    for i in 0..N {
        // ops[0] = a > b ? sub : add; ops[1] = i & 2 ? mul : max_of; called: ops[i & 1].
        let g = if a[i] > b[i] { sub } else { add };
        let h = if i & 2 != 0 { mul } else { max_of };
        let first = if i & 1 == 1 { h } else { g };
        assert_eq!(out[2 * i], first(a[i], b[i]), "{i}");
        assert_eq!(out[2 * i + 1], g(g(a[i], b[i]), b[i]), "{i}");
    }
}

/// `fp_arg` with `fa` as the pointer: f(a, b) * 16 + which.
fn run_arg(p: &Program, fa: u64) -> Vec<i32> {
    let (mut a, mut b) = (ints(1), ints(2));
    let mut out = vec![-1i32; N];
    run_1d(
        p,
        "fp_arg",
        &[addr(&mut a), addr(&mut b), addr(&mut out), fa],
        N as u64,
        8,
    );
    out
}

#[test]
fn host_pointer_as_argument_compared_and_called() {
    let p = program("fnptr");
    let (a, b) = (ints(1), ints(2));
    for (name, op, which) in [
        ("add", add as fn(i32, i32) -> i32, 1),
        ("sub", sub, 2),
        ("mul", mul, 3),
        ("max_of", max_of, 0),
    ] {
        let out = run_arg(&p, f(&p, name));
        for i in 0..N {
            assert_eq!(out[i], op(a[i], b[i]) * 16 + which, "{name} {i}");
        }
    }
}

#[test]
fn bad_pointer_values_return_zero_and_do_not_crash() {
    let p = program("fnptr");
    let other = program("fnptr");
    let kernel_entry = p.kernel("fp_arg").unwrap().entry() as u64;
    let data = p.function("add").unwrap() as u64;
    for bad in [
        0,
        1,
        12345,
        u64::MAX,
        data + 1,
        data + 4,
        kernel_entry,
        // A function of another signature.
        f(&p, "square"),
        // The same function in another instance of the module.
        f(&other, "add"),
    ] {
        assert_eq!(run_arg(&p, bad), vec![0; N], "{bad:#x}");
    }
}

#[test]
fn pointers_stored_by_kernels_equal_the_hosts() {
    let p = program("fnptr");
    let mut out = vec![0u64; 6];
    run_1d(&p, "fp_store", &[addr(&mut out)], 1, 1);
    let names = ["add", "sub", "mul", "max_of", "half_of", "put_twice"];
    let want: Vec<u64> = names.iter().map(|n| f(&p, n)).collect();
    assert_eq!(out, want);
    // Distinct, and inside the module's data.
    let mut sorted = want.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    assert!(want.iter().all(|v| *v >= p.data_address() as u64));
    // Kernels are not function pointers of the data: they keep their work-group function.
    assert!(p.function("fp_table").is_none());
    assert!(p.function("nope").is_none());
    // Another instance has its own values.
    let q = program("fnptr");
    assert_ne!(f(&q, "add"), f(&p, "add"));
}

#[repr(C)]
#[derive(Clone, Copy)]
struct ScaledOp {
    f: u64,
    scale: f32,
    _pad: u32,
}

#[test]
fn pointers_in_structs_of_another_signature() {
    let p = program("fnptr");
    let (half, square) = (f(&p, "half_of"), f(&p, "square"));
    let mut ops: Vec<ScaledOp> = (0..N)
        .map(|i| ScaledOp {
            f: match i % 3 {
                0 => half,
                1 => square,
                _ => f(&p, "add"), // (int, int) -> int: not callable as float -> float
            },
            scale: i as f32 * 0.5,
            _pad: 0,
        })
        .collect();
    let mut x: Vec<f32> = (0..N).map(|i| i as f32 * 0.75 - 10.0).collect();
    let mut out = vec![-1f32; N];
    run_1d(
        &p,
        "fp_struct",
        &[addr(&mut ops), addr(&mut x), addr(&mut out)],
        N as u64,
        8,
    );
    for i in 0..N {
        let v = match i % 3 {
            0 => x[i] * 0.5,
            1 => x[i] * x[i],
            _ => 0.0,
        };
        assert_eq!(out[i], v * ops[i].scale, "{i}");
    }
}

#[test]
fn void_functions_through_pointers() {
    let p = program("fnptr");
    let mut x: Vec<f32> = (0..N).map(|i| i as f32 - 30.5).collect();
    let mut out = vec![0f32; N];
    run_1d(&p, "fp_void", &[addr(&mut x), addr(&mut out)], N as u64, 8);
    for i in 0..N {
        let want = if x[i] < 0.0 { -x[i] } else { 2.0 * x[i] };
        assert_eq!(out[i], want, "{i}");
    }
}

#[test]
fn recursion_through_a_pointer_stops_at_the_recursive_call() {
    let p = program("fnptr");
    let mut n: Vec<i32> = (0..N as i32).map(|i| i - 8).collect();
    let mut out = vec![-1i32; N];
    let me = f(&p, "countdown");
    run_1d(
        &p,
        "fp_recursive",
        &[addr(&mut n), addr(&mut out), me],
        N as u64,
        8,
    );
    for i in 0..N {
        // countdown(n) = n + (recursive call: 0) for n > 0.
        assert_eq!(out[i], n[i].max(0), "{i}");
    }
    let mut out = vec![-1i32; N];
    run_1d(
        &p,
        "fp_recursive",
        &[addr(&mut n), addr(&mut out), 7],
        N as u64,
        8,
    );
    assert_eq!(out, vec![0; N]);
}

#[test]
fn native_binary_keeps_function_pointers() {
    let p = program("fnptr");
    let bin = p.native_binary().unwrap();
    let q = zekit_spirv::native::load(&bin).unwrap();
    assert_eq!(
        p.functions.iter().map(|f| &f.0).collect::<Vec<_>>(),
        q.functions.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    // Relocated to the loaded module's data: its constant table and its pointers work.
    let mut out = vec![0u64; 6];
    run_1d(&q, "fp_store", &[addr(&mut out)], 1, 1);
    assert_eq!(out[0], f(&q, "add"));
    assert_ne!(out[0], f(&p, "add"));
    let sel: Vec<i32> = (0..N as i32).map(|i| i % 4).collect();
    let (a, b) = (ints(3), ints(11));
    let mut out = vec![0i32; N];
    let (mut s2, mut a2, mut b2) = (sel.clone(), a.clone(), b.clone());
    run_1d(
        &q,
        "fp_table",
        &[addr(&mut s2), addr(&mut a2), addr(&mut b2), addr(&mut out)],
        N as u64,
        8,
    );
    let ops = [add, sub, mul, max_of];
    for i in 0..N {
        assert_eq!(out[i], ops[sel[i] as usize](a[i], b[i]), "{i}");
    }
    let out = run_arg(&q, f(&q, "mul"));
    assert_eq!(out[5], mul(ints(1)[5], ints(2)[5]) * 16 + 3);
}

/// The module's words, and the word index of each instruction with opcode `op`.
fn find(words: &[u32], op: u32) -> Vec<usize> {
    let mut at = 5;
    let mut out = Vec::new();
    while at < words.len() {
        if words[at] & 0xffff == op {
            out.push(at);
        }
        at += (words[at] >> 16).max(1) as usize;
    }
    out
}

fn words() -> Vec<u32> {
    std::fs::read(format!("{}/kernels/fnptr.spv", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn compile(w: &[u32]) -> Result<Program, zekit_spirv::Error> {
    let b: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    zekit_spirv::compile(&b, &Default::default())
}

#[test]
fn refusals_name_the_problem() {
    // OpSpecConstantOp other than a cast of a function pointer (here: SNegate).
    let mut w = words();
    let at = find(&w, 52)[0];
    assert_eq!(w[at + 3], 121);
    w[at + 3] = 126;
    let e = compile(&w).unwrap_err().to_string();
    assert!(e.contains("OpSpecConstantOp at module scope"), "{e}");
    // A pointer to something that is not a function.
    let mut w = words();
    let at = find(&w, 5600)[0];
    w[at + 3] = w[at + 1]; // its own type
    let e = compile(&w).unwrap_err().to_string();
    assert!(
        e.starts_with("invalid SPIR-V") && e.contains("not a function"),
        "{e}"
    );
}

#[test]
fn without_the_capability_functions_have_no_pointer_value() {
    // FunctionPointersINTEL replaced by a second Kernel capability: pointers the module takes
    // still work, exported functions get no value for the host.
    let mut w = words();
    let at = find(&w, 17).into_iter().find(|a| w[a + 1] == 5603).unwrap();
    w[at + 1] = 6;
    let p = compile(&w).unwrap();
    assert!(p.functions.is_empty());
    let mut out = vec![0u64; 6];
    run_1d(&p, "fp_store", &[addr(&mut out)], 1, 1);
    assert!(out.iter().all(|v| *v >= p.data_address() as u64));
    let sel: Vec<i32> = (0..N as i32).map(|i| i % 4).collect();
    let (a, b) = (ints(3), ints(11));
    let mut o = vec![0i32; N];
    let (mut s2, mut a2, mut b2) = (sel.clone(), a.clone(), b.clone());
    run_1d(
        &p,
        "fp_table",
        &[addr(&mut s2), addr(&mut a2), addr(&mut b2), addr(&mut o)],
        N as u64,
        8,
    );
    let ops = [add, sub, mul, max_of];
    for i in 0..N {
        assert_eq!(o[i], ops[i % 4](a[i], b[i]), "{i}");
    }
    // Its own stored pointer passed back in works.
    let back = run_arg(&p, out[1]);
    assert_eq!(back[3], sub(ints(1)[3], ints(2)[3]) * 16 + 2);
}
