//! Barriers. A kernel's work-items run one after the other inside its work-group function, so
//! a work-group barrier is a point where each work-item stops until every other one got there.
//!
//! The kernel is split into *segments*: one starting at its entry and one starting after each
//! barrier, each made of the blocks reachable from its start without crossing a barrier
//! (segments may share blocks: the backend gives each segment its own copy). The work-group
//! function then runs in *rounds*: in each round every work-item that is not finished runs
//! from where it stopped (its segment) up to its next barrier or its end, recording which
//! segment it resumes at. A round ends when every work-item has stopped, which is what a barrier
//! means; barriers inside loops and branches work as long as every work-item reaches the same
//! barriers (OpenCL's rule for barriers). Kernels without barriers have one segment and one
//! round.
//!
//! A value is *spilled* (stored per work-item where it is defined, loaded where it is used)
//! when some use in a segment is not dominated by its definition inside that segment: the
//! value then comes from an earlier round. Private variables live per work-item too. Values
//! that are cheap to compute again from what every round has ([`Regions::remat`]: constants,
//! memory addresses, built-ins, read-only argument words and a few pure operations on them) are
//! recomputed where used instead of spilled.
//!
//! Sub-group barriers ([`Op::SubgroupBarrier`], the sub-group collectives' and non-uniform
//! operations') start segments of their own, numbered last in reverse postorder: a work-item
//! stopped at one waits while a work-item of its sub-group is at an earlier one, and work-items
//! at work-group barriers wait while any work-item is at one (see `backend/scalar.rs`).

use std::collections::{HashMap, HashSet};

use crate::ir::{BinOp, BlockId, Kernel, Op, Term, Value};
use crate::ir::verify::{dominates, dominators_of};
use crate::Error;

pub use crate::ir::{operands, term_operands};

/// Most block copies the segments of a kernel may add up to.
const MAX_COPIES: usize = 1 << 18;

/// How a kernel splits at its barriers.
#[derive(Debug, Default)]
pub struct Regions {
    /// First block of each segment: block 0, then the block after each barrier.
    pub starts: Vec<BlockId>,
    /// Blocks of each segment, in reverse postorder of the segment's graph.
    pub blocks: Vec<Vec<usize>>,
    /// Segment started by each barrier's target block.
    pub segment_of: HashMap<u32, u32>,
    /// Segments that start after a sub-group barrier ([`Op::SubgroupBarrier`]): the last
    /// ones, from [`Regions::sub_first`] on, in reverse postorder of their start blocks in the
    /// kernel's whole control flow (barrier edges included).
    pub sub_segments: HashSet<u32>,
    /// The first sub-group barrier segment (the number of segments when there is none).
    pub sub_first: u32,
    /// Immediate dominators inside each segment, by block (`None`: not in the segment).
    idom: Vec<Vec<Option<usize>>>,
    /// Where each value is defined: block, and position (parameters 0, instruction `i` at
    /// `i + 1`).
    def_at: Vec<Option<(usize, usize)>>,
    /// Spill slot (byte offset) of each spilled value.
    pub spills: HashMap<Value, u32>,
    /// Bytes of spill slots per work-item.
    pub spill_size: u32,
    /// Values recomputed where a later round uses them instead of spilled (see the module
    /// documentation).
    pub remat: HashSet<Value>,
}

impl Regions {
    /// True when the kernel has barriers (more than one segment).
    pub fn barriers(&self) -> bool {
        self.starts.len() > 1
    }

    /// Where `v` is defined: block, and position (parameters 0, instruction `i` at `i + 1`).
    pub fn def_of(&self, v: Value) -> Option<(usize, usize)> {
        self.def_at.get(v.0 as usize).copied().flatten()
    }

    /// True when block `b` belongs to segment `seg`.
    pub fn contains(&self, seg: usize, b: usize) -> bool {
        self.idom[seg].get(b).is_some_and(|d| d.is_some())
    }

    /// True when a use of `v` at position `pos` of block `b` in segment `seg` sees the value
    /// defined in the same segment (else it comes from an earlier round: a spill slot).
    pub fn direct(&self, seg: usize, v: Value, b: usize, pos: usize) -> bool {
        let Some(Some((db, dp))) = self.def_at.get(v.0 as usize).copied() else {
            return false;
        };
        if !self.contains(seg, db) {
            return false;
        }
        if db == b {
            return dp < pos || (dp == 0 && pos == 0);
        }
        dominates(&self.idom[seg], db, b)
    }
}

/// Successors within a segment: every edge but a barrier's.
fn inner_successors(k: &Kernel, b: usize) -> Vec<usize> {
    match &k.blocks[b].term {
        Term::Barrier(_) => vec![],
        _ => k
            .successors(BlockId(b as u32))
            .iter()
            .map(|s| s.0 as usize)
            .collect(),
    }
}

/// Reverse postorder index of each block reachable from the entry, over every edge.
fn rpo_index(k: &Kernel) -> Vec<usize> {
    let n = k.blocks.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack = vec![(0usize, k.successors(BlockId(0)), 0usize)];
    seen[0] = true;
    while let Some((b, ss, next)) = stack.last_mut() {
        if let Some(s) = ss.get(*next).map(|s| s.0 as usize) {
            *next += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, k.successors(BlockId(s as u32)), 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    let mut index = vec![usize::MAX; n];
    for (i, b) in post.iter().rev().enumerate() {
        index[*b] = i;
    }
    index
}

/// Numbers the segments: the entry, those after work-group barriers, then those after sub-group
/// barriers in reverse postorder of their start blocks. A work-item stopped at a sub-group
/// barrier waits while another work-item of its sub-group is stopped at an earlier one in this
/// order (one it may still come to it from), so that work-items that diverged come together
/// again at the next sub-group operation they share (see `backend/scalar.rs`).
fn renumber(k: &Kernel, r: &mut Regions) {
    let rpo = rpo_index(k);
    let mut order: Vec<usize> = (0..r.starts.len()).collect();
    order.sort_by_key(|&s| {
        let sub = r.sub_segments.contains(&(s as u32));
        (
            s != 0,
            sub,
            if sub { rpo[r.starts[s].0 as usize] } else { s },
        )
    });
    let mut new_of = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new as u32;
    }
    r.starts = order.iter().map(|&s| r.starts[s]).collect();
    r.blocks = order
        .iter()
        .map(|&s| std::mem::take(&mut r.blocks[s]))
        .collect();
    r.idom = order
        .iter()
        .map(|&s| std::mem::take(&mut r.idom[s]))
        .collect();
    for v in r.segment_of.values_mut() {
        *v = new_of[*v as usize];
    }
    r.sub_segments = r.sub_segments.iter().map(|s| new_of[*s as usize]).collect();
    r.sub_first = (r.starts.len() - r.sub_segments.len()) as u32;
}

/// Splits blocks at their barriers and computes the segments and spills.
pub fn split(k: &mut Kernel) -> Result<Regions, Error> {
    let mut i = 0;
    // Blocks that start after a sub-group barrier.
    let mut sub_targets = HashSet::new();
    while i < k.blocks.len() {
        if let Some(p) = k.blocks[i]
            .insts
            .iter()
            .position(|x| matches!(x.op, Op::Barrier | Op::SubgroupBarrier))
        {
            let nb = k.new_block();
            if k.blocks[i].insts[p].op == Op::SubgroupBarrier {
                sub_targets.insert(nb.0);
            }
            let rest: Vec<_> = k.blocks[i].insts.drain(p..).skip(1).collect();
            let term = std::mem::replace(&mut k.blocks[i].term, Term::Barrier(nb));
            k.blocks[nb.0 as usize].insts = rest;
            k.blocks[nb.0 as usize].term = term;
        }
        i += 1;
    }
    let n = k.blocks.len();
    let mut r = Regions {
        def_at: vec![None; k.types.len()],
        ..Regions::default()
    };
    r.starts.push(BlockId(0));
    r.segment_of.insert(0, 0);
    let mut copies = 0;
    let mut seg = 0;
    while seg < r.starts.len() {
        let start = r.starts[seg].0 as usize;
        let (idom, order) = dominators_of(n, start, &|b| inner_successors(k, b));
        copies += order.len();
        if copies > MAX_COPIES {
            return Err(Error::unsupported(format!(
                "{} barriers in a kernel of {n} blocks: too much code once split",
                r.starts.len() - 1
            )));
        }
        for &b in &order {
            if let Term::Barrier(t) = k.blocks[b].term {
                if let std::collections::hash_map::Entry::Vacant(e) = r.segment_of.entry(t.0) {
                    if sub_targets.contains(&t.0) {
                        r.sub_segments.insert(r.starts.len() as u32);
                    }
                    e.insert(r.starts.len() as u32);
                    r.starts.push(t);
                }
            }
        }
        r.idom.push(idom);
        r.blocks.push(order);
        seg += 1;
    }
    renumber(k, &mut r);
    for (bi, b) in k.blocks.iter().enumerate() {
        for p in &b.params {
            r.def_at[p.0 as usize] = Some((bi, 0));
        }
        for (ii, inst) in b.insts.iter().enumerate() {
            if let Some(v) = inst.result {
                r.def_at[v.0 as usize] = Some((bi, ii + 1));
            }
        }
    }
    let remat = rematerializable(k);
    let mut spills = HashMap::new();
    let mut size = 0;
    for seg in 0..r.starts.len() {
        for &bi in &r.blocks[seg] {
            let b = &k.blocks[bi];
            let uses = b
                .insts
                .iter()
                .enumerate()
                .flat_map(|(ii, i)| operands(&i.op).into_iter().map(move |v| (v, ii + 1)))
                .chain(
                    term_operands(&b.term)
                        .into_iter()
                        .map(|v| (v, b.insts.len() + 1)),
                );
            for (v, pos) in uses {
                if !r.direct(seg, v, bi, pos) && !remat.contains(&v) && !spills.contains_key(&v) {
                    spills.insert(v, size);
                    size += 8;
                }
            }
        }
    }
    r.spills = spills;
    r.spill_size = size;
    r.remat = remat;
    Ok(r)
}

/// Most operations recomputing one value may take.
const MAX_REMAT: usize = 6;

/// The values any round can compute again, in at most [`MAX_REMAT`] operations: constants, the
/// addresses of arguments, of local, private and program-scope memory, built-ins (the
/// work-item loop has the ids), loads of argument words the kernel never writes, and pure
/// operations (no division: nothing that could trap) on such values. A work-item that uses one
/// in a later round computed it before with the same inputs.
fn rematerializable(k: &Kernel) -> HashSet<Value> {
    let args = arg_reads(k);
    let mut cost: HashMap<Value, usize> = HashMap::new();
    loop {
        let n = cost.len();
        for i in k.blocks.iter().flat_map(|b| &b.insts) {
            let Some(r) = i.result else { continue };
            if cost.contains_key(&r) {
                continue;
            }
            let inputs = match &i.op {
                Op::Const(_)
                | Op::ArgAddr(_)
                | Op::LocalAddr(_)
                | Op::PrivateAddr(_)
                | Op::GlobalAddr(_)
                | Op::Builtin(..) => vec![],
                Op::Load(a) if args.contains(a) => vec![*a],
                Op::Bin(BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem | BinOp::SMod, ..) => {
                    continue
                }
                Op::BuiltinDyn(_, a) | Op::Un(_, a) | Op::Conv(_, a) => vec![*a],
                Op::Bin(_, a, b) | Op::Cmp(_, a, b) => vec![*a, *b],
                Op::Select(c, a, b) => vec![*c, *a, *b],
                _ => continue,
            };
            let c = inputs
                .iter()
                .try_fold(1, |c, v| cost.get(v).map(|x| c + x));
            if let Some(c) = c.filter(|c| *c <= MAX_REMAT) {
                cost.insert(r, c);
            }
        }
        if cost.len() == n {
            return cost.into_keys().collect();
        }
    }
}

/// The argument words a kernel reads where nothing writes to its argument block: each load's
/// address value, its type and the offset in the block, once per address and type, in the
/// kernel's order (what a backend loads once, before the work-item loop).
pub fn arg_words(k: &Kernel, reads: &HashSet<Value>) -> Vec<(Value, crate::ir::Ty, u32)> {
    let mut at: HashMap<Value, u32> = HashMap::new();
    for i in k.blocks.iter().flat_map(|b| &b.insts) {
        if let (Op::ArgAddr(o), Some(r)) = (&i.op, i.result) {
            if reads.contains(&r) {
                at.insert(r, *o);
            }
        }
    }
    let mut out: Vec<(Value, crate::ir::Ty, u32)> = Vec::new();
    for i in k.blocks.iter().flat_map(|b| &b.insts) {
        let (Op::Load(a), Some(r)) = (&i.op, i.result) else {
            continue;
        };
        let Some(o) = at.get(a) else { continue };
        let t = k.ty(r);
        if !out.iter().any(|w| w.0 == *a && w.1 == t) {
            out.push((*a, t, *o));
        }
    }
    out
}

/// The addresses in a kernel's argument block (an argument's address, plus or minus offsets),
/// if nothing the kernel writes to may be one (a by-value struct is the kernel's to modify).
pub fn arg_reads(k: &Kernel) -> HashSet<Value> {
    let mut set = HashSet::new();
    loop {
        let n = set.len();
        for b in &k.blocks {
            for i in &b.insts {
                let derived = match &i.op {
                    Op::ArgAddr(_) => true,
                    Op::Bin(BinOp::Add | BinOp::Sub, a, b) => set.contains(a) || set.contains(b),
                    Op::Conv(_, a) => set.contains(a),
                    Op::Select(_, a, b) => set.contains(a) || set.contains(b),
                    _ => false,
                };
                if let (true, Some(r)) = (derived, i.result) {
                    set.insert(r);
                }
            }
        }
        for bi in 0..k.blocks.len() {
            for (t, args) in k.edge_args(BlockId(bi as u32)) {
                for (p, a) in k.blocks[t.0 as usize].params.iter().zip(args) {
                    if set.contains(a) {
                        set.insert(*p);
                    }
                }
            }
        }
        if set.len() == n {
            break;
        }
    }
    // Any write through a value that leaves the set (stored, passed to a call) is not
    // followed: such an address may be written through, so nothing is read-only.
    let escapes = k.blocks.iter().flat_map(|b| &b.insts).any(|i| match &i.op {
        Op::Load(_) | Op::ArgAddr(_) => false,
        Op::Bin(BinOp::Add | BinOp::Sub, ..) | Op::Conv(..) | Op::Select(..) => false,
        op => operands(op).iter().any(|v| set.contains(v)),
    });
    if escapes {
        set.clear();
    }
    set
}
