//! Typed `pNext` chains, from the spec's `extends` data (`zekit_sys::chain`).
//!
//! ```no_run
//! # fn f(device: &zekit::Device) -> zekit::Result<()> {
//! use zekit::sys::*;
//! let mut luid = ze_device_luid_ext_properties_t::default();
//! let mut chain = zekit::Chain::<ze_device_properties_t>::new();
//! chain.push(&mut luid);
//! device.properties_with(&mut chain)?;
//! let props = chain.into_head(); // ends the borrow of `luid`
//! println!("{} {:?}", props.vendorId, luid.luid);
//! # Ok(()) }
//! ```
//! Only structures the spec lets into the head's chain can be pushed: `Extends<H>` is
//! implemented for them alone, so a wrong one does not compile:
//!
//! ```compile_fail
//! use zekit::sys::*;
//! let mut luid = ze_device_luid_ext_properties_t::default(); // extends device properties only
//! let mut chain = zekit::Chain::<ze_driver_properties_t>::new();
//! chain.push(&mut luid);
//! ```

use std::ffi::c_void;
use std::marker::PhantomData;

use zekit_sys::chain::Chainable;

/// A structure the spec lets into the `pNext` chain of `H` (implemented from the spec's
/// `extends`, for `H` and the structures chained to it) and that holds no pointer but its
/// `pNext`: the driver reads or writes nothing through it. Extensions holding pointers are
/// reached through the `unsafe` `_raw` methods and `zekit_sys::chain`.
///
/// # Safety
/// Only structures the spec places in that chain implement it.
pub unsafe trait Extends<H>: Chainable {}

/// A `pNext` chain: the head `H` owned here, and the extensions, borrowed for `'a` (they stay
/// in place while the chain exists; read them once the chain is used up, e.g. by
/// [`Chain::into_head`]).
pub struct Chain<'a, H: Chainable> {
    head: H,
    _links: PhantomData<&'a mut c_void>,
}

impl<H: Chainable + Default> Default for Chain<'_, H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, H: Chainable + Default> Chain<'a, H> {
    /// A chain headed by `H::default()` (its structure type set, no extensions).
    pub fn new() -> Self {
        Chain::from_head(H::default())
    }
}

impl<'a, H: Chainable> Chain<'a, H> {
    /// A chain headed by `head` (a descriptor with its fields set); its `pNext` is cleared.
    pub fn from_head(mut head: H) -> Self {
        head.set_next_ptr(std::ptr::null_mut());
        Chain { head, _links: PhantomData }
    }

    /// Puts `ext` first in the chain.
    pub fn push<E: Extends<H>>(&mut self, ext: &'a mut E) -> &mut Self {
        ext.set_next_ptr(self.head.next_ptr());
        self.head.set_next_ptr(ext as *mut E as *mut c_void);
        self
    }

    /// The head (filled by the driver after an output call).
    pub fn head(&self) -> &H {
        &self.head
    }

    /// The head, for the call that reads or fills it (its `pNext` must stay the chain's).
    pub(crate) fn head_mut(&mut self) -> &mut H {
        &mut self.head
    }

    /// The head, leaving the chain (its `pNext` cleared).
    pub fn into_head(mut self) -> H {
        self.head.set_next_ptr(std::ptr::null_mut());
        self.head
    }
}
