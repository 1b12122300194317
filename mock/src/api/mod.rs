//! The mock's default behaviour: one `#[zekit_icd::implement]` block per class trait of
//! `zekit_icd::api`, one file per class, on [`MockDriver`].
//!
//! One driver with one root device (no sub-devices) whose properties come from the script's
//! [`Profile`](crate::Profile); contexts; host, device and shared allocations backed by real,
//! zeroed host memory (alignment honoured); command queues and command lists (regular and
//! immediate) whose memory copies, region copies, fills, barriers, timestamps and event
//! signals/waits/resets really run when executed (see [`crate::objects`] for the execution
//! model); event pools and events; fences; images (with copies), samplers, virtual memory
//! reservations, physical memory and mappings; SPIR-V modules read (not compiled) by `zekit-spirv`
//! and their kernels, whose launches run the host callbacks tests register
//! ([`crate::kernels`]). Host waits honour their timeout and never hang
//! (`ZEKIT_MOCK_WAIT_LIMIT_MS`).
//!
//! The functions the impl blocks define are the *modeled* ones ([`modeled`]): the attribute
//! records them, and no list of names is kept by hand. Every other function is offered in the
//! DDI tables too (the hooks' `fill_all`, [`crate::hooks`]) and, with hooks on, answers its
//! fallback result ([`crate::fallback`]); without hooks it answers the trait default,
//! `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`.
//!
//! Destroys only check: the generated layer releases the handle after a `[release]` function
//! succeeds, and what an object owns goes when the object drops ([`crate::objects`]).

mod command_list;
mod command_queue;
mod context;
mod device;
mod driver;
mod event;
mod event_pool;
mod fence;
mod global;
mod image;
pub(crate) mod kernel;
mod mem;
mod module;
mod virtual_mem;
mod zer;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use zekit_icd::{kinds, Handle, ZeError, ZeResult};
use zekit_icd_rt::fail;
use zekit_sys::*;

use crate::objects::*;
use crate::script::script;

/// The extensions `zeDriverGetExtensionProperties` reports.
pub const EXTENSIONS: &[(&str, u32)] = &[(
    ZE_DRIVER_DDI_HANDLES_EXT_NAME,
    ze_driver_ddi_handles_ext_version_t::_1_1.0,
)];

/// The mock's driver uuid: "zekit mock drv" and a version byte pair.
pub const DRIVER_UUID: [u8; 16] = *b"zekit-mock-drv\0\x01";

/// `driverVersion`: the crate version as `major << 24 | minor << 16 | patch`.
pub fn driver_version() -> u32 {
    let p = |s: &str| s.parse::<u32>().unwrap_or(0);
    (p(env!("CARGO_PKG_VERSION_MAJOR")) << 24)
        | (p(env!("CARGO_PKG_VERSION_MINOR")) << 16)
        | p(env!("CARGO_PKG_VERSION_PATCH"))
}

/// The mock driver (one per process: [`mock`]).
pub struct MockDriver {
    driver: OnceLock<Handle<kinds::Driver>>,
    device: OnceLock<Handle<kinds::Device>>,
    default_context: OnceLock<Handle<kinds::Context>>,
    initialized: AtomicBool,
}

/// The process's mock driver.
pub fn mock() -> &'static MockDriver {
    static M: OnceLock<MockDriver> = OnceLock::new();
    M.get_or_init(|| MockDriver {
        driver: OnceLock::new(),
        device: OnceLock::new(),
        default_context: OnceLock::new(),
        initialized: AtomicBool::new(false),
    })
}

/// The API functions the mock has behaviour of its own for, in spec order: those whose trait
/// method an impl block of this module defines (as `#[zekit_icd::implement]` recorded it).
pub fn modeled() -> &'static [&'static str] {
    static LIST: OnceLock<Vec<&'static str>> = OnceLock::new();
    LIST.get_or_init(|| {
        let d = zekit_icd::dispatch!(MockDriver, mock());
        zekit_icd::api::FUNCTIONS
            .iter()
            .filter(|f| d.implements(f.method))
            .map(|f| f.name)
            .collect()
    })
}

/// Whether the mock has behaviour of its own for `function` (see [`modeled`]).
pub fn is_modeled(function: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| modeled().iter().copied().collect())
        .contains(function)
}

impl MockDriver {
    /// The driver handle (made on first use, after the ICD is installed).
    pub fn driver_handle(&self) -> Handle<kinds::Driver> {
        *self.driver.get_or_init(|| Handle::new(DriverObj))
    }

    /// The device handle.
    pub fn device_handle(&self) -> Handle<kinds::Device> {
        *self.device.get_or_init(|| Handle::new(DeviceObj))
    }

    /// The driver's default context (`zeDriverGetDefaultContext`, `zerGetDefaultContext`),
    /// made on first use; the application cannot destroy it.
    pub fn default_context(&self) -> Handle<kinds::Context> {
        *self
            .default_context
            .get_or_init(|| Handle::new(ContextObj { id: next_id() }))
    }

    /// Whether `zeInit` or `zeInitDrivers` ran.
    pub fn initialized(&self) -> bool {
        self.initialized.load(Ordering::Relaxed)
    }

    fn check_driver(&self, h: Handle<kinds::Driver>) -> ZeResult<()> {
        h.get::<DriverObj>().map(|_| ())
    }

    fn check_device(&self, h: Handle<kinds::Device>) -> ZeResult<()> {
        h.get::<DeviceObj>().map(|_| ())
    }

    fn context_id(h: Handle<kinds::Context>) -> ZeResult<u64> {
        h.get::<ContextObj>().map(|c| c.id)
    }

    /// Checks a queue group `ordinal` (and queue `index`) against the profile.
    fn queue_group(&self, ordinal: u32, index: Option<u32>) -> ZeResult<()> {
        let profile = script().profile();
        let Some(g) = profile.command_queue_groups.get(ordinal as usize) else {
            return Err(fail(
                ZeError::INVALID_ARGUMENT,
                format_args!(
                    "queue group ordinal {ordinal} does not exist (the device has {})",
                    profile.command_queue_groups.len()
                ),
            ));
        };
        if let Some(i) = index {
            if i >= g.num_queues {
                return Err(fail(
                    ZeError::INVALID_ARGUMENT,
                    format_args!(
                        "queue index {i} is out of range (group {ordinal} has {} queues)",
                        g.num_queues
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn events(list: &[Handle<kinds::Event>]) -> ZeResult<Box<[Arc<EventState>]>> {
    list.iter()
        .map(|h| h.get::<EventObj>().map(|e| e.state.clone()))
        .collect()
}

fn event(h: Option<Handle<kinds::Event>>) -> ZeResult<Option<Arc<EventState>>> {
    h.map(|h| h.get::<EventObj>().map(|e| e.state.clone()))
        .transpose()
}

fn not_ready() -> ZeError {
    ZeError::of(ZE_RESULT_NOT_READY)
}
