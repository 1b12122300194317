//! C headers through tera templates: `<ns>_api.h` and `<ns>_ddi.h` for every namespace.

use serde::Serialize;

use crate::load::NAMESPACES;
use crate::model::{pfn_name, strip_ns, Api, CType, ItemRef, Version};
use crate::spec::*;

const API_TEMPLATE: &str = include_str!("../templates/api.h.tera");
const DDI_TEMPLATE: &str = include_str!("../templates/ddi.h.tera");
const DDI_COMMON_TEMPLATE: &str = include_str!("../templates/ddi_common.h.tera");

#[derive(Serialize, Default)]
struct Item {
    kind: &'static str,
    name: String,
    doc: Vec<String>,
    args: String,
    value: String,
    condition: Option<String>,
    altvalue: Option<String>,
    ty: String,
    alias: Option<String>,
    flags_typedef: Option<String>,
    etors: Vec<EtorView>,
    force: String,
    members: Vec<MemberView>,
    tag: &'static str,
    export: String,
    ret: String,
    conv: String,
    params: Vec<MemberView>,
    values: Option<String>,
}

#[derive(Serialize)]
struct EtorView {
    name: String,
    value: String,
    doc: String,
}

#[derive(Serialize)]
struct MemberView {
    decl: String,
    doc: String,
    name: String,
    value: String,
}

#[derive(Serialize)]
struct Section {
    title: String,
    region: String,
    items: Vec<Item>,
}

#[derive(Serialize)]
struct TracingFn {
    name: String,
    params_type: String,
    params: Vec<String>,
    pfn: String,
    member: String,
}

#[derive(Serialize)]
struct TracingTable {
    name: String,
    type_name: String,
    functions: Vec<TracingFn>,
}

#[derive(Serialize)]
struct Tracing {
    tables: Vec<TracingTable>,
    aggregate: Vec<TracingTable>,
}

/// `const char**` with a declarator name, arrays included.
pub fn c_decl(ty: &str, name: &str, array: Option<&str>) -> String {
    let t = CType::parse(ty);
    let mut s = String::new();
    if t.konst {
        s.push_str("const ");
    }
    s.push_str(&t.base);
    for c in &t.ptrs {
        s.push('*');
        if *c {
            s.push_str(" const");
        }
    }
    if !name.is_empty() {
        s.push(' ');
        s.push_str(name);
    }
    if let Some(a) = array {
        s.push_str(&format!("[{a}]"));
    }
    s
}

/// The doc text of a member or parameter: annotations first, then the spec's words.
pub fn field_doc(f: &Field) -> String {
    let mut s = String::new();
    if let Some(d) = f.dir {
        s.push_str(d.annotation());
    }
    if f.optional {
        s.push_str("[optional]");
    }
    if f.release {
        s.push_str("[release]");
    }
    if f.mbz {
        s.push_str("[mbz]");
    }
    if let Some((a, b)) = &f.range {
        s.push_str(&format!("[range({a}, {b})]"));
    }
    if let Some(c) = &f.count {
        s.push_str(&format!("[{c}]"));
    }
    if let Some(d) = &f.doc {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&d.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    s
}

fn doc_lines(doc: Option<&str>, since: Option<&str>, details: &[String]) -> Vec<String> {
    let mut v = vec![];
    if let Some(d) = doc {
        let mut first = true;
        for l in d.lines() {
            v.push(if first { format!("@brief {l}") } else { format!("       {l}") });
            first = false;
        }
    }
    if !details.is_empty() {
        v.push("@details".into());
        for d in details {
            v.push(format!("    - {}", d.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
    }
    if let Some(s) = since {
        if Version::of(Some(s)) > Version::V1_0 {
            v.push(format!("@since {s}"));
        }
    }
    v
}

/// Folds a multi-line text onto one line (for trailing `///<` comments).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Type names an entry needs declared before it (pointers to structs excepted: every
/// struct is forward-declared at the top of the namespace).
fn deps(api: &Api, e: &Entry) -> Vec<String> {
    let mut out = vec![];
    let mut field = |ty: &str, array: Option<&str>| {
        let t = CType::parse(ty);
        let by_value_struct = !t.is_pointer();
        match api.type_kind(&t.base) {
            Some(crate::model::TypeKind::Struct | crate::model::TypeKind::Union) if !by_value_struct => {}
            Some(_) => out.push(t.base.clone()),
            None => {}
        }
        if let Some(a) = array {
            out.push(a.to_string());
        }
    };
    match e {
        Entry::Typedef(t) => field(&t.ty, None),
        Entry::Handle(h) => {
            if let Some(a) = &h.alias {
                field(a, None)
            }
        }
        Entry::Struct(s) | Entry::Union(s) => {
            for m in api.all_members(s) {
                field(&m.ty, m.array.as_deref());
            }
        }
        Entry::Function(f) => f.params.iter().for_each(|p| field(&p.ty, None)),
        Entry::Callback(c) => {
            field(&c.ret, None);
            c.params.iter().for_each(|p| field(&p.ty, None));
        }
        Entry::DefaultStruct(d) => field(&d.base, None),
        _ => {}
    }
    out
}

/// Assigns every entry of namespace `ns` to a section (file), in spec order, pulling an
/// entry forward into an earlier section when something there needs it first.
fn placement(api: &Api, ns: &str, files: &[usize]) -> Vec<Vec<ItemRef>> {
    let mut placed: std::collections::HashSet<ItemRef> = Default::default();
    let mut out = vec![];
    fn visit(api: &Api, ns: &str, r: ItemRef, placed: &mut std::collections::HashSet<ItemRef>, sec: &mut Vec<ItemRef>) {
        if !placed.insert(r) {
            return;
        }
        for d in deps(api, &api.doc(r).entry) {
            if let Some(dr) = api.index.get(&d) {
                if api.loaded.files[dr.file].ns == ns {
                    visit(api, ns, *dr, placed, sec);
                }
            }
        }
        sec.push(r);
    }
    for &fi in files {
        let mut sec = vec![];
        for di in 0..api.loaded.files[fi].docs.len() {
            visit(api, ns, ItemRef { file: fi, doc: di }, &mut placed, &mut sec);
        }
        out.push(sec);
    }
    out
}

fn section_items(api: &Api, ns: &str, first: bool, refs: &[ItemRef]) -> Vec<Item> {
    let mut items = vec![];
    // Every struct and union is forward-declared first, so pointers to them work anywhere.
    if first {
        for (_, d) in api.docs(ns) {
            let tag = match &d.entry {
                Entry::Struct(_) => "struct",
                Entry::Union(_) => "union",
                _ => continue,
            };
            items.push(Item { kind: "fwd", name: d.entry.name().to_string(), tag, ..Default::default() });
        }
    }
    for r in refs {
        let d = api.doc(*r);
        let e = &d.entry;
        let item = match e {
            Entry::File(_) | Entry::Class(_) => continue,
            Entry::Macro(m) => Item {
                kind: "macro",
                name: m.name.clone(),
                doc: doc_lines(m.doc.as_deref(), m.since.as_deref(), &[]),
                args: m.args.as_ref().map(|a| format!("( {} )", a.join(", "))).unwrap_or_default(),
                value: m.value.clone(),
                condition: m.condition.clone(),
                altvalue: m.altvalue.clone(),
                ..Default::default()
            },
            Entry::Typedef(t) => Item {
                kind: "typedef",
                name: t.name.clone(),
                doc: doc_lines(t.doc.as_deref(), t.since.as_deref(), &[]),
                ty: c_decl(&t.ty, "", None),
                ..Default::default()
            },
            Entry::Handle(h) => Item {
                kind: "handle",
                name: h.name.clone(),
                doc: doc_lines(h.doc.as_deref(), h.since.as_deref(), &[]),
                alias: h.alias.clone(),
                ..Default::default()
            },
            Entry::Enum(en) | Entry::Flags(en) => {
                let flags = matches!(e, Entry::Flags(_));
                let name = if flags { crate::model::flag_bits_name(&en.name) } else { en.name.clone() };
                let force = format!("{}FORCE_UINT32", etor_prefix_of(&name));
                Item {
                    kind: "enum",
                    doc: doc_lines(en.doc.as_deref(), en.since.as_deref(), &[]),
                    flags_typedef: flags.then(|| en.name.clone()),
                    etors: en
                        .etors
                        .iter()
                        .map(|x| EtorView {
                            name: x.name.clone(),
                            value: x.value.clone(),
                            doc: [x.doc.as_deref().map(one_line), x.since.as_ref().map(|s| format!("@since {s}"))]
                                .into_iter()
                                .flatten()
                                .collect::<Vec<_>>()
                                .join(" "),
                        })
                        .collect(),
                    force,
                    name,
                    ..Default::default()
                }
            }
            Entry::Struct(s) | Entry::Union(s) => Item {
                kind: if matches!(e, Entry::Union(_)) { "union" } else { "struct" },
                name: s.name.clone(),
                doc: doc_lines(s.doc.as_deref(), s.since.as_deref(), &[]),
                members: api
                    .all_members(s)
                    .into_iter()
                    .map(|m| MemberView {
                        decl: c_decl(&m.ty, &m.name, m.array.as_deref()),
                        doc: field_doc(m),
                        name: m.name.clone(),
                        value: String::new(),
                    })
                    .collect(),
                ..Default::default()
            },
            Entry::Function(func) => Item {
                kind: "function",
                name: func.name.clone(),
                doc: doc_lines(func.doc.as_deref(), func.since.as_deref(), &func.details),
                export: format!("{}_APIEXPORT", "ZE"),
                ret: func.ret().to_string(),
                conv: "ZE_APICALL".into(),
                params: param_views(&func.params),
                ..Default::default()
            },
            Entry::Callback(cb) => Item {
                kind: "callback",
                name: cb.name.clone(),
                doc: doc_lines(cb.doc.as_deref(), cb.since.as_deref(), &[]),
                ret: c_decl(&cb.ret, "", None),
                conv: cb.convention.clone().unwrap_or_default(),
                params: param_views(&cb.params),
                ..Default::default()
            },
            Entry::Env(env) => Item {
                kind: "env",
                name: env.name.clone(),
                values: env.values.clone(),
                doc: env.doc.iter().map(|d| one_line(d)).collect(),
                ..Default::default()
            },
            Entry::DefaultStruct(ds) => Item {
                kind: "default",
                name: ds.name.clone(),
                doc: doc_lines(ds.doc.as_deref(), ds.since.as_deref(), &[]),
                ty: ds.base.clone(),
                members: ds
                    .members
                    .iter()
                    .map(|m| MemberView {
                        decl: String::new(),
                        doc: String::new(),
                        name: m.name.clone(),
                        value: match m.init.as_deref() {
                            Some("nullptr") | Some("NULL") | None => "0".into(),
                            Some(v) => v.to_string(),
                        },
                    })
                    .collect(),
                ..Default::default()
            },
        };
        items.push(item);
    }
    items
}

fn param_views(params: &[Field]) -> Vec<MemberView> {
    params
        .iter()
        .map(|p| MemberView {
            decl: c_decl(&p.ty, &p.name, None),
            doc: field_doc(p),
            name: p.name.clone(),
            value: String::new(),
        })
        .collect()
}

fn etor_prefix_of(enum_name: &str) -> String {
    format!("{}_", enum_name.strip_suffix("_t").unwrap_or(enum_name).to_uppercase())
}

fn tracing(api: &Api) -> Tracing {
    let view = |t: &crate::model::TracingTable| TracingTable {
        name: t.name.clone(),
        type_name: t.type_name.clone(),
        functions: t
            .functions
            .iter()
            .filter_map(|(name, params_type, pfn, member)| {
                let Some(Entry::Function(f)) = api.entry(name) else { return None };
                Some(TracingFn {
                    name: name.clone(),
                    params_type: params_type.clone(),
                    params: f.params.iter().map(|p| c_decl(&format!("{}*", p.ty), &format!("p{}", p.name), None)).collect(),
                    pfn: pfn.clone(),
                    member: member.clone(),
                })
            })
            .collect(),
    };
    let tables = api.tracing_tables();
    let mut aggregate: Vec<&crate::model::TracingTable> = tables.iter().collect();
    aggregate.sort_by_key(|t| t.slot);
    Tracing {
        aggregate: aggregate.into_iter().map(|t| TracingTable { functions: vec![], ..view(t) }).collect(),
        tables: tables.iter().map(view).collect(),
    }
}

/// Renders every header; returns (relative path under generated/include/level_zero, text).
pub fn emit(api: &Api, sources: &str) -> Result<Vec<(String, String)>, String> {
    let mut tera = tera::Tera::default();
    tera.add_raw_template("api.h", API_TEMPLATE).map_err(|e| format!("api.h.tera: {e:?}"))?;
    tera.add_raw_template("ddi.h", DDI_TEMPLATE).map_err(|e| format!("ddi.h.tera: {e:?}"))?;
    tera.add_raw_template("ddi_common.h", DDI_COMMON_TEMPLATE).map_err(|e| format!("ddi_common.h.tera: {e:?}"))?;
    tera.autoescape_on(vec![]);
    let version = api.spec_version().to_string();
    let mut out = vec![];
    for ns in NAMESPACES {
        let files: Vec<usize> = (0..api.loaded.files.len()).filter(|i| api.loaded.files[*i].ns == ns).collect();
        if files.is_empty() {
            continue;
        }
        let placed = placement(api, ns, &files);
        let sections: Vec<Section> = files
            .iter()
            .zip(&placed)
            .enumerate()
            .map(|(n, (&i, refs))| {
                let f = &api.loaded.files[i];
                Section {
                    title: f.header.doc.clone().unwrap_or_else(|| format!("{ns} {}", f.stem)),
                    region: f.stem.clone(),
                    items: section_items(api, ns, n == 0, refs),
                }
            })
            .collect();
        let mut ctx = tera::Context::new();
        ctx.insert("ns", ns);
        ctx.insert("NS", &ns.to_uppercase());
        ctx.insert("version", &version);
        ctx.insert("sources", sources);
        ctx.insert("sections", &sections);
        if ns == "ze" {
            ctx.insert("tracing", &tracing(api));
        } else {
            ctx.insert("tracing", &false);
        }
        let text = tera.render("api.h", &ctx).map_err(|e| format!("{ns}_api.h: {e:?}"))?;
        out.push((format!("{ns}_api.h"), tidy(&text)));

        #[derive(Serialize)]
        struct FnView {
            name: String,
            ret: String,
            conv: &'static str,
            pfn: String,
            member: String,
            params: Vec<String>,
        }
        #[derive(Serialize)]
        struct TableView {
            name: String,
            type_name: String,
            getter: String,
            getter_pfn: String,
            functions: Vec<FnView>,
        }
        let tables: Vec<TableView> = api
            .ddi_tables(ns)
            .into_iter()
            .map(|t| TableView {
                functions: t
                    .functions
                    .iter()
                    .map(|r| {
                        let f = api.function(*r);
                        FnView {
                            name: f.name.clone(),
                            ret: f.ret().to_string(),
                            conv: "ZE_APICALL",
                            pfn: pfn_name(ns, &f.name),
                            member: format!("pfn{}", strip_ns(strip_ns(&f.name, ns), strip_ns(&f.class, ns))),
                            params: f.params.iter().map(|p| c_decl(&p.ty, "", None)).collect(),
                        }
                    })
                    .collect(),
                name: t.name,
                type_name: t.type_name,
                getter: t.getter,
                getter_pfn: t.getter_pfn,
            })
            .collect();
        let mut ctx = tera::Context::new();
        ctx.insert("ns", ns);
        ctx.insert("NS", &ns.to_uppercase());
        ctx.insert("version", &version);
        ctx.insert("sources", sources);
        ctx.insert("tables", &tables);
        ctx.insert("export", "ZE_DLLEXPORT");
        ctx.insert("result", "ze_result_t");
        let text = tera.render("ddi.h", &ctx).map_err(|e| format!("{ns}_ddi.h: {e:?}"))?;
        out.push((format!("{ns}_ddi.h"), tidy(&text)));
    }
    if NAMESPACES.iter().all(|ns| api.loaded.files.iter().any(|f| f.ns == *ns)) {
        let mut ctx = tera::Context::new();
        ctx.insert("version", &version);
        ctx.insert("sources", sources);
        let text = tera.render("ddi_common.h", &ctx).map_err(|e| format!("ze_ddi_common.h: {e:?}"))?;
        out.push(("ze_ddi_common.h".to_string(), tidy(&text)));
    }
    Ok(out)
}

/// Collapses runs of blank lines and trailing spaces so output is stable and tidy.
fn tidy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for l in s.lines() {
        let l = l.trim_end();
        if l.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}
