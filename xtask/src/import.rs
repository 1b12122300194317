//! `cargo xtask import-upstream DIR`: carries the facts of the upstream
//! level-zero-spec YAML (names, types, values, versions, classes, ordinals,
//! annotations, code return conditions) into our own schema under `spec/`.
//!
//! Prose never carries over: upstream descriptions and details are dropped.
//! Seed items (../shared/seeds) get the seeds' text, and seed-only items are
//! added from the seeds plus `xtask/data/seed-facts.yml`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_yaml::Value;
use zekit_codegen::spec::*;

/// Upstream folder → our namespace.
pub const NAMESPACES: [(&str, &str); 4] =
    [("core", "ze"), ("tools", "zet"), ("sysman", "zes"), ("runtime", "zer")];

/// Member order of the legacy tracing aggregate `ze_callbacks_t` (API 1.0, frozen).
/// Upstream YAML does not carry it; it is a fact of the official ze_api.h.
const TRACING_ORDER: [&str; 17] = [
    "ze", "zeDriver", "zeDevice", "zeContext", "zeCommandQueue", "zeCommandList", "zeFence", "zeEventPool",
    "zeEvent", "zeImage", "zeModule", "zeModuleBuildLog", "zeKernel", "zeSampler", "zePhysicalMem", "zeMem",
    "zeVirtualMem",
];

/// One of our spec files, ready to be written.
#[derive(Debug, Clone)]
pub struct SpecFile {
    pub ns: String,
    pub stem: String,
    pub entries: Vec<Entry>,
}

#[derive(Default, Debug)]
pub struct Report {
    pub notes: Vec<String>,
    pub prose_conditions_dropped: usize,
    pub unknown_keys: BTreeMap<String, usize>,
    /// Sentences of struct texts that mention `pNext`: input of the `extends` extraction
    /// (`crate::extends`), which keeps only the names they contain.
    pub pnext_sentences: Vec<crate::extends::Sentence>,
}

fn subst(s: &str) -> String {
    // Tags are the same in every namespace of config.ini: $x core, $t tools, $s sysman, $r runtime.
    s.replace("$OneApi", "oneAPI")
        .replace("$x", "ze")
        .replace("$X", "ZE")
        .replace("$t", "zet")
        .replace("$T", "ZET")
        .replace("$s", "zes")
        .replace("$S", "ZES")
        .replace("$r", "zer")
        .replace("$R", "ZER")
}

fn s(v: &Value, k: &str) -> Option<String> {
    match v.get(k)? {
        Value::String(x) => Some(subst(x)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Every string of a value (a string, or the strings of a version map or list), tags replaced.
fn all_strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(x)) => vec![subst(x)],
        Some(Value::Mapping(m)) => m.values().flat_map(|x| all_strings(Some(x))).collect(),
        Some(Value::Sequence(q)) => q.iter().flat_map(|x| all_strings(Some(x))).collect(),
        _ => vec![],
    }
}

/// A `desc` may be a string or a map of version → string; the newest wins.
fn desc_text(v: &Value) -> String {
    match v.get("desc") {
        Some(Value::String(x)) => subst(x),
        Some(Value::Mapping(m)) => {
            let mut best: Option<((u32, u32), String)> = None;
            for (k, val) in m {
                let key = match k {
                    Value::String(k) => k.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => continue,
                };
                let ver = parse_version(&key).unwrap_or((1, 0));
                if let Value::String(t) = val {
                    if best.as_ref().is_none_or(|(b, _)| ver >= *b) {
                        best = Some((ver, subst(t)));
                    }
                }
            }
            best.map(|b| b.1).unwrap_or_default()
        }
        _ => String::new(),
    }
}

pub fn parse_version(v: &str) -> Option<(u32, u32)> {
    let (a, b) = v.trim().split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Parsed leading annotations of a parameter/member description.
#[derive(Default, Debug, PartialEq)]
pub struct Annot {
    pub dir: Option<Dir>,
    pub optional: bool,
    pub range: Option<(String, String)>,
    pub release: bool,
    pub mbz: bool,
    pub count: Option<String>,
    pub deprecated: bool,
}

/// Parses `[in,out][optional][range(0, *pCount)]`-style prefixes.
pub fn parse_annotations(text: &str) -> Annot {
    let mut a = Annot::default();
    let mut rest = text.trim_start();
    while let Some(r) = rest.strip_prefix('[') {
        let Some(end) = r.find(']') else { break };
        let tag = r[..end].trim();
        match tag {
            "in" => {
                a.dir = Some(if a.dir == Some(Dir::Out) { Dir::Inout } else { Dir::In });
            }
            "out" => {
                a.dir = Some(if a.dir == Some(Dir::In) { Dir::Inout } else { Dir::Out });
            }
            "in,out" | "in, out" => a.dir = Some(Dir::Inout),
            "optional" => a.optional = true,
            "release" => a.release = true,
            "mbz" => a.mbz = true,
            "DEPRECATED" => a.deprecated = true,
            t if t.starts_with("range(") && t.ends_with(')') => {
                let inner = &t[6..t.len() - 1];
                if let Some((x, y)) = inner.split_once(',') {
                    a.range = Some((x.trim().to_string(), y.trim().to_string()));
                }
            }
            t if t.starts_with('*') => a.count = Some(t.to_string()),
            _ => break,
        }
        rest = r[end + 1..].trim_start();
    }
    a
}

/// Splits `name[ARRAY]` into name and array length.
fn split_array(name: &str) -> (String, Option<String>) {
    match name.split_once('[') {
        Some((n, rest)) => (n.trim().to_string(), Some(rest.trim_end_matches(']').trim().to_string())),
        None => (name.trim().to_string(), None),
    }
}

/// Normalises a C type: single spaces, `*` attached to the type (`const void *` → `const void*`).
pub fn norm_type(t: &str) -> String {
    let t = t.replace('*', " * ");
    let mut out = String::new();
    for tok in t.split_whitespace() {
        if tok == "*" {
            out.push('*');
        } else {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(tok);
        }
    }
    out
}

fn field(v: &Value, report: &mut Report, ctx: &str) -> Field {
    let (name, array) = split_array(&s(v, "name").unwrap_or_default());
    let desc = desc_text(v);
    let a = parse_annotations(&desc);
    check_keys(v, &["type", "name", "desc", "init", "version"], ctx, report);
    let or_all_ones = desc.contains("or UINT32_MAX");
    Field { init: s(v, "init"), since: s(v, "version"), or_all_ones, ..a.into_field(name, &s(v, "type").unwrap_or_default(), array) }
}

impl Annot {
    /// A field with these annotations (no init, since or doc).
    pub fn into_field(self, name: String, ty: &str, array: Option<String>) -> Field {
        Field {
            name,
            ty: norm_type(ty),
            array,
            dir: self.dir,
            optional: self.optional,
            range: self.range,
            release: self.release,
            mbz: self.mbz,
            or_all_ones: false,
            count: self.count,
            deprecated: self.deprecated,
            init: None,
            since: None,
            doc: None,
        }
    }
}

fn check_keys(v: &Value, known: &[&str], ctx: &str, report: &mut Report) {
    if let Value::Mapping(m) = v {
        for k in m.keys() {
            if let Value::String(k) = k {
                if !known.contains(&k.as_str()) {
                    *report.unknown_keys.entry(format!("{ctx}: `{k}`")).or_default() += 1;
                }
            }
        }
    }
}

/// Enumerator prefix: `ze_device_type_t` → `ZE_DEVICE_TYPE_`, flags `*_flags_t` → `*_FLAG_`.
pub fn etor_prefix(enum_name: &str) -> String {
    let base = enum_name.strip_suffix("_t").unwrap_or(enum_name);
    let base = base.strip_suffix("_flags").map(|b| format!("{b}_flag")).unwrap_or(base.to_string());
    format!("{}_", base.to_uppercase())
}

/// Evaluates an enumerator value written the upstream way.
pub fn eval_value(v: &str) -> Option<i64> {
    let v = v.trim();
    let inner = |p: &str| v.strip_prefix(p).and_then(|r| r.trim().strip_prefix('(')).and_then(|r| r.strip_suffix(')'));
    for p in ["ZE_BIT", "ZET_BIT", "ZES_BIT", "ZER_BIT"] {
        if let Some(i) = inner(p) {
            return Some(1i64 << i.trim().parse::<u32>().ok()?);
        }
    }
    for p in ["ZE_MAKE_VERSION", "ZET_MAKE_VERSION", "ZES_MAKE_VERSION"] {
        if let Some(i) = inner(p) {
            let (a, b) = i.split_once(',')?;
            return Some((a.trim().parse::<i64>().ok()? << 16) | b.trim().parse::<i64>().ok()?);
        }
    }
    if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        return i64::from_str_radix(h, 16).ok();
    }
    v.parse().ok()
}


/// Reads every upstream file of one namespace folder, in upstream parse order.
fn read_upstream(dir: &Path) -> Result<Vec<(String, Vec<Value>)>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .collect();
    files.sort();
    let mut out = vec![];
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let mut docs = vec![];
        for d in serde_yaml::Deserializer::from_str(&text) {
            let v = Lenient::deserialize(d).map_err(|e| format!("{}: {e}", f.display()))?.0;
            if !v.is_null() {
                docs.push(v);
            }
        }
        out.push((f.file_stem().unwrap().to_string_lossy().to_string(), docs));
    }
    Ok(out)
}

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A YAML value that tolerates duplicate keys (upstream has a few; the last one wins,
/// as in the upstream Python generator).
struct Lenient(Value);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lenient;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Lenient, E> {
                Ok(Lenient(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Lenient, E> {
                Ok(Lenient(Value::Number(v.into())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Lenient, E> {
                Ok(Lenient(Value::Number(v.into())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Lenient, E> {
                Ok(Lenient(Value::Number(v.into())))
            }
            fn visit_str<E>(self, v: &str) -> Result<Lenient, E> {
                Ok(Lenient(Value::String(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Lenient, E> {
                Ok(Lenient(Value::String(v)))
            }
            fn visit_unit<E>(self) -> Result<Lenient, E> {
                Ok(Lenient(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Lenient, E> {
                Ok(Lenient(Value::Null))
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Lenient, D2::Error> {
                Lenient::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Lenient, A::Error> {
                let mut v = vec![];
                while let Some(Lenient(x)) = a.next_element()? {
                    v.push(x);
                }
                Ok(Lenient(Value::Sequence(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Lenient, A::Error> {
                let mut m = serde_yaml::Mapping::new();
                while let Some((Lenient(k), Lenient(v))) = a.next_entry()? {
                    m.insert(k, v);
                }
                Ok(Lenient(Value::Mapping(m)))
            }
        }
        d.deserialize_any(V)
    }
}

/// Imports one upstream namespace folder.
pub fn import_namespace(dir: &Path, ns: &str, report: &mut Report) -> Result<Vec<SpecFile>, String> {
    let upstream = read_upstream(dir)?;

    // Struct → stype enumerators, from the *_structure_type_t enumerators' descriptions.
    let mut stypes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, docs) in &upstream {
        for d in docs {
            let name = s(d, "name").unwrap_or_default();
            if s(d, "type").as_deref() == Some("enum") && name.ends_with("structure_type_t") {
                let prefix = etor_prefix(&name);
                for e in d.get("etors").and_then(|e| e.as_sequence()).into_iter().flatten() {
                    let desc = desc_text(e);
                    let sname: String = desc.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if sname.ends_with("_t") {
                        stypes.entry(sname).or_default().push(format!("{prefix}{}", s(e, "name").unwrap_or_default()));
                    }
                }
            }
        }
    }

    // A structure type may name the struct through a typedef alias
    // (`ze_kernel_max_group_size_ext_properties_t`): the struct gets it too.
    for (_, docs) in &upstream {
        for d in docs {
            if s(d, "type").as_deref() == Some("typedef") {
                if let (Some(alias), Some(target)) = (s(d, "name"), s(d, "value")) {
                    if let Some(st) = stypes.get(&alias).cloned() {
                        stypes.entry(norm_type(&target)).or_default().extend(st);
                    }
                }
            }
        }
    }

    // Class ordinals: the upstream generator sorts classes by the (string) ordinal of the
    // file that defines them, stable over the order in which class names are first seen.
    let mut first_seen: Vec<String> = vec![];
    let mut class_file_ord: BTreeMap<String, String> = BTreeMap::new();
    for (_, docs) in &upstream {
        let mut ord = "9999".to_string();
        for d in docs {
            if s(d, "type").as_deref() == Some("header") {
                if let Some(o) = s(d, "ordinal") {
                    ord = o;
                }
                continue;
            }
            let is_class = s(d, "type").as_deref() == Some("class");
            let cname = if is_class { s(d, "name") } else { s(d, "class") };
            if let Some(c) = cname {
                if !first_seen.contains(&c) {
                    first_seen.push(c.clone());
                }
                if is_class {
                    class_file_ord.insert(c, ord.clone());
                }
            }
        }
    }
    let mut class_order = first_seen.clone();
    class_order.sort_by_key(|c| class_file_ord.get(c).cloned().unwrap_or_else(|| "0".into()));
    let class_ordinal: BTreeMap<String, u32> =
        class_order.iter().enumerate().map(|(i, c)| (c.clone(), i as u32)).collect();

    // File order: upstream sorts files by their header's (string) ordinal, default "9999".
    let mut file_keys: Vec<(String, usize)> = upstream
        .iter()
        .enumerate()
        .map(|(i, (_, docs))| {
            let o = docs
                .iter()
                .find(|d| s(d, "type").as_deref() == Some("header"))
                .and_then(|d| s(d, "ordinal"))
                .unwrap_or_else(|| "9999".into());
            (o, i)
        })
        .collect();
    file_keys.sort();
    let mut file_order = vec![0u32; upstream.len()];
    for (pos, (_, i)) in file_keys.iter().enumerate() {
        file_order[*i] = pos as u32;
    }

    let mut files = vec![];
    for (fi, (stem, docs)) in upstream.iter().enumerate() {
        let mut entries = vec![Entry::File(FileHeader { title: stem.clone(), order: file_order[fi], doc: None })];
        for d in docs {
            let ty = s(d, "type").unwrap_or_default();
            let name = s(d, "name").unwrap_or_default();
            let ctx = format!("{ns}/{stem}.yml {ty} {name}");
            let since = s(d, "version");
            let class = s(d, "class");
            let entry = match ty.as_str() {
                "header" => {
                    check_keys(d, &["type", "desc", "version", "ordinal"], &ctx, report);
                    continue;
                }
                "macro" => {
                    check_keys(d, &["type", "desc", "version", "name", "value", "condition", "altvalue"], &ctx, report);
                    let (mname, args) = match name.split_once('(') {
                        Some((n, a)) => (
                            n.trim().to_string(),
                            Some(a.trim_end_matches(')').split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect()),
                        ),
                        None => (name.clone(), None),
                    };
                    Entry::Macro(Macro {
                        name: mname,
                        args,
                        value: s(d, "value").unwrap_or_default(),
                        condition: s(d, "condition"),
                        altvalue: s(d, "altvalue"),
                        since,
                        doc: None,
                    })
                }
                "typedef" => {
                    check_keys(d, &["type", "desc", "version", "name", "value", "class"], &ctx, report);
                    Entry::Typedef(Typedef { name, ty: norm_type(&s(d, "value").unwrap_or_default()), class, since, doc: None })
                }
                "handle" => {
                    check_keys(d, &["type", "desc", "version", "name", "class", "alias"], &ctx, report);
                    Entry::Handle(Handle { name, class: class.unwrap_or_default(), alias: s(d, "alias"), since, doc: None })
                }
                "class" => {
                    check_keys(d, &["type", "desc", "version", "name", "owner", "members", "attribute", "base"], &ctx, report);
                    Entry::Class(Class {
                        ordinal: class_ordinal[&name],
                        tracing: TRACING_ORDER.iter().position(|c| *c == name).map(|p| p as u32),
                        name,
                        owner: s(d, "owner"),
                        base: s(d, "base"),
                        attribute: s(d, "attribute"),
                        since,
                        doc: None,
                    })
                }
                "enum" => {
                    check_keys(d, &["type", "desc", "version", "name", "etors", "class", "details"], &ctx, report);
                    let flags = name.ends_with("_flags_t");
                    let prefix = etor_prefix(&name);
                    let mut etors = vec![];
                    // Implicit values follow C: the previous value plus one (flags: the next bit).
                    let mut max: i64 = -1;
                    for e in d.get("etors").and_then(|e| e.as_sequence()).into_iter().flatten() {
                        check_keys(e, &["name", "value", "desc", "version"], &ctx, report);
                        let ename = format!("{prefix}{}", s(e, "name").unwrap_or_default());
                        let value = match s(e, "value") {
                            Some(v) => {
                                if let Some(n) = eval_value(&v) {
                                    max = if flags { max.max(n.trailing_zeros() as i64) } else { n };
                                }
                                v
                            }
                            None if flags => {
                                max += 1;
                                format!("ZE_BIT({max})")
                            }
                            None => {
                                max += 1;
                                max.to_string()
                            }
                        };
                        etors.push(Etor { name: ename, value, since: s(e, "version"), doc: None, legacy: false, unverified: false });
                    }
                    // `*_version_t` enums end with a `*_CURRENT` enumerator equal to the newest version.
                    if name.ends_with("version_t") && !etors.iter().any(|e| e.name.ends_with("_CURRENT")) {
                        if let Some(last) = etors.last() {
                            etors.push(Etor {
                                name: format!("{prefix}CURRENT"),
                                value: last.value.clone(),
                                since: None,
                                doc: None,
                                legacy: false,
                                unverified: false,
                            });
                        }
                    }
                    let en = Enum { name, class, since, doc: None, etors };
                    if flags {
                        Entry::Flags(en)
                    } else {
                        Entry::Enum(en)
                    }
                }
                "struct" | "union" => {
                    check_keys(d, &["type", "desc", "version", "class", "name", "base", "members", "details", "requires"], &ctx, report);
                    let members = d
                        .get("members")
                        .and_then(|m| m.as_sequence())
                        .into_iter()
                        .flatten()
                        .map(|m| field(m, report, &ctx))
                        .collect();
                    let requires = d
                        .get("requires")
                        .and_then(|r| r.as_sequence())
                        .into_iter()
                        .flatten()
                        .filter_map(|x| x.as_str().map(subst))
                        .collect();
                    // Sentences naming `pNext` (all versions of the text), for `extends`.
                    let mut texts = all_strings(d.get("desc"));
                    texts.extend(all_strings(d.get("details")));
                    for m in d.get("members").and_then(|m| m.as_sequence()).into_iter().flatten() {
                        texts.extend(all_strings(m.get("desc")));
                    }
                    report.pnext_sentences.extend(crate::extends::pnext_sentences(&name, &texts));
                    let st = Struct {
                        stype: stypes.get(&name).cloned().unwrap_or_default(),
                        name,
                        class,
                        base: s(d, "base"),
                        requires,
                        extends: vec![],
                        since,
                        doc: None,
                        members,
                    };
                    if ty == "union" {
                        Entry::Union(st)
                    } else {
                        Entry::Struct(st)
                    }
                }
                "function" => {
                    check_keys(
                        d,
                        &["type", "desc", "version", "class", "name", "decl", "details", "analogue", "params", "returns", "ordinal", "results", "returns:"],
                        &ctx,
                        report,
                    );
                    let class = class.unwrap_or_default();
                    let params = d
                        .get("params")
                        .and_then(|m| m.as_sequence())
                        .into_iter()
                        .flatten()
                        .map(|m| field(m, report, &ctx))
                        .collect();
                    let mut returns = vec![];
                    // `returns:` as a map describes a function that does not return ze_result_t.
                    let (mut return_type, mut failure_value) = (None, None);
                    if let Some(m @ Value::Mapping(_)) = d.get("returns") {
                        return_type = s(m, "type").map(|t| norm_type(&t));
                        failure_value = m.get("failure").and_then(|f| f.as_sequence()).and_then(|f| f.first()).and_then(|v| match v {
                            Value::String(x) => Some(subst(x)),
                            _ => None,
                        });
                    }
                    for key in ["returns", "results", "returns:"] {
                        if key != "returns" && d.get(key).is_some() {
                            report.notes.push(format!("{ctx}: upstream key `{key}` read as `returns`"));
                        }
                        for r in d.get(key).and_then(|r| r.as_sequence()).into_iter().flatten() {
                            parse_return(r, &mut returns, report);
                        }
                    }
                    Entry::Function(Function {
                        name: format!("{class}{name}"),
                        class,
                        is_static: s(d, "decl").as_deref() == Some("static"),
                        ordinal: s(d, "ordinal").and_then(|o| o.parse().ok()),
                        since,
                        doc: None,
                        details: vec![],
                        params,
                        returns,
                        return_type,
                        failure_value,
                    })
                }
                "callback" => {
                    check_keys(d, &["type", "desc", "version", "name", "returntype", "params", "convention"], &ctx, report);
                    Entry::Callback(Callback {
                        name,
                        ret: norm_type(&s(d, "returntype").unwrap_or_else(|| "void".into())),
                        convention: s(d, "convention"),
                        since,
                        doc: None,
                        params: d
                            .get("params")
                            .and_then(|m| m.as_sequence())
                            .into_iter()
                            .flatten()
                            .map(|m| field(m, report, &ctx))
                            .collect(),
                    })
                }
                "env" => {
                    check_keys(d, &["type", "desc", "version", "name", "category", "values", "default"], &ctx, report);
                    Entry::Env(Env {
                        name,
                        category: s(d, "category").unwrap_or_default(),
                        values: s(d, "values"),
                        default: s(d, "default"),
                        since,
                        doc: None,
                    })
                }
                "default_struct" => {
                    check_keys(d, &["type", "desc", "version", "class", "name", "base", "members"], &ctx, report);
                    Entry::DefaultStruct(DefaultStruct {
                        name,
                        class,
                        base: s(d, "base").unwrap_or_default(),
                        since,
                        doc: None,
                        members: d
                            .get("members")
                            .and_then(|m| m.as_sequence())
                            .into_iter()
                            .flatten()
                            .map(|m| field(m, report, &ctx))
                            .collect(),
                    })
                }
                other => {
                    report.notes.push(format!("{ctx}: unknown upstream type `{other}` skipped"));
                    continue;
                }
            };
            entries.push(entry);
        }
        files.push(SpecFile { ns: ns.to_string(), stem: stem.clone(), entries });
    }
    // Classes that functions name without a `type: class` entry (upstream gives them
    // ordinal "0") get an entry of their own, in the file of their first function.
    for c in &first_seen {
        if class_file_ord.contains_key(c) {
            continue;
        }
        let Some(f) = files.iter_mut().find(|f| {
            f.entries.iter().any(|e| matches!(e, Entry::Function(func) if &func.class == c))
        }) else {
            continue;
        };
        let pos = f.entries.iter().position(|e| matches!(e, Entry::Function(_))).unwrap_or(1);
        f.entries.insert(
            pos,
            Entry::Class(Class {
                name: c.clone(),
                ordinal: class_ordinal[c],
                tracing: TRACING_ORDER.iter().position(|t| t == c).map(|p| p as u32),
                owner: None,
                base: None,
                attribute: None,
                since: None,
                doc: None,
            }),
        );
        report.notes.push(format!("{ns}: class `{c}` has no upstream class entry; added one"));
    }
    Ok(files)
}

fn parse_return(r: &Value, out: &mut Vec<Return>, report: &mut Report) {
    let mut push = |code: String, conds: Vec<String>| {
        let code = code.trim_start_matches('$').to_string();
        let code = if code.starts_with("ZE_") { code } else { subst(&format!("${code}")) };
        match out.iter_mut().find(|r| r.code == code) {
            Some(r) => r.when.extend(conds),
            None => out.push(Return { code, when: conds }),
        }
    };
    match r {
        Value::String(code) => {
            // Upstream has `CODE - "prose"` typos (a missing colon): keep the code only.
            let code = subst(code);
            let mut parts = code.splitn(2, char::is_whitespace);
            let head = parts.next().unwrap_or_default().to_string();
            if parts.next().is_some_and(|rest| !rest.trim().is_empty()) {
                report.prose_conditions_dropped += 1;
                report.notes.push(format!("return `{head}` written with trailing prose; prose dropped"));
            }
            push(head, vec![])
        }
        Value::Mapping(m) => {
            for (k, v) in m {
                let code = subst(k.as_str().unwrap_or_default());
                let mut conds = vec![];
                let items: Vec<&Value> = match v {
                    Value::Sequence(seq) => seq.iter().collect(),
                    other => vec![other],
                };
                for c in items {
                    let text = match c {
                        Value::String(t) => subst(t),
                        _ => continue,
                    };
                    let t = text.trim();
                    if t.len() > 2 && t.starts_with('`') && t.ends_with('`') && t[1..t.len() - 1].find('`').is_none() {
                        conds.push(t[1..t.len() - 1].trim().to_string());
                    } else {
                        report.prose_conditions_dropped += 1;
                    }
                }
                push(code, conds);
            }
        }
        _ => {}
    }
}

/// Serialises one spec file: a short comment, then one YAML document per entry.
pub fn render_file(f: &SpecFile) -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# zekit spec, namespace {}: {}.\n# Schema: spec/README.md. Facts carried over by `cargo xtask import-upstream`.",
        f.ns, f.stem
    );
    for e in &f.entries {
        out.push_str("---\n");
        out.push_str(&serde_yaml::to_string(e).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// Names of every declared item, for reporting.
pub fn count_kinds(files: &[SpecFile]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for f in files {
        for e in &f.entries {
            *m.entry(e.kind()).or_default() += 1;
        }
    }
    m
}
