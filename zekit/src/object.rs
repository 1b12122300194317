//! The handle core: an owned wrapper around a raw handle, the parent it keeps alive, and how
//! it is released; and which handle kinds may be shared between threads.
//!
//! # Threads (hand-written judgment)
//! Every wrapper is `Send`: Level Zero handles are not tied to the thread that made them. A
//! wrapper is `Sync` (and `Clone`: clones could be moved to other threads) only when the spec
//! lets the application call its functions from several threads at once with the same handle:
//!
//! * shared (`Sync + Clone`): drivers, devices, contexts, event pools, modules, module build
//!   logs, images, samplers, physical memory, fabric vertices and edges, metric groups and
//!   metrics (queries, creation of child objects and the thread-safe calls the spec lists);
//! * exclusive (`Send` only): command lists (the spec forbids appending to one list from two
//!   threads at once), command queues (execution and synchronization of one queue),
//!   kernels (their arguments and group size are state that launches read), events and fences
//!   (host reset must not race with other use), and every other kind — sysman, tools, graph,
//!   ray-tracing and semaphore handles — where the spec does not say that sharing is allowed.
//!
//! An exclusive wrapper can still be used from several threads behind a `Mutex`.

use std::any::Any;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use zekit_sys::*;

use crate::Api;

/// A raw handle type of the API (`ze_device_handle_t`, ...).
pub trait RawHandle: Copy + 'static {
    /// The C type name.
    const NAME: &'static str;
}

/// A value that may move between threads because nothing reads through it but the API.
#[derive(Clone, Copy)]
struct SendRaw<P>(P);
// SAFETY: a raw handle value is an opaque token; only the API's functions use it.
unsafe impl<P> Send for SendRaw<P> {}
// SAFETY: as above.
unsafe impl<P> Sync for SendRaw<P> {}
impl<P: Copy> SendRaw<P> {
    fn get(&self) -> P {
        self.0
    }
}

/// How an owned handle is released on drop: the spec's `[release]` function for it.
pub struct Release<H>(Box<dyn FnOnce(H) + Send + Sync>);

impl<H: RawHandle> Release<H> {
    /// A release function taking the handle alone (`zeContextDestroy`).
    pub(crate) fn new(f: unsafe extern "C" fn(H) -> ze_result_t) -> Release<H> {
        Release(Box::new(move |h| {
            // SAFETY: `h` is the live handle its creating function returned; dropping the last
            // reference to it is its only release.
            let _ = unsafe { f(h) };
        }))
    }

    /// A release function taking its parent first (`zePhysicalMemDestroy(hContext, h)`); the
    /// parent is kept alive by the handle.
    pub(crate) fn with_parent<P: Copy + 'static>(f: unsafe extern "C" fn(P, H) -> ze_result_t, parent: P) -> Release<H> {
        let parent = SendRaw(parent);
        Release(Box::new(move |h| {
            // SAFETY: as in `new`; the parent outlives the handle (the core keeps it).
            let _ = unsafe { f(parent.get(), h) };
        }))
    }
}

pub(crate) type KeepAlive = Arc<dyn Any + Send + Sync>;

/// What a wrapper shares with its clones and children.
struct Core<H: RawHandle> {
    raw: H,
    api: Api,
    release: Option<Release<H>>,
    /// Dropped after the release: the parent outlives the handle.
    _parent: Option<KeepAlive>,
    /// What recorded work uses (command lists and queues).
    keep: Mutex<Vec<KeepAlive>>,
}

// SAFETY: the core holds an opaque handle value and never calls through it itself; the calls
// are made by `Object` methods, whose thread rules (`Send`/`Sync` per kind) are decided above.
unsafe impl<H: RawHandle> Send for Core<H> {}
// SAFETY: as above.
unsafe impl<H: RawHandle> Sync for Core<H> {}

impl<H: RawHandle> Drop for Core<H> {
    fn drop(&mut self) {
        if let Some(r) = self.release.take() {
            (r.0)(self.raw);
        }
        // What recorded work used goes after the handle that used it.
        if let Ok(k) = self.keep.get_mut() {
            k.clear();
        }
    }
}

/// An owned handle of kind `H`, under its name: [`crate::Device`] is
/// `Object<ze_device_handle_t>`. See the crate docs for its methods and [`self`] for threads.
pub struct Object<H: RawHandle> {
    core: Arc<Core<H>>,
    _not_sync: PhantomData<Cell<()>>,
}

impl<H: RawHandle> Object<H> {
    pub(crate) fn wrap(api: &Api, raw: H, parent: Option<KeepAlive>, release: Option<Release<H>>) -> Self {
        Object {
            core: Arc::new(Core { raw, api: api.clone(), release, _parent: parent, keep: Mutex::new(vec![]) }),
            _not_sync: PhantomData,
        }
    }

    /// Wraps a raw handle that this wrapper will never release (a handle obtained through an
    /// `unsafe` `_raw` method, or from C code).
    ///
    /// # Safety
    /// `raw` is a live handle of kind `H` of `api`, and stays live as long as the wrapper and
    /// what it makes are used.
    pub unsafe fn from_raw(api: &Api, raw: H) -> Self {
        Object::wrap(api, raw, None, None)
    }

    /// The raw handle (for the `_raw` methods and C code). It stays owned by this wrapper.
    pub fn as_raw(&self) -> H {
        self.core.raw
    }

    /// The API this handle calls through.
    pub fn api(&self) -> &Api {
        &self.core.api
    }

    /// A reference that keeps this handle (and its parents) alive.
    pub(crate) fn keep_alive(&self) -> KeepAlive {
        self.core.clone()
    }

    /// Keeps `other` alive as long as this handle: work recorded here uses it.
    pub(crate) fn keep<K: RawHandle>(&self, other: &Object<K>) {
        self.keep_value(other.keep_alive());
    }

    pub(crate) fn keep_value(&self, v: KeepAlive) {
        if let Ok(mut k) = self.core.keep.lock() {
            k.push(v);
        }
    }
}

impl<H: RawHandle> std::fmt::Debug for Object<H>
where
    H: std::fmt::Pointer,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({:p})", H::NAME, self.core.raw)
    }
}

impl<H: RawHandle + PartialEq> PartialEq for Object<H> {
    fn eq(&self, other: &Self) -> bool {
        self.core.raw == other.core.raw
    }
}

macro_rules! shared {
    ($($h:ty),* $(,)?) => {$(
        // SAFETY: the spec lets the application use one handle of this kind from several
        // threads at once (see the module docs).
        unsafe impl Sync for Object<$h> {}
        impl Clone for Object<$h> {
            fn clone(&self) -> Self {
                Object { core: self.core.clone(), _not_sync: PhantomData }
            }
        }
    )*};
}

shared!(
    ze_driver_handle_t,
    ze_device_handle_t,
    ze_context_handle_t,
    ze_event_pool_handle_t,
    ze_module_handle_t,
    ze_module_build_log_handle_t,
    ze_image_handle_t,
    ze_sampler_handle_t,
    ze_physical_mem_handle_t,
    ze_fabric_vertex_handle_t,
    ze_fabric_edge_handle_t,
    zet_metric_group_handle_t,
    zet_metric_handle_t,
);
