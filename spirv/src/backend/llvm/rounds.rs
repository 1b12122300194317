//! The rounds of a kernel with barriers, and loops of one segment for all work-items.
//!
//! A round runs every work-item of the group to its next barrier: the dispatching loops
//! (`Lower::dispatch`) send each work-item to the segment it recorded. That switch per
//! work-item keeps LLVM from vectorizing anything across work-items. Yet in most rounds every
//! work-item resumes at the same segment (OpenCL requires every work-item to reach the same
//! barriers): the first round always, and every later one where the work-items took the same
//! barrier and none has finished. So each segment also gets loops of its own, z, y and x around
//! a second copy of its blocks with no dispatch; a round takes them when the previous round
//! found every work-item stopping at the same barrier ([`Lower::round_target`]), and the
//! dispatching loops otherwise.
//!
//! What lets LLVM vectorize a segment's own x loop:
//! - values every work-item computes alike ([`group_values`], from `analysis::uniform`), such as
//!   a tree's step, live in stack slots of the work-group function, not per work-item: LLVM
//!   sees loop invariants, and addresses made from them stay consecutive;
//! - a segment that every work-item leaves the same way ([`uniform_exits`]) records no resume
//!   state per work-item in its own loops;
//! - alias scopes tell LLVM that the work-items' slots and the kernel's memory do not overlap.
//!
//! The rest is LLVM's own analysis: the runtime checks it adds between accesses, and masked
//! loads and stores for branches. A segment with an inner loop (tiled SGEMM's) stays scalar
//! across work-items, and so does the combining of a collective's slots.
//!
//! The record: a flag per segment that some work-item resumes at, set where it stops
//! ([`Lower::note_resume`]), read and cleared when the next round starts; and a flag set for
//! good once some work-item has finished (the dispatching loops then skip it, which a
//! segment's own loops would not).

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

use crate::analysis::regions::Regions;
use crate::analysis::uniform::Uniformity;
use crate::ir::{self, operands, term_operands, BlockId, Term};
use crate::Error;

use super::lower::Lower;

/// Most segments given loops of their own (each is a second copy of the segment's code).
const MAX_SEGMENTS: usize = 32;

/// True when the segments of a kernel get loops of their own: it has barriers, no sub-group
/// barriers (whose waits need the dispatch), and not too many segments.
pub(super) fn own_loops(r: &Regions) -> bool {
    r.barriers() && r.sub_segments.is_empty() && r.blocks.len() <= MAX_SEGMENTS
}

/// The spilled values of kernel `k` kept once for the whole group instead of per work-item:
/// those every work-item computes alike (`u`) in a block every work-item reaches alike, where
/// no segment that computes one uses it from its slot after computing it (a use the segment's
/// own definition may reach without a barrier). Its slot is a stack slot of the work-group
/// function (which runs every round), read once when a round starts (every use from the slot
/// within a round wants the value some earlier round left) and written by every work-item that
/// computes it, all with the same value; LLVM keeps it in a register.
///
/// Not with sub-group barriers: sub-groups then pass them at their own pace, so that one may
/// compute such a value again before another has used it.
pub(super) fn group_values(k: &ir::Kernel, r: &Regions, u: &Uniformity) -> HashSet<ir::Value> {
    let mut out = HashSet::new();
    if !r.sub_segments.is_empty() {
        return out;
    }
    'value: for &v in r.spills.keys() {
        let Some((db, _)) = r.def_of(v) else { continue };
        if !u.uniform(v) || u.divergent[db] {
            continue;
        }
        for seg in 0..r.blocks.len() {
            if !r.contains(seg, db) {
                continue;
            }
            let reached = reached_in_segment(k, r, seg, db);
            for &b in &r.blocks[seg] {
                if reached[b] && slot_use(k, r, seg, v, b) {
                    continue 'value;
                }
            }
        }
        out.insert(v);
    }
    GROUP_VALUES.with(|c| c.set(c.get() + out.len() as u64));
    out
}

thread_local! {
    static GROUP_VALUES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many values [`group_values`] kept once per group on this thread.
pub(crate) fn group_values_on_this_thread() -> u64 {
    GROUP_VALUES.with(|c| c.get())
}

/// By block: reached from block `from`'s successors inside segment `seg` (no barrier crossed).
fn reached_in_segment(k: &ir::Kernel, r: &Regions, seg: usize, from: usize) -> Vec<bool> {
    let mut seen = vec![false; k.blocks.len()];
    let next = |b: usize| -> Vec<usize> {
        match k.blocks[b].term {
            Term::Barrier(_) => vec![],
            _ => k.successors(BlockId(b as u32)).iter().map(|s| s.0 as usize).collect(),
        }
    };
    let mut stack = next(from);
    while let Some(b) = stack.pop() {
        if seen[b] || !r.contains(seg, b) {
            continue;
        }
        seen[b] = true;
        stack.extend(next(b));
    }
    seen
}

/// True when block `b` of segment `seg` uses `v` from its slot (not as the segment computed it).
fn slot_use(k: &ir::Kernel, r: &Regions, seg: usize, v: ir::Value, b: usize) -> bool {
    let blk = &k.blocks[b];
    let insts = blk.insts.iter().enumerate().map(|(i, inst)| (i + 1, operands(&inst.op)));
    let term = std::iter::once((blk.insts.len() + 1, term_operands(&blk.term)));
    insts
        .chain(term)
        .any(|(pos, ops)| ops.contains(&v) && !r.direct(seg, v, b, pos))
}

/// True when every work-item that runs segment `seg` leaves it the same way (at the same
/// barrier, or all finishing): each of its exits is in a block every work-item reaches alike.
/// (Work-items that part at a varying branch meet again at its post-dominator before any such
/// block.) Its own loops then record no resume state per work-item: the record's flags say
/// where they all resume, and the dispatching loops, which read the states, never follow.
pub(super) fn uniform_exits(k: &ir::Kernel, r: &Regions, u: &Uniformity, seg: usize) -> bool {
    r.blocks[seg].iter().all(|&b| {
        let exit = matches!(k.blocks[b].term, Term::Barrier(_) | Term::Return | Term::Unreachable | Term::None);
        !exit || !u.divergent[b]
    })
}

/// True when `op` tests for the group's first work-item: its linear local id equals 0 (how a
/// work-group collective picks the work-item that combines the slots, `frontend/groups.rs`).
pub(super) fn first_item_test(defs: &HashMap<ir::Value, &ir::Op>, op: &ir::Op) -> bool {
    let ir::Op::Cmp(ir::CmpOp::Eq, a, b) = op else { return false };
    let is = |v: &ir::Value, f: &dyn Fn(&ir::Op) -> bool| defs.get(v).is_some_and(|o| f(o));
    let lin = |o: &ir::Op| matches!(o, ir::Op::Builtin(ir::Builtin::LocalLinearId, _));
    let zero = |o: &ir::Op| matches!(o, ir::Op::Const(0));
    (is(a, &lin) && is(b, &zero)) || (is(a, &zero) && is(b, &lin))
}

/// True when segment `seg` of kernel `k` tests for the group's first work-item
/// ([`first_item_test`]): its own loops then run that work-item first, on its own, and the
/// others with the test known false. A collective's combining loop then runs once, before
/// the loop over the other work-items, which has no inner loop left and vectorizes.
pub(super) fn leader_segment(k: &ir::Kernel, r: &Regions, seg: usize) -> bool {
    let defs: HashMap<ir::Value, &ir::Op> = k
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| i.result.map(|v| (v, &i.op)))
        .collect();
    r.blocks[seg]
        .iter()
        .any(|&b| k.blocks[b].insts.iter().any(|i| first_item_test(&defs, &i.op)))
}

impl<'ctx> Lower<'_, 'ctx> {
    /// The own loops of a segment that runs its first work-item on its own
    /// ([`leader_segment`]): that work-item through the third copy of the segment (`body`'s
    /// copy `2 * segments + seg`), then loops over all the work-items that skip the first and
    /// run `body`. Returns the block that starts them and the x loop's latch, and the block
    /// where the first work-item's code ends.
    pub(super) fn peeled_nest(
        &mut self,
        seg: usize,
        body: BasicBlock<'ctx>,
        out: BasicBlock<'ctx>,
    ) -> Result<((BasicBlock<'ctx>, BasicBlock<'ctx>), BasicBlock<'ctx>), Error> {
        let nseg = self.r.blocks.len() as u32;
        let (first, done, rest) = (
            self.cx.append_basic_block(self.f, "first_item"),
            self.cx.append_basic_block(self.f, "first_done"),
            self.cx.append_basic_block(self.f, "rest"),
        );
        let (init, latch) = self.nest(rest, out)?;
        self.b.position_at_end(rest);
        let lin = self.linear_id()?;
        let is_first = self.b.build_int_compare(IntPredicate::EQ, lin, self.i64c(0), "")?;
        self.b.build_conditional_branch(is_first, latch, body)?;
        self.b.position_at_end(first);
        for l in self.lid {
            self.b.build_store(l, self.i64c(0))?;
        }
        let start = self.r.starts[seg].0 as usize;
        self.b.build_unconditional_branch(self.blocks[&(2 * nseg + seg as u32, start)])?;
        self.b.position_at_end(done);
        self.b.build_unconditional_branch(init)?;
        Ok(((first, latch), done))
    }

    /// True when the code being lowered is a peeled segment's copy for the work-items after
    /// the first ([`leader_segment`]).
    pub(super) fn after_first_item(&self) -> bool {
        let nseg = self.r.blocks.len() as u32;
        self.key / nseg == 1 && self.peel.get((self.key % nseg) as usize) == Some(&true)
    }

    /// Stack slots for the group's values (see [`group_values`]), zeroed, in the entry block.
    pub(super) fn group_slots(&mut self) -> Result<(), Error> {
        let mut vs: Vec<ir::Value> = self.group_values.iter().copied().collect();
        vs.sort_unstable_by_key(|v| v.0);
        for v in vs {
            let t = self.lt(self.k.ty(v));
            let p = self.b.build_alloca(t, "group")?;
            self.b.build_store(p, t.const_zero())?;
            self.group_slot.insert(v, (p, t));
        }
        Ok(())
    }

    /// Reads the group's values as the round starts.
    pub(super) fn load_group_values(&mut self) -> Result<(), Error> {
        let mut vs: Vec<_> = self.group_slot.iter().map(|(v, s)| (*v, *s)).collect();
        vs.sort_unstable_by_key(|v| v.0 .0);
        self.group_snap.clear();
        for (v, (p, t)) in vs {
            let x = self.b.build_load(t, p, "")?;
            self.group_snap.insert(v, x);
        }
        Ok(())
    }

    /// The flags of the record (in the entry block), all clear.
    pub(super) fn segment_flags(&mut self, segments: u32) -> Result<(), Error> {
        let b = self.cx.bool_type();
        for _ in 0..segments {
            let p = self.b.build_alloca(b, "reach")?;
            self.b.build_store(p, b.const_zero())?;
            self.reach.push(p);
        }
        let p = self.b.build_alloca(b, "finished")?;
        self.b.build_store(p, b.const_zero())?;
        self.finished = Some(p);
        Ok(())
    }

    /// Records that the work-item being run resumes at `segment` (`u32::MAX`: it has finished).
    pub(super) fn note_resume(&self, segment: u32) -> Result<(), Error> {
        if self.reach.is_empty() {
            return Ok(());
        }
        let flag = match self.reach.get(segment as usize) {
            Some(p) => *p,
            None => self.finished.expect("the record's flags"),
        };
        self.b.build_store(flag, self.cx.bool_type().const_int(1, false))?;
        Ok(())
    }

    /// Loops z, y and x (x innermost) over the group's work-items around `body`, leaving for
    /// `out`; returns the block that starts them and the x loop's latch (where a work-item's
    /// code ends).
    pub(super) fn nest(
        &mut self,
        body: BasicBlock<'ctx>,
        out: BasicBlock<'ctx>,
    ) -> Result<(BasicBlock<'ctx>, BasicBlock<'ctx>), Error> {
        let bb = |me: &Self, n: &str| me.cx.append_basic_block(me.f, n);
        let (init, z_head, y_init, y_head) = (bb(self, "z0"), bb(self, "z"), bb(self, "y0"), bb(self, "y"));
        let (x_init, x_head, latch) = (bb(self, "x0"), bb(self, "x"), bb(self, "latch"));
        let (y_latch, z_latch) = (bb(self, "y_next"), bb(self, "z_next"));
        let lsz = self.g().lsz;
        let i64t = self.cx.i64_type();
        let zero = |me: &Self, var: PointerValue<'ctx>, block, head| -> Result<(), Error> {
            me.b.position_at_end(block);
            me.b.build_store(var, me.i64c(0))?;
            me.b.build_unconditional_branch(head)?;
            Ok(())
        };
        let counted = |me: &Self, head, var: PointerValue<'ctx>, size, body, out| -> Result<(), Error> {
            me.b.position_at_end(head);
            let v = me.b.build_load(i64t, var, "")?.into_int_value();
            let more = me.b.build_int_compare(IntPredicate::ULT, v, size, "")?;
            me.b.build_conditional_branch(more, body, out)?;
            Ok(())
        };
        zero(self, self.lid[2], init, z_head)?;
        counted(self, z_head, self.lid[2], lsz[2], y_init, out)?;
        zero(self, self.lid[1], y_init, y_head)?;
        counted(self, y_head, self.lid[1], lsz[1], x_init, z_latch)?;
        if self.chunk.as_ref().is_some_and(|c| c.latch.is_none()) {
            // The first nest of a kernel without barriers: its x loop in chunks (`tiles.rs`).
            self.chunk_loop(x_init, x_head)?;
        } else {
            zero(self, self.lid[0], x_init, x_head)?;
        }
        counted(self, x_head, self.lid[0], lsz[0], body, y_latch)?;
        for (blk, var, head) in [(latch, 0, x_head), (y_latch, 1, y_head), (z_latch, 2, z_head)] {
            self.b.position_at_end(blk);
            let v = self.b.build_load(i64t, self.lid[var], "")?.into_int_value();
            let n = self.b.build_int_add(v, self.i64c(1), "")?;
            self.b.build_store(self.lid[var], n)?;
            self.b.build_unconditional_branch(head)?;
        }
        Ok((init, latch))
    }

    /// Ends the round's first block: a segment's own loops (`own`, by segment) in the first
    /// round and where the record names one segment and no finished work-item, else the
    /// dispatching loops (`generic`). Reads and clears the record.
    pub(super) fn round_target(
        &mut self,
        generic: BasicBlock<'ctx>,
        own: &[(BasicBlock<'ctx>, BasicBlock<'ctx>)],
    ) -> Result<(), Error> {
        let (b, i32t) = (self.cx.bool_type(), self.cx.i32_type());
        let first = self.b.build_load(b, self.first, "")?.into_int_value();
        let (rest, one) = (self.cx.append_basic_block(self.f, "record"), self.cx.append_basic_block(self.f, "one"));
        self.b.build_conditional_branch(first, own[0].0, rest)?;
        self.b.position_at_end(rest);
        let (mut count, mut which): (IntValue<'ctx>, IntValue<'ctx>) = (i32t.const_zero(), i32t.const_zero());
        for (seg, flag) in self.reach.clone().into_iter().enumerate() {
            let set = self.b.build_load(b, flag, "")?.into_int_value();
            let n = self.b.build_int_z_extend(set, i32t, "")?;
            count = self.b.build_int_add(count, n, "")?;
            let s = i32t.const_int(seg as u64, false);
            which = self.b.build_select(set, s, which, "")?.into_int_value();
            self.b.build_store(flag, b.const_zero())?;
        }
        let finished = self.b.build_load(b, self.finished.expect("the record's flags"), "")?.into_int_value();
        let single = self.b.build_int_compare(IntPredicate::EQ, count, i32t.const_int(1, false), "")?;
        let live = self.b.build_not(finished, "")?;
        let uniform = self.b.build_and(single, live, "")?;
        self.b.build_conditional_branch(uniform, one, generic)?;
        self.b.position_at_end(one);
        let cases: Vec<_> = own.iter().enumerate().map(|(s, o)| (i32t.const_int(s as u64, false), o.0)).collect();
        self.b.build_switch(which, generic, &cases)?;
        Ok(())
    }
}
