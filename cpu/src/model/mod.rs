//! The CPU driver's objects and rules, in plain Rust with no C pointers: what the device
//! queries answer ([`properties`]), the USM allocations ([`alloc`], freed mappings kept for reuse in [`alloc_cache`]), the driver's objects
//! and the rules of the calls that make and use them ([`objects`]), the extensions reported
//! ([`extensions`]), and the objects that feed
//! the executor: command queues ([`queue`]), command lists and their commands ([`list`]),
//! events and event pools ([`event`]), fences ([`fence`]); modules compiled from SPIR-V
//! ([`module`]) and their kernels ([`kernel`]); mutable command lists ([`mutable`]).

pub mod alloc;
pub mod alloc_cache;
pub mod atomic_attrs;
pub mod build_pool;
pub mod event;
pub mod extensions;
pub mod fence;
pub mod graph;
pub mod image_objects;
pub mod ipc;
pub mod kernel;
pub mod list;
pub mod module;
pub mod mutable;
pub mod objects;
pub mod properties;
pub mod queue;
pub mod udmabuf;
pub mod vm;
