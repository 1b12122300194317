//! Handle objects.
//!
//! Every handle a zekit ICD gives out points to an `Object`: first the 32 bytes of
//! `ze_handle_t` (the driver's core, tools, sysman and runtime dispatch tables, as the
//! `ZE_extension_driver_ddi_handles` layout wants), then a type tag, then the driver's
//! value. Objects are reference counted (`Arc`): a registry of live objects holds one
//! reference, and every call that uses an object holds another ([`Obj`]) for as long as it
//! runs. Every handle that comes back in is looked up in the registry and its tag compared,
//! so a null, dangling, destroyed or wrong-type handle is an error rather than undefined
//! behaviour; and a destroy racing a call on another thread only takes the handle out of the
//! registry: the object itself lives until that call drops its [`Obj`].

use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock, RwLock};

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
}

// SAFETY: the header is written once, before the object is shared, and only read after; the
// dispatch-table pointers it holds point to immutable, leaked tables.
unsafe impl Send for Header {}
// SAFETY: as above.
unsafe impl Sync for Header {}

/// An object: the C-visible header, then the driver's value.
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

type Live = HashMap<usize, (u32, Arc<dyn Any + Send + Sync>)>;

fn registry() -> &'static RwLock<Live> {
    static R: OnceLock<RwLock<Live>> = OnceLock::new();
    R.get_or_init(Default::default)
}

fn read() -> std::sync::RwLockReadGuard<'static, Live> {
    registry().read().unwrap_or_else(|e| e.into_inner())
}

fn write() -> std::sync::RwLockWriteGuard<'static, Live> {
    registry().write().unwrap_or_else(|e| e.into_inner())
}

/// A typed, checked handle of kind `K`. `Copy`, pointer-sized, and `Option<Handle<K>>`
/// has the same layout as the C handle (null is `None`). It does not keep the object alive:
/// [`Handle::get`] does, for as long as its [`Obj`] lives.
#[repr(transparent)]
pub struct Handle<K: HandleKind> {
    ptr: NonNull<c_void>,
    _k: PhantomData<fn() -> K>,
}

impl<K: HandleKind> Clone for Handle<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K: HandleKind> Copy for Handle<K> {}
// SAFETY: a handle is an address; it is only dereferenced through the registry.
unsafe impl<K: HandleKind> Send for Handle<K> {}
// SAFETY: as above.
unsafe impl<K: HandleKind> Sync for Handle<K> {}

impl<K: HandleKind> PartialEq for Handle<K> {
    fn eq(&self, o: &Self) -> bool {
        self.ptr == o.ptr
    }
}
impl<K: HandleKind> Eq for Handle<K> {}

impl<K: HandleKind> std::hash::Hash for Handle<K> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.ptr.hash(state)
    }
}

impl<K: HandleKind> std::fmt::Debug for Handle<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({:p})", K::NAME, self.ptr)
    }
}

/// A counted reference to a live object's value: the object is not freed while an `Obj`
/// of it exists, even if its handle is destroyed meanwhile.
pub struct Obj<T: 'static> {
    arc: Arc<Object<T>>,
}

impl<T> Clone for Obj<T> {
    fn clone(&self) -> Self {
        Obj { arc: self.arc.clone() }
    }
}

impl<T> Deref for Obj<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.arc.value
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Obj<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.arc.value.fmt(f)
    }
}

impl<T> Obj<T> {
    /// The C handle of this object (whether or not it is still live).
    pub fn raw(&self) -> *mut c_void {
        Arc::as_ptr(&self.arc) as *mut c_void
    }

    /// Whether two references name the same object.
    pub fn ptr_eq(a: &Obj<T>, b: &Obj<T>) -> bool {
        Arc::ptr_eq(&a.arc, &b.arc)
    }
}

impl<K: HandleKind> Handle<K> {
    /// Makes a new object holding `value` and returns its handle.
    pub fn new<T: Send + Sync + 'static>(value: T) -> Handle<K> {
        Self::new_obj(value).0
    }

    /// Makes a new object holding `value`; returns its handle and a reference to it.
    pub fn new_obj<T: Send + Sync + 'static>(value: T) -> (Handle<K>, Obj<T>) {
        let ddi = DDI.get().copied().unwrap_or([0; 4]).map(|p| p as *const c_void);
        let arc = Arc::new(Object { header: Header { ddi, tag: K::TAG }, value });
        let ptr = Arc::as_ptr(&arc) as *mut c_void;
        write().insert(ptr as usize, (K::TAG, arc.clone()));
        // SAFETY: Arc::as_ptr never returns null.
        (Handle { ptr: unsafe { NonNull::new_unchecked(ptr) }, _k: PhantomData }, Obj { arc })
    }

    /// Checks a raw handle: null → `INVALID_NULL_HANDLE`; not a live object of this
    /// driver, or of another kind → `INVALID_ARGUMENT` (with the reason recorded).
    pub fn from_raw(raw: *mut c_void) -> ZeResult<Handle<K>> {
        let Some(ptr) = NonNull::new(raw) else {
            return Err(crate::fail(ZeError::INVALID_NULL_HANDLE, format_args!("a {} is null", K::NAME)));
        };
        match read().get(&(raw as usize)) {
            Some((tag, _)) if *tag == K::TAG => Ok(Handle { ptr, _k: PhantomData }),
            Some(_) => Err(crate::fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{raw:p} is a handle of another type, not a {}", K::NAME),
            )),
            None => Err(crate::fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{raw:p} is not a live {} of this driver (destroyed, or never made)", K::NAME),
            )),
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
        self.ptr.as_ptr()
    }

    /// The object's value, if the handle is still live and holds a `T` (else
    /// `INVALID_ARGUMENT`). The returned [`Obj`] keeps it alive.
    pub fn get<T: Send + Sync + 'static>(&self) -> ZeResult<Obj<T>> {
        let any = read().get(&(self.ptr.as_ptr() as usize)).map(|(_, a)| a.clone());
        let Some(any) = any else {
            return Err(crate::fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{:p} is not a live {} of this driver", self.ptr, K::NAME),
            ));
        };
        match any.downcast::<Object<T>>() {
            Ok(arc) => Ok(Obj { arc }),
            Err(_) => Err(crate::fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{:p} is not a {} of this driver (it holds another kind of object)", self.ptr, K::NAME),
            )),
        }
    }

    /// Takes the object out of the registry: later uses of this handle are rejected, and the
    /// object is freed when the last [`Obj`] of it is dropped. `INVALID_ARGUMENT` if it was
    /// already released. The generated layer calls this after a `[release]` function
    /// succeeded.
    pub fn release(self) -> ZeResult<()> {
        let removed = write().remove(&(self.ptr.as_ptr() as usize));
        match removed {
            // The object drops here, outside the registry lock, unless a call still uses it.
            Some(_) => Ok(()),
            None => Err(crate::fail(
                ZeError::INVALID_ARGUMENT,
                format_args!("{:p} was already destroyed", self.ptr),
            )),
        }
    }

    /// Number of live objects of every kind (for leak checks in tests).
    pub fn live_objects() -> usize {
        read().len()
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
        h.release().unwrap();
        assert_eq!(Handle::<Dev>::from_raw(raw), Err(ZeError::INVALID_ARGUMENT));
        assert_eq!(h.release(), Err(ZeError::INVALID_ARGUMENT));
        assert_eq!(h.get::<u32>().err(), Some(ZeError::INVALID_ARGUMENT));
    }

    #[test]
    fn an_object_outlives_its_handle_while_used() {
        struct Probe(#[allow(dead_code)] Arc<()>);
        let token = Arc::new(());
        let h = Handle::<Dev>::new(Probe(token.clone()));
        let used = h.get::<Probe>().unwrap();
        h.release().unwrap();
        assert_eq!(Arc::strong_count(&token), 2, "still alive while used");
        assert_eq!(used.raw(), h.raw());
        drop(used);
        assert_eq!(Arc::strong_count(&token), 1, "freed with its last user");
    }

    #[test]
    fn header_layout_is_ze_handle_t_then_tag() {
        assert_eq!(std::mem::offset_of!(Header, ddi), 0);
        assert_eq!(std::mem::offset_of!(Header, tag), 32);
        assert_eq!(std::mem::offset_of!(Object<u64>, header), 0);
        assert_eq!(std::mem::size_of::<Option<Handle<Dev>>>(), 8);
        let (h, o) = Handle::<Dev>::new_obj(7u8);
        // SAFETY: the handle points to the live object's header; its tag is at offset 32.
        let tag = unsafe { *(h.raw() as *const u8).add(32).cast::<u32>() };
        assert_eq!(tag, Dev::TAG);
        assert_eq!(*o, 7);
        h.release().unwrap();
    }
}
