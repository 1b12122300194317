//! The CPU driver's objects and rules, in plain Rust with no C pointers: what the device
//! queries answer ([`properties`]), the USM allocations ([`alloc`]), and the driver's objects
//! and the rules of the calls that make and use them ([`objects`]).

pub mod alloc;
pub mod objects;
pub mod properties;
