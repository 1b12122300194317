//! The zekit CPU Level Zero driver (`libze_zekit_cpu.so`).
//!
//! - [`api`]: the C-ABI side, one file per spec class implementing the generated class traits
//!   (`zekit_icd::DeviceApi`, ...), and the exported `*GetProcAddrTable`s. No policy.
//! - [`model`]: the objects and their rules, plain Rust.
//! - [`exec`]: the executor: a thread per command queue, the worker pool, waits.
//! - [`host`]: what is read from the machine (`/proc`, `/sys`, CPU flags, the clock).

pub mod api;
pub mod model;
pub mod exec;
pub mod host;

pub use crate::model::{alloc, image_objects, ipc, objects, properties, vm};
