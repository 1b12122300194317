//! Images and samplers in kernels: the descriptors a driver passes for image and sampler
//! arguments, the image types the compiler accepts, and the host function that reads, samples
//! and writes texels ([`zekit_image`], called from generated code).
//!
//! An image argument is an [`ImageDesc`] in the argument block (its storage, extents, pitches
//! and format); the kernel's image value is that descriptor's address. A sampler argument is a
//! [`SamplerDesc`]; a program-scope sampler (`OpConstantSampler`) is one in the program's data.
//! Reads, samples and writes call [`zekit_image`] with the descriptor, the sampler (or none),
//! the coordinates and the texel in the work-item's private memory. Addressing and filtering
//! follow the OpenCL C image rules (nearest and linear filters; none, clamp-to-edge, clamp,
//! repeat and mirrored repeat; normalized or unnormalized coordinates). Every texel access is
//! bounds-checked against the descriptor: coordinates outside the image read the border colour
//! and writes outside it are dropped, so a kernel never reaches memory outside the image.

use crate::spv::dim;

/// Bytes of an [`ImageDesc`] in an argument block.
pub const IMAGE_DESC_SIZE: u32 = 80;
/// Bytes of a [`SamplerDesc`].
pub const SAMPLER_DESC_SIZE: u32 = 16;

/// Channel layouts of [`ImageDesc::layout`].
pub mod layout {
    /// 8-bit channels (1 to 4: the element size says how many).
    pub const C8: u32 = 0;
    /// 16-bit channels.
    pub const C16: u32 = 1;
    /// 32-bit channels.
    pub const C32: u32 = 2;
    /// 5, 6, 5 bits (channel 0 in the least significant bits, as for every packed layout).
    pub const P565: u32 = 3;
    /// 5, 5, 5, 1 bits.
    pub const P5551: u32 = 4;
    /// 4, 4, 4, 4 bits.
    pub const P4444: u32 = 5;
    /// 10, 10, 10, 2 bits.
    pub const P1010102: u32 = 6;
    /// 11, 11, 10 bits of unsigned floats (6- and 5-bit mantissas, 5-bit exponents).
    pub const P111110: u32 = 7;
}

/// Channel types of [`ImageDesc::channel_type`] (Level Zero's `ze_image_format_type_t`
/// numbering).
pub mod channel {
    /// Unsigned integers.
    pub const UINT: u32 = 0;
    /// Signed integers.
    pub const SINT: u32 = 1;
    /// Unsigned normalized to [0, 1].
    pub const UNORM: u32 = 2;
    /// Signed normalized to [-1, 1].
    pub const SNORM: u32 = 3;
    /// Floats (16- or 32-bit channels, or the 11_11_10 layout).
    pub const FLOAT: u32 = 4;
}

/// An image as a kernel sees it (`#[repr(C)]`, [`IMAGE_DESC_SIZE`] bytes). Storage extents:
/// a 1D array keeps its layers as rows, a 2D array as slices.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImageDesc {
    /// Address of texel (0, 0, 0).
    pub base: u64,
    /// Texels per row.
    pub width: u64,
    /// Rows per slice (the layer count of a 1D array).
    pub height: u64,
    /// Slices (the layer count of a 2D array).
    pub depth: u64,
    /// Array layers (0 for images that are not arrays).
    pub layers: u64,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one slice to the next.
    pub slice_pitch: u64,
    /// Bytes per texel.
    pub elem_size: u32,
    /// The channel layout ([`layout`]).
    pub layout: u32,
    /// The channel type ([`channel`]).
    pub channel_type: u32,
    /// Level Zero's swizzle (`ze_image_format_t` x, y, z, w): for each component the kernel
    /// sees (R, G, B, A), its source: 0..=3 the stored channel of that index (in memory order;
    /// one the layout lacks reads 0, or 1 for the fourth), 4 zero, 5 one, 6 (X, "does not
    /// matter") the component's own channel, 7 (D, depth) channel 0. Writes store each channel
    /// from the first component that reads it (else from the component of its own index).
    pub swizzle: [u8; 4],
    /// What `OpImageQueryOrder` answers (SPIR-V `ImageChannelOrder`).
    pub order: u32,
    /// What `OpImageQueryFormat` answers (SPIR-V `ImageChannelDataType`).
    pub data_type: u32,
}

/// A sampler as a kernel sees it (`#[repr(C)]`, [`SAMPLER_DESC_SIZE`] bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SamplerDesc {
    /// SPIR-V `SamplerAddressingMode`: 0 none, 1 clamp to edge, 2 clamp (border colour),
    /// 3 repeat, 4 mirrored repeat.
    pub addressing: u32,
    /// 1 for normalized coordinates.
    pub normalized: u32,
    /// SPIR-V `SamplerFilterMode`: 0 nearest, 1 linear.
    pub filter: u32,
    /// Zero.
    pub reserved: u32,
}

impl SamplerDesc {
    /// The descriptor's bytes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        for (i, w) in [self.addressing, self.normalized, self.filter, self.reserved]
            .into_iter()
            .enumerate()
        {
            b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }
}

impl ImageDesc {
    /// The descriptor's bytes.
    pub fn to_bytes(&self) -> [u8; IMAGE_DESC_SIZE as usize] {
        let mut b = [0u8; IMAGE_DESC_SIZE as usize];
        let words = [
            self.base,
            self.width,
            self.height,
            self.depth,
            self.layers,
            self.row_pitch,
            self.slice_pitch,
        ];
        for (i, w) in words.into_iter().enumerate() {
            b[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
        }
        b[56..60].copy_from_slice(&self.elem_size.to_le_bytes());
        b[60..64].copy_from_slice(&self.layout.to_le_bytes());
        b[64..68].copy_from_slice(&self.channel_type.to_le_bytes());
        b[68..72].copy_from_slice(&self.swizzle);
        b[72..76].copy_from_slice(&self.order.to_le_bytes());
        b[76..80].copy_from_slice(&self.data_type.to_le_bytes());
        b
    }
}

/// Byte offsets of the descriptor fields the generated code loads.
pub(crate) mod field {
    pub const WIDTH: u64 = 8;
    pub const HEIGHT: u64 = 16;
    pub const DEPTH: u64 = 24;
    pub const LAYERS: u64 = 32;
    pub const ORDER: u64 = 72;
    pub const DATA_TYPE: u64 = 76;
}

/// An `OpTypeImage` the compiler accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageType {
    /// SPIR-V `Dim`: 0 1D, 1 2D, 2 3D, 5 buffer.
    pub dim: u32,
    /// An image array.
    pub arrayed: bool,
    /// The access qualifier: 0 read-only, 1 write-only, 2 read-write.
    pub access: u32,
}

impl ImageType {
    /// The image type of an `OpTypeImage`'s operands (after the result id): refuses 1D and 3D depth,
    /// multisampled, cube, rect and subpass images.
    pub fn parse(ops: &[u32]) -> Result<ImageType, crate::Error> {
        use crate::Error;
        let w = |i: usize| {
            ops.get(i)
                .copied()
                .ok_or_else(|| Error::invalid("OpTypeImage has too few operands"))
        };
        let (dim, depth, arrayed, ms) = (w(2)?, w(3)?, w(4)?, w(5)?);
        if !matches!(
            dim,
            dim::DIM_1D | dim::DIM_2D | dim::DIM_3D | dim::DIM_BUFFER
        ) {
            let name = match dim {
                dim::DIM_CUBE => "cube",
                dim::DIM_RECT => "rect",
                dim::DIM_SUBPASS_DATA => "subpass data",
                _ => "unknown",
            };
            return Err(Error::unsupported(format!(
                "OpTypeImage with Dim {dim} ({name} images)"
            )));
        }
        // Depth images (OpenCL's image2d_depth_t and image2d_array_depth_t) read and write one
        // float: the texel's first component, which a depth format's D swizzle fills.
        if depth == 1 && dim != dim::DIM_2D {
            return Err(Error::unsupported("OpTypeImage: depth images other than 2D (arrays)"));
        }
        if ms != 0 {
            return Err(Error::unsupported("OpTypeImage: multisampled images (MSAA)"));
        }
        if arrayed != 0 && !matches!(dim, dim::DIM_1D | dim::DIM_2D) {
            return Err(Error::invalid("OpTypeImage: an array of 3D or buffer images"));
        }
        let access = ops.get(8).copied().unwrap_or(0);
        if access > 2 {
            return Err(Error::invalid(format!("OpTypeImage: access qualifier {access}")));
        }
        Ok(ImageType {
            dim,
            arrayed: arrayed != 0,
            access,
        })
    }

    /// Coordinate components an access uses (the layer last for arrays).
    pub fn coords(&self) -> usize {
        let base = match self.dim {
            dim::DIM_2D => 2,
            dim::DIM_3D => 3,
            _ => 1,
        };
        base + usize::from(self.arrayed)
    }

    /// The flag bits of [`zekit_image`] for this type.
    pub(crate) fn flags(&self) -> u32 {
        (self.dim & 7) | if self.arrayed { flag::ARRAYED } else { 0 }
    }
}

/// The `flags` argument of [`zekit_image`]: bits 0-2 the SPIR-V `Dim`, then these.
pub mod flag {
    /// An image array.
    pub const ARRAYED: u32 = 1 << 4;
    /// The coordinates are floats (else 32-bit integers).
    pub const FLOAT_COORDS: u32 = 1 << 5;
    /// The texel is 32-bit integers (else floats).
    pub const INT_TEXEL: u32 = 1 << 8;
    /// Float texel components rounded to half precision (`read_imageh`).
    pub const HALF_TEXEL: u32 = 1 << 9;
    /// A write (else a read, sampled when a sampler is given).
    pub const WRITE: u32 = 1 << 10;
}

pub use crate::rt::image::zekit_image;
