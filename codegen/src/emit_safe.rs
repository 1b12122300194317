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

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit_rust::{ident, rust_type_tokens, scalar_tokens};
use crate::load::NAMESPACES;
use crate::model::{camel_to_snake, func_ns, strip_ns, Api, CType, TypeKind};
use crate::params::{self, Param, RangeLen};
use crate::spec::*;

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

/// One handle type as the crate sees it.
#[derive(Debug, Clone)]
struct HandleInfo {
    /// The handle type this one aliases, or itself.
    canonical: String,
    /// The wrapper's name (`Device`, `ZesFreq`).
    wrapper: String,
    /// The class of the canonical handle, without namespace (`Device`).
    class: String,
    /// The namespace of the canonical handle.
    ns: &'static str,
    doc: Option<String>,
}

fn ns_of_type(name: &str) -> &'static str {
    ["zet_", "zes_", "zer_", "ze_"]
        .iter()
        .find(|p| name.starts_with(**p))
        .map(|p| &p[..p.len() - 1])
        .map(|p| NAMESPACES.into_iter().find(|n| *n == p).unwrap_or("ze"))
        .unwrap_or("ze")
}

/// `ze_device_handle_t` → `Device`, `zes_freq_handle_t` → `ZesFreq`.
fn wrapper_name(handle: &str) -> String {
    let ns = ns_of_type(handle);
    let short = handle.strip_prefix(&format!("{ns}_")).unwrap_or(handle);
    let short = short.strip_suffix("_handle_t").unwrap_or(short);
    let camel = crate::emit_chain::camel(short);
    if ns == "ze" {
        camel
    } else {
        format!("{}{camel}", crate::emit_chain::camel(ns))
    }
}

fn handles(api: &Api) -> BTreeMap<String, HandleInfo> {
    let mut raw: Vec<&Handle> = vec![];
    for f in &api.loaded.files {
        for d in &f.docs {
            if let Entry::Handle(h) = &d.entry {
                raw.push(h);
            }
        }
    }
    let by_name: BTreeMap<&str, &Handle> = raw.iter().map(|h| (h.name.as_str(), *h)).collect();
    let mut out = BTreeMap::new();
    for h in &raw {
        let mut c = *h;
        while let Some(a) = c.alias.as_deref().and_then(|a| by_name.get(a)) {
            c = a;
        }
        let ns = ns_of_type(&c.name);
        out.insert(
            h.name.clone(),
            HandleInfo {
                canonical: c.name.clone(),
                wrapper: wrapper_name(&c.name),
                class: strip_ns(&c.class, ns).to_string(),
                ns,
                doc: c.doc.clone(),
            },
        );
    }
    out
}

/// Rustdoc text from spec prose: brackets and angle brackets escaped outside code spans.
fn esc(s: &str) -> String {
    // Bare URLs become code spans (rustdoc warns about bare URLs).
    let words: Vec<String> = s
        .split(' ')
        .map(|w| if w.contains("://") && !w.contains('`') { format!("`{w}`") } else { w.to_string() })
        .collect();
    let s = words.join(" ");
    let mut out = String::new();
    let mut code = false;
    for c in s.chars() {
        match c {
            '`' => {
                code = !code;
                out.push(c);
            }
            '[' | ']' if !code => {
                out.push('\\');
                out.push(c);
            }
            '<' if !code => out.push_str("&lt;"),
            '>' if !code => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    if code {
        out.push('`');
    }
    out
}

fn doc_lines(lines: &[String]) -> TokenStream {
    let mut out = TokenStream::new();
    for l in lines {
        if l.is_empty() {
            out.extend(quote!(#[doc = ""]));
            continue;
        }
        for l in l.lines() {
            let l = l.trim();
            if l.is_empty() {
                continue;
            }
            let s = format!(" {l}");
            out.extend(quote!(#[doc = #s]));
        }
    }
    out
}

/// The parameter shapes of a safe method.
#[derive(Debug, Clone)]
enum Shape {
    /// The receiver (first handle parameter).
    Receiver,
    /// An input handle: `&W` / `Option<&W>`.
    Handle { wrapper: String, optional: bool },
    /// A value passed as is (scalars, enums, flags, plain structs by value).
    Value,
    /// `const T*` struct input: `&T` / `Option<&T>`; a non-null `pNext` is an error.
    StructIn { optional: bool, chained: bool },
    /// `T*` `[in,out]` descriptor: `&mut T` (the driver may adjust it); a non-null `pNext`
    /// is an error.
    StructInOut { chained: bool },
    /// `T*` `[in,out]` scalar: `&mut T`.
    ScalarInOut,
    /// `const char*` input: `&str` / `Option<&str>`.
    Str { optional: bool },
    /// An output handle: returned wrapper (owned when `release` is given).
    OutHandle { wrapper: String, release: Option<(String, usize)> },
    /// An output struct, returned from `Default`.
    OutStruct,
    /// An output scalar, returned.
    OutScalar,
    /// `const char**` output: a copied `String`.
    OutStr,
    /// The count of a count protocol (dropped).
    Count,
    /// An array of a count protocol: returned `Vec`.
    CountArray { elem: Elem },
    /// The length of `[range(0, n)]` slices (dropped).
    Len,
    /// An input slice.
    SliceIn { elem: Elem, optional: bool },
    /// An output slice of scalars: `&mut [T]`.
    SliceOut,
}

#[derive(Debug, Clone)]
enum Elem {
    Handle(String),
    Struct,
    Scalar,
    /// `char` (a string).
    Char,
    /// `const char*` (strings).
    CStr,
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

/// The verbs whose out handle the caller owns.
const OWNING_VERBS: &[&str] = &["Create", "Open", "Attach", "Import", "Clone"];

impl<'a> Gen<'a> {
    fn kind(&self, base: &str) -> Option<TypeKind> {
        self.api.type_kind(base)
    }

    fn is_struct(&self, base: &str) -> bool {
        matches!(self.kind(base), Some(TypeKind::Struct))
    }

    /// Whether a value of this type can be passed or returned by value: scalars, enums,
    /// flags, and structs/unions with no pointer inside.
    fn plain(&self, base: &str) -> bool {
        match self.kind(base) {
            Some(TypeKind::Scalar { .. } | TypeKind::Enum | TypeKind::Flags | TypeKind::FlagBits) => true,
            None => scalar_tokens(base).is_some() && base != "void",
            Some(TypeKind::Struct | TypeKind::Union) => !self.has_pointers(base, false, &mut BTreeSet::new()),
            _ => false,
        }
    }

    /// Whether a struct holds a pointer (other than `pNext` when `allow_next`) or a handle,
    /// directly or in a member struct.
    fn has_pointers(&self, name: &str, allow_next: bool, seen: &mut BTreeSet<String>) -> bool {
        if !seen.insert(name.to_string()) {
            return false;
        }
        let members: Vec<&Field> = match self.api.entry(name) {
            Some(Entry::Struct(s)) | Some(Entry::Union(s)) => self.api.all_members(s),
            _ => return true,
        };
        for m in members {
            let ct = CType::parse(&m.ty);
            if ct.is_pointer() {
                if allow_next && m.name == "pNext" {
                    continue;
                }
                return true;
            }
            let base = self.api.resolve_typedef(&ct.base).to_string();
            match self.kind(&base) {
                Some(TypeKind::Struct | TypeKind::Union) if self.has_pointers(&base, false, seen) => return true,
                Some(TypeKind::Handle | TypeKind::Callback | TypeKind::Void) => return true,
                _ => {}
            }
        }
        false
    }

    /// A struct whose members are plain apart from its `pNext`: (safe, has a pNext).
    fn safe_struct(&self, name: &str) -> Option<bool> {
        if !self.is_struct(name) || self.has_pointers(name, true, &mut BTreeSet::new()) {
            return None;
        }
        let Some(Entry::Struct(s)) = self.api.entry(name) else { return None };
        Some(self.api.all_members(s).iter().any(|m| m.name == "pNext"))
    }

    fn handle_wrapper(&self, ty: &str) -> Option<&HandleInfo> {
        self.handles.get(ty)
    }

    /// The release function for a handle made by `f`.
    fn release_for(&self, f: &Function, handle: &str) -> Option<(String, usize)> {
        let ns = self.ns_of(&f.name);
        let rest = strip_ns(&f.name, ns);
        let canonical = &self.handles.get(handle)?.canonical;
        let list = self.releases.get(canonical)?;
        let verb = OWNING_VERBS.iter().find(|v| rest.contains(**v))?;
        let pair = match *verb {
            "Open" => "Close",
            "Attach" => "Detach",
            "Import" => "Release",
            _ => "Destroy",
        };
        list.iter().find(|r| r.0.contains(pair)).or_else(|| list.first()).cloned()
    }

    fn ns_of(&self, function: &str) -> &'static str {
        self.ns.get(function).copied().unwrap_or_else(|| func_ns(function))
    }

    /// The safe shapes of `f`'s parameters, or why there are none.
    fn shapes(&self, f: &Function, ps: &[Param], receiver: bool) -> Result<Vec<Shape>, String> {
        if f.return_type.is_some() {
            return Err("returns no ze_result_t".into());
        }
        if ps.iter().any(|p| p.field.release) {
            return Err("releases what a parameter points to".into());
        }
        if f.name.contains("Destroy") {
            return Err("destroys a handle the spec does not mark `[release]`".into());
        }
        if f.name.contains("Indirect") {
            return Err("its arguments are read from device memory when the work runs".into());
        }
        let mut shapes: Vec<Option<Shape>> = vec![None; ps.len()];
        if receiver {
            shapes[0] = Some(Shape::Receiver);
        }
        // Ranges first: count protocols and slices.
        for (i, p) in ps.iter().enumerate() {
            let Some(r) = &p.range else { continue };
            let r = r.clone().map_err(|e| e.to_string())?;
            if !p.range_from_zero {
                return Err(format!("{}: range not from 0", p.field.name));
            }
            let elem = match (p.ct.ptrs.len(), p.kind.clone()) {
                (1, Some(TypeKind::Handle)) => Elem::Handle(self.handle_wrapper(&p.ct.base).ok_or("unknown handle")?.wrapper.clone()),
                (1, _) if p.base == "char" => Elem::Char,
                (1, _) if self.plain(&p.base) && !self.is_struct(&p.base) => Elem::Scalar,
                (1, Some(TypeKind::Struct)) => match self.safe_struct(&p.base) {
                    Some(_) => Elem::Struct,
                    None => return Err(format!("{}: struct with pointers", p.field.name)),
                },
                (2, _) if p.base == "char" && p.ct.konst => Elem::CStr,
                _ => return Err(format!("{}: array of {}", p.field.name, p.field.ty)),
            };
            match r {
                RangeLen::Deref(j) => {
                    if p.input || !p.field.optional {
                        return Err(format!("{}: count protocol array that is an input or not optional", p.field.name));
                    }
                    if ps[j].input && ps[j].field.dir == Some(Dir::In) {
                        return Err("count protocol with an input count".into());
                    }
                    shapes[j] = Some(Shape::Count);
                    shapes[i] = Some(Shape::CountArray { elem });
                }
                RangeLen::Param(j) => {
                    if matches!(shapes[j], Some(Shape::Receiver)) {
                        return Err("range over the receiver".into());
                    }
                    shapes[j] = Some(Shape::Len);
                    if p.input {
                        match elem {
                            Elem::Char | Elem::CStr => return Err(format!("{}: char array input", p.field.name)),
                            _ => shapes[i] = Some(Shape::SliceIn { elem, optional: p.field.optional }),
                        }
                    } else {
                        match elem {
                            Elem::Scalar => shapes[i] = Some(Shape::SliceOut),
                            _ => return Err(format!("{}: output array of non-scalars", p.field.name)),
                        }
                    }
                }
            }
        }
        let counts = shapes.iter().filter(|s| matches!(s, Some(Shape::Count))).count();
        if counts > 1 {
            return Err("two count protocols".into());
        }
        for (i, p) in ps.iter().enumerate() {
            if shapes[i].is_some() {
                continue;
            }
            if p.field.count.is_some() {
                return Err(format!("{}: counted pointer", p.field.name));
            }
            let n = p.ct.ptrs.len();
            let s = match (n, p.kind.clone()) {
                (0, Some(TypeKind::Handle)) => Shape::Handle {
                    wrapper: self.handle_wrapper(&p.ct.base).ok_or("unknown handle")?.wrapper.clone(),
                    optional: p.field.optional,
                },
                (0, _) if self.plain(&p.base) => Shape::Value,
                (1, _) if p.base == "char" && p.input => Shape::Str { optional: p.field.optional },
                (1, Some(TypeKind::Handle)) if !p.input && !p.field.optional => {
                    let info = self.handle_wrapper(&p.ct.base).ok_or("unknown handle")?;
                    Shape::OutHandle { wrapper: info.wrapper.clone(), release: self.release_for(f, &p.ct.base) }
                }
                (1, Some(TypeKind::Struct)) if p.input => match self.safe_struct(&p.base) {
                    Some(chained) => Shape::StructIn { optional: p.field.optional, chained },
                    None => return Err(format!("{}: struct with pointers", p.field.name)),
                },
                (1, Some(TypeKind::Struct)) if p.field.dir == Some(Dir::Inout) && p.base.ends_with("_desc_t") => {
                    match self.safe_struct(&p.base) {
                        Some(chained) => Shape::StructInOut { chained },
                        None => return Err(format!("{}: struct with pointers", p.field.name)),
                    }
                }
                (1, Some(TypeKind::Struct)) if !p.field.optional => match self.safe_struct(&p.base) {
                    Some(_) => Shape::OutStruct,
                    None => return Err(format!("{}: struct with pointers", p.field.name)),
                },
                (1, _) if !p.input && self.plain(&p.base) && !self.is_struct(&p.base) && p.base != "char" => {
                    if p.field.optional {
                        return Err(format!("{}: optional output", p.field.name));
                    }
                    if p.field.dir == Some(Dir::Inout) {
                        Shape::ScalarInOut
                    } else {
                        Shape::OutScalar
                    }
                }
                (2, _) if p.base == "char" && p.ct.konst && !p.input && !p.field.optional => Shape::OutStr,
                _ => return Err(format!("{}: no safe shape for `{}`", p.field.name, p.field.ty)),
            };
            shapes[i] = Some(s);
        }
        let shapes: Vec<Shape> = shapes.into_iter().map(|s| s.expect("every parameter shaped")).collect();
        // Recorded work writes its outputs when it runs, long after the call.
        if deferred(f) {
            let later = |s: &Shape| {
                matches!(
                    s,
                    Shape::OutHandle { .. }
                        | Shape::OutStruct
                        | Shape::OutScalar
                        | Shape::OutStr
                        | Shape::CountArray { .. }
                        | Shape::SliceOut
                        | Shape::ScalarInOut
                        | Shape::StructInOut { .. }
                )
            };
            if let Some(i) = shapes.iter().position(later) {
                return Err(format!("{}: written when the recorded work runs", ps[i].field.name));
            }
        }
        Ok(shapes)
    }
}

/// The method name of `f` on a wrapper of class `wclass` in namespace `wns` (`None`: `Api`).
fn method_name(f: &Function, ns: &str, wrapper: Option<(&str, &str)>) -> String {
    let r = strip_ns(&f.name, ns);
    let own = strip_ns(&f.class, ns);
    let (wclass, wns) = wrapper.unwrap_or(("", "ze"));
    let name = match r.strip_prefix(own) {
        Some(rest) if own == wclass && !rest.is_empty() => {
            let rest = match rest.strip_prefix("Get") {
                Some(x) if x.starts_with(|c: char| c.is_ascii_uppercase()) => x,
                _ => rest,
            };
            camel_to_snake(rest)
        }
        Some(rest) if rest == "Get" || rest.is_empty() => format!("{}s", camel_to_snake(own)),
        Some(rest) if !own.is_empty() => {
            // `zeRTASBuilderCommandListAppendCopyExt` on a command list: without `CommandList`.
            let rest = match rest.strip_prefix(wclass) {
                Some(r) if !wclass.is_empty() && r.starts_with(|c: char| c.is_ascii_uppercase()) => r,
                _ => rest,
            };
            // The verb: a creating verb anywhere (`ViewCreateExt`), else the first word.
            let words = camel_words(rest);
            let at = words.iter().position(|w| matches!(*w, "Create" | "Open")).unwrap_or(0);
            let verb = words[at];
            let x: String = words.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, w)| *w).collect();
            let mut s = if verb == "Get" { camel_to_snake(own) } else { format!("{}_{}", camel_to_snake(verb), camel_to_snake(own)) };
            if !x.is_empty() {
                s.push('_');
                s.push_str(&camel_to_snake(&x));
            }
            s
        }
        _ => camel_to_snake(r),
    };
    if ns != wns {
        format!("{ns}_{name}")
    } else {
        name
    }
}

/// `ViewCreateExt` → `["View", "Create", "Ext"]` (a word starts at each capital).
fn camel_words(s: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut start = 0;
    for (i, c) in s.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            out.push(&s[start..i]);
            start = i;
        }
    }
    out.push(&s[start..]);
    out
}

fn snake_param(name: &str) -> Ident {
    let s = camel_to_snake(name);
    ident(&s)
}

fn lit(s: &str) -> proc_macro2::Literal {
    proc_macro2::Literal::string(s)
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

impl Gen<'_> {
    fn fn_doc(&self, f: &Function) -> Vec<String> {
        let mut doc = vec![];
        if let Some(d) = &f.doc {
            doc.push(esc(d));
        }
        if !f.details.is_empty() {
            doc.push(String::new());
            for d in &f.details {
                doc.push(format!("* {}", esc(d)));
            }
        }
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push(format!("Calls `{}`.", f.name));
        doc
    }

    fn param_doc(&self, p: &Param, shown: &str) -> Option<String> {
        p.field.doc.as_ref().map(|d| format!("* `{shown}`: {}", esc(&d.split_whitespace().collect::<Vec<_>>().join(" "))))
    }

    fn fn_ptr(&self, f: &Function) -> TokenStream {
        let ns = ident(self.ns_of(&f.name));
        let field = ident(&f.name);
        let cname = lit(&f.name);
        quote!(let f = api.fns().#ns.#field.ok_or_else(|| Error::missing(#cname))?;)
    }

    fn unsafe_method(&self, f: &Function, ps: &[Param], name: &str, receiver: bool, why: &str) -> TokenStream {
        let m = format_ident!("{}", name);
        let mut doc = self.fn_doc(f);
        doc.push(String::new());
        doc.push(format!("Raw form: {}.", esc(why)));
        doc.push(String::new());
        doc.push("# Safety".into());
        doc.push(format!(
            "Every pointer argument follows the rules of `{}`: valid for what the function reads or writes, for as long as the call (or the work it records) uses it; handles are live handles of this API.",
            f.name
        ));
        let doc = doc_lines(&doc);
        let skip = usize::from(receiver);
        let args: Vec<TokenStream> = ps[skip..]
            .iter()
            .map(|p| {
                let n = snake_param(&p.field.name);
                let t = rust_type_tokens(&p.field.ty);
                quote!(#n: #t)
            })
            .collect();
        let mut call: Vec<TokenStream> = vec![];
        if receiver {
            call.push(quote!(self.as_raw()));
        }
        call.extend(ps[skip..].iter().map(|p| {
            let n = snake_param(&p.field.name);
            quote!(#n)
        }));
        let api_bind = if receiver { quote!(let api = self.api();) } else { quote!(let api = self;) };
        let fptr = self.fn_ptr(f);
        let cname = lit(&f.name);
        let this = quote!(&self);
        let sc = safety("the caller's promise (see `# Safety`)");
        match &f.return_type {
            None => quote! {
                #doc
                #[allow(clippy::too_many_arguments)]
                pub unsafe fn #m(#this, #(#args),*) -> Result<()> {
                    #api_bind
                    #fptr
                    #sc
                    let r = unsafe { f(#(#call),*) };
                    api.check(r, #cname)
                }
            },
            Some(rt) => {
                let rt = rust_type_tokens(rt);
                quote! {
                    #doc
                    #[allow(clippy::too_many_arguments)]
                    pub unsafe fn #m(#this, #(#args),*) -> Result<#rt> {
                        #api_bind
                        #fptr
                        #sc
                        let r = unsafe { f(#(#call),*) };
                        Ok(r)
                    }
                }
            }
        }
    }

    fn safe_method(
        &self,
        f: &Function,
        ps: &[Param],
        shapes: &[Shape],
        name: &str,
        recv: Option<&HandleInfo>,
        chain_at: Option<usize>,
    ) -> Result<TokenStream, String> {
        let m = format_ident!("{}", name);
        let cname = lit(&f.name);
        let mut doc = self.fn_doc(f);
        let mut pdoc = vec![];
        let mut args = vec![];
        let mut pre = vec![];
        let mut call_first = vec![]; // count call (arrays null)
        let mut call = vec![];
        let mut post = vec![];
        let mut outs: Vec<(TokenStream, TokenStream)> = vec![];
        let mut count: Option<(Ident, TokenStream)> = None;
        let mut arrays = vec![];
        let mut len_checks: BTreeMap<usize, Vec<(Ident, bool)>> = BTreeMap::new();
        let parent = if recv.is_some() { quote!(Some(self.keep_alive())) } else { quote!(None) };
        // Recorded work uses its handles later: lists and queues keep them alive.
        let keeps = recv.is_some_and(|h| matches!(h.class.as_str(), "CommandList" | "CommandQueue"));
        // Recorded work reads its inputs when it runs: they are copied, and the list keeps the copies.
        let copy = keeps && deferred(f);
        for (i, (p, s)) in ps.iter().zip(shapes).enumerate() {
            let n = snake_param(&p.field.name);
            let ty = rust_type_tokens(&p.field.ty);
            let base = {
                let mut c = CType::parse(&p.field.ty);
                c.ptrs.clear();
                c.konst = false;
                rust_type_tokens(&c.base)
            };
            if chain_at == Some(i) {
                let input = matches!(s, Shape::StructIn { .. });
                if input {
                    args.push(quote!(#n: &Chain<'_, #base>));
                    call.push(quote!(#n.head() as *const #base as #ty));
                } else {
                    args.push(quote!(#n: &mut Chain<'_, #base>));
                    call.push(quote!(#n.head_mut() as *mut #base));
                }
                let which = if input { "read" } else { "filled" };
                pdoc.push(format!("* `{n}`: a typed `pNext` chain headed by `{}` ({which} with its extensions)", p.base));
                continue;
            }
            match s {
                Shape::Receiver => {
                    call.push(quote!(self.as_raw()));
                }
                Shape::Handle { wrapper, optional } => {
                    let w = format_ident!("{}", wrapper);
                    if *optional {
                        args.push(quote!(#n: Option<&#w>));
                        call.push(quote!(#n.map_or(::core::ptr::null_mut(), |h| h.as_raw())));
                    } else {
                        args.push(quote!(#n: &#w));
                        call.push(quote!(#n.as_raw()));
                    }
                    if keeps {
                        if *optional {
                            post.push(quote!(if let Some(h) = #n { self.keep(h); }));
                        } else {
                            post.push(quote!(self.keep(#n);));
                        }
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::Value => {
                    args.push(quote!(#n: #ty));
                    call.push(quote!(#n));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::StructIn { optional, chained } => {
                    let pn = lit(&p.field.name);
                    if copy {
                        let k = format_ident!("{}_kept", n.to_string().trim_start_matches("r#"));
                        if *optional {
                            args.push(quote!(#n: Option<&#base>));
                            if *chained {
                                pre.push(quote!(if let Some(s) = #n { no_chain(s.pNext as *const ::core::ffi::c_void, #cname, #pn)?; }));
                            }
                            pre.push(quote!(let #k = #n.map(|s| Kept::new(*s));));
                            call.push(quote!(#k.as_ref().map_or(::core::ptr::null(), |k| k.get() as *const #base) as #ty));
                            post.push(quote!(if let Some(k) = #k { self.keep_value(k.into_keep()); }));
                        } else {
                            args.push(quote!(#n: &#base));
                            if *chained {
                                pre.push(quote!(no_chain(#n.pNext as *const ::core::ffi::c_void, #cname, #pn)?;));
                            }
                            pre.push(quote!(let #k = Kept::new(*#n);));
                            call.push(quote!(#k.get() as *const #base as #ty));
                            post.push(quote!(self.keep_value(#k.into_keep());));
                        }
                    } else if *optional {
                        args.push(quote!(#n: Option<&#base>));
                        if *chained {
                            pre.push(quote!(if let Some(s) = #n { no_chain(s.pNext as *const ::core::ffi::c_void, #cname, #pn)?; }));
                        }
                        call.push(quote!(#n.map_or(::core::ptr::null(), |s| s as *const #base) as #ty));
                    } else {
                        args.push(quote!(#n: &#base));
                        if *chained {
                            pre.push(quote!(no_chain(#n.pNext as *const ::core::ffi::c_void, #cname, #pn)?;));
                        }
                        call.push(quote!(#n as *const #base as #ty));
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::StructInOut { chained } => {
                    let pn = lit(&p.field.name);
                    args.push(quote!(#n: &mut #base));
                    if *chained {
                        pre.push(quote!(no_chain(#n.pNext as *const ::core::ffi::c_void, #cname, #pn)?;));
                    }
                    call.push(quote!(&mut *#n as *mut #base));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::ScalarInOut => {
                    args.push(quote!(#n: &mut #base));
                    call.push(quote!(&mut *#n as *mut #base));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::Str { optional } => {
                    let c = format_ident!("{}_c", n.to_string().trim_start_matches("r#"));
                    let pn = lit(&p.field.name);
                    if *optional && copy {
                        args.push(quote!(#n: Option<&str>));
                        pre.push(quote!(let #c = match #n { Some(s) => Some(Kept::new(c_string(s, #cname, #pn)?)), None => None };));
                        call.push(quote!(#c.as_ref().map_or(::core::ptr::null(), |k| k.get().as_ptr())));
                        post.push(quote!(if let Some(k) = #c { self.keep_value(k.into_keep()); }));
                    } else if *optional {
                        args.push(quote!(#n: Option<&str>));
                        pre.push(quote!(let #c = match #n { Some(s) => Some(c_string(s, #cname, #pn)?), None => None };));
                        call.push(quote!(#c.as_ref().map_or(::core::ptr::null(), |s| s.as_ptr())));
                    } else if copy {
                        args.push(quote!(#n: &str));
                        pre.push(quote!(let #c = Kept::new(c_string(#n, #cname, #pn)?);));
                        call.push(quote!(#c.get().as_ptr()));
                        post.push(quote!(self.keep_value(#c.into_keep());));
                    } else {
                        args.push(quote!(#n: &str));
                        pre.push(quote!(let #c = c_string(#n, #cname, #pn)?;));
                        call.push(quote!(#c.as_ptr()));
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::OutHandle { wrapper, release } => {
                    let w = format_ident!("{}", wrapper);
                    pre.push(quote!(let mut #n: #base = ::core::ptr::null_mut();));
                    call.push(quote!(&mut #n));
                    let rel = match release {
                        Some((r, arity)) => {
                            let rns = ident(self.ns_of(r));
                            let rf = ident(r);
                            if *arity == 2 && recv.is_some() {
                                quote!(api.fns().#rns.#rf.map(|f| Release::with_parent(f, self.as_raw())))
                            } else if *arity == 1 {
                                quote!(api.fns().#rns.#rf.map(Release::new))
                            } else {
                                quote!(None)
                            }
                        }
                        None => quote!(None),
                    };
                    let driver = if p.base == "ze_driver_handle_t" { quote!(api.note_driver(#n);) } else { quote!() };
                    post.push(driver);
                    outs.push((quote!(#w::wrap(api, #n, #parent, #rel)), quote!(#w)));
                }
                Shape::OutStruct | Shape::OutScalar => {
                    pre.push(quote!(let mut #n = <#base as Default>::default();));
                    call.push(quote!(&mut #n));
                    outs.push((quote!(#n), base.clone()));
                }
                Shape::OutStr => {
                    pre.push(quote!(let mut #n: *const ::core::ffi::c_char = ::core::ptr::null();));
                    call.push(quote!(&mut #n));
                    let sc = safety("the driver wrote null or a NUL-terminated string it owns");
                    outs.push((quote!({ #sc unsafe { copy_c_str(#n) } }), quote!(String)));
                }
                Shape::Count => {
                    pre.push(quote!(let mut #n: #base = 0;));
                    call.push(quote!(&mut #n));
                    count = Some((n.clone(), base.clone()));
                }
                Shape::CountArray { elem } => {
                    let (init, out, oty, elty) = match elem {
                        Elem::Handle(w) => {
                            let w = format_ident!("{}", w);
                            let driver = if p.base == "ze_driver_handle_t" { quote!(api.note_driver(*h);) } else { quote!() };
                            (
                                quote!(::core::ptr::null_mut()),
                                quote!(#n.iter().map(|h| { #driver #w::wrap(api, *h, #parent, None) }).collect()),
                                quote!(Vec<#w>),
                                base.clone(),
                            )
                        }
                        Elem::Struct | Elem::Scalar => (quote!(<#base as Default>::default()), quote!(#n), quote!(Vec<#base>), base.clone()),
                        Elem::Char => (quote!(0), quote!(string_from_chars(&#n)), quote!(String), base.clone()),
                        Elem::CStr => (
                            quote!(::core::ptr::null()),
                            {
                                let sc = safety("the driver wrote null or NUL-terminated strings it owns");
                                quote!(#n.iter().map(|s| { #sc unsafe { copy_c_str(*s) } }).collect())
                            },
                            quote!(Vec<String>),
                            quote!(*const ::core::ffi::c_char),
                        ),
                    };
                    arrays.push((n.clone(), init, elty));
                    call_first.push((i, quote!(::core::ptr::null_mut())));
                    call.push(quote!(#n.as_mut_ptr()));
                    outs.push((out, oty));
                }
                Shape::Len => {
                    call.push(quote!(#n));
                    pre.push(quote!(let #n: #ty;));
                }
                Shape::SliceIn { elem, optional } => {
                    let j = match &p.range {
                        Some(Ok(RangeLen::Param(j))) => *j,
                        _ => return Err("slice without length".into()),
                    };
                    len_checks.entry(j).or_default().push((n.clone(), false));
                    match elem {
                        Elem::Handle(w) => {
                            let w = format_ident!("{}", w);
                            let raws = format_ident!("{}_raw", n.to_string().trim_start_matches("r#"));
                            args.push(quote!(#n: &[&#w]));
                            pre.push(quote!(let #raws: Vec<#base> = #n.iter().map(|h| h.as_raw()).collect();));
                            if keeps {
                                post.push(quote!(for h in #n { self.keep(*h); }));
                            }
                            if *optional {
                                call.push(quote!(if #raws.is_empty() { ::core::ptr::null_mut() } else { #raws.as_ptr() as #ty }));
                            } else {
                                call.push(quote!(#raws.as_ptr() as #ty));
                            }
                        }
                        Elem::Struct => {
                            args.push(quote!(#n: &[#base]));
                            let pn = lit(&p.field.name);
                            if self.safe_struct(&p.base) == Some(true) {
                                pre.push(quote!(for s in #n { no_chain(s.pNext as *const ::core::ffi::c_void, #cname, #pn)?; }));
                            }
                            slice_call(&mut pre, &mut call, &mut post, &n, &ty, *optional, copy);
                        }
                        _ => {
                            args.push(quote!(#n: &[#base]));
                            slice_call(&mut pre, &mut call, &mut post, &n, &ty, *optional, copy);
                        }
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::SliceOut => {
                    let j = match &p.range {
                        Some(Ok(RangeLen::Param(j))) => *j,
                        _ => return Err("slice without length".into()),
                    };
                    len_checks.entry(j).or_default().push((n.clone(), true));
                    args.push(quote!(#n: &mut [#base]));
                    call.push(quote!(#n.as_mut_ptr()));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
            }
        }
        // Lengths of slices: the first slice's length, the others must match.
        let mut len_stmts = vec![];
        for (j, slices) in &len_checks {
            let ln = snake_param(&ps[*j].field.name);
            let lt = rust_type_tokens(&ps[*j].field.ty);
            let pn = lit(&ps[*j].field.name);
            let (first, _) = &slices[0];
            len_stmts.push(quote!(#ln = slice_len::<#lt>(#first.len(), #cname, #pn)?;));
            for (other, _) in &slices[1..] {
                len_stmts.push(quote!(same_len(#first.len(), #other.len(), #cname)?;));
            }
        }
        // `let n: T;` placeholders were pushed into `pre` for lengths; move their assignment after.
        let ret_ty = match outs.len() {
            0 => quote!(()),
            1 => outs[0].1.clone(),
            _ => {
                let t = outs.iter().map(|(_, t)| t);
                quote!((#(#t),*))
            }
        };
        let ret_val = match outs.len() {
            0 => quote!(()),
            1 => outs[0].0.clone(),
            _ => {
                let v = outs.iter().map(|(v, _)| v);
                quote!((#(#v),*))
            }
        };
        let api_bind = if recv.is_some() { quote!(let api = self.api();) } else { quote!(let api = self;) };
        let fptr = self.fn_ptr(f);
        if let Some(at) = chain_at {
            doc.push(String::new());
            doc.push(format!("The typed-chain form: `{}` heads a chain built with [`Chain`].", ps[at].base));
        }
        let invoke = if let Some((cn, _)) = &count {
            let mut first = call.clone();
            let offset = ps.len() - call.len();
            debug_assert_eq!(offset, 0);
            for (i, t) in &call_first {
                first[*i] = t.clone();
            }
            let inits = arrays.iter().map(|(n, init, elty)| quote!(let mut #n: Vec<#elty> = vec![#init; #cn as usize];));
            let truncs = arrays.iter().map(|(n, _, _)| quote!(#n.truncate(#cn as usize);));
            let s1 = safety("every pointer is a local of this call, a reference, or null (the count query)");
            let s2 = safety("every pointer is a local of this call or a reference; the arrays hold `count` elements");
            quote! {
                #s1
                let r = unsafe { f(#(#first),*) };
                api.check(r, #cname)?;
                #(#inits)*
                #s2
                let r = unsafe { f(#(#call),*) };
                api.check(r, #cname)?;
                #(#truncs)*
            }
        } else {
            let s1 = safety("every pointer is a local of this call, a reference, or null where the spec allows it");
            quote! {
                #s1
                let r = unsafe { f(#(#call),*) };
                api.check(r, #cname)?;
            }
        };
        if !pdoc.is_empty() {
            doc.push(String::new());
            doc.push("Parameters:".into());
            doc.extend(pdoc);
        }
        let doc = doc_lines(&doc);
        Ok(quote! {
            #doc
            #[allow(clippy::too_many_arguments, unused_mut, clippy::let_unit_value, clippy::unnecessary_cast, clippy::needless_late_init)]
            pub fn #m(&self, #(#args),*) -> Result<#ret_ty> {
                #api_bind
                #fptr
                #(#pre)*
                #(#len_stmts)*
                #invoke
                #(#post)*
                Ok(#ret_val)
            }
        })
    }
}

/// Counts of [`reach`]: (safe, unsafe, drop).
pub fn reach_counts(api: &Api) -> Result<(usize, usize, usize), String> {
    let r = reach(api)?;
    let c = |k| r.iter().filter(|(_, x)| *x == k).count();
    Ok((c(Reach::Safe), c(Reach::Unsafe), c(Reach::Drop)))
}

/// The C argument of an input slice `n` (null when empty and optional); `copy`: a copy the
/// receiver keeps (recorded work reads it later).
#[allow(clippy::too_many_arguments)]
fn slice_call(
    pre: &mut Vec<TokenStream>,
    call: &mut Vec<TokenStream>,
    post: &mut Vec<TokenStream>,
    n: &Ident,
    ty: &TokenStream,
    optional: bool,
    copy: bool,
) {
    let v = if copy {
        let k = format_ident!("{}_kept", n.to_string().trim_start_matches("r#"));
        pre.push(quote!(let #k = Kept::new(#n.to_vec());));
        post.push(quote!(self.keep_value(#k.into_keep());));
        quote!(#k.get())
    } else {
        quote!(#n)
    };
    if optional {
        call.push(quote!(if #v.is_empty() { ::core::ptr::null_mut() } else { #v.as_ptr() as #ty }));
    } else {
        call.push(quote!(#v.as_ptr() as #ty));
    }
}

/// Whether `f` records work that runs later (`zeCommandListAppend*`): what its pointers point
/// to is read (or written) when the work runs.
fn deferred(f: &Function) -> bool {
    f.name.contains("Append")
}

fn safety(text: &str) -> TokenStream {
    crate::emit_rust::comment(&format!("SAFETY: {text}"))
}
