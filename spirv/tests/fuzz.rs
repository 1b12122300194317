//! Bounded mutation fuzzing: words of the committed kernels flipped, inserted, deleted and
//! overwritten with nearby ids or opcodes; every input must give `Ok` or an error, never a
//! panic and no internal compiler error (every accepted input is compiled to machine code too).
//! `ZEKIT_FUZZ_ITERS` changes the iteration count, `ZEKIT_SEED` the seed. A failing input is
//! written to `target/fuzz-<kernel>-<seed>-<iteration>.spv`; `ZEKIT_FUZZ_ONLY=<kernel>` runs only
//! that kernel's mutants (the others are still drawn, so the same seed gives the same inputs).
#![cfg(feature = "jit")]

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

const KERNELS: &[&str] = &[
    "vector_add",
    "async_copy",
    "saxpy",
    "reduce",
    "int_ops",
    "conversions",
    "math",
    "atomic_counter",
    "builtins",
    "globals",
    "spec",
    "tree_reduce",
    "struct_arg",
    "images",
    "scan",
    "reqd",
    "vectors",
    "math2",
    "big_private",
    "atomics",
    "groups",
    "subgroups",
    "nonuniform_wg",
    "half_arg",
    "vload",
    "int_fns",
    "geometric",
    "math3",
    "half",
    "printf",
    "aggregates_ssa",
    "struct_values",
    "fnptr",
    "lockstep",
    "lockstep_barriers",
    "group_values",
    "chunks",
    // Hand-written DPC++-style modules (kernels/dpcpp/*.spvasm).
    "dpcpp/hints",
    "dpcpp/floats",
    "dpcpp/bitcasts",
    "dpcpp/groups",
    "dpcpp/intrinsics",
    "dpcpp/convert",
    "dpcpp/blockio",
    "dpcpp/spv14",
    "dpcpp/rotate",
    "dpcpp/depth_image",
    "dpcpp/splitbar",
    "dpcpp/reduce",
    "dpcpp/device_global",
    "dpcpp/nu_wg",
    "dpcpp/builtin_gep",
    "dpcpp/hints2",
    "dpcpp/long",
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(words: &mut Vec<u32>, rng: &mut Rng) {
    for _ in 0..1 + rng.below(3) {
        let i = 5 + rng.below(words.len().saturating_sub(5).max(1));
        match rng.below(6) {
            0 => {
                if i < words.len() {
                    words[i] ^= 1 << rng.below(32)
                }
            }
            1 => words.insert(i.min(words.len()), rng.next() as u32),
            2 => {
                if i < words.len() {
                    words.remove(i);
                }
            }
            3 => {
                if i < words.len() {
                    words[i] = rng.below(80) as u32
                }
            }
            4 => {
                if i < words.len() {
                    // a plausible instruction header: small count, known opcode range
                    words[i] = ((1 + rng.below(8) as u32) << 16) | rng.below(260) as u32
                }
            }
            _ => {
                if i < words.len() {
                    words[i] = words[i].wrapping_add(1)
                }
            }
        }
    }
}

/// Inputs the mutation loop once broke the compiler with, kept in `tests/fuzz-regressions/`
/// (named `<kernel>-<seed>-<iteration>.spv`): each compiles or is refused cleanly, with every
/// kernel that can in lockstep and without.
///
/// - `lockstep-102-16286`: a uniform branch into the middle of a divergent region, whose blocks
///   lockstep inlines into the region's branch (no native block of their own): the region must
///   have no entry but its branch.
#[test]
fn fuzz_regressions_compile_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz-regressions");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let b = std::fs::read(&path).unwrap();
        for policy in [zekit_spirv::jit::Lockstep::Always, zekit_spirv::jit::Lockstep::Never] {
            zekit_spirv::jit::set_lockstep(policy);
            let r = catch_unwind(AssertUnwindSafe(|| zekit_spirv::compile(&b, &HashMap::new())));
            let r = r.unwrap_or_else(|_| panic!("{}: panicked", path.display()));
            if let Err(e) = r {
                assert!(!matches!(e, zekit_spirv::Error::Internal(_)), "{}: {e}", path.display());
            }
        }
        n += 1;
    }
    zekit_spirv::jit::set_lockstep(zekit_spirv::jit::Lockstep::Auto);
    assert!(n > 0);
}

#[test]
fn mutated_modules_never_panic() {
    let given = std::env::var("ZEKIT_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok());
    let iters: usize = given.unwrap_or(1500);
    let seed: u64 = std::env::var("ZEKIT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_1234_abcd);
    println!("ZEKIT_SEED={seed} ZEKIT_FUZZ_ITERS={iters}");
    let mut rng = Rng(seed | 1);
    let spec = HashMap::new();
    let only = std::env::var("ZEKIT_FUZZ_ONLY").ok();
    let (mut ok, mut err) = (0, 0);
    for name in KERNELS {
        let bytes =
            std::fs::read(format!("{}/kernels/{name}.spv", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // The small hand-written DPC++ modules get a fifth of the default count (they were
        // fuzzed at 3,000-4,000 mutants each when added); a given count applies to all.
        let count = match given {
            None if name.starts_with("dpcpp/") => iters / 5,
            _ => iters,
        };
        for it in 0..count {
            let mut w = words.clone();
            mutate(&mut w, &mut rng);
            let mut b: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
            if it % 50 == 0 {
                b.truncate(rng.below(b.len())); // sometimes not even whole words
            }
            if only.as_deref().is_some_and(|o| o != *name) {
                continue;
            }
            let keep = |b: &[u8]| {
                let path = format!(
                    "{}/../target/fuzz-{}-{seed}-{it}.spv",
                    env!("CARGO_MANIFEST_DIR"),
                    name.replace('/', "_")
                );
                let _ = std::fs::write(&path, b);
                path
            };
            // The front end (parse, validate, lower, split) without the panic net.
            let r = catch_unwind(AssertUnwindSafe(|| zekit_spirv::check(&b, &spec)));
            let r = r.unwrap_or_else(|_| panic!("{name}: iteration {it} panicked (seed {seed}): {}", keep(&b)));
            // Code generation: whatever the front end accepts must compile or be refused
            // cleanly, never reach an internal error (a Cranelift verifier failure, or a panic
            // caught by `compile`).
            if r.is_ok() {
                if let Err(e) = zekit_spirv::compile(&b, &spec) {
                    if matches!(e, zekit_spirv::Error::Internal(_)) {
                        panic!("{name}: iteration {it}: {e} (seed {seed}): {}", keep(&b));
                    }
                }
            }
            if r.is_ok() {
                ok += 1
            } else {
                err += 1
            }
        }
    }
    println!("{ok} accepted, {err} refused");
    assert!(err > 0);
}

#[test]
fn errors_name_the_problem() {
    let spec = HashMap::new();
    let e = zekit_spirv::compile(&[1, 2, 3], &spec).unwrap_err();
    assert!(
        e.is_invalid() && e.to_string().contains("multiple of 4"),
        "{e}"
    );
    let e = zekit_spirv::compile(&[0; 20], &spec).unwrap_err();
    assert!(e.to_string().contains("magic"), "{e}");
    // An unsupported instruction, by name: OpIAdd of reduce turned into OpIAddCarry (149).
    let bytes = std::fs::read(format!(
        "{}/kernels/vector_add.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut w: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let fadd = w.iter().position(|x| *x == (5 << 16 | 129)).unwrap();
    w[fadd] = 5 << 16 | 137; // OpUMod on floats: invalid operands
    let b: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let e = zekit_spirv::compile(&b, &spec).unwrap_err();
    assert!(e.to_string().contains("OpUMod"), "{e}");
    w[fadd] = 5 << 16 | 84; // OpTranspose
    let b: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let e = zekit_spirv::compile(&b, &spec).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unsupported: kernel `vector_add`: instruction OpTranspose"
    );
}
