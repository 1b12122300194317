//! Images and samplers in kernels (`spirv/kernels/images.cl`), in process through the C entry
//! points: every supported format decoded and encoded by kernels against a reference computed
//! here, every image type read and written, sampling with every addressing mode × filter ×
//! normalized/unnormalized coordinates against a host implementation of the OpenCL rules,
//! program-scope samplers, queries, argument errors, and launches that keep their images.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ptr::null_mut;

use zeh::images::{rgba, Dev};
use zeh::*;

type L = ze_image_format_layout_t;
type T = ze_image_format_type_t;
type Ty = ze_image_type_t;
type Am = ze_sampler_address_mode_t;

const SUPPORTED: &[(L, &[T])] = &[
    (L::_8, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_8_8, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_8_8_8, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_8_8_8_8, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_16, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_16_16, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_16_16_16, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_16_16_16_16, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_32, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_32_32, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_32_32_32, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_32_32_32_32, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_10_10_10_2, &[T::UNORM, T::UINT]),
    (L::_11_11_10, &[T::FLOAT]),
    (L::_5_6_5, &[T::UNORM]),
    (L::_5_5_5_1, &[T::UNORM]),
    (L::_4_4_4_4, &[T::UNORM]),
];

/// Bits of each channel, from the least significant bits of the texel up.
fn channel_bits(l: L) -> Vec<u32> {
    match l {
        L::_8 => vec![8],
        L::_8_8 => vec![8; 2],
        L::_8_8_8 => vec![8; 3],
        L::_8_8_8_8 => vec![8; 4],
        L::_16 => vec![16],
        L::_16_16 => vec![16; 2],
        L::_16_16_16 => vec![16; 3],
        L::_16_16_16_16 => vec![16; 4],
        L::_32 => vec![32],
        L::_32_32 => vec![32; 2],
        L::_32_32_32 => vec![32; 3],
        L::_32_32_32_32 => vec![32; 4],
        L::_10_10_10_2 => vec![10, 10, 10, 2],
        L::_11_11_10 => vec![11, 11, 10],
        L::_5_6_5 => vec![5, 6, 5],
        L::_5_5_5_1 => vec![5, 5, 5, 1],
        _ => vec![4; 4],
    }
}

fn elem_bytes(l: L) -> usize {
    (channel_bits(l).iter().sum::<u32>() as usize).div_ceil(8)
}

// ------------------------------------------------------------------ reference conversions

fn sext(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

fn half(v: u64) -> f32 {
    let s = if v & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = ((v >> 10) & 31, (v & 1023) as f32);
    s * if e == 0 {
        m / 1024.0 / 16384.0
    } else {
        (1.0 + m / 1024.0) * (2f32).powi(e as i32 - 15)
    }
}

fn ufloat(v: u64, mbits: u32) -> f32 {
    let (e, m) = (v >> mbits, (v & ((1 << mbits) - 1)) as f32);
    let scale = (1u64 << mbits) as f32;
    if e == 0 {
        m / scale / 16384.0
    } else {
        (1.0 + m / scale) * (2f32).powi(e as i32 - 15)
    }
}

/// The raw channels of a texel (the texel's bytes as a little-endian number, channel 0 in its
/// lowest bits).
fn raw_channels(l: L, bytes: &[u8]) -> Vec<u64> {
    let mut word = 0u128;
    for (i, b) in bytes.iter().enumerate() {
        word |= u128::from(*b) << (8 * i);
    }
    let mut shift = 0;
    channel_bits(l)
        .into_iter()
        .map(|b| {
            let v = (word >> shift) as u64 & ((1u128 << b) - 1) as u64;
            shift += b;
            v
        })
        .collect()
}

/// What `read_imagef` gives for a texel.
fn decode_f(l: L, t: T, bytes: &[u8]) -> [f32; 4] {
    let mut out = [0.0, 0.0, 0.0, 1.0];
    for (c, (v, b)) in raw_channels(l, bytes).into_iter().zip(channel_bits(l)).enumerate() {
        let max = ((1u64 << b) - 1) as f32;
        out[c] = match t {
            T::UNORM => v as f32 / max,
            T::SNORM => (sext(v, b) as f32 / (((1u64 << (b - 1)) - 1) as f32)).max(-1.0),
            _ if l == L::_11_11_10 => ufloat(v, if c < 2 { 6 } else { 5 }),
            _ if b == 16 => half(v),
            _ => f32::from_bits(v as u32),
        };
    }
    out
}

/// What `read_imagei` / `read_imageui` give for a texel.
fn decode_i(l: L, t: T, bytes: &[u8]) -> [u32; 4] {
    let mut out = [0, 0, 0, 1];
    for (c, (v, b)) in raw_channels(l, bytes).into_iter().zip(channel_bits(l)).enumerate() {
        out[c] = if t == T::SINT { sext(v, b) as u32 } else { v as u32 };
    }
    out
}

/// Texel bytes of raw channel values.
fn pack(l: L, raw: &[u64]) -> Vec<u8> {
    let mut word = 0u128;
    let mut shift = 0;
    for (v, b) in raw.iter().zip(channel_bits(l)) {
        word |= u128::from(*v) << shift;
        shift += b;
    }
    (0..elem_bytes(l)).map(|i| (word >> (8 * i)) as u8).collect()
}

/// A random raw channel value that is not a NaN or an infinity for float channels.
fn random_channel(rng: &mut Rng, l: L, t: T, c: usize, b: u32) -> u64 {
    let mask = ((1u128 << b) - 1) as u64;
    loop {
        let v = rng.next() & mask;
        let finite = match (t, b) {
            (T::FLOAT, 16) => (v >> 10) & 31 != 31,
            (T::FLOAT, 32) => (v >> 23) & 255 != 255,
            (T::FLOAT, _) => (v >> if l == L::_11_11_10 && c < 2 { 6 } else { 5 }) & 31 != 31,
            _ => true,
        };
        if finite {
            return v;
        }
    }
}

#[test]
fn kernels_read_every_format() {
    let dev = Dev::new();
    let mut rng = Rng::new(seed("kernels_read_every_format"));
    let (w, h) = (5u32, 3u32);
    let n = (w * h) as usize;
    let (kf, ki, ku) = (dev.kernel("read_f"), dev.kernel("read_i"), dev.kernel("read_ui"));
    for (l, types) in SUPPORTED {
        for t in *types {
            let bits = channel_bits(*l);
            let texels: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let raw: Vec<u64> = bits
                        .iter()
                        .enumerate()
                        .map(|(c, b)| random_channel(&mut rng, *l, *t, c, *b))
                        .collect();
                    pack(*l, &raw)
                })
                .collect();
            let img = dev.image(&image_desc(Ty::_2D, rgba(*l, *t), w.into(), h, 0, 0));
            dev.upload(img, &texels.concat());
            let out = dev.buf(&vec![[0u32; 4]; n]);
            let k = match *t {
                T::UINT => ku,
                T::SINT => ki,
                _ => kf,
            };
            arg(k, 0, &img);
            arg(k, 1, &out);
            dev.run(k, [w, h, 1]);
            let got = read(out, n);
            for (i, (g, tex)) in got.iter().zip(&texels).enumerate() {
                let want = if matches!(*t, T::UINT | T::SINT) {
                    decode_i(*l, *t, tex)
                } else {
                    decode_f(*l, *t, tex).map(f32::to_bits)
                };
                assert_eq!(*g, want, "{l:?} {t:?} texel {i} {tex:?}");
            }
            ok!(ze::zeImageDestroy(img));
            dev.z.free(out.cast());
        }
    }
}

/// The raw channel a kernel's `write_imagef` / `write_imagei` / `write_imageui` stores.
fn encode(l: L, t: T, c: usize, b: u32, v: u32) -> u64 {
    let max = ((1u64 << b) - 1) as f32;
    let f = f32::from_bits(v);
    let sat = |x: f32, lo: f32, hi: f32| x.clamp(lo, hi).round_ties_even() as i64;
    match t {
        T::UNORM => sat(f * max, 0.0, max) as u64,
        T::SNORM => {
            let m = ((1u64 << (b - 1)) - 1) as f32;
            (sat(f * m, -m, m) as u64) & ((1 << b) - 1)
        }
        T::UINT => u64::from(v).min((1 << b) - 1),
        T::SINT => {
            let hi = (1i64 << (b - 1)) - 1;
            (i64::from(v as i32).clamp(-hi - 1, hi) as u64) & ((1 << b) - 1)
        }
        // Float channels: the inputs are exact values of the channel's format, compared as
        // the raw values they were made from.
        _ => {
            let _ = (l, c);
            u64::from(v) & ((1 << b) - 1)
        }
    }
}

#[test]
fn kernels_write_every_format() {
    let dev = Dev::new();
    let mut rng = Rng::new(seed("kernels_write_every_format"));
    let (w, h) = (4u32, 3u32);
    let n = (w * h) as usize;
    let (kf, ki, ku) = (dev.kernel("write_f"), dev.kernel("write_i"), dev.kernel("write_ui"));
    let floats = [-1.5f32, -1.0, -0.3, 0.0, 0.2, 0.5, 0.75, 1.0, 2.0, 0.123, 1.0 / 3.0, -0.71];
    let ints = [0u32, 1, 5, 127, 128, 200, 255, 256, 40000, 70000, u32::MAX, (-5i32) as u32, i32::MIN as u32, i32::MAX as u32, (-129i32) as u32];
    for (l, types) in SUPPORTED {
        for t in *types {
            let bits = channel_bits(*l);
            // Inputs, and for float channels the exact raw value each input has.
            let mut raws = vec![vec![0u64; 4]; n];
            let input: Vec<[u32; 4]> = (0..n)
                .map(|i| {
                    let mut px = [0u32; 4];
                    for (c, p) in px.iter_mut().enumerate() {
                        *p = match *t {
                            T::UINT | T::SINT => ints[rng.below(ints.len())],
                            T::UNORM | T::SNORM => floats[rng.below(floats.len())].to_bits(),
                            _ => {
                                let b = bits.get(c).copied().unwrap_or(16);
                                let r = random_channel(&mut rng, *l, *t, c, b);
                                raws[i][c] = r;
                                let mut bytes = vec![0u8; elem_bytes(*l)];
                                let mut one = vec![0u64; bits.len()];
                                if c < bits.len() {
                                    one[c] = r;
                                    bytes = pack(*l, &one);
                                }
                                decode_f(*l, *t, &bytes)[c.min(3)].to_bits()
                            }
                        };
                    }
                    px
                })
                .collect();
            let img = dev.image(&image_desc(Ty::_2D, rgba(*l, *t), w.into(), h, 0, 0));
            let src = dev.buf(&input);
            let k = match *t {
                T::UINT => ku,
                T::SINT => ki,
                _ => kf,
            };
            arg(k, 0, &img);
            arg(k, 1, &src);
            dev.run(k, [w, h, 1]);
            let got = dev.download(img, n * elem_bytes(*l));
            for i in 0..n {
                let want_raw: Vec<u64> = bits
                    .iter()
                    .enumerate()
                    .map(|(c, b)| {
                        if *t == T::FLOAT {
                            raws[i][c]
                        } else {
                            encode(*l, *t, c, *b, input[i][c])
                        }
                    })
                    .collect();
                let want = pack(*l, &want_raw);
                let e = elem_bytes(*l);
                assert_eq!(&got[i * e..(i + 1) * e], &want[..], "{l:?} {t:?} texel {i}: input {:?}", input[i]);
            }
            ok!(ze::zeImageDestroy(img));
            dev.z.free(src.cast());
        }
    }
}

#[test]
fn every_image_type_is_read_and_written() {
    let dev = Dev::new();
    let mut rng = Rng::new(seed("every_image_type_is_read_and_written"));
    let f = ze_image_format_t {
        x: ze_image_format_swizzle_t::R,
        ..rgba(L::_32, T::FLOAT)
    };
    // (type, kernel, w, h, d, layers, launch extents)
    let shapes = [
        (Ty::_1D, "inc_1d", 37u64, 0u32, 0u32, 0u32, [37u32, 1, 1]),
        (Ty::BUFFER, "inc_buffer", 53, 0, 0, 0, [53, 1, 1]),
        (Ty::_1DARRAY, "inc_1d_array", 19, 0, 0, 3, [19, 3, 1]),
        (Ty::_2DARRAY, "inc_2d_array", 9, 5, 0, 4, [9, 5, 4]),
        (Ty::_3D, "inc_3d", 6, 5, 3, 0, [6, 5, 3]),
    ];
    for (ty, name, w, h, d, layers, g) in shapes {
        let n = (g[0] * g[1] * g[2]) as usize;
        let vals: Vec<f32> = (0..n).map(|_| rng.below(100_000) as f32 / 8.0).collect();
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let src = dev.image(&image_desc(ty, f, w, h, d, layers));
        let dst = dev.image(&image_desc(ty, f, w, h, d, layers));
        dev.upload(src, &bytes);
        let k = dev.kernel(name);
        arg(k, 0, &src);
        arg(k, 1, &dst);
        dev.run(k, g);
        let got = dev.download(dst, n * 4);
        for i in 0..n {
            let v = f32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(v, vals[i] + 1.0, "{name}: texel {i}");
        }
    }
    // A read-write image updated in place.
    let img = dev.image(&image_desc(Ty::_2D, f, 7, 3, 0, 0));
    let vals: Vec<f32> = (0..21).map(|i| i as f32 * 0.5).collect();
    dev.upload(img, &vals.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
    let k = dev.kernel("inc_rw");
    arg(k, 0, &img);
    dev.run(k, [7, 3, 1]);
    dev.run(k, [7, 3, 1]);
    let got = dev.download(img, 21 * 4);
    for (i, v) in vals.iter().enumerate() {
        assert_eq!(f32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap()), v + 2.0);
    }
}

// ------------------------------------------------------------------ reference sampler

/// The OpenCL addressing mode of a Level Zero one (CLAMP is clamp-to-edge, CLAMP_TO_BORDER
/// OpenCL's clamp).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Addr {
    None,
    Edge,
    Border,
    Repeat,
    Mirror,
}

fn addr_of(m: Am) -> Addr {
    match m {
        Am::REPEAT => Addr::Repeat,
        Am::CLAMP => Addr::Edge,
        Am::CLAMP_TO_BORDER => Addr::Border,
        Am::MIRROR => Addr::Mirror,
        _ => Addr::None,
    }
}

/// One axis of a lookup: the texels (None: outside, the border colour) and their weights.
fn axis(a: Addr, linear: bool, norm: bool, s: f32, n: i64) -> Vec<(Option<i64>, f32)> {
    let inside = |i: i64| if (0..n).contains(&i) { Some(i) } else { None };
    let fix = |i: i64| match a {
        Addr::Edge => Some(i.clamp(0, n - 1)),
        _ => inside(i),
    };
    match (a, norm, linear) {
        (Addr::Repeat, true, false) => {
            let u = (s - s.floor()) * n as f32;
            let i = u.floor() as i64;
            vec![(Some(if i > n - 1 { i - n } else { i }), 1.0)]
        }
        (Addr::Repeat, true, true) => {
            let u = (s - s.floor()) * n as f32;
            let i0 = (u - 0.5).floor() as i64;
            let a = (u - 0.5) - (u - 0.5).floor();
            let i0w = if i0 < 0 { n + i0 } else { i0 };
            let i1 = if i0 + 1 > n - 1 { i0 + 1 - n } else { i0 + 1 };
            vec![(Some(i0w), 1.0 - a), (Some(i1), a)]
        }
        (Addr::Mirror, true, lin) => {
            let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
            let u = sp * n as f32;
            if !lin {
                vec![(Some((u.floor() as i64).min(n - 1)), 1.0)]
            } else {
                let i0 = (u - 0.5).floor() as i64;
                let a = (u - 0.5) - (u - 0.5).floor();
                vec![(Some(i0.max(0)), 1.0 - a), (Some((i0 + 1).min(n - 1)), a)]
            }
        }
        (_, _, false) => {
            let u = if norm { s * n as f32 } else { s };
            vec![(fix(u.floor() as i64), 1.0)]
        }
        (_, _, true) => {
            let u = if norm { s * n as f32 } else { s };
            let i0 = (u - 0.5).floor() as i64;
            let a = (u - 0.5) - (u - 0.5).floor();
            vec![(fix(i0), 1.0 - a), (fix(i0 + 1), a)]
        }
    }
}

/// The sampled value at float coordinates `c` of an image of `ext` texels per filtered axis
/// (`layers` > 0: an array whose layer is `c[ext.len()]`), texel value `tex(x, y, z)`.
fn reference_sample(
    tex: &dyn Fn([i64; 3]) -> [f32; 4],
    ext: &[i64],
    layers: i64,
    a: Addr,
    linear: bool,
    norm: bool,
    c: &[f32],
) -> [f32; 4] {
    let axes: Vec<_> = ext.iter().enumerate().map(|(k, n)| axis(a, linear, norm, c[k], *n)).collect();
    let layer = if layers > 0 {
        (c[ext.len()].round_ties_even() as i64).clamp(0, layers - 1)
    } else {
        0
    };
    let mut sum = [0.0f32; 4];
    let mut idx = vec![0usize; axes.len()];
    loop {
        let mut at = [0i64; 3];
        let mut w = 1.0f32;
        let mut outside = false;
        for (k, ax) in axes.iter().enumerate() {
            let (i, wk) = ax[idx[k]];
            w *= wk;
            match i {
                Some(i) => at[k] = i,
                None => outside = true,
            }
        }
        if layers > 0 {
            at[ext.len()] = layer;
        }
        // RGBA images: the border colour is transparent black.
        let t = if outside { [0.0; 4] } else { tex(at) };
        for (s, v) in sum.iter_mut().zip(t) {
            *s += w * v;
        }
        // The next corner.
        let mut k = 0;
        loop {
            if k == axes.len() {
                return sum;
            }
            idx[k] += 1;
            if idx[k] < axes[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-3 * (1.0 + y.abs()))
}

const MODES: [Am; 5] = [Am::NONE, Am::REPEAT, Am::CLAMP, Am::CLAMP_TO_BORDER, Am::MIRROR];

#[test]
fn sampling_every_mode_filter_and_coordinate_kind() {
    let dev = Dev::new();
    let mut rng = Rng::new(seed("sampling_every_mode_filter_and_coordinate_kind"));
    let f = rgba(L::_32_32_32_32, T::FLOAT);
    let texel = |p: [i64; 3]| [p[0] as f32, p[1] as f32 * 3.0, p[2] as f32 * 7.0 + 1.0, (p[0] * p[1]) as f32 + 0.5];
    // (kernel, type, extents of the filtered axes, layers, coordinate components)
    let cases: [(&str, Ty, &[i64], i64, usize); 5] = [
        ("sample_1d", Ty::_1D, &[7], 0, 1),
        ("sample_2d", Ty::_2D, &[5, 4], 0, 2),
        ("sample_3d", Ty::_3D, &[4, 3, 3], 0, 4),
        ("sample_1d_array", Ty::_1DARRAY, &[6], 3, 2),
        ("sample_2d_array", Ty::_2DARRAY, &[4, 3], 3, 4),
    ];
    for (name, ty, ext, layers, comps) in cases {
        // Storage extents and texel values.
        let (w, h, d) = match ext.len() {
            1 if layers > 0 => (ext[0], layers, 1),
            1 => (ext[0], 1, 1),
            2 if layers > 0 => (ext[0], ext[1], layers),
            2 => (ext[0], ext[1], 1),
            _ => (ext[0], ext[1], ext[2]),
        };
        let mut bytes = Vec::new();
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    for v in texel([x, y, z]) {
                        bytes.extend(v.to_le_bytes());
                    }
                }
            }
        }
        let desc = match ty {
            Ty::_1D => image_desc(ty, f, w as u64, 0, 0, 0),
            Ty::_1DARRAY => image_desc(ty, f, w as u64, 0, 0, layers as u32),
            Ty::_2D => image_desc(ty, f, w as u64, h as u32, 0, 0),
            Ty::_2DARRAY => image_desc(ty, f, w as u64, h as u32, 0, layers as u32),
            _ => image_desc(ty, f, w as u64, h as u32, d as u32, 0),
        };
        let img = dev.image(&desc);
        dev.upload(img, &bytes);
        let k = dev.kernel(name);
        for mode in MODES {
            for linear in [false, true] {
                for norm in [false, true] {
                    if !norm && matches!(mode, Am::REPEAT | Am::MIRROR) {
                        continue; // OpenCL: repeat and mirrored repeat need normalized coordinates
                    }
                    let n = 64;
                    // Coordinates: texel centres and edges, and random ones in and around the image.
                    let coords: Vec<f32> = (0..n * comps)
                        .map(|i| {
                            let k = i % comps;
                            let extent = if k < ext.len() { ext[k] as f32 } else { layers.max(1) as f32 };
                            let pick = rng.below(4);
                            let u = match pick {
                                0 => rng.below(ext.get(k).copied().unwrap_or(layers.max(1)) as usize) as f32 + 0.5,
                                1 => rng.below(ext.get(k).copied().unwrap_or(layers.max(1)) as usize + 1) as f32,
                                _ => (rng.below(4000) as f32 / 1000.0 - 1.5) * extent,
                            };
                            if k >= ext.len() {
                                // The layer: unnormalized, around the array.
                                rng.below(layers as usize + 2) as f32 - 1.0 + rng.below(10) as f32 / 10.0
                            } else if norm {
                                u / extent
                            } else {
                                u
                            }
                        })
                        .collect();
                    let cbuf = dev.buf(&coords);
                    let out = dev.buf(&vec![[0f32; 4]; n]);
                    let s = dev.sampler(mode, linear, norm);
                    arg(k, 0, &img);
                    arg(k, 1, &s);
                    arg(k, 2, &cbuf);
                    arg(k, 3, &out);
                    dev.run(k, [n as u32, 1, 1]);
                    let got = read(out, n);
                    for i in 0..n {
                        let c = &coords[i * comps..(i + 1) * comps];
                        let want = reference_sample(&texel, ext, layers, addr_of(mode), linear, norm, c);
                        assert!(
                            close(got[i], want),
                            "{name} {mode:?} linear={linear} normalized={norm} at {c:?}: got {:?}, want {want:?}",
                            got[i]
                        );
                    }
                    ok!(ze::zeSamplerDestroy(s));
                    dev.z.free(cbuf.cast());
                    dev.z.free(out.cast());
                }
            }
        }
        ok!(ze::zeImageDestroy(img));
    }
}

#[test]
fn integer_coordinates_integer_texels_and_program_scope_samplers() {
    let dev = Dev::new();
    // A 4x3 RGBA UNORM8 image and a UINT8 one with the same bytes.
    let (w, h) = (4i64, 3i64);
    let bytes: Vec<u8> = (0..w * h * 4).map(|i| (i * 7 % 256) as u8).collect();
    let tex = |b: &[u8], p: [i64; 3]| -> [u8; 4] {
        let o = ((p[1] * w + p[0]) * 4) as usize;
        [b[o], b[o + 1], b[o + 2], b[o + 3]]
    };
    let unorm = dev.image(&image_desc(Ty::_2D, rgba(L::_8_8_8_8, T::UNORM), w as u64, h as u32, 0, 0));
    let uint = dev.image(&image_desc(Ty::_2D, rgba(L::_8_8_8_8, T::UINT), w as u64, h as u32, 0, 0));
    dev.upload(unorm, &bytes);
    dev.upload(uint, &bytes);
    let texel_f = |p: [i64; 3]| tex(&bytes, p).map(|v| v as f32 / 255.0);
    // Integer coordinates, clamp to edge, nearest.
    let coords: Vec<[i32; 2]> = vec![[0, 0], [3, 2], [-1, 1], [5, -3], [2, 9], [1, 1]];
    let n = coords.len();
    let (cbuf, out) = (dev.buf(&coords), dev.buf(&vec![[0f32; 4]; n]));
    let k = dev.kernel("sample_2d_int");
    for mode in [Am::CLAMP, Am::CLAMP_TO_BORDER, Am::NONE] {
        let s = dev.sampler(mode, false, false);
        arg(k, 0, &unorm);
        arg(k, 1, &s);
        arg(k, 2, &cbuf);
        arg(k, 3, &out);
        dev.run(k, [n as u32, 1, 1]);
        let got = read(out, n);
        for (i, c) in coords.iter().enumerate() {
            let want = reference_sample(&texel_f, &[w, h], 0, addr_of(mode), false, false, &[c[0] as f32, c[1] as f32]);
            assert_eq!(got[i], want, "{mode:?} at {c:?}");
        }
        ok!(ze::zeSamplerDestroy(s));
    }
    // Integer texels through a sampler (never filtered: linear reads the nearest texel).
    let fc: Vec<[f32; 2]> = vec![[0.5, 0.5], [3.9, 2.1], [-4.0, 1.0], [2.2, 7.5]];
    let (fbuf, uout) = (dev.buf(&fc), dev.buf(&vec![[0u32; 4]; fc.len()]));
    let k = dev.kernel("sample_2d_ui");
    let s = dev.sampler(Am::CLAMP, true, false);
    arg(k, 0, &uint);
    arg(k, 1, &s);
    arg(k, 2, &fbuf);
    arg(k, 3, &uout);
    dev.run(k, [fc.len() as u32, 1, 1]);
    let got = read(uout, fc.len());
    for (i, c) in fc.iter().enumerate() {
        let p = [(c[0].floor() as i64).clamp(0, w - 1), (c[1].floor() as i64).clamp(0, h - 1), 0];
        assert_eq!(got[i], tex(&bytes, p).map(u32::from), "at {c:?}");
    }
    ok!(ze::zeSamplerDestroy(s));
    // Program-scope samplers: repeat + linear and mirrored + nearest (normalized), clamp +
    // nearest (unnormalized).
    let pc: Vec<[f32; 2]> = vec![[0.1, 0.2], [1.3, -0.4], [-0.6, 2.7], [0.5, 0.5], [3.0, 1.0]];
    let (pbuf, pout) = (dev.buf(&pc), dev.buf(&vec![[0f32; 4]; 3 * pc.len()]));
    let k = dev.kernel("sample_const");
    arg(k, 0, &unorm);
    arg(k, 1, &pbuf);
    arg(k, 2, &pout);
    dev.run(k, [pc.len() as u32, 1, 1]);
    let got = read(pout, 3 * pc.len());
    for (i, c) in pc.iter().enumerate() {
        let wants = [
            reference_sample(&texel_f, &[w, h], 0, Addr::Repeat, true, true, c),
            reference_sample(&texel_f, &[w, h], 0, Addr::Mirror, false, true, c),
            reference_sample(&texel_f, &[w, h], 0, Addr::Border, false, false, c),
        ];
        for (j, want) in wants.iter().enumerate() {
            assert!(close(got[3 * i + j], *want), "sampler {j} at {c:?}: {:?} vs {want:?}", got[3 * i + j]);
        }
    }
}

#[test]
fn image_queries() {
    let dev = Dev::new();
    let a = dev.image(&image_desc(Ty::_2D, rgba(L::_8_8_8_8, T::UNORM), 7, 5, 0, 0));
    let b = dev.image(&image_desc(Ty::_3D, rgba(L::_32, T::FLOAT), 4, 3, 2, 0));
    let c = dev.image(&image_desc(Ty::_2DARRAY, rgba(L::_16_16, T::SINT), 6, 2, 0, 9));
    let d = dev.image(&image_desc(Ty::_1DARRAY, rgba(L::_8, T::UINT), 11, 0, 0, 4));
    let bgra = ze_image_format_t {
        x: ze_image_format_swizzle_t::B,
        z: ze_image_format_swizzle_t::R,
        ..rgba(L::_16_16_16_16, T::FLOAT)
    };
    let e = dev.image(&image_desc(Ty::BUFFER, bgra, 33, 0, 0, 0));
    let out = dev.buf(&[0i32; 16]);
    let k = dev.kernel("query");
    for (i, img) in [a, b, c, d, e].iter().enumerate() {
        arg(k, i as u32, img);
    }
    arg(k, 5, &out);
    dev.run(k, [1, 1, 1]);
    // CLK_UNORM_INT8 0x10D2, CLK_RGBA 0x10B5, CLK_HALF_FLOAT 0x10DD, CLK_BGRA 0x10B6.
    let want = [7, 5, 0x10D2, 0x10B5, 4, 3, 2, 2, 6, 2, 9, 11, 4, 33, 0x10DD, 0x10B6];
    assert_eq!(read(out, 16), want);
}

#[test]
fn image_and_sampler_argument_errors() {
    let dev = Dev::new();
    let img = dev.image(&image_desc(Ty::_2D, rgba(L::_8_8_8_8, T::UNORM), 4, 4, 0, 0));
    let s = dev.sampler(Am::CLAMP, false, true);
    let k = dev.kernel("sample_2d");
    // The wrong kind of handle.
    check!(ze::zeKernelSetArgumentValue(k, 0, 8, (&s as *const ze_sampler_handle_t).cast()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(last_error().contains("argument 0 of kernel `sample_2d` takes an image handle"), "{}", last_error());
    check!(ze::zeKernelSetArgumentValue(k, 1, 8, (&img as *const ze_image_handle_t).cast()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Sizes other than a handle's, null handles, something that is no handle.
    check!(ze::zeKernelSetArgumentValue(k, 0, 4, (&img as *const ze_image_handle_t).cast()), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    check!(ze::zeKernelSetArgumentValue(k, 1, 80, (&s as *const ze_sampler_handle_t).cast()), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    let null: ze_image_handle_t = null_mut();
    check!(ze::zeKernelSetArgumentValue(k, 0, 8, (&null as *const ze_image_handle_t).cast()), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    let junk = 0x1234usize;
    check!(ze::zeKernelSetArgumentValue(k, 0, 8, (&junk as *const usize).cast()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // A destroyed image.
    let gone = dev.image(&image_desc(Ty::_2D, rgba(L::_8, T::UNORM), 2, 2, 0, 0));
    ok!(ze::zeImageDestroy(gone));
    check!(ze::zeKernelSetArgumentValue(k, 0, 8, (&gone as *const ze_image_handle_t).cast()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    // Arguments never set.
    let gc = ze_group_count_t { groupCountX: 1, groupCountY: 1, groupCountZ: 1 };
    check!(ze::zeCommandListAppendLaunchKernel(dev.l, k, &gc, null_mut(), 0, null_mut()), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    arg(k, 0, &img);
    arg(k, 1, &s);
}

#[test]
fn launches_keep_their_images_and_values() {
    let dev = Dev::new();
    let f = ze_image_format_t { x: ze_image_format_swizzle_t::R, ..rgba(L::_32, T::FLOAT) };
    let k = dev.kernel("sample_1d");
    let s = dev.sampler(Am::CLAMP, false, false);
    let coords = [0.5f32, 1.5, 2.5];
    let cbuf = dev.buf(&coords);
    let (o1, o2) = (dev.buf(&[[0f32; 4]; 3]), dev.buf(&[[0f32; 4]; 3]));
    let mk = |base: f32| {
        let img = dev.image(&image_desc(Ty::_1D, f, 3, 0, 0, 0));
        let v: Vec<u8> = (0..3).flat_map(|i| (base + i as f32).to_le_bytes()).collect();
        dev.upload(img, &v);
        img
    };
    let (i1, i2) = (mk(10.0), mk(20.0));
    // Both launches wait on an event; each sees the image set when it was appended, and the
    // images are destroyed before the launches run.
    let pool = dev.z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let e = dev.z.event(pool, 0);
    let l = dev.z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    ok!(ze::zeKernelSetGroupSize(k, 1, 1, 1));
    let gc = ze_group_count_t { groupCountX: 3, groupCountY: 1, groupCountZ: 1 };
    let mut ev = e;
    for (img, out) in [(i1, o1), (i2, o2)] {
        arg(k, 0, &img);
        arg(k, 1, &s);
        arg(k, 2, &cbuf);
        arg(k, 3, &out);
        ok!(ze::zeCommandListAppendLaunchKernel(l, k, &gc, null_mut(), 1, &mut ev));
    }
    ok!(ze::zeImageDestroy(i1));
    ok!(ze::zeImageDestroy(i2));
    ok!(ze::zeSamplerDestroy(s));
    ok!(ze::zeEventHostSignal(e));
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    for (out, base) in [(o1, 10.0f32), (o2, 20.0)] {
        let got = read(out, 3);
        for (i, g) in got.iter().enumerate() {
            assert_eq!(*g, [base + i as f32, 0.0, 0.0, 1.0]);
        }
    }
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventPoolDestroy(pool));
}

/// The half nearest to `x` (ties to the even mantissa), found by search over every finite
/// half: an independent reference for `read_imageh`.
fn nearest_half(x: f32) -> u16 {
    let mut best = 0u16;
    let mut best_d = f64::INFINITY;
    for h in 0..=0xffffu16 {
        if (h >> 10) & 31 == 31 {
            continue;
        }
        let d = (f64::from(half(u64::from(h))) - f64::from(x)).abs();
        let even = h & 1 == 0;
        if d < best_d || (d == best_d && even && best & 1 == 1) {
            if d == 0.0 && (h & 0x8000 != 0) != x.is_sign_negative() {
                continue;
            }
            best = h;
            best_d = d;
        }
    }
    best
}

#[test]
fn half_texels() {
    let dev = Dev::new();
    let (w, h) = (3u32, 2u32);
    let n = (w * h) as usize;
    let vals: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            let b = i as f32;
            [1.0 / 3.0 + b, -2.0009765 * b, 1000.06 + b, 0.000_123_4 * (b + 1.0)]
        })
        .collect();
    let img = dev.image(&image_desc(Ty::_2D, rgba(L::_32_32_32_32, T::FLOAT), w.into(), h, 0, 0));
    dev.upload(img, &vals.iter().flatten().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
    let out = dev.buf(&vec![[0u16; 4]; n]);
    let k = dev.kernel("read_h");
    arg(k, 0, &img);
    arg(k, 1, &out);
    dev.run(k, [w, h, 1]);
    let got = read(out, n);
    for (i, v) in vals.iter().enumerate() {
        assert_eq!(got[i], v.map(nearest_half), "texel {i}: {v:?}");
    }
    // write_imageh to a half image keeps the bits; to UNORM8 it converts.
    let halves: Vec<[u16; 4]> = (0..n).map(|i| [0x3c00, 0x3800 + i as u16, 0xbc00, 0x0001]).collect();
    let src = dev.buf(&halves);
    let k = dev.kernel("write_h");
    let fimg = dev.image(&image_desc(Ty::_2D, rgba(L::_16_16_16_16, T::FLOAT), w.into(), h, 0, 0));
    arg(k, 0, &fimg);
    arg(k, 1, &src);
    dev.run(k, [w, h, 1]);
    let back = dev.download(fimg, n * 8);
    let want: Vec<u8> = halves.iter().flatten().flat_map(|h| h.to_le_bytes()).collect();
    assert_eq!(back, want);
    let uimg = dev.image(&image_desc(Ty::_2D, rgba(L::_8_8_8_8, T::UNORM), w.into(), h, 0, 0));
    arg(k, 0, &uimg);
    dev.run(k, [w, h, 1]);
    let back = dev.download(uimg, n * 4);
    for (i, hv) in halves.iter().enumerate() {
        let want: Vec<u8> = hv.iter().map(|h| encode(L::_8, T::UNORM, 0, 8, half(u64::from(*h)).to_bits()) as u8).collect();
        assert_eq!(&back[4 * i..4 * i + 4], &want[..], "texel {i}");
    }
}

#[test]
fn launch_with_arguments_takes_image_and_sampler_handles() {
    let dev = Dev::new();
    let f = ze_image_format_t { x: ze_image_format_swizzle_t::R, ..rgba(L::_32, T::FLOAT) };
    let img = dev.image(&image_desc(Ty::_1D, f, 4, 0, 0, 0));
    dev.upload(img, &[1.0f32, 2.0, 4.0, 8.0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
    let s = dev.sampler(Am::CLAMP, true, false);
    let coords = dev.buf(&[1.0f32, 2.5, 9.0]);
    let out = dev.buf(&[[0f32; 4]; 3]);
    let k = dev.kernel("sample_1d");
    let mut values: [*mut std::ffi::c_void; 4] = [
        (&img as *const ze_image_handle_t).cast_mut().cast(),
        (&s as *const ze_sampler_handle_t).cast_mut().cast(),
        (&coords as *const *mut f32).cast_mut().cast(),
        (&out as *const *mut [f32; 4]).cast_mut().cast(),
    ];
    let gc = ze_group_count_t { groupCountX: 3, groupCountY: 1, groupCountZ: 1 };
    let gs = ze_group_size_t { groupSizeX: 1, groupSizeY: 1, groupSizeZ: 1 };
    ok!(ze::zeCommandListAppendLaunchKernelWithArguments(
        dev.l, k, gc, gs, values.as_mut_ptr(), std::ptr::null(), null_mut(), 0, null_mut()
    ));
    // Linear, clamp to edge, unnormalized: texel centres at 0.5, 1.5, ...
    let got = read(out, 3);
    assert_eq!(got[0], [1.5, 0.0, 0.0, 1.0]);
    assert_eq!(got[1], [4.0, 0.0, 0.0, 1.0]);
    assert_eq!(got[2], [8.0, 0.0, 0.0, 1.0]);
    // The image and sampler swapped: refused, and the kernel keeps its arguments.
    values.swap(0, 1);
    check!(
        ze::zeCommandListAppendLaunchKernelWithArguments(
            dev.l, k, gc, gs, values.as_mut_ptr(), std::ptr::null(), null_mut(), 0, null_mut()
        ),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // SAFETY: the three elements of `out`; no launch is in flight (synchronous list).
    unsafe { std::slice::from_raw_parts_mut(out, 3) }.fill([0.0; 4]);
    let gc1 = ze_group_count_t { groupCountX: 3, groupCountY: 1, groupCountZ: 1 };
    ok!(ze::zeCommandListAppendLaunchKernel(dev.l, k, &gc1, null_mut(), 0, null_mut()));
    assert_eq!(read(out, 3)[0], [1.5, 0.0, 0.0, 1.0]);
}
