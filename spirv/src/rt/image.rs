//! The host side of image access: texels decoded from and encoded to the channel formats,
//! addressing and filtering, and [`zekit_image`], which generated code calls for every image
//! read, sample and write (see [`crate::image`]).

use crate::image::{channel, flag, layout, ImageDesc, SamplerDesc};
use crate::spv::{addressing, dim};

/// A texel's four components: floats, or integer bits.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Texel {
    F([f32; 4]),
    I([u32; 4]),
}

/// A NaN of `sign` whose payload is `payload` (the mantissa bits below the exponent, `bits`
/// of them) moved to the top of an f32's mantissa: converting back keeps every bit.
fn nan_f32(sign: bool, payload: u32, bits: u32) -> f32 {
    f32::from_bits(u32::from(sign) << 31 | 0x7f80_0000 | (payload << (23 - bits)))
}

/// The top `bits` mantissa bits of the NaN `x` (never 0: the value stays a NaN).
fn nan_payload(x: f32, bits: u32) -> u32 {
    match (x.to_bits() & 0x7f_ffff) >> (23 - bits) {
        0 => 1 << (bits - 1),
        p => p,
    }
}

fn f16_to_f32(h: u32) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = (h >> 10) & 0x1f;
    let m = (h & 0x3ff) as f32;
    if e == 31 && h & 0x3ff != 0 {
        return nan_f32(h & 0x8000 != 0, h & 0x3ff, 10);
    }
    sign * match e {
        0 => m * 2f32.powi(-24),
        31 => f32::INFINITY,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}

/// The nearest half (ties to even) of `x`, as bits; a NaN keeps its sign and the top of its
/// payload.
fn f32_to_f16(x: f32) -> u32 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7c00 | nan_payload(x, 10);
    }
    let a = f64::from(x.abs());
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // The quantum at a's binade: 2^-24 below 2^-14, else 2^(e - 10).
    let e = if a == 0.0 { -30 } else { a.log2().floor() as i32 };
    let q = 2f64.powi(e.max(-14) - 10);
    let v = (a / q).round_ties_even() * q;
    if v < 2f64.powi(-14) {
        return sign | (v * 2f64.powi(24)) as u32;
    }
    let ve = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mant = ((v.to_bits() >> 42) & 0x3ff) as u32;
    sign | (((ve + 15) as u32) << 10) | mant
}

/// An unsigned float of `mbits` mantissa bits and a 5-bit exponent (11_11_10 channels).
fn ufloat_to_f32(v: u32, mbits: u32) -> f32 {
    let e = v >> mbits;
    let m = (v & ((1 << mbits) - 1)) as f32;
    let scale = (1u32 << mbits) as f32;
    match e {
        0 => m / scale * 2f32.powi(-14),
        31 if m == 0.0 => f32::INFINITY,
        31 => nan_f32(false, v & ((1 << mbits) - 1), mbits),
        _ => (1.0 + m / scale) * 2f32.powi(e as i32 - 15),
    }
}

fn f32_to_ufloat(x: f32, mbits: u32) -> u32 {
    if x.is_nan() {
        return (31 << mbits) | nan_payload(x, mbits);
    }
    if x <= 0.0 {
        return 0;
    }
    let max = (2.0 - 1.0 / (1u32 << mbits) as f64) * 2f64.powi(15);
    let a = f64::from(x);
    if a.is_infinite() {
        return 31 << mbits;
    }
    if a > max {
        return (30 << mbits) | ((1 << mbits) - 1);
    }
    let e = a.log2().floor() as i32;
    let q = 2f64.powi(e.max(-14) - mbits as i32);
    let v = (a / q).round_ties_even() * q;
    if v < 2f64.powi(-14) {
        return (v / 2f64.powi(-14 - mbits as i32)) as u32;
    }
    let ve = v.log2().floor() as i32;
    let mant = ((v / 2f64.powi(ve) - 1.0) * (1u32 << mbits) as f64).round() as u32;
    (((ve + 15) as u32) << mbits) | mant
}

/// Bit widths of each stored channel of a layout (`elem` bytes per texel).
fn channel_bits(layout: u32, elem: u32) -> &'static [u32] {
    const B8: [u32; 4] = [8; 4];
    const B16: [u32; 4] = [16; 4];
    const B32: [u32; 4] = [32; 4];
    match layout {
        layout::C8 => &B8[..elem.min(4) as usize],
        layout::C16 => &B16[..(elem / 2).min(4) as usize],
        layout::C32 => &B32[..(elem / 4).min(4) as usize],
        layout::P565 => &[5, 6, 5],
        layout::P5551 => &[5, 5, 5, 1],
        layout::P4444 => &[4, 4, 4, 4],
        layout::P1010102 => &[10, 10, 10, 2],
        layout::P111110 => &[11, 11, 10],
        _ => &[],
    }
}

/// The raw value of each stored channel of the texel at `bytes` (`elem` readable bytes), and
/// the channels' bit widths.
fn raw_channels(d: &ImageDesc, bytes: &[u8]) -> ([u32; 4], &'static [u32]) {
    let bits = channel_bits(d.layout, d.elem_size);
    let mut out = [0u32; 4];
    match d.layout {
        layout::C8 | layout::C16 | layout::C32 => {
            let n = bits.first().map_or(1, |b| (b / 8) as usize);
            for (i, o) in out.iter_mut().enumerate().take(bits.len()) {
                for k in 0..n {
                    *o |= u32::from(bytes[i * n + k]) << (8 * k);
                }
            }
        }
        _ => {
            let mut word = 0u32;
            for (k, b) in bytes.iter().take(4).enumerate() {
                word |= u32::from(*b) << (8 * k);
            }
            let mut shift = 0;
            for (o, b) in out.iter_mut().zip(bits) {
                *o = (word >> shift) & ((1u64 << b) - 1) as u32;
                shift += b;
            }
        }
    }
    (out, bits)
}

fn sign_extend(v: u32, bits: u32) -> i32 {
    if bits >= 32 {
        v as i32
    } else {
        ((v << (32 - bits)) as i32) >> (32 - bits)
    }
}

/// True when the image has an alpha channel (the border colour is then transparent black).
fn has_alpha(d: &ImageDesc) -> bool {
    let n = channel_bits(d.layout, d.elem_size).len();
    match d.swizzle[3] {
        s @ 0..=3 => (s as usize) < n,
        6 => n == 4,
        _ => false,
    }
}

/// The stored channel component `k` reads (see [`ImageDesc::swizzle`]): `Ok(channel)`, or
/// `Err(constant)` (0 or 1, also for a channel the layout lacks).
fn source(d: &ImageDesc, k: usize, n: usize) -> Result<usize, u32> {
    let c = match d.swizzle[k] {
        s @ 0..=3 => s as usize,
        4 => return Err(0),
        5 => return Err(1),
        7 => 0,
        _ => k,
    };
    if c < n {
        Ok(c)
    } else {
        Err(u32::from(c == 3))
    }
}

/// The component a write stores into stored channel `c`: the first that reads it, else the
/// component of its own index.
fn writer(d: &ImageDesc, c: usize, n: usize) -> usize {
    (0..4).find(|&k| source(d, k, n) == Ok(c)).unwrap_or(c)
}

fn border(d: &ImageDesc, int: bool) -> Texel {
    let a = if has_alpha(d) { 0 } else { 1 };
    if int {
        Texel::I([0, 0, 0, a])
    } else {
        Texel::F([0.0, 0.0, 0.0, a as f32])
    }
}

/// Decodes the texel at `bytes` to four components.
fn decode(d: &ImageDesc, bytes: &[u8], int: bool) -> Texel {
    // Each stored channel's value, then the swizzle picks the components.
    let mut cf = [0.0f32; 4];
    let mut ci = [0u32; 4];
    let (vals, widths) = raw_channels(d, bytes);
    for (c, (&v, &bits)) in vals.iter().zip(widths).enumerate() {
        let max = ((1u64 << bits) - 1) as f32;
        let (fv, iv) = match d.channel_type {
            channel::SINT => {
                let s = sign_extend(v, bits);
                (s as f32, s as u32)
            }
            channel::UNORM => (v as f32 / max, v),
            channel::SNORM => {
                let s = sign_extend(v, bits);
                let m = ((1u64 << (bits - 1)) - 1) as f32;
                ((s as f32 / m).max(-1.0), s as u32)
            }
            channel::FLOAT => {
                let x = match (d.layout, bits) {
                    (layout::P111110, 11) => ufloat_to_f32(v, 6),
                    (layout::P111110, _) => ufloat_to_f32(v, 5),
                    (_, 16) => f16_to_f32(v),
                    _ => f32::from_bits(v),
                };
                (x, x.to_bits())
            }
            _ => (v as f32, v),
        };
        cf[c] = fv;
        ci[c] = iv;
    }
    let n = widths.len().min(4);
    let mut f = [0.0f32; 4];
    let mut i = [0u32; 4];
    for k in 0..4 {
        match source(d, k, n) {
            Ok(c) => (f[k], i[k]) = (cf[c], ci[c]),
            Err(one) => (f[k], i[k]) = (one as f32, one),
        }
    }
    if int {
        Texel::I(i)
    } else {
        Texel::F(f)
    }
}

/// Rounds to nearest even and saturates to `lo..=hi`; NaN gives 0.
fn sat_rte(x: f32, lo: f32, hi: f32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    x.round_ties_even().clamp(lo, hi) as i64 as u32
}

/// Encodes four components into the texel at `out` (`elem` writable bytes).
fn encode(d: &ImageDesc, t: Texel, out: &mut [u8]) {
    let bits = channel_bits(d.layout, d.elem_size);
    let mut raw = [0u32; 4];
    let n = bits.len().min(4);
    for (c, b) in bits.iter().enumerate() {
        let k = writer(d, c, n);
        let mask = ((1u64 << b) - 1) as u32;
        let v = match t {
            Texel::F(f) => {
                let x = f[k];
                match d.channel_type {
                    channel::UNORM => sat_rte(x * mask as f32, 0.0, mask as f32),
                    channel::SNORM => {
                        let m = ((1u64 << (b - 1)) - 1) as f32;
                        sat_rte(x * m, -m, m) & mask
                    }
                    channel::FLOAT => match (d.layout, b) {
                        (layout::P111110, 11) => f32_to_ufloat(x, 6),
                        (layout::P111110, _) => f32_to_ufloat(x, 5),
                        (_, 16) => f32_to_f16(x),
                        _ => x.to_bits(),
                    },
                    // Float texels written to integer images: converted, saturated.
                    channel::SINT => {
                        let h = (mask >> 1) as f32;
                        sat_rte(x, -h - 1.0, h) & mask
                    }
                    _ => sat_rte(x, 0.0, mask as f32),
                }
            }
            Texel::I(i) => {
                let x = i[k];
                match d.channel_type {
                    channel::SINT => {
                        let h = i64::from(mask >> 1);
                        (i64::from(x as i32).clamp(-h - 1, h) as u32) & mask
                    }
                    channel::FLOAT => x,
                    _ => x.min(mask),
                }
            }
        };
        raw[c] = v;
    }
    match d.layout {
        layout::C8 | layout::C16 | layout::C32 => {
            let n = bits.first().map_or(1, |b| (b / 8) as usize);
            for (c, v) in raw.iter().enumerate().take(bits.len()) {
                for k in 0..n {
                    out[c * n + k] = (v >> (8 * k)) as u8;
                }
            }
        }
        _ => {
            let mut word = 0u32;
            let mut shift = 0;
            for (v, b) in raw.iter().zip(bits) {
                word |= v << shift;
                shift += b;
            }
            for (k, o) in out.iter_mut().take(4).enumerate() {
                *o = (word >> (8 * k)) as u8;
            }
        }
    }
}

/// Storage coordinates (texel, row, slice) of a logical access: `c` holds x, then y, z or the
/// layer as the image type says.
fn storage_coords(flags: u32, c: [i64; 4]) -> [i64; 3] {
    let arrayed = flags & flag::ARRAYED != 0;
    match (flags & 7, arrayed) {
        (0, true) => [c[0], c[1], 0],
        (1, false) => [c[0], c[1], 0],
        (1, true) | (2, _) => [c[0], c[1], c[2]],
        _ => [c[0], 0, 0],
    }
}

/// The texel bytes at storage coordinates `s`, if inside the image.
fn texel_at(d: &ImageDesc, s: [i64; 3]) -> Option<*mut u8> {
    let ext = [d.width, d.height, d.depth];
    if (0..3).any(|k| s[k] < 0 || s[k] as u64 >= ext[k]) || d.elem_size == 0 || d.base == 0 {
        return None;
    }
    let off = (s[0] as u64)
        .checked_mul(u64::from(d.elem_size))?
        .checked_add((s[1] as u64).checked_mul(d.row_pitch)?)?
        .checked_add((s[2] as u64).checked_mul(d.slice_pitch)?)?;
    Some((d.base + off) as *mut u8)
}

/// Reads the texel at logical integer coordinates (the border colour outside the image).
fn fetch(d: &ImageDesc, flags: u32, c: [i64; 4], int: bool) -> Texel {
    match texel_at(d, storage_coords(flags, c)) {
        Some(p) => {
            // SAFETY: `texel_at` checked that the texel lies inside the image's storage,
            // which the driver keeps alive while the launch runs.
            let bytes = unsafe { std::slice::from_raw_parts(p, d.elem_size as usize) };
            decode(d, bytes, int)
        }
        None => border(d, int),
    }
}

/// Extent of the logical axis `axis` (0 x, 1 y, 2 z) of an image type.
fn axis_extent(d: &ImageDesc, flags: u32, axis: usize) -> i64 {
    let arrayed = flags & flag::ARRAYED != 0;
    let e = match (flags & 7, axis) {
        (_, 0) => d.width,
        (1 | 2, 1) => d.height,
        (2, 2) => d.depth,
        _ => 1,
    };
    let _ = arrayed;
    e.clamp(1, i64::MAX as u64) as i64
}

/// How many logical axes are filtered (the layer of an array is not).
fn axes(flags: u32) -> usize {
    match flags & 7 {
        dim::DIM_2D => 2,
        dim::DIM_3D => 3,
        _ => 1,
    }
}

/// An integer index after an addressing mode; `None`: outside (the border colour).
fn address(mode: u32, i: i64, n: i64) -> Option<i64> {
    match mode {
        // Clamp to edge (and repeat modes used without normalized coordinates).
        addressing::CLAMP_TO_EDGE
        | addressing::REPEAT
        | addressing::REPEAT_MIRRORED => Some(i.clamp(0, n - 1)),
        _ => (0..n).contains(&i).then_some(i),
    }
}

fn floor_i(x: f32) -> i64 {
    x.floor() as i64
}

/// The texel index for nearest filtering on one axis.
fn nearest(mode: u32, norm: bool, s: f32, n: i64) -> Option<i64> {
    let nf = n as f32;
    match (mode, norm) {
        (3, true) => {
            let u = (s - s.floor()) * nf;
            let mut i = floor_i(u);
            if i > n - 1 {
                i -= n;
            }
            Some(i.clamp(0, n - 1))
        }
        (4, true) => {
            let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
            let u = sp * nf;
            Some(floor_i(u).clamp(0, n - 1))
        }
        _ => {
            let u = if norm { s * nf } else { s };
            address(mode, floor_i(u), n)
        }
    }
}

/// The two texel indices and the weight of the second for linear filtering on one axis.
fn linear(mode: u32, norm: bool, s: f32, n: i64) -> (Option<i64>, Option<i64>, f32) {
    let nf = n as f32;
    let frac = |x: f32| x - x.floor();
    match (mode, norm) {
        (3, true) => {
            let u = (s - s.floor()) * nf;
            let mut i0 = floor_i(u - 0.5);
            let mut i1 = i0.saturating_add(1);
            if i0 < 0 {
                i0 += n;
            }
            if i1 > n - 1 {
                i1 -= n;
            }
            (
                Some(i0.clamp(0, n - 1)),
                Some(i1.clamp(0, n - 1)),
                frac(u - 0.5),
            )
        }
        (4, true) => {
            let sp = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
            let u = sp * nf;
            let i0 = floor_i(u - 0.5);
            let i1 = i0.saturating_add(1);
            (
                Some(i0.clamp(0, n - 1)),
                Some(i1.clamp(0, n - 1)),
                frac(u - 0.5),
            )
        }
        _ => {
            let u = if norm { s * nf } else { s };
            let i0 = floor_i(u - 0.5);
            (address(mode, i0, n), address(mode, i0.saturating_add(1), n), frac(u - 0.5))
        }
    }
}

/// A sampled read at float coordinates `c` (x, y, z or layer).
fn sample(d: &ImageDesc, sm: &SamplerDesc, flags: u32, c: [f32; 4], int: bool) -> Texel {
    let norm = sm.normalized != 0;
    let n_axes = axes(flags);
    // The layer of an array: rounded to the nearest and clamped.
    let mut base = [0i64; 4];
    if flags & flag::ARRAYED != 0 {
        let layers = d.layers.clamp(1, i64::MAX as u64) as i64;
        let l = c[n_axes];
        let l = if l.is_nan() { 0 } else { l.round_ties_even() as i64 };
        base[n_axes] = l.clamp(0, layers - 1);
    }
    // Integer formats are never filtered.
    if sm.filter == 0 || int {
        let mut at = base;
        for (k, a) in at.iter_mut().enumerate().take(n_axes) {
            match nearest(sm.addressing, norm, c[k], axis_extent(d, flags, k)) {
                Some(i) => *a = i,
                None => return border(d, int),
            }
        }
        return fetch(d, flags, at, int);
    }
    let mut per_axis = [(None, None, 0.0f32); 3];
    for (k, p) in per_axis.iter_mut().enumerate().take(n_axes) {
        *p = linear(sm.addressing, norm, c[k], axis_extent(d, flags, k));
    }
    let per_axis = &per_axis[..n_axes];
    let mut sum = [0.0f32; 4];
    for corner in 0..(1usize << n_axes) {
        let mut at = base;
        let mut w = 1.0f32;
        let mut outside = false;
        for (k, (i0, i1, a)) in per_axis.iter().enumerate() {
            let second = corner >> k & 1 == 1;
            let (i, wk) = if second { (*i1, *a) } else { (*i0, 1.0 - *a) };
            w *= wk;
            match i {
                Some(i) => at[k] = i,
                None => outside = true,
            }
        }
        let t = if outside {
            border(d, false)
        } else {
            fetch(d, flags, at, false)
        };
        if let Texel::F(f) = t {
            for (s, v) in sum.iter_mut().zip(f) {
                *s += w * v;
            }
        }
    }
    Texel::F(sum)
}

/// Reads, samples or writes one texel for generated code (`Op::Image`). `flags`: the image
/// type, coordinate and texel kinds ([`flag`]); `image`: the [`ImageDesc`]'s address;
/// `sampler`: a [`SamplerDesc`]'s address or 0; `coords`: four 32-bit coordinates; `texel`:
/// four 32-bit components, written by a read, read by a write.
///
/// # Safety
/// The addresses must be valid: a descriptor the driver filled (whose storage is alive), and
/// 16 readable/writable bytes at `coords` and `texel` (the kernel's private memory).
pub unsafe extern "C" fn zekit_image(flags: u32, image: u64, sampler: u64, coords: u64, texel: u64) {
    // A panic must not unwind into generated code: the texel of a read is then zero.
    let r = std::panic::catch_unwind(|| {
        // SAFETY: as this function's contract says.
        unsafe { image_access(flags, image, sampler, coords, texel) }
    });
    if r.is_err() && flags & flag::WRITE == 0 {
        // SAFETY: the texel is 16 bytes of private memory.
        unsafe { std::ptr::write_unaligned(texel as *mut [u32; 4], [0; 4]) };
    }
}

/// [`zekit_image`]'s work.
///
/// # Safety
/// As [`zekit_image`].
unsafe fn image_access(flags: u32, image: u64, sampler: u64, coords: u64, texel: u64) {
    // SAFETY: the caller passes the descriptor's address (see above).
    let d = unsafe { std::ptr::read_unaligned(image as *const ImageDesc) };
    // SAFETY: the coordinates are 16 bytes of the work-item's private memory.
    let raw = unsafe { std::ptr::read_unaligned(coords as *const [u32; 4]) };
    let int = flags & flag::INT_TEXEL != 0;
    let float_coords = flags & flag::FLOAT_COORDS != 0;
    if flags & flag::WRITE != 0 {
        // SAFETY: the texel is 16 bytes of private memory.
        let v = unsafe { std::ptr::read_unaligned(texel as *const [u32; 4]) };
        let t = if int {
            Texel::I(v)
        } else {
            Texel::F(v.map(f32::from_bits))
        };
        let c = raw.map(|x| i64::from(x as i32));
        if let Some(p) = texel_at(&d, storage_coords(flags, c)) {
            // SAFETY: `texel_at` checked the texel is inside the image's storage.
            let out = unsafe { std::slice::from_raw_parts_mut(p, d.elem_size as usize) };
            encode(&d, t, out);
        }
        return;
    }
    let t = if sampler != 0 {
        // SAFETY: a sampler descriptor (argument block or program data).
        let sm = unsafe { std::ptr::read_unaligned(sampler as *const SamplerDesc) };
        let c = if float_coords {
            raw.map(f32::from_bits)
        } else {
            raw.map(|x| x as i32 as f32)
        };
        sample(&d, &sm, flags, c, int)
    } else {
        let c = if float_coords {
            raw.map(|x| f32::from_bits(x).floor() as i64)
        } else {
            raw.map(|x| i64::from(x as i32))
        };
        fetch(&d, flags, c, int)
    };
    let out: [u32; 4] = match t {
        Texel::I(i) => i,
        Texel::F(f) if flags & flag::HALF_TEXEL != 0 => {
            f.map(|x| f16_to_f32(f32_to_f16(x)).to_bits())
        }
        Texel::F(f) => f.map(f32::to_bits),
    };
    // SAFETY: the texel is 16 bytes of private memory.
    unsafe { std::ptr::write_unaligned(texel as *mut [u32; 4], out) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trips() {
        for h in [0u32, 1, 0x3c00, 0x7bff, 0x8001, 0xc000, 0x0400, 0x03ff] {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "{h:#x}");
        }
        assert_eq!(f32_to_f16(1.0 + 1.0 / 4096.0), 0x3c00);
    }

    #[test]
    fn extreme_coordinates_stay_inside_the_image() {
        let mut px = vec![0u8; 3 * 2 * 4];
        for (i, b) in px.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        let d = ImageDesc {
            base: px.as_mut_ptr() as u64,
            width: 3,
            height: 2,
            depth: 1,
            row_pitch: 12,
            slice_pitch: 24,
            elem_size: 4,
            layout: layout::C8,
            channel_type: channel::UNORM,
            swizzle: [0, 1, 2, 3],
            ..Default::default()
        };
        let odd = [f32::NAN, f32::INFINITY, -f32::INFINITY, 1e30, -1e30, f32::MAX, -0.0, 0.5];
        for addressing in 0..5 {
            for filter in 0..2 {
                for normalized in 0..2 {
                    let sm = SamplerDesc { addressing, normalized, filter, reserved: 0 };
                    for x in odd {
                        for y in odd {
                            let t = sample(&d, &sm, 1, [x, y, 0.0, 0.0], false);
                            let Texel::F(f) = t else { panic!("float texel") };
                            assert!(f.iter().all(|v| v.is_nan() || (-1.0..=1.0).contains(v)), "{f:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_half_round_trips_bit_exactly() {
        for h in 0..=0xffffu32 {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "{h:#x}");
        }
    }

    #[test]
    fn every_ufloat_round_trips_bit_exactly() {
        for v in 0..1u32 << 11 {
            assert_eq!(f32_to_ufloat(ufloat_to_f32(v, 6), 6), v, "{v:#x}");
        }
        for v in 0..1u32 << 10 {
            assert_eq!(f32_to_ufloat(ufloat_to_f32(v, 5), 5), v, "{v:#x}");
        }
    }

    fn rgba8(swizzle: [u8; 4], px: &mut [u8; 4]) -> ImageDesc {
        ImageDesc {
            base: px.as_mut_ptr() as u64,
            width: 1,
            height: 1,
            depth: 1,
            row_pitch: 4,
            slice_pitch: 4,
            elem_size: 4,
            layout: layout::C8,
            channel_type: channel::UINT,
            swizzle,
            ..Default::default()
        }
    }

    #[test]
    fn swizzles_select_the_source_of_each_component() {
        let mut px = [10u8, 20, 30, 40];
        // x = A, y = R, z = G, w = B: the kernel's R is stored channel 3, ...
        for (sw, want, back) in [
            ([0, 1, 2, 3], [10, 20, 30, 40], [10, 20, 30, 40]),
            ([2, 1, 0, 3], [30, 20, 10, 40], [10, 20, 30, 40]),
            ([3, 0, 1, 2], [40, 10, 20, 30], [10, 20, 30, 40]),
            ([0, 0, 0, 5], [10, 10, 10, 1], [10, 10, 10, 1]),
            ([4, 5, 1, 6], [0, 1, 20, 40], [0, 20, 20, 40]),
            ([7, 4, 4, 5], [10, 0, 0, 1], [10, 0, 0, 1]),
        ] {
            let d = rgba8(sw, &mut px);
            let t = decode(&d, &[10, 20, 30, 40], true);
            assert_eq!(t, Texel::I(want), "{sw:?}");
            let mut out = [0u8; 4];
            encode(&d, t, &mut out);
            assert_eq!(out, back, "{sw:?} written back");
        }
        // A one-channel layout: G and B read 0, A reads 1.
        let d = ImageDesc { elem_size: 1, ..rgba8([0, 1, 2, 3], &mut px) };
        assert_eq!(decode(&d, &[7], true), Texel::I([7, 0, 0, 1]));
    }

    #[test]
    fn ufloat_round_trips() {
        for v in [0u32, 1, 0x3c0, 0x7bf, 0x40] {
            assert_eq!(f32_to_ufloat(ufloat_to_f32(v, 6), 6), v, "{v:#x}");
        }
        for v in [0u32, 1, 0x1e0, 0x3df] {
            assert_eq!(f32_to_ufloat(ufloat_to_f32(v, 5), 5), v, "{v:#x}");
        }
        assert_eq!(ufloat_to_f32(15 << 6, 6), 1.0);
    }
}
