//! GlobalApi: `zeInit` and `zeInitDrivers`.

use super::*;

#[zekit_icd::implement]
impl GlobalApi for CpuDriver {
    // ------------------------------------------------------------ global, driver

    fn ze_init(&self, flags: ze_init_flags_t) -> ZeResult<()> {
        self.init.init(flags)
    }

    fn ze_init_drivers(
        &self,
        p_count: &mut u32,
        ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>,
        desc: &ze_init_driver_type_desc_t,
    ) -> ZeResult<()> {
        let n = match self.init.init_drivers(desc.flags) {
            Ok(n) => n,
            Err(f) => {
                // Not this driver's type: no handles in this call.
                *p_count = 0;
                return Err(f);
            }
        };
        let drivers = [self.driver_handle()];
        fill_handles(&drivers[..n as usize], p_count, ph_drivers);
        Ok(())
    }
}
