//! Whether anything a kernel does can be seen once it ends: a store, copy or atomic, an image
//! access, a `printf`, or a trap. A kernel with none of them (an empty body, or one that only
//! reads and computes) leaves no trace, so its launches have nothing to run: the driver skips
//! them, as an optimizing compiler deletes such a work-item loop.
//!
//! Loads are not effects (a load that would fault is skipped with the rest, as a dead load is
//! by any optimizer), but atomic loads are: a kernel may wait on one for another agent's store.

use crate::ir::{Kernel, Op, Term};

/// True when some work-item of `k` may do something visible after the launch.
pub fn observable(k: &Kernel) -> bool {
    k.blocks.iter().any(|b| {
        matches!(b.term, Term::Unreachable)
            || b.insts.iter().any(|i| {
                matches!(
                    i.op,
                    Op::Store { .. }
                        | Op::Copy { .. }
                        | Op::Atomic(..)
                        | Op::AtomicCas(..)
                        | Op::AtomicLoad(_)
                        | Op::AtomicStore(..)
                        | Op::Image { .. }
                        | Op::Printf { .. }
                )
            })
    })
}
