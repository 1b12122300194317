//! The class traits (`api/<ns>.rs`) and `api/mod.rs`: `Hooks`, the `Dispatch` table, the
//! probes of `dispatch!` and `FUNCTIONS`.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::classify::*;
use super::convert::*;
use super::kinds::*;
use super::Ctx;
use crate::emit_rust::{ident, rust_type_tokens};
use crate::load::NAMESPACES;
use crate::model::Api;
use crate::spec::*;

/// The trait of a spec class: `zeDevice` → `DeviceApi`, `ze` → `GlobalApi`,
/// `zesDevice` → `ZesDeviceApi`, `zer` → `ZerGlobalApi`.
pub fn class_trait(class: &str) -> String {
    // The namespace is a case-sensitive prefix followed by the class's own name (`zeSampler` is
    // a `ze` class, not a `zes` one).
    let ns = ["zet", "zes", "zer"]
        .into_iter()
        .find(|p| class.strip_prefix(p).is_some_and(|r| r.is_empty() || r.starts_with(|c: char| c.is_ascii_uppercase())))
        .unwrap_or("ze");
    let rest = class.strip_prefix(ns).unwrap_or(class);
    let base = if rest.is_empty() { "Global" } else { rest };
    if ns == "ze" {
        format!("{base}Api")
    } else {
        format!("{}{base}Api", ns.to_upper_camel_case())
    }
}

/// The `Dispatch` field (and probe method) of a class: `DeviceApi` → `device`.
pub(super) fn class_field(class: &str) -> String {
    let t = class_trait(class);
    t.strip_suffix("Api").unwrap_or(&t).to_snake_case()
}

/// The classes of a namespace with their functions, in spec order.
pub(super) fn classes<'a>(api: &'a Api, ns: &'a str) -> Vec<(String, Vec<&'a Function>)> {
    let mut out: Vec<(String, Vec<&Function>)> = vec![];
    for (_, f) in api.functions(ns) {
        match out.iter_mut().find(|(c, _)| *c == f.class) {
            Some((_, fs)) => fs.push(f),
            None => out.push((f.class.clone(), vec![f])),
        }
    }
    out
}

/// Every class of the spec, namespace by namespace.
pub(super) fn all_classes(api: &Api) -> Vec<(String, Vec<&Function>)> {
    NAMESPACES.iter().flat_map(|ns| classes(api, ns)).collect()
}

pub(super) fn method_tokens(cx: &Ctx, f: &Function) -> TokenStream {
    let m = ident(&method_name(&f.name));
    let ps = params(cx.api, &cx.kinds, f);
    let args = ps.iter().map(|p| {
        let n = ident(&p.field.name.to_snake_case());
        let t = trait_type(p);
        quote!(#n: #t)
    });
    let doc = format!(" `{}`{}.", f.name, f.since.as_deref().map(|s| format!(" (since API {s})")).unwrap_or_default());
    let ret = match &f.return_type {
        None => quote!(()),
        Some(t) => match cx.kinds.get(t.as_str()) {
            Some((k, _)) => {
                let k = kind_ident(k);
                quote!(Handle<#k>)
            }
            None => rust_type_tokens(t),
        },
    };
    quote! {
        #[doc = #doc]
        fn #m(&self, #(#args),*) -> ZeResult<#ret> {
            Err(ZeError::UNSUPPORTED_FEATURE)
        }
    }
}

/// `api/<ns>.rs`: one trait per class of the namespace.
pub(super) fn emit_api_ns(cx: &Ctx, ns: &str) -> TokenStream {
    let traits = classes(cx.api, ns).into_iter().map(|(class, fs)| {
        let t = ident(&class_trait(&class));
        let methods = fs.iter().map(|f| method_tokens(cx, f));
        let doc = format!(" The functions of class `{class}`. Implement it with `#[zekit_icd::implement]`, which records the methods a driver defines (their DDI entries are filled; the others stay null and answer `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`).");
        quote! {
            #[doc = #doc]
            #[allow(unused_variables, clippy::too_many_arguments)]
            pub trait #t: Send + Sync + 'static {
                /// The methods this impl defines (written by `#[zekit_icd::implement]`).
                #[doc(hidden)]
                fn __implemented(&self) -> &'static [&'static str];
                #(#methods)*
            }
        }
    });
    quote! {
        #![doc = " Driver traits of one namespace, one per spec class."]
        #![allow(unused_imports)]
        use ::core::ffi::{c_char, c_int, c_void};
        use zekit_icd_rt::{Handle, ZeError, ZeResult};
        use zekit_sys::*;
        #(#traits)*
    }
}

/// `api/mod.rs`: the namespaces' traits, the hooks, the dispatch table and its probes.
pub(super) fn emit_api_mod(cx: &Ctx) -> TokenStream {
    let all = all_classes(cx.api);
    let mods = NAMESPACES.iter().map(|ns| {
        let m = ident(ns);
        quote!(pub mod #m; pub use #m::*;)
    });
    let fields: Vec<_> = all.iter().map(|(c, _)| ident(&class_field(c))).collect();
    let traits: Vec<_> = all.iter().map(|(c, _)| ident(&class_trait(c))).collect();
    let field_docs = all.iter().map(|(c, _)| format!(" `{}` (class `{c}`), when the driver implements it.", class_trait(c)));
    let yes: Vec<_> = traits.iter().map(|t| format_ident!("{}Yes", t)).collect();
    let no: Vec<_> = traits.iter().map(|t| format_ident!("{}No", t)).collect();
    let rows = all.iter().flat_map(|(c, fs)| {
        let c = c.clone();
        fs.iter().map(move |f| {
            let name = f.name.as_str();
            let m = method_name(&f.name);
            let t = class_trait(&c);
            quote!(Function { name: #name, method: #m, class: #t })
        })
    });
    quote! {
        #![doc = " The driver traits (one per spec class), the hooks, and the dispatch table the"]
        #![doc = " entry points call through."]
        #(#mods)*
        use std::collections::HashSet;
        use zekit_sys::ze_result_t;

        /// Decoded arguments of a call, computed on demand.
        pub type Args<'a> = &'a dyn Fn() -> Vec<(&'static str, String)>;

        /// Optional hooks around every call (the mock's programmed results and call log).
        #[allow(unused_variables)]
        pub trait Hooks: Send + Sync + 'static {
            /// Called before every call; `Some(answer)` answers the call without running the
            /// method: `Ok(())` as success, `Err(e)` as a failure with its reason.
            fn before_call(&self, function: &'static str, args: Args<'_>) -> Option<crate::ZeResult<()>> { None }
            /// Called after every call with its result.
            fn after_call(&self, function: &'static str, args: Args<'_>, result: ze_result_t) {}
            /// Whether the DDI tables offer every function, implemented or not (the mock,
            /// whose hooks answer the rest).
            fn fill_all(&self) -> bool { false }
        }

        /// One API function: its C name, trait method and trait.
        #[derive(Debug, Clone, Copy)]
        pub struct Function {
            pub name: &'static str,
            pub method: &'static str,
            pub class: &'static str,
        }

        /// Every function of the spec, in spec order.
        pub const FUNCTIONS: &[Function] = &[#(#rows),*];

        /// The driver's implementation of each class (`None` where it implements none).
        #[derive(Clone, Copy, Default)]
        pub struct Classes {
            #(#[doc = #field_docs] pub #fields: Option<&'static dyn #traits>,)*
        }

        /// What the entry points dispatch to: a driver's classes and hooks. Built by
        /// [`dispatch!`](macro@crate::dispatch) from a driver value.
        pub struct Dispatch {
            pub classes: Classes,
            pub hooks: Option<&'static dyn Hooks>,
            implemented: HashSet<&'static str>,
        }

        impl Dispatch {
            /// A dispatch table over `classes` and `hooks`.
            pub fn new(classes: Classes, hooks: Option<&'static dyn Hooks>) -> Dispatch {
                let mut implemented = HashSet::new();
                #(if let Some(c) = classes.#fields { implemented.extend(c.__implemented()); })*
                Dispatch { classes, hooks, implemented }
            }

            /// The same without hooks.
            pub fn without_hooks(self) -> Dispatch {
                Dispatch { hooks: None, ..self }
            }

            /// Whether the driver defines the trait method `method` (`ze_device_get`).
            pub fn implements(&self, method: &str) -> bool {
                self.implemented.contains(method)
            }

            /// Whether the driver defines the API function `name` (`zeDeviceGet`).
            pub fn implements_function(&self, name: &str) -> bool {
                FUNCTIONS.iter().any(|f| f.name == name && self.implements(f.method))
            }

            /// Whether the DDI tables offer the function of trait method `method`.
            pub fn offers(&self, method: &str) -> bool {
                self.hooks.is_some_and(|h| h.fill_all()) || self.implements(method)
            }
        }

        /// Autoref probes: `(&Probe(driver)).device()` is `Some` exactly when the driver's
        /// type implements `DeviceApi` (the type must be concrete where the probe is written,
        /// as in [`dispatch!`](macro@crate::dispatch)).
        #[doc(hidden)]
        pub mod probe {
            use super::*;
            pub struct Probe<T: 'static>(pub &'static T);
            pub trait HooksYes { fn hooks(&self) -> Option<&'static dyn Hooks>; }
            impl<T: Hooks> HooksYes for Probe<T> { fn hooks(&self) -> Option<&'static dyn Hooks> { Some(self.0) } }
            pub trait HooksNo { fn hooks(&self) -> Option<&'static dyn Hooks>; }
            impl<T> HooksNo for &Probe<T> { fn hooks(&self) -> Option<&'static dyn Hooks> { None } }
            #(
                pub trait #yes { fn #fields(&self) -> Option<&'static dyn #traits>; }
                impl<T: #traits> #yes for Probe<T> { fn #fields(&self) -> Option<&'static dyn #traits> { Some(self.0) } }
                pub trait #no { fn #fields(&self) -> Option<&'static dyn #traits>; }
                impl<T> #no for &Probe<T> { fn #fields(&self) -> Option<&'static dyn #traits> { None } }
            )*
        }

        /// Builds the [`Dispatch`] of a driver value: `dispatch!(MyDriver, &DRIVER)` (the
        /// expression must be a `&'static MyDriver`). Every class trait the type implements is
        /// used, and its [`Hooks`] if it implements them.
        #[macro_export]
        macro_rules! dispatch {
            ($ty:ty, $value:expr) => {{
                #[allow(unused_imports)]
                use $crate::api::probe::*;
                let __v: &'static $ty = $value;
                $crate::api::Dispatch::new(
                    $crate::api::Classes { #(#fields: (&Probe(__v)).#fields(),)* },
                    (&Probe(__v)).hooks(),
                )
            }};
        }
    }
}
