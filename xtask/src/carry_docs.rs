//! `import-upstream` rewrites `spec/` from the upstream YAML and the seed pages; the
//! descriptions we wrote ourselves exist in neither. Before the files are written, every
//! `doc:` the import left empty takes the text the current `spec/` has for the same item, so a
//! re-import keeps our words (the seeds' text still wins where the seeds have one).

use std::collections::HashMap;

use zekit_codegen::spec::{Entry, Field};

use crate::import::SpecFile;

/// Item key (`entry`, `entry.member`, `entry.ETOR`) → description.
pub type Docs = HashMap<String, String>;

fn fields(e: &Entry) -> Option<&[Field]> {
    match e {
        Entry::Struct(s) | Entry::Union(s) => Some(&s.members),
        Entry::Function(f) => Some(&f.params),
        Entry::Callback(c) => Some(&c.params),
        Entry::DefaultStruct(d) => Some(&d.members),
        _ => None,
    }
}

fn fields_mut(e: &mut Entry) -> Option<&mut Vec<Field>> {
    match e {
        Entry::Struct(s) | Entry::Union(s) => Some(&mut s.members),
        Entry::Function(f) => Some(&mut f.params),
        Entry::Callback(c) => Some(&mut c.params),
        Entry::DefaultStruct(d) => Some(&mut d.members),
        _ => None,
    }
}

/// Keys entries in order: file headers share names across namespaces (`common`), and a macro
/// with alternative definitions (`ZE_APIEXPORT` under two conditions) repeats its name, so the
/// n-th repeat is `name#n`.
#[derive(Default)]
struct Keys(HashMap<String, usize>);

impl Keys {
    fn key(&mut self, ns: &str, e: &Entry) -> String {
        let base = match e {
            Entry::File(f) => format!("{ns}/file:{}", f.title),
            _ => e.name().to_string(),
        };
        let n = self.0.entry(base.clone()).or_default();
        *n += 1;
        if *n == 1 {
            base
        } else {
            format!("{base}#{n}")
        }
    }
}

fn entry_doc_mut(e: &mut Entry) -> &mut Option<String> {
    match e {
        Entry::File(x) => &mut x.doc,
        Entry::Macro(x) => &mut x.doc,
        Entry::Typedef(x) => &mut x.doc,
        Entry::Handle(x) => &mut x.doc,
        Entry::Class(x) => &mut x.doc,
        Entry::Enum(x) | Entry::Flags(x) => &mut x.doc,
        Entry::Struct(x) | Entry::Union(x) => &mut x.doc,
        Entry::Function(x) => &mut x.doc,
        Entry::Callback(x) => &mut x.doc,
        Entry::Env(x) => &mut x.doc,
        Entry::DefaultStruct(x) => &mut x.doc,
    }
}

/// Every description of a loaded spec, by item key.
pub fn collect<'a>(entries: impl IntoIterator<Item = (&'a str, &'a Entry)>) -> Docs {
    let mut out = Docs::new();
    let mut keys = Keys::default();
    for (ns, e) in entries {
        let k = keys.key(ns, e);
        if let Some(d) = e.doc() {
            out.insert(k.clone(), d.to_string());
        }
        for f in fields(e).unwrap_or_default() {
            if let Some(d) = &f.doc {
                out.insert(format!("{k}.{}", f.name), d.clone());
            }
        }
        if let Entry::Enum(en) | Entry::Flags(en) = e {
            for x in &en.etors {
                if let Some(d) = &x.doc {
                    out.insert(format!("{k}.{}", x.name), d.clone());
                }
            }
        }
    }
    out
}

/// Fills every empty `doc:` of `files` from `docs`; returns how many were filled.
pub fn apply(files: &mut [SpecFile], docs: &Docs) -> usize {
    let mut n = 0;
    let mut fill = |slot: &mut Option<String>, k: &str| {
        if slot.is_none() {
            if let Some(d) = docs.get(k) {
                *slot = Some(d.clone());
                n += 1;
            }
        }
    };
    let mut keys = Keys::default();
    for f in files {
        for e in &mut f.entries {
            let k = keys.key(&f.ns, e);
            fill(entry_doc_mut(e), &k);
            if let Some(fs) = fields_mut(e) {
                for x in fs {
                    fill(&mut x.doc, &format!("{k}.{}", x.name));
                }
            }
            if let Entry::Enum(en) | Entry::Flags(en) = e {
                for x in &mut en.etors {
                    fill(&mut x.doc, &format!("{k}.{}", x.name));
                }
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use zekit_codegen::spec::{Enum, Etor, FileHeader};

    fn etor(name: &str, doc: Option<&str>) -> Etor {
        let mut e: Etor = serde_yaml::from_str(&format!("name: {name}\nvalue: '0'")).unwrap();
        e.doc = doc.map(str::to_string);
        e
    }

    #[test]
    fn empty_docs_take_the_current_text_and_present_ones_stay() {
        let old = [
            Entry::File(FileHeader { title: "common".into(), order: 0, doc: Some("ours".into()) }),
            Entry::Enum(Enum {
                name: "e_t".into(),
                class: None,
                since: None,
                doc: Some("old enum".into()),
                etors: vec![etor("E_A", Some("old a")), etor("E_B", Some("old b"))],
            }),
        ];
        let docs = collect(old.iter().map(|e| ("ze", e)));
        let mut files = vec![SpecFile {
            ns: "ze".into(),
            stem: "common".into(),
            entries: vec![
                Entry::File(FileHeader { title: "common".into(), order: 0, doc: None }),
                Entry::Enum(Enum {
                    name: "e_t".into(),
                    class: None,
                    since: None,
                    doc: Some("seed enum".into()),
                    etors: vec![etor("E_A", None), etor("E_B", Some("seed b")), etor("E_C", None)],
                }),
            ],
        }];
        assert_eq!(apply(&mut files, &docs), 2);
        let Entry::File(h) = &files[0].entries[0] else { panic!() };
        assert_eq!(h.doc.as_deref(), Some("ours"));
        let Entry::Enum(e) = &files[0].entries[1] else { panic!() };
        assert_eq!(e.doc.as_deref(), Some("seed enum"), "the seeds' text wins");
        let got: Vec<_> = e.etors.iter().map(|x| x.doc.as_deref()).collect();
        assert_eq!(got, [Some("old a"), Some("seed b"), None]);
    }
}
