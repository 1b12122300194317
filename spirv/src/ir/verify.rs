//! The IR's own checks, run on every kernel before code generation: each block ends with a
//! terminator whose targets exist and get the right number and types of arguments, and every
//! value is defined once and dominates each of its uses. SPIR-V that breaks these rules (which
//! the lowering does not all see) is refused here instead of reaching a backend.

use crate::ir::{operands, term_operands, BlockId, Kernel, Term, Ty, Value};
use crate::Error;

/// Immediate dominators of the blocks reachable from block 0 (`None`: unreachable), and the
/// reverse postorder.
pub fn dominators(k: &Kernel) -> (Vec<Option<usize>>, Vec<usize>) {
    dominators_of(k.blocks.len(), 0, &|b| {
        k.successors(BlockId(b as u32))
            .iter()
            .map(|s| s.0 as usize)
            .collect()
    })
}

/// Immediate dominators of the nodes of a graph of `n` nodes reachable from `root` through
/// `succ` (`None`: unreachable; the root is its own), and their reverse postorder
/// (Cooper, Harvey and Kennedy's iterative algorithm).
pub fn dominators_of(
    n: usize,
    root: usize,
    succ: &dyn Fn(usize) -> Vec<usize>,
) -> (Vec<Option<usize>>, Vec<usize>) {
    let mut order = Vec::new();
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    if root < n {
        seen[root] = true;
        stack.push((root, succ(root)));
    }
    while let Some((b, next)) = stack.last_mut() {
        if let Some(s) = next.pop() {
            if s < n && !seen[s] {
                seen[s] = true;
                let more = succ(s);
                stack.push((s, more));
            }
        } else {
            order.push(*b);
            stack.pop();
        }
    }
    order.reverse();
    let mut rpo_index = vec![usize::MAX; n];
    for (i, b) in order.iter().enumerate() {
        rpo_index[*b] = i;
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &b in &order {
        for s in succ(b) {
            if s < n {
                preds[s].push(b);
            }
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if root < n {
        idom[root] = Some(root);
    }
    let intersect = |idom: &Vec<Option<usize>>, mut a: usize, mut b: usize| {
        while a != b {
            while rpo_index[a] > rpo_index[b] {
                a = idom[a].unwrap_or(root);
            }
            while rpo_index[b] > rpo_index[a] {
                b = idom[b].unwrap_or(root);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_some() {
                    new = Some(match new {
                        None => p,
                        Some(x) => intersect(&idom, p, x),
                    });
                }
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    (idom, order)
}

/// True when `a` dominates `b` under `idom` (both reachable).
pub fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom.get(b).copied().flatten() {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    }
}

/// Checks `k` (see the module documentation).
pub fn verify(k: &Kernel) -> Result<(), Error> {
    let nv = k.types.len();
    // Where each value is defined: (block, position; params at 0, instruction i at i + 1).
    let mut def: Vec<Option<(usize, usize)>> = vec![None; nv];
    let mut define = |v: Value, at: (usize, usize)| -> Result<(), Error> {
        match def.get_mut(v.0 as usize) {
            Some(slot @ None) => {
                *slot = Some(at);
                Ok(())
            }
            Some(Some(_)) => Err(Error::invalid(format!("value v{} is defined twice", v.0))),
            None => Err(Error::internal(format!("value v{} has no type", v.0))),
        }
    };
    for (bi, b) in k.blocks.iter().enumerate() {
        for p in &b.params {
            define(*p, (bi, 0))?;
        }
        for (ii, inst) in b.insts.iter().enumerate() {
            if let Some(r) = inst.result {
                define(r, (bi, ii + 1))?;
            }
        }
    }
    let (idom, order) = dominators(k);
    let dominates = |a: usize, b: usize| dominates(&idom, a, b);
    let check_use = |v: Value, at: (usize, usize)| -> Result<(), Error> {
        let Some(Some((db, dp))) = def.get(v.0 as usize).copied() else {
            return Err(Error::invalid(format!(
                "value v{} is used but never defined",
                v.0
            )));
        };
        let ok = if db == at.0 {
            dp < at.1 || (dp == 0 && at.1 == 0)
        } else {
            dominates(db, at.0)
        };
        if ok {
            Ok(())
        } else {
            Err(Error::invalid(
                "a value is used where its definition does not dominate the use",
            ))
        }
    };
    for &bi in &order {
        let b = &k.blocks[bi];
        for (ii, inst) in b.insts.iter().enumerate() {
            for v in operands(&inst.op) {
                check_use(v, (bi, ii + 1))?;
            }
        }
        let end = (bi, b.insts.len() + 1);
        for v in term_operands(&b.term) {
            check_use(v, end)?;
        }
        let edge = |t: &BlockId, args: &[Value]| -> Result<(), Error> {
            let target = k
                .blocks
                .get(t.0 as usize)
                .ok_or_else(|| Error::internal("a branch to a block that does not exist"))?;
            if target.params.len() != args.len()
                || target
                    .params
                    .iter()
                    .zip(args)
                    .any(|(p, a)| k.ty(*p) != k.ty(*a))
            {
                return Err(Error::invalid(
                    "branch arguments do not match the target's OpPhi",
                ));
            }
            Ok(())
        };
        match &b.term {
            Term::None => return Err(Error::invalid("a block has no terminator")),
            Term::Jump(t, a) => edge(t, a)?,
            Term::Branch(c, (t, ta), (f, fa)) => {
                if k.ty(*c) != Ty::Bool {
                    return Err(Error::invalid("a conditional branch on a non-boolean"));
                }
                edge(t, ta)?;
                edge(f, fa)?;
            }
            Term::Switch(_, d, cases) => {
                edge(d, &[])?;
                for (_, t) in cases {
                    edge(t, &[])?;
                }
            }
            Term::Barrier(t) => edge(t, &[])?,
            Term::Return | Term::Unreachable => {}
        }
    }
    Ok(())
}
