//! The images module (`spirv/kernels/images.cl`) on a device with a synchronous immediate
//! list, for the image tests (`image_kernels.rs`, `image_formats.rs`).

use std::ffi::CString;
use std::ptr::null_mut;

use super::*;

type L = ze_image_format_layout_t;
type T = ze_image_format_type_t;
type Am = ze_sampler_address_mode_t;

/// An image format of `layout` and `ty` with the identity swizzle.
pub fn rgba(layout: L, ty: T) -> ze_image_format_t {
    ze_image_format_t {
        layout,
        r#type: ty,
        x: ze_image_format_swizzle_t::R,
        y: ze_image_format_swizzle_t::G,
        z: ze_image_format_swizzle_t::B,
        w: ze_image_format_swizzle_t::A,
    }
}

/// A device with the images module and a synchronous immediate list.
pub struct Dev {
    pub z: Ze,
    pub m: ze_module_handle_t,
    pub l: ze_command_list_handle_t,
}

impl Default for Dev {
    fn default() -> Dev {
        Dev::new()
    }
}

impl Dev {
    pub fn new() -> Dev {
        let z = Ze::new();
        let bytes = spv("images");
        let desc = ze_module_desc_t {
            format: ze_module_format_t::IL_SPIRV,
            inputSize: bytes.len(),
            pInputModule: bytes.as_ptr(),
            ..Default::default()
        };
        let mut m = null_mut();
        ok!(ze::zeModuleCreate(z.ctx, z.dev, &desc, &mut m, null_mut()));
        let l = z.immediate(0, ze_command_queue_mode_t::SYNCHRONOUS);
        Dev { z, m, l }
    }

    pub fn kernel(&self, name: &str) -> ze_kernel_handle_t {
        let name = CString::new(name).unwrap();
        let desc = ze_kernel_desc_t {
            pKernelName: name.as_ptr(),
            ..Default::default()
        };
        let mut k = null_mut();
        ok!(ze::zeKernelCreate(self.m, &desc, &mut k));
        k
    }

    pub fn image(&self, d: &ze_image_desc_t) -> ze_image_handle_t {
        let mut h = null_mut();
        ok!(ze::zeImageCreate(self.z.ctx, self.z.dev, d, &mut h));
        h
    }

    pub fn sampler(&self, mode: Am, linear: bool, normalized: bool) -> ze_sampler_handle_t {
        let sd = ze_sampler_desc_t {
            addressMode: mode,
            filterMode: if linear {
                ze_sampler_filter_mode_t::LINEAR
            } else {
                ze_sampler_filter_mode_t::NEAREST
            },
            isNormalized: u8::from(normalized),
            ..Default::default()
        };
        let mut s = null_mut();
        ok!(ze::zeSamplerCreate(self.z.ctx, self.z.dev, &sd, &mut s));
        s
    }

    pub fn upload(&self, img: ze_image_handle_t, src: &[u8]) {
        ok!(ze::zeCommandListAppendImageCopyFromMemory(
            self.l, img, src.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut()
        ));
    }

    pub fn download(&self, img: ze_image_handle_t, n: usize) -> Vec<u8> {
        let mut out = vec![0u8; n];
        ok!(ze::zeCommandListAppendImageCopyToMemory(
            self.l, out.as_mut_ptr().cast(), img, null_mut(), null_mut(), 0, null_mut()
        ));
        out
    }

    /// Driver memory holding `init`.
    pub fn buf<V: Copy>(&self, init: &[V]) -> *mut V {
        let p = self.z.shared(std::mem::size_of_val(init).max(16)).cast::<V>();
        // SAFETY: a fresh allocation of that many elements.
        unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), p, init.len()) };
        p
    }

    pub fn run(&self, k: ze_kernel_handle_t, g: [u32; 3]) {
        ok!(ze::zeKernelSetGroupSize(k, 1, 1, 1));
        let gc = ze_group_count_t {
            groupCountX: g[0],
            groupCountY: g[1],
            groupCountZ: g[2],
        };
        ok!(ze::zeCommandListAppendLaunchKernel(self.l, k, &gc, null_mut(), 0, null_mut()));
    }
}

