//! Native binaries of every committed kernel: saved, loaded without compiling, saved again to
//! the same bytes; and a bounded mutation loop over their structure (each mutant re-signed so
//! that it passes the checksum) that loads — never runs — every mutant: each gives a program
//! or a clean error, never a panic. `ZEKIT_FUZZ_ITERS` mutants per kernel (default 300),
//! `ZEKIT_SEED` seeds them.
#![cfg(feature = "jit")]

use std::collections::HashMap;

use zekit_spirv::{compile, jit, native};

fn kernels() -> Vec<(String, Vec<u8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels");
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Puts the right checksum on a (mutated) binary.
fn resign(b: &mut [u8]) {
    let sum = fnv1a(&b[20..]);
    b[12..20].copy_from_slice(&sum.to_le_bytes());
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn every_kernel_round_trips_without_compiling() {
    for (name, spv) in kernels() {
        let p = compile(&spv, &HashMap::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = p.native_binary().unwrap_or_else(|e| panic!("{name}: {e}"));
        let before = jit::compilations_on_this_thread();
        let q = native::load(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(jit::compilations_on_this_thread(), before, "{name}");
        let infos =
            |p: &zekit_spirv::Program| p.kernels.iter().map(|k| k.info.clone()).collect::<Vec<_>>();
        assert_eq!(infos(&q), infos(&p), "{name}");
        assert_eq!(q.native_binary().unwrap(), bytes, "{name}");
    }
}

#[test]
fn mutated_native_binaries_load_or_fail_cleanly() {
    let iters: usize = std::env::var("ZEKIT_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let seed: u64 = std::env::var("ZEKIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed | 1);
    let (mut loaded, mut refused) = (0, 0);
    for (name, spv) in kernels() {
        let p = compile(&spv, &HashMap::new()).unwrap();
        let good = p.native_binary().unwrap();
        for _ in 0..iters {
            let mut b = good.clone();
            match rng.below(4) {
                // A byte anywhere after the checksum.
                0 => {
                    let i = 20 + rng.below(b.len() - 20);
                    b[i] ^= 1 << rng.below(8);
                }
                // A little-endian word set to a boundary value.
                1 => {
                    let i = 20 + rng.below(b.len() - 24);
                    let v: u32 = [0, 1, 0xff, 0xffff_ffff, 0x8000_0000, 7][rng.below(6)];
                    b[i..i + 4].copy_from_slice(&v.to_le_bytes());
                }
                // Truncated.
                2 => b.truncate(20 + rng.below(b.len() - 20)),
                // Bytes inserted.
                _ => {
                    let i = 20 + rng.below(b.len() - 20);
                    b.insert(i, rng.next() as u8);
                }
            }
            resign(&mut b);
            match native::load(&b) {
                Ok(_) => loaded += 1,
                Err(e) => {
                    assert!(!e.0.contains("panicked"), "{name}: {e}");
                    refused += 1;
                }
            }
        }
    }
    println!("native mutants: {loaded} loaded, {refused} refused");
    assert!(refused > 0);
}

/// Saved code reaches the shims of the lockstep lowering by name (a relocation), never by an
/// address of this process, which another process's driver would not share.
#[test]
fn lockstep_shims_are_named_in_saved_code() {
    // The Cranelift tier's lockstep shims.
    jit::set_tier(jit::Tier::Cranelift);
    jit::set_lockstep(jit::Lockstep::Always);
    let spv = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/vector_add.spv"
    ))
    .unwrap();
    let p = compile(&spv, &HashMap::new()).unwrap();
    jit::set_lockstep(jit::Lockstep::Auto);
    let bytes = p.native_binary().unwrap();
    let has = |name: &[u8]| bytes.windows(name.len()).any(|w| w == name);
    // Masked turns gather the inputs and scatter the sum.
    assert!(has(b"zekit_lanes_gather"));
    assert!(has(b"zekit_lanes_scatter"));
}

#[test]
fn kernel_attributes_survive_a_native_binary() {
    let spv = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/attrs.spv")).unwrap();
    let p = compile(&spv, &HashMap::new()).unwrap();
    let q = native::load(&p.native_binary().unwrap()).unwrap();
    let all = &q.kernel("attrs_all").unwrap().info;
    assert_eq!(all.reqd_work_group_size, Some([8, 1, 1]));
    assert_eq!(all.work_group_size_hint, Some([16, 1, 1]));
    assert_eq!(all.vec_type_hint.as_deref(), Some("float4"));
    let hint = &q.kernel("attrs_hint").unwrap().info;
    assert_eq!(hint.work_group_size_hint, Some([4, 2, 1]));
    assert_eq!(hint.vec_type_hint, None);
    assert_eq!(
        q.kernel("attrs_double2")
            .unwrap()
            .info
            .vec_type_hint
            .as_deref(),
        Some("double2")
    );
    // Each kernel's own code is what the binary saved.
    for i in 0..p.kernels.len() {
        assert_eq!(q.kernel_code(i), p.kernel_code(i));
        assert!(!p.kernel_code(i).unwrap().is_empty());
    }
    assert_eq!(p.kernel_code(p.kernels.len()), None);
    // A required sub-group size, and none.
    let spv = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/subgroups.spv"
    ))
    .unwrap();
    let q = native::load(
        &compile(&spv, &HashMap::new())
            .unwrap()
            .native_binary()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        q.kernel("reqd_sub_group").unwrap().info.reqd_sub_group_size,
        Some(8)
    );
    assert_eq!(
        q.kernel("subgroups").unwrap().info.reqd_sub_group_size,
        None
    );
}
