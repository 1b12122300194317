//! The zekit CPU Level Zero driver (`libze_zekit_cpu.so`).
//!
//! Pure-Rust core: what the host is ([`host`]), what the device queries answer ([`properties`]),
//! the USM allocations ([`alloc`]), the driver's objects and call rules ([`objects`]) and the
//! per-thread last error ([`last_error`]). [`icd`] is the thin C-ABI layer: the generated
//! `zekit_icd::Driver` trait implemented over these, and the exported `*GetProcAddrTable`s.

pub mod alloc;
pub mod host;
pub mod icd;
pub mod last_error;
pub mod objects;
pub mod properties;
