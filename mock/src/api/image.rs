//! `ImageApi` and `SamplerApi`: images backed by zeroed host memory, samplers that record
//! their descriptor, and the image copies the command lists append (`command_list.rs` builds
//! the commands with [`to_memory`], [`from_memory`] and [`image_to_image`]).
//!
//! | topic | behaviour |
//! |---|---|
//! | device limits | the profile's `images:` (by default 16384 texels for 1D and 2D, 2048 for 3D, 2048 array slices, 16 samplers, 128 read and 128 write image arguments, buffer images up to 4 GiB); a limit of 0: that kind of image is `UNSUPPORTED_FEATURE` |
//! | formats | the layouts of one to four 8/16/32-bit channels and the packed 10_10_10_2, 11_11_10, 5_6_5, 5_5_5_1, 4_4_4_4; `FLOAT` needs 16- or 32-bit channels (or 11_11_10); the media and 3-channel layouts: `UNSUPPORTED_IMAGE_FORMAT` |
//! | storage | texels packed row after row, slice after slice (array layers are rows of a 1D array, slices of a 2D array); a buffer image is `width` texels |
//! | `zeImageGetProperties` | point and linear filtering (point only for `UINT`/`SINT`) |
//! | copies | run with the rest of their list; regions are checked against the image, memory against its USM allocation (tightly packed rows); an image lives until the commands that use it have run |
//! | kernel arguments | image and sampler handles are recorded as they are (`kernel.rs`) |

use std::sync::atomic::AtomicU64;

use zekit_icd::{kinds, Handle, ImageApi, SamplerApi, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_icd_rt::handle::Obj;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::*;

/// The image limits of the profile (`images:`; a current GPU's by default).
fn limits() -> ze_device_image_properties_t {
    let mut p = ze_device_image_properties_t::default();
    crate::script::script()
        .profile()
        .fill_image_properties(&mut p);
    p
}

/// An image: its geometry and its texels.
pub(crate) struct ImageObj {
    /// Bytes per texel.
    bpp: usize,
    /// Texels per row, rows per slice, slices (array layers count as rows or slices).
    extent: [usize; 3],
    id: u64,
    /// The texels, zeroed; words so that commands may write through a shared reference.
    data: Box<[AtomicU64]>,
}

impl ImageObj {
    fn row_pitch(&self) -> usize {
        self.extent[0] * self.bpp
    }
    fn slice_pitch(&self) -> usize {
        self.row_pitch() * self.extent[1]
    }
    fn size(&self) -> usize {
        self.slice_pitch() * self.extent[2]
    }
    fn base(&self) -> usize {
        self.data.as_ptr() as usize
    }

    /// The region in texels (the whole image when `None`), checked against the extent.
    fn region(&self, r: Option<&ze_image_region_t>, what: &str) -> ZeResult<[[usize; 3]; 2]> {
        let Some(r) = r else {
            return Ok([[0; 3], self.extent]);
        };
        let origin = [r.originX, r.originY, r.originZ].map(|v| v as usize);
        let size = [r.width, r.height, r.depth].map(|v| v as usize);
        for i in 0..3 {
            if origin[i] + size[i] > self.extent[i] {
                return Err(fail(
                    ZeError::INVALID_ARGUMENT,
                    format_args!(
                        "{what} ({}, {}, {}) + {}x{}x{} runs past the image ({}x{}x{})",
                        origin[0],
                        origin[1],
                        origin[2],
                        size[0],
                        size[1],
                        size[2],
                        self.extent[0],
                        self.extent[1],
                        self.extent[2]
                    ),
                ));
            }
        }
        Ok([origin, size])
    }

    /// Address of texel `origin`.
    fn at(&self, origin: [usize; 3]) -> usize {
        self.base()
            + origin[2] * self.slice_pitch()
            + origin[1] * self.row_pitch()
            + origin[0] * self.bpp
    }
}

/// A sampler: the mock only keeps it live.
pub(crate) struct SamplerObj;

/// Bytes per texel of `f`, or `UNSUPPORTED_IMAGE_FORMAT`.
fn texel_size(f: &ze_image_format_t) -> ZeResult<usize> {
    let (bytes, float_ok) = match f.layout {
        ZE_IMAGE_FORMAT_LAYOUT_8 => (1, false),
        ZE_IMAGE_FORMAT_LAYOUT_8_8 => (2, false),
        ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8 => (4, false),
        ZE_IMAGE_FORMAT_LAYOUT_16 => (2, true),
        ZE_IMAGE_FORMAT_LAYOUT_16_16 => (4, true),
        ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16 => (8, true),
        ZE_IMAGE_FORMAT_LAYOUT_32 => (4, true),
        ZE_IMAGE_FORMAT_LAYOUT_32_32 => (8, true),
        ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32 => (16, true),
        ZE_IMAGE_FORMAT_LAYOUT_11_11_10 => (4, true),
        ZE_IMAGE_FORMAT_LAYOUT_10_10_10_2 => (4, false),
        ZE_IMAGE_FORMAT_LAYOUT_5_6_5
        | ZE_IMAGE_FORMAT_LAYOUT_5_5_5_1
        | ZE_IMAGE_FORMAT_LAYOUT_4_4_4_4 => (2, false),
        l => {
            return Err(fail(
                ZeError::of(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT),
                format_args!("the mock has no image layout {}", l.0),
            ))
        }
    };
    if f.r#type == ZE_IMAGE_FORMAT_TYPE_FLOAT && !float_ok {
        return Err(fail(
            ZeError::of(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT),
            format_args!("layout {} has no FLOAT form", f.layout.0),
        ));
    }
    Ok(bytes)
}

/// Texels per row, rows, slices of an image of `desc`, checked against the profile's limits.
fn extent(desc: &ze_image_desc_t) -> ZeResult<[usize; 3]> {
    let p = &limits();
    let w = desc.width;
    let (h, d) = (desc.height.max(1), desc.depth.max(1));
    let layers = desc.arraylevels;
    let (e, limit, slices): ([u64; 3], u64, bool) = match desc.r#type {
        ZE_IMAGE_TYPE_1D => ([w, 1, 1], p.maxImageDims1D.into(), false),
        ZE_IMAGE_TYPE_1DARRAY => ([w, layers.into(), 1], p.maxImageDims1D.into(), true),
        ZE_IMAGE_TYPE_2D => ([w, h.into(), 1], p.maxImageDims2D.into(), false),
        ZE_IMAGE_TYPE_2DARRAY => ([w, h.into(), layers.into()], p.maxImageDims2D.into(), true),
        ZE_IMAGE_TYPE_3D => ([w, h.into(), d.into()], p.maxImageDims3D.into(), false),
        ZE_IMAGE_TYPE_BUFFER => ([w, 1, 1], p.maxImageBufferSize, false),
        t => {
            return Err(fail(
                ZeError::INVALID_ENUMERATION,
                format_args!("image type {} does not exist", t.0),
            ))
        }
    };
    if limit == 0 || (slices && p.maxImageArraySlices == 0) {
        return Err(fail(
            ZeError::UNSUPPORTED_FEATURE,
            format_args!(
                "the device has no images of type {} (the profile's image limit is 0)",
                desc.r#type.0
            ),
        ));
    }
    if e.contains(&0) {
        return Err(fail(
            ZeError::INVALID_SIZE,
            format_args!("an image of {}x{}x{} texels is empty", e[0], e[1], e[2]),
        ));
    }
    if slices && layers > p.maxImageArraySlices {
        return Err(fail(
            ZeError::UNSUPPORTED_SIZE,
            format_args!(
                "{layers} array levels exceed maxImageArraySlices ({})",
                p.maxImageArraySlices
            ),
        ));
    }
    // The array layers of an array image are its last extent, limited above.
    let dims = match desc.r#type {
        ZE_IMAGE_TYPE_1DARRAY => &e[..1],
        ZE_IMAGE_TYPE_2DARRAY => &e[..2],
        _ => &e[..],
    };
    if let Some(big) = dims.iter().find(|&&v| v > limit) {
        return Err(fail(
            ZeError::UNSUPPORTED_SIZE,
            format_args!("an image dimension of {big} exceeds the device's limit ({limit})"),
        ));
    }
    Ok(e.map(|v| v as usize))
}

/// The commands' view of memory: `len` bytes at `ptr` (tightly packed rows).
fn checked_memory(what: &str, ptr: usize, size: [usize; 3], bpp: usize) -> ZeResult<usize> {
    let len = size[0] * size[1] * size[2] * bpp;
    check_range(what, ptr, len)?;
    Ok(len)
}

fn op(region: Region, keep: Vec<Obj<ImageObj>>) -> Op {
    Op::CopyRegion(Box::new(Region {
        _keep: keep
            .into_iter()
            .map(|o| Box::new(o) as Box<dyn std::any::Any + Send + Sync>)
            .collect(),
        ..region
    }))
}

/// `zeCommandListAppendImageCopyToMemory`: the region of `image` to `dst`.
pub(super) fn to_memory(
    image: Handle<kinds::Image>,
    region: Option<&ze_image_region_t>,
    dst: *mut std::ffi::c_void,
) -> ZeResult<Op> {
    let img = image.get::<ImageObj>()?;
    let [origin, size] = img.region(region, "pSrcRegion")?;
    checked_memory("dstptr", dst as usize, size, img.bpp)?;
    let row = size[0] * img.bpp;
    Ok(op(
        Region {
            dst: dst as usize,
            dst_pitch: row,
            dst_slice_pitch: row * size[1],
            src: img.at(origin),
            src_pitch: img.row_pitch(),
            src_slice_pitch: img.slice_pitch(),
            width: row,
            height: size[1],
            depth: size[2],
            _keep: Vec::new(),
        },
        vec![img],
    ))
}

/// `zeCommandListAppendImageCopyFromMemory`: `src` to the region of `image`.
pub(super) fn from_memory(
    image: Handle<kinds::Image>,
    region: Option<&ze_image_region_t>,
    src: *const std::ffi::c_void,
) -> ZeResult<Op> {
    let img = image.get::<ImageObj>()?;
    let [origin, size] = img.region(region, "pDstRegion")?;
    checked_memory("srcptr", src as usize, size, img.bpp)?;
    let row = size[0] * img.bpp;
    Ok(op(
        Region {
            dst: img.at(origin),
            dst_pitch: img.row_pitch(),
            dst_slice_pitch: img.slice_pitch(),
            src: src as usize,
            src_pitch: row,
            src_slice_pitch: row * size[1],
            width: row,
            height: size[1],
            depth: size[2],
            _keep: Vec::new(),
        },
        vec![img],
    ))
}

/// `zeCommandListAppendImageCopy` (no regions) and `…ImageCopyRegion`.
pub(super) fn image_to_image(
    dst: Handle<kinds::Image>,
    dst_region: Option<&ze_image_region_t>,
    src: Handle<kinds::Image>,
    src_region: Option<&ze_image_region_t>,
) -> ZeResult<Op> {
    let (d, s) = (dst.get::<ImageObj>()?, src.get::<ImageObj>()?);
    if d.bpp != s.bpp {
        return Err(fail(
            ZeError::INVALID_ARGUMENT,
            format_args!(
                "the images' texels differ in size ({} and {} bytes)",
                d.bpp, s.bpp
            ),
        ));
    }
    let [d_origin, d_size] = d.region(dst_region, "pDstRegion")?;
    let [s_origin, s_size] = s.region(src_region, "pSrcRegion")?;
    if d_size != s_size {
        return Err(fail(
            ZeError::INVALID_ARGUMENT,
            format_args!(
                "the regions differ in size ({}x{}x{} vs {}x{}x{})",
                d_size[0], d_size[1], d_size[2], s_size[0], s_size[1], s_size[2]
            ),
        ));
    }
    Ok(op(
        Region {
            dst: d.at(d_origin),
            dst_pitch: d.row_pitch(),
            dst_slice_pitch: d.slice_pitch(),
            src: s.at(s_origin),
            src_pitch: s.row_pitch(),
            src_slice_pitch: s.slice_pitch(),
            width: d_size[0] * d.bpp,
            height: d_size[1],
            depth: d_size[2],
            _keep: Vec::new(),
        },
        vec![d, s],
    ))
}

#[zekit_icd::implement]
impl ImageApi for MockDriver {
    fn ze_image_get_properties(
        &self,
        h_device: Handle<kinds::Device>,
        desc: &ze_image_desc_t,
        p: &mut ze_image_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        texel_size(&desc.format)?;
        let t = desc.format.r#type;
        p.samplerFilterFlags = if t == ZE_IMAGE_FORMAT_TYPE_UINT || t == ZE_IMAGE_FORMAT_TYPE_SINT {
            ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT.into()
        } else {
            ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT | ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR
        };
        Ok(())
    }

    fn ze_image_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_image_desc_t,
        ph_image: &mut Option<Handle<kinds::Image>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        let bpp = texel_size(&desc.format)?;
        let extent = extent(desc)?;
        let bytes = extent
            .iter()
            .try_fold(bpp, |a, &b| a.checked_mul(b))
            .filter(|&n| n as u64 <= crate::script::script().profile().device.max_mem_alloc_size)
            .ok_or_else(|| {
                fail(
                    ZeError::UNSUPPORTED_SIZE,
                    "the image exceeds maxMemAllocSize",
                )
            })?;
        *ph_image = Some(Handle::new(ImageObj {
            bpp,
            extent,
            id: next_id(),
            data: (0..bytes.div_ceil(8)).map(|_| AtomicU64::new(0)).collect(),
        }));
        Ok(())
    }

    fn ze_image_destroy(&self, h_image: Handle<kinds::Image>) -> ZeResult<()> {
        h_image.get::<ImageObj>().map(|_| ())
    }

    fn ze_image_get_alloc_properties_ext(
        &self,
        h_context: Handle<kinds::Context>,
        h_image: Handle<kinds::Image>,
        p: &mut ze_image_allocation_ext_properties_t,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        p.id = h_image.get::<ImageObj>()?.id;
        Ok(())
    }

    fn ze_image_get_memory_properties_exp(
        &self,
        h_image: Handle<kinds::Image>,
        p: &mut ze_image_memory_properties_exp_t,
    ) -> ZeResult<()> {
        let img = h_image.get::<ImageObj>()?;
        p.size = img.size() as u64;
        p.rowPitch = img.row_pitch() as u64;
        p.slicePitch = img.slice_pitch() as u64;
        Ok(())
    }
}

#[zekit_icd::implement]
impl SamplerApi for MockDriver {
    fn ze_sampler_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        _desc: &ze_sampler_desc_t,
        ph_sampler: &mut Option<Handle<kinds::Sampler>>,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        if limits().maxSamplers == 0 {
            return Err(fail(
                ZeError::UNSUPPORTED_FEATURE,
                "the device has no samplers (the profile's maxSamplers is 0)",
            ));
        }
        *ph_sampler = Some(Handle::new(SamplerObj));
        Ok(())
    }

    fn ze_sampler_destroy(&self, h_sampler: Handle<kinds::Sampler>) -> ZeResult<()> {
        h_sampler.get::<SamplerObj>().map(|_| ())
    }
}
