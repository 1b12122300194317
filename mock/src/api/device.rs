//! `DeviceApi`: the one root device, its properties from the profile, peers, status, clocks.

use zekit_icd::{kinds, DeviceApi, Handle, ZeResult};
use zekit_icd_rt::conv::counted;
use zekit_sys::*;

use super::MockDriver;
use crate::objects::now_ns;
use crate::script::script;

#[zekit_icd::implement]
impl DeviceApi for MockDriver {
    fn ze_device_get(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        ph_devices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        self.check_driver(h_driver)?;
        counted(p_count, ph_devices, 1, |out| {
            out[0] = Some(self.device_handle());
            1
        });
        Ok(())
    }

    fn ze_device_get_root_device(
        &self,
        h_device: Handle<kinds::Device>,
        ph_root_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        // The device is a root device: it has none above it.
        *ph_root_device = None;
        Ok(())
    }

    fn ze_device_get_sub_devices(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        _ph_subdevices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        *p_count = 0;
        Ok(())
    }

    fn ze_device_get_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_device_properties(p);
        Ok(())
    }

    fn ze_device_get_compute_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_compute_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_compute_properties(p);
        Ok(())
    }

    fn ze_device_get_module_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_module_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_module_properties(p);
        Ok(())
    }

    fn ze_device_get_command_queue_group_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_command_queue_group_properties_t]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let profile = script().profile();
        counted(p_count, out, profile.command_queue_group_count(), |out| {
            profile.fill_command_queue_group_properties(out)
        });
        Ok(())
    }

    fn ze_device_get_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_memory_properties_t]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let profile = script().profile();
        counted(p_count, out, profile.memory_count(), |out| {
            profile.fill_memory_properties(out)
        });
        Ok(())
    }

    fn ze_device_get_memory_access_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_memory_access_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        script().profile().fill_memory_access_properties(p);
        Ok(())
    }

    fn ze_device_get_cache_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_cache_properties_t]>,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let profile = script().profile();
        counted(p_count, out, profile.cache_count(), |out| {
            profile.fill_cache_properties(out)
        });
        Ok(())
    }

    fn ze_device_get_image_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_image_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        // Images (`image.rs`) within the profile's limits: a current GPU's by default.
        script().profile().fill_image_properties(p);
        Ok(())
    }

    fn ze_device_get_external_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_external_memory_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        // No import or export of external memory.
        *p = ze_device_external_memory_properties_t {
            stype: p.stype,
            pNext: p.pNext,
            ..Default::default()
        };
        Ok(())
    }

    fn ze_device_get_p2p_properties(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        p: &mut ze_device_p2p_properties_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        self.check_device(h_peer_device)?;
        p.flags = ze_device_p2p_property_flags_t::empty();
        Ok(())
    }

    fn ze_device_can_access_peer(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        value: &mut ze_bool_t,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        self.check_device(h_peer_device)?;
        // One device: it can access its own memory.
        *value = ze_bool_t::from(h_device == h_peer_device);
        Ok(())
    }

    fn ze_device_get_status(&self, h_device: Handle<kinds::Device>) -> ZeResult<()> {
        self.check_device(h_device)
    }

    fn ze_device_get_global_timestamps(
        &self,
        h_device: Handle<kinds::Device>,
        host_timestamp: &mut u64,
        device_timestamp: &mut u64,
    ) -> ZeResult<()> {
        self.check_device(h_device)?;
        let t = now_ns();
        *host_timestamp = t;
        *device_timestamp = t;
        Ok(())
    }
}
