//! Branches on values that differ between the work-items of a lockstep turn: how each runs
//! ([`Div`]: a region up to where its sides meet, or a side that only returns), found by
//! [`divergence`].

use crate::ir::{self, BlockId, Term};

/// How a branch on a varying condition is run.
#[derive(Clone, Debug)]
pub(crate) enum Div {
    /// Both sides meet again at `join`: the blocks in between (no loop among them) are run
    /// one after the other, each with the lanes that reach it active.
    Region {
        /// The blocks, each after its predecessors.
        blocks: Vec<usize>,
        join: usize,
    },
    /// Both sides meet again at `join`, with a loop between and no way out but `join`: the
    /// lanes that reach the branch run the blocks in between one after the other, each lane on
    /// its own (one work-item at a time, as without lockstep), and meet at `join`.
    Serial {
        /// The blocks, in reverse postorder of the kernel.
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
pub(crate) fn topo(k: &ir::Kernel, set: &std::collections::HashSet<usize>) -> Option<Vec<usize>> {
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
pub(crate) fn exit_like(k: &ir::Kernel, mut b: usize) -> bool {
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
pub(crate) fn reach(
    k: &ir::Kernel,
    from: &[usize],
    stop: Option<usize>,
) -> std::collections::HashSet<usize> {
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
/// or sides that neither meet nor only return (a loop inside a region that meets again makes
/// it [`Div::Serial`]).
pub(crate) fn divergence(k: &ir::Kernel, varying: &[bool]) -> Option<Divergence> {
    use crate::ir::verify::{dominates, dominators_of};
    let n = k.blocks.len();
    let succ = |b: usize| -> Vec<usize> {
        k.successors(BlockId(b as u32))
            .iter()
            .map(|s| s.0 as usize)
            .collect()
    };
    let (idom, rpo) = dominators_of(n, 0, &succ);
    let mut order = vec![usize::MAX; n];
    for (i, b) in rpo.iter().enumerate() {
        order[*b] = i;
    }
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
            params.extend(k.blocks[join].params.iter().copied());
            match topo(k, &set) {
                Some(blocks) => Div::Region { blocks, join },
                None => {
                    // Every lane comes to the join (none returns on the way), so each lane's
                    // copy of the blocks leaves only there.
                    let leaves = set.iter().any(|x| {
                        matches!(k.blocks[*x].term, Term::Return | Term::Unreachable)
                            || succ(*x).iter().any(|s| *s != join && !set.contains(s))
                    });
                    if leaves {
                        return None;
                    }
                    let mut blocks: Vec<usize> = set.into_iter().collect();
                    blocks.sort_unstable_by_key(|x| order[*x]);
                    Div::Serial { blocks, join }
                }
            }
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
        let (Div::Region { blocks, .. } | Div::Serial { blocks, .. } | Div::Retire { blocks, .. }) = &d;
        for x in blocks {
            inlined.insert(*x);
            params.extend(k.blocks[*x].params.iter().copied());
        }
        div.insert(b, d);
    }
    // Where the lanes go on must be a block of its own.
    let on = div.iter().map(|(b, d)| match d {
        Div::Region { join, .. } | Div::Serial { join, .. } => *join,
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
