//! Pure-Rust core of the zekit CPU Level Zero driver: what the host is ([`host`]), what the
//! device queries answer ([`properties`]) and the USM allocations ([`alloc`]). The C-ABI layer
//! (the generated `Driver` trait) calls into these; nothing here touches C pointers.

pub mod alloc;
pub mod host;
pub mod properties;
pub mod icd;
