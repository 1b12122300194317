//! Work-items in lockstep: the work-group function of a kernel without barriers runs [`W`]
//! consecutive work-items of a row (along x) per turn of its work-item loop, one instruction for
//! all of them, so their independent chains overlap in the CPU and `float`/`int` arithmetic uses
//! SIMD lanes.
//!
//! - A uniformity analysis ([`plan`]) marks every value that may differ between the work-items
//!   of a turn (it depends on the x id, the linear ids, a sub-group id, an atomic's result, or
//!   meets at the join of a divergent branch); the others are computed once per turn.
//! - Each varying value has one of four shapes ([`Lv`]): *affine* (`base + lane * stride`, for
//!   integers: ids and the addresses made from them), a *vector* (`f32x4` / `i32x4`), a lane's
//!   element of a 16-byte *record* ([`record_groups`]), or *lanes* (one scalar per work-item,
//!   computed by the scalar lowering once per lane). A load or store at an affine address whose
//!   stride is the element's size is one vector access.
//! - Divergent branches ([`Div`]) run both sides one after the other under a lane mask (the
//!   `alive` bits) up to where they meet; a side that only returns retires its lanes.
//! - Inactive lanes (past the end of the row, masked, retired) compute harmlessly (no operation
//!   traps) while their memory accesses go to a scratch slot. The blocks are lowered twice: a
//!   [`FULL`] copy for turns that start with every lane active, with no mask checks outside
//!   divergent code, and a [`GENERAL`] copy for the others, with masked accesses only.
//! - A kernel runs in lockstep when it has no barriers, private arrays, `printf`, memory copies,
//!   loops or switches inside divergent regions, and (by default) when it pays for its code
//!   ([`profitable`]); otherwise one work-item after the other, as before.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, BlockArg, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Type,
};

use super::{ty, CValue, Lower};
use crate::ir::{self, BinOp, BlockId, Builtin, ConvOp, MathFn, Op, Term, Ty, UnOp};
use crate::analysis::regions::Regions;
use crate::ir::operands;
use crate::Error;

/// Work-items per iteration.
pub(super) const W: usize = 4;

/// Which values of a kernel differ between the work-items of one iteration.
pub(super) struct Plan {
    varying: Vec<bool>,
    /// Divergent branches, by block.
    div: std::collections::HashMap<usize, Div>,
    /// Blocks lowered inside a divergent branch's block (no native block of their own).
    inlined: std::collections::HashSet<usize>,
    /// Blocks that lanes may reach after others retired (where a turn that started with every
    /// lane active may have fewer).
    partial: std::collections::HashSet<usize>,
    /// Record groups, by block and instruction index.
    groups: std::collections::HashMap<(usize, usize), Member>,
    /// The record-store groups (block, first instruction) that may write with non-temporal
    /// stores ([`streaming`]).
    pub(super) streams: std::collections::HashSet<(usize, usize)>,
}

/// The built-ins whose value differs along x (dimension `d`; `None`: chosen at run time).
fn lane_builtin(b: Builtin, d: Option<u8>) -> bool {
    match b {
        Builtin::LocalId | Builtin::GlobalId => d.is_none_or(|d| d == 0),
        Builtin::LocalLinearId
        | Builtin::GlobalLinearId
        | Builtin::SubgroupSize
        | Builtin::SubgroupId
        | Builtin::SubgroupLocalId => true,
        _ => false,
    }
}

/// The lockstep plan of a kernel, or `None` when it must run one work-item at a time.
pub(super) fn plan(k: &ir::Kernel, r: &Regions, policy: super::Lockstep) -> Option<Plan> {
    if r.barriers() || k.private_size > 0 || policy == super::Lockstep::Never {
        return None;
    }
    let supported = |op: &Op| {
        matches!(
            op,
            Op::Const(_)
                | Op::Bin(..)
                | Op::Un(..)
                | Op::Cmp(..)
                | Op::Select(..)
                | Op::Conv(..)
                | Op::Load(_)
                | Op::Store { .. }
                | Op::Atomic(..)
                | Op::AtomicCas(..)
                | Op::AtomicLoad(_)
                | Op::AtomicStore(..)
                | Op::Math(..)
                | Op::Builtin(..)
                | Op::BuiltinDyn(..)
                | Op::ArgAddr(_)
                | Op::LocalAddr(_)
                | Op::GlobalAddr(_)
        )
    };
    if !k
        .blocks
        .iter()
        .all(|b| b.insts.iter().all(|i| supported(&i.op)))
    {
        return None;
    }
    let source = |op: &Op| match op {
        Op::Builtin(b, d) => lane_builtin(*b, Some(*d)),
        Op::BuiltinDyn(b, _) => lane_builtin(*b, None),
        Op::Atomic(..) | Op::AtomicCas(..) | Op::AtomicLoad(_) => true,
        _ => false,
    };
    let mut varying = vec![false; k.types.len()];
    let (div, inlined) = loop {
        spread(k, &mut varying, &source);
        let (div, inlined, params) = divergence(k, &varying)?;
        let mut more = false;
        for p in params {
            more |= !std::mem::replace(&mut varying[p.0 as usize], true);
        }
        if !more {
            break (div, inlined);
        }
    };
    let mut defs = std::collections::HashMap::new();
    let mut consts = std::collections::HashMap::new();
    for i in k.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(r) = i.result {
            defs.insert(r, &i.op);
            if let Op::Const(c) = i.op {
                consts.insert(r, c);
            }
        }
    }
    let mut groups = std::collections::HashMap::new();
    for (bi, b) in k.blocks.iter().enumerate() {
        for (ii, m) in record_groups(k, b, &defs, &consts) {
            groups.insert((bi, ii), m);
        }
    }
    if policy == super::Lockstep::Auto && !profitable(k, &varying, &groups) {
        return None;
    }
    // Where lanes may have retired: after a side that returns, or a region with a return.
    let mut starts = Vec::new();
    for (b, d) in &div {
        match d {
            Div::Retire { on_true, .. } => {
                if let Term::Branch(_, (t, _), (f, _)) = &k.blocks[*b].term {
                    starts.push(if *on_true { t.0 as usize } else { f.0 as usize });
                }
            }
            Div::Region { blocks, join } => {
                let leaves = blocks.iter().any(|x| {
                    matches!(k.blocks[*x].term, Term::Return | Term::Unreachable)
                        || k.successors(BlockId(*x as u32))
                            .iter()
                            .any(|s| exit_like(k, s.0 as usize))
                });
                if leaves {
                    starts.push(*join);
                }
            }
        }
    }
    let mut partial = reach(k, &starts, None);
    partial.extend(starts);
    let streams = streaming(k, &groups, &defs);
    Some(Plan {
        varying,
        div,
        inlined,
        partial,
        groups,
        streams,
    })
}

/// The record-store groups that may write with non-temporal stores when the launch asks for
/// it ([`crate::GroupCtx::stream`]): on x86-64, in a kernel without atomics (so no work-item
/// can wait for another's stores during the launch; the driver fences after its pieces), at
/// addresses made from the global id or the group id (each work-item of the launch writes
/// its own 16 bytes, so a launch asking for it writes more than the caches hold).
fn streaming(
    k: &ir::Kernel,
    groups: &std::collections::HashMap<(usize, usize), Member>,
    defs: &std::collections::HashMap<ir::Value, &Op>,
) -> std::collections::HashSet<(usize, usize)> {
    let atomics = k.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        matches!(
            i.op,
            Op::Atomic(..) | Op::AtomicCas(..) | Op::AtomicLoad(_) | Op::AtomicStore(..)
        )
    });
    if !cfg!(target_arch = "x86_64") || atomics {
        return Default::default();
    }
    // Whether `v` is computed from a global or group id (a bounded walk up its operands).
    let global = |v: ir::Value| {
        let (mut todo, mut seen) = (vec![v], std::collections::HashSet::new());
        while let Some(v) = todo.pop() {
            if !seen.insert(v) || seen.len() > 256 {
                continue;
            }
            match defs.get(&v) {
                Some(Op::Builtin(b, _) | Op::BuiltinDyn(b, _))
                    if matches!(
                        b,
                        Builtin::GlobalId | Builtin::GlobalLinearId | Builtin::GroupId
                    ) =>
                {
                    return true
                }
                Some(op) => todo.extend(operands(op)),
                None => {}
            }
        }
        false
    };
    groups
        .iter()
        .filter(|(_, m)| m.store && global(m.root))
        .map(|((bi, _), m)| (*bi, m.first))
        .collect()
}

/// Marks what depends on a varying value (to a fixed point).
fn spread(k: &ir::Kernel, varying: &mut [bool], source: &dyn Fn(&Op) -> bool) {
    loop {
        let mut changed = false;
        for b in &k.blocks {
            for i in &b.insts {
                let Some(res) = i.result else { continue };
                if !varying[res.0 as usize]
                    && (source(&i.op) || operands(&i.op).iter().any(|v| varying[v.0 as usize]))
                {
                    varying[res.0 as usize] = true;
                    changed = true;
                }
            }
        }
        for bi in 0..k.blocks.len() {
            for (t, args) in k.edge_args(BlockId(bi as u32)) {
                for (p, a) in k.blocks[t.0 as usize].params.iter().zip(args) {
                    if varying[a.0 as usize] && !varying[p.0 as usize] {
                        varying[p.0 as usize] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// True when running in lockstep pays for the code it takes: per-lane work is [`W`] times the
/// code for the same work, so a kernel runs in lockstep when its estimated code stays within
/// twice the one-at-a-time code (what runs all lanes at once, SIMD arithmetic, affine address
/// arithmetic, vector and record accesses, costs the code of one).
fn profitable(
    k: &ir::Kernel,
    varying: &[bool],
    groups: &std::collections::HashMap<(usize, usize), Member>,
) -> bool {
    let w = W as u64;
    let mut consts = std::collections::HashMap::new();
    // Strides of the values that are affine in the lane (as far as one pass sees).
    let mut stride: std::collections::HashMap<ir::Value, i64> = std::collections::HashMap::new();
    let (mut one_at_a_time, mut lockstep) = (0u64, 0u64);
    let word = |t: Ty| matches!(t, Ty::F32 | Ty::I32);
    for (bi, b) in k.blocks.iter().enumerate() {
        for (ii, i) in b.insts.iter().enumerate() {
            one_at_a_time += 1;
            let rt = i.result.map(|r| k.ty(r));
            if let (Op::Const(c), Some(r)) = (&i.op, i.result) {
                consts.insert(r, *c as i64);
            }
            let st = |v: &ir::Value| -> Option<i64> {
                if varying[v.0 as usize] {
                    stride.get(v).copied()
                } else {
                    Some(0)
                }
            };
            let affine = match &i.op {
                Op::Builtin(Builtin::LocalId | Builtin::GlobalId, 0)
                | Op::Builtin(Builtin::LocalLinearId | Builtin::GlobalLinearId, _) => Some(1),
                Op::Bin(BinOp::Add, a, b) => st(a).zip(st(b)).map(|(x, y)| x.wrapping_add(y)),
                Op::Bin(BinOp::Sub, a, b) => st(a).zip(st(b)).map(|(x, y)| x.wrapping_sub(y)),
                Op::Bin(BinOp::Mul, a, b) => match (consts.get(a), consts.get(b)) {
                    (_, Some(c)) => st(a).map(|s| s.wrapping_mul(*c)),
                    (Some(c), _) => st(b).map(|s| s.wrapping_mul(*c)),
                    _ => None,
                },
                Op::Bin(BinOp::Shl, a, b) => consts
                    .get(b)
                    .filter(|c| (0..64).contains(*c))
                    .and_then(|c| st(a).map(|s| s.wrapping_shl(*c as u32))),
                Op::Conv(ConvOp::UResize | ConvOp::SResize, a) => st(a),
                _ => None,
            };
            let vary = i.result.is_some_and(|r| varying[r.0 as usize])
                || operands(&i.op).iter().any(|v| varying[v.0 as usize]);
            if let (Some(s), Some(r), true) = (affine, i.result, vary) {
                if matches!(rt, Some(Ty::I32 | Ty::I64)) {
                    stride.insert(r, s);
                    lockstep += 1;
                    continue;
                }
            }
            if !vary {
                lockstep += 1;
                continue;
            }
            let vector_access =
                |a: &ir::Value, t: Ty| word(t) && st(a) == Some(i64::from(t.bytes()));
            // (cost, whether it runs all lanes at once)
            let (cost, _all_lanes) = match &i.op {
                Op::Const(_) | Op::Builtin(..) => (1, false),
                _ if groups.contains_key(&(bi, ii)) => (1, true),
                Op::Load(a) if rt.is_some_and(|t| vector_access(a, t)) => (3, true),
                Op::Store { addr, value } if vector_access(addr, k.ty(*value)) => (3, true),
                Op::Load(_) | Op::Store { .. } => (2 * w, false),
                Op::Bin(o, ..) => match rt {
                    Some(Ty::F32)
                        if matches!(o, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv) =>
                    {
                        (1, true)
                    }
                    Some(Ty::I32)
                        if matches!(
                            o,
                            BinOp::Add
                                | BinOp::Sub
                                | BinOp::Mul
                                | BinOp::And
                                | BinOp::Or
                                | BinOp::Xor
                        ) =>
                    {
                        (1, true)
                    }
                    _ => (w + 1, false),
                },
                Op::Un(o, _)
                    if matches!(
                        (o, rt),
                        (UnOp::FNeg, Some(Ty::F32)) | (UnOp::Neg | UnOp::Not, Some(Ty::I32))
                    ) =>
                {
                    (1, true)
                }
                Op::Math(f, _)
                    if rt == Some(Ty::F32)
                        && matches!(f, MathFn::Fma | MathFn::Mad | MathFn::Sqrt | MathFn::Fabs) =>
                {
                    (1, true)
                }
                _ => (w + 1, false),
            };
            lockstep += cost;
        }
    }
    // Even with no instruction that runs all lanes at once, lockstep pays for the loop over
    // work-items once per W of them: dpnp's strided copy (`flip`), all gathers and scatters,
    // ran 1.6x faster in lockstep.
    lockstep <= 2 * one_at_a_time
}

/// How a branch on a varying condition is run.
#[derive(Clone, Debug)]
pub(super) enum Div {
    /// Both sides meet again at `join`: the blocks in between (no loop among them) are run
    /// one after the other, each with the lanes that reach it active.
    Region {
        /// The blocks, each after its predecessors.
        blocks: Vec<usize>,
        join: usize,
    },
    /// One side only returns (no loop on it): its blocks run with their lanes, which then
    /// retire, and the others go on at the other successor.
    Retire {
        /// The returning side's blocks, each after its predecessors.
        blocks: Vec<usize>,
        /// The successor that goes on is the branch's first (else its second).
        on_true: bool,
    },
}

/// The blocks of `set` in an order where each comes after its predecessors in `set`, or
/// `None` when they form a loop.
fn topo(k: &ir::Kernel, set: &std::collections::HashSet<usize>) -> Option<Vec<usize>> {
    let succ = |b: usize| -> Vec<usize> {
        k.successors(BlockId(b as u32))
            .iter()
            .map(|s| s.0 as usize)
            .filter(|s| set.contains(s))
            .collect()
    };
    let mut indeg: std::collections::HashMap<usize, usize> = set.iter().map(|b| (*b, 0)).collect();
    for &b in set {
        for s in succ(b) {
            *indeg.get_mut(&s).expect("in the set") += 1;
        }
    }
    let mut ready: Vec<usize> = indeg.iter().filter(|e| *e.1 == 0).map(|e| *e.0).collect();
    ready.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::with_capacity(set.len());
    while let Some(b) = ready.pop() {
        out.push(b);
        for s in succ(b) {
            let d = indeg.get_mut(&s).expect("in the set");
            *d -= 1;
            if *d == 0 {
                ready.push(s);
            }
        }
    }
    (out.len() == set.len()).then_some(out)
}

/// A block that only returns: lanes that jump there retire.
pub(super) fn exit_like(k: &ir::Kernel, mut b: usize) -> bool {
    // Jumps without arguments on the way count too (a bounded walk: no cycle hangs it).
    for _ in 0..8 {
        let blk = &k.blocks[b];
        if !blk.insts.is_empty() || !blk.params.is_empty() {
            return false;
        }
        match &blk.term {
            Term::Return => return true,
            Term::Jump(t, a) if a.is_empty() => b = t.0 as usize,
            _ => return false,
        }
    }
    false
}

/// Blocks reachable from `from` without entering `stop` or a block that only returns.
fn reach(k: &ir::Kernel, from: &[usize], stop: Option<usize>) -> std::collections::HashSet<usize> {
    let stop = |b: usize| Some(b) == stop || exit_like(k, b);
    let mut seen = std::collections::HashSet::new();
    let mut work: Vec<usize> = from.iter().copied().filter(|b| !stop(*b)).collect();
    while let Some(b) = work.pop() {
        if !seen.insert(b) {
            continue;
        }
        for s in k.successors(BlockId(b as u32)) {
            let s = s.0 as usize;
            if !stop(s) && !seen.contains(&s) {
                work.push(s);
            }
        }
    }
    seen
}

type Divergence = (
    std::collections::HashMap<usize, Div>,
    std::collections::HashSet<usize>,
    Vec<ir::Value>,
);

/// How each branch on a varying condition runs, the blocks that are lowered inside their
/// branch's block, and the block parameters that become varying (where lanes that took
/// different paths meet). `None` when some branch cannot run in lockstep: a varying switch,
/// a loop inside a divergent region, or sides that neither meet nor only return.
fn divergence(k: &ir::Kernel, varying: &[bool]) -> Option<Divergence> {
    use crate::ir::verify::{dominates, dominators_of};
    let n = k.blocks.len();
    let succ = |b: usize| -> Vec<usize> {
        k.successors(BlockId(b as u32))
            .iter()
            .map(|s| s.0 as usize)
            .collect()
    };
    let (idom, rpo) = dominators_of(n, 0, &succ);
    // Post-dominators: dominators of the reversed graph from a virtual exit `n`.
    let mut preds = vec![Vec::new(); n + 1];
    for &b in &rpo {
        for s in succ(b) {
            // Jumping to a block that only returns is leaving.
            preds[if exit_like(k, s) { n } else { s }].push(b);
        }
        if matches!(k.blocks[b].term, Term::Return | Term::Unreachable) {
            preds[n].push(b);
        }
    }
    let (ipdom, _) = dominators_of(n + 1, n, &|b| preds[b].clone());
    let mut entries = vec![Vec::new(); n];
    for &b in &rpo {
        for s in succ(b) {
            entries[s].push(b);
        }
    }
    let mut div = std::collections::HashMap::new();
    let mut inlined = std::collections::HashSet::new();
    let mut params = Vec::new();
    // A region entered only from its branch (no edge from outside into its middle: its
    // blocks are inlined into the branch's block and have no native block of their own).
    let simple = |set: &std::collections::HashSet<usize>, b: usize| {
        set.iter().all(|x| {
            dominates(&idom, b, *x)
                && entries[*x].iter().all(|p| *p == b || set.contains(p))
                && matches!(
                    k.blocks[*x].term,
                    Term::Jump(..) | Term::Branch(..) | Term::Return | Term::Unreachable
                )
        })
    };
    for &b in &rpo {
        if inlined.contains(&b) {
            continue;
        }
        let (t, f) = match &k.blocks[b].term {
            Term::Switch(c, ..) if varying[c.0 as usize] => return None,
            Term::Branch(c, (t, _), (f, _)) if varying[c.0 as usize] => {
                (t.0 as usize, f.0 as usize)
            }
            _ => continue,
        };
        let join = ipdom[b]?;
        let d = if join != n {
            let set = reach(k, &[t, f], Some(join));
            if !simple(&set, b) {
                return None;
            }
            let blocks = topo(k, &set)?;
            params.extend(k.blocks[join].params.iter().copied());
            Div::Region { blocks, join }
        } else {
            let (st, sf) = (reach(k, &[t], None), reach(k, &[f], None));
            let returns = |set: &std::collections::HashSet<usize>,
                           other: &std::collections::HashSet<usize>| {
                set.is_disjoint(other) && simple(set, b)
            };
            // The side that only returns (without a loop); the other goes on.
            let side = |set: &std::collections::HashSet<usize>, other| {
                if t != f && returns(set, other) {
                    topo(k, set)
                } else {
                    None
                }
            };
            if let Some(blocks) = side(&sf, &st) {
                Div::Retire {
                    blocks,
                    on_true: true,
                }
            } else if let Some(blocks) = side(&st, &sf) {
                Div::Retire {
                    blocks,
                    on_true: false,
                }
            } else {
                return None;
            }
        };
        let (Div::Region { blocks, .. } | Div::Retire { blocks, .. }) = &d;
        for x in blocks {
            inlined.insert(*x);
            params.extend(k.blocks[*x].params.iter().copied());
        }
        div.insert(b, d);
    }
    // Where the lanes go on must be a block of its own.
    let on = div.iter().map(|(b, d)| match d {
        Div::Region { join, .. } => *join,
        Div::Retire { on_true, .. } => {
            let Term::Branch(_, (t, _), (f, _)) = &k.blocks[*b].term else {
                return usize::MAX;
            };
            if *on_true {
                t.0 as usize
            } else {
                f.0 as usize
            }
        }
    });
    if on
        .into_iter()
        .any(|b| b == usize::MAX || inlined.contains(&b))
    {
        return None;
    }
    Some((div, inlined, params))
}

/// A value of the work-items of one iteration.
#[derive(Clone, Debug)]
pub(super) enum Lv {
    /// The same for every work-item.
    U(CValue),
    /// Lane `i` is `base + i * stride` (integers, wrapping).
    A(CValue, i64),
    /// A SIMD vector, lane `i` for work-item `i` (`F32` and `I32` values).
    V(CValue),
    /// One scalar per work-item.
    S(Vec<CValue>),
    /// Element `k` of each lane's 16-byte record (`rows[i]`, `f32x4` or `i32x4`).
    R(std::rc::Rc<[CValue; W]>, u8),
}

/// A *record group*: four 32-bit loads (or stores) of one block at offsets 0, 4, 8 and 12 from
/// one address, with no store (or no memory access) between them. When that address is
/// affine with a 16-byte stride (a `float4` or a 4-field struct per work-item), the group is
/// one 16-byte access per lane, the same bytes each work-item accesses itself.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    /// The group's base address.
    root: ir::Value,
    /// This access's element (offset / 4).
    k: u8,
    /// The group's first and last instruction.
    first: usize,
    last: usize,
    store: bool,
}

/// A record group being lowered: its base's lane-0 address, and the rows once loaded.
pub(super) type Record = (CValue, Option<std::rc::Rc<[CValue; W]>>);

/// The two copies of a lockstep kernel's blocks (the `segment` they are lowered as): one for
/// turns with some lane inactive (past the end of the row), one for turns with all four.
pub(super) const GENERAL: u32 = 0;
/// See [`GENERAL`].
pub(super) const FULL: u32 = 1;

/// The record groups of a block, by instruction index.
pub(super) fn record_groups(
    k: &ir::Kernel,
    block: &ir::Block,
    defs: &std::collections::HashMap<ir::Value, &Op>,
    consts: &std::collections::HashMap<ir::Value, u64>,
) -> std::collections::HashMap<usize, Member> {
    use std::collections::HashMap;
    let split = |a: ir::Value| -> (ir::Value, i64) {
        if let Some(Op::Bin(BinOp::Add, r, c)) = defs.get(&a) {
            if let Some(c) = consts.get(c) {
                return (*r, *c as i64);
            }
        }
        (a, 0)
    };
    let word = |v: ir::Value| matches!(k.ty(v), Ty::F32 | Ty::I32);
    let mut out = HashMap::new();
    // Open candidates: root -> [(instruction, element)].
    let mut loads: HashMap<ir::Value, Vec<(usize, u8)>> = HashMap::new();
    let mut stores: HashMap<ir::Value, Vec<(usize, u8)>> = HashMap::new();
    // The type a member accesses.
    let access = |i: usize| match &block.insts[i].op {
        Op::Store { value, .. } => Some(k.ty(*value)),
        _ => block.insts[i].result.map(|r| k.ty(r)),
    };
    let close = |open: &mut Vec<(usize, u8)>, out: &mut HashMap<usize, Member>, root, store| {
        let mut ks: Vec<u8> = open.iter().map(|m| m.1).collect();
        ks.sort();
        let one_type = open.iter().all(|m| access(m.0) == access(open[0].0));
        if ks == [0, 1, 2, 3] && one_type {
            let first = open.iter().map(|m| m.0).min().unwrap_or(0);
            let last = open.iter().map(|m| m.0).max().unwrap_or(0);
            for (i, k) in open.iter() {
                out.insert(
                    *i,
                    Member {
                        root,
                        k: *k,
                        first,
                        last,
                        store,
                    },
                );
            }
        }
        open.clear();
    };
    for (i, inst) in block.insts.iter().enumerate() {
        match &inst.op {
            Op::Load(a) if inst.result.is_some_and(word) => {
                // A load ends the store candidates (it may read what they write).
                stores.clear();
                let (root, off) = split(*a);
                if !(0..16).contains(&off) || off % 4 != 0 {
                    continue;
                }
                let open = loads.entry(root).or_default();
                if open.iter().any(|m| m.1 == (off / 4) as u8) {
                    open.clear();
                }
                open.push((i, (off / 4) as u8));
                if open.len() == 4 {
                    close(open, &mut out, root, false);
                }
            }
            Op::Store { addr, value } if word(*value) => {
                loads.clear();
                let (root, off) = split(*addr);
                if !(0..16).contains(&off) || off % 4 != 0 {
                    stores.clear();
                    continue;
                }
                // Another store in between breaks the others' groups.
                stores.retain(|r, _| *r == root);
                let open = stores.entry(root).or_default();
                if open.iter().any(|m| m.1 == (off / 4) as u8) {
                    open.clear();
                }
                open.push((i, (off / 4) as u8));
                if open.len() == 4 {
                    close(open, &mut out, root, true);
                }
            }
            Op::Load(_) => stores.clear(),
            Op::Store { .. }
            | Op::Atomic(..)
            | Op::AtomicCas(..)
            | Op::AtomicLoad(_)
            | Op::AtomicStore(..) => {
                loads.clear();
                stores.clear();
            }
            _ => {}
        }
    }
    out
}

/// Per-iteration values.
#[derive(Clone, Copy)]
pub(super) struct Mask {
    /// The address of a 16-byte scratch slot, where inactive lanes' accesses go.
    scratch: CValue,
}

/// The slow path of a vector load: copies the 4-byte element of each active lane (lane `i`
/// at `base + 4 i`) to `out[i]`.
pub(super) extern "C" fn lanes_gather(out: *mut u32, base: u64, alive: u32) {
    for i in 0..W {
        if alive & (1 << i) != 0 {
            // SAFETY: an active lane is a work-item that reads this element itself (the
            // kernel's own access, valid by the application's promise); `out` is the
            // kernel's 16-byte scratch slot.
            unsafe { *out.add(i) = std::ptr::read_unaligned((base + 4 * i as u64) as *const u32) };
        }
    }
}

/// The slow path of a vector store: writes element `i` of `src` for each active lane `i`
/// (at `base + 4 i`).
pub(super) extern "C" fn lanes_scatter(base: u64, alive: u32, src: *const u32) {
    for i in 0..W {
        if alive & (1 << i) != 0 {
            // SAFETY: as in `lanes_gather`: the active lane's own store; `src` is the
            // scratch slot.
            unsafe { std::ptr::write_unaligned((base + 4 * i as u64) as *mut u32, *src.add(i)) };
        }
    }
}

/// The non-temporal record stores: four 16-byte rows (the lanes' records, consecutive) from
/// `p`, bypassing the caches when `p` is 16-byte aligned (what `movntps` needs), plain stores
/// otherwise. One call per turn: a call per row costs more than the stores save.
#[cfg(target_arch = "x86_64")]
// `__m128`/`__m128i` travel in XMM registers under the System V ABI, as Cranelift passes its
// `f32x4`/`i32x4` arguments (the streaming tests compare every byte written through here).
#[allow(improper_ctypes_definitions)]
pub(super) extern "C" fn stream_f32x4(
    p: *mut f32,
    a: std::arch::x86_64::__m128,
    b: std::arch::x86_64::__m128,
    c: std::arch::x86_64::__m128,
    d: std::arch::x86_64::__m128,
) {
    use std::arch::x86_64::{_mm_storeu_ps, _mm_stream_ps};
    // SAFETY: the four lanes' own 16-byte stores (each work-item writes its record there
    // itself, valid by the application's promise), consecutive from `p`; `movntps` only where
    // `p` (and so each row) is 16-byte aligned. Both are SSE, which every x86-64 CPU has.
    unsafe {
        if (p as usize).is_multiple_of(16) {
            for (i, r) in [a, b, c, d].into_iter().enumerate() {
                _mm_stream_ps(p.add(4 * i), r);
            }
        } else {
            for (i, r) in [a, b, c, d].into_iter().enumerate() {
                _mm_storeu_ps(p.add(4 * i), r);
            }
        }
    }
}

/// [`stream_f32x4`] for `i32x4` rows (the same registers).
#[cfg(target_arch = "x86_64")]
// `__m128`/`__m128i` travel in XMM registers under the System V ABI, as Cranelift passes its
// `f32x4`/`i32x4` arguments (the streaming tests compare every byte written through here).
#[allow(improper_ctypes_definitions)]
pub(super) extern "C" fn stream_i32x4(
    p: *mut f32,
    a: std::arch::x86_64::__m128i,
    b: std::arch::x86_64::__m128i,
    c: std::arch::x86_64::__m128i,
    d: std::arch::x86_64::__m128i,
) {
    use std::arch::x86_64::_mm_castsi128_ps as f;
    // SAFETY: bit casts between registers.
    let (a, b, c, d) = unsafe { (f(a), f(b), f(c), f(d)) };
    stream_f32x4(p, a, b, c, d);
}

/// The streaming shims: symbol, address, row type.
#[cfg(target_arch = "x86_64")]
pub(super) fn stream_shims() -> [(&'static str, usize, Type); 2] {
    [
        ("zekit_stream_f32x4", stream_f32x4 as *const () as usize, types::F32X4),
        ("zekit_stream_i32x4", stream_i32x4 as *const () as usize, types::I32X4),
    ]
}

/// Every lane active, as bits of the `alive` mask.
const ALL: i64 = (1 << W) - 1;

/// The SIMD type of `W` values of type `t`, for the types that have one.
fn vty(t: Ty) -> Option<Type> {
    match t {
        Ty::F32 => Some(types::F32X4),
        Ty::I32 => Some(types::I32X4),
        _ => None,
    }
}

impl Lower<'_> {
    /// True when the kernel runs in lockstep.
    pub(super) fn lockstep(&self) -> bool {
        self.vplan.is_some()
    }

    fn varying(&self, v: ir::Value) -> bool {
        self.vplan.as_ref().is_some_and(|p| p.varying[v.0 as usize])
    }

    /// The native parameters of block parameter `p` of `cb`.
    pub(super) fn lockstep_param(&mut self, cb: cranelift_codegen::ir::Block, p: ir::Value) {
        let t = self.k.ty(p);
        let lv = if !self.varying(p) {
            let c = self.b.append_block_param(cb, ty(t));
            self.vals.insert((self.segment, p), c);
            Lv::U(c)
        } else if let Some(vt) = vty(t) {
            Lv::V(self.b.append_block_param(cb, vt))
        } else {
            Lv::S(
                (0..W)
                    .map(|_| self.b.append_block_param(cb, ty(t)))
                    .collect(),
            )
        };
        self.lv.insert((self.segment, p), lv);
    }

    /// The work-item loop's latch: the next [`W`] work-items of the row, else the next row.
    pub(super) fn lockstep_latch(
        &mut self,
        header: cranelift_codegen::ir::Block,
        dispatch: cranelift_codegen::ir::Block,
        zero: CValue,
    ) {
        let lsz = self.g().lsz;
        let [x, y, z] = self.lid.map(|l| self.b.use_var(l));
        let nx = self.b.ins().iadd_imm_s(x, W as i64);
        // Within the row: the next four work-items at once.
        let (next, wrap) = (self.b.create_block(), self.b.create_block());
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, nx, lsz[0]);
        self.b.ins().brif(more, next, &[], wrap, &[]);
        self.b.switch_to_block(next);
        let wi = self.b.use_var(self.wi);
        let wi = self.b.ins().iadd_imm_s(wi, W as i64);
        self.b.def_var(self.wi, wi);
        self.b.def_var(self.lid[0], nx);
        // Four more work-items in the row: straight into the full copy.
        let end = self.b.ins().iadd_imm_s(nx, W as i64);
        let all = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, lsz[0]);
        let full = self.full_entry.expect("made with the blocks");
        let every = self.b.ins().iconst(types::I8, ALL);
        self.b.def_var(self.alive, every);
        self.b.ins().brif(all, full, &[], dispatch, &[]);
        // Past the row: the first work-items of the next.
        self.b.switch_to_block(wrap);
        let x = zero;
        let wrapped = self.b.ins().iconst(types::I8, 1);
        let (y, z) = self.carry(wrapped, y, z, zero);
        // The linear id of the row's first lane.
        let row = self.b.ins().imul(z, lsz[1]);
        let row = self.b.ins().iadd(row, y);
        let wi = self.b.ins().imul(row, lsz[0]);
        let wi = self.b.ins().iadd(wi, x);
        self.b.def_var(self.wi, wi);
        for (l, v) in self.lid.into_iter().zip([x, y, z]) {
            self.b.def_var(l, v);
        }
        self.b.ins().jump(header, &[]);
    }

    /// Computes the turn's lane mask (lanes past the end of the row are inactive) and goes on
    /// at the entry of the full copy when all four are active, else of the general copy.
    pub(super) fn lockstep_mask(
        &mut self,
        full_entry: cranelift_codegen::ir::Block,
        general_entry: cranelift_codegen::ir::Block,
    ) {
        let lsz = self.g().lsz[0];
        let x = self.b.use_var(self.lid[0]);
        let left = self.b.ins().isub(lsz, x);
        let w = self.b.ins().iconst(types::I64, W as i64);
        let n = self.b.ins().umin(left, w);
        let one = self.b.ins().iconst(types::I64, 1);
        let bits = self.b.ins().ishl(one, n);
        let bits = self.b.ins().iadd_imm_s(bits, -1);
        let bits = self.b.ins().ireduce(types::I8, bits);
        self.b.def_var(self.alive, bits);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            16,
            4,
        ));
        let scratch = self.b.ins().stack_addr(types::I64, slot, 0);
        self.vmask = Some(Mask { scratch });
        let all = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, left, W as i64);
        self.full_entry = Some(full_entry);
        self.b.ins().brif(all, full_entry, &[], general_entry, &[]);
    }

    /// Whether every lane is active, when known while lowering: the full copy outside
    /// divergent regions and before any lane may have retired; the general copy is only run
    /// for turns with some lane inactive (and then only the slow paths are needed).
    fn known_full(&self) -> Option<bool> {
        if self.segment == GENERAL {
            return Some(false);
        }
        let partial = self
            .vplan
            .as_ref()
            .is_some_and(|p| p.partial.contains(&self.at.0));
        (self.predicated == 0 && !partial).then_some(true)
    }

    /// True (an `I8`) when every lane is active.
    fn full(&mut self) -> CValue {
        let alive = self.b.use_var(self.alive);
        self.b.ins().icmp_imm_s(IntCC::Equal, alive, ALL)
    }

    /// True (an `I8`) when lane `i` is active.
    fn active(&mut self, i: usize) -> CValue {
        let alive = self.b.use_var(self.alive);
        // Reused only in the block that computed them (they must dominate their uses).
        let here = self.b.current_block();
        if let Some((a, blk, act)) = self.vactive {
            if a == alive && Some(blk) == here {
                return act[i];
            }
        }
        let act: [CValue; W] = std::array::from_fn(|i| {
            let bit = self.b.ins().band_imm_s(alive, 1 << i);
            self.b.ins().icmp_imm_s(IntCC::NotEqual, bit, 0)
        });
        if let Some(blk) = here {
            self.vactive = Some((alive, blk, act));
        }
        act[i]
    }

    fn mask(&self) -> Mask {
        self.vmask
            .expect("the mask is computed at the start of the iteration")
    }

    fn get(&mut self, v: ir::Value) -> Lv {
        match self.lv.get(&(self.segment, v)) {
            Some(l) => l.clone(),
            None => Lv::U(self.missing(v)),
        }
    }

    /// A uniform value's native value.
    fn uni(&mut self, v: ir::Value) -> CValue {
        match self.get(v) {
            Lv::U(c) => c,
            other => {
                // The plan guarantees uniform operands where this is called.
                self.broken = true;
                self.lanes_of(other)[0]
            }
        }
    }

    /// One native scalar per lane of a value of shape `l`.
    fn lanes_of(&mut self, l: Lv) -> Vec<CValue> {
        match l {
            Lv::U(c) => vec![c; W],
            Lv::A(b, s) => (0..W)
                .map(|i| {
                    if i == 0 {
                        b
                    } else {
                        self.b.ins().iadd_imm_s(b, s.wrapping_mul(i as i64))
                    }
                })
                .collect(),
            Lv::V(x) => (0..W)
                .map(|i| self.b.ins().extractlane(x, i as u8))
                .collect(),
            Lv::S(l) => l,
            Lv::R(rows, k) => rows
                .iter()
                .map(|r| self.b.ins().extractlane(*r, k))
                .collect(),
        }
    }

    /// One native scalar per lane.
    fn lanes(&mut self, v: ir::Value) -> Vec<CValue> {
        let l = self.get(v);
        self.lanes_of(l)
    }

    /// A SIMD vector (for `F32` and `I32` values).
    fn vector(&mut self, v: ir::Value) -> CValue {
        let vt = vty(self.k.ty(v)).expect("vector of a 32-bit type");
        match self.get(v) {
            Lv::U(c) => self.b.ins().splat(vt, c),
            Lv::V(x) => x,
            l => {
                let lanes = self.lanes_of(l);
                let mut x = self.b.ins().splat(vt, lanes[0]);
                for (i, c) in lanes.iter().enumerate().skip(1) {
                    x = self.b.ins().insertlane(x, *c, i as u8);
                }
                x
            }
        }
    }

    /// Lane addresses, inactive lanes' redirected to the scratch slot.
    fn guarded(&mut self, addr: ir::Value) -> Vec<CValue> {
        let a = self.lanes(addr);
        self.guard(a)
    }

    fn guard(&mut self, mut a: Vec<CValue>) -> Vec<CValue> {
        if self.known_full() == Some(true) {
            return a;
        }
        let scratch = self.mask().scratch;
        for (i, x) in a.iter_mut().enumerate() {
            let act = self.active(i);
            *x = self.b.ins().select(act, *x, scratch);
        }
        a
    }

    /// A uniform address, redirected to the scratch slot when no lane is active (inside a
    /// divergent region).
    fn guard_uniform(&mut self, a: CValue) -> CValue {
        if self.predicated == 0 {
            return a;
        }
        let scratch = self.mask().scratch;
        let alive = self.b.use_var(self.alive);
        let any = self.b.ins().icmp_imm_s(IntCC::NotEqual, alive, 0);
        self.b.ins().select(any, a, scratch)
    }

    fn def_lv(&mut self, v: ir::Value, l: Lv) {
        if let Lv::U(c) = l {
            self.vals.insert((self.segment, v), c);
        }
        self.lv.insert((self.segment, v), l);
    }

    /// Runs `fast` when every lane is active, else `slow`; both give values of types `rts`.
    fn if_full(
        &mut self,
        rts: &[Type],
        fast: impl FnOnce(&mut Self) -> Vec<CValue>,
        slow: impl FnOnce(&mut Self) -> Vec<CValue>,
    ) -> Vec<CValue> {
        match self.known_full() {
            Some(true) => return fast(self),
            Some(false) => return slow(self),
            None => {}
        }
        let full = self.full();
        let (fb, sb, mb) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let res: Vec<CValue> = rts
            .iter()
            .map(|t| self.b.append_block_param(mb, *t))
            .collect();
        self.b.ins().brif(full, fb, &[], sb, &[]);
        self.b.switch_to_block(fb);
        let r = fast(self);
        let args: Vec<BlockArg> = r.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(mb, &args);
        self.b.switch_to_block(sb);
        let r = slow(self);
        let args: Vec<BlockArg> = r.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(mb, &args);
        self.b.switch_to_block(mb);
        res
    }

    /// Runs the scalar lowering of `op` once per lane (lane `i`'s operands and, for built-ins,
    /// ids), `guard`'s lanes redirected to scratch for the extra lanes.
    fn per_lane(
        &mut self,
        rt: Option<Ty>,
        op: &Op,
        guard: Option<ir::Value>,
    ) -> Result<Option<Vec<CValue>>, Error> {
        let ops = operands(op);
        let mut lanes = Vec::with_capacity(ops.len());
        for o in &ops {
            lanes.push(if Some(*o) == guard {
                self.guarded(*o)
            } else {
                self.lanes(*o)
            });
        }
        let builtin = matches!(op, Op::Builtin(..) | Op::BuiltinDyn(..));
        let mut out = Vec::with_capacity(W);
        for i in 0..W {
            for (o, l) in ops.iter().zip(&lanes) {
                self.vals.insert((self.segment, *o), l[i]);
            }
            let r = if builtin && i > 0 {
                let (x, wi) = (self.b.use_var(self.lid[0]), self.b.use_var(self.wi));
                let xi = self.b.ins().iadd_imm_s(x, i as i64);
                let wii = self.b.ins().iadd_imm_s(wi, i as i64);
                self.b.def_var(self.lid[0], xi);
                self.b.def_var(self.wi, wii);
                let r = self.op(rt, op);
                self.b.def_var(self.lid[0], x);
                self.b.def_var(self.wi, wi);
                r?
            } else {
                self.op(rt, op)?
            };
            if let Some(r) = r {
                out.push(r);
            }
        }
        // Operands that are uniform keep their native value for the scalar lowering.
        for o in &ops {
            if let Some(Lv::U(c)) = self.lv.get(&(self.segment, *o)) {
                self.vals.insert((self.segment, *o), *c);
            }
        }
        Ok((out.len() == W).then_some(out))
    }

    /// A constant operand's bits, if it is one.
    fn constant(&self, v: ir::Value) -> Option<i64> {
        self.consts.get(&v).map(|b| *b as i64)
    }

    /// The affine shape of an integer operation's result, when it has one.
    fn affine(&mut self, rt: Ty, op: &Op) -> Option<Lv> {
        if !matches!(rt, Ty::I32 | Ty::I64) {
            return None;
        }
        let bits = rt.bytes() * 8;
        let wrap = |s: i64| if bits == 64 { s } else { (s as i32) as i64 };
        match op {
            Op::Bin(o, a, b) => {
                let (la, lb) = (self.get(*a), self.get(*b));
                let l = match (o, la, lb) {
                    (BinOp::Add, Lv::A(x, s), Lv::U(u)) | (BinOp::Add, Lv::U(u), Lv::A(x, s)) => {
                        Lv::A(self.b.ins().iadd(x, u), s)
                    }
                    (BinOp::Add, Lv::A(x, s), Lv::A(y, t)) => {
                        Lv::A(self.b.ins().iadd(x, y), wrap(s.wrapping_add(t)))
                    }
                    (BinOp::Sub, Lv::A(x, s), Lv::U(u)) => Lv::A(self.b.ins().isub(x, u), s),
                    (BinOp::Sub, Lv::U(u), Lv::A(x, s)) => {
                        Lv::A(self.b.ins().isub(u, x), wrap(s.wrapping_neg()))
                    }
                    (BinOp::Sub, Lv::A(x, s), Lv::A(y, t)) => {
                        Lv::A(self.b.ins().isub(x, y), wrap(s.wrapping_sub(t)))
                    }
                    (BinOp::Mul, Lv::A(x, s), Lv::U(u)) => {
                        let c = self.constant(*b)?;
                        Lv::A(self.b.ins().imul(x, u), wrap(s.wrapping_mul(c)))
                    }
                    (BinOp::Mul, Lv::U(u), Lv::A(x, s)) => {
                        let c = self.constant(*a)?;
                        Lv::A(self.b.ins().imul(u, x), wrap(s.wrapping_mul(c)))
                    }
                    (BinOp::Shl, Lv::A(x, s), Lv::U(_)) => {
                        let k = self.constant(*b)?;
                        if !(0..i64::from(bits)).contains(&k) {
                            return None;
                        }
                        let u = self.b.ins().iconst(ty(rt), k);
                        Lv::A(self.b.ins().ishl(x, u), wrap(s.wrapping_shl(k as u32)))
                    }
                    _ => return None,
                };
                Some(match l {
                    Lv::A(x, 0) => Lv::U(x),
                    l => l,
                })
            }
            // Truncation keeps the shape (modular arithmetic). Widening keeps it when the
            // lanes do not wrap around in the narrow type; the shape assumes so, as OpenCL C's
            // signed overflow is undefined and an index past 2^31 (2^32 unsigned) elements
            // would address the wrong element either way: `int i = get_global_id(0)`.
            Op::Conv(c @ (ConvOp::UResize | ConvOp::SResize), a) => match self.get(*a) {
                Lv::A(x, s) => {
                    let from = self.k.ty(*a);
                    let x = if from == rt {
                        x
                    } else if from.bytes() > rt.bytes() {
                        self.b.ins().ireduce(ty(rt), x)
                    } else if *c == ConvOp::SResize {
                        self.b.ins().sextend(ty(rt), x)
                    } else {
                        self.b.ins().uextend(ty(rt), x)
                    };
                    Some(Lv::A(x, wrap(s)))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The SIMD form of an operation on `F32` / `I32` values, when it has one.
    fn simd(&mut self, rt: Ty, op: &Op) -> Option<CValue> {
        vty(rt)?;
        let float = rt == Ty::F32;
        Some(match op {
            Op::Bin(o, a, b) => {
                let ok = if float {
                    matches!(o, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv)
                } else {
                    matches!(
                        o,
                        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
                    )
                };
                if !ok {
                    return None;
                }
                let (x, y) = (self.vector(*a), self.vector(*b));
                let i = self.b.ins();
                match o {
                    BinOp::FAdd => i.fadd(x, y),
                    BinOp::FSub => i.fsub(x, y),
                    BinOp::FMul => i.fmul(x, y),
                    BinOp::FDiv => i.fdiv(x, y),
                    BinOp::Add => i.iadd(x, y),
                    BinOp::Sub => i.isub(x, y),
                    BinOp::Mul => i.imul(x, y),
                    BinOp::And => i.band(x, y),
                    BinOp::Or => i.bor(x, y),
                    _ => i.bxor(x, y),
                }
            }
            Op::Un(o, a) => {
                let ok = if float {
                    *o == UnOp::FNeg
                } else {
                    matches!(o, UnOp::Neg | UnOp::Not)
                };
                if !ok {
                    return None;
                }
                let x = self.vector(*a);
                match o {
                    UnOp::FNeg => self.b.ins().fneg(x),
                    UnOp::Neg => self.b.ins().ineg(x),
                    _ => self.b.ins().bnot(x),
                }
            }
            Op::Math(f, args) if float => {
                let ok = match f {
                    MathFn::Fma => self.fma,
                    MathFn::Mad | MathFn::Sqrt | MathFn::Fabs => true,
                    _ => false,
                };
                if !ok {
                    return None;
                }
                let a: Vec<CValue> = args.iter().map(|a| self.vector(*a)).collect();
                match f {
                    MathFn::Fma => self.b.ins().fma(a[0], a[1], a[2]),
                    MathFn::Mad => {
                        let m = self.b.ins().fmul(a[0], a[1]);
                        self.b.ins().fadd(m, a[2])
                    }
                    MathFn::Sqrt => self.b.ins().sqrt(a[0]),
                    _ => self.b.ins().fabs(a[0]),
                }
            }
            _ => return None,
        })
    }

    /// Lowers one instruction for all lanes.
    pub(super) fn lockstep_op(&mut self, inst: &ir::Inst) -> Result<(), Error> {
        if self.record_access(inst) {
            return Ok(());
        }
        let rt = inst.result.map(|r| self.k.ty(r));
        let fl = MemFlagsData::new();
        match &inst.op {
            Op::Store { addr, value } => {
                let vt = self.k.ty(*value);
                let (la, lv) = (self.get(*addr), self.get(*value));
                match (la, lv) {
                    (Lv::U(a), Lv::U(v)) => {
                        let a = self.guard_uniform(a);
                        self.b.ins().store(fl, v, a, 0);
                    }
                    (Lv::A(a, s), _) if vty(vt).is_some() && s == i64::from(vt.bytes()) => {
                        let x = self.vector(*value);
                        let (addr, value) = (*addr, *value);
                        self.if_full(
                            &[],
                            |me| {
                                me.b.ins().store(fl, x, a, 0);
                                vec![]
                            },
                            |me| {
                                let _ = (addr, value);
                                let scratch = me.mask().scratch;
                                me.b.ins().store(fl, x, scratch, 0);
                                let alive = me.b.use_var(me.alive);
                                let alive = me.b.ins().uextend(types::I32, alive);
                                let f = lanes_scatter as *const () as usize;
                                me.call(
                                    f,
                                    &[types::I64, types::I32, types::I64],
                                    types::INVALID,
                                    &[a, alive, scratch],
                                );
                                vec![]
                            },
                        );
                    }
                    // Scattered: each lane on its own, inactive lanes to the scratch slot (no
                    // branch: a branch per access costs more to compile than it saves).
                    _ => self.store_lanes(*addr, *value, true),
                }
                return Ok(());
            }
            Op::Load(a) => {
                let r = inst.result.expect("a load has a result");
                let t = self.k.ty(r);
                let a = *a;
                if let Some(v) = self.arg_words.get(&(a, ty(t))) {
                    self.def_lv(r, Lv::U(*v));
                    return Ok(());
                }
                let l = match self.get(a) {
                    Lv::U(x) => {
                        let x = self.guard_uniform(x);
                        Lv::U(self.b.ins().load(ty(t), fl, x, 0))
                    }
                    Lv::A(x, s) if vty(t).is_some() && s == i64::from(t.bytes()) => {
                        let vt = vty(t).expect("checked");
                        let v = self.if_full(
                            &[vt],
                            |me| vec![me.b.ins().load(vt, fl, x, 0)],
                            |me| {
                                let _ = a;
                                let scratch = me.mask().scratch;
                                let alive = me.b.use_var(me.alive);
                                let alive = me.b.ins().uextend(types::I32, alive);
                                let f = lanes_gather as *const () as usize;
                                me.call(
                                    f,
                                    &[types::I64, types::I64, types::I32],
                                    types::INVALID,
                                    &[scratch, x, alive],
                                );
                                vec![me.b.ins().load(vt, fl, scratch, 0)]
                            },
                        );
                        Lv::V(v[0])
                    }
                    _ => Lv::S(self.load_lanes(a, t, true)),
                };
                self.def_lv(r, l);
                return Ok(());
            }
            Op::Atomic(_, a, _)
            | Op::AtomicCas(a, _, _)
            | Op::AtomicLoad(a)
            | Op::AtomicStore(a, _) => {
                let out = self.per_lane(rt, &inst.op, Some(*a))?;
                if let (Some(r), Some(out)) = (inst.result, out) {
                    self.def_lv(r, Lv::S(out));
                }
                return Ok(());
            }
            Op::Const(bits) => {
                if let Some(r) = inst.result {
                    self.consts.insert(r, *bits);
                }
            }
            _ => {}
        }
        let Some(r) = inst.result else {
            return Err(Error::internal("an operation without a result in lockstep"));
        };
        let t = self.k.ty(r);
        if !self.varying(r) {
            let c = self
                .op(rt, &inst.op)?
                .ok_or_else(|| Error::internal("no value"))?;
            self.def_lv(r, Lv::U(c));
            return Ok(());
        }
        if let Op::Builtin(b, d) = &inst.op {
            let affine = matches!(
                (b, d),
                (Builtin::LocalId | Builtin::GlobalId, 0)
                    | (Builtin::LocalLinearId | Builtin::GlobalLinearId, _)
            );
            if affine {
                let c = self.builtin(*b, 0);
                self.def_lv(r, Lv::A(c, 1));
                return Ok(());
            }
        }
        if let Some(l) = self.affine(t, &inst.op) {
            self.def_lv(r, l);
            return Ok(());
        }
        if let Some(v) = self.simd(t, &inst.op) {
            self.def_lv(r, Lv::V(v));
            return Ok(());
        }
        let out = self
            .per_lane(rt, &inst.op, None)?
            .ok_or_else(|| Error::internal("no value"))?;
        self.def_lv(r, Lv::S(out));
        Ok(())
    }

    /// The lanes' record addresses (a 16-byte stride from `b`).
    fn record_lanes(&mut self, b: CValue) -> Vec<CValue> {
        (0..W)
            .map(|i| {
                if i == 0 {
                    b
                } else {
                    self.b.ins().iadd_imm_s(b, 16 * i as i64)
                }
            })
            .collect()
    }

    /// Lowers a member of a record group as one 16-byte access per lane (loads: all four
    /// at the first member; stores: all four at the last). False when `inst` is not a member
    /// or its group's base is not affine with a 16-byte stride.
    fn record_access(&mut self, inst: &ir::Inst) -> bool {
        let (bi, ii) = (self.at.0, self.at.1 - 1);
        let Some(m) = self
            .vplan
            .as_ref()
            .and_then(|p| p.groups.get(&(bi, ii)))
            .copied()
        else {
            return false;
        };
        let key = (self.segment, bi, m.first);
        if ii == m.first {
            match self.get(m.root) {
                Lv::A(b, 16) if self.k.ty(m.root) == Ty::I64 => {
                    self.records.insert(key, (b, None));
                }
                _ => return false,
            }
        }
        let Some((b, rows)) = self.records.get(&key).cloned() else {
            return false;
        };
        let fl = MemFlagsData::new();
        match (&inst.op, m.store) {
            (Op::Load(_), false) => {
                let r = inst.result.expect("a load has a result");
                let rows = match rows {
                    Some(rows) => rows,
                    None => {
                        let vt = vty(self.k.ty(r)).expect("a 32-bit member");
                        let a = self.record_lanes(b);
                        let load = |me: &mut Self, a: Vec<CValue>| -> Vec<CValue> {
                            a.into_iter()
                                .map(|a| me.b.ins().load(vt, fl, a, 0))
                                .collect()
                        };
                        let rows = self.if_full(
                            &[vt; W],
                            |me| load(me, a.clone()),
                            |me| {
                                let g = me.guard(a.clone());
                                load(me, g)
                            },
                        );
                        let rows: [CValue; W] = std::array::from_fn(|i| rows[i]);
                        let rows = std::rc::Rc::new(rows);
                        self.records.insert(key, (b, Some(rows.clone())));
                        rows
                    }
                };
                self.def_lv(r, Lv::R(rows, m.k));
            }
            (Op::Store { .. }, true) if ii == m.last => {
                // The four values, by element.
                let mut vals = [None; W];
                for j in m.first..=m.last {
                    if let (Some(o), Op::Store { value, .. }) = (
                        self.vplan
                            .as_ref()
                            .and_then(|p| p.groups.get(&(bi, j)))
                            .copied(),
                        &self.k.blocks[bi].insts[j].op,
                    ) {
                        if o.first == m.first {
                            vals[o.k as usize] = Some(*value);
                        }
                    }
                }
                let vals = vals.map(|v| v.expect("a complete group"));
                let ls: Vec<Lv> = vals.iter().map(|v| self.get(*v)).collect();
                // A record copied as it was loaded keeps its rows.
                let same = match &ls[0] {
                    Lv::R(rows, 0) => ls.iter().enumerate().all(|(k, l)| {
                        matches!(l, Lv::R(r, kk) if std::rc::Rc::ptr_eq(r, rows) && usize::from(*kk) == k)
                    }),
                    _ => false,
                };
                let rows: [CValue; W] = if same {
                    let Lv::R(rows, _) = &ls[0] else {
                        unreachable!()
                    };
                    **rows
                } else {
                    let vt = vty(self.k.ty(vals[0])).expect("a 32-bit member");
                    let lanes: Vec<Vec<CValue>> = vals.iter().map(|v| self.lanes(*v)).collect();
                    std::array::from_fn(|i| {
                        let mut row = self.b.ins().splat(vt, lanes[0][i]);
                        for (k, l) in lanes.iter().enumerate().skip(1) {
                            row = self.b.ins().insertlane(row, l[i], k as u8);
                        }
                        row
                    })
                };
                let a = self.record_lanes(b);
                let store = |me: &mut Self, a: Vec<CValue>| {
                    for (a, row) in a.into_iter().zip(rows) {
                        me.b.ins().store(fl, row, a, 0);
                    }
                    vec![]
                };
                let stream = self
                    .vplan
                    .as_ref()
                    .is_some_and(|p| p.streams.contains(&(bi, m.first)));
                self.if_full(
                    &[],
                    |me| match me.g().stream {
                        Some(flag) if stream => me.stream_rows(flag, a.clone(), rows, store),
                        _ => store(me, a.clone()),
                    },
                    |me| {
                        let g = me.guard(a.clone());
                        store(me, g)
                    },
                );
            }
            // Earlier stores of the group wait for the last.
            (Op::Store { .. }, true) => {}
            _ => return false,
        }
        true
    }

    /// A full turn's record store: through the non-temporal shim when the launch's `flag` asks
    /// for it, else by `store`.
    fn stream_rows(
        &mut self,
        flag: CValue,
        a: Vec<CValue>,
        rows: [CValue; W],
        store: impl FnOnce(&mut Self, Vec<CValue>) -> Vec<CValue>,
    ) -> Vec<CValue> {
        #[cfg(target_arch = "x86_64")]
        {
            let t = self.b.func.dfg.value_type(rows[0]);
            // Rows are f32x4 or i32x4 (`vty`); anything else stores as usual.
            let Some((_, f, _)) = stream_shims().into_iter().find(|s| s.2 == t) else {
                return store(self, a);
            };
            let (sb, pb, jb) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            self.b.ins().brif(flag, sb, &[], pb, &[]);
            self.b.switch_to_block(sb);
            let mut args = vec![a[0]];
            args.extend(rows);
            let params: Vec<Type> = args.iter().map(|v| self.b.func.dfg.value_type(*v)).collect();
            self.call(f, &params, types::INVALID, &args);
            self.b.ins().jump(jb, &[]);
            self.b.switch_to_block(pb);
            store(self, a);
            self.b.ins().jump(jb, &[]);
            self.b.switch_to_block(jb);
            vec![]
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (flag, rows);
            store(self, a)
        }
    }

    /// Loads per lane (`guard`: inactive lanes read the scratch slot).
    fn load_lanes(&mut self, addr: ir::Value, t: Ty, guard: bool) -> Vec<CValue> {
        let a = if guard {
            self.guarded(addr)
        } else {
            self.lanes(addr)
        };
        a.into_iter()
            .map(|a| self.b.ins().load(ty(t), MemFlagsData::new(), a, 0))
            .collect()
    }

    /// Stores per lane, in lane order (the last work-item's value stays where several write);
    /// `guard`: inactive lanes write to the scratch slot.
    fn store_lanes(&mut self, addr: ir::Value, value: ir::Value, guard: bool) {
        let v = self.lanes(value);
        let a = if guard {
            self.guarded(addr)
        } else {
            self.lanes(addr)
        };
        for (a, v) in a.into_iter().zip(v) {
            self.b.ins().store(MemFlagsData::new(), v, a, 0);
        }
    }

    /// The native arguments of an edge to `target`, in the shapes of its parameters.
    pub(super) fn lockstep_args(&mut self, target: BlockId, args: &[ir::Value]) -> Vec<BlockArg> {
        let params = self.k.blocks[target.0 as usize].params.clone();
        let mut out = Vec::new();
        for (p, a) in params.iter().zip(args) {
            if !self.varying(*p) {
                let c = self.uni(*a);
                out.push(BlockArg::Value(c));
            } else if vty(self.k.ty(*p)).is_some() {
                let c = self.vector(*a);
                out.push(BlockArg::Value(c));
            } else {
                let l = self.lanes(*a);
                out.extend(l.into_iter().map(BlockArg::Value));
            }
        }
        out
    }

    /// True when block `b` is lowered inside its divergent branch's block.
    pub(super) fn lockstep_inlined(&self, b: usize) -> bool {
        self.vplan.as_ref().is_some_and(|p| p.inlined.contains(&b))
    }

    /// The lanes of a condition as mask bits (an `I8`).
    fn cond_bits(&mut self, c: ir::Value) -> CValue {
        match self.get(c) {
            Lv::U(c) => {
                let all = self.b.ins().iconst(types::I8, ALL);
                let none = self.b.ins().iconst(types::I8, 0);
                self.b.ins().select(c, all, none)
            }
            l => {
                let lanes = self.lanes_of(l);
                let mut bits = self.b.ins().iconst(types::I8, 0);
                for (i, x) in lanes.into_iter().enumerate() {
                    let one = self.b.ins().band_imm_s(x, 1);
                    let one = self.b.ins().ishl_imm_s(one, i as i64);
                    bits = self.b.ins().bor(bits, one);
                }
                bits
            }
        }
    }

    /// Lanes of the values arriving at one parameter over several edges (mask, value): each
    /// lane takes the value of the edge it came by.
    fn merge(&mut self, incoming: &[(CValue, ir::Value)]) -> Vec<CValue> {
        let mut acc = self.lanes(incoming[0].1);
        for (m, v) in &incoming[1..] {
            let lanes = self.lanes(*v);
            for (i, (a, x)) in acc.iter_mut().zip(lanes).enumerate() {
                let bit = self.b.ins().band_imm_s(*m, 1 << i);
                let on = self.b.ins().icmp_imm_s(IntCC::NotEqual, bit, 0);
                *a = self.b.ins().select(on, x, *a);
            }
        }
        acc
    }

    /// Lowers a branch on a varying condition and the blocks it controls (see [`Div`]).
    fn diverge(&mut self, bi: usize, term: &Term) -> Result<(), Error> {
        let Term::Branch(c, (t, ta), (f, fa)) = term else {
            return Err(Error::internal("a divergent branch that is not a branch"));
        };
        let d = self
            .vplan
            .as_ref()
            .and_then(|p| p.div.get(&bi))
            .cloned()
            .ok_or_else(|| Error::internal("no plan for a divergent branch"))?;
        let alive = self.b.use_var(self.alive);
        let bits = self.cond_bits(*c);
        let mt = self.b.ins().band(alive, bits);
        let mf = self.b.ins().band_not(alive, bits);
        // Edges into the blocks run here: target -> [(mask, arguments)].
        type Edges = std::collections::HashMap<usize, Vec<(CValue, Vec<ir::Value>)>>;
        let mut edges: Edges = std::collections::HashMap::new();
        let (blocks, go_on) = match &d {
            Div::Region { blocks, join } => {
                edges
                    .entry(t.0 as usize)
                    .or_default()
                    .push((mt, ta.clone()));
                edges
                    .entry(f.0 as usize)
                    .or_default()
                    .push((mf, fa.clone()));
                (blocks.clone(), *join)
            }
            Div::Retire { blocks, on_true } => {
                let (into, m, a, on) = if *on_true {
                    (f.0 as usize, mf, fa, t.0 as usize)
                } else {
                    (t.0 as usize, mt, ta, f.0 as usize)
                };
                edges.entry(into).or_default().push((m, a.clone()));
                (blocks.clone(), on)
            }
        };
        let mut retired = self.b.ins().iconst(types::I8, 0);
        self.predicated += 1;
        for rb in blocks {
            let inc = edges.remove(&rb).unwrap_or_default();
            let mut mask = self.b.ins().iconst(types::I8, 0);
            for (m, _) in &inc {
                mask = self.b.ins().bor(mask, *m);
            }
            let params = self.k.blocks[rb].params.clone();
            for (j, p) in params.iter().enumerate() {
                let incoming: Vec<(CValue, ir::Value)> = inc
                    .iter()
                    .filter_map(|(m, a)| a.get(j).map(|v| (*m, *v)))
                    .collect();
                let l = match incoming.as_slice() {
                    [] => Lv::U(self.missing(*p)),
                    [(_, v)] => self.get(*v),
                    _ => Lv::S(self.merge(&incoming)),
                };
                self.def_lv(*p, l);
            }
            self.b.def_var(self.alive, mask);
            let blk = &self.k.blocks[rb];
            for (ii, inst) in blk.insts.iter().enumerate() {
                self.at = (rb, ii + 1);
                self.lockstep_op(inst)?;
            }
            self.at = (rb, blk.insts.len() + 1);
            match &blk.term {
                Term::Jump(t2, a) => edges
                    .entry(t2.0 as usize)
                    .or_default()
                    .push((mask, a.clone())),
                Term::Branch(c2, (t2, a2), (f2, b2)) => {
                    let bits = self.cond_bits(*c2);
                    let m2 = self.b.ins().band(mask, bits);
                    let m3 = self.b.ins().band_not(mask, bits);
                    edges
                        .entry(t2.0 as usize)
                        .or_default()
                        .push((m2, a2.clone()));
                    edges
                        .entry(f2.0 as usize)
                        .or_default()
                        .push((m3, b2.clone()));
                }
                Term::Return | Term::Unreachable => retired = self.b.ins().bor(retired, mask),
                _ => return Err(Error::internal("a switch or barrier in a divergent region")),
            }
        }
        self.predicated -= 1;
        // Lanes that went to a block that only returns retire too.
        let gone: Vec<usize> = edges
            .keys()
            .copied()
            .filter(|b| exit_like(self.k, *b))
            .collect();
        for b in gone {
            for (m, _) in edges.remove(&b).unwrap_or_default() {
                retired = self.b.ins().bor(retired, m);
            }
        }
        let out = self.b.ins().band_not(alive, retired);
        self.b.def_var(self.alive, out);
        // The lanes that go on: every edge into the join (or the branch's other side).
        let inc: Vec<(CValue, Vec<ir::Value>)> = match &d {
            Div::Region { .. } => edges.remove(&go_on).unwrap_or_default(),
            Div::Retire { on_true, .. } => {
                vec![(out, if *on_true { ta.clone() } else { fa.clone() })]
            }
        };
        let params = self.k.blocks[go_on].params.clone();
        let mut args = Vec::new();
        for (j, p) in params.iter().enumerate() {
            let incoming: Vec<(CValue, ir::Value)> = inc
                .iter()
                .filter_map(|(m, a)| a.get(j).map(|v| (*m, *v)))
                .collect();
            let lanes = match incoming.as_slice() {
                [] => vec![self.missing(*p); W],
                [(_, v)] if !self.varying(*p) => vec![self.uni(*v); 1],
                [(_, v)] => self.lanes(*v),
                _ => self.merge(&incoming),
            };
            if !self.varying(*p) {
                args.push(BlockArg::Value(lanes[0]));
            } else if let Some(vt) = vty(self.k.ty(*p)) {
                let mut x = self.b.ins().splat(vt, lanes[0]);
                for (i, c) in lanes.iter().enumerate().skip(1) {
                    x = self.b.ins().insertlane(x, *c, i as u8);
                }
                args.push(BlockArg::Value(x));
            } else {
                args.extend(lanes.into_iter().map(BlockArg::Value));
            }
        }
        let target = self.target(BlockId(go_on as u32));
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, out, 0);
        let latch = self.latch;
        self.b.ins().brif(none, latch, &[], target, &args);
        Ok(())
    }

    /// Lowers block `i` for all lanes (its parameters were made by [`Self::lockstep_param`]).
    pub(super) fn lockstep_block(&mut self, i: usize, blk: &ir::Block) -> Result<(), Error> {
        let cb = self.blocks[&(self.segment, i)];
        self.b.switch_to_block(cb);
        for (ii, inst) in blk.insts.iter().enumerate() {
            self.at = (i, ii + 1);
            self.lockstep_op(inst)?;
        }
        self.at = (i, blk.insts.len() + 1);
        match &blk.term {
            Term::Jump(t, a) => {
                let a = self.lockstep_args(*t, a);
                let t = self.target(*t);
                self.b.ins().jump(t, &a);
            }
            Term::Branch(..) if self.vplan.as_ref().is_some_and(|p| p.div.contains_key(&i)) => {
                self.diverge(i, &blk.term)?;
            }
            Term::Branch(c, (t, ta), (f, fa)) => {
                let c = self.uni(*c);
                let ta = self.lockstep_args(*t, ta);
                let fa = self.lockstep_args(*f, fa);
                let (t, f) = (self.target(*t), self.target(*f));
                self.b.ins().brif(c, t, &ta, f, &fa);
            }
            Term::Switch(s, d, cases) => {
                let s = self.uni(*s);
                self.switch(s, *d, cases);
            }
            Term::Barrier(_) => return Err(Error::internal("a barrier in a lockstep kernel")),
            Term::Return | Term::Unreachable | Term::None => {
                self.b.ins().jump(self.latch, &[]);
            }
        }
        Ok(())
    }
}
