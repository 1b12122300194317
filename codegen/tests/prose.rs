//! No upstream-only prose in spec/: every sentence of the upstream reference's
//! descriptions (four words or more) is absent from spec/, unless the seed pages
//! (whose text seed items use) contain it too.

use std::path::Path;

fn read_tree(dir: &Path, ext: &str, out: &mut String) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            read_tree(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push_str(&std::fs::read_to_string(&p).unwrap());
            out.push('\n');
        }
    }
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Sentences of every `desc:` and `details:` text (quoted or block) in the upstream YAML.
fn upstream_sentences(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut block: Option<usize> = None;
    let mut buf = String::new();
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(i) = block {
            if line.trim().is_empty() || indent > i {
                buf.push(' ');
                buf.push_str(line.trim());
                continue;
            }
            block = None;
        }
        let t = line.trim_start().trim_start_matches("- ");
        let prose = t.starts_with("desc:") || t.starts_with('"') || t.starts_with("\"1.");
        if prose || t.starts_with("details:") {
            let v = t.split_once(':').map(|x| x.1).unwrap_or(t).trim();
            if v == "|" || v.is_empty() {
                block = Some(indent);
            } else {
                buf.push(' ');
                buf.push_str(v.trim_matches('"'));
            }
        }
    }
    for s in buf.split(['.', ';', '\n']) {
        let s = norm(s.replace("\\\"", "").trim_matches(|c: char| c == '"' || c.is_whitespace()).trim());
        let s = s.split(']').next_back().unwrap_or("").trim().to_string();
        if s.split_whitespace().count() >= 4 && !s.contains('$') {
            out.push(s);
        }
    }
    out
}

#[test]
fn no_upstream_only_prose_in_spec() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut upstream = String::new();
    read_tree(&root.join("../shared/reference/level-zero-spec-v1.17.24"), "yml", &mut upstream);
    let mut spec = String::new();
    read_tree(&root.join("spec"), "yml", &mut spec);
    let mut seeds = String::new();
    read_tree(&root.join("../shared/seeds"), "txt", &mut seeds);
    let spec = norm(&spec.lines().map(|l| l.trim_start().trim_start_matches("- ")).collect::<Vec<_>>().join(" "));
    let seeds = norm(&seeds);
    let sentences = upstream_sentences(&upstream);
    assert!(sentences.len() > 1000, "found only {} upstream sentences", sentences.len());
    let copied: Vec<&String> = sentences.iter().filter(|s| spec.contains(s.as_str()) && !seeds.contains(s.as_str())).collect();
    assert!(copied.is_empty(), "{} upstream-only sentences in spec/, e.g. {:?}", copied.len(), &copied[..copied.len().min(10)]);
}
