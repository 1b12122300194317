//! Group uniformity: which values every work-item of a work-group computes alike, and which
//! blocks every work-item of the group reaches alike (none is under a branch on a value that
//! differs between them). The backends use it to keep such a value once per group instead of
//! once per work-item (`backend/llvm/rounds.rs`).
//!
//! A value differs between work-items (*varies*) when it is made from a work-item's ids, read
//! from memory (unless from the argument block the kernel never writes), returned by an atomic
//! or a call, or made from a varying value; a block parameter varies too where paths from a
//! varying branch meet. The paths of a branch are the blocks reached from its targets before
//! its immediate post-dominator (where every path of the branch has come together); every
//! parameter in them and of the post-dominator varies, and those blocks are *divergent*. A
//! loop whose exit varies is such a region, so values carried around it vary too.

use std::collections::HashSet;

use crate::ir::{term_operands, BlockId, Builtin, Kernel, Op, Term, Value};

/// Most blocks analysed (post-dominators take a bit set per block): in larger kernels every
/// value varies.
const MAX_BLOCKS: usize = 4096;

/// What the analysis found.
pub(crate) struct Uniformity {
    /// By value: it differs between the work-items of a group.
    pub(crate) varying: Vec<bool>,
    /// By block: some varying branch decides whether a work-item reaches it.
    pub(crate) divergent: Vec<bool>,
}

impl Uniformity {
    /// True when every work-item that computes `v` computes the same value.
    pub(crate) fn uniform(&self, v: Value) -> bool {
        !self.varying.get(v.0 as usize).copied().unwrap_or(true)
    }
}

/// The built-ins that differ between the work-items of a group.
fn per_item(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::GlobalId
            | Builtin::LocalId
            | Builtin::GlobalLinearId
            | Builtin::LocalLinearId
            | Builtin::SubgroupSize
            | Builtin::SubgroupId
            | Builtin::SubgroupLocalId
    )
}

/// True when `op`'s result may differ between work-items whatever its operands.
fn source(op: &Op, arg_reads: &HashSet<Value>) -> bool {
    match op {
        Op::Const(_) | Op::Bin(..) | Op::Un(..) | Op::Cmp(..) | Op::Select(..) | Op::Conv(..) => false,
        Op::Math(..) | Op::ArgAddr(_) | Op::LocalAddr(_) | Op::GlobalAddr(_) => false,
        Op::Builtin(b, _) | Op::BuiltinDyn(b, _) => per_item(*b),
        Op::Load(a) => !arg_reads.contains(a),
        _ => true,
    }
}

/// The uniformity of kernel `k` (split at its barriers); `arg_reads` are its loads of the
/// argument block that nothing writes (`regions::arg_reads`).
pub(crate) fn uniformity(k: &Kernel, arg_reads: &HashSet<Value>) -> Uniformity {
    let n = k.blocks.len();
    let mut u = Uniformity {
        varying: vec![false; k.types.len()],
        divergent: vec![false; n],
    };
    if n > MAX_BLOCKS {
        u.varying.iter_mut().for_each(|v| *v = true);
        u.divergent.iter_mut().for_each(|v| *v = true);
        return u;
    }
    let ipdom = immediate_post_dominators(k);
    let mut split = vec![false; n];
    loop {
        let mut more = spread(k, arg_reads, &mut u.varying);
        for b in 0..n {
            if split[b] || !varying_branch(k, b, &u.varying) {
                continue;
            }
            split[b] = true;
            more = true;
            let join = ipdom[b];
            for r in region(k, b, join) {
                u.divergent[r] = true;
                for p in &k.blocks[r].params {
                    u.varying[p.0 as usize] = true;
                }
            }
            if let Some(j) = join {
                for p in &k.blocks[j].params {
                    u.varying[p.0 as usize] = true;
                }
            }
        }
        if !more {
            return u;
        }
    }
}

/// Marks what varying operands make vary, to a fixed point; true when anything changed.
fn spread(k: &Kernel, arg_reads: &HashSet<Value>, varying: &mut [bool]) -> bool {
    let before = varying.iter().filter(|v| **v).count();
    super::lockstep::spread(k, varying, &|op| source(op, arg_reads));
    varying.iter().filter(|v| **v).count() > before
}

/// True when block `b` ends in a branch or switch on a varying value with more than one target.
fn varying_branch(k: &Kernel, b: usize, varying: &[bool]) -> bool {
    let term = &k.blocks[b].term;
    if !matches!(term, Term::Branch(..) | Term::Switch(..)) {
        return false;
    }
    let mut targets = k.successors(BlockId(b as u32));
    targets.sort_unstable_by_key(|t| t.0);
    targets.dedup();
    targets.len() > 1 && term_operands(term).first().is_some_and(|c| varying[c.0 as usize])
}

/// The blocks reached from `b`'s targets before `join` (every block reached when `None`).
fn region(k: &Kernel, b: usize, join: Option<usize>) -> Vec<usize> {
    let mut seen = vec![false; k.blocks.len()];
    let mut stack: Vec<usize> = k.successors(BlockId(b as u32)).iter().map(|s| s.0 as usize).collect();
    let mut out = Vec::new();
    while let Some(s) = stack.pop() {
        if Some(s) == join || seen[s] {
            continue;
        }
        seen[s] = true;
        out.push(s);
        stack.extend(k.successors(BlockId(s as u32)).iter().map(|t| t.0 as usize));
    }
    out
}

/// Each block's immediate post-dominator (`None`: the kernel's end, or none found), over every
/// edge, barriers' included.
fn immediate_post_dominators(k: &Kernel) -> Vec<Option<usize>> {
    let n = k.blocks.len();
    let words = (n + 1).div_ceil(64);
    let exit = n;
    let full = vec![u64::MAX; words];
    // pdom[b]: the blocks (and the virtual exit, bit `n`) that every path from b to the end
    // passes through.
    let mut pdom: Vec<Vec<u64>> = vec![full; n];
    let set = |s: &mut Vec<u64>, i: usize| s[i / 64] |= 1 << (i % 64);
    let succ: Vec<Vec<usize>> = (0..n)
        .map(|b| k.successors(BlockId(b as u32)).iter().map(|s| s.0 as usize).collect())
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut s = if succ[b].is_empty() {
                let mut e = vec![0u64; words];
                set(&mut e, exit);
                e
            } else {
                let mut acc = vec![u64::MAX; words];
                for &t in &succ[b] {
                    for (a, x) in acc.iter_mut().zip(&pdom[t]) {
                        *a &= x;
                    }
                }
                acc
            };
            set(&mut s, b);
            if s != pdom[b] {
                pdom[b] = s;
                changed = true;
            }
        }
    }
    let count = |s: &[u64]| s.iter().map(|w| w.count_ones()).sum::<u32>();
    (0..n)
        .map(|b| {
            let mine = count(&pdom[b]);
            // The strict post-dominator whose own set is this block's less itself.
            (0..n).find(|&p| {
                p != b && pdom[b][p / 64] >> (p % 64) & 1 == 1 && count(&pdom[p]) + 1 == mine
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, CmpOp, Inst, Ty};

    fn kernel(blocks: Vec<Block>, types: Vec<Ty>) -> Kernel {
        Kernel { name: "t".into(), blocks, types, private_size: 0, sub_group_size: 8 }
    }

    fn inst(r: u32, op: Op) -> Inst {
        Inst { result: Some(Value(r)), op }
    }

    /// `for (s = size / 2; s > 0; s /= 2) { barrier; if (lid < s) ...; }`: `s` is uniform, the
    /// branch on the local id makes only its own block divergent.
    #[test]
    fn tree_loop_counter_is_uniform() {
        use crate::ir::BinOp;
        let v = Value;
        let blocks = vec![
            // 0: lid, size, s0 = size >> 1
            Block {
                params: vec![],
                insts: vec![
                    inst(0, Op::Builtin(Builtin::LocalId, 0)),
                    inst(1, Op::Builtin(Builtin::LocalSize, 0)),
                    inst(2, Op::Const(1)),
                    inst(3, Op::Bin(BinOp::LShr, v(1), v(2))),
                ],
                term: Term::Jump(BlockId(1), vec![v(3)]),
            },
            // 1: header(s): s > 0 ? 2 : 5
            Block {
                params: vec![v(4)],
                insts: vec![inst(5, Op::Const(0)), inst(6, Op::Cmp(CmpOp::UGt, v(4), v(5)))],
                term: Term::Branch(v(6), (BlockId(2), vec![]), (BlockId(5), vec![])),
            },
            // 2: barrier to 3
            Block { params: vec![], insts: vec![], term: Term::Barrier(BlockId(3)) },
            // 3: lid < s ? 4 : 6
            Block {
                params: vec![],
                insts: vec![inst(7, Op::Cmp(CmpOp::ULt, v(0), v(4)))],
                term: Term::Branch(v(7), (BlockId(4), vec![]), (BlockId(6), vec![])),
            },
            // 4: the work, then the join
            Block { params: vec![], insts: vec![], term: Term::Jump(BlockId(6), vec![]) },
            // 5: end
            Block { params: vec![], insts: vec![], term: Term::Return },
            // 6: join: s >> 1, back to the header
            Block {
                params: vec![],
                insts: vec![inst(8, Op::Bin(BinOp::LShr, v(4), v(2)))],
                term: Term::Jump(BlockId(1), vec![v(8)]),
            },
        ];
        let k = kernel(blocks, vec![Ty::I64; 9]);
        let u = uniformity(&k, &HashSet::new());
        assert!(!u.uniform(v(0)) && !u.uniform(v(7)));
        assert!(u.uniform(v(4)) && u.uniform(v(8)) && u.uniform(v(3)));
        assert_eq!(u.divergent, vec![false, false, false, false, true, false, false]);
    }

    /// A loop that runs `lid` times: its counter varies, and so does what it carries out.
    #[test]
    fn varying_trip_count_makes_the_counter_vary() {
        use crate::ir::BinOp;
        let v = Value;
        let blocks = vec![
            Block {
                params: vec![],
                insts: vec![inst(0, Op::Builtin(Builtin::LocalId, 0)), inst(1, Op::Const(0)), inst(2, Op::Const(1))],
                term: Term::Jump(BlockId(1), vec![v(1)]),
            },
            Block {
                params: vec![v(3)],
                insts: vec![inst(4, Op::Cmp(CmpOp::ULt, v(3), v(0))), inst(6, Op::Bin(BinOp::Mul, v(2), v(2)))],
                term: Term::Branch(v(4), (BlockId(2), vec![]), (BlockId(3), vec![])),
            },
            Block {
                params: vec![],
                insts: vec![inst(5, Op::Bin(BinOp::Add, v(3), v(2)))],
                term: Term::Jump(BlockId(1), vec![v(5)]),
            },
            Block { params: vec![], insts: vec![], term: Term::Return },
        ];
        let k = kernel(blocks, vec![Ty::I64; 7]);
        let u = uniformity(&k, &HashSet::new());
        assert!(!u.uniform(v(3)) && !u.uniform(v(5)));
        // Made of constants only: the same wherever it is computed.
        assert!(u.uniform(v(6)));
        assert!(u.divergent[1] && u.divergent[2] && !u.divergent[3]);
    }
}
