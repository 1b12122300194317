//! The generated part of the safe `zekit` crate: `generated/zekit/safe.rs`, which
//! `zekit/src/generated.rs` `include!`s. The hand-written crate holds the judgment (the handle
//! core, errors, memory, typed chains, which handle kinds are `Sync`); this file holds what the
//! spec's annotations decide:
//!
//! * one owned wrapper per handle type: `pub type Device = Object<ze_device_handle_t>` (handle
//!   aliases such as `zet_device_handle_t` share the wrapper of the handle they alias);
//! * every function as a method of the wrapper of its first handle parameter (functions without
//!   one: of `Api`), safe where every parameter has a safe shape (`Shape`), else `unsafe` with
//!   the raw C parameters and the suffix `_raw`;
//! * `[release]` functions of a handle become the release step of the handles their creating
//!   functions return (`Drop`), not methods;
//! * `REACH`: every function of the spec and how it is reached (safe, unsafe, drop), which the
//!   crate's tests check against the function tables.
//!
//! Naming: the function name without its namespace prefix; when the function's class is the
//! wrapper's class, without the class and a leading `Get` (`zeDeviceGetProperties` →
//! `device.properties()`), else verb first (`zeCommandListCreate` on a context →
//! `create_command_list`; `Create`/`Open` anywhere count as the verb: `zeImageViewCreateExt` →
//! `create_image_view_ext`), `Get` dropped (`zeMemGetPitchFor2dImage` →
//! `mem_pitch_for2d_image`), and a bare `Get` as a plural (`zeDeviceGet` → `driver.devices()`).
//! Functions of another namespace than the wrapper's carry that namespace as a prefix
//! (`zesDeviceGetProperties` → `device.zes_properties()`); a name used twice on one wrapper
//! falls back to the whole function name in snake case.

mod docs;
mod handles;
mod methods;
mod naming;
mod safe_method;
mod shapes;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit_rust::ident;
use crate::load::NAMESPACES;
use crate::model::{camel_to_snake, strip_ns, Api, TypeKind};
use crate::params;
use crate::spec::*;
use docs::*;
use handles::*;
use methods::*;
use naming::*;
use shapes::*;

/// Where the file goes (relative to `generated/`).
pub const PATH: &str = "zekit/safe.rs";

/// How a function of the spec is reached from the safe crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// A safe method.
    Safe,
    /// An `unsafe` method with raw parameters (`_raw`).
    Unsafe,
    /// The release step of owned handles (`Drop`).
    Drop,
}

impl Reach {
    fn tokens(self) -> TokenStream {
        match self {
            Reach::Safe => quote!(Reach::Safe),
            Reach::Unsafe => quote!(Reach::Unsafe),
            Reach::Drop => quote!(Reach::Drop),
        }
    }
}

struct Gen<'a> {
    api: &'a Api,
    handles: BTreeMap<String, HandleInfo>,
    /// Canonical handle → its release functions (`[release]` of a handle as the last
    /// parameter, one or two parameters) and their parameter counts.
    releases: BTreeMap<String, Vec<(String, usize)>>,
    /// Function → namespace (the folder it comes from: `zeSamplerCreate` is `ze`).
    ns: BTreeMap<String, &'static str>,
    /// Struct chain heads with extensions (they have `Extends*` traits in `zekit_sys::chain`).
    chain_heads: BTreeSet<String>,
}

/// One emitted method, and how it reaches its function.
struct Method {
    owner: Option<String>,
    tokens: TokenStream,
}

/// Emits `safe.rs` and the reach table.
pub fn emit(api: &Api) -> Result<TokenStream, String> {
    Ok(build(api)?.0)
}

/// Every function and how the crate reaches it (for tests and the counter).
pub fn reach(api: &Api) -> Result<Vec<(String, Reach)>, String> {
    Ok(build(api)?.1)
}

fn build(api: &Api) -> Result<(TokenStream, Vec<(String, Reach)>), String> {
    let handles = handles(api);
    let mut releases: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    let functions: Vec<&Function> = NAMESPACES.iter().flat_map(|ns| api.functions(ns).map(|(_, f)| f)).collect();
    let ns: BTreeMap<String, &'static str> =
        NAMESPACES.iter().flat_map(|ns| api.functions(ns).map(move |(_, f)| (f.name.clone(), *ns))).collect();
    let mut drop_fns = BTreeSet::new();
    for f in &functions {
        let n = f.params.len();
        let last = f.params.last();
        let first_handle = n == 1 || (n == 2 && handles.contains_key(&f.params[0].ty));
        if let (true, Some(last)) = (first_handle && f.return_type.is_none(), last) {
            if !last.release || f.params[..n - 1].iter().any(|p| p.release) {
                continue;
            }
            if let Some(h) = handles.get(&last.ty) {
                releases.entry(h.canonical.clone()).or_default().push((f.name.clone(), n));
                drop_fns.insert(f.name.clone());
            }
        }
    }
    let chain_heads = api.chains().heads.into_iter().filter(|h| !h.function && !h.extensions.is_empty()).map(|h| h.name).collect();
    let g = Gen { api, handles, releases, ns, chain_heads };
    let mut reach = vec![];
    let mut methods: Vec<Method> = vec![];
    let mut used: BTreeMap<Option<String>, BTreeSet<String>> = BTreeMap::new();
    for f in &functions {
        if drop_fns.contains(&f.name) {
            reach.push((f.name.clone(), Reach::Drop));
            continue;
        }
        let ps = params::of_function(api, f);
        let recv = ps.first().filter(|p| p.ct.ptrs.is_empty() && p.kind == Some(TypeKind::Handle)).and_then(|p| g.handles.get(&p.ct.base)).cloned();
        let owner = recv.as_ref().map(|h| h.wrapper.clone());
        let fns_ns = g.ns_of(&f.name);
        let mut name = method_name(f, fns_ns, recv.as_ref().map(|h| (h.class.as_str(), h.ns)));
        let shapes = g.shapes(f, &ps, recv.is_some());
        let taken = used.entry(owner.clone()).or_default();
        let suffix = |n: &str| if shapes.is_ok() { n.to_string() } else { format!("{n}_raw") };
        if taken.contains(&suffix(&name)) || matches!(name.as_str(), "as_raw" | "api" | "from_raw" | "load" | "mock") {
            let ns = fns_ns;
            name = camel_to_snake(strip_ns(&f.name, ns));
            if ns != recv.as_ref().map(|h| h.ns).unwrap_or("ze") {
                name = format!("{ns}_{name}");
            }
        }
        let mut name = suffix(&name);
        // Still taken (a spec change can make two functions meet): numbered, never an error.
        let base = name.clone();
        let mut k = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        let (tokens, r) = match shapes {
            Ok(shapes) => {
                let mut t = g.safe_method(f, &ps, &shapes, &name, recv.as_ref(), None)?;
                // A typed-chain form when one struct parameter heads a chain with extensions.
                let heads: Vec<usize> = (0..ps.len())
                    .filter(|i| matches!(shapes[*i], Shape::StructIn { .. } | Shape::OutStruct) && g.chain_heads.contains(&ps[*i].base))
                    .collect();
                if let (false, [at]) = (deferred(f), &heads[..]) {
                    let at = *at;
                    let with = format!("{name}_with");
                    if taken.insert(with.clone()) {
                        t.extend(g.safe_method(f, &ps, &shapes, &with, recv.as_ref(), Some(at))?);
                    }
                }
                (t, Reach::Safe)
            }
            Err(why) => (g.unsafe_method(f, &ps, &name, recv.is_some(), &why), Reach::Unsafe),
        };
        reach.push((f.name.clone(), r));
        methods.push(Method { owner, tokens });
    }
    // Wrappers, one per canonical handle.
    let mut wrappers = vec![];
    let mut seen = BTreeSet::new();
    let mut by_owner: BTreeMap<Option<String>, Vec<TokenStream>> = BTreeMap::new();
    for m in methods {
        by_owner.entry(m.owner).or_default().push(m.tokens);
    }
    for (name, h) in &g.handles {
        if name != &h.canonical || !seen.insert(h.canonical.clone()) {
            continue;
        }
        let w = format_ident!("{}", h.wrapper);
        let raw = ident(&h.canonical);
        let mut doc = vec![];
        if let Some(d) = &h.doc {
            doc.push(esc(d));
            doc.push(String::new());
        }
        doc.push(format!("An owned `{}` (class `{}`).", h.canonical, h.class));
        let doc = doc_lines(&doc);
        let cname = lit(&h.canonical);
        let ms = by_owner.remove(&Some(h.wrapper.clone())).unwrap_or_default();
        wrappers.push(quote! {
            #doc
            pub type #w = Object<#raw>;

            impl RawHandle for #raw {
                const NAME: &'static str = #cname;
            }

            impl Object<#raw> {
                #(#ms)*
            }
        });
    }
    let api_methods = by_owner.remove(&None).unwrap_or_default();
    // What a typed chain may hold: the spec's extensions of the head that hold no pointer but
    // their `pNext` (the driver would read or write through any other one).
    let mut extends = vec![];
    for h in api.chains().heads.iter().filter(|h| g.chain_heads.contains(&h.name)) {
        let head = ident(&h.name);
        for e in &h.extensions {
            if g.has_pointers(e, true, &mut BTreeSet::new()) {
                continue;
            }
            let ext = ident(e);
            let sc = safety(&format!("the spec lets `{e}` into the chain of `{}`; it holds no pointer but `pNext`", h.name));
            extends.push(quote! {
                #sc
                unsafe impl Extends<#head> for #ext {}
            });
        }
    }
    if let Some((o, _)) = by_owner.into_iter().next() {
        return Err(format!("emit_safe: methods for an unknown wrapper {o:?}"));
    }
    let reach_rows = reach.iter().map(|(n, r)| {
        let n = lit(n);
        let r = r.tokens();
        quote!((#n, #r),)
    });
    let n_fns = reach.len();
    let tokens = quote! {
        #(#wrappers)*

        impl Api {
            #(#api_methods)*
        }

        #(#extends)*

        /// Every function of the spec, and how this crate reaches it.
        pub const REACH: [(&str, Reach); #n_fns] = [#(#reach_rows)*];
    };
    Ok((tokens, reach))
}

/// Counts of [`reach`]: (safe, unsafe, drop).
pub fn reach_counts(api: &Api) -> Result<(usize, usize, usize), String> {
    let r = reach(api)?;
    let c = |k| r.iter().filter(|(_, x)| *x == k).count();
    Ok((c(Reach::Safe), c(Reach::Unsafe), c(Reach::Drop)))
}
