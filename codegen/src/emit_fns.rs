//! `zekit-sys/src/fns.rs`: loadable function tables, the way ash's `Entry::load` works for
//! Vulkan. One struct per namespace with one function pointer per API function (`None` where
//! it is not available), filled
//!
//! * from any symbol lookup (`from_resolver`), e.g. `dlsym` on the official loader:
//!   `Loaded::load()` (cargo feature `load`, through `libloading`) opens `libze_loader.so.1`
//!   (or a path of the caller's choosing) and looks every function up by name;
//! * from a driver in process (`Fns::from_driver`): its `zeGet*ProcAddrTable` functions
//!   (`DriverGetters`) fill the tables at the current API version, with no loader and no
//!   environment variables;
//! * and, for what the loader does not export (Debian's exports API 1.4), from
//!   `zeDriverGetExtensionFunctionAddress` of a driver handle (`load_extensions`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit_rust::ident;
use crate::load::NAMESPACES;
use crate::model::{pfn_name, strip_ns, Api};

fn fns_struct(ns: &str) -> proc_macro2::Ident {
    format_ident!("{}Fns", heck::ToUpperCamelCase::to_upper_camel_case(ns))
}

/// The tokens of `fns.rs`.
pub fn emit(api: &Api) -> TokenStream {
    let namespaces: Vec<&str> = NAMESPACES.into_iter().filter(|ns| api.functions(ns).next().is_some()).collect();
    let mut structs = vec![];
    let mut ns_fields = vec![];
    let mut ns_types = vec![];
    let mut getter_fields = vec![];
    let mut getter_names = vec![];
    let mut from_driver = vec![];
    for &ns in &namespaces {
        let st = fns_struct(ns);
        let names: Vec<_> = api.functions(ns).map(|(_, f)| f.name.clone()).collect();
        let fields: Vec<_> = names.iter().map(|n| ident(n)).collect();
        let types: Vec<_> = names.iter().map(|n| ident(&pfn_name(ns, n))).collect();
        let cnames: Vec<_> = names.iter().map(|n| proc_macro2::Literal::c_string(&std::ffi::CString::new(n.as_str()).expect("name"))).collect();
        let doc = format!(" Every function of the `{ns}` namespace (`None`: not available).");
        structs.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Default)]
            #[allow(non_snake_case)]
            pub struct #st {
                #(pub #fields: #types,)*
            }

            impl #st {
                /// Every entry from `resolve` (a symbol lookup by name; null is `None`).
                ///
                /// # Safety
                /// `resolve` returns null or the address of the C function of that name.
                pub unsafe fn from_resolver(mut resolve: impl FnMut(&CStr) -> *mut c_void) -> Self {
                    // SAFETY: the caller's promise; a null address is `None`.
                    unsafe { Self { #(#fields: ::core::mem::transmute::<*mut c_void, #types>(resolve(#cnames)),)* } }
                }

                /// Fills the entries that are `None` from `resolve`.
                ///
                /// # Safety
                /// As [`Self::from_resolver`].
                pub unsafe fn fill_missing(&mut self, mut resolve: impl FnMut(&CStr) -> *mut c_void) {
                    #(
                        if self.#fields.is_none() {
                            // SAFETY: the caller's promise; a null address is `None`.
                            self.#fields = unsafe { ::core::mem::transmute::<*mut c_void, #types>(resolve(#cnames)) };
                        }
                    )*
                }

                /// How many entries are filled.
                pub fn count(&self) -> usize {
                    [#(self.#fields.is_some()),*].iter().filter(|b| **b).count()
                }
            }
        });
        let m = ident(ns);
        ns_fields.push(m.clone());
        ns_types.push(st.clone());
        for t in api.ddi_tables(ns) {
            let g = ident(&t.getter);
            let gt = ident(&t.getter_pfn);
            let tt = ident(&t.type_name);
            let gname = proc_macro2::Literal::c_string(&std::ffi::CString::new(t.getter.as_str()).expect("name"));
            getter_fields.push(quote!(pub #g: #gt,));
            getter_names.push((g.clone(), gt.clone(), gname));
            let sets = t.functions.iter().map(|r| {
                let f = api.function(*r);
                let member = ident(&format!("pfn{}", strip_ns(strip_ns(&f.name, ns), strip_ns(&f.class, ns))));
                let field = ident(&f.name);
                quote!(fns.#m.#field = table.#member;)
            });
            from_driver.push(quote! {
                if let Some(get) = getters.#g {
                    let mut table = #tt::default();
                    // SAFETY: the caller's promise: a getter of this table's type.
                    if unsafe { get(ze_api_version_t::CURRENT, &mut table) } == ze_result_t::SUCCESS {
                        #(#sets)*
                    }
                }
            });
        }
    }
    // With the spec's extension lookup: the functions a loader does not export.
    let has_lookup = api.functions("ze").any(|(_, f)| f.name == "zeDriverGetExtensionFunctionAddress");
    let load_extensions = if has_lookup {
        quote! {
            /// Fills what is still `None` through `zeDriverGetExtensionFunctionAddress` of
            /// `h_driver`: with a loader that exports an older API (Debian's exports 1.4), how the
            /// newer functions of the driver are reached.
            ///
            /// # Safety
            /// `h_driver` is a live driver handle of the driver these functions reach.
            pub unsafe fn load_extensions(&mut self, h_driver: ze_driver_handle_t) {
                let Some(get) = self.ze.zeDriverGetExtensionFunctionAddress else { return };
                // SAFETY: the caller's promise; the driver writes an address or fails.
                unsafe {
                    self.fill_missing(|name| {
                        let mut p: *mut c_void = ::core::ptr::null_mut();
                        if get(h_driver, name.as_ptr(), &mut p) == ze_result_t::SUCCESS { p } else { ::core::ptr::null_mut() }
                    })
                }
            }

        }
    } else {
        quote!()
    };
    let getter_idents: Vec<_> = getter_names.iter().map(|(g, _, _)| g.clone()).collect();
    let getter_types: Vec<_> = getter_names.iter().map(|(_, t, _)| t.clone()).collect();
    let getter_cnames: Vec<_> = getter_names.iter().map(|(_, _, c)| c.clone()).collect();
    quote! {
        #![doc = " Loadable function tables: every API function as a function pointer, filled from the"]
        #![doc = " official loader (`Loaded::load`, cargo feature `load`), from a driver in process"]
        #![doc = " (`Fns::from_driver`), or from any symbol lookup (`Fns::from_resolver`)."]
        #![allow(non_snake_case, clippy::all)]
        use ::core::ffi::{c_void, CStr};
        use crate::*;

        #(#structs)*

        /// Every function of the API, per namespace.
        #[derive(Clone, Copy, Default)]
        pub struct Fns {
            #(pub #ns_fields: #ns_types,)*
        }

        /// A driver's `zeGet*ProcAddrTable` functions.
        #[derive(Clone, Copy, Default)]
        pub struct DriverGetters {
            #(#getter_fields)*
        }

        impl DriverGetters {
            /// Every getter from `resolve` (a symbol lookup by name; null is `None`), e.g.
            /// `dlsym` on an ICD.
            ///
            /// # Safety
            /// `resolve` returns null or the address of the C function of that name.
            pub unsafe fn from_resolver(mut resolve: impl FnMut(&CStr) -> *mut c_void) -> Self {
                // SAFETY: the caller's promise; a null address is `None`.
                unsafe { Self { #(#getter_idents: ::core::mem::transmute::<*mut c_void, #getter_types>(resolve(#getter_cnames)),)* } }
            }
        }

        impl Fns {
            /// Every entry from `resolve` (a symbol lookup by name; null is `None`).
            ///
            /// # Safety
            /// `resolve` returns null or the address of the C function of that name.
            pub unsafe fn from_resolver(mut resolve: impl FnMut(&CStr) -> *mut c_void) -> Fns {
                // SAFETY: forwarded.
                unsafe { Fns { #(#ns_fields: #ns_types::from_resolver(&mut resolve),)* } }
            }

            /// Fills the entries that are `None` from `resolve`.
            ///
            /// # Safety
            /// As [`Fns::from_resolver`].
            pub unsafe fn fill_missing(&mut self, mut resolve: impl FnMut(&CStr) -> *mut c_void) {
                // SAFETY: forwarded.
                unsafe { #(self.#ns_fields.fill_missing(&mut resolve);)* }
            }

            /// The tables of a driver in process, read through its getters at the current API
            /// version (a table whose getter fails stays empty): no loader, no environment.
            ///
            /// # Safety
            /// Each getter is null or a `zeGet*ProcAddrTable` of its table's type.
            pub unsafe fn from_driver(getters: &DriverGetters) -> Fns {
                let mut fns = Fns::default();
                #(#from_driver)*
                fns
            }

            #load_extensions

            /// How many entries are filled.
            pub fn count(&self) -> usize {
                0 #(+ self.#ns_fields.count())*
            }
        }

        /// The official loader, opened at run time, and its functions (cargo feature `load`).
        #[cfg(feature = "load")]
        pub struct Loaded {
            /// The functions the library exports.
            pub fns: Fns,
            library: libloading::Library,
        }

        #[cfg(feature = "load")]
        impl Loaded {
            /// The loader's file name.
            pub const LOADER: &'static str = "libze_loader.so.1";

            /// Opens the loader by its file name (the dynamic linker's search path).
            pub fn load() -> Result<Loaded, libloading::Error> {
                Self::load_from(Self::LOADER)
            }

            /// Opens the library at `path` and looks every function up by name.
            pub fn load_from(path: impl AsRef<::std::ffi::OsStr>) -> Result<Loaded, libloading::Error> {
                // SAFETY: opening a shared library runs its initializers, as linking it would.
                let library = unsafe { libloading::Library::new(path.as_ref())? };
                // SAFETY: every name is looked up with its C signature (the functions' types).
                let fns = unsafe {
                    Fns::from_resolver(|name| {
                        library
                            .get::<*mut c_void>(name.to_bytes_with_nul())
                            .map(|s| *s)
                            .unwrap_or(::core::ptr::null_mut())
                    })
                };
                Ok(Loaded { fns, library })
            }

            /// The library itself.
            pub fn library(&self) -> &libloading::Library {
                &self.library
            }
        }

        #[cfg(feature = "load")]
        impl ::core::ops::Deref for Loaded {
            type Target = Fns;
            fn deref(&self) -> &Fns {
                &self.fns
            }
        }

        #[cfg(feature = "load")]
        impl ::core::ops::DerefMut for Loaded {
            fn deref_mut(&mut self) -> &mut Fns {
                &mut self.fns
            }
        }
    }
}
