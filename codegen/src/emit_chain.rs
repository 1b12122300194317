//! Typed `pNext` chains of `zekit-sys` (`src/chain.rs`, module `zekit_sys::chain`), from the
//! spec's `extends` ([`Api::chains`]).
//!
//! One generic, zero-allocation walker over the `stype`/`pNext` header (`zekit_sys::chain::Links`: at most 64
//! links, so a cycle ends it too) and, for every chain head the spec gives extensions:
//!
//! * `enum <Head>Next<'a>`: one variant per extension (`&'a` the struct), plus `Unknown(stype)`
//!   for any other link; `from_link` decodes a link, `is_extension(stype)` tells which
//!   structure types the chain may hold;
//! * `unsafe fn next_of_<head>(p) -> Chain<'a, <Head>Next<'a>>`: the typed walker;
//! * for output heads (their `pNext` is `void*`: properties, state, ...) the same with `&'a mut`
//!   (`<Head>NextMut`, `next_of_<head>_mut`), so a driver can fill the extensions;
//! * for struct heads, `unsafe trait Extends<Head>` implemented by every extension, and
//!   `<head>::push_next(&mut ext)` for Rust callers building a chain.
//!
//! The chain a head may hold is what `extends` names it, and what extends those (the closure):
//! every link of a chain is checked against the head, as the validation does.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::emit_rust::{comment, ident};
use crate::model::{Api, ChainHead};
use crate::spec::*;

/// Longest chain the walkers follow (the validation's limit too).
pub const MAX_LINKS: u32 = 64;

/// `ze_device_mem_alloc_desc_t` → `ZeDeviceMemAllocDesc`; `zeGraphDumpContentsExt` →
/// `ZeGraphDumpContentsExt`.
pub fn camel(name: &str) -> String {
    let base = name.strip_suffix("_t").unwrap_or(name);
    let mut out = String::new();
    for part in base.split('_').filter(|p| !p.is_empty()) {
        let mut c = part.chars();
        if let Some(f) = c.next() {
            out.extend(f.to_uppercase());
            out.push_str(c.as_str());
        }
    }
    out
}

/// The variant of an extension struct: its camel name without the namespace.
fn variant(name: &str) -> String {
    let short = ["zet_", "zes_", "zer_", "ze_"].iter().find_map(|p| name.strip_prefix(p)).unwrap_or(name);
    camel(short)
}

fn lit(s: &str) -> proc_macro2::Literal {
    proc_macro2::Literal::string(s)
}

struct Ext<'a> {
    s: &'a Struct,
    variant: Ident,
    /// The structure type enumerators that select it here (values another extension of the
    /// same chain already claims are left out).
    stypes: Vec<String>,
}

/// The extensions of one head, with the structure types that select each.
fn exts<'a>(api: &'a Api, head: &ChainHead) -> Result<Vec<Ext<'a>>, String> {
    let mut out: Vec<Ext> = vec![];
    let mut values = BTreeSet::new();
    let mut names = BTreeSet::new();
    for name in &head.extensions {
        let Some(Entry::Struct(s)) = api.entry(name) else {
            return Err(format!("chain of {}: extension {name} is not a struct", head.name));
        };
        let v = variant(&s.name);
        if !names.insert(v.clone()) {
            return Err(format!("chain of {}: two extensions are named {v}", head.name));
        }
        let mut stypes = vec![];
        for st in &s.stype {
            let Some(val) = api.values.get(st) else {
                return Err(format!("{}: stype {st} is not an enumerator", s.name));
            };
            if values.insert(*val) {
                stypes.push(st.clone());
            }
        }
        out.push(Ext { s, variant: Ident::new(&v, Span::call_site()), stypes });
    }
    Ok(out)
}

fn stype_pattern(stypes: &[String]) -> TokenStream {
    let ids = stypes.iter().map(|s| ident(s));
    quote!(#(#ids)|*)
}

/// The enum, its impls and the walker of one head (`mutable`: the `&mut` flavour).
fn head_items(head: &ChainHead, exts: &[Ext], mutable: bool) -> TokenStream {
    let suffix = if mutable { "NextMut" } else { "Next" };
    let en = format_ident!("{}{suffix}", camel(&head.name));
    let st_ty = ident(&head.stype_enum);
    let (rf, ptr_ty) = if mutable { (quote!(&'a mut), quote!(*mut)) } else { (quote!(&'a), quote!(*const)) };
    // The walker takes the head's `pNext` as it is typed (sysman state structs chain outputs
    // through a `const void*`).
    let p_ty = if head.next_const || !mutable { quote!(*const c_void) } else { quote!(*mut c_void) };
    let what = if head.function { format!("the `pNext` parameter of `{}`", head.name) } else { format!("`{}`", head.name) };
    let variants = exts.iter().map(|e| {
        let v = &e.variant;
        let t = ident(&e.s.name);
        let d = lit(&format!(" `{}`", e.s.name));
        quote! { #[doc = #d] #v(#rf #t) }
    });
    let arms = exts.iter().filter(|e| !e.stypes.is_empty()).map(|e| {
        let v = &e.variant;
        let t = ident(&e.s.name);
        let pat = stype_pattern(&e.stypes);
        let deref = if mutable { quote!(&mut *(link.ptr as #ptr_ty #t)) } else { quote!(&*(link.ptr as #ptr_ty #t)) };
        quote! { #pat => Self::#v(#deref), }
    });
    let stype_arms = exts.iter().map(|e| {
        let v = &e.variant;
        quote! { Self::#v(x) => x.stype, }
    });
    let all: Vec<String> = exts.iter().flat_map(|e| e.stypes.iter().cloned()).collect();
    let is_ext = if all.is_empty() {
        quote!(false)
    } else {
        let all_pat = stype_pattern(&all);
        quote!(matches!(stype, #all_pat))
    };
    let doc_enum = lit(&format!(
        " A link of the `pNext` chain of {what}{}: one variant per structure the spec lets into it.",
        if mutable { ", writable (output structures the driver fills)" } else { "" }
    ));
    let walker = if mutable {
        format_ident!("next_of_{}_mut", head.name)
    } else {
        format_ident!("next_of_{}", head.name)
    };
    let doc_walker = lit(&format!(
        " Walks the `pNext` chain of {what} (at most {MAX_LINKS} links), each link as a [`{en}`]."
    ));
    let safety = if mutable {
        " `p` must be null or the start of a chain of Level Zero structures (each beginning with `stype` and `pNext`, of the type its `stype` names), valid for reads and writes and not otherwise accessed for `'a`."
    } else {
        " `p` must be null or the start of a chain of Level Zero structures (each beginning with `stype` and `pNext`, of the type its `stype` names), valid for reads and not mutated for `'a`."
    };
    let safety = lit(safety);
    let safety_link = comment("SAFETY: the caller promises `link.ptr` is a live structure of the type its `stype` names, valid (and unaliased, for `&mut`) for 'a.");
    let safety_fwd = comment("SAFETY: the caller's promise (this function's contract).");
    quote! {
        #[doc = #doc_enum]
        #[derive(Debug)]
        pub enum #en<'a> {
            #(#variants,)*
            /// Any other link: a structure type this spec does not know, or one it does not let
            /// into this chain.
            Unknown(#st_ty),
        }

        impl<'a> #en<'a> {
            /// Whether a link of this structure type is one of this chain's extensions.
            pub const fn is_extension(stype: #st_ty) -> bool {
                #is_ext
            }

            /// The structure type of this link.
            pub fn stype(&self) -> #st_ty {
                match self {
                    #(#stype_arms)*
                    Self::Unknown(s) => *s,
                }
            }
        }

        impl<'a> FromLink<'a> for #en<'a> {
            unsafe fn from_link(link: Link) -> Self {
                #safety_link
                unsafe {
                    match #st_ty(link.stype) {
                        #(#arms)*
                        other => Self::Unknown(other),
                    }
                }
            }
        }

        #[doc = #doc_walker]
        ///
        /// # Safety
        #[doc = #safety]
        pub unsafe fn #walker<'a>(p: #p_ty) -> Chain<'a, #en<'a>> {
            #safety_fwd
            unsafe { Chain::new(p as *const c_void) }
        }
    }
}

/// The marker trait of a struct head, its implementations and `push_next`.
fn head_trait(head: &ChainHead, exts: &[Ext]) -> TokenStream {
    let tr = format_ident!("Extends{}", camel(&head.name));
    let h = ident(&head.name);
    let doc = lit(&format!(" A structure the spec lets into the `pNext` chain of `{}`.", head.name));
    let impls = exts.iter().map(|e| {
        let t = ident(&e.s.name);
        let c = comment("SAFETY: the spec lets it into this chain (`extends`); it starts with stype and pNext.");
        quote! {
            #c
            unsafe impl #tr for #t {}
        }
    });
    quote! {
        #[doc = #doc]
        ///
        /// # Safety
        /// Only structures the spec places in that chain implement it.
        pub unsafe trait #tr: Chainable {}
        #(#impls)*

        impl #h {
            /// Puts `next` first in this structure's `pNext` chain: `next.pNext` takes the old
            /// `self.pNext` (whatever `next` pointed to is dropped from the chain) and
            /// `self.pNext` points to `next`. Only pointers are stored: `next` must stay alive
            /// and in place as long as the chain is used.
            pub fn push_next<T: #tr>(&mut self, next: &mut T) -> &mut Self {
                next.set_next_ptr(self.pNext as *mut c_void);
                self.pNext = next as *mut T as _;
                self
            }
        }
    }
}

fn chainable_impl(s: &Struct) -> TokenStream {
    let t = ident(&s.name);
    let c = comment("SAFETY: `#[repr(C)]`, with `stype` then `pNext` first (its base's or its own members).");
    quote! {
        #c
        unsafe impl Chainable for #t {
            fn next_ptr(&self) -> *mut c_void {
                self.pNext as *mut c_void
            }
            fn set_next_ptr(&mut self, next: *mut c_void) {
                self.pNext = next as _;
            }
        }
    }
}

/// The tokens of `zekit-sys/src/chain.rs`.
pub fn emit(api: &Api) -> Result<TokenStream, String> {
    let chains = api.chains();
    let mut items = vec![];
    let mut chainable: BTreeSet<&str> = BTreeSet::new();
    let mut heads = 0usize;
    for head in chains.heads.iter().filter(|h| !h.extensions.is_empty()) {
        let exts = exts(api, head)?;
        heads += 1;
        items.push(head_items(head, &exts, false));
        if head.output {
            items.push(head_items(head, &exts, true));
        }
        if !head.function {
            items.push(head_trait(head, &exts));
            chainable.insert(&head.name);
            chainable.extend(exts.iter().map(|e| e.s.name.as_str()));
        }
    }
    let impls: Vec<TokenStream> = api.structs().filter(|s| chainable.contains(s.name.as_str())).map(chainable_impl).collect();
    let limit = proc_macro2::Literal::u32_unsuffixed(MAX_LINKS);
    let summary = lit(&format!(
        " {heads} chain heads have extensions in the spec; {} structures extend one.",
        api.structs().filter(|s| !s.extends.is_empty()).count()
    ));
    let c_header = comment("SAFETY: `Links::new`'s contract: a non-null link starts with the header.");
    let c_fwd = comment("SAFETY: the caller's promise (this function's contract).");
    let c_every = comment("SAFETY: `Chain::new`'s contract covers every link of the chain.");
    Ok(quote! {
        //! Typed `pNext` chains, generated from the spec's `extends` (`spec/README.md`).
        //!
        //! [`Links`] walks any chain (at most [`MAX_LINKS`] links, so a cycle ends too). For every
        //! structure (or function `pNext` parameter) the spec gives extensions, `next_of_<head>`
        //! walks its chain as an enum of those extensions (`Unknown(stype)` for anything else),
        //! `next_of_<head>_mut` does the same with `&mut` for output structures, and struct heads
        //! have a marker trait `Extends<Head>` and `push_next`:
        //!
        //! ```ignore
        //! use zekit_sys::{chain, chain::ZeDevicePropertiesNextMut as Ext};
        //! // A driver filling ze_device_properties_t and the extensions the application chained:
        //! // SAFETY: the application's pNext chain of output structures.
        //! for ext in unsafe { chain::next_of_ze_device_properties_t_mut(props.pNext) } {
        //!     match ext {
        //!         Ext::EuCountExt(eu) => eu.numTotalEUs = 8,
        //!         Ext::DeviceLuidExtProperties(luid) => luid.nodeMask = 1,
        //!         _ => {} // Unknown(stype): not for this chain, or newer than this spec
        //!     }
        //! }
        //! // An application building a chain:
        //! let mut relaxed = ze_relaxed_allocation_limits_exp_desc_t::default();
        //! let mut desc = ze_device_mem_alloc_desc_t::default();
        //! desc.push_next(&mut relaxed);
        //! ```
        //!
        //! The chain of a head holds what `extends` names it, and what extends those.
        #![doc = #summary]
        use ::core::ffi::c_void;
        use ::core::marker::PhantomData;

        use crate::*;

        /// Longest chain the walkers follow; [`Links::truncated`] tells a walk stopped here.
        pub const MAX_LINKS: u32 = #limit;

        /// The two members every chainable structure starts with.
        #[repr(C)]
        struct Header {
            stype: u32,
            pNext: *mut c_void,
        }

        /// One link of a chain: its structure type (raw) and where the structure is.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Link {
            pub stype: u32,
            pub ptr: *mut c_void,
        }

        /// Every link of a `pNext` chain, in order, at most [`MAX_LINKS`].
        #[derive(Clone, Debug)]
        pub struct Links {
            next: *mut c_void,
            left: u32,
        }

        impl Links {
            /// A walk starting at `p`.
            ///
            /// # Safety
            /// `p` must be null or the start of a chain of structures that each begin with a
            /// 32-bit structure type and a `pNext` pointer, valid for reads while the walk lasts.
            pub unsafe fn new(p: *const c_void) -> Links {
                Links { next: p as *mut c_void, left: MAX_LINKS }
            }

            /// Whether the walk stopped at [`MAX_LINKS`] with links left: the chain is longer
            /// than that, or cyclic.
            pub fn truncated(&self) -> bool {
                self.left == 0 && !self.next.is_null()
            }
        }

        impl Iterator for Links {
            type Item = Link;

            fn next(&mut self) -> Option<Link> {
                if self.next.is_null() || self.left == 0 {
                    return None;
                }
                let ptr = self.next;
                #c_header
                let (stype, next) = unsafe {
                    let h = ptr as *const Header;
                    ((*h).stype, (*h).pNext)
                };
                self.next = next;
                self.left -= 1;
                Some(Link { stype, ptr })
            }
        }

        /// Decodes a link into the enum of one chain.
        pub trait FromLink<'a>: Sized {
            /// # Safety
            /// `link.ptr` is a live structure of the type its `stype` names, valid for `'a`
            /// (for the `*Mut` enums: writable, and not otherwise accessed for `'a`).
            unsafe fn from_link(link: Link) -> Self;
        }

        /// The typed walk of one chain: every link (at most [`MAX_LINKS`]) decoded as `E`.
        pub struct Chain<'a, E> {
            links: Links,
            _e: PhantomData<(fn() -> E, &'a ())>,
        }

        impl<'a, E: FromLink<'a>> Chain<'a, E> {
            /// # Safety
            /// As [`Links::new`] and [`FromLink::from_link`], for every link.
            pub unsafe fn new(p: *const c_void) -> Self {
                #c_fwd
                let links = unsafe { Links::new(p) };
                Chain { links, _e: PhantomData }
            }

            /// As [`Links::truncated`].
            pub fn truncated(&self) -> bool {
                self.links.truncated()
            }
        }

        impl<'a, E: FromLink<'a>> Iterator for Chain<'a, E> {
            type Item = E;

            fn next(&mut self) -> Option<E> {
                let link = self.links.next()?;
                #c_every
                let e = unsafe { E::from_link(link) };
                Some(e)
            }
        }

        /// A structure that starts with `stype` and `pNext`: it can be a link of a chain.
        ///
        /// # Safety
        /// The implementor is `#[repr(C)]` and begins with a 32-bit structure type and `pNext`.
        pub unsafe trait Chainable {
            /// Its `pNext`.
            fn next_ptr(&self) -> *mut c_void;
            /// Sets its `pNext`.
            fn set_next_ptr(&mut self, next: *mut c_void);
        }

        #(#impls)*
        #(#items)*
    })
}

/// The tokens of `zekit-sys/tests/chain.rs`: the generic walker's limits, and for every head
/// with extensions a chain of one extension (built with `push_next` for struct heads) and an
/// unknown link, walked typed (and `_mut` for output heads).
pub fn emit_tests(api: &Api) -> Result<TokenStream, String> {
    let chains = api.chains();
    let mut blocks = vec![];
    for head in chains.heads.iter().filter(|h| !h.extensions.is_empty()) {
        let exts = exts(api, head)?;
        // An extension whose default `stype` selects it in this chain.
        let Some(e) = exts.iter().find(|e| e.s.stype.first().is_some_and(|f| e.stypes.contains(f))) else { continue };
        let t = ident(&e.s.name);
        let v = &e.variant;
        let label = lit(&format!("{} <- {}", head.name, e.s.name));
        let mut walks = vec![];
        for mutable in [false, true] {
            if mutable && !head.output {
                continue;
            }
            let (suffix, walker) = if mutable {
                ("NextMut", format_ident!("next_of_{}_mut", head.name))
            } else {
                ("Next", format_ident!("next_of_{}", head.name))
            };
            let en = format_ident!("{}{suffix}", camel(&head.name));
            let st = ident(&head.stype_enum);
            let start = if head.function { quote!(&mut ext as *mut #t as _) } else { quote!(head.pNext as _) };
            let c = comment("SAFETY: a chain of live structures built above, not otherwise used while walked.");
            walks.push(quote! {
                #c
                let got: Vec<_> = unsafe { chain::#walker(#start) }.collect();
                assert!(
                    matches!(got[..], [chain::#en::#v(_), chain::#en::Unknown(#st(UNKNOWN))]),
                    "{}: {got:?}", #label
                );
                assert!(chain::#en::is_extension(ext.stype) && !chain::#en::is_extension(#st(UNKNOWN)), "{}", #label);
            });
        }
        let setup = if head.function {
            quote! {
                let mut ext = #t::default();
                ext.pNext = (&mut unknown as *mut Raw).cast::<c_void>() as _;
            }
        } else {
            let h = ident(&head.name);
            quote! {
                let mut head = #h::default();
                let mut ext = #t::default();
                head.push_next(&mut ext);
                assert_eq!(head.pNext as *const c_void, &ext as *const #t as *const c_void, "{}", #label);
                ext.pNext = (&mut unknown as *mut Raw).cast::<c_void>() as _;
            }
        };
        blocks.push(quote! {
            {
                let mut unknown = Raw { stype: UNKNOWN, pNext: ::core::ptr::null_mut() };
                #setup
                #(#walks)*
            }
        });
    }
    let limit = proc_macro2::Literal::usize_unsuffixed(MAX_LINKS as usize);
    let c_add = comment("SAFETY: i + 1 <= n: within the vector or one past its end.");
    let c_null = comment("SAFETY: null is an empty chain.");
    let c_valid = comment("SAFETY: links of the vector, alive while walked.");
    let c_cycle = comment("SAFETY: a cyclic chain of the vector's links, alive while walked.");
    Ok(quote! {
        //! Tests of `zekit_sys::chain`, generated from the spec's `extends` by
        //! `codegen/src/emit_chain.rs`.
        #![allow(non_snake_case, unused_mut, clippy::all)]
        use ::core::ffi::c_void;
        use zekit_sys::*;

        /// A structure type no spec namespace uses.
        const UNKNOWN: u32 = 0x7fff_fffe;

        /// A bare link.
        #[repr(C)]
        struct Raw {
            stype: u32,
            pNext: *mut c_void,
        }

        /// `n` links of structure type `stype`, each pointing to the next; the last to `last`.
        fn links(n: usize, stype: u32, last: *mut c_void) -> Vec<Raw> {
            let mut v: Vec<Raw> = (0..n).map(|_| Raw { stype, pNext: ::core::ptr::null_mut() }).collect();
            let base = v.as_mut_ptr();
            for i in 0..n {
                #c_add
                let next = unsafe { base.add(i + 1) };
                v[i].pNext = if i + 1 < n { next.cast() } else { last };
            }
            v
        }

        #[test]
        fn links_stop_at_the_limit_and_on_cycles() {
            #c_null
            let empty = unsafe { chain::Links::new(::core::ptr::null()) };
            assert_eq!(empty.count(), 0);
            let mut full = links(#limit, UNKNOWN, ::core::ptr::null_mut());
            #c_valid
            let mut walk = unsafe { chain::Links::new(full.as_mut_ptr().cast()) };
            assert_eq!(walk.by_ref().count(), #limit);
            assert!(!walk.truncated());
            let mut long = links(#limit + 1, UNKNOWN, ::core::ptr::null_mut());
            #c_valid
            let mut walk = unsafe { chain::Links::new(long.as_mut_ptr().cast()) };
            assert_eq!(walk.by_ref().count(), #limit);
            assert!(walk.truncated());
            let mut cycle = links(2, UNKNOWN, ::core::ptr::null_mut());
            let first: *mut c_void = cycle.as_mut_ptr().cast();
            cycle[1].pNext = first;
            #c_cycle
            let mut walk = unsafe { chain::Links::new(first) };
            let seen: Vec<u32> = walk.by_ref().map(|l| l.stype).collect();
            assert_eq!(seen.len(), #limit);
            assert!(walk.truncated());
        }

        #[test]
        fn every_chain_decodes_its_extensions() {
            #(#blocks)*
        }
    })
}
