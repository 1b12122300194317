//! Comparing the probe outputs and signature errors of the reference and the candidate.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::compile::*;
use super::model::*;
use super::parse::*;
use super::probe::*;
use super::sig::*;
use super::{HEADERS, MAX_LISTED};

/// Item counts of the reference headers.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub structs: usize,
    pub unions: usize,
    pub members: usize,
    pub enums: usize,
    pub etors: usize,
    pub macros: usize,
    pub str_macros: usize,
    pub fn_macros: usize,
    pub typedefs: usize,
    pub functions: usize,
    pub ddi_pfns: usize,
    pub callback_pfns: usize,
    pub ddi_tables: usize,
    pub ddi_members: usize,
    pub probe_lines: usize,
    pub sig_lines: usize,
    pub sig_member_types: usize,
    pub sig_tags: usize,
    pub skipped_macros: Vec<String>,
}

impl Counts {
    /// Structs, members, enumerators, macros, functions and pfn typedefs: the headline count.
    pub fn headline(&self) -> usize {
        self.structs
            + self.unions
            + self.members
            + self.etors
            + self.macros
            + self.functions
            + self.ddi_pfns
            + self.callback_pfns
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "  structs:                    {}", self.structs)?;
        writeln!(f, "  unions:                     {}", self.unions)?;
        writeln!(f, "  struct/union members:       {}", self.members)?;
        writeln!(f, "  enums:                      {}", self.enums)?;
        writeln!(f, "  enumerators:                {}", self.etors)?;
        writeln!(f, "  numeric macros:             {}", self.macros)?;
        writeln!(f, "  string macros:              {}", self.str_macros)?;
        writeln!(f, "  function-like macros:       {}", self.fn_macros)?;
        writeln!(f, "  functions:                  {}", self.functions)?;
        writeln!(f, "  DDI pfn typedefs:           {}", self.ddi_pfns)?;
        writeln!(f, "  callback pfn typedefs:      {}", self.callback_pfns)?;
        writeln!(f, "  other typedefs:             {}", self.typedefs)?;
        writeln!(
            f,
            "  DDI tables (members):       {} ({})",
            self.ddi_tables, self.ddi_members
        )?;
        writeln!(f, "  headline items:             {}", self.headline())?;
        writeln!(f, "  probe lines compared:       {}", self.probe_lines)?;
        writeln!(
            f,
            "  redeclarations checked:     {} (incl. {} member types, {} struct/union/enum tags)",
            self.sig_lines, self.sig_member_types, self.sig_tags
        )?;
        write!(
            f,
            "  macros not compared:        {}",
            self.skipped_macros.join(", ")
        )
    }
}

pub(super) fn count(api: &Api, probes: &[Probe], sigs: &[SigItem]) -> Counts {
    let mut c = Counts {
        probe_lines: probes.len(),
        sig_lines: sigs.len(),
        sig_member_types: sigs.iter().filter(|s| s.cat == SigCat::MemberType).count(),
        sig_tags: sigs.iter().filter(|s| s.cat == SigCat::Tag).count(),
        skipped_macros: api.skipped_macros.clone(),
        ..Counts::default()
    };
    for (_, e) in &api.entities {
        match e {
            Entity::Composite(s) => {
                if s.is_union {
                    c.unions += 1;
                } else {
                    c.structs += 1;
                }
                c.members += s.members.len();
                if s.is_ddi_table() {
                    c.ddi_tables += 1;
                    c.ddi_members += s.members.len();
                }
            }
            Entity::Enum(en) => {
                c.enums += 1;
                c.etors += en.etors.len();
            }
            Entity::Macro(_) => c.macros += 1,
            Entity::StrMacro(_) => c.str_macros += 1,
            Entity::FnMacro(..) => c.fn_macros += 1,
            Entity::Alias { .. } => c.typedefs += 1,
            Entity::Pfn { ddi: true, .. } => c.ddi_pfns += 1,
            Entity::Pfn { ddi: false, .. } => c.callback_pfns += 1,
            Entity::Function { .. } => c.functions += 1,
        }
    }
    c
}

/// Outcome of comparing a candidate include root with the reference.
#[derive(Debug, Default)]
pub struct Report {
    pub counts: Counts,
    /// One line per difference; each line names the item.
    pub differences: Vec<String>,
    /// Differences that are allowed (DDI growth, newer `*_VERSION_CURRENT`).
    pub tolerated: Vec<String>,
}

impl Report {
    pub fn summary(&self, candidate: &str) -> String {
        let mut s = format!(
            "ABI comparison, Debian libze-dev (API 1.4) vs {candidate}:\n{}\n  tolerated differences:      {}\n  differences:                {}",
            self.counts,
            self.tolerated.len(),
            self.differences.len()
        );
        for t in &self.tolerated {
            write!(s, "\n    tolerated: {t}").expect("write to String");
        }
        s
    }

    /// The failure message: count plus the first [`MAX_LISTED`] differences.
    pub fn failure_message(&self, candidate: &str) -> String {
        let mut s = format!(
            "{} ABI differences between Debian libze-dev (API 1.4) and {candidate}:\n",
            self.differences.len()
        );
        for d in self.differences.iter().take(MAX_LISTED) {
            s.push_str("  ");
            s.push_str(d);
            s.push('\n');
        }
        if self.differences.len() > MAX_LISTED {
            writeln!(s, "  ... and {} more", self.differences.len() - MAX_LISTED)
                .expect("write to String");
        }
        write!(s, "total: {} differences", self.differences.len()).expect("write to String");
        s
    }
}

pub(super) fn int(v: &str) -> Option<i128> {
    v.split(' ').next()?.parse().ok()
}

/// Compares `candidate` (an include root holding `level_zero/*.h`) with the reference root.
pub fn compare(reference: &Path, candidate: &Path, work: &Path) -> Result<Report, String> {
    let api = parse_headers(reference)?;
    let probes = probes(&api);
    let sigs = sig_items(&api);
    let counts = count(&api, &probes, &sigs);

    let reference_run = run_probe(&probes, reference, work, "reference")?;
    if let Some((&i, msg)) = reference_run.failed.iter().next() {
        return Err(format!(
            "harness bug: probe item `{}` does not compile against the reference headers: {msg}",
            probes[i].key
        ));
    }
    let reference_sigs = run_signatures(&sigs, reference, work, "reference")?;
    if let Some((i, msg)) = reference_sigs.first() {
        return Err(format!(
            "harness bug: {} does not redeclare cleanly against the reference headers: {msg}\n  {}",
            sigs[*i].what, sigs[*i].line
        ));
    }

    let candidate_run = run_probe(&probes, candidate, work, "candidate")?;
    let candidate_sigs = run_signatures(&sigs, candidate, work, "candidate")?;

    let ptr = std::mem::size_of::<usize>() as i128;
    let mut report = Report {
        counts,
        ..Report::default()
    };
    for (i, p) in probes.iter().enumerate() {
        let want = reference_run
            .values
            .get(&p.key)
            .ok_or_else(|| format!("harness bug: reference probe printed no `{}`", p.key))?;
        let got = match candidate_run.failed.get(&i) {
            Some(msg) => {
                let what = match &p.ddi {
                    Some((t, m, slot)) => {
                        format!(" [DDI table {t}: member {m} (slot {slot}) is missing]")
                    }
                    None => String::new(),
                };
                report.differences.push(format!(
                    "{}: debian={want} generated=<missing: {msg}>{what}",
                    p.key
                ));
                continue;
            }
            None => candidate_run
                .values
                .get(&p.key)
                .ok_or_else(|| format!("harness bug: candidate probe printed no `{}`", p.key))?,
        };
        if got == want {
            continue;
        }
        let line = format!("{}: debian={want} generated={got}", p.key);
        if p.growable {
            let grown = matches!((int(want), int(got)), (Some(w), Some(g)) if g >= w);
            if p.cat == Cat::Offset || grown {
                report.tolerated.push(line);
                continue;
            }
        }
        match &p.ddi {
            Some((t, m, slot)) => {
                let now = int(got).map_or_else(|| "?".to_string(), |g| (g / ptr).to_string());
                report.differences.push(format!(
                    "{line} [DDI table {t}: member {m} moved from slot {slot} to slot {now}; DDI \
                     tables may only grow by appending]"
                ));
            }
            None => report.differences.push(line),
        }
    }
    for (i, msg) in candidate_sigs {
        report.differences.push(format!(
            "signature {}: {msg}\n      redeclared from debian: {}",
            sigs[i].what, sigs[i].line
        ));
    }
    Ok(report)
}

/// Checks that `<root>/level_zero/` holds all six headers; the error names the missing ones.
pub fn missing_headers(root: &Path) -> Vec<PathBuf> {
    HEADERS
        .iter()
        .map(|h| root.join("level_zero").join(h))
        .filter(|p| !p.is_file())
        .collect()
}
