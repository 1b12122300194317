//! `GlobalApi`: `zeInit`, `zeInitDrivers`.

use std::sync::atomic::Ordering;

use zekit_icd::{kinds, GlobalApi, Handle, ZeResult};
use zekit_icd_rt::conv::counted;
use zekit_sys::*;

use super::MockDriver;
use crate::script::script;

#[zekit_icd::implement]
impl GlobalApi for MockDriver {
    fn ze_init(&self, _flags: ze_init_flags_t) -> ZeResult<()> {
        self.initialized.store(true, Ordering::Relaxed);
        Ok(())
    }

    fn ze_init_drivers(
        &self,
        p_count: &mut u32,
        ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>,
        desc: &ze_init_driver_type_desc_t,
    ) -> ZeResult<()> {
        self.initialized.store(true, Ordering::Relaxed);
        let ty = script().profile().device.device_type;
        let wanted = if ty == ZE_DEVICE_TYPE_VPU {
            desc.flags.contains(ZE_INIT_DRIVER_TYPE_FLAG_NPU)
        } else {
            desc.flags.contains(ZE_INIT_DRIVER_TYPE_FLAG_GPU)
        };
        let n = u32::from(wanted);
        counted(p_count, ph_drivers, n, |out| {
            out[0] = Some(self.driver_handle());
            1
        });
        Ok(())
    }
}
