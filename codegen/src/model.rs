//! The resolved API: name lookup across namespaces, C types, values of
//! constants, struct layouts and DDI tables, all computed from the spec.

use std::collections::BTreeMap;

use crate::load::{Doc, Loaded, Loc};
use crate::spec::*;

/// An API version `major.minor`, ordered numerically ("1.10" > "1.9").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32, pub u32);

impl Version {
    pub const V1_0: Version = Version(1, 0);

    pub fn parse(s: &str) -> Option<Version> {
        let (a, b) = s.trim().split_once('.')?;
        Some(Version(a.parse().ok()?, b.parse().ok()?))
    }

    /// `since` of an entry, "1.0" when absent or malformed.
    pub fn of(since: Option<&str>) -> Version {
        since.and_then(Version::parse).unwrap_or(Version::V1_0)
    }

    /// The value of `ZE_MAKE_VERSION(major, minor)`.
    pub fn encoded(self) -> u32 {
        (self.0 << 16) | self.1
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// A parsed C type such as `const ze_foo_t**`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CType {
    /// `const` on the pointee (the base type).
    pub konst: bool,
    pub base: String,
    /// One entry per `*`, true when that pointer itself is `const`.
    pub ptrs: Vec<bool>,
}

impl CType {
    pub fn parse(t: &str) -> CType {
        let spaced = t.replace('*', " * ");
        let mut konst = false;
        let mut base = vec![];
        let mut ptrs: Vec<bool> = vec![];
        for tok in spaced.split_whitespace() {
            match tok {
                "*" => ptrs.push(false),
                "const" if !ptrs.is_empty() => *ptrs.last_mut().unwrap() = true,
                "const" => konst = true,
                other => base.push(other),
            }
        }
        CType { konst, base: base.join(" "), ptrs }
    }

    pub fn is_pointer(&self) -> bool {
        !self.ptrs.is_empty()
    }
}

/// What a type name denotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    /// A C scalar: size and alignment in bytes, signed, floating.
    Scalar { size: u64, signed: bool, float: bool },
    Void,
    Handle,
    Enum,
    /// The `*_flags_t` typedef (uint32_t) of a flags entry.
    Flags,
    /// The `*_flag_t` bit enum of a flags entry.
    FlagBits,
    Struct,
    Union,
    Typedef,
    Callback,
}

/// Scalars the spec may use without declaring them.
pub fn scalar(name: &str) -> Option<TypeKind> {
    let (size, signed, float) = match name {
        "uint8_t" | "unsigned char" => (1, false, false),
        "int8_t" | "char" | "signed char" => (1, true, false),
        "uint16_t" => (2, false, false),
        "int16_t" => (2, true, false),
        "uint32_t" | "unsigned int" | "unsigned" => (4, false, false),
        "int32_t" | "int" => (4, true, false),
        "uint64_t" | "size_t" | "uintptr_t" => (8, false, false),
        "int64_t" | "intptr_t" => (8, true, false),
        "float" => (4, true, true),
        "double" => (8, true, true),
        "void" => return Some(TypeKind::Void),
        _ => return None,
    };
    Some(TypeKind::Scalar { size, signed, float })
}

/// Where a named item lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemRef {
    pub file: usize,
    pub doc: usize,
}

/// C layout of a struct or union.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    pub align: u64,
    /// (member name, offset, size) in declaration order, base members included.
    pub members: Vec<(String, u64, u64)>,
}

/// One DDI table of a namespace.
#[derive(Debug, Clone)]
pub struct DdiTable {
    /// `Global`, `Device`, `DeviceExp`, ...
    pub name: String,
    /// `ze_device_dditable_t`
    pub type_name: String,
    /// `zeGetDeviceProcAddrTable`
    pub getter: String,
    /// `ze_pfnGetDeviceProcAddrTable_t`
    pub getter_pfn: String,
    /// Functions in slot order.
    pub functions: Vec<ItemRef>,
}

/// A table of the legacy tracing callbacks of `ze_api.h` (`ze_<class>_callbacks_t`):
/// the API 1.0 functions of one `ze` class that has a `tracing` slot.
#[derive(Debug, Clone)]
pub struct TracingTable {
    /// `Device`: its member name in `ze_callbacks_t`.
    pub name: String,
    /// `ze_device_callbacks_t`
    pub type_name: String,
    /// Position in `ze_callbacks_t`.
    pub slot: u32,
    /// (function, params struct `ze_device_get_params_t`, pfn type `ze_pfnDeviceGetCb_t`,
    /// table member `pfnGetCb`), in DDI order.
    pub functions: Vec<(String, String, String, String)>,
}

/// The whole API, resolved.
#[derive(Debug, Clone)]
pub struct Api {
    pub loaded: Loaded,
    /// Every named item: types, macros, functions, classes (flags also under their `*_flag_t`).
    pub index: BTreeMap<String, ItemRef>,
    /// Values of every enumerator and numeric macro.
    pub values: BTreeMap<String, i64>,
    pub layouts: BTreeMap<String, Layout>,
}

/// `DeviceExp` → `device_exp`, following the upstream generator's camel-to-snake rule.
pub fn camel_to_snake(name: &str) -> String {
    let c: Vec<char> = name.chars().collect();
    // pass 1: `(.)([A-Z][a-z]+)` → `\1_\2`
    let mut s1 = String::new();
    for i in 0..c.len() {
        if i > 0 && c[i].is_ascii_uppercase() && c.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()) {
            s1.push('_');
        }
        s1.push(c[i]);
    }
    // pass 2: `([a-z0-9])([A-Z])` → `\1_\2`
    let c: Vec<char> = s1.chars().collect();
    let mut s2 = String::new();
    for i in 0..c.len() {
        if i > 0 && c[i].is_ascii_uppercase() && (c[i - 1].is_ascii_lowercase() || c[i - 1].is_ascii_digit()) {
            s2.push('_');
        }
        s2.push(c[i]);
    }
    s2.replace("__", "_").to_lowercase()
}

/// `zeDeviceGetFabricVertexExp` is experimental: its name ends in `Exp` (optionally digits).
pub fn is_experimental(name: &str) -> bool {
    let t = name.trim_end_matches(|c: char| c.is_ascii_digit());
    t.ends_with("Exp")
}

/// Prefix of a namespace's names: `ze` → `ZE`.
pub fn ns_of_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    ["zet", "zes", "zer", "ze"].into_iter().find(|ns| lower.starts_with(ns))
}

impl Api {
    pub fn new(loaded: Loaded) -> Api {
        let mut api = Api { loaded, index: BTreeMap::new(), values: BTreeMap::new(), layouts: BTreeMap::new() };
        for (fi, f) in api.loaded.files.iter().enumerate() {
            for (di, d) in f.docs.iter().enumerate() {
                let r = ItemRef { file: fi, doc: di };
                api.index.entry(d.entry.name().to_string()).or_insert(r);
                if let Entry::Flags(e) = &d.entry {
                    api.index.entry(flag_bits_name(&e.name)).or_insert(r);
                }
            }
        }
        api.compute_values();
        api.compute_layouts();
        api
    }

    pub fn doc(&self, r: ItemRef) -> &Doc {
        &self.loaded.files[r.file].docs[r.doc]
    }

    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.index.get(name).map(|r| &self.doc(*r).entry)
    }

    pub fn loc(&self, name: &str) -> Option<Loc> {
        self.index.get(name).map(|r| self.doc(*r).loc.clone())
    }

    /// Every document of namespace `ns` in header order.
    pub fn docs<'a>(&'a self, ns: &'a str) -> impl Iterator<Item = (ItemRef, &'a Doc)> + 'a {
        self.loaded.files.iter().enumerate().filter(move |(_, f)| f.ns == ns).flat_map(|(fi, f)| {
            f.docs.iter().enumerate().map(move |(di, d)| (ItemRef { file: fi, doc: di }, d))
        })
    }

    pub fn functions<'a>(&'a self, ns: &'a str) -> impl Iterator<Item = (ItemRef, &'a Function)> + 'a {
        self.docs(ns).filter_map(|(r, d)| match &d.entry {
            Entry::Function(f) => Some((r, f)),
            _ => None,
        })
    }

    pub fn function(&self, r: ItemRef) -> &Function {
        match &self.doc(r).entry {
            Entry::Function(f) => f,
            _ => panic!("not a function"),
        }
    }

    /// What a type name denotes, following nothing (typedefs stay typedefs).
    pub fn type_kind(&self, name: &str) -> Option<TypeKind> {
        if let Some(k) = scalar(name) {
            return Some(k);
        }
        let r = self.index.get(name)?;
        Some(match &self.doc(*r).entry {
            Entry::Handle(_) => TypeKind::Handle,
            Entry::Enum(_) => TypeKind::Enum,
            Entry::Flags(f) if f.name == name => TypeKind::Flags,
            Entry::Flags(_) => TypeKind::FlagBits,
            Entry::Struct(_) => TypeKind::Struct,
            Entry::Union(_) => TypeKind::Union,
            Entry::Typedef(_) => TypeKind::Typedef,
            Entry::Callback(_) => TypeKind::Callback,
            _ => return None,
        })
    }

    /// Follows typedefs to the underlying type name.
    pub fn resolve_typedef<'a>(&'a self, mut name: &'a str) -> &'a str {
        for _ in 0..16 {
            match self.entry(name) {
                Some(Entry::Typedef(t)) => name = t.ty.as_str(),
                _ => break,
            }
        }
        name
    }

    /// Members of a struct/union with its base's members first.
    pub fn all_members<'a>(&'a self, s: &'a Struct) -> Vec<&'a Field> {
        let mut out = vec![];
        if let Some(base) = &s.base {
            if let Some(Entry::Struct(b)) = self.entry(base) {
                if b.name != s.name {
                    out.extend(self.all_members(b));
                }
            }
        }
        // A struct that spells out its base members itself does not get them twice.
        for m in &s.members {
            if !out.iter().any(|o| o.name == m.name) {
                out.push(m);
            }
        }
        out
    }

    /// Evaluates a constant C expression: numbers, macros, enumerators, `ZE_BIT`, `ZE_MAKE_VERSION`.
    pub fn eval(&self, expr: &str) -> Option<i64> {
        let e = expr.trim();
        if let Some(v) = self.values.get(e) {
            return Some(*v);
        }
        let call = |p: &str| e.strip_prefix(p).and_then(|r| r.trim().strip_prefix('(')).and_then(|r| r.strip_suffix(')'));
        for ns in ["ZE", "ZET", "ZES", "ZER"] {
            if let Some(i) = call(&format!("{ns}_BIT")) {
                return Some(1i64 << self.eval(i)?);
            }
            if let Some(i) = call(&format!("{ns}_MAKE_VERSION")) {
                let (a, b) = i.split_once(',')?;
                return Some((self.eval(a)? << 16) | self.eval(b)?);
            }
        }
        let e = e.trim_start_matches('(').trim_end_matches(')');
        let digits = e.trim_end_matches(['u', 'U', 'l', 'L']);
        if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            return i64::from_str_radix(h, 16).ok();
        }
        if let Some(v) = self.values.get(e) {
            return Some(*v);
        }
        digits.parse().ok()
    }

    fn compute_values(&mut self) {
        // Macros may refer to each other; iterate to a fixed point.
        for _ in 0..4 {
            let mut new = vec![];
            for f in &self.loaded.files {
                for d in &f.docs {
                    match &d.entry {
                        Entry::Macro(m) if m.args.is_none() && m.condition.is_none() => {
                            if let Some(v) = self.eval(&m.value) {
                                new.push((m.name.clone(), v));
                            }
                        }
                        Entry::Enum(e) | Entry::Flags(e) => {
                            for et in &e.etors {
                                if let Some(v) = self.eval(&et.value) {
                                    new.push((et.name.clone(), v));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            self.values.extend(new);
        }
    }

    /// Size and alignment of a type (as used by value in a struct).
    pub fn size_align(&self, ty: &CType) -> Option<(u64, u64)> {
        if ty.is_pointer() {
            return Some((8, 8));
        }
        let name = self.resolve_typedef(&ty.base);
        if let Some(TypeKind::Scalar { size, .. }) = scalar(name) {
            return Some((size, size));
        }
        match self.type_kind(name)? {
            TypeKind::Handle | TypeKind::Callback => Some((8, 8)),
            TypeKind::Enum | TypeKind::Flags | TypeKind::FlagBits => Some((4, 4)),
            TypeKind::Struct | TypeKind::Union => self.layouts.get(name).map(|l| (l.size, l.align)),
            _ => None,
        }
    }

    fn compute_layouts(&mut self) {
        // Structs may contain structs declared later; iterate until nothing changes.
        loop {
            let mut progress = false;
            for f in &self.loaded.files {
                for d in &f.docs {
                    let (s, is_union) = match &d.entry {
                        Entry::Struct(s) => (s, false),
                        Entry::Union(s) => (s, true),
                        _ => continue,
                    };
                    if self.layouts.contains_key(&s.name) {
                        continue;
                    }
                    if let Some(l) = self.layout_of(s, is_union) {
                        self.layouts.insert(s.name.clone(), l);
                        progress = true;
                    }
                }
            }
            if !progress {
                break;
            }
        }
    }

    fn layout_of(&self, s: &Struct, is_union: bool) -> Option<Layout> {
        let mut off = 0u64;
        let mut align = 1u64;
        let mut size = 0u64;
        let mut members = vec![];
        for m in self.all_members(s) {
            let (msize, malign) = self.size_align(&CType::parse(&m.ty))?;
            let count = match &m.array {
                Some(a) => self.eval(a)? as u64,
                None => 1,
            };
            let total = msize * count;
            align = align.max(malign);
            if is_union {
                members.push((m.name.clone(), 0, total));
                size = size.max(total);
            } else {
                off = off.div_ceil(malign) * malign;
                members.push((m.name.clone(), off, total));
                off += total;
                size = off;
            }
        }
        let size = size.div_ceil(align) * align;
        Some(Layout { size, align, members })
    }

    /// DDI tables of namespace `ns`, in the official order.
    ///
    /// Classes are ordered by their `ordinal`. Within a class, non-experimental and
    /// experimental (`*Exp`) functions form two tables, each sorted by version (so newer
    /// entries are appended), then `ordinal` (100 when absent), stable over spec order.
    /// Tests pin the result against the official headers.
    pub fn ddi_tables(&self, ns: &str) -> Vec<DdiTable> {
        let mut classes: Vec<(&Class, ItemRef)> = self
            .docs(ns)
            .filter_map(|(r, d)| match &d.entry {
                Entry::Class(c) => Some((c, r)),
                _ => None,
            })
            .collect();
        classes.sort_by_key(|(c, r)| (c.ordinal, r.file, r.doc));
        let mut tables = vec![];
        for (class, _) in classes {
            let mut plain = vec![];
            let mut exp = vec![];
            for (r, f) in self.functions(ns) {
                if f.class == class.name {
                    if is_experimental(&f.name) {
                        exp.push(r);
                    } else {
                        plain.push(r);
                    }
                }
            }
            for (funcs, suffix) in [(plain, ""), (exp, "Exp")] {
                if funcs.is_empty() {
                    continue;
                }
                let mut funcs = funcs;
                funcs.sort_by_key(|r| self.ddi_key(self.function(*r)));
                let stripped = class.name.strip_prefix(ns).unwrap_or(&class.name);
                let base = if stripped.is_empty() { "Global".to_string() } else { stripped.to_string() };
                let name = format!("{base}{suffix}");
                tables.push(DdiTable {
                    type_name: format!("{ns}_{}_dditable_t", camel_to_snake(&name)),
                    getter: format!("{ns}Get{name}ProcAddrTable"),
                    getter_pfn: format!("{ns}_pfnGet{name}ProcAddrTable_t"),
                    name,
                    functions: funcs,
                });
            }
        }
        tables
    }

    /// The newest 1.x API version any entry declares (the headers' `@version`,
    /// `ZEKIT_SPEC_VERSION`).
    pub fn spec_version(&self) -> Version {
        self.loaded
            .files
            .iter()
            .flat_map(|f| f.docs.iter())
            .map(|d| Version::of(d.entry.since()))
            .filter(|v| v.0 == 1)
            .fold(Version::V1_0, Version::max)
    }

    /// The legacy tracing callback tables, in DDI order (sort by `slot` for `ze_callbacks_t`).
    pub fn tracing_tables(&self) -> Vec<TracingTable> {
        let mut tables = vec![];
        for t in self.ddi_tables("ze") {
            let class = self.function(t.functions[0]).class.clone();
            let Some(Entry::Class(c)) = self.entry(&class) else { continue };
            let Some(slot) = c.tracing else { continue };
            if t.name.ends_with("Exp") {
                continue;
            }
            let functions = t
                .functions
                .iter()
                .map(|r| self.function(*r))
                .filter(|f| Version::of(f.since.as_deref()) == Version::V1_0)
                .map(|f| {
                    let short = strip_ns(&f.name, "ze");
                    (
                        f.name.clone(),
                        format!("ze_{}_params_t", camel_to_snake(short)),
                        format!("ze_pfn{short}Cb_t"),
                        format!("pfn{}Cb", strip_ns(short, strip_ns(&class, "ze"))),
                    )
                })
                .collect();
            tables.push(TracingTable {
                type_name: format!("ze_{}_callbacks_t", camel_to_snake(&t.name)),
                name: t.name,
                functions,
                slot,
            });
        }
        tables
    }

    fn ddi_key(&self, f: &Function) -> (Version, u32) {
        (Version::of(f.since.as_deref()), f.ordinal.unwrap_or(100))
    }
}

/// `ze_device_property_flags_t` → `ze_device_property_flag_t`.
pub fn flag_bits_name(flags: &str) -> String {
    match flags.strip_suffix("flags_t") {
        Some(p) => format!("{p}flag_t"),
        None => flags.to_string(),
    }
}

/// `zeDeviceGet` → `DeviceGet` for namespace `ze` (the part after the namespace).
pub fn strip_ns<'a>(name: &'a str, ns: &str) -> &'a str {
    name.strip_prefix(ns).unwrap_or(name)
}

/// `zeDeviceGet` → `ze_pfnDeviceGet_t`.
pub fn pfn_name(ns: &str, func: &str) -> String {
    format!("{ns}_pfn{}_t", strip_ns(func, ns))
}

/// Namespace of a function (its name's prefix).
pub fn func_ns(name: &str) -> &'static str {
    ns_of_name(name).unwrap_or("ze")
}

/// `ze_base_desc_t` → `desc`: the family of a base struct's name (`desc`, `properties`, `state`,
/// `config`, `capability`, `cb_params`).
pub fn family_of_base(name: &str) -> Option<String> {
    let rest = ["ze_", "zet_", "zes_", "zer_"].iter().find_map(|p| name.strip_prefix(p))?;
    Some(rest.strip_prefix("base_")?.strip_suffix("_t")?.to_string())
}

/// One `pNext` chain head: a struct with a `pNext` member, or a function with a `pNext` parameter.
#[derive(Debug, Clone)]
pub struct ChainHead {
    /// The struct or function name.
    pub name: String,
    /// Whether it is a function (its `pNext` parameter heads the chain).
    pub function: bool,
    /// The structure type enum its links are read in (`ze_structure_type_t`, `zes_...`).
    pub stype_enum: String,
    /// `desc`, `properties`, ... (a function's chain is a descriptor chain).
    pub family: Option<String>,
    /// Whether the chain's structs are outputs the driver fills: the head's `pNext` is `void*`,
    /// or some function takes the head as a non-const `[out]`/`[in,out]` pointer (the state
    /// structs of sysman chain outputs through a `const void*`).
    pub output: bool,
    /// Whether the head's `pNext` is `const void*`.
    pub next_const: bool,
    /// The structs the spec lets into this chain: what names the head in `extends`, and what
    /// extends those, in spec order.
    pub extensions: Vec<String>,
}

/// The `pNext` chains the spec describes, computed from every struct's `extends`.
#[derive(Debug, Clone, Default)]
pub struct Chains {
    /// Every head, structs first, in spec order.
    pub heads: Vec<ChainHead>,
    /// Extension structs whose place the spec does not state: a structure type and a `pNext`,
    /// a base, no `extends`, and never the type of a parameter or member (only a chain reaches
    /// them). Name → (structure type enum, family).
    pub unplaced: BTreeMap<String, (String, Option<String>)>,
}

impl Chains {
    pub fn head(&self, name: &str) -> Option<&ChainHead> {
        self.heads.iter().find(|h| h.name == name)
    }

    /// The unplaced extensions a chain of `head` tolerates: same structure type enum, same family.
    pub fn unplaced_for<'a>(&'a self, head: &'a ChainHead) -> impl Iterator<Item = &'a str> + 'a {
        self.unplaced
            .iter()
            .filter(move |(n, (en, fam))| *en == head.stype_enum && *fam == head.family && !head.extensions.contains(n))
            .map(|(n, _)| n.as_str())
    }
}

impl Api {
    /// Every struct (not union) of the spec, in spec order.
    pub fn structs(&self) -> impl Iterator<Item = &Struct> + '_ {
        self.loaded.files.iter().flat_map(|f| &f.docs).filter_map(|d| match &d.entry {
            Entry::Struct(s) => Some(s),
            _ => None,
        })
    }

    /// The resolved type of a struct's `stype` member, when it has one.
    pub fn stype_enum_of(&self, s: &Struct) -> Option<String> {
        let m = self.all_members(s).into_iter().find(|m| m.name == "stype")?;
        Some(self.resolve_typedef(&CType::parse(&m.ty).base).to_string())
    }

    /// Whether a struct can be a chain link: a structure type and a `pNext` member.
    pub fn is_chainable(&self, s: &Struct) -> bool {
        !s.stype.is_empty() && self.all_members(s).iter().any(|m| m.name == "pNext")
    }

    /// The `pNext` chains of the spec: every head (a struct with `pNext`; a function with a
    /// `pNext` parameter) with the extensions its chain may hold, and the unplaced extensions.
    pub fn chains(&self) -> Chains {
        // Direct: head → structs naming it.
        let mut direct: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for s in self.structs() {
            for h in &s.extends {
                direct.entry(h.as_str()).or_default().push(s.name.as_str());
            }
        }
        let order: Vec<&str> = self.structs().map(|s| s.name.as_str()).collect();
        let closure = |head: &str| -> Vec<String> {
            let mut seen: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
            let mut todo = vec![head];
            while let Some(h) = todo.pop() {
                for x in direct.get(h).into_iter().flatten() {
                    if seen.insert(x) {
                        todo.push(x);
                    }
                }
            }
            order.iter().filter(|n| seen.contains(*n)).map(|n| n.to_string()).collect()
        };
        let mut used: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        let mut filled: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for f in &self.loaded.files {
            for d in &f.docs {
                let Entry::Function(func) = &d.entry else { continue };
                for p in &func.params {
                    let t = CType::parse(&p.ty);
                    if t.ptrs.len() == 1 && !t.konst && matches!(p.dir, Some(Dir::Out | Dir::Inout)) {
                        filled.insert(self.resolve_typedef(&t.base).to_string());
                    }
                }
            }
        }
        let mut chains = Chains::default();
        for f in &self.loaded.files {
            for d in &f.docs {
                let fields: Vec<&Field> = match &d.entry {
                    Entry::Function(x) => x.params.iter().collect(),
                    Entry::Callback(x) => x.params.iter().collect(),
                    Entry::Struct(x) | Entry::Union(x) => x.members.iter().collect(),
                    _ => continue,
                };
                used.extend(fields.iter().map(|m| self.resolve_typedef(&CType::parse(&m.ty).base).to_string()));
            }
        }
        for s in self.structs() {
            let members = self.all_members(s);
            let Some(next) = members.iter().find(|m| m.name == "pNext") else { continue };
            let Some(stype_enum) = self.stype_enum_of(s) else { continue };
            let family = s.base.as_deref().and_then(family_of_base).or_else(|| family_of_base(&s.name));
            if s.extends.is_empty() && !s.stype.is_empty() && s.base.is_some() && !used.contains(&s.name) {
                chains.unplaced.insert(s.name.clone(), (stype_enum.clone(), family.clone()));
            }
            let next_const = CType::parse(&next.ty).konst;
            chains.heads.push(ChainHead {
                name: s.name.clone(),
                function: false,
                stype_enum,
                family,
                output: !next_const || filled.contains(&s.name),
                next_const,
                extensions: closure(&s.name),
            });
        }
        for f in &self.loaded.files {
            for d in &f.docs {
                let Entry::Function(func) = &d.entry else { continue };
                let Some(p) = func.params.iter().find(|p| p.name == "pNext") else { continue };
                let ns = func_ns(&func.name);
                let en = format!("{ns}_structure_type_t");
                let stype_enum = if self.index.contains_key(&en) { en } else { "ze_structure_type_t".to_string() };
                chains.heads.push(ChainHead {
                    name: func.name.clone(),
                    function: true,
                    stype_enum,
                    family: Some("desc".into()),
                    output: !CType::parse(&p.ty).konst && p.dir != Some(Dir::In),
                    next_const: CType::parse(&p.ty).konst,
                    extensions: closure(&func.name),
                });
            }
        }
        chains
    }
}
