//! Handle objects.
//!
//! Every handle a zekit ICD gives out points to an [`Object`]: first the 32 bytes of
//! `ze_handle_t` (the driver's core, tools, sysman and runtime dispatch tables, as the
//! `ZE_extension_driver_ddi_handles` layout wants), then a type tag, then the driver's
//! value. Every handle that comes back in is looked up in a registry of live objects and
//! its tag compared, so a null, dangling, destroyed or wrong-type handle is an error
//! rather than undefined behaviour.

use std::any::TypeId;
use std::collections::HashMap;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::{OnceLock, RwLock};

use crate::error::{ZeError, ZeResult};

/// A kind of handle (`ze_device_handle_t`, ...): a marker type with a unique tag.
pub trait HandleKind: 'static {
    /// Unique per kind; aliases (`zet_device_handle_t`) share their target's tag.
    const TAG: u32;
    /// C type name, for messages.
    const NAME: &'static str;
}

/// The header every object starts with. `repr(C)`: the loader reads `ddi`.
#[repr(C)]
struct Header {
    ddi: [*const c_void; 4],
    tag: u32,
    type_id: TypeId,
    drop_fn: unsafe fn(*mut Header),
}

#[repr(C)]
struct Object<T> {
    header: Header,
    value: T,
}

/// The four dispatch-table pointers copied into every new handle (set once by the ICD).
static DDI: OnceLock<[usize; 4]> = OnceLock::new();

/// Records the driver's `ze_handle_t` tables (core, tools, sysman, runtime) for new handles.
pub fn set_ddi_tables(tables: [*const c_void; 4]) {
    let _ = DDI.set(tables.map(|p| p as usize));
}

fn registry() -> &'static RwLock<HashMap<usize, u32>> {
    static R: OnceLock<RwLock<HashMap<usize, u32>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// A typed, checked handle of kind `K`. `Copy`, pointer-sized, and `Option<Handle<K>>`
/// has the same layout as the C handle (null is `None`).
#[repr(transparent)]
pub struct Handle<K: HandleKind> {
    ptr: NonNull<Header>,
    _k: PhantomData<fn() -> K>,
}

impl<K: HandleKind> Clone for Handle<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K: HandleKind> Copy for Handle<K> {}
// SAFETY: a handle is an address; the objects it names hold `Send + Sync` values only.
unsafe impl<K: HandleKind> Send for Handle<K> {}
// SAFETY: as above.
unsafe impl<K: HandleKind> Sync for Handle<K> {}

impl<K: HandleKind> PartialEq for Handle<K> {
    fn eq(&self, o: &Self) -> bool {
        self.ptr == o.ptr
    }
}
impl<K: HandleKind> Eq for Handle<K> {}

impl<K: HandleKind> std::fmt::Debug for Handle<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({:p})", K::NAME, self.ptr)
    }
}

unsafe fn drop_object<T>(h: *mut Header) {
    // SAFETY: `h` was made by `Box::into_raw(Box<Object<T>>)` in `Handle::new` and is
    // dropped once, by `destroy`, after leaving the registry.
    drop(unsafe { Box::from_raw(h as *mut Object<T>) });
}

impl<K: HandleKind> Handle<K> {
    /// Makes a new object holding `value` and returns its handle.
    pub fn new<T: Send + Sync + 'static>(value: T) -> Handle<K> {
        let ddi = DDI.get().copied().unwrap_or([0; 4]).map(|p| p as *const c_void);
        let obj = Box::new(Object {
            header: Header { ddi, tag: K::TAG, type_id: TypeId::of::<T>(), drop_fn: drop_object::<T> },
            value,
        });
        let ptr = Box::into_raw(obj) as *mut Header;
        registry().write().unwrap_or_else(|e| e.into_inner()).insert(ptr as usize, K::TAG);
        // SAFETY: Box::into_raw never returns null.
        Handle { ptr: unsafe { NonNull::new_unchecked(ptr) }, _k: PhantomData }
    }

    /// Checks a raw handle: null → `INVALID_NULL_HANDLE`; not a live object of this
    /// driver, or of another kind → `INVALID_ARGUMENT`.
    pub fn from_raw(raw: *mut c_void) -> ZeResult<Handle<K>> {
        let Some(ptr) = NonNull::new(raw as *mut Header) else {
            return Err(ZeError::INVALID_NULL_HANDLE);
        };
        match registry().read().unwrap_or_else(|e| e.into_inner()).get(&(raw as usize)) {
            Some(tag) if *tag == K::TAG => Ok(Handle { ptr, _k: PhantomData }),
            Some(_) => Err(ZeError::INVALID_ARGUMENT),
            None => Err(ZeError::INVALID_ARGUMENT),
        }
    }

    /// Like [`Handle::from_raw`], but null is `None`.
    pub fn from_raw_optional(raw: *mut c_void) -> ZeResult<Option<Handle<K>>> {
        if raw.is_null() {
            Ok(None)
        } else {
            Self::from_raw(raw).map(Some)
        }
    }

    /// The C handle.
    pub fn raw(self) -> *mut c_void {
        self.ptr.as_ptr() as *mut c_void
    }

    /// The driver's value, if it is a `T` (else `INVALID_ARGUMENT`).
    pub fn get<T: 'static>(&self) -> ZeResult<&T> {
        // SAFETY: the handle was checked live when it came in (or was just made), and the
        // header is the first field of every `Object<_>`.
        let h = unsafe { self.ptr.as_ref() };
        if h.type_id != TypeId::of::<T>() {
            return Err(ZeError::INVALID_ARGUMENT);
        }
        // SAFETY: the type id says this object is an `Object<T>`.
        Ok(unsafe { &(*(self.ptr.as_ptr() as *const Object<T>)).value })
    }

    /// Destroys the object: later uses of this handle are rejected.
    /// Returns `INVALID_ARGUMENT` if it was already destroyed.
    pub fn destroy(self) -> ZeResult<()> {
        let removed = registry().write().unwrap_or_else(|e| e.into_inner()).remove(&(self.ptr.as_ptr() as usize));
        if removed.is_none() {
            return Err(ZeError::INVALID_ARGUMENT);
        }
        // SAFETY: the object left the registry just now, so nothing else will drop it.
        unsafe {
            let drop_fn = self.ptr.as_ref().drop_fn;
            drop_fn(self.ptr.as_ptr());
        }
        Ok(())
    }

    /// Number of live objects of every kind (for leak checks in tests).
    pub fn live_objects() -> usize {
        registry().read().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// Checks every handle of a C array and views it as typed handles.
///
/// # Safety
/// `ptr` must point to `len` readable handles (or be null with `len == 0`).
pub unsafe fn handle_slice<'a, K: HandleKind>(ptr: *const *mut c_void, len: usize) -> ZeResult<&'a [Handle<K>]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(ZeError::INVALID_NULL_POINTER);
    }
    // SAFETY: caller promises `len` readable elements.
    let raw = unsafe { std::slice::from_raw_parts(ptr, len) };
    for h in raw {
        Handle::<K>::from_raw(*h)?;
    }
    // SAFETY: `Handle<K>` is `repr(transparent)` over a non-null pointer; each was checked.
    Ok(unsafe { std::slice::from_raw_parts(ptr as *const Handle<K>, len) })
}

/// Views a caller's output array of handles as `Option<Handle<K>>` slots.
///
/// # Safety
/// `ptr` must point to `len` writable handles, or be null.
pub unsafe fn handle_out_slice<'a, K: HandleKind>(ptr: *mut *mut c_void, len: usize) -> Option<&'a mut [Option<Handle<K>>]> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `Option<Handle<K>>` has the layout of a nullable pointer; caller promises `len` slots.
    Some(unsafe { std::slice::from_raw_parts_mut(ptr as *mut Option<Handle<K>>, len) })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dev;
    impl HandleKind for Dev {
        const TAG: u32 = 1;
        const NAME: &'static str = "dev";
    }
    struct Ctx;
    impl HandleKind for Ctx {
        const TAG: u32 = 2;
        const NAME: &'static str = "ctx";
    }

    #[test]
    fn checked_handles() {
        let h = Handle::<Dev>::new(42u32);
        let raw = h.raw();
        assert_eq!(*Handle::<Dev>::from_raw(raw).unwrap().get::<u32>().unwrap(), 42);
        assert_eq!(Handle::<Ctx>::from_raw(raw), Err(ZeError::INVALID_ARGUMENT));
        assert_eq!(h.get::<u64>().err(), Some(ZeError::INVALID_ARGUMENT));
        assert_eq!(Handle::<Dev>::from_raw(std::ptr::null_mut()), Err(ZeError::INVALID_NULL_HANDLE));
        let mut junk = [0u64; 8];
        assert_eq!(Handle::<Dev>::from_raw(junk.as_mut_ptr() as *mut c_void), Err(ZeError::INVALID_ARGUMENT));
        h.destroy().unwrap();
        assert_eq!(Handle::<Dev>::from_raw(raw), Err(ZeError::INVALID_ARGUMENT));
        assert_eq!(h.destroy(), Err(ZeError::INVALID_ARGUMENT));
    }

    #[test]
    fn header_layout_is_ze_handle_t_then_tag() {
        assert_eq!(std::mem::offset_of!(Header, ddi), 0);
        assert_eq!(std::mem::offset_of!(Header, tag), 32);
        assert_eq!(std::mem::size_of::<Option<Handle<Dev>>>(), 8);
    }
}
