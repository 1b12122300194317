//! Barriers. A kernel's work-items run one after the other inside its work-group function, so
//! a work-group barrier splits the kernel into *regions*: every work-item runs region 0, then
//! every work-item runs region 1, and so on. This is possible when each barrier is reached by
//! every work-item exactly once — a barrier on the kernel's main path, not inside a loop or a
//! branch (after inlining). Other barriers are refused with a build error naming them.
//!
//! Values defined in one region and used in a later one are *spilled*: stored per work-item at
//! their definition, loaded where they are used. Private variables live per work-item too.

use std::collections::HashMap;

use crate::ir::{BlockId, Kernel, Op, Term, Value};
use crate::Error;

/// How a kernel splits at its barriers.
#[derive(Debug, Default)]
pub struct Regions {
    /// Region of each block, `None` for blocks never reached.
    pub region_of: Vec<Option<u32>>,
    /// First block of each region, in order.
    pub starts: Vec<BlockId>,
    /// Spill slot (byte offset) of the values used outside the region defining them.
    pub spills: HashMap<Value, u32>,
    /// Bytes of spill slots per work-item.
    pub spill_size: u32,
    /// Region of the definition of each value (for spilled ones).
    pub def_region: HashMap<Value, u32>,
}

/// The values an operation reads.
pub fn operands(op: &Op) -> Vec<Value> {
    match op {
        Op::Bin(_, a, b) | Op::Cmp(_, a, b) | Op::Atomic(_, a, b) | Op::AtomicStore(a, b) => {
            vec![*a, *b]
        }
        Op::Un(_, a) | Op::Conv(_, a) | Op::Load(a) | Op::AtomicLoad(a) | Op::BuiltinDyn(_, a) => {
            vec![*a]
        }
        Op::Select(a, b, c) | Op::AtomicCas(a, b, c) => vec![*a, *b, *c],
        Op::Store { addr, value } => vec![*addr, *value],
        Op::Copy { dst, src, size } => vec![*dst, *src, *size],
        Op::Math(_, v) => v.clone(),
        Op::Const(_)
        | Op::Builtin(..)
        | Op::ArgAddr(_)
        | Op::PrivateAddr(_)
        | Op::LocalAddr(_)
        | Op::GlobalAddr(_)
        | Op::Barrier => vec![],
    }
}

/// The values a terminator reads.
pub fn term_operands(t: &Term) -> Vec<Value> {
    match t {
        Term::Jump(_, a) => a.clone(),
        Term::Branch(c, (_, a), (_, b)) => {
            let mut v = vec![*c];
            v.extend(a);
            v.extend(b);
            v
        }
        Term::Switch(c, ..) => vec![*c],
        _ => vec![],
    }
}

/// Splits blocks at their barriers and computes the regions; `Err` names a barrier that is not
/// on the kernel's main path.
pub fn split(k: &mut Kernel) -> Result<Regions, Error> {
    let mut i = 0;
    while i < k.blocks.len() {
        if let Some(p) = k.blocks[i].insts.iter().position(|x| x.op == Op::Barrier) {
            let nb = k.new_block();
            let rest: Vec<_> = k.blocks[i].insts.drain(p..).skip(1).collect();
            let term = std::mem::replace(&mut k.blocks[i].term, Term::Barrier(nb));
            k.blocks[nb.0 as usize].insts = rest;
            k.blocks[nb.0 as usize].term = term;
        }
        i += 1;
    }
    let mut r = Regions {
        region_of: vec![None; k.blocks.len()],
        ..Regions::default()
    };
    let refuse = |n: usize| {
        Error::unsupported(format!(
            "OpControlBarrier number {n} is inside a loop or a branch (or not reached by every \
             work-item): only barriers on the kernel's main path can be split into regions for now"
        ))
    };
    let mut start = Some(BlockId(0));
    while let Some(s) = start.take() {
        let region = r.starts.len() as u32;
        r.starts.push(s);
        let mut stack = vec![s];
        let mut next = Vec::new();
        let mut returns = false;
        while let Some(b) = stack.pop() {
            match r.region_of[b.0 as usize] {
                Some(x) if x == region => continue,
                Some(_) => return Err(refuse(region as usize)),
                None => r.region_of[b.0 as usize] = Some(region),
            }
            match &k.blocks[b.0 as usize].term {
                Term::Barrier(t) => next.push(*t),
                Term::Return => returns = true,
                _ => stack.extend(k.successors(b)),
            }
        }
        next.dedup();
        if next.len() > 1 || (!next.is_empty() && returns) {
            return Err(refuse(region as usize + 1));
        }
        if let Some(n) = next.first() {
            if r.region_of[n.0 as usize].is_some() {
                return Err(refuse(region as usize + 1));
            }
            start = Some(*n);
        }
    }
    if r.starts.len() == 1 {
        return Ok(r);
    }
    for (bi, b) in k.blocks.iter().enumerate() {
        let Some(reg) = r.region_of[bi] else { continue };
        for p in &b.params {
            r.def_region.insert(*p, reg);
        }
        for inst in &b.insts {
            if let Some(v) = inst.result {
                r.def_region.insert(v, reg);
            }
        }
    }
    for (bi, b) in k.blocks.iter().enumerate() {
        let Some(reg) = r.region_of[bi] else { continue };
        let uses = b
            .insts
            .iter()
            .flat_map(|i| operands(&i.op))
            .chain(term_operands(&b.term));
        for v in uses {
            if r.def_region.get(&v).is_some_and(|d| *d != reg) && !r.spills.contains_key(&v) {
                r.spills.insert(v, r.spill_size);
                r.spill_size += 8;
            }
        }
    }
    Ok(r)
}
