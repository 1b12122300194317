//! ContextApi: Contexts.

use super::*;

#[zekit_icd::implement]
impl ContextApi for CpuDriver {
    // ------------------------------------------------------------ context

    fn ze_context_create(
        &self,
        h_driver: Handle<kinds::Driver>,
        desc: &ze_context_desc_t,
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        check_context_flags(desc.flags)?;
        let ctx = ContextObject::new(self.host, &[])?;
        *ph_context = Some(Handle::new(ctx));
        Ok(())
    }

    fn ze_context_create_ex(
        &self,
        h_driver: Handle<kinds::Driver>,
        desc: &ze_context_desc_t,
        _num_devices: u32,
        ph_devices: &[Handle<kinds::Device>],
        ph_context: &mut Option<Handle<kinds::Context>>,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        check_context_flags(desc.flags)?;
        let devices = ph_devices
            .iter()
            .map(|&h| ordinal(h))
            .collect::<ZeResult<Vec<usize>>>()?;
        let ctx = ContextObject::new(self.host, &devices)?;
        *ph_context = Some(Handle::new(ctx));
        Ok(())
    }

    fn ze_context_destroy(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        // `[release]`: the entry layer takes the handle out after this returns; the context,
        // and with it its remaining allocations, is freed when the last call using it ends.
        context(h_context)?;
        Ok(())
    }

    fn ze_context_get_status(&self, h_context: Handle<kinds::Context>) -> ZeResult<()> {
        context(h_context)?;
        Ok(())
    }

    // ------------------------------------------------------------ residency
    // Every allocation, mapping and image is host memory, resident from its creation: making
    // it resident succeeds, and evicting it is a hint with nothing to do (the memory stays
    // usable, as the spec allows). Each call only checks its handles (`resident`).

    fn ze_context_make_memory_resident(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        _ptr: *mut c_void,
        _size: usize,
    ) -> ZeResult<()> {
        resident(h_context, h_device, None)
    }

    fn ze_context_evict_memory(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        _ptr: *mut c_void,
        _size: usize,
    ) -> ZeResult<()> {
        resident(h_context, h_device, None)
    }

    fn ze_context_make_image_resident(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        h_image: Handle<kinds::Image>,
    ) -> ZeResult<()> {
        resident(h_context, h_device, Some(h_image))
    }

    fn ze_context_evict_image(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        h_image: Handle<kinds::Image>,
    ) -> ZeResult<()> {
        resident(h_context, h_device, Some(h_image))
    }

    fn ze_context_system_barrier(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
    ) -> ZeResult<()> {
        context(h_context)?;
        ordinal(h_device)?;
        props::system_barrier();
        Ok(())
    }
}

/// The residency calls: the handles are checked; there is nothing else to do.
fn resident(h_context: Handle<kinds::Context>, h_device: Handle<kinds::Device>, h_image: Option<Handle<kinds::Image>>) -> ZeResult<()> {
    context(h_context)?;
    ordinal(h_device)?;
    h_image.map(super::image::image).transpose()?;
    Ok(())
}
