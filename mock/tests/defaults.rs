//! What the mock answers with no scenario loaded, where callers of a real driver would crash
//! on a wrong answer: the virtual memory page size callers divide by, and image programs
//! (image support reported, so fixtures that skip without it never reach a teardown that
//! destroys a module they never created; images, image copies and samplers that work).

use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

use zekit_icd::entry as ze;
use zekit_sys::*;

#[macro_use]
mod common;
use common::*;

impl Env {
    fn host(&self, size: usize) -> *mut c_void {
        let mut p = null_mut();
        ok!(ze::zeMemAllocHost(
            self.ctx,
            &ze_host_mem_alloc_desc_t::default(),
            size,
            0,
            &mut p
        ));
        p
    }
    fn image(&self, desc: &ze_image_desc_t) -> (ze_result_t, ze_image_handle_t) {
        let mut img = null_mut();
        let r = call!(ze::zeImageCreate(self.ctx, self.device, desc, &mut img));
        (r, img)
    }
}

fn spirv(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../spirv/kernels/{name}.spv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn rgba8_2d(width: u64, height: u32) -> ze_image_desc_t {
    ze_image_desc_t {
        flags: ZE_IMAGE_FLAG_KERNEL_WRITE.into(),
        r#type: ZE_IMAGE_TYPE_2D,
        format: ze_image_format_t {
            layout: ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8,
            r#type: ZE_IMAGE_FORMAT_TYPE_UINT,
            x: ZE_IMAGE_FORMAT_SWIZZLE_R,
            y: ZE_IMAGE_FORMAT_SWIZZLE_G,
            z: ZE_IMAGE_FORMAT_SWIZZLE_B,
            w: ZE_IMAGE_FORMAT_SWIZZLE_A,
        },
        width,
        height,
        depth: 1,
        ..Default::default()
    }
}

#[test]
fn virtual_memory_page_size_is_a_nonzero_power_of_two() {
    let e = env();
    for size in [1usize, 4096, 64 << 10, (1 << 20) + 3, 2 << 20, 1 << 30] {
        let mut page = 0usize;
        ok!(ze::zeVirtualMemQueryPageSize(
            e.ctx, e.device, size, &mut page
        ));
        assert!(
            page != 0 && page.is_power_of_two(),
            "{size} bytes: page size {page}"
        );
        // What callers do with it: round the size up to whole pages.
        let pages = size.div_ceil(page);
        assert!(pages >= 1 && pages * page >= size);
    }
    let mut page = 0usize;
    ok!(ze::zeVirtualMemQueryPageSize(
        e.ctx,
        e.device,
        1 << 30,
        &mut page
    ));
    assert_eq!(page, 2 << 20, "large reservations use 2 MiB pages");
    assert_eq!(
        call!(ze::zeVirtualMemQueryPageSize(
            e.ctx,
            null_mut(),
            4096,
            &mut page
        )),
        ZE_RESULT_ERROR_INVALID_NULL_HANDLE
    );
}

/// The shape of an image fixture of a conformance suite: skip without image support, else
/// create the module in set-up; in tear-down, destroy the module. With images unsupported the
/// set-up returned before creating the module and the tear-down destroyed a handle that was
/// never made ("not a live ze_module_handle_t of this driver"), over and over.
#[test]
fn image_program_module_create_destroy_cycle() {
    let e = env();
    for _ in 0..3 {
        let mut props = ze_device_image_properties_t::default();
        ok!(ze::zeDeviceGetImageProperties(e.device, &mut props));
        assert!(props.maxImageDims1D > 0 && props.maxImageDims2D > 0 && props.maxImageDims3D > 0);
        assert!(props.maxImageArraySlices > 0 && props.maxImageBufferSize > 0);
        assert!(props.maxSamplers > 0 && props.maxReadImageArgs > 0 && props.maxWriteImageArgs > 0);

        // Set-up: the module.
        let il = spirv("images");
        let desc = ze_module_desc_t {
            format: ZE_MODULE_FORMAT_IL_SPIRV,
            inputSize: il.len(),
            pInputModule: il.as_ptr(),
            ..Default::default()
        };
        let mut module = null_mut();
        ok!(ze::zeModuleCreate(
            e.ctx,
            e.device,
            &desc,
            &mut module,
            null_mut()
        ));
        assert!(!module.is_null());

        // The test: an image through a kernel argument and back through memory.
        let (r, img) = e.image(&rgba8_2d(4, 2));
        assert_eq!(r, ZE_RESULT_SUCCESS);
        assert!(!img.is_null());
        let mut iprops = ze_image_properties_t::default();
        ok!(ze::zeImageGetProperties(
            e.device,
            &rgba8_2d(4, 2),
            &mut iprops
        ));
        assert!(iprops
            .samplerFilterFlags
            .contains(ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT));
        let name = CString::new("read_ui").unwrap();
        let kdesc = ze_kernel_desc_t {
            pKernelName: name.as_ptr(),
            ..Default::default()
        };
        let mut k = null_mut();
        ok!(ze::zeKernelCreate(module, &kdesc, &mut k));
        ok!(ze::zeKernelSetArgumentValue(
            k,
            0,
            8,
            &img as *const _ as *const c_void
        ));
        let out = e.host(4 * 2 * 16);
        ok!(ze::zeKernelSetArgumentValue(
            k,
            1,
            8,
            &out as *const _ as *const c_void
        ));
        let list = e.immediate();
        let groups = ze_group_count_t {
            groupCountX: 4,
            groupCountY: 2,
            groupCountZ: 1,
        };
        ok!(ze::zeCommandListAppendLaunchKernel(
            list,
            k,
            &groups,
            null_mut(),
            0,
            null_mut()
        ));

        let src = e.host(32);
        let dst = e.host(32);
        // SAFETY: 32-byte host allocations.
        let (s, d) = unsafe {
            (
                std::slice::from_raw_parts_mut(src as *mut u8, 32),
                std::slice::from_raw_parts_mut(dst as *mut u8, 32),
            )
        };
        for (i, b) in s.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        ok!(ze::zeCommandListAppendImageCopyFromMemory(
            list,
            img,
            src,
            null(),
            null_mut(),
            0,
            null_mut()
        ));
        ok!(ze::zeCommandListAppendImageCopyToMemory(
            list,
            dst,
            img,
            null(),
            null_mut(),
            0,
            null_mut()
        ));
        assert_eq!(s, d, "a texel round trip through the image");
        // One texel of the second row, copied out alone.
        let region = ze_image_region_t {
            originX: 2,
            originY: 1,
            originZ: 0,
            width: 1,
            height: 1,
            depth: 1,
        };
        d.fill(0);
        ok!(ze::zeCommandListAppendImageCopyToMemory(
            list,
            dst,
            img,
            &region,
            null_mut(),
            0,
            null_mut()
        ));
        assert_eq!(&d[..4], &s[(4 + 2) * 4..(4 + 3) * 4]);
        let outside = ze_image_region_t {
            originX: 3,
            width: 2,
            height: 1,
            depth: 1,
            ..region
        };
        assert_eq!(
            call!(ze::zeCommandListAppendImageCopyToMemory(
                list,
                dst,
                img,
                &outside,
                null_mut(),
                0,
                null_mut()
            )),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        // Image to image.
        let (_, img2) = e.image(&rgba8_2d(4, 2));
        ok!(ze::zeCommandListAppendImageCopy(
            list,
            img2,
            img,
            null_mut(),
            0,
            null_mut()
        ));
        d.fill(0);
        ok!(ze::zeCommandListAppendImageCopyToMemory(
            list,
            dst,
            img2,
            null(),
            null_mut(),
            0,
            null_mut()
        ));
        assert_eq!(s, d);

        let mut sampler = null_mut();
        ok!(ze::zeSamplerCreate(
            e.ctx,
            e.device,
            &ze_sampler_desc_t::default(),
            &mut sampler
        ));
        assert!(!sampler.is_null());
        ok!(ze::zeSamplerDestroy(sampler));

        ok!(ze::zeCommandListDestroy(list));
        ok!(ze::zeKernelDestroy(k));
        ok!(ze::zeImageDestroy(img));
        ok!(ze::zeImageDestroy(img2));
        for p in [out, src, dst] {
            ok!(ze::zeMemFree(e.ctx, p));
        }
        // Tear-down: the module made in set-up is live until destroyed, and only once.
        ok!(ze::zeModuleDestroy(module));
        assert_eq!(
            call!(ze::zeModuleDestroy(module)),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            call!(ze::zeImageDestroy(img)),
            ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
    }
}

#[test]
fn image_formats_and_sizes_are_checked() {
    let e = env();
    let mut desc = rgba8_2d(16, 16);
    desc.format.layout = ZE_IMAGE_FORMAT_LAYOUT_NV12;
    assert_eq!(e.image(&desc).0, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
    let mut props = ze_image_properties_t::default();
    assert_eq!(
        call!(ze::zeImageGetProperties(e.device, &desc, &mut props)),
        ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT
    );
    let mut desc = rgba8_2d(16, 16);
    desc.format.r#type = ZE_IMAGE_FORMAT_TYPE_FLOAT;
    assert_eq!(e.image(&desc).0, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
    assert_eq!(
        e.image(&rgba8_2d(1 << 20, 1)).0,
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    assert_eq!(e.image(&rgba8_2d(0, 1)).0, ZE_RESULT_ERROR_INVALID_SIZE);
    // A 2D array of 3 layers of 2x2 texels of 4 bytes: 48 bytes, rows of 8.
    let mut desc = rgba8_2d(2, 2);
    desc.r#type = ZE_IMAGE_TYPE_2DARRAY;
    desc.arraylevels = 3;
    let (r, img) = e.image(&desc);
    assert_eq!(r, ZE_RESULT_SUCCESS);
    let mut mem = ze_image_memory_properties_exp_t::default();
    ok!(ze::zeImageGetMemoryPropertiesExp(img, &mut mem));
    assert_eq!((mem.size, mem.rowPitch, mem.slicePitch), (48, 8, 16));
    ok!(ze::zeImageDestroy(img));
}

/// What a caller does with the page size: reserve whole pages, back them with physical
/// memory, map, use the memory, read the access back, unmap, free.
#[test]
fn virtual_memory_reserve_map_use_unmap_free() {
    let e = env();
    let mut page = 0usize;
    ok!(ze::zeVirtualMemQueryPageSize(
        e.ctx, e.device, 100_000, &mut page
    ));
    let size = 100_000usize.div_ceil(page) * page;
    let mut va = null_mut();
    ok!(ze::zeVirtualMemReserve(e.ctx, null(), size, &mut va));
    assert!(!va.is_null() && (va as usize).is_multiple_of(page));
    let mut bad = null_mut();
    assert_eq!(
        call!(ze::zeVirtualMemReserve(e.ctx, null(), size + 1, &mut bad)),
        ZE_RESULT_ERROR_UNSUPPORTED_SIZE
    );
    let mut desc = ze_physical_mem_desc_t {
        size,
        ..Default::default()
    };
    let mut phys = null_mut();
    ok!(ze::zePhysicalMemCreate(
        e.ctx, e.device, &mut desc, &mut phys
    ));
    let mut props = ze_physical_mem_properties_t::default();
    ok!(ze::zePhysicalMemGetProperties(e.ctx, phys, &mut props));
    assert!(props.id != 0 && props.size == size as u64);
    let (mut access, mut n) = (ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE, 0usize);
    ok!(ze::zeVirtualMemGetAccessAttribute(
        e.ctx,
        va,
        size,
        &mut access,
        &mut n
    ));
    assert_eq!(
        (access, n),
        (ZE_MEMORY_ACCESS_ATTRIBUTE_NONE, size),
        "not mapped yet"
    );
    // The mapping must fit the physical memory.
    assert_eq!(
        call!(ze::zeVirtualMemMap(
            e.ctx,
            va,
            size,
            phys,
            page,
            ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE
        )),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    ok!(ze::zeVirtualMemMap(
        e.ctx,
        va,
        size,
        phys,
        0,
        ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE
    ));
    // The memory works: a fill and a copy through a list.
    let host = e.host(64);
    let list = e.immediate();
    let pattern = 0x5au8;
    ok!(ze::zeCommandListAppendMemoryFill(
        list,
        va,
        &pattern as *const u8 as *const c_void,
        1,
        size,
        null_mut(),
        0,
        null_mut()
    ));
    ok!(ze::zeCommandListAppendMemoryCopy(
        list,
        host,
        va,
        64,
        null_mut(),
        0,
        null_mut()
    ));
    // SAFETY: 64 bytes of host memory the copy wrote.
    assert!(unsafe { std::slice::from_raw_parts(host as *const u8, 64) }
        .iter()
        .all(|&b| b == 0x5a));
    let mut ap = ze_memory_allocation_properties_t::default();
    ok!(ze::zeMemGetAllocProperties(e.ctx, va, &mut ap, null_mut()));
    assert_eq!(ap.r#type, ZE_MEMORY_TYPE_DEVICE);
    ok!(ze::zeVirtualMemSetAccessAttribute(
        e.ctx,
        va,
        page,
        ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY
    ));
    ok!(ze::zeVirtualMemGetAccessAttribute(
        e.ctx,
        va,
        size,
        &mut access,
        &mut n
    ));
    assert_eq!((access, n), (ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY, size));
    ok!(ze::zeVirtualMemUnmap(e.ctx, va, size));
    ok!(ze::zeCommandListDestroy(list));
    ok!(ze::zeMemFree(e.ctx, host));
    ok!(ze::zePhysicalMemDestroy(e.ctx, phys));
    ok!(ze::zeVirtualMemFree(e.ctx, va, size));
    assert_eq!(
        call!(ze::zeVirtualMemFree(e.ctx, va, size)),
        ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
}

/// A test that wants a device without images says so in the profile.
#[test]
fn a_profile_without_images() {
    let e = env();
    let p = zekit_mock::profile::Profile {
        images: zekit_mock::profile::ImageProfile {
            max_image_dims_1d: 0,
            max_image_dims_2d: 0,
            max_image_dims_3d: 0,
            max_image_buffer_size: 0,
            max_image_array_slices: 0,
            max_samplers: 0,
            max_read_image_args: 0,
            max_write_image_args: 0,
        },
        ..Default::default()
    };
    zekit_mock::script().set_profile(p);
    let mut props = ze_device_image_properties_t::default();
    ok!(ze::zeDeviceGetImageProperties(e.device, &mut props));
    assert_eq!((props.maxImageDims2D, props.maxSamplers), (0, 0));
    assert_eq!(
        e.image(&rgba8_2d(4, 4)).0,
        ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    );
    let mut s = null_mut();
    assert_eq!(
        call!(ze::zeSamplerCreate(
            e.ctx,
            e.device,
            &ze_sampler_desc_t::default(),
            &mut s
        )),
        ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    );
    let yaml = zekit_mock::profile::Profile::from_yaml(
        "images: { maxImageDims2D: 0, maxImageBufferSize: 1 GiB }\n",
    )
    .unwrap();
    assert_eq!(
        (yaml.images.max_image_dims_2d, yaml.images.max_image_dims_1d),
        (0, 16384)
    );
    assert_eq!(yaml.images.max_image_buffer_size, 1 << 30);
    zekit_mock::script().reset();
}
