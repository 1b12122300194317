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
//! dispatching loops otherwise. (LLVM does not vectorize these loops yet: the record's flags
//! are shared by the work-items, and their spill slots are a work-item's area apart. Tried:
//! states read back instead of flags and spill slots laid out slot by slot, which vectorizes
//! them, with masked gathers and scatters, and ran no faster on the bench's sums.)
//!
//! The record: a flag per segment that some work-item resumes at, set where it stops
//! ([`Lower::note_resume`]), read and cleared when the next round starts; and a flag set for
//! good once some work-item has finished (the dispatching loops then skip it, which a
//! segment's own loops would not).

use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

use crate::analysis::regions::Regions;
use crate::Error;

use super::lower::Lower;

/// Most segments given loops of their own (each is a second copy of the segment's code).
const MAX_SEGMENTS: usize = 32;

/// True when the segments of a kernel get loops of their own: it has barriers, no sub-group
/// barriers (whose waits need the dispatch), and not too many segments.
pub(super) fn own_loops(r: &Regions) -> bool {
    r.barriers() && r.sub_segments.is_empty() && r.blocks.len() <= MAX_SEGMENTS
}

impl<'ctx> Lower<'_, 'ctx> {
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
        zero(self, self.lid[0], x_init, x_head)?;
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
