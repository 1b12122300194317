//! Images of the CPU driver: linear host memory, one format per image, copies as region copies.
//!
//! An image is stored row-major and tightly packed: element size × width bytes per row, rows ×
//! height per slice. A 1D array keeps its layers as rows (a region's `originY` / `height` pick
//! layers), a 2D array as slices (`originZ` / `depth`), as the API's regions say. Views share
//! the storage of their image.
//!
//! | topic | behaviour |
//! |---|---|
//! | types | 1D, 1D array, 2D, 2D array, 3D, buffer |
//! | layouts | 8, 16, 32, 8_8, 8_8_8, 8_8_8_8, 16_16, 16_16_16, 16_16_16_16, 32_32, 32_32_32, 32_32_32_32 (UINT, SINT, UNORM, SNORM; 16- and 32-bit channels also FLOAT, 32-bit not UNORM/SNORM), 10_10_10_2 (UNORM, UINT), 11_11_10 (FLOAT), 5_6_5, 5_5_5_1, 4_4_4_4 (UNORM) |
//! | swizzles (`x, y, z, w`) | what a kernel sees, as compute-runtime's channel selects: component R takes the source `x` names (R, G, B, A: stored channel 0..3 in memory order, one the layout lacks reads 0, or 1 for A; `0`, `1`: constants; `X`: the component's own channel; `D`: channel 0), G `y`, B `z`, A `w`, for reads and samples alike; a write stores each channel from the first component that reads it, else from the component of its index, so a permutation round-trips. Copies move bytes and ignore swizzles. |
//! | depth formats | a `D` swizzle on a 32 `FLOAT` or 16 `UNORM` layout (any layout is accepted): `get_image_channel_order` answers `CLK_DEPTH`; kernels take them as `image2d_t` or as `image2d_depth_t` / `image2d_array_depth_t` (one float: the depth) |
//! | float texels | 32-, 16- (half) and 11_11_10-bit floats convert exactly both ways: a read and a write of the same format keep every bit, NaN payloads, signs of zero, denormals and infinities included |
//! | refused with `UNSUPPORTED_IMAGE_FORMAT` | every YUV, planar and palette layout (Y8 ... BRGP: no colour conversion or chroma subsampling on this device), and layout/type pairs outside the table (an 8-bit FLOAT, ...) |
//! | mip levels | 0 or 1 (one level); more: `UNSUPPORTED_FEATURE` |
//! | limits ([`LIMITS`]) | 1D and buffer widths, 2D width/height 16384, 3D 2048 per side, 2048 array layers; beyond: `INVALID_ARGUMENT`; width, height (2D, 3D, arrays), depth (3D), array levels (arrays) of 0: `INVALID_ARGUMENT` |
//! | regions | `origin + extent` within the image on every axis, else `INVALID_ARGUMENT`; a null region is the whole image; height and depth 0 count as 1; 1D images take `originY = originZ = 0`, extents 1 |
//! | image ↔ image copies | same element size (formats may differ, as in a view), same extents; overlapping regions of one image: `OVERLAPPING_REGIONS` |
//! | pitched memory copies (`...Ext`) | row pitch 0 (tight) or ≥ element size × region width, and 0 for 1D images; slice pitch 0 or ≥ row pitch × region height, and 0 for 1D and 2D images; else `INVALID_ARGUMENT` |
//! | views | a format of the same element size over the same storage and type; a planar view (`ze_image_view_planar_ext_desc_t`): `UNSUPPORTED_IMAGE_FORMAT` (no planar formats) |

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use zekit_sys::*;

use zekit_spirv::image::{layout, ImageDesc, SamplerDesc};

use crate::model::objects::{ZeError, ZeResult};
use crate::exec::memory::{Region, Side};

/// Limits reported by `zeDeviceGetImageProperties` and enforced by `zeImageCreate`.
pub struct Limits {
    /// Largest 1D width.
    pub dims_1d: u32,
    /// Largest 2D width and height.
    pub dims_2d: u32,
    /// Largest 3D width, height and depth.
    pub dims_3d: u32,
    /// Largest array layer count.
    pub array_slices: u32,
    /// Samplers a kernel may use.
    pub samplers: u32,
    /// Read and write image arguments of a kernel.
    pub image_args: u32,
}

/// The CPU device's image limits (its own choice: images are host memory).
pub const LIMITS: Limits = Limits {
    dims_1d: 16384,
    dims_2d: 16384,
    dims_3d: 2048,
    array_slices: 2048,
    samplers: 16,
    image_args: 128,
};

/// `maxImageBufferSize`: the largest buffer image in bytes.
pub fn max_buffer_bytes(max_alloc: u64) -> u64 {
    max_alloc
}

type L = ze_image_format_layout_t;
type T = ze_image_format_type_t;

/// Element size of a supported `layout` / `type` pair; `UNSUPPORTED_IMAGE_FORMAT` otherwise.
pub fn element_size(f: &ze_image_format_t) -> ZeResult<usize> {
    let (size, types): (usize, &[T]) = match f.layout {
        L::_8 | L::_8_8 | L::_8_8_8 | L::_8_8_8_8 => (
            match f.layout {
                L::_8 => 1,
                L::_8_8 => 2,
                L::_8_8_8 => 3,
                _ => 4,
            },
            &[T::UINT, T::SINT, T::UNORM, T::SNORM],
        ),
        L::_16 | L::_16_16 | L::_16_16_16 | L::_16_16_16_16 => (
            match f.layout {
                L::_16 => 2,
                L::_16_16 => 4,
                L::_16_16_16 => 6,
                _ => 8,
            },
            &[T::UINT, T::SINT, T::UNORM, T::SNORM, T::FLOAT],
        ),
        L::_32 | L::_32_32 | L::_32_32_32 | L::_32_32_32_32 => (
            match f.layout {
                L::_32 => 4,
                L::_32_32 => 8,
                L::_32_32_32 => 12,
                _ => 16,
            },
            &[T::UINT, T::SINT, T::FLOAT],
        ),
        L::_10_10_10_2 => (4, &[T::UNORM, T::UINT]),
        L::_11_11_10 => (4, &[T::FLOAT]),
        L::_5_6_5 | L::_5_5_5_1 | L::_4_4_4_4 => (2, &[T::UNORM]),
        other => {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                format!(
                    "layout {}: YUV, planar and palette layouts are not supported (no colour conversion or chroma subsampling on this device)",
                    other.name().unwrap_or("unknown")
                ),
            ))
        }
    };
    if !types.contains(&f.r#type) {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
            format!(
                "layout {} has no {} variant",
                f.layout.name().unwrap_or("?"),
                f.r#type.name().unwrap_or("unknown type")
            ),
        ));
    }
    Ok(size)
}

/// The storage of an image (shared by its views): zeroed host memory.
#[derive(Debug)]
pub struct Storage {
    bytes: Box<[std::cell::UnsafeCell<u8>]>,
}

// SAFETY: the bytes are only accessed through raw pointers by commands (the application orders
// them with events and barriers, as for any device memory).
unsafe impl Sync for Storage {}
// SAFETY: as above.
unsafe impl Send for Storage {}

impl Storage {
    fn new(size: usize) -> ZeResult<Storage> {
        let mut v = Vec::new();
        v.try_reserve_exact(size).map_err(|_| {
            ZeError::new(
                ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
                format!("{size} bytes of image memory"),
            )
        })?;
        v.resize_with(size, || std::cell::UnsafeCell::new(0));
        Ok(Storage {
            bytes: v.into_boxed_slice(),
        })
    }

    fn base(&self) -> usize {
        self.bytes.as_ptr() as usize
    }
}

static NEXT_IMAGE_ID: AtomicU64 = AtomicU64::new(1);

/// Value of an image handle.
#[derive(Debug)]
pub struct ImageObject {
    ty: ze_image_type_t,
    format: ze_image_format_t,
    elem: usize,
    /// Pixels per row, rows per slice, slices (layers included, see the module docs).
    dims: (usize, usize, usize),
    storage: Arc<Storage>,
    id: u64,
}

fn bad(reason: String) -> ZeError {
    ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, reason)
}

/// Storage extents (pixels, rows, slices) of a descriptor, checked against [`LIMITS`].
fn extents(desc: &ze_image_desc_t, max_alloc: u64, elem: usize) -> ZeResult<(usize, usize, usize)> {
    let w = desc.width;
    let (h, d, layers) = (desc.height, desc.depth, desc.arraylevels);
    let need = |what: &str, v: u64, max: u64| -> ZeResult<usize> {
        if v == 0 || v > max {
            return Err(bad(format!("{what} {v} is outside 1..={max}")));
        }
        Ok(v as usize)
    };
    let l = &LIMITS;
    let dims = match desc.r#type {
        ze_image_type_t::_1D => (need("width", w, l.dims_1d.into())?, 1, 1),
        ze_image_type_t::BUFFER => {
            let max = max_buffer_bytes(max_alloc) / elem as u64;
            (need("width", w, max)?, 1, 1)
        }
        ze_image_type_t::_1DARRAY => (
            need("width", w, l.dims_1d.into())?,
            need("arraylevels", layers.into(), l.array_slices.into())?,
            1,
        ),
        ze_image_type_t::_2D => (
            need("width", w, l.dims_2d.into())?,
            need("height", h.into(), l.dims_2d.into())?,
            1,
        ),
        ze_image_type_t::_2DARRAY => (
            need("width", w, l.dims_2d.into())?,
            need("height", h.into(), l.dims_2d.into())?,
            need("arraylevels", layers.into(), l.array_slices.into())?,
        ),
        ze_image_type_t::_3D => (
            need("width", w, l.dims_3d.into())?,
            need("height", h.into(), l.dims_3d.into())?,
            need("depth", d.into(), l.dims_3d.into())?,
        ),
        other => {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown image type {}", other.0),
            ))
        }
    };
    Ok(dims)
}

/// A resolved region: origin and extent in pixels, rows and slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Area {
    /// Origin (x, y, z).
    pub origin: (usize, usize, usize),
    /// Extent (width, height, depth).
    pub extent: (usize, usize, usize),
}

impl ImageObject {
    /// `zeImageCreate`.
    pub fn new(desc: &ze_image_desc_t, max_alloc: u64) -> ZeResult<ImageObject> {
        if desc.flags.0 & !ze_image_flags_t::all_known().0 != 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown image flags {:#x}", desc.flags.0),
            ));
        }
        let elem = element_size(&desc.format)?;
        if desc.miplevels > 1 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                format!("{} mip levels: images have one level on this device", desc.miplevels),
            ));
        }
        let dims = extents(desc, max_alloc, elem)?;
        let size = dims
            .0
            .checked_mul(elem)
            .and_then(|r| r.checked_mul(dims.1))
            .and_then(|s| s.checked_mul(dims.2))
            .filter(|&s| s as u64 <= max_alloc)
            .ok_or_else(|| {
                ZeError::new(
                    ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                    format!("the image exceeds the maximum allocation size {max_alloc}"),
                )
            })?;
        Ok(ImageObject {
            ty: desc.r#type,
            format: desc.format,
            elem,
            dims,
            storage: Arc::new(Storage::new(size)?),
            id: NEXT_IMAGE_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// `zeImageViewCreateExt` / `Exp`: a view of this image with `desc`'s format (same element
    /// size) and type (the image's).
    pub fn view(&self, desc: &ze_image_desc_t) -> ZeResult<ImageObject> {
        let elem = element_size(&desc.format)?;
        if elem != self.elem {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                format!(
                    "the view's elements are {elem} bytes, the image's {}: a view reinterprets, it does not convert",
                    self.elem
                ),
            ));
        }
        if desc.r#type != self.ty {
            return Err(bad(format!(
                "the view's type {} differs from the image's {}",
                desc.r#type.name().unwrap_or("?"),
                self.ty.name().unwrap_or("?")
            )));
        }
        Ok(ImageObject {
            ty: self.ty,
            format: desc.format,
            elem,
            dims: self.dims,
            storage: self.storage.clone(),
            id: NEXT_IMAGE_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// Unique id (`zeImageGetAllocPropertiesExt`).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The format.
    pub fn format(&self) -> ze_image_format_t {
        self.format
    }

    /// Bytes per element.
    pub fn element_size(&self) -> usize {
        self.elem
    }

    /// `(size, row pitch, slice pitch)` in bytes (`zeImageGetMemoryPropertiesExp`).
    pub fn memory(&self) -> (u64, u64, u64) {
        let row = self.dims.0 * self.elem;
        let slice = row * self.dims.1;
        ((slice * self.dims.2) as u64, row as u64, slice as u64)
    }

    fn is_1d(&self) -> bool {
        matches!(self.ty, ze_image_type_t::_1D | ze_image_type_t::BUFFER)
    }

    fn is_2d(&self) -> bool {
        matches!(self.ty, ze_image_type_t::_2D | ze_image_type_t::_1DARRAY)
    }

    /// The region `r` (null: the whole image), checked.
    pub fn area(&self, r: Option<&ze_image_region_t>) -> ZeResult<Area> {
        let Some(r) = r else {
            return Ok(Area {
                origin: (0, 0, 0),
                extent: self.dims,
            });
        };
        let a = Area {
            origin: (r.originX as usize, r.originY as usize, r.originZ as usize),
            extent: (
                r.width as usize,
                (r.height as usize).max(1),
                (r.depth as usize).max(1),
            ),
        };
        let axes = [
            ("x", a.origin.0, a.extent.0, self.dims.0),
            ("y", a.origin.1, a.extent.1, self.dims.1),
            ("z", a.origin.2, a.extent.2, self.dims.2),
        ];
        for (axis, o, e, n) in axes {
            if o.checked_add(e).is_none_or(|end| end > n) {
                return Err(bad(format!(
                    "the region's {axis} range {o}..{o}+{e} exceeds the image's {n}"
                )));
            }
        }
        Ok(a)
    }

    fn side(&self, a: &Area) -> Side {
        let row = self.dims.0 * self.elem;
        Side {
            base: self.storage.base(),
            origin: (a.origin.0 * self.elem, a.origin.1, a.origin.2),
            pitch: row,
            slice_pitch: row * self.dims.1,
        }
    }

    /// The memory side of an image ↔ memory copy of `area`: tight, or with the `...Ext` pitches.
    fn memory_side(&self, ptr: usize, a: &Area, pitches: Option<(u32, u32)>) -> ZeResult<Side> {
        let tight_row = a.extent.0 * self.elem;
        let (row, slice) = pitches.unwrap_or((0, 0));
        let (row, slice) = (row as usize, slice as usize);
        if row != 0 && self.is_1d() {
            return Err(bad("the row pitch must be 0 for a 1D image".into()));
        }
        if row != 0 && row < tight_row {
            return Err(bad(format!(
                "row pitch {row} is below element size x width = {tight_row}"
            )));
        }
        let row = if row == 0 { tight_row } else { row };
        if slice != 0 && (self.is_1d() || self.is_2d()) {
            return Err(bad("the slice pitch must be 0 for a 1D or 2D image".into()));
        }
        let tight_slice = row * a.extent.1;
        if slice != 0 && slice < tight_slice {
            return Err(bad(format!(
                "slice pitch {slice} is below row pitch x height = {tight_slice}"
            )));
        }
        let slice = if slice == 0 { tight_slice } else { slice };
        Ok(Side {
            base: ptr,
            origin: (0, 0, 0),
            pitch: row,
            slice_pitch: slice,
        })
    }

    /// Image → memory (`zeCommandListAppendImageCopyToMemory[Ext]`).
    pub fn to_memory(
        &self,
        dst: usize,
        r: Option<&ze_image_region_t>,
        pitches: Option<(u32, u32)>,
    ) -> ZeResult<Region> {
        let a = self.area(r)?;
        Ok(Region {
            dst: self.memory_side(dst, &a, pitches)?,
            src: self.side(&a),
            width: a.extent.0 * self.elem,
            height: a.extent.1,
            depth: a.extent.2,
        })
    }

    /// Memory → image (`zeCommandListAppendImageCopyFromMemory[Ext]`).
    pub fn from_memory(
        &self,
        src: usize,
        r: Option<&ze_image_region_t>,
        pitches: Option<(u32, u32)>,
    ) -> ZeResult<Region> {
        let a = self.area(r)?;
        Ok(Region {
            dst: self.side(&a),
            src: self.memory_side(src, &a, pitches)?,
            width: a.extent.0 * self.elem,
            height: a.extent.1,
            depth: a.extent.2,
        })
    }

    /// Image → image (`zeCommandListAppendImageCopy[Region]`).
    pub fn copy_from(
        &self,
        src: &ImageObject,
        dst_region: Option<&ze_image_region_t>,
        src_region: Option<&ze_image_region_t>,
    ) -> ZeResult<Region> {
        if self.elem != src.elem {
            return Err(bad(format!(
                "element sizes differ: destination {}, source {} bytes",
                self.elem, src.elem
            )));
        }
        let d = self.area(dst_region)?;
        let s = src.area(src_region)?;
        if d.extent != s.extent {
            return Err(bad(format!(
                "the regions differ in size: destination {:?}, source {:?}",
                d.extent, s.extent
            )));
        }
        if Arc::ptr_eq(&self.storage, &src.storage) {
            let overlaps = (0..3).all(|i| {
                let (a0, b0) = ([d.origin.0, d.origin.1, d.origin.2][i], [s.origin.0, s.origin.1, s.origin.2][i]);
                let e = [d.extent.0, d.extent.1, d.extent.2][i];
                a0 < b0 + e && b0 < a0 + e
            });
            if overlaps {
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_OVERLAPPING_REGIONS,
                    "source and destination regions of the image overlap",
                ));
            }
        }
        Ok(Region {
            dst: self.side(&d),
            src: src.side(&s),
            width: d.extent.0 * self.elem,
            height: d.extent.1,
            depth: d.extent.2,
        })
    }

    /// The storage, kept alive by the commands that use it.
    pub fn storage(&self) -> Arc<Storage> {
        self.storage.clone()
    }

    /// The descriptor a kernel's image argument receives (see [`zekit_spirv::image`]).
    pub fn kernel_desc(&self) -> ImageDesc {
        let (row, slice) = (self.dims.0 * self.elem, self.dims.0 * self.elem * self.dims.1);
        let layers = match self.ty {
            ze_image_type_t::_1DARRAY => self.dims.1,
            ze_image_type_t::_2DARRAY => self.dims.2,
            _ => 0,
        };
        let f = &self.format;
        let lay = match f.layout {
            L::_8 | L::_8_8 | L::_8_8_8 | L::_8_8_8_8 => layout::C8,
            L::_16 | L::_16_16 | L::_16_16_16 | L::_16_16_16_16 => layout::C16,
            L::_5_6_5 => layout::P565,
            L::_5_5_5_1 => layout::P5551,
            L::_4_4_4_4 => layout::P4444,
            L::_10_10_10_2 => layout::P1010102,
            L::_11_11_10 => layout::P111110,
            _ => layout::C32,
        };
        let swizzle = [f.x.0, f.y.0, f.z.0, f.w.0].map(|s| s.min(255) as u8);
        ImageDesc {
            base: self.storage.base() as u64,
            width: self.dims.0 as u64,
            height: self.dims.1 as u64,
            depth: self.dims.2 as u64,
            layers: layers as u64,
            row_pitch: row as u64,
            slice_pitch: slice as u64,
            elem_size: self.elem as u32,
            layout: lay,
            channel_type: f.r#type.0,
            swizzle,
            order: channel_order(f, self.elem),
            data_type: channel_data_type(f),
        }
    }
}

/// Stored channels of a format (`elem` bytes per texel).
fn channels(f: &ze_image_format_t, elem: usize) -> usize {
    match f.layout {
        L::_8 | L::_8_8 | L::_8_8_8 | L::_8_8_8_8 => elem,
        L::_16 | L::_16_16 | L::_16_16_16 | L::_16_16_16_16 => elem / 2,
        L::_5_6_5 | L::_11_11_10 => 3,
        L::_5_5_5_1 | L::_4_4_4_4 | L::_10_10_10_2 => 4,
        _ => elem / 4,
    }
}

/// What `get_image_channel_order` answers, as SPIR-V's `ImageChannelOrder` (the OpenCL value
/// less `CLK_R`): `Depth` for a format with a D swizzle; else from the component each stored
/// channel feeds (the swizzle names each component's source: see
/// [`zekit_spirv::image::ImageDesc::swizzle`]): R, A, RG, RA, RGB, RGBA, BGRA, ARGB, ABGR;
/// RGBA for any other arrangement.
fn channel_order(f: &ze_image_format_t, elem: usize) -> u32 {
    let sw = [f.x.0, f.y.0, f.z.0, f.w.0];
    if sw.contains(&ze_image_format_swizzle_t::D.0) {
        return 13;
    }
    let n = channels(f, elem).min(4);
    // The component stored channel c feeds: the first whose source it is (9: none).
    let fed: Vec<u32> = (0..n as u32)
        .map(|c| sw.iter().position(|&s| s == c).map_or(9, |k| k as u32))
        .collect();
    match &fed[..] {
        [0] => 0,
        [3] => 1,
        [0, 1] => 2,
        [0, 3] => 3,
        [0, 1, 2] => 4,
        [2, 1, 0, 3] => 6,
        [3, 0, 1, 2] => 7,
        [3, 2, 1, 0] => 19,
        _ => 5,
    }
}

/// What `get_image_channel_data_type` answers, as SPIR-V's `ImageChannelDataType` (the
/// OpenCL value less `CLK_SNORM_INT8`). Layouts OpenCL has no name for answer the nearest:
/// 5_5_5_1 `UnormShort555`, 4_4_4_4 `UnormInt8`, 10_10_10_2 UINT `UnsignedInt32`, 11_11_10
/// `Float`.
fn channel_data_type(f: &ze_image_format_t) -> u32 {
    let bits = match f.layout {
        L::_8 | L::_8_8 | L::_8_8_8 | L::_8_8_8_8 | L::_4_4_4_4 => 8,
        L::_16 | L::_16_16 | L::_16_16_16 | L::_16_16_16_16 => 16,
        L::_5_6_5 => return 4,
        L::_5_5_5_1 => return 5,
        L::_10_10_10_2 if f.r#type == T::UNORM => return 16,
        L::_11_11_10 => return 14,
        _ => 32,
    };
    match (f.r#type, bits) {
        (T::SNORM, 8) => 0,
        (T::SNORM, _) => 1,
        (T::UNORM, 8) => 2,
        (T::UNORM, _) => 3,
        (T::SINT, 8) => 7,
        (T::SINT, 16) => 8,
        (T::SINT, _) => 9,
        (T::UINT, 8) => 10,
        (T::UINT, 16) => 11,
        (T::UINT, _) => 12,
        (_, 16) => 13,
        _ => 14,
    }
}

/// Value of a sampler handle: its descriptor, checked.
#[derive(Debug)]
pub struct SamplerObject {
    /// Address mode.
    pub address_mode: ze_sampler_address_mode_t,
    /// Filter mode.
    pub filter_mode: ze_sampler_filter_mode_t,
    /// Normalized coordinates.
    pub normalized: bool,
}

impl SamplerObject {
    /// The descriptor a kernel's sampler argument receives: Level Zero's CLAMP is OpenCL's
    /// clamp-to-edge, CLAMP_TO_BORDER OpenCL's clamp (see [`zekit_spirv::image`]).
    pub fn kernel_desc(&self) -> SamplerDesc {
        let addressing = match self.address_mode {
            ze_sampler_address_mode_t::REPEAT => 3,
            ze_sampler_address_mode_t::CLAMP => 1,
            ze_sampler_address_mode_t::CLAMP_TO_BORDER => 2,
            ze_sampler_address_mode_t::MIRROR => 4,
            _ => 0,
        };
        SamplerDesc {
            addressing,
            normalized: u32::from(self.normalized),
            filter: u32::from(self.filter_mode == ze_sampler_filter_mode_t::LINEAR),
            reserved: 0,
        }
    }

    /// `zeSamplerCreate`.
    pub fn new(desc: &ze_sampler_desc_t) -> ZeResult<SamplerObject> {
        if desc.addressMode.0 > ze_sampler_address_mode_t::MIRROR.0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown sampler address mode {}", desc.addressMode.0),
            ));
        }
        if desc.filterMode.0 > ze_sampler_filter_mode_t::LINEAR.0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ENUMERATION,
                format!("unknown sampler filter mode {}", desc.filterMode.0),
            ));
        }
        Ok(SamplerObject {
            address_mode: desc.addressMode,
            filter_mode: desc.filterMode,
            normalized: desc.isNormalized != 0,
        })
    }
}
