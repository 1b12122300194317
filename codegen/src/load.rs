//! Loading `spec/<ns>/*.yml`: multi-document YAML, each document one [`Entry`],
//! every document remembered with its `file:line`.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::spec::{Entry, FileHeader};

/// The namespaces of the API, in the order their headers depend on each other.
pub const NAMESPACES: [&str; 4] = ["ze", "zet", "zes", "zer"];

/// A place in the spec.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    /// Path relative to the spec root, with `/` separators (`ze/device.yml`).
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A problem found in the spec.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diag {
    pub loc: Loc,
    /// Short rule name, for example `unknown-key` or `dangling-type`.
    pub rule: &'static str,
    pub msg: String,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error[{}]: {}", self.loc, self.rule, self.msg)
    }
}

/// One document of a file, with its location.
#[derive(Debug, Clone)]
pub struct Doc {
    pub entry: Entry,
    pub loc: Loc,
    /// The document's source lines, to find the line of a nested key.
    pub text: String,
}

impl Doc {
    /// Location of the first line at or after the start of this document containing `needle`.
    pub fn loc_of(&self, needle: &str) -> Loc {
        let off = self.text.lines().position(|l| l.contains(needle)).unwrap_or(0);
        Loc { file: self.loc.file.clone(), line: self.loc.line + off }
    }
}

#[derive(Debug, Clone)]
pub struct SpecFile {
    pub ns: String,
    pub stem: String,
    pub path: PathBuf,
    pub header: FileHeader,
    pub docs: Vec<Doc>,
}

/// Every file of the spec, namespace by namespace, each namespace's files in header order.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub files: Vec<SpecFile>,
}

/// Splits multi-document YAML at `---` lines; returns (first line number, text) per document.
fn split_docs(text: &str) -> Vec<(usize, String)> {
    let mut docs = vec![];
    let mut cur = String::new();
    let mut start = 1;
    let mut seen_marker = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("---") {
            if seen_marker || !cur.trim().is_empty() {
                docs.push((start, std::mem::take(&mut cur)));
            }
            cur.clear();
            seen_marker = true;
            start = i + 2;
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
    }
    docs.push((start, cur));
    docs.into_iter()
        .filter(|(_, t)| t.lines().any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')))
        .collect()
}

/// Parses one file's text. `rel` names it in messages.
pub fn parse_file(rel: &str, text: &str) -> Result<Vec<Doc>, Vec<Diag>> {
    let mut docs = vec![];
    let mut diags = vec![];
    for (start, body) in split_docs(text) {
        match serde_yaml::from_str::<Entry>(&body) {
            Ok(entry) => docs.push(Doc { entry, loc: Loc { file: rel.to_string(), line: start }, text: body }),
            Err(e) => {
                let msg = e.to_string();
                // Point at the offending key where serde names one.
                let key = msg
                    .split("unknown field `")
                    .nth(1)
                    .or_else(|| msg.split("unknown variant `").nth(1))
                    .and_then(|r| r.split('`').next());
                let mut line = start + e.location().map(|l| l.line().saturating_sub(1)).unwrap_or(0);
                let mut rule = "parse";
                if let Some(k) = key {
                    rule = if msg.contains("unknown field") { "unknown-key" } else { "unknown-kind" };
                    if let Some(off) = body.lines().position(|l| {
                        let t = l.trim_start().trim_start_matches("- ");
                        t.starts_with(&format!("{k}:")) || t.contains(&format!(": {k}"))
                    }) {
                        line = start + off;
                    }
                }
                let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                diags.push(Diag { loc: Loc { file: rel.to_string(), line }, rule, msg });
            }
        }
    }
    if diags.is_empty() {
        Ok(docs)
    } else {
        Err(diags)
    }
}

/// Loads every `*.yml` under `root/<ns>/` for the known namespaces (files are parsed on
/// every core; the result does not depend on it).
pub fn load_dir(root: &Path) -> Result<Loaded, Vec<Diag>> {
    let mut diags = vec![];
    let mut paths: Vec<(&str, PathBuf)> = vec![];
    for ns in NAMESPACES {
        let Ok(rd) = std::fs::read_dir(root.join(ns)) else { continue };
        let mut ns_paths: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
            .collect();
        ns_paths.sort();
        paths.extend(ns_paths.into_iter().map(|p| (ns, p)));
    }
    let parsed = crate::jobs::par_map(&paths, |(ns, path)| {
        let rel = format!("{ns}/{}", path.file_name().unwrap_or_default().to_string_lossy());
        match std::fs::read_to_string(path) {
            Ok(text) => parse_file(&rel, &text),
            Err(e) => Err(vec![Diag { loc: Loc { file: rel, line: 0 }, rule: "io", msg: e.to_string() }]),
        }
    });
    let mut files: Vec<SpecFile> = vec![];
    for ((ns, path), result) in paths.into_iter().zip(parsed) {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy().to_string();
        let rel = format!("{ns}/{}", path.file_name().unwrap_or_default().to_string_lossy());
        match result {
            Ok(mut docs) => {
                let header = match docs.first().map(|d| &d.entry) {
                    Some(Entry::File(h)) => h.clone(),
                    _ => {
                        diags.push(Diag {
                            loc: Loc { file: rel.clone(), line: 1 },
                            rule: "file-header",
                            msg: "the first document of a spec file must be `kind: file`".into(),
                        });
                        continue;
                    }
                };
                docs.remove(0);
                for d in &docs {
                    if let Entry::File(_) = d.entry {
                        diags.push(Diag {
                            loc: d.loc.clone(),
                            rule: "file-header",
                            msg: "only the first document may be `kind: file`".into(),
                        });
                    }
                }
                files.push(SpecFile { ns: ns.to_string(), stem, path, header, docs });
            }
            Err(d) => diags.extend(d),
        }
    }
    // Namespace by namespace, each in header order.
    files.sort_by(|a, b| {
        let ns = |f: &SpecFile| NAMESPACES.iter().position(|ns| *ns == f.ns);
        (ns(a), a.header.order, &a.stem).cmp(&(ns(b), b.header.order, &b.stem))
    });
    if diags.is_empty() {
        Ok(Loaded { files })
    } else {
        diags.sort();
        Err(diags)
    }
}
