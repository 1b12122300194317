//! `cargo xtask lint` (also run by `cargo xtask gen`): checks of the spec beyond what its schema
//! enforces. Each diagnostic names a rule and the `file:line` of the entry, member, parameter,
//! enumerator or condition at fault.
//!
//! Rules:
//! - `dangling-type`: a type (member, parameter, typedef, callback return, handle alias, struct
//!   base) whose base name is neither a C scalar nor declared in the spec (nor declared by the
//!   generator from the spec: `ze_callbacks_t`, DDI tables, `*_pfn*_t`).
//! - `duplicate-name`: a name declared twice, across files and kinds (enumerators included), or a
//!   member/parameter name repeated within one struct/function. Alternative definitions of one
//!   macro under different `condition`s are one name.
//! - `duplicate-value`: two enumerators of one enum with the same value (flags: the same bit),
//!   except the aliases listed at `alias_reason`.
//! - `in-after-out`: a `dir: in` parameter after a `dir: out` one.
//! - `version-backwards`: a member, parameter or enumerator older than its parent, or a struct
//!   member / function parameter older than one before it (they are appended in version order).
//!   An absent `since` on a member, parameter or enumerator means its parent's.
//! - `missing-base`: a `*_desc_t` / `*_properties_t` struct whose `base` chain does not reach
//!   a `*base_desc_t` / `*base_properties_t` (see `Ctx::missing_base` for the one exemption).
//! - `first-param-handle`: a non-static function whose first parameter is not a handle (functions
//!   of a namespace's global class, `class: zer`, are free functions and exempt).
//! - `bad-condition`: a `returns[].when` that does not parse (codegen/src/expr.rs) or names
//!   something that is neither a parameter, an enumerator, nor a macro.
//! - `bad-range`: a `range` bound (or `count`) that does not parse or names an unknown parameter.
//! - `bad-version`: a `since` that is not `major.minor`.
//! - `bad-extends`: an `extends` name that is neither a struct with a `pNext` member nor a
//!   function with a `pNext` parameter, or a struct listing `extends` without a structure type
//!   (`stype`) or a `pNext` member of its own.
//!
//! [`undocumented`] checks one more rule, `missing-doc`, kept apart so that the fixtures of the
//! rules above need no descriptions: every entry, member, parameter and enumerator of the spec
//! has a `doc:` (the descriptions feed the C headers and the rustdoc of the Rust crates).

use std::collections::{HashMap, HashSet};

use crate::expr;
use crate::load::{Diag, Doc, Loc, NAMESPACES};
use crate::model::{flag_bits_name, func_ns, pfn_name, Api, CType, TypeKind, Version};
use crate::spec::*;

/// Lints the whole spec; the diagnostics come sorted by location.
pub fn lint(api: &Api) -> Vec<Diag> {
    let cx = Ctx::new(api);
    let mut out = vec![];
    for f in &api.loaded.files {
        for d in &f.docs {
            cx.doc(d, &mut out);
        }
    }
    cx.duplicate_names(&mut out);
    out.sort();
    out.dedup();
    out
}

/// `missing-doc`: every entry (file headers included), member, parameter and enumerator
/// without a non-blank `doc:`; sorted by location.
pub fn undocumented(api: &Api) -> Vec<Diag> {
    let blank = |d: Option<&str>| d.is_none_or(|t| t.trim().is_empty());
    let mut out = vec![];
    for f in &api.loaded.files {
        if blank(f.header.doc.as_deref()) {
            let file = format!("{}/{}.yml", f.ns, f.stem);
            out.push(diag(Loc { file, line: 1 }, "missing-doc", format!("file `{}` has no description", f.header.title)));
        }
        for d in &f.docs {
            let l = Lines::new(d);
            let e = &d.entry;
            if blank(e.doc()) {
                out.push(diag(l.entry(), "missing-doc", format!("{} `{}` has no description", e.kind(), e.name())));
            }
            let (list, what, fields): (&str, &str, &[Field]) = match e {
                Entry::Struct(s) | Entry::Union(s) => ("members", "member", &s.members),
                Entry::DefaultStruct(s) => ("members", "member", &s.members),
                Entry::Function(x) => ("params", "parameter", &x.params),
                Entry::Callback(x) => ("params", "parameter", &x.params),
                _ => ("", "", &[]),
            };
            for x in fields.iter().filter(|x| blank(x.doc.as_deref())) {
                out.push(diag(
                    l.item(list, &x.name),
                    "missing-doc",
                    format!("{what} `{}` of `{}` has no description", x.name, e.name()),
                ));
            }
            if let Entry::Enum(en) | Entry::Flags(en) = e {
                for x in en.etors.iter().filter(|x| blank(x.doc.as_deref())) {
                    out.push(diag(
                        l.item("etors", &x.name),
                        "missing-doc",
                        format!("enumerator `{}` of `{}` has no description", x.name, en.name),
                    ));
                }
            }
        }
    }
    out.sort();
    out
}

/// `since` is `major.minor`: digits, a dot, digits.
pub fn is_version(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    s.split_once('.').is_some_and(|(a, b)| digits(a) && digits(b))
}

/// The version of a child item: its own `since`, else its parent's.
fn child_version(since: Option<&str>, parent: Version) -> Version {
    since.and_then(Version::parse).unwrap_or(parent)
}

/// `ze_cache_ext_region_t` → `ZE_CACHE_EXT_REGION_`; flags use their bit enum's name.
fn etor_prefix(enum_name: &str, flags: bool) -> String {
    let n = if flags { flag_bits_name(enum_name) } else { enum_name.to_string() };
    format!("{}_", n.strip_suffix("_t").unwrap_or(&n).to_uppercase())
}

fn diag(loc: Loc, rule: &'static str, msg: String) -> Diag {
    Diag { loc, rule, msg }
}

// ---------------------------------------------------------------------------------------------
// Locations inside a document

/// Finds the lines of keys and list items inside one document.
struct Lines<'a> {
    doc: &'a Doc,
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    fn new(doc: &'a Doc) -> Self {
        Lines { doc, lines: doc.text.lines().collect() }
    }

    fn at(&self, off: usize) -> Loc {
        Loc { file: self.doc.loc.file.clone(), line: self.doc.loc.line + off }
    }

    /// Offset of the top-level `key:` line.
    fn key(&self, key: &str) -> Option<usize> {
        let k = format!("{key}:");
        self.lines.iter().position(|l| l.starts_with(&k))
    }

    /// The entry's `name:` line (the document's first line when not found).
    fn entry(&self) -> Loc {
        match self.key("name") {
            Some(off) => self.at(off),
            None => self.doc.loc_of("name:"),
        }
    }

    /// The top-level `key:` line, else the entry's name line.
    fn entry_key(&self, key: &str) -> Loc {
        self.key(key).map(|o| self.at(o)).unwrap_or_else(|| self.entry())
    }

    /// Offsets of the `- name: <name>` items of the top-level list `list:`.
    fn item_offs(&self, list: &str, name: &str) -> Vec<usize> {
        let Some(start) = self.key(list) else { return vec![] };
        let unquote = |v: &str| v.trim().trim_matches(|c| c == '\'' || c == '"').to_string();
        (start + 1..self.lines.len())
            .filter(|&i| {
                let t = self.lines[i].trim_start();
                t.strip_prefix("- ")
                    .map(str::trim_start)
                    .and_then(|t| t.strip_prefix("name:"))
                    .is_some_and(|v| unquote(v) == name)
            })
            .collect()
    }

    /// Offset of the first `- name: <name>` item of the top-level list `list:`.
    fn item_off(&self, list: &str, name: &str) -> Option<usize> {
        self.item_offs(list, name).first().copied()
    }

    /// The line of item `name` of list `list` (found with [`Doc::loc_of`] as a fallback).
    fn item(&self, list: &str, name: &str) -> Loc {
        match self.item_off(list, name) {
            Some(o) => self.at(o),
            None => self.doc.loc_of(&format!("name: {name}")),
        }
    }

    /// The first line of item `name` containing `needle`, else the item's line.
    fn in_item(&self, list: &str, name: &str, needle: &str) -> Loc {
        let Some(start) = self.item_off(list, name) else { return self.item(list, name) };
        let indent = self.lines[start].len() - self.lines[start].trim_start().len();
        for i in start + 1..self.lines.len() {
            let l = self.lines[i];
            let ind = l.len() - l.trim_start().len();
            let new_item = ind == indent && l.trim_start().starts_with("- ");
            if new_item || (ind == 0 && !l.starts_with("- ")) {
                break;
            }
            if l.contains(needle) {
                return self.at(i);
            }
        }
        self.at(start)
    }

    /// The first line after the top-level `key:` containing `needle`.
    fn after_key(&self, key: &str, needle: &str) -> Loc {
        let start = self.key(key).unwrap_or(0);
        match (start..self.lines.len()).find(|&i| self.lines[i].contains(needle)) {
            Some(o) => self.at(o),
            None => self.entry_key(key),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Context

struct Ctx<'a> {
    api: &'a Api,
    /// Names the generator declares from the spec (`ze_callbacks_t`, DDI tables, pfn types).
    generated: HashSet<String>,
    /// Enumerator and macro names: constants a condition or bound may use.
    constants: HashSet<&'a str>,
    /// Function-like macros (callable in conditions besides `sizeof`).
    macro_fns: HashSet<&'a str>,
    /// `stype` lists of structs naming more than one structure type.
    stype_lists: Vec<&'a [String]>,
    /// Struct name → functions taking it as a parameter.
    takers: HashMap<String, Vec<&'a Function>>,
    /// Type name → every member or parameter of that base type (is_param, field).
    uses: HashMap<String, Vec<(bool, &'a Field)>>,
}

/// What owns a list of fields.
struct Owner<'a> {
    /// `struct`, `function`, ...
    kind: &'static str,
    name: &'a str,
    /// `members` or `params` (the YAML list key).
    list: &'static str,
    since: Version,
    /// Whether later fields must not be older than earlier ones (struct layout, call signature).
    ordered: bool,
}

impl Owner<'_> {
    fn what(&self) -> &'static str {
        if self.list == "params" {
            "parameter"
        } else {
            "member"
        }
    }
}

impl<'a> Ctx<'a> {
    fn new(api: &'a Api) -> Self {
        let mut cx = Ctx {
            api,
            generated: HashSet::new(),
            constants: HashSet::new(),
            macro_fns: HashSet::new(),
            stype_lists: vec![],
            takers: HashMap::new(),
            uses: HashMap::new(),
        };
        for ns in NAMESPACES {
            for t in api.ddi_tables(ns) {
                cx.generated.insert(t.type_name.clone());
                cx.generated.insert(t.getter_pfn.clone());
            }
        }
        for f in &api.loaded.files {
            for d in &f.docs {
                match &d.entry {
                    Entry::Class(c) if c.tracing.is_some() => {
                        cx.generated.insert(format!("{}_callbacks_t", func_ns(&c.name)));
                    }
                    Entry::Macro(m) => {
                        cx.constants.insert(&m.name);
                        if m.args.is_some() {
                            cx.macro_fns.insert(&m.name);
                        }
                    }
                    Entry::Enum(e) | Entry::Flags(e) => cx.constants.extend(e.etors.iter().map(|x| x.name.as_str())),
                    Entry::Struct(s) | Entry::Union(s) => {
                        if s.stype.len() > 1 {
                            cx.stype_lists.push(&s.stype);
                        }
                        for m in &s.members {
                            cx.uses.entry(CType::parse(&m.ty).base).or_default().push((false, m));
                        }
                    }
                    Entry::Function(func) => {
                        cx.generated.insert(pfn_name(func_ns(&func.name), &func.name));
                        for p in &func.params {
                            let base = CType::parse(&p.ty).base;
                            let takers = cx.takers.entry(base.clone()).or_default();
                            if !takers.iter().any(|t| t.name == func.name) {
                                takers.push(func);
                            }
                            cx.uses.entry(base).or_default().push((true, p));
                        }
                    }
                    Entry::Callback(cb) => {
                        for p in &cb.params {
                            cx.uses.entry(CType::parse(&p.ty).base).or_default().push((true, p));
                        }
                    }
                    _ => {}
                }
            }
        }
        cx
    }

    fn doc(&self, d: &Doc, out: &mut Vec<Diag>) {
        let l = Lines::new(d);
        let e = &d.entry;
        // bad-version of the entry itself (`Entry::since` leaves out `env`).
        let since = match e {
            Entry::Env(x) => x.since.as_deref(),
            _ => e.since(),
        };
        if let Some(s) = since {
            if !is_version(s) {
                out.push(diag(
                    l.entry_key("since"),
                    "bad-version",
                    format!("since `{s}` of {} `{}` is not `major.minor`", e.kind(), e.name()),
                ));
            }
        }
        let v = Version::of(since);
        match e {
            Entry::Typedef(t) => {
                if let Some(why) = self.undeclared(&t.ty) {
                    out.push(diag(
                        l.entry_key("type"),
                        "dangling-type",
                        format!("typedef `{}` names `{}`: {why}", t.name, t.ty),
                    ));
                }
            }
            Entry::Handle(h) => {
                if let Some(a) = &h.alias {
                    if self.api.type_kind(a) != Some(TypeKind::Handle) {
                        out.push(diag(
                            l.entry_key("alias"),
                            "dangling-type",
                            format!(
                                "handle `{}` is an alias of `{a}`, which is not a handle declared in the spec",
                                h.name
                            ),
                        ));
                    }
                }
            }
            Entry::Enum(en) | Entry::Flags(en) => self.etors(&l, en, matches!(e, Entry::Flags(_)), v, out),
            Entry::Struct(s) | Entry::Union(s) => {
                if let Some(b) = &s.base {
                    if !matches!(self.api.type_kind(b), Some(TypeKind::Struct | TypeKind::Union)) {
                        out.push(diag(
                            l.entry_key("base"),
                            "dangling-type",
                            format!(
                                "{} `{}` has base `{b}`, which is not a struct declared in the spec",
                                e.kind(),
                                s.name
                            ),
                        ));
                    }
                }
                if let Some(msg) = self.missing_base(s) {
                    out.push(diag(l.entry(), "missing-base", msg));
                }
                let owner = Owner { kind: e.kind(), name: &s.name, list: "members", since: v, ordered: true };
                self.fields(&l, &owner, &s.members, out);
                self.extends(&l, e.kind(), s, out);
            }
            Entry::DefaultStruct(s) => {
                if !matches!(self.api.type_kind(&s.base), Some(TypeKind::Struct | TypeKind::Union)) {
                    out.push(diag(
                        l.entry_key("base"),
                        "dangling-type",
                        format!(
                            "default_struct `{}` initialises `{}`, which is not a struct declared in the spec",
                            s.name, s.base
                        ),
                    ));
                }
                let owner = Owner { kind: "default_struct", name: &s.name, list: "members", since: v, ordered: false };
                self.fields(&l, &owner, &s.members, out);
            }
            Entry::Function(f) => {
                let owner = Owner { kind: "function", name: &f.name, list: "params", since: v, ordered: true };
                self.fields(&l, &owner, &f.params, out);
                self.in_after_out(&l, &f.name, &f.params, out);
                self.first_param(&l, f, out);
                self.conditions(&l, f, out);
            }
            Entry::Callback(cb) => {
                if let Some(why) = self.undeclared(&cb.ret) {
                    out.push(diag(
                        l.entry_key("returns"),
                        "dangling-type",
                        format!("callback `{}` returns `{}`: {why}", cb.name, cb.ret),
                    ));
                }
                let owner = Owner { kind: "callback", name: &cb.name, list: "params", since: v, ordered: true };
                self.fields(&l, &owner, &cb.params, out);
                self.in_after_out(&l, &cb.name, &cb.params, out);
            }
            Entry::File(_) | Entry::Macro(_) | Entry::Class(_) | Entry::Env(_) => {}
        }
    }

    /// Why type `ty` is dangling, or None when its base is a scalar or a declared type.
    fn undeclared(&self, ty: &str) -> Option<String> {
        let base = CType::parse(ty).base;
        if self.api.type_kind(&base).is_some() || self.generated.contains(&base) {
            return None;
        }
        Some(match self.api.entry(&base) {
            Some(other) => format!("`{base}` is a {}, not a type", other.kind()),
            None => format!("`{base}` is neither a scalar nor declared in the spec"),
        })
    }

    /// Members or parameters: versions, types, ranges, repeated names.
    fn fields(&self, l: &Lines, o: &Owner, fields: &[Field], out: &mut Vec<Diag>) {
        let what = o.what();
        let mut newest: Option<(&str, Version)> = None;
        for (i, f) in fields.iter().enumerate() {
            let at = || l.item(o.list, &f.name);
            let earlier = fields[..i].iter().filter(|g| g.name == f.name).count();
            if earlier > 0 {
                let offs = l.item_offs(o.list, &f.name);
                let first_at = l.item(o.list, &f.name);
                let dup = offs.get(earlier).map(|&o| l.at(o)).unwrap_or_else(at);
                out.push(diag(
                    dup,
                    "duplicate-name",
                    format!("{what} `{}` of `{}` appears twice (first at {first_at})", f.name, o.name),
                ));
            }
            if let Some(why) = self.undeclared(&f.ty) {
                out.push(diag(
                    at(),
                    "dangling-type",
                    format!("{what} `{}` of `{}` has type `{}`: {why}", f.name, o.name, f.ty),
                ));
            }
            let mut v = o.since;
            match &f.since {
                Some(s) if !is_version(s) => out.push(diag(
                    at(),
                    "bad-version",
                    format!("since `{s}` of {what} `{}` of `{}` is not `major.minor`", f.name, o.name),
                )),
                s => v = child_version(s.as_deref(), o.since),
            }
            if v < o.since {
                out.push(diag(
                    at(),
                    "version-backwards",
                    format!(
                        "{what} `{}` (since {v}) is older than its {} `{}` (since {})",
                        f.name, o.kind, o.name, o.since
                    ),
                ));
            } else if let Some((prev, pv)) = newest.filter(|(_, pv)| o.ordered && v < *pv) {
                out.push(diag(
                    at(),
                    "version-backwards",
                    format!(
                        "{what} `{}` of `{}` (since {v}) follows `{prev}` (since {pv}): {what}s are appended in version order",
                        f.name, o.name
                    ),
                ));
            }
            if !matches!(newest, Some((_, pv)) if v <= pv) {
                newest = Some((&f.name, v));
            }
            self.range(l, o, fields, f, out);
        }
    }

    /// `range` bounds and `count` of field `f`.
    fn range(&self, l: &Lines, o: &Owner, fields: &[Field], f: &Field, out: &mut Vec<Diag>) {
        let bounds = f.range.iter().flat_map(|(a, b)| [("range bound", a), ("range bound", b)]);
        for (label, text) in bounds.chain(f.count.iter().map(|c| ("count", c))) {
            // Upstream quotes some bounds as Markdown code (`` `numGeometries` ``).
            let bound = text.trim();
            let bound = bound.strip_prefix('`').and_then(|b| b.strip_suffix('`')).unwrap_or(bound);
            if bound.starts_with(|c: char| c.is_ascii_digit()) && bound.parse::<f64>().is_ok() {
                continue; // a plain number, floating point included (`0.0`, `1.0`)
            }
            let at = || l.in_item(o.list, &f.name, text);
            let e = match expr::parse(bound) {
                Ok(e) => e,
                Err(err) => {
                    out.push(diag(
                        at(),
                        "bad-range",
                        format!("{label} `{text}` of `{}` in `{}` does not parse: {err}", f.name, o.name),
                    ));
                    continue;
                }
            };
            for id in e.idents() {
                if fields.iter().any(|g| g.name == id) || self.constants.contains(id) {
                    continue;
                }
                // A struct filled by a function may count its elements with that function's parameter.
                let takers = self.takers.get(o.name).map(Vec::as_slice).unwrap_or(&[]);
                if o.list == "members" && takers.iter().any(|t| t.params.iter().any(|p| p.name == id)) {
                    continue;
                }
                let known = if o.list == "params" {
                    format!("a parameter of `{}`", o.name)
                } else {
                    format!("a member of `{}` or a parameter of a function taking it", o.name)
                };
                out.push(diag(
                    at(),
                    "bad-range",
                    format!("{label} `{text}` of `{}` references `{id}`, which is not {known}", f.name),
                ));
            }
            for c in e.calls() {
                if c != "sizeof" && !self.macro_fns.contains(c) {
                    out.push(diag(
                        at(),
                        "bad-range",
                        format!(
                            "{label} `{text}` of `{}` calls `{c}`, which is neither `sizeof` nor a function-like macro",
                            f.name
                        ),
                    ));
                }
            }
        }
    }

    /// `extends`: every name a chain head; the struct itself a possible chain link.
    fn extends(&self, l: &Lines, kind: &str, s: &Struct, out: &mut Vec<Diag>) {
        if s.extends.is_empty() {
            return;
        }
        let name = &s.name;
        let has_next = |st: &Struct| self.api.all_members(st).iter().any(|m| m.name == "pNext");
        if s.stype.is_empty() {
            out.push(diag(
                l.entry_key("extends"),
                "bad-extends",
                format!("{kind} `{name}` lists `extends` but has no structure type (`stype`) to be recognised in a chain by"),
            ));
        }
        if !has_next(s) {
            out.push(diag(
                l.entry_key("extends"),
                "bad-extends",
                format!("{kind} `{name}` lists `extends` but has no `pNext` member to continue a chain with"),
            ));
        }
        for h in &s.extends {
            let at = || l.after_key("extends", h);
            let why = match self.api.entry(h) {
                Some(Entry::Struct(t)) | Some(Entry::Union(t)) => {
                    (!has_next(t)).then(|| format!("`{h}` has no `pNext` member"))
                }
                Some(Entry::Function(f)) => (!f.params.iter().any(|p| p.name == "pNext"))
                    .then(|| format!("function `{h}` has no `pNext` parameter")),
                Some(other) => Some(format!("`{h}` is a {}, not a struct or function", other.kind())),
                None => Some(format!("`{h}` is neither a struct nor a function declared in the spec")),
            };
            if let Some(why) = why {
                out.push(diag(at(), "bad-extends", format!("{kind} `{name}` extends `{h}`: {why}")));
            }
        }
    }

    fn in_after_out(&self, l: &Lines, owner: &str, params: &[Field], out: &mut Vec<Diag>) {
        let mut last_out: Option<&str> = None;
        for p in params {
            match p.dir {
                Some(Dir::Out) => last_out = Some(&p.name),
                Some(Dir::In) => {
                    if let Some(o) = last_out {
                        out.push(diag(
                            l.item("params", &p.name),
                            "in-after-out",
                            format!(
                                "parameter `{}` of `{owner}` is `dir: in` but follows the `dir: out` parameter `{o}`",
                                p.name
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
    }

    fn first_param(&self, l: &Lines, f: &Function, out: &mut Vec<Diag>) {
        // Static functions take no object; neither do those of a namespace's global class (`zer`).
        if f.is_static || f.class == func_ns(&f.name) {
            return;
        }
        match f.params.first() {
            None => out.push(diag(
                l.entry(),
                "first-param-handle",
                format!("non-static function `{}` has no parameters; its first must be a handle", f.name),
            )),
            Some(p) => {
                let t = CType::parse(&p.ty);
                if t.is_pointer() || self.api.type_kind(&t.base) != Some(TypeKind::Handle) {
                    out.push(diag(
                        l.item("params", &p.name),
                        "first-param-handle",
                        format!(
                            "non-static function `{}` must take a handle first, but its first parameter `{}` has type `{}`",
                            f.name, p.name, p.ty
                        ),
                    ));
                }
            }
        }
    }

    fn conditions(&self, l: &Lines, f: &Function, out: &mut Vec<Diag>) {
        for r in &f.returns {
            for w in &r.when {
                let at = || l.after_key("returns", w);
                let e = match expr::parse(w) {
                    Ok(e) => e,
                    Err(err) => {
                        out.push(diag(
                            at(),
                            "bad-condition",
                            format!("condition `{w}` of `{}` in `{}` does not parse: {err}", r.code, f.name),
                        ));
                        continue;
                    }
                };
                for id in e.idents() {
                    if f.params.iter().any(|p| p.name == id) || self.constants.contains(id) {
                        continue;
                    }
                    out.push(diag(
                        at(),
                        "bad-condition",
                        format!(
                            "condition `{w}` of `{}` references `{id}`, which is neither a parameter of `{}` nor an enumerator or macro",
                            r.code, f.name
                        ),
                    ));
                }
                for c in e.calls() {
                    if c != "sizeof" && !self.macro_fns.contains(c) {
                        out.push(diag(
                            at(),
                            "bad-condition",
                            format!("condition `{w}` of `{}` calls `{c}`, which is neither `sizeof` nor a function-like macro", r.code),
                        ));
                    }
                }
            }
        }
    }

    /// Whether a `*_desc_t` / `*_properties_t` struct lacks its base; the message when it does.
    ///
    /// The base may be reached through other structs (a desc based on another desc). Exempt:
    /// the base structs themselves, and a struct with neither `base` nor `stype` that is only
    /// ever used as the element type of a ranged array parameter (caller-allocated arrays
    /// such as `ze_driver_extension_properties_t*` cannot chain `pNext` per element).
    fn missing_base(&self, s: &Struct) -> Option<String> {
        let (suffix, root) = if s.name.ends_with("_desc_t") {
            ("_desc_t", "base_desc_t")
        } else if s.name.ends_with("_properties_t") {
            ("_properties_t", "base_properties_t")
        } else {
            return None;
        };
        if s.name.ends_with(root) {
            return None;
        }
        // Follow the base chain.
        let mut cur = s;
        for _ in 0..16 {
            let Some(b) = &cur.base else { break };
            if b.ends_with(root) {
                return None;
            }
            match self.api.entry(b) {
                Some(Entry::Struct(next)) | Some(Entry::Union(next)) if next.name != cur.name => cur = next,
                _ => break,
            }
        }
        if s.base.is_none() && s.stype.is_empty() {
            let uses = self.uses.get(&s.name).map(Vec::as_slice).unwrap_or(&[]);
            if !uses.is_empty() && uses.iter().all(|(param, f)| *param && f.range.is_some()) {
                return None;
            }
        }
        Some(match &s.base {
            None => format!("struct `{}` is a `*{suffix}` without a base; it needs one ending in `{root}`", s.name),
            Some(b) => format!("struct `{}` is a `*{suffix}` but its base `{b}` does not lead to a `*{root}`", s.name),
        })
    }

    fn etors(&self, l: &Lines, en: &Enum, flags: bool, since: Version, out: &mut Vec<Diag>) {
        let kind = if flags { "flags" } else { "enum" };
        let values: Vec<Option<i64>> = en.etors.iter().map(|x| self.api.eval(&x.value)).collect();
        for (i, x) in en.etors.iter().enumerate() {
            let at = || l.item("etors", &x.name);
            let mut v = since;
            if let Some(s) = &x.since {
                if is_version(s) {
                    v = child_version(Some(s), since);
                } else {
                    out.push(diag(
                        at(),
                        "bad-version",
                        format!("since `{s}` of enumerator `{}` is not `major.minor`", x.name),
                    ));
                }
            }
            if v < since {
                out.push(diag(
                    at(),
                    "version-backwards",
                    format!(
                        "enumerator `{}` (since {v}) is older than its {kind} `{}` (since {since})",
                        x.name, en.name
                    ),
                ));
            }
            let Some(val) = values[i] else { continue };
            let Some(j) = (0..i).find(|&j| values[j] == Some(val)) else { continue };
            let first = &en.etors[j];
            if alias_reason(&self.stype_lists, en, flags, since, &values, j, i).is_some() {
                continue;
            }
            let what = if flags && val > 0 && (val & (val - 1)) == 0 {
                format!("bit {}", val.trailing_zeros())
            } else {
                format!("value {val}")
            };
            out.push(diag(
                at(),
                "duplicate-value",
                format!(
                    "enumerator `{}` of `{}` repeats the {what} of `{}` ({})",
                    x.name,
                    en.name,
                    first.name,
                    l.item("etors", &first.name)
                ),
            ));
        }
    }

    /// Names declared twice across the spec (entries, flag bit enums, enumerators).
    fn duplicate_names(&self, out: &mut Vec<Diag>) {
        let mut seen: HashMap<String, (Loc, String, Option<&Macro>)> = HashMap::new();
        for f in &self.api.loaded.files {
            for d in &f.docs {
                let l = Lines::new(d);
                let mut names: Vec<(String, Loc, String, Option<&Macro>)> = vec![];
                let e = &d.entry;
                match e {
                    Entry::File(_) => continue,
                    Entry::Macro(m) => names.push((m.name.clone(), l.entry(), format!("macro `{}`", m.name), Some(m))),
                    _ => names.push((e.name().to_string(), l.entry(), format!("{} `{}`", e.kind(), e.name()), None)),
                }
                if let Entry::Enum(en) | Entry::Flags(en) = e {
                    if let Entry::Flags(_) = e {
                        let bits = flag_bits_name(&en.name);
                        if bits != en.name {
                            names.push((
                                bits.clone(),
                                l.entry(),
                                format!("bit enum `{bits}` of flags `{}`", en.name),
                                None,
                            ));
                        }
                    }
                    for x in &en.etors {
                        names.push((
                            x.name.clone(),
                            l.item("etors", &x.name),
                            format!("enumerator `{}` of `{}`", x.name, en.name),
                            None,
                        ));
                    }
                }
                for (name, loc, what, mac) in names {
                    match seen.get(&name) {
                        None => {
                            seen.insert(name, (loc, what, mac));
                        }
                        Some((first, first_what, first_mac)) => {
                            // `#if A / #define X ... #elif B / #define X ...`: one macro, several definitions.
                            if let (Some(a), Some(b)) = (first_mac, mac) {
                                if a.condition.is_some() && b.condition.is_some() && a.condition != b.condition {
                                    continue;
                                }
                            }
                            out.push(diag(
                                loc,
                                "duplicate-name",
                                format!("{what} repeats the name of {first_what} ({first})"),
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// Why enumerator `later` may repeat the value of the earlier `first`, or None.
///
/// Allowed aliases, strictest first:
/// 1. `later` is marked `legacy: true` (a name kept from older official headers);
/// 2. `*_CURRENT` of a `*_version_t` enum repeating the newest `*_<major>_<minor>` version;
/// 3. `later` is newer (`since`) than `first`, and the two are named as one thing:
///    - `_EXP`/`_EXT` twins (`ZET_METRIC_TYPE_IP_EXP` → `ZET_METRIC_TYPE_IP`);
///    - both listed in the `stype` of one struct (a renamed structure type);
///    - `first` repeats the namespace inside the enum's prefix (`ZE_CACHE_EXT_REGION_ZE_CACHE_*`),
///      superseded by a well-formed name.
///
/// Each of these is needed by the real spec; a version-suffix twin (`X` → `X_1_2`) is not (and
/// would hide two versions of a `*_version_t` enum sharing a value), so it is not allowed.
///
/// `first` and `later` index `en.etors` and `values` (their evaluated values).
fn alias_reason(
    stype_lists: &[&[String]],
    en: &Enum,
    flags: bool,
    since: Version,
    values: &[Option<i64>],
    first: usize,
    later: usize,
) -> Option<&'static str> {
    let (value, first, later) = (values[first]?, &en.etors[first], &en.etors[later]);
    if later.legacy {
        return Some("legacy");
    }
    if en.name.ends_with("version_t") {
        if let Some(prefix) = later.name.strip_suffix("_CURRENT") {
            let is_version_etor = first
                .name
                .strip_prefix(prefix)
                .and_then(|r| r.strip_prefix('_'))
                .and_then(|r| r.split_once('_'))
                .is_some_and(|(a, b)| is_version(&format!("{a}.{b}")));
            if is_version_etor && values.iter().flatten().all(|v| *v <= value) {
                return Some("current-version");
            }
        }
    }
    let v_first = child_version(first.since.as_deref(), since);
    let v_later = child_version(later.since.as_deref(), since);
    if v_later <= v_first {
        return None;
    }
    let tokens = |n: &str| n.split('_').filter(|t| *t != "EXP" && *t != "EXT").collect::<Vec<_>>().join("_");
    if tokens(&first.name) == tokens(&later.name) {
        return Some("exp-ext-twin");
    }
    if stype_lists.iter().any(|s| s.contains(&first.name) && s.contains(&later.name)) {
        return Some("stype-rename");
    }
    let prefix = etor_prefix(&en.name, flags);
    if let Some(rest) = first.name.strip_prefix(&prefix) {
        if ["ZE_", "ZET_", "ZES_", "ZER_"].iter().any(|ns| rest.starts_with(ns)) {
            return Some("namespace-stutter-rename");
        }
    }
    None
}
