//! Merges the seed pages (spec 1.18.31) into the imported spec: seed text for seed
//! items, seed types and annotations where they differ (the seeds win), and the
//! seed-only items, with values from `xtask/data/seed-facts.yml`.

use std::collections::BTreeMap;

use serde::Deserialize;
use xtask::seeds::{SeedSet, SeedStruct};
use zekit_codegen::spec::*;

use crate::import::{parse_annotations, Report, SpecFile};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    #[serde(default)]
    pub enums: Vec<FactEnum>,
    #[serde(default)]
    pub etors: BTreeMap<String, String>,
    #[serde(default)]
    pub place: BTreeMap<String, Place>,
    #[serde(default)]
    pub legacy: Vec<Legacy>,
    #[serde(default)]
    pub class_order: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub new_etors: Vec<NewEtor>,
    #[serde(default)]
    pub extends: Vec<FactExtends>,
    #[serde(default)]
    pub annotations: Vec<FactAnnotation>,
}

/// A parameter annotation of the reference that misdescribes the C declaration, corrected.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactAnnotation {
    pub function: String,
    pub param: String,
    /// Annotations to drop (`range`).
    #[serde(default)]
    pub drop: Vec<String>,
    /// Annotations to add (`release`, `optional`, `range`).
    #[serde(default)]
    pub add: Vec<String>,
    /// The bounds of an added `range` (`['0', '*pSize']`).
    #[serde(default)]
    pub range: Option<Vec<String>>,
    /// Why, and where the C declaration says so.
    pub source: String,
}

/// `extends` facts the importer cannot derive from upstream or seed text.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactExtends {
    #[serde(rename = "struct")]
    pub struct_name: String,
    pub extends: Vec<String>,
    /// Where the fact is stated.
    pub source: String,
}

/// The seed pages' sentences about `pNext`, per struct (for `crate::extends`).
pub fn seed_pnext_sentences(seeds: &SeedSet) -> Vec<crate::extends::Sentence> {
    let mut out = vec![];
    for ss in seeds.structs.values() {
        let mut texts = vec![ss.doc.clone()];
        texts.extend(ss.details.iter().cloned());
        texts.extend(ss.members.iter().map(|m| m.doc.clone()));
        out.extend(crate::extends::pnext_sentences(&ss.name, &texts));
    }
    out
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewEtor {
    #[serde(rename = "enum")]
    pub enum_name: String,
    pub name: String,
    pub value: String,
    pub since: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactEnum {
    pub name: String,
    pub since: Option<String>,
    pub etors: Vec<FactEtor>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactEtor {
    pub name: String,
    pub value: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Place {
    pub file: String,
    pub class: String,
    pub base: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Legacy {
    #[serde(rename = "enum")]
    pub enum_name: String,
    pub name: String,
    pub value: String,
}

fn text(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn field_from_seed(name: &str, ty: &str, array: Option<&str>, annotations: &str, doc: &str) -> Field {
    let f = parse_annotations(annotations).into_field(name.to_string(), ty, array.map(str::to_string));
    Field { doc: text(doc), ..f }
}

/// Applies a seed field over an imported one: seed text, and the seed's type and
/// annotations where they differ.
fn apply_field(f: &mut Field, seed: &Field, ctx: &str, report: &mut Report) {
    if f.ty != seed.ty {
        report.notes.push(format!("{ctx}.{}: type `{}` → `{}` (seeds win)", f.name, f.ty, seed.ty));
        f.ty = seed.ty.clone();
    }
    if f.dir != seed.dir || f.optional != seed.optional || f.range != seed.range {
        report.notes.push(format!("{ctx}.{}: annotations differ from the seeds; seeds win", f.name));
        f.dir = seed.dir;
        f.optional = seed.optional;
        f.range = seed.range.clone();
        f.release = seed.release;
        f.mbz = seed.mbz;
    }
    f.doc = seed.doc.clone();
}

fn find_entry<'a>(files: &'a mut [SpecFile], name: &str) -> Option<&'a mut Entry> {
    files.iter_mut().flat_map(|f| f.entries.iter_mut()).find(|e| match e {
        Entry::Flags(x) => x.name == name || zekit_codegen::model::flag_bits_name(&x.name) == name,
        e => e.name() == name,
    })
}

fn push_to(files: &mut [SpecFile], stem: &str, e: Entry, report: &mut Report) {
    match files.iter_mut().find(|f| f.ns == "ze" && f.stem == stem) {
        Some(f) => f.entries.push(e),
        None => report.notes.push(format!("seed item {} has no target file ze/{stem}.yml", e.name())),
    }
}

fn seed_struct_fields(s: &SeedStruct, base_members: usize) -> Vec<Field> {
    s.members
        .iter()
        .skip(base_members)
        .map(|m| field_from_seed(&m.name, &m.ty, m.array.as_deref(), &m.annotations, &m.doc))
        .collect()
}

pub fn merge(files: &mut [SpecFile], seeds: &SeedSet, facts: &Facts, report: &mut Report) -> Result<(), String> {
    // Whole enums from the facts first, so seed functions can use them.
    for fe in &facts.enums {
        if find_entry(files, &fe.name).is_some() {
            continue;
        }
        let place = facts.place.get(&fe.name).ok_or(format!("seed-facts: no place for {}", fe.name))?;
        let e = Enum {
            name: fe.name.clone(),
            class: Some(place.class.clone()),
            since: fe.since.clone(),
            doc: seeds.enums.get(&fe.name).and_then(|s| text(&s.doc)),
            etors: fe
                .etors
                .iter()
                .map(|x| Etor { name: x.name.clone(), value: x.value.clone(), since: None, doc: None, legacy: false, unverified: false })
                .collect(),
        };
        push_to(files, &place.file, Entry::Enum(e), report);
    }
    // Enums: seed text; enumerators the reference lacks get values from the facts.
    for se in seeds.enums.values() {
        let Some(entry) = find_entry(files, &se.name) else {
            report.notes.push(format!("seed enum {} is not in the reference: add it to seed-facts.yml", se.name));
            continue;
        };
        let (Entry::Enum(e) | Entry::Flags(e)) = entry else { continue };
        if let Some(d) = text(&se.doc) {
            e.doc = Some(d);
        }
        for st in se.etors.iter().filter(|x| !x.force_uint32) {
            match e.etors.iter_mut().find(|x| x.name == st.name) {
                Some(x) => x.doc = text(&st.doc),
                None => {
                    let (value, unverified) = match facts.etors.get(&st.name) {
                        Some(v) => (v.clone(), false),
                        None => {
                            report.notes.push(format!("UNVERIFIED value for seed enumerator {}", st.name));
                            (format!("{}", e.etors.len()), true)
                        }
                    };
                    e.etors.push(Etor { name: st.name.clone(), value, since: se.since.clone(), doc: text(&st.doc), legacy: false, unverified });
                }
            }
        }
    }
    // Structs.
    for ss in seeds.structs.values() {
        let base_count = ss.members.iter().take_while(|m| m.name == "stype" || m.name == "pNext").count();
        match find_entry(files, &ss.name) {
            Some(Entry::Struct(s) | Entry::Union(s)) => {
                if let Some(d) = text(&ss.doc) {
                    s.doc = Some(d);
                }
                let own = if s.base.is_some() { base_count } else { 0 };
                for sf in seed_struct_fields(ss, own) {
                    let ctx = s.name.clone();
                    match s.members.iter_mut().find(|m| m.name == sf.name) {
                        Some(m) => apply_field(m, &sf, &ctx, report),
                        None => {
                            report.notes.push(format!("{ctx}: member {} added from the seeds", sf.name));
                            s.members.push(Field { since: ss.since.clone(), ..sf });
                        }
                    }
                }
            }
            _ => {
                let place = facts.place.get(&ss.name).ok_or(format!("seed-facts: no place for struct {}", ss.name))?;
                let stype: Vec<String> = facts
                    .etors
                    .keys()
                    .filter(|k| {
                        let tail = ss.name.trim_start_matches("ze_").trim_end_matches("_t").to_uppercase();
                        k.starts_with("ZE_STRUCTURE_TYPE_") && k.ends_with(&tail)
                    })
                    .cloned()
                    .collect();
                let base = place.base.clone();
                let members = seed_struct_fields(ss, if base.is_some() { base_count } else { 0 });
                let s = Struct {
                    name: ss.name.clone(),
                    class: Some(place.class.clone()),
                    base,
                    stype: stype.clone(),
                    requires: vec![],
                    extends: vec![],
                    since: ss.since.clone(),
                    doc: text(&ss.doc),
                    members,
                };
                // Its structure type joins ze_structure_type_t.
                for st in &stype {
                    if let Some(Entry::Enum(e)) = find_entry(files, "ze_structure_type_t") {
                        if !e.etors.iter().any(|x| &x.name == st) {
                            e.etors.push(Etor {
                                name: st.clone(),
                                value: facts.etors[st].clone(),
                                since: ss.since.clone(),
                                doc: None,
                                legacy: false,
                                unverified: false,
                            });
                        }
                    }
                }
                let e = if ss.is_union { Entry::Union(s) } else { Entry::Struct(s) };
                push_to(files, &place.file, e, report);
            }
        }
    }
    // Functions.
    for sf in seeds.functions.values() {
        let params: Vec<Field> =
            sf.params.iter().map(|p| field_from_seed(&p.name, &p.ty, None, &p.annotations, &p.doc)).collect();
        match find_entry(files, &sf.name) {
            Some(Entry::Function(f)) => {
                f.doc = text(&sf.doc);
                f.details = sf.details.clone();
                let ctx = f.name.clone();
                if f.params.len() != params.len() {
                    report.notes.push(format!("{ctx}: parameter list replaced by the seeds'"));
                    f.params = params;
                } else {
                    for (p, s) in f.params.iter_mut().zip(&params) {
                        if p.name != s.name {
                            report.notes.push(format!("{ctx}: parameter {} renamed {} (seeds win)", p.name, s.name));
                            p.name = s.name.clone();
                        }
                        apply_field(p, s, &ctx, report);
                    }
                }
            }
            _ => {
                let place = facts.place.get(&sf.name).ok_or(format!("seed-facts: no place for function {}", sf.name))?;
                let f = Function {
                    name: sf.name.clone(),
                    class: place.class.clone(),
                    is_static: false,
                    ordinal: None,
                    since: sf.since.clone(),
                    doc: text(&sf.doc),
                    details: sf.details.clone(),
                    params,
                    returns: vec![],
                    return_type: None,
                    failure_value: None,
                };
                push_to(files, &place.file, Entry::Function(f), report);
            }
        }
    }
    // DDI table order pinned to the official headers.
    for (ns, order) in &facts.class_order {
        for f in files.iter_mut().filter(|f| &f.ns == ns) {
            for e in &mut f.entries {
                if let Entry::Class(c) = e {
                    c.ordinal = match order.iter().position(|x| *x == c.name) {
                        Some(p) => p as u32,
                        None => 100 + c.ordinal,
                    };
                }
            }
        }
    }
    // Newer enumerators (before a `*_CURRENT`, which then equals the newest).
    for n in &facts.new_etors {
        let Some(Entry::Enum(e) | Entry::Flags(e)) = find_entry(files, &n.enum_name) else {
            return Err(format!("seed-facts: enum {} not found", n.enum_name));
        };
        if e.etors.iter().any(|x| x.name == n.name) {
            continue;
        }
        let etor = Etor { name: n.name.clone(), value: n.value.clone(), since: n.since.clone(), doc: None, legacy: false, unverified: false };
        match e.etors.iter().position(|x| x.name.ends_with("_CURRENT")) {
            Some(i) => {
                e.etors[i].value = n.value.clone();
                e.etors.insert(i, etor);
            }
            None => e.etors.push(etor),
        }
        // The macro twin of ZE_API_VERSION_CURRENT follows it.
        let current_macro = format!("{}_CURRENT_M", n.name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_'));
        if let Some(Entry::Macro(m)) = find_entry(files, &current_macro) {
            m.value = n.value.clone();
        }
    }
    // Parameter annotations corrected where they misdescribe the C declaration.
    for a in &facts.annotations {
        let Some(Entry::Function(f)) = find_entry(files, &a.function) else {
            return Err(format!("seed-facts: annotation fact names no function {}", a.function));
        };
        let Some(p) = f.params.iter_mut().find(|p| p.name == a.param) else {
            return Err(format!("seed-facts: {} has no parameter {}", a.function, a.param));
        };
        for d in &a.drop {
            match d.as_str() {
                "range" => p.range = None,
                other => return Err(format!("seed-facts: cannot drop annotation `{other}`")),
            }
        }
        for d in &a.add {
            match d.as_str() {
                "release" => p.release = true,
                "optional" => p.optional = true,
                "range" => match a.range.as_deref() {
                    Some([lo, hi]) => p.range = Some((lo.clone(), hi.clone())),
                    _ => return Err(format!("seed-facts: {}.{}: adding `range` needs `range: [lo, hi]`", a.function, a.param)),
                },
                other => return Err(format!("seed-facts: cannot add annotation `{other}`")),
            }
        }
        let mut what = vec![];
        if !a.drop.is_empty() {
            what.push(format!("dropped {}", a.drop.join(", ")));
        }
        if !a.add.is_empty() {
            what.push(format!("added {}", a.add.join(", ")));
        }
        report.notes.push(format!("{}.{}: {} ({})", a.function, a.param, what.join(", "), a.source));
    }
    // Legacy enumerators of older official headers.
    for l in &facts.legacy {
        match find_entry(files, &l.enum_name) {
            Some(Entry::Enum(e) | Entry::Flags(e)) => {
                if !e.etors.iter().any(|x| x.name == l.name) {
                    e.etors.push(Etor { name: l.name.clone(), value: l.value.clone(), since: None, doc: None, legacy: true, unverified: false });
                }
            }
            _ => return Err(format!("seed-facts: legacy enum {} not found", l.enum_name)),
        }
    }
    Ok(())
}
