//! The IR as text (`ZEKIT_SPIRV_DUMP=ir`, [`crate::ir_text`], the file tests of
//! `spirv/tests/filetests.rs`): a header line per kernel, then each block with its parameters and
//! their types, one instruction a line (`v7: f32 = Bin(FAdd, v5, v6)`, effects without a result
//! as the operation alone) and its terminator. Values print as `vN`, blocks as `blockN`; the
//! operations print as their Rust form, so the text names every field.

use std::fmt;

use super::{Kernel, Term};

/// `Value(N)` and `BlockId(N)` of a Rust-form operation, as `vN` and `blockN`.
fn names(debug: String) -> String {
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug.as_str();
    while let Some(i) = rest.find(['V', 'B']) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let (prefix, short) = if tail.starts_with("Value(") {
            ("Value(", "v")
        } else if tail.starts_with("BlockId(") {
            ("BlockId(", "block")
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
            continue;
        };
        let after = &tail[prefix.len()..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(short);
            out.push_str(&after[..digits]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(prefix);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "kernel {} (private {} bytes, sub-groups of {})",
            self.name, self.private_size, self.sub_group_size
        )?;
        for (b, block) in self.blocks.iter().enumerate() {
            let params: Vec<String> = block
                .params
                .iter()
                .map(|v| format!("v{}: {:?}", v.0, self.ty(*v)).to_lowercase())
                .collect();
            writeln!(f, "block{b}({}):", params.join(", "))?;
            for inst in &block.insts {
                let op = names(format!("{:?}", inst.op));
                match inst.result {
                    Some(v) => writeln!(f, "    v{}: {} = {op}", v.0, format!("{:?}", self.ty(v)).to_lowercase())?,
                    None => writeln!(f, "    {op}")?,
                }
            }
            let term = match &block.term {
                Term::Jump(t, args) => format!("jump {}", target(*t, args)),
                Term::Branch(c, (a, aa), (b, ba)) => {
                    format!("branch v{}, {}, {}", c.0, target(*a, aa), target(*b, ba))
                }
                Term::Switch(v, d, cases) => {
                    let cases: Vec<String> = cases.iter().map(|(k, t)| format!("{k} => block{}", t.0)).collect();
                    format!("switch v{}, default block{}, [{}]", v.0, d.0, cases.join(", "))
                }
                Term::Return => "return".into(),
                Term::Unreachable => "unreachable".into(),
                Term::Barrier(t) => format!("barrier, then block{}", t.0),
                Term::None => "(no terminator)".into(),
            };
            writeln!(f, "    {term}")?;
        }
        Ok(())
    }
}

/// `blockN(vA, vB)`.
fn target(t: super::BlockId, args: &[super::Value]) -> String {
    let args: Vec<String> = args.iter().map(|v| format!("v{}", v.0)).collect();
    format!("block{}({})", t.0, args.join(", "))
}
