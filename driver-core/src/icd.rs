//! The CPU driver behind the generated `Driver` trait (smoke version).
use zekit_icd::kinds;
use zekit_icd::{Driver, Handle, ZeResult};
use zekit_sys::*;

pub struct CpuDriver {
    driver: Handle<kinds::Driver>,
}

impl Driver for CpuDriver {
    fn ze_init(&self, _flags: ze_init_flags_t) -> ZeResult<()> {
        Ok(())
    }
    fn ze_driver_get(&self, p_count: &mut u32, ph_drivers: Option<&mut [Option<Handle<kinds::Driver>>]>) -> ZeResult<()> {
        match ph_drivers {
            Some(out) if *p_count > 0 => {
                out[0] = Some(self.driver);
                *p_count = 1;
            }
            _ => *p_count = 1,
        }
        Ok(())
    }
}

pub fn instance() -> &'static CpuDriver {
    static D: std::sync::OnceLock<CpuDriver> = std::sync::OnceLock::new();
    D.get_or_init(|| CpuDriver { driver: Handle::new(()) })
}

zekit_icd::export_icd!((instance() as &'static dyn Driver, false));
