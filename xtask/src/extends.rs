//! `extends:` facts: the `pNext` chains a struct may be passed in.
//!
//! Upstream (and the seed pages) state them in sentences such as "This structure may be passed
//! to zeMemAllocDevice, via the `pNext` member of ze_device_mem_alloc_desc_t". Only names carry
//! over: every sentence of a struct's text that mentions `pNext` is reduced to the struct and
//! function names it contains, and the words around `pNext` decide which name is the extension
//! and which the chain's head:
//!
//! - `pNext [member|parameter] of this structure ... X`: X extends the struct the text belongs to;
//! - `pNext [member|parameter] of|to|in H ...`: the struct extends H (the structs named after
//!   `pNext`; when none, the functions the sentence names, see [`Names::heads_of_function`]);
//!   when the text's own struct is among them, the structs named before `pNext` extend it
//!   ("X must be attached via pNext member of <this struct>");
//! - `... H via its pNext member`: the struct extends H, named before `pNext`;
//! - `... via pNext member` (no head named): the functions the sentence names;
//! - otherwise (`use X as pNext`, `pNext should be pointing to X or Y`): the structs named
//!   extend the text's own struct.
//!
//! A function named as the head stands for its descriptor: the single-pointer parameters whose
//! struct has a `pNext`; a function without one but with a `pNext` parameter of its own is the
//! head itself. Facts that cannot be derived this way live in `xtask/data/seed-facts.yml`.

use std::collections::{BTreeMap, BTreeSet};

use zekit_codegen::model::CType;
use zekit_codegen::spec::*;

use crate::import::{Report, SpecFile};

/// A sentence of some struct's text that mentions `pNext`.
#[derive(Debug, Clone)]
pub struct Sentence {
    /// The struct whose description, details or member text holds it.
    pub owner: String,
    pub text: String,
}

/// Splits text into sentences: at `.` or `;` followed by white space, and at line ends.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            out.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push(c);
        if (c == '.' || c == ';') && chars.peek().is_some_and(|n| n.is_whitespace()) {
            out.push(std::mem::take(&mut cur));
        }
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// The sentences of `texts` (all belonging to struct `owner`) that mention `pNext`.
pub fn pnext_sentences(owner: &str, texts: &[String]) -> Vec<Sentence> {
    let mut out = vec![];
    for t in texts {
        // Upstream also writes tags as `${x}`.
        let t = t.replace("${x}", "ze").replace("${t}", "zet").replace("${s}", "zes").replace("${r}", "zer");
        for s in sentences(&t) {
            if s.to_ascii_lowercase().contains("pnext") {
                out.push(Sentence { owner: owner.to_string(), text: s });
            }
        }
    }
    out
}

/// What the extraction needs to know about the spec's names.
pub struct Names {
    /// Struct name → (has a `pNext` member, has a structure type).
    structs: BTreeMap<String, (bool, bool)>,
    /// Function name → its parameters.
    functions: BTreeMap<String, Vec<Field>>,
}

impl Names {
    pub fn new(files: &[SpecFile]) -> Names {
        let mut structs = BTreeMap::new();
        let mut functions = BTreeMap::new();
        for e in files.iter().flat_map(|f| &f.entries) {
            match e {
                Entry::Struct(s) => {
                    let chainable = s.base.is_some() || s.members.iter().any(|m| m.name == "pNext");
                    structs.insert(s.name.clone(), (chainable, !s.stype.is_empty()));
                }
                Entry::Function(f) => {
                    functions.insert(f.name.clone(), f.params.clone());
                }
                _ => {}
            }
        }
        Names { structs, functions }
    }

    fn is_struct(&self, n: &str) -> bool {
        self.structs.contains_key(n)
    }

    /// A name a chain may start at: a struct with `pNext`, or a function with a `pNext` parameter.
    pub fn is_head(&self, n: &str) -> bool {
        self.structs.get(n).is_some_and(|s| s.0)
            || self.functions.get(n).is_some_and(|ps| ps.iter().any(|p| p.name == "pNext"))
    }

    /// A struct that may be a link of a chain (it has a structure type and a `pNext`).
    pub fn is_extension(&self, n: &str) -> bool {
        self.structs.get(n).is_some_and(|s| s.0 && s.1)
    }

    /// The chain heads a function stands for: its single-pointer struct parameters that have a
    /// `pNext`; else the function itself when it has a `pNext` parameter.
    pub fn heads_of_function(&self, f: &str) -> Vec<String> {
        let Some(params) = self.functions.get(f) else { return vec![] };
        let mut out: Vec<String> = params
            .iter()
            .filter_map(|p| {
                let t = CType::parse(&p.ty);
                (t.ptrs.len() == 1 && self.structs.get(&t.base).is_some_and(|s| s.0)).then_some(t.base)
            })
            .collect();
        out.dedup();
        if out.is_empty() && params.iter().any(|p| p.name == "pNext") {
            out.push(f.to_string());
        }
        out
    }

    fn names_in(&self, text: &str) -> (Vec<String>, Vec<String>) {
        let (mut structs, mut funcs) = (vec![], vec![]);
        for tok in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if self.is_struct(tok) && !structs.iter().any(|s| s == tok) {
                structs.push(tok.to_string());
            } else if self.functions.contains_key(tok) && !funcs.iter().any(|s| s == tok) {
                funcs.push(tok.to_string());
            }
        }
        (structs, funcs)
    }
}

/// (extension, head) pairs a sentence states, or why it states none it could resolve.
pub fn facts_of(s: &Sentence, names: &Names) -> Result<Vec<(String, String)>, String> {
    let lower = s.text.to_ascii_lowercase();
    let Some(p) = lower.find("pnext") else { return Ok(vec![]) };
    let (before, after) = (&s.text[..p], &s.text[p + "pnext".len()..]);
    let a = after.trim_start_matches(['`', '\'', ' ']).to_ascii_lowercase();
    let ends_word = |r: &str| r.is_empty() || r.starts_with(|c: char| !c.is_ascii_alphanumeric());
    let word = |w: &str| a.strip_prefix(w).is_some_and(ends_word);
    let (all, funcs) = names.names_in(&s.text);
    let (before_structs, _) = names.names_in(before);
    let (after_structs, _) = names.names_in(after);
    let owner = s.owner.as_str();
    let others = |v: &[String]| v.iter().filter(|n| *n != owner).cloned().collect::<Vec<_>>();
    let via_functions = || -> Result<Vec<String>, String> {
        let mut heads = vec![];
        for f in &funcs {
            let h = names.heads_of_function(f);
            if h.len() > 1 {
                return Err(format!("function `{f}` has several descriptors ({}): which one is meant", h.join(", ")));
            }
            heads.extend(h);
        }
        Ok(heads)
    };
    let rest = a.trim_start_matches("member").trim_start_matches("parameter").trim_start();
    let (heads, exts): (Vec<String>, Vec<String>) = if rest.starts_with("of this structure") {
        (vec![owner.to_string()], others(&all))
    } else if ["of", "to", "in"].iter().any(|w| rest.strip_prefix(w).is_some_and(ends_word)) {
        let mut heads = after_structs.clone();
        if heads.is_empty() {
            heads = via_functions()?;
        }
        let mut exts: Vec<String> = vec![];
        if heads.iter().any(|h| h == owner) {
            exts = others(&before_structs).into_iter().filter(|n| !heads.contains(n)).collect();
        }
        if exts.is_empty() {
            exts.push(owner.to_string());
        }
        (heads, exts)
    } else if before.trim_end().trim_end_matches('`').ends_with(" its") {
        (others(&before_structs), vec![owner.to_string()])
    } else if word("member") || word("parameter") {
        (via_functions()?, vec![owner.to_string()])
    } else {
        (vec![owner.to_string()], others(&all))
    };
    let mut out = vec![];
    for e in &exts {
        for h in &heads {
            if !names.is_extension(e) {
                return Err(format!("`{e}` has no structure type and `pNext`"));
            }
            if !names.is_head(h) {
                return Err(format!("`{h}` has no `pNext` to chain into"));
            }
            out.push((e.clone(), h.clone()));
        }
    }
    Ok(out)
}

/// How many new (extension, head) pairs each source gave.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub prose: usize,
    pub seeds: usize,
    pub data: usize,
}

/// Adds `head` to the `extends` of struct `ext`; whether it is new.
fn add(files: &mut [SpecFile], ext: &str, head: &str) -> Result<bool, String> {
    for e in files.iter_mut().flat_map(|f| f.entries.iter_mut()) {
        if let Entry::Struct(s) = e {
            if s.name == ext {
                if s.extends.iter().any(|h| h == head) {
                    return Ok(false);
                }
                s.extends.push(head.to_string());
                return Ok(true);
            }
        }
    }
    Err(format!("extends: struct `{ext}` is not in the spec"))
}

/// Fills every struct's `extends` from upstream sentences, then the seeds', then the data file's
/// facts (`(struct, heads, source)`). Returns how many pairs each source added.
pub fn apply(
    files: &mut [SpecFile],
    upstream: &[Sentence],
    seeds: &[Sentence],
    data: &[(String, Vec<String>, String)],
    report: &mut Report,
) -> Result<Counts, String> {
    let names = Names::new(files);
    let mut counts = Counts::default();
    let mut stating = BTreeSet::new();
    for (which, list) in [("upstream", upstream), ("seeds", seeds)] {
        for s in list {
            match facts_of(s, &names) {
                Ok(pairs) => {
                    if !pairs.is_empty() {
                        stating.insert((which, s.owner.clone(), s.text.clone()));
                    }
                    for (e, h) in pairs {
                        if add(files, &e, &h)? {
                            if which == "upstream" {
                                counts.prose += 1;
                            } else {
                                counts.seeds += 1;
                            }
                        }
                    }
                }
                Err(why) => report.notes.push(format!("extends: {which} text of {} not used: {why}", s.owner)),
            }
        }
    }
    for (ext, heads, source) in data {
        if source.trim().is_empty() {
            return Err(format!("seed-facts: extends of {ext} has no source"));
        }
        for h in heads {
            if !names.is_extension(ext) || !names.is_head(h) {
                return Err(format!("seed-facts: `{ext}` cannot extend `{h}` (no such chainable struct or head)"));
            }
            if add(files, ext, h)? {
                counts.data += 1;
            } else {
                report.notes.push(format!("seed-facts: `{ext}` extends `{h}` is already derived; drop it from the data file"));
            }
        }
    }
    let upstream_sentences = stating.iter().filter(|s| s.0 == "upstream").count();
    report.notes.push(format!(
        "extends: {} pairs from {upstream_sentences} upstream sentences, {} from the seeds, {} from seed-facts.yml",
        counts.prose, counts.seeds, counts.data
    ));
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny spec: two descriptors, an extension, a properties struct, and functions.
    fn names() -> Names {
        let docs = [
            "{kind: struct, name: ze_a_desc_t, base: ze_base_desc_t, stype: [A], members: []}",
            "{kind: struct, name: ze_b_desc_t, base: ze_base_desc_t, stype: [B], members: []}",
            "{kind: struct, name: ze_x_ext_desc_t, base: ze_base_desc_t, stype: [X], members: []}",
            "{kind: struct, name: ze_y_ext_desc_t, base: ze_base_desc_t, stype: [Y], members: []}",
            "{kind: struct, name: ze_plain_t, members: []}",
            "{kind: function, name: zeThingCreate, class: zeThing, params: [{name: desc, type: const ze_a_desc_t*}]}",
            "{kind: function, name: zeThingRun, class: zeThing, params: [{name: pNext, type: const void*}]}",
            "{kind: function, name: zeThingBoth, class: zeThing, params: [{name: a, type: ze_a_desc_t*}, {name: b, type: ze_b_desc_t*}]}",
        ];
        let entries = docs.iter().map(|d| serde_yaml::from_str::<Entry>(d).unwrap()).collect();
        Names::new(&[SpecFile { ns: "ze".into(), stem: "t".into(), entries }])
    }

    fn facts(owner: &str, text: &str) -> Result<Vec<(String, String)>, String> {
        let s = pnext_sentences(owner, &[text.to_string()]);
        assert_eq!(s.len(), 1, "{text}");
        facts_of(&s[0], &names())
    }

    fn pairs(v: &[(&str, &str)]) -> Result<Vec<(String, String)>, String> {
        Ok(v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect())
    }

    #[test]
    fn reads_the_upstream_phrasings() {
        let x = "ze_x_ext_desc_t";
        for (text, want) in [
            ("This structure may be passed to zeThingCreate, via the `pNext` member of ze_a_desc_t.", vec![(x, "ze_a_desc_t")]),
            ("May be passed via the `pNext` member of ze_a_desc_t or of ze_b_desc_t, respectively.", vec![(x, "ze_a_desc_t"), (x, "ze_b_desc_t")]),
            ("Passed as pNext to ze_b_desc_t", vec![(x, "ze_b_desc_t")]),
            ("Query it using `pNext` of ze_a_desc_t", vec![(x, "ze_a_desc_t")]),
            ("This structure can be passed in the 'pNext' of ze_b_desc_t", vec![(x, "ze_b_desc_t")]),
            ("Passed by having the pNext member of ze_a_desc_t point at this struct.", vec![(x, "ze_a_desc_t")]),
            ("May be passed to zeThingCreate in conjunction with ze_b_desc_t via its pNext member", vec![(x, "ze_b_desc_t")]),
            ("Can be passed as an extension structure to zeThingCreate via pNext member", vec![(x, "ze_a_desc_t")]),
            ("Accepted as pNext in zeThingRun.", vec![(x, "zeThingRun")]),
            ("Pass this structure via the pNext parameter of zeThingRun.", vec![(x, "zeThingRun")]),
            ("Must be null or a pointer to an extension-specific structure (i.e. contains stype and pNext).", vec![]),
        ] {
            assert_eq!(facts(x, text), pairs(&want), "{text}");
        }
        // The other direction: the text's struct is the head.
        assert_eq!(
            facts("ze_a_desc_t", "To get it, pNext member of this structure should point to an instance of ${x}_x_ext_desc_t."),
            pairs(&[(x, "ze_a_desc_t")])
        );
        assert_eq!(facts("ze_a_desc_t", "Please use ze_x_ext_desc_t as pNext."), pairs(&[(x, "ze_a_desc_t")]));
        assert_eq!(
            facts("ze_a_desc_t", "pNext should be pointing to one of: ze_x_ext_desc_t or ze_y_ext_desc_t."),
            pairs(&[(x, "ze_a_desc_t"), ("ze_y_ext_desc_t", "ze_a_desc_t")])
        );
        assert_eq!(
            facts("ze_a_desc_t", "When set, ze_x_ext_desc_t must be attached via pNext member of ze_a_desc_t."),
            pairs(&[(x, "ze_a_desc_t")])
        );
    }

    #[test]
    fn refuses_what_it_cannot_resolve() {
        assert!(facts("ze_x_ext_desc_t", "May be passed to zeThingBoth via pNext member").unwrap_err().contains("several descriptors"));
        assert!(facts("ze_plain_t", "Passed as pNext to ze_a_desc_t").unwrap_err().contains("no structure type"));
        assert!(facts("ze_x_ext_desc_t", "Passed as pNext to ze_plain_t").unwrap_err().contains("no `pNext`"));
    }

    #[test]
    fn splits_sentences() {
        assert_eq!(
            sentences("A b. C via `pNext`; D (i.e. e).\nF"),
            ["A b.", "C via `pNext`;", "D (i.e.", "e).", "F"]
        );
    }
}
