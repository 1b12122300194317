//! The zekit CPU Level Zero driver (`libze_zekit_cpu.so`).
//!
//! - [`api`]: the C-ABI side, one file per spec class implementing the generated class traits
//!   (`zekit_icd::DeviceApi`, ...), and the exported `*GetProcAddrTable`s. No policy.
//! - [`core`]: the objects and their rules, plain Rust.
//! - [`host`]: what is read from the machine (`/proc`, `/sys`, CPU flags).
//!
//! The executor that will run command lists (`exec/`) comes with queues and lists.

pub mod api;
pub mod core;
pub mod host;

pub use crate::core::{alloc, objects, properties};
