//! Images in process through the C entry points: every supported format and type round-trips
//! through memory bit-exactly; region, pitched and image-to-image copies against a reference
//! computed here; refusals of unsupported formats; views, properties, samplers.
#![allow(clippy::macro_metavars_in_unsafe)]

mod zeh;

use std::ptr::null_mut;

use zeh::images::rgba;
use zeh::*;

type L = ze_image_format_layout_t;
type T = ze_image_format_type_t;
type Ty = ze_image_type_t;

const SUPPORTED: &[(L, usize, &[T])] = &[
    (L::_8, 1, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_8_8, 2, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_8_8_8, 3, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_8_8_8_8, 4, &[T::UINT, T::SINT, T::UNORM, T::SNORM]),
    (L::_16, 2, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_16_16, 4, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_16_16_16, 6, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_16_16_16_16, 8, &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT]),
    (L::_32, 4, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_32_32, 8, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_32_32_32, 12, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_32_32_32_32, 16, &[T::UINT, T::SINT, T::FLOAT]),
    (L::_10_10_10_2, 4, &[T::UNORM, T::UINT]),
    (L::_11_11_10, 4, &[T::FLOAT]),
    (L::_5_6_5, 2, &[T::UNORM]),
    (L::_5_5_5_1, 2, &[T::UNORM]),
    (L::_4_4_4_4, 2, &[T::UNORM]),
];

const ALL_TYPES: [T; 5] = [T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT];


/// (type, width, height, depth, arraylevels) and the storage extents they give.
type Shape = (Ty, u64, u32, u32, u32, (usize, usize, usize));

fn shapes() -> Vec<Shape> {
    vec![
        (Ty::_1D, 37, 0, 0, 0, (37, 1, 1)),
        (Ty::BUFFER, 53, 0, 0, 0, (53, 1, 1)),
        (Ty::_1DARRAY, 19, 0, 0, 3, (19, 3, 1)),
        (Ty::_2D, 13, 7, 0, 0, (13, 7, 1)),
        (Ty::_2DARRAY, 9, 5, 0, 4, (9, 5, 4)),
        (Ty::_3D, 6, 5, 3, 0, (6, 5, 3)),
    ]
}

struct Dev {
    z: Ze,
    l: ze_command_list_handle_t,
}

impl Dev {
    fn new() -> Dev {
        let z = Ze::new();
        let l = z.immediate(0, ze_command_queue_mode_t::SYNCHRONOUS);
        Dev { z, l }
    }

    fn image(&self, d: &ze_image_desc_t) -> ze_image_handle_t {
        let mut h = null_mut();
        ok!(ze::zeImageCreate(self.z.ctx, self.z.dev, d, &mut h));
        h
    }

    fn try_image(&self, d: &ze_image_desc_t) -> ze_result_t {
        let mut h = null_mut();
        // SAFETY: valid arguments.
        let r = unsafe { ze::zeImageCreate(self.z.ctx, self.z.dev, d, &mut h) };
        if r == ZE_RESULT_SUCCESS {
            ok!(ze::zeImageDestroy(h));
        }
        r
    }

    fn write_image(&self, img: ze_image_handle_t, src: &[u8], r: Option<&ze_image_region_t>) {
        let rp: *const ze_image_region_t = r.map_or(std::ptr::null(), |r| r as *const _);
        ok!(ze::zeCommandListAppendImageCopyFromMemory(
            self.l, img, src.as_ptr().cast(), rp.cast_mut(), null_mut(), 0, null_mut()
        ));
    }

    fn read_image(&self, dst: &mut [u8], img: ze_image_handle_t, r: Option<&ze_image_region_t>) {
        let rp: *const ze_image_region_t = r.map_or(std::ptr::null(), |r| r as *const _);
        ok!(ze::zeCommandListAppendImageCopyToMemory(
            self.l, dst.as_mut_ptr().cast(), img, rp.cast_mut(), null_mut(), 0, null_mut()
        ));
    }
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8).collect()
}

#[test]
fn every_format_and_type_round_trips() {
    let dev = Dev::new();
    let mut n = 0;
    for &(layout, elem, types) in SUPPORTED {
        for &ty in types {
            let f = rgba(layout, ty);
            let mut p = ze_image_properties_t::default();
            let d0 = image_desc(Ty::_2D, f, 4, 4, 0, 0);
            ok!(ze::zeImageGetProperties(dev.z.dev, &d0, &mut p));
            assert_ne!(p.samplerFilterFlags.0, 0);
            for (t, w, h, d, layers, dims) in shapes() {
                let dsc = image_desc(t, f, w, h, d, layers);
                let img = dev.image(&dsc);
                let size = dims.0 * dims.1 * dims.2 * elem;
                let mut mp = ze_image_memory_properties_exp_t::default();
                ok!(ze::zeImageGetMemoryPropertiesExp(img, &mut mp));
                assert_eq!(mp.size as usize, size);
                assert_eq!(mp.rowPitch as usize, dims.0 * elem);
                let src = pattern(size, n as u8);
                dev.write_image(img, &src, None);
                let mut back = vec![0u8; size];
                dev.read_image(&mut back, img, None);
                assert!(back == src, "{layout:?} {ty:?} {t:?}: round trip differs");
                ok!(ze::zeImageDestroy(img));
                n += 1;
            }
        }
    }
    assert_eq!(n, 6 * SUPPORTED.iter().map(|s| s.2.len()).sum::<usize>());
}

#[test]
fn unsupported_formats_are_refused() {
    let dev = Dev::new();
    let supported = |l: L, t: T| SUPPORTED.iter().any(|s| s.0 == l && s.2.contains(&t));
    for layout in 0..=45u32 {
        for ty in ALL_TYPES {
            let l = ze_image_format_layout_t(layout);
            let dsc = image_desc(Ty::_2D, rgba(l, ty), 4, 4, 0, 0);
            let r = dev.try_image(&dsc);
            let mut p = ze_image_properties_t::default();
            // SAFETY: valid arguments.
            let q = unsafe { ze::zeImageGetProperties(dev.z.dev, &dsc, &mut p) };
            if supported(l, ty) {
                assert_eq!(r, ZE_RESULT_SUCCESS, "{l:?} {ty:?}");
                assert_eq!(q, ZE_RESULT_SUCCESS);
            } else {
                assert_eq!(r, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT, "{l:?} {ty:?}");
                assert_eq!(q, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT, "{l:?} {ty:?}");
                // With the format-support extension: success, supported = 0.
                let mut s = ze_image_format_support_ext_properties_t {
                    supported: 1,
                    ..Default::default()
                };
                let mut p = ze_image_properties_t {
                    pNext: (&raw mut s).cast(),
                    ..Default::default()
                };
                ok!(ze::zeImageGetProperties(dev.z.dev, &dsc, &mut p));
                assert_eq!(s.supported, 0);
            }
        }
    }
    // Sizes, mip levels.
    let f = rgba(L::_8_8_8_8, T::UNORM);
    for (dsc, code) in [
        (image_desc(Ty::_2D, f, 0, 4, 0, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT),
        (image_desc(Ty::_2D, f, 16385, 4, 0, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT),
        (image_desc(Ty::_2D, f, 4, 0, 0, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT),
        (image_desc(Ty::_3D, f, 4, 4, 2049, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT),
        (image_desc(Ty::_2DARRAY, f, 4, 4, 0, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT),
        (image_desc(Ty::_1DARRAY, f, 4, 0, 0, 2049), ZE_RESULT_ERROR_INVALID_ARGUMENT),
        (
            ze_image_desc_t {
                miplevels: 3,
                ..image_desc(Ty::_2D, f, 4, 4, 0, 0)
            },
            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
        ),
    ] {
        assert_eq!(dev.try_image(&dsc), code, "{dsc:?}");
    }
    let mut ip = ze_device_image_properties_t::default();
    ok!(ze::zeDeviceGetImageProperties(dev.z.dev, &mut ip));
    assert_eq!((ip.maxImageDims1D, ip.maxImageDims2D, ip.maxImageDims3D), (16384, 16384, 2048));
    assert_eq!(ip.maxImageArraySlices, 2048);
    assert_eq!(dev.try_image(&image_desc(Ty::_2D, f, 16384, 1, 0, 0)), ZE_RESULT_SUCCESS);
}

/// The reference: `r` of an image of `dims` (elements of `elem` bytes) copied out of `img`
/// (tight storage) into memory with pitches `row`, `slice`.
fn extract(img: &[u8], dims: (usize, usize, usize), elem: usize, r: &ze_image_region_t, row: usize, slice: usize, out: &mut [u8]) {
    let (w, h, d) = (r.width as usize, (r.height as usize).max(1), (r.depth as usize).max(1));
    for z in 0..d {
        for y in 0..h {
            let s = (((r.originZ as usize + z) * dims.1 + r.originY as usize + y) * dims.0 + r.originX as usize) * elem;
            let o = z * slice + y * row;
            out[o..o + w * elem].copy_from_slice(&img[s..s + w * elem]);
        }
    }
}

#[test]
fn region_and_pitched_copies_match_the_reference() {
    let dev = Dev::new();
    let elem = 4;
    let f = rgba(L::_8_8_8_8, T::UINT);
    for (t, w, h, d, layers, dims) in shapes() {
        let img = dev.image(&image_desc(t, f, w, h, d, layers));
        let whole = pattern(dims.0 * dims.1 * dims.2 * elem, 7);
        dev.write_image(img, &whole, None);
        // A region inside the image.
        let r = ze_image_region_t {
            originX: 1,
            originY: if dims.1 > 1 { 1 } else { 0 },
            originZ: if dims.2 > 1 { 1 } else { 0 },
            width: (dims.0 - 2) as u32,
            height: if dims.1 > 1 { (dims.1 - 1) as u32 } else { 1 },
            depth: if dims.2 > 1 { (dims.2 - 1) as u32 } else { 1 },
        };
        let (rw, rh, rd) = (r.width as usize, r.height as usize, r.depth as usize);
        let tight = rw * elem;
        let mut got = vec![0u8; tight * rh * rd];
        let mut want = vec![0u8; got.len()];
        dev.read_image(&mut got, img, Some(&r));
        extract(&whole, dims, elem, &r, tight, tight * rh, &mut want);
        assert!(got == want, "{t:?}: region copy to memory");
        // Pitched: rows of `tight + 12` bytes, slices of `row * rh + 40` (only where allowed).
        let one_d = matches!(t, Ty::_1D | Ty::BUFFER);
        let two_d = matches!(t, Ty::_2D | Ty::_1DARRAY);
        let row = if one_d { 0 } else { tight + 12 };
        let row_eff = if row == 0 { tight } else { row };
        let slice = if one_d || two_d { 0 } else { row_eff * rh + 40 };
        let slice_eff = if slice == 0 { row_eff * rh } else { slice };
        let mut got = vec![0xeeu8; slice_eff * rd];
        let mut want = got.clone();
        ok!(ze::zeCommandListAppendImageCopyToMemoryExt(
            dev.l, got.as_mut_ptr().cast(), img, &r as *const _ as *mut _, row as u32, slice as u32,
            null_mut(), 0, null_mut()
        ));
        extract(&whole, dims, elem, &r, row_eff, slice_eff, &mut want);
        assert!(got == want, "{t:?}: pitched copy to memory");
        // Back in through the pitched path into a fresh image: the region matches, the rest is 0.
        let img2 = dev.image(&image_desc(t, f, w, h, d, layers));
        ok!(ze::zeCommandListAppendImageCopyFromMemoryExt(
            dev.l, img2, got.as_ptr().cast(), &r as *const _ as *mut _, row as u32, slice as u32,
            null_mut(), 0, null_mut()
        ));
        let mut all = vec![0u8; whole.len()];
        dev.read_image(&mut all, img2, None);
        let mut expect = vec![0u8; whole.len()];
        for z in 0..rd {
            for y in 0..rh {
                let o = (((r.originZ as usize + z) * dims.1 + r.originY as usize + y) * dims.0 + 1) * elem;
                expect[o..o + tight].copy_from_slice(&whole[o..o + tight]);
            }
        }
        assert!(all == expect, "{t:?}: pitched copy from memory");
        // Image to image, region to another place.
        let img3 = dev.image(&image_desc(t, f, w, h, d, layers));
        let dr = ze_image_region_t { originX: 0, ..r };
        ok!(ze::zeCommandListAppendImageCopyRegion(
            dev.l, img3, img, &dr as *const _ as *mut _, &r as *const _ as *mut _, null_mut(), 0, null_mut()
        ));
        let mut got = vec![0u8; tight * rh * rd];
        dev.read_image(&mut got, img3, Some(&dr));
        let mut want = vec![0u8; got.len()];
        extract(&whole, dims, elem, &r, tight, tight * rh, &mut want);
        assert!(got == want, "{t:?}: image region copy");
        ok!(ze::zeCommandListAppendImageCopy(dev.l, img3, img, null_mut(), 0, null_mut()));
        let mut all = vec![0u8; whole.len()];
        dev.read_image(&mut all, img3, None);
        assert!(all == whole, "{t:?}: whole image copy");
        // Bad pitches and regions.
        let mut buf = vec![0u8; whole.len() * 4];
        if !one_d {
            check!(
                ze::zeCommandListAppendImageCopyToMemoryExt(
                    dev.l, buf.as_mut_ptr().cast(), img, &r as *const _ as *mut _, (tight - 1) as u32, 0,
                    null_mut(), 0, null_mut()
                ),
                ZE_RESULT_ERROR_INVALID_ARGUMENT
            );
        } else {
            check!(
                ze::zeCommandListAppendImageCopyToMemoryExt(
                    dev.l, buf.as_mut_ptr().cast(), img, &r as *const _ as *mut _, (tight + 4) as u32, 0,
                    null_mut(), 0, null_mut()
                ),
                ZE_RESULT_ERROR_INVALID_ARGUMENT
            );
        }
        if one_d || two_d {
            check!(
                ze::zeCommandListAppendImageCopyToMemoryExt(
                    dev.l, buf.as_mut_ptr().cast(), img, &r as *const _ as *mut _, 0, 1 << 20,
                    null_mut(), 0, null_mut()
                ),
                ZE_RESULT_ERROR_INVALID_ARGUMENT
            );
        }
        let out = ze_image_region_t { originX: 2, width: dims.0 as u32, ..r };
        check!(
            ze::zeCommandListAppendImageCopyToMemory(
                dev.l, buf.as_mut_ptr().cast(), img, &out as *const _ as *mut _, null_mut(), 0, null_mut()
            ),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        check!(
            ze::zeCommandListAppendImageCopyRegion(
                dev.l, img, img, &r as *const _ as *mut _, &r as *const _ as *mut _, null_mut(), 0, null_mut()
            ),
            ZE_RESULT_ERROR_OVERLAPPING_REGIONS
        );
        for i in [img, img2, img3] {
            ok!(ze::zeImageDestroy(i));
        }
    }
}

#[test]
fn views_ids_samplers_and_destroy_while_queued() {
    let dev = Dev::new();
    let img = dev.image(&image_desc(Ty::_2D, rgba(L::_8_8_8_8, T::UNORM), 8, 8, 0, 0));
    let src = pattern(8 * 8 * 4, 3);
    dev.write_image(img, &src, None);
    // A view with another format of the same size sees the same bytes.
    let mut view = null_mut();
    let vd = image_desc(Ty::_2D, rgba(L::_32, T::UINT), 8, 8, 0, 0);
    ok!(ze::zeImageViewCreateExt(dev.z.ctx, dev.z.dev, &vd, img, &mut view));
    let mut back = vec![0u8; src.len()];
    dev.read_image(&mut back, view, None);
    assert!(back == src);
    let mut view2 = null_mut();
    ok!(ze::zeImageViewCreateExp(dev.z.ctx, dev.z.dev, &vd, img, &mut view2));
    let bad = image_desc(Ty::_2D, rgba(L::_16, T::UINT), 8, 8, 0, 0);
    let mut v3 = null_mut();
    check!(
        ze::zeImageViewCreateExt(dev.z.ctx, dev.z.dev, &bad, img, &mut v3),
        ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT
    );
    let (mut a, mut b) = (ze_image_allocation_ext_properties_t::default(), ze_image_allocation_ext_properties_t::default());
    ok!(ze::zeImageGetAllocPropertiesExt(dev.z.ctx, img, &mut a));
    ok!(ze::zeImageGetAllocPropertiesExt(dev.z.ctx, view, &mut b));
    assert!(a.id != 0 && b.id != 0 && a.id != b.id);
    // The image goes while the view lives, and while an asynchronous copy waits on an event.
    ok!(ze::zeImageDestroy(img));
    dev.read_image(&mut back, view, None);
    assert!(back == src);
    let pool = dev.z.pool(ze_event_pool_flags_t::HOST_VISIBLE, 1);
    let e = dev.z.event(pool, 0);
    let l = dev.z.immediate(0, ze_command_queue_mode_t::ASYNCHRONOUS);
    let mut later = vec![0u8; src.len()];
    let mut ev = e;
    ok!(ze::zeCommandListAppendImageCopyToMemory(l, later.as_mut_ptr().cast(), view2, null_mut(), null_mut(), 1, &mut ev));
    ok!(ze::zeImageDestroy(view2));
    ok!(ze::zeImageDestroy(view));
    ok!(ze::zeEventHostSignal(e));
    ok!(ze::zeCommandListHostSynchronize(l, FOREVER));
    assert!(later == src);
    ok!(ze::zeCommandListDestroy(l));
    ok!(ze::zeEventDestroy(e));
    ok!(ze::zeEventPoolDestroy(pool));
    // Samplers.
    let sd = ze_sampler_desc_t {
        addressMode: ze_sampler_address_mode_t::CLAMP,
        filterMode: ze_sampler_filter_mode_t::LINEAR,
        isNormalized: 1,
        ..Default::default()
    };
    let mut s = null_mut();
    ok!(ze::zeSamplerCreate(dev.z.ctx, dev.z.dev, &sd, &mut s));
    ok!(ze::zeSamplerDestroy(s));
    check!(ze::zeSamplerDestroy(s), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}
