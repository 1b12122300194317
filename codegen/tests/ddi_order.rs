//! DDI tables in exactly the official order: pinned against the table lists of the
//! official loader headers of API 1.18 (codegen/tests/data/ddi-order/<ns>.txt).
//! The Debian 1.4 headers pin the older prefix of every table (tests/abi_debian.rs).

use std::collections::BTreeMap;
use std::path::Path;

use zekit_codegen::model::{strip_ns, Version};

fn official(ns: &str) -> Vec<(String, Vec<String>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/ddi-order/{ns}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out: Vec<(String, Vec<String>)> = vec![];
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("table ") {
            out.push((rest.split_whitespace().next().unwrap().to_string(), vec![]));
        } else {
            out.last_mut().unwrap().1.push(line.trim().to_string());
        }
    }
    out.retain(|(t, _)| t != &format!("{ns}_dditable_t"));
    out
}

#[test]
fn ddi_tables_follow_the_official_order() {
    let api = zekit_codegen::load_api(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec")).unwrap();
    let mut problems = vec![];
    for ns in ["ze", "zet", "zes", "zer"] {
        let ours = api.ddi_tables(ns);
        let theirs = official(ns);
        let ours_names: Vec<&str> = ours.iter().map(|t| t.type_name.as_str()).collect();
        let theirs_names: Vec<&str> = theirs.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(ours_names, theirs_names, "{ns}: table order");
        let official_members: BTreeMap<&str, &Vec<String>> = theirs.iter().map(|(t, m)| (t.as_str(), m)).collect();
        for t in &ours {
            let members: Vec<(String, Version)> = t
                .functions
                .iter()
                .map(|r| {
                    let f = api.function(*r);
                    let class_short = strip_ns(&f.class, ns);
                    (format!("pfn{}", strip_ns(strip_ns(&f.name, ns), class_short)), Version::of(f.since.as_deref()))
                })
                .collect();
            let off = official_members[t.type_name.as_str()];
            // Every slot we have is the official slot.
            for (i, (m, _)) in members.iter().enumerate() {
                if off.get(i) != Some(m) {
                    problems.push(format!("{}: slot {i} is {m}, official {:?}", t.type_name, off.get(i)));
                }
            }
            // Whatever the official table has beyond ours is newer than the spec (1.18 only).
            for m in off.iter().skip(members.len()) {
                eprintln!("{}: official 1.18 entry {m} is not in the spec (newer than v1.17.24 and not a seed item)", t.type_name);
            }
        }
    }
    assert!(problems.is_empty(), "{} slot differences:\n{}", problems.len(), problems.join("\n"));
}
