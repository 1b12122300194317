//! Image formats through kernels, in process through the C entry points: swizzled formats
//! (`ze_image_format_t` x, y, z, w name each component's source, as compute-runtime's channel
//! selects) read, sampled and written; depth formats (a `D` swizzle) through `image2d_t` and
//! `image2d_depth_t` kernels; float formats through `read_imagef` and `write_imagef` keeping
//! every bit (NaN payloads, signed zeros, denormals, infinities), as programs that compare with
//! `memcmp` expect.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use zeh::images::{rgba, Dev};
use zeh::*;

type L = ze_image_format_layout_t;
type T = ze_image_format_type_t;
type S = ze_image_format_swizzle_t;
type Ty = ze_image_type_t;
type Am = ze_sampler_address_mode_t;

fn swizzled(layout: L, ty: T, [x, y, z, w]: [S; 4]) -> ze_image_format_t {
    ze_image_format_t { x, y, z, w, ..rgba(layout, ty) }
}

/// The bytes of a little-endian value list.
fn bytes_of<V: Copy, const N: usize>(vals: &[V], to: impl Fn(V) -> [u8; N]) -> Vec<u8> {
    vals.iter().flat_map(|v| to(*v)).collect()
}

#[test]
fn swizzles_name_the_source_of_each_component() {
    let dev = Dev::new();
    let px = [10u8, 20, 30, 40, 50, 60, 70, 80];
    // (swizzle, what read_imageui gives for texel 0 (texel 1 is 40 more), the bytes a write of
    // those values stores).
    let cases: [([S; 4], [u32; 4], [u8; 4]); 5] = [
        ([S::R, S::G, S::B, S::A], [10, 20, 30, 40], [10, 20, 30, 40]),
        ([S::B, S::G, S::R, S::A], [30, 20, 10, 40], [10, 20, 30, 40]),
        ([S::A, S::R, S::G, S::B], [40, 10, 20, 30], [10, 20, 30, 40]),
        ([S::R, S::R, S::R, S::_1], [10, 10, 10, 1], [10, 10, 10, 1]),
        ([S::_0, S::_1, S::G, S::X], [0, 1, 20, 40], [0, 20, 20, 40]),
    ];
    let s = dev.sampler(Am::CLAMP, false, false);
    for (sw, want, back) in cases {
        let f = swizzled(L::_8_8_8_8, T::UINT, sw);
        let img = dev.image(&image_desc(Ty::_2D, f, 2, 1, 0, 0));
        dev.upload(img, &px);
        let want1 = {
            // Texel 1: the same sources, 40 more where a stored channel is read.
            let mut w = want;
            for (k, s) in sw.iter().enumerate() {
                if matches!(*s, S::R | S::G | S::B | S::A | S::X) {
                    w[k] += 40;
                }
            }
            w
        };
        // read_imageui
        let out = dev.buf(&[[0u32; 4]; 2]);
        let k = dev.kernel("read_ui");
        arg(k, 0, &img);
        arg(k, 1, &out);
        dev.run(k, [2, 1, 1]);
        assert_eq!(read(out, 2), [want, want1], "read_imageui of {sw:?}");
        // A sampled read (nearest, unnormalized, at the texel centres).
        let coords = dev.buf(&[[0.5f32, 0.5], [1.5, 0.5]]);
        let sout = dev.buf(&[[0u32; 4]; 2]);
        let k = dev.kernel("sample_2d_ui");
        arg(k, 0, &img);
        arg(k, 1, &s);
        arg(k, 2, &coords);
        arg(k, 3, &sout);
        dev.run(k, [2, 1, 1]);
        assert_eq!(read(sout, 2), [want, want1], "sampled {sw:?}");
        // write_imageui of what was read, into an image of the same format.
        let dst = dev.image(&image_desc(Ty::_2D, f, 2, 1, 0, 0));
        let k = dev.kernel("write_ui");
        arg(k, 0, &dst);
        arg(k, 1, &out);
        dev.run(k, [2, 1, 1]);
        let got = dev.download(dst, 8);
        assert_eq!(got[..4], back, "written back through {sw:?}");
        ok!(ze::zeImageDestroy(img));
        ok!(ze::zeImageDestroy(dst));
    }
    // A one-channel layout as alpha: (0, 0, 0, R).
    let a8 = swizzled(L::_8, T::UNORM, [S::_0, S::_0, S::_0, S::R]);
    let img = dev.image(&image_desc(Ty::_2D, a8, 1, 1, 0, 0));
    dev.upload(img, &[255]);
    let out = dev.buf(&[[9f32; 4]]);
    let k = dev.kernel("read_f");
    arg(k, 0, &img);
    arg(k, 1, &out);
    dev.run(k, [1, 1, 1]);
    assert_eq!(read(out, 1)[0], [0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn channel_orders_follow_the_sources() {
    let dev = Dev::new();
    let depth = swizzled(L::_32, T::FLOAT, [S::D, S::_0, S::_0, S::_1]);
    let a = dev.image(&image_desc(Ty::_2D, depth, 7, 5, 0, 0));
    let b = dev.image(&image_desc(Ty::_3D, rgba(L::_32, T::FLOAT), 4, 3, 2, 0));
    let c = dev.image(&image_desc(Ty::_2DARRAY, rgba(L::_16_16, T::SINT), 6, 2, 0, 9));
    let d = dev.image(&image_desc(Ty::_1DARRAY, rgba(L::_8, T::UINT), 11, 0, 0, 4));
    // Memory A, R, G, B: the kernel's R is channel 1, G 2, B 3, A 0.
    let argb = swizzled(L::_8_8_8_8, T::UNORM, [S::G, S::B, S::A, S::R]);
    let e = dev.image(&image_desc(Ty::BUFFER, argb, 33, 0, 0, 0));
    let out = dev.buf(&[0i32; 16]);
    let k = dev.kernel("query");
    for (i, img) in [a, b, c, d, e].iter().enumerate() {
        arg(k, i as u32, img);
    }
    arg(k, 5, &out);
    dev.run(k, [1, 1, 1]);
    let got = read(out, 16);
    // CLK_FLOAT 0x10DE, CLK_DEPTH 0x10BD; CLK_UNORM_INT8 0x10D2, CLK_ARGB 0x10B7.
    assert_eq!((got[2], got[3]), (0x10DE, 0x10BD), "the depth image");
    assert_eq!((got[14], got[15]), (0x10D2, 0x10B7), "memory order A, R, G, B");
}

#[test]
fn depth_formats_through_image2d_and_depth_kernels() {
    let dev = Dev::new();
    let m = module(&dev.z, &spv("dpcpp/depth_image"));
    for (layout, ty, texels) in [
        (L::_32, T::FLOAT, bytes_of(&[0.25f32, -0.0, 1.5, 1e-40], f32::to_le_bytes)),
        (L::_16, T::UNORM, bytes_of(&[0u16, 1, 32768, 65535], u16::to_le_bytes)),
    ] {
        let f = swizzled(layout, ty, [S::D, S::_0, S::_0, S::_1]);
        let desc = image_desc(Ty::_2D, f, 2, 2, 0, 0);
        let mut props = ze_image_properties_t::default();
        ok!(ze::zeImageGetProperties(dev.z.dev, &desc, &mut props));
        let img = dev.image(&desc);
        dev.upload(img, &texels);
        let depth = |i: usize| match ty {
            T::FLOAT => f32::from_le_bytes(texels[4 * i..4 * i + 4].try_into().unwrap()),
            _ => f32::from(u16::from_le_bytes([texels[2 * i], texels[2 * i + 1]])) / 65535.0,
        };
        // image2d_t: (depth, 0, 0, 1).
        let out = dev.buf(&[[9f32; 4]; 4]);
        let k = dev.kernel("read_f");
        arg(k, 0, &img);
        arg(k, 1, &out);
        dev.run(k, [2, 2, 1]);
        for (i, t) in read(out, 4).iter().enumerate() {
            assert_eq!(t.map(f32::to_bits), [depth(i), 0.0, 0.0, 1.0].map(f32::to_bits), "{layout:?} texel {i}");
        }
        // image2d_depth_t: one float, and a write of it stores the same bytes.
        let d = dev.buf(&[9f32; 4]);
        let k = kernel(m, "read_depth");
        arg(k, 0, &img);
        arg(k, 1, &d);
        dev.run(k, [2, 2, 1]);
        let got = read(d, 4);
        for (i, g) in got.iter().enumerate() {
            assert_eq!(g.to_bits(), depth(i).to_bits(), "{layout:?} depth {i}");
        }
        let dst = dev.image(&desc);
        let k = kernel(m, "write_depth");
        arg(k, 0, &dst);
        arg(k, 1, &d);
        dev.run(k, [2, 2, 1]);
        assert_eq!(dev.download(dst, texels.len()), texels, "{layout:?} written back");
        ok!(ze::zeImageDestroy(img));
        ok!(ze::zeImageDestroy(dst));
    }
    // A depth kernel's one float into an RGBA image: the other components are 0, 0, 1.
    let rgba32 = dev.image(&image_desc(Ty::_2D, rgba(L::_32_32_32_32, T::FLOAT), 2, 2, 0, 0));
    let d = dev.buf(&[0.5f32, 1.0, 2.0, 4.0]);
    let k = kernel(m, "write_depth");
    arg(k, 0, &rgba32);
    arg(k, 1, &d);
    dev.run(k, [2, 2, 1]);
    let want = bytes_of(&[0.5f32, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 1.0, 4.0, 0.0, 0.0, 1.0], f32::to_le_bytes);
    assert_eq!(dev.download(rgba32, 64), want);
}

/// Channel values covering a float format: every half; every 11- and 10-bit unsigned float;
/// for 32 bits the zeros, denormals, infinities, quiet and signalling NaNs with payloads and
/// both signs, and ordinary values.
fn channel_values(layout: L) -> Vec<u32> {
    match layout {
        L::_16 | L::_16_16 | L::_16_16_16 | L::_16_16_16_16 => (0..=0xffff).collect(),
        L::_11_11_10 => (0..2048).collect(),
        _ => vec![
            0, 0x8000_0000, 1, 0x8000_0001, 0x007f_ffff, 0x807f_ffff, 0x0080_0000, 0x7f80_0000,
            0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7fc0_0001, 0x7fc1_2345, 0xffff_ffff,
            0x7f80_0001, 0xff80_0001, 0x7fbf_ffff, 0x7fa5_a5a5, 0x3f80_0000, 0xbf80_0000,
            0x7f7f_ffff, 0xff7f_ffff, 0x4049_0fdb, 0x3eaa_aaab,
        ],
    }
}

#[test]
fn float_formats_keep_every_bit_through_read_and_write_imagef() {
    let dev = Dev::new();
    let layouts = [
        (L::_16, 1, 16),
        (L::_16_16, 2, 16),
        (L::_16_16_16, 3, 16),
        (L::_16_16_16_16, 4, 16),
        (L::_32, 1, 32),
        (L::_32_32, 2, 32),
        (L::_32_32_32, 3, 32),
        (L::_32_32_32_32, 4, 32),
        (L::_11_11_10, 3, 0),
    ];
    for (layout, channels, bits) in layouts {
        let vals = channel_values(layout);
        let texels = vals.len().div_ceil(channels).max(1);
        let w = texels.min(256);
        let h = texels.div_ceil(w);
        let n = w * h;
        // Channel k of texel i: value (i * channels + k), cycling; 11_11_10 packs R, G (11 bits)
        // and B (10 bits: the value's low 10 bits).
        let raw: Vec<u8> = (0..n)
            .flat_map(|i| {
                let v = |k: usize| vals[(i * channels + k) % vals.len()];
                match bits {
                    16 => (0..channels).flat_map(|k| (v(k) as u16).to_le_bytes()).collect::<Vec<_>>(),
                    32 => (0..channels).flat_map(|k| v(k).to_le_bytes()).collect(),
                    _ => (v(0) | v(1) << 11 | (v(2) & 0x3ff) << 22).to_le_bytes().to_vec(),
                }
            })
            .collect();
        let f = rgba(layout, T::FLOAT);
        let src = dev.image(&image_desc(Ty::_2D, f, w as u64, h as u32, 0, 0));
        let dst = dev.image(&image_desc(Ty::_2D, f, w as u64, h as u32, 0, 0));
        dev.upload(src, &raw);
        let texel_bufs = dev.buf(&vec![[0f32; 4]; n]);
        let k = dev.kernel("read_f");
        arg(k, 0, &src);
        arg(k, 1, &texel_bufs);
        dev.run(k, [w as u32, h as u32, 1]);
        if bits == 32 {
            // read_imagef hands 32-bit floats over untouched.
            let got = read(texel_bufs, n);
            for (i, t) in got.iter().enumerate().take(vals.len() / channels) {
                for k in 0..channels {
                    assert_eq!(t[k].to_bits(), vals[(i * channels + k) % vals.len()], "{layout:?} texel {i}.{k}");
                }
            }
        }
        let k = dev.kernel("write_f");
        arg(k, 0, &dst);
        arg(k, 1, &texel_bufs);
        dev.run(k, [w as u32, h as u32, 1]);
        let back = dev.download(dst, raw.len());
        if back != raw {
            let elem = raw.len() / n;
            let i = (0..n).find(|&i| back[i * elem..(i + 1) * elem] != raw[i * elem..(i + 1) * elem]).unwrap();
            panic!(
                "{layout:?}: texel {i} came back {:02x?}, was {:02x?}",
                &back[i * elem..(i + 1) * elem],
                &raw[i * elem..(i + 1) * elem]
            );
        }
        ok!(ze::zeImageDestroy(src));
        ok!(ze::zeImageDestroy(dst));
    }
}
