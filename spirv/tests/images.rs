//! Image and sampler kernels (`kernels/images.cl`) at the compiler level: what the kernels
//! report, and what the compiler refuses (the driver tests run them).
#![cfg(feature = "jit")]

use std::collections::HashMap;

use zekit_spirv::image::{IMAGE_DESC_SIZE, SAMPLER_DESC_SIZE};
use zekit_spirv::{check, compile, ArgKind, Error};

fn spv() -> Vec<u8> {
    std::fs::read(format!("{}/kernels/images.spv", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The module with `f` applied to each instruction's words (opcode, operands).
fn patched(f: impl Fn(u16, &mut [u32])) -> Vec<u8> {
    let mut w = words(&spv());
    let mut i = 5;
    while i < w.len() {
        let n = (w[i] >> 16) as usize;
        let op = (w[i] & 0xffff) as u16;
        f(op, &mut w[i + 1..i + n]);
        i += n;
    }
    bytes(&w)
}

#[test]
fn image_and_sampler_arguments_are_reported() {
    let p = compile(&spv(), &HashMap::new()).unwrap();
    let k = p.kernel("sample_2d").unwrap();
    let kinds: Vec<_> = k.info.args.iter().map(|a| (a.kind, a.size)).collect();
    assert_eq!(
        kinds,
        [
            (ArgKind::Image, IMAGE_DESC_SIZE),
            (ArgKind::Sampler, SAMPLER_DESC_SIZE),
            (ArgKind::Buffer, 8),
            (ArgKind::Buffer, 8)
        ]
    );
    let q = p.kernel("query").unwrap();
    assert!(q.info.args[..5].iter().all(|a| a.kind == ArgKind::Image));
    // Offsets are 8-aligned and the descriptors do not overlap.
    for w in q.info.args.windows(2) {
        assert!(w[0].offset + w[0].size <= w[1].offset && w[1].offset % 8 == 0);
    }
    // The native binary keeps the kinds.
    let bin = p.native_binary().unwrap();
    let back = zekit_spirv::native::load(&bin).unwrap();
    assert_eq!(back.kernel("sample_2d").unwrap().info.args, k.info.args);
}

fn refused(b: &[u8], needle: &str) {
    match check(b, &HashMap::new()) {
        Err(Error::Unsupported(m)) => assert!(m.contains(needle), "{m}"),
        other => panic!("expected unsupported `{needle}`, got {other:?}"),
    }
}

#[test]
fn multisampled_depth_and_cube_images_are_refused() {
    // OpTypeImage operands: result, sampled type, Dim, Depth, Arrayed, MS, ...
    refused(&patched(|op, o| if op == 25 { o[5] = 1 }), "multisampled");
    refused(&patched(|op, o| if op == 25 { o[3] = 1 }), "depth images");
    refused(&patched(|op, o| if op == 25 && o[2] == 1 { o[2] = 3 }), "Dim 3");
}

#[test]
fn mipmapped_sampling_is_refused() {
    // OpImageSampleExplicitLod's Lod operand replaced by a nonzero float constant (1.0).
    let w = words(&spv());
    let mut one = None;
    let mut i = 5;
    while i < w.len() {
        let n = (w[i] >> 16) as usize;
        // OpConstant %float %id 0x3f800000
        if w[i] & 0xffff == 43 && n == 4 && w[i + 3] == 0x3f80_0000 {
            one = Some(w[i + 2]);
        }
        i += n;
    }
    let one = one.expect("images.cl has the constant 1.0f");
    refused(
        &patched(|op, o| {
            if op == 88 && o.len() >= 6 && o[4] & 2 != 0 {
                o[5] = one;
            }
        }),
        "OpImageSampleExplicitLod with a Lod other than a constant 0 (mipmaps)",
    );
    // Gradients.
    refused(
        &patched(|op, o| {
            if op == 88 && o.len() >= 5 {
                o[4] |= 4;
            }
        }),
        "explicit gradients",
    );
}
