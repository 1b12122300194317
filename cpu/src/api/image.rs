//! ImageApi and the sampler class: images, views, samplers (see `crate::model::image_objects`).

use super::*;
use crate::model::image_objects::{element_size, ImageObject, SamplerObject};

pub(super) fn image(h: Handle<kinds::Image>) -> ZeResult<Obj<ImageObject>> {
    h.get::<ImageObject>()
}

/// Refuses the image descriptor extensions this device does not implement.
fn check_image_desc_chain(desc: &ze_image_desc_t) -> ZeResult<()> {
    use chain::ZeImageDescNext as N;
    // SAFETY: the application's descriptor chain, read-only for this call.
    for ext in unsafe { chain::next_of_ze_image_desc_t(desc.pNext) } {
        let what = match ext {
            N::ImageBindlessExpDesc(_) => "bindless images",
            N::ImagePitchedExpDesc(_) => "images over pitched allocations",
            N::CustomPitchExpDesc(_) => "custom image pitches",
            N::ExternalMemoryExportDesc(_)
            | N::ExternalMemoryImportFd(_)
            | N::ExternalMemoryImportWin32Handle(_) => "external image memory",
            _ => continue,
        };
        return Err(zekit_icd_rt::fail(
            ZeError::UNSUPPORTED_FEATURE,
            format_args!("{what} are not supported by the CPU device"),
        ));
    }
    Ok(())
}

fn max_alloc(host: &HostInfo) -> u64 {
    host.total_memory
}

#[zekit_icd::implement]
impl ImageApi for CpuDriver {
    fn ze_image_get_properties(
        &self,
        h_device: Handle<kinds::Device>,
        desc: &ze_image_desc_t,
        p: &mut ze_image_properties_t,
    ) -> ZeResult<()> {
        use chain::ZeImagePropertiesNextMut as N;
        ordinal(h_device)?;
        let supported = element_size(&desc.format);
        let mut asked_support = false;
        // SAFETY: the application's chain of output structures.
        for ext in unsafe { chain::next_of_ze_image_properties_t_mut(p.pNext) } {
            if let N::ImageFormatSupportExtProperties(s) = ext {
                s.supported = u8::from(supported.is_ok());
                asked_support = true;
            }
        }
        match supported {
            Ok(_) => {
                p.samplerFilterFlags = ze_image_sampler_filter_flags_t(
                    ze_image_sampler_filter_flags_t::POINT.0
                        | ze_image_sampler_filter_flags_t::LINEAR.0,
                );
                Ok(())
            }
            // With the format-support extension the answer is `supported = 0`.
            Err(_) if asked_support => {
                p.samplerFilterFlags = ze_image_sampler_filter_flags_t(0);
                Ok(())
            }
            Err(f) => Err(f),
        }
    }

    fn ze_image_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_image_desc_t,
        ph_image: &mut Option<Handle<kinds::Image>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        ordinal(h_device)?;
        check_image_desc_chain(desc)?;
        let img = ImageObject::new(desc, max_alloc(self.host))?;
        *ph_image = Some(Handle::new(img));
        Ok(())
    }

    fn ze_image_destroy(&self, h_image: Handle<kinds::Image>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok; commands
        // still to run keep the storage.
        image(h_image)?;
        Ok(())
    }

    fn ze_image_get_alloc_properties_ext(
        &self,
        h_context: Handle<kinds::Context>,
        h_image: Handle<kinds::Image>,
        p: &mut ze_image_allocation_ext_properties_t,
    ) -> ZeResult<()> {
        context(h_context)?;
        p.id = image(h_image)?.id();
        Ok(())
    }

    fn ze_image_get_memory_properties_exp(
        &self,
        h_image: Handle<kinds::Image>,
        p: &mut ze_image_memory_properties_exp_t,
    ) -> ZeResult<()> {
        let (size, row, slice) = image(h_image)?.memory();
        p.size = size;
        p.rowPitch = row;
        p.slicePitch = slice;
        Ok(())
    }

    fn ze_image_view_create_ext(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_image_desc_t,
        h_image: Handle<kinds::Image>,
        ph_image_view: &mut Option<Handle<kinds::Image>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        ordinal(h_device)?;
        check_image_desc_chain(desc)?;
        let view = image(h_image)?.view(desc)?;
        *ph_image_view = Some(Handle::new(view));
        Ok(())
    }

    fn ze_image_view_create_exp(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_image_desc_t,
        h_image: Handle<kinds::Image>,
        ph_image_view: &mut Option<Handle<kinds::Image>>,
    ) -> ZeResult<()> {
        self.ze_image_view_create_ext(h_context, h_device, desc, h_image, ph_image_view)
    }
}

#[zekit_icd::implement]
impl SamplerApi for CpuDriver {
    fn ze_sampler_create(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        desc: &ze_sampler_desc_t,
        ph_sampler: &mut Option<Handle<kinds::Sampler>>,
    ) -> ZeResult<()> {
        context(h_context)?;
        ordinal(h_device)?;
        *ph_sampler = Some(Handle::new(SamplerObject::new(desc)?));
        Ok(())
    }

    fn ze_sampler_destroy(&self, h_sampler: Handle<kinds::Sampler>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out once this returns Ok.
        h_sampler.get::<SamplerObject>()?;
        Ok(())
    }
}
