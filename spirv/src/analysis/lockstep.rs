//! The lockstep plan of a kernel (see `backend/lockstep`): which values differ between the
//! work-items of one turn ([`plan`]: uniformity, with the divergent branches of
//! [`super::divergence`] and the record groups of [`super::records`]), whether running in
//! lockstep pays for its code ([`profitable`]), and which record stores may stream
//! ([`streaming`]). Nothing here depends on Cranelift.

use crate::analysis::regions::Regions;
use crate::ir::{self, BinOp, BlockId, Builtin, ConvOp, MathFn, Op, Term, Ty, UnOp};
use crate::ir::operands;
use super::divergence::{divergence, exit_like, reach, Div};
use super::records::{record_groups, Member};

/// When kernels run several work-items in lockstep (see `backend/lockstep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lockstep {
    /// When the kernel allows it and the estimated code stays small (the default).
    Auto,
    /// Whenever the kernel allows it.
    Always,
    /// Never: one work-item after the other.
    Never,
}

/// Work-items per iteration.
pub(crate) const W: usize = 4;

/// What a round of a kernel with barriers costs a work-item beyond its segment's code, in
/// [`profitable`]'s units (instructions): the loop step, the recorded state's load and the
/// switch on it, and the state's store.
const ROUND: u64 = 12;

/// Which values of a kernel differ between the work-items of one iteration.
pub(crate) struct Plan {
    pub(crate) varying: Vec<bool>,
    /// Divergent branches, by block.
    pub(crate) div: std::collections::HashMap<usize, Div>,
    /// Blocks lowered inside a divergent branch's block (no native block of their own).
    pub(crate) inlined: std::collections::HashSet<usize>,
    /// Blocks that lanes may reach after others retired (where a turn that started with every
    /// lane active may have fewer).
    pub(crate) partial: std::collections::HashSet<usize>,
    /// Record groups, by block and instruction index.
    pub(crate) groups: std::collections::HashMap<(usize, usize), Member>,
    /// The record-store groups (block, first instruction) that may write with non-temporal
    /// stores ([`streaming`]).
    pub(crate) streams: std::collections::HashSet<(usize, usize)>,
    /// What is known of values made from the x id's low bits ([`tiles`]).
    pub(crate) tiles: std::collections::HashMap<ir::Value, Tile>,
}

/// A value made from the x id, as a turn's lanes have it ([`tiles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tile {
    /// Lane `i` is `base + i`, `base` a multiple of [`W`].
    Aligned,
    /// The same in every lane: an aligned value shifted right by log2([`W`]) or more.
    Row,
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
///
/// A kernel with work-group barriers runs in lockstep when it has no sub-group barriers and
/// every barrier is reached with every lane of the turn that started: outside divergent
/// branches, and where no lane may have retired. Each turn then stops at the same barrier,
/// and its state (the segment it resumes at) is one for its lanes.
pub(crate) fn plan(k: &ir::Kernel, r: &Regions, policy: Lockstep) -> Option<Plan> {
    if !r.sub_segments.is_empty()
        || k.private_size > 0
        || policy == Lockstep::Never
    {
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
    let tiles = tiles(k, &consts, &defs);
    if policy == Lockstep::Auto && !profitable(k, &varying, &groups, &tiles, r.starts.len()) {
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
            Div::Region { blocks, join } | Div::Serial { blocks, join } => {
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
    let barrier_ok = |b: usize| !inlined.contains(&b) && !partial.contains(&b);
    if !k
        .blocks
        .iter()
        .enumerate()
        .all(|(b, blk)| !matches!(blk.term, Term::Barrier(_)) || barrier_ok(b))
    {
        return None;
    }
    let streams = streaming(k, &groups, &defs);
    Some(Plan {
        varying,
        div,
        inlined,
        partial,
        groups,
        streams,
        tiles,
    })
}

/// The values whose lanes are `base + lane` with `base` a multiple of [`W`] ([`Tile::Aligned`]):
/// the x id (a turn starts at a multiple of `W` in its row), its resizes, sums with multiples of
/// `W`, and masks of them that keep the low bits; and those shifted right by log2(`W`) or more,
/// the same in every lane ([`Tile::Row`]): a tile's column and row inside a group.
fn tiles(
    k: &ir::Kernel,
    consts: &std::collections::HashMap<ir::Value, u64>,
    defs: &std::collections::HashMap<ir::Value, &Op>,
) -> std::collections::HashMap<ir::Value, Tile> {
    let low = W as u64 - 1;
    let multiple = |v: &ir::Value| match (consts.get(v), defs.get(v)) {
        (Some(c), _) => c & low == 0,
        (_, Some(Op::Bin(BinOp::Mul, a, b))) => [a, b].iter().any(|x| consts.get(x).is_some_and(|c| c & low == 0)),
        (_, Some(Op::Bin(BinOp::Shl, _, b))) => consts.get(b).is_some_and(|c| (1u64 << c.min(&63)) & low == 0),
        _ => false,
    };
    let mut tiles = std::collections::HashMap::new();
    loop {
        let before = tiles.len();
        for i in k.blocks.iter().flat_map(|b| &b.insts) {
            let Some(r) = i.result else { continue };
            let aligned = |v: &ir::Value| tiles.get(v) == Some(&Tile::Aligned);
            let tile = match &i.op {
                Op::Builtin(Builtin::LocalId, 0) => Some(Tile::Aligned),
                Op::Conv(ConvOp::UResize | ConvOp::SResize, a) if aligned(a) => Some(Tile::Aligned),
                Op::Bin(BinOp::Add, a, b) if (aligned(a) && multiple(b)) || (aligned(b) && multiple(a)) => {
                    Some(Tile::Aligned)
                }
                Op::Bin(BinOp::And, a, m) if aligned(a) && consts.get(m).is_some_and(|m| m & low == low) => {
                    Some(Tile::Aligned)
                }
                Op::Bin(BinOp::LShr | BinOp::AShr, a, b)
                    if aligned(a)
                        && consts
                            .get(b)
                            .is_some_and(|c| (u64::from(W.trailing_zeros())..u64::from(k.ty(r).bytes() * 8)).contains(c)) =>
                {
                    Some(Tile::Row)
                }
                _ => None,
            };
            if let Some(t) = tile {
                tiles.insert(r, t);
            }
        }
        if tiles.len() == before {
            return tiles;
        }
    }
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

/// Marks what depends on a varying value (to a fixed point); `source` says which operations
/// vary whatever their operands (also used by `uniform`).
pub(crate) fn spread(k: &ir::Kernel, varying: &mut [bool], source: &dyn Fn(&Op) -> bool) {
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
/// arithmetic, vector and record accesses, costs the code of one). With barriers, each of the
/// `segments` costs one work-item at a time the dispatch of a round ([`ROUND`]), which a
/// lockstep turn pays once for its lanes.
fn profitable(
    k: &ir::Kernel,
    varying: &[bool],
    groups: &std::collections::HashMap<(usize, usize), Member>,
    tiles: &std::collections::HashMap<ir::Value, Tile>,
    segments: usize,
) -> bool {
    let w = W as u64;
    let mut consts = std::collections::HashMap::new();
    // Strides of the values that are affine in the lane (as far as one pass sees).
    let mut stride: std::collections::HashMap<ir::Value, i64> = std::collections::HashMap::new();
    let (mut one_at_a_time, mut lockstep) = (ROUND * (segments as u64 - 1), 0u64);
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
                // See [`tiles`].
                Op::Bin(BinOp::And | BinOp::LShr | BinOp::AShr, ..) => match i.result.and_then(|r| tiles.get(&r)) {
                    Some(Tile::Aligned) => Some(1),
                    Some(Tile::Row) => Some(0),
                    None => None,
                },
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
