//! The work-group function in LLVM IR: the group's values read from its context, the rounds
//! (kernels with barriers), the work-item loops (z, y, x; x innermost), the dispatch of a
//! resumed work-item to its segment, blocks and branches, and the built-ins. The operations
//! are in `ops`. The rules are the Cranelift tier's (`backend/scalar.rs`).

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue, MetadataValue, PhiValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

use crate::analysis::regions::{arg_reads, Regions};
use crate::ir::{self, Builtin, Op, Term, Ty};
use crate::{Error, GroupCtx};

/// Private memory per work-item up to which a kernel without barriers keeps it on the stack
/// (where LLVM promotes it to registers); above it, in the group's private memory.
const STACK_PRIVATE: u32 = 16 << 10;

/// Values read once from the group context.
pub(super) struct Group<'ctx> {
    pub(super) gid: [IntValue<'ctx>; 3],
    pub(super) lsz: [IntValue<'ctx>; 3],
    pub(super) ngr: [IntValue<'ctx>; 3],
    pub(super) goff: [IntValue<'ctx>; 3],
    pub(super) wdim: IntValue<'ctx>,
    pub(super) args: IntValue<'ctx>,
    pub(super) local: IntValue<'ctx>,
    pub(super) private: IntValue<'ctx>,
    pub(super) total: IntValue<'ctx>,
}

pub(super) struct Lower<'a, 'ctx> {
    pub(super) cx: &'ctx Context,
    pub(super) m: &'a Module<'ctx>,
    pub(super) b: Builder<'ctx>,
    pub(super) f: FunctionValue<'ctx>,
    pub(super) k: &'a ir::Kernel,
    pub(super) r: &'a Regions,
    pub(super) stride: u32,
    pub(super) vals: HashMap<(u32, ir::Value), BasicValueEnum<'ctx>>,
    pub(super) phis: HashMap<(u32, ir::Value), PhiValue<'ctx>>,
    pub(super) blocks: HashMap<(u32, usize), BasicBlock<'ctx>>,
    /// Block and position being lowered (for [`Regions::direct`]).
    pub(super) at: (usize, usize),
    pub(super) segment: u32,
    pub(super) g: Option<Group<'ctx>>,
    /// The local ids (stack slots LLVM promotes to registers).
    pub(super) lid: [PointerValue<'ctx>; 3],
    /// Some work-item stopped at a barrier in this round (an `i1` slot).
    pub(super) any: PointerValue<'ctx>,
    /// This is the first round.
    pub(super) first: PointerValue<'ctx>,
    /// Some work-item stopped at a sub-group barrier in this round / the previous one.
    sub_now: PointerValue<'ctx>,
    sub_prev: PointerValue<'ctx>,
    pub(super) latch: Option<BasicBlock<'ctx>>,
    /// Which copy of the segment's blocks is being lowered: the segment itself in the rounds'
    /// dispatching loops, `segments + segment` in its own loops (`rounds.rs`). The key of
    /// `vals`, `phis` and `blocks`.
    pub(super) key: u32,
    /// Kernels with barriers whose rounds may run one segment for all work-items
    /// (`rounds.rs`): a flag per segment some work-item resumes at, and one set for good
    /// once some work-item has finished.
    pub(super) reach: Vec<PointerValue<'ctx>>,
    pub(super) finished: Option<PointerValue<'ctx>>,
    /// Private memory on the stack (kernels without barriers).
    pub(super) private_slot: Option<PointerValue<'ctx>>,
    /// Addresses in the argument block, when the kernel never writes there.
    pub(super) arg_reads: HashSet<ir::Value>,
    /// Kernel arguments loaded before the work-item loops, by address value and type.
    pub(super) arg_words: HashMap<(ir::Value, Ty), BasicValueEnum<'ctx>>,
    /// The instruction defining each value.
    pub(super) defs: HashMap<ir::Value, &'a Op>,
    pub(super) broken: bool,
    /// Spilled values kept once per group (`rounds::group_values`), and their values as this
    /// round found them.
    pub(super) group_values: HashSet<ir::Value>,
    pub(super) group_slot: HashMap<ir::Value, (PointerValue<'ctx>, BasicTypeEnum<'ctx>)>,
    pub(super) group_snap: HashMap<ir::Value, BasicValueEnum<'ctx>>,
    /// By segment: its own loops record no resume state per work-item (`rounds::uniform_exits`).
    pub(super) no_states: Vec<bool>,
    /// By segment: its own loops run the first work-item on its own, before the others
    /// (`rounds::leader_segment`).
    pub(super) peel: Vec<bool>,
    /// The memory access being built is one of the work-group function's own (a spill slot,
    /// a resume state), which the kernel's accesses never touch.
    pub(super) own_access: std::cell::Cell<bool>,
    /// Alias scopes that say so to LLVM (kernels with barriers): the kinds `alias.scope` and
    /// `noalias`, and the scope list.
    pub(super) scopes: Option<(u32, u32, MetadataValue<'ctx>)>,
    /// The x loop in chunks of 16 work-items (kernels without barriers, `tiles.rs`).
    pub(super) chunk: Option<super::tiles::Chunk<'ctx>>,
}

/// Lowers kernel `k` into a new function of `m`; returns it.
pub(super) fn lower<'ctx>(
    cx: &'ctx Context,
    m: &Module<'ctx>,
    k: &ir::Kernel,
    r: &Regions,
    stride: u32,
) -> Result<FunctionValue<'ctx>, Error> {
    let ptr = cx.ptr_type(AddressSpace::default());
    let fty = cx.void_type().fn_type(&[ptr.into()], false);
    let f = m.add_function("zekit_kernel", fty, Some(Linkage::External));
    for a in ["nounwind", "nofree", "norecurse"] {
        let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(a);
        f.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            cx.create_enum_attribute(kind, 0),
        );
    }
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    b.position_at_end(entry);
    let i64t = cx.i64_type();
    let slot = |b: &Builder<'ctx>, t: BasicTypeEnum<'ctx>| b.build_alloca(t, "");
    let lid = [slot(&b, i64t.into())?, slot(&b, i64t.into())?, slot(&b, i64t.into())?];
    let flag = || slot(&b, cx.bool_type().into());
    let (any, first, sub_now, sub_prev) = (flag()?, flag()?, flag()?, flag()?);
    let mut defs = HashMap::new();
    for i in k.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(r) = i.result {
            defs.insert(r, &i.op);
        }
    }
    let mut l = Lower {
        cx,
        m,
        b,
        f,
        k,
        r,
        stride,
        vals: HashMap::new(),
        phis: HashMap::new(),
        blocks: HashMap::new(),
        at: (0, 0),
        segment: 0,
        g: None,
        lid,
        any,
        first,
        sub_now,
        sub_prev,
        latch: None,
        key: 0,
        reach: Vec::new(),
        finished: None,
        private_slot: None,
        arg_reads: arg_reads(k),
        arg_words: HashMap::new(),
        defs,
        broken: false,
        group_values: HashSet::new(),
        group_slot: HashMap::new(),
        group_snap: HashMap::new(),
        no_states: Vec::new(),
        peel: Vec::new(),
        own_access: std::cell::Cell::new(false),
        scopes: None,
        chunk: None,
    };
    if !r.barriers() {
        let args = crate::analysis::regions::arg_words(k, &l.arg_reads).into_iter().map(|(a, t, _)| (a, t)).collect();
        if let Some(p) = super::tiles::plan(k, &args) {
            let base = l.b.build_alloca(i64t, "chunk_base")?;
            l.chunk = Some(super::tiles::Chunk::new(p, base));
        }
    } else {
        let u = crate::analysis::uniform::uniformity(k, &l.arg_reads);
        l.group_values = super::rounds::group_values(k, r, &u);
        if super::rounds::own_loops(r) {
            l.no_states = (0..r.blocks.len()).map(|s| super::rounds::uniform_exits(k, r, &u, s)).collect();
            l.peel = (0..r.blocks.len()).map(|s| super::rounds::leader_segment(k, r, s)).collect();
        }
        let domain = cx.metadata_node(&[cx.metadata_string("zekit").into()]);
        let scope = cx.metadata_node(&[cx.metadata_string("zekit: the work-items' slots").into(), domain.into()]);
        let list = cx.metadata_node(&[scope.into()]);
        l.scopes = Some((cx.get_kind_id("alias.scope"), cx.get_kind_id("noalias"), list));
    }
    l.run()?;
    if l.broken {
        return Err(Error::internal(format!(
            "kernel `{}`: a value used before its definition",
            k.name
        )));
    }
    if let Some(latch) = l.latch {
        if super::outer::eligible(k, r, stride, f) {
            super::outer::mark(cx, latch);
            if let Some(j) = l.chunk.as_ref().and_then(|c| c.latch) {
                super::outer::mark(cx, j);
            }
        }
    }
    Ok(f)
}

impl<'a, 'ctx> Lower<'a, 'ctx> {
    pub(super) fn g(&self) -> &Group<'ctx> {
        self.g.as_ref().expect("group values are read first")
    }

    /// The LLVM type of an IR type (`Bool` is `i1`).
    pub(super) fn lt(&self, t: Ty) -> BasicTypeEnum<'ctx> {
        match t {
            Ty::Bool => self.cx.bool_type().into(),
            Ty::I8 => self.cx.i8_type().into(),
            Ty::I16 => self.cx.i16_type().into(),
            Ty::I32 => self.cx.i32_type().into(),
            Ty::I64 => self.cx.i64_type().into(),
            Ty::F32 => self.cx.f32_type().into(),
            Ty::F64 => self.cx.f64_type().into(),
        }
    }

    pub(super) fn i64c(&self, x: u64) -> IntValue<'ctx> {
        self.cx.i64_type().const_int(x, false)
    }

    fn read_group(&mut self) -> Result<(), Error> {
        let ctx = self.f.get_nth_param(0).expect("one parameter").into_pointer_value();
        let i64t = self.cx.i64_type();
        let at = |me: &Self, off: i32| -> Result<IntValue<'ctx>, Error> {
            let p = field(me, ctx, u64::from(off as u32))?;
            let v = me.b.build_load(i64t, p, "")?;
            Ok(v.into_int_value())
        };
        let tri = |me: &Self, off: i32| -> Result<[IntValue<'ctx>; 3], Error> {
            Ok([at(me, off)?, at(me, off + 8)?, at(me, off + 16)?])
        };
        let gid = tri(self, GroupCtx::GROUP_ID)?;
        let lsz = tri(self, GroupCtx::LOCAL_SIZE)?;
        let ngr = tri(self, GroupCtx::NUM_GROUPS)?;
        let goff = tri(self, GroupCtx::GLOBAL_OFFSET)?;
        let wdim = at(self, GroupCtx::WORK_DIM)?;
        let args = at(self, GroupCtx::ARGS)?;
        let local = at(self, GroupCtx::LOCAL_MEM)?;
        let private = at(self, GroupCtx::PRIVATE_MEM)?;
        let t01 = self.b.build_int_mul(lsz[0], lsz[1], "")?;
        let total = self.b.build_int_mul(t01, lsz[2], "")?;
        self.g = Some(Group {
            gid,
            lsz,
            ngr,
            goff,
            wdim,
            args,
            local,
            private,
            total,
        });
        Ok(())
    }

    fn run(&mut self) -> Result<(), Error> {
        self.read_group()?;
        if !self.r.barriers() && self.stride <= STACK_PRIVATE && self.stride > 0 {
            let t = self.cx.i8_type().array_type(self.stride);
            let p = self.b.build_alloca(t, "private")?;
            if let Some(i) = p.as_instruction() {
                i.set_alignment(16).map_err(|e| Error::internal(format!("llvm: {e}")))?;
            }
            self.private_slot = Some(p);
        }
        self.preload_args()?;
        let r = self.r;
        let nseg = r.blocks.len() as u32;
        let own_loops = super::rounds::own_loops(r);
        // One copy of each block per segment that contains it, two where segments have loops
        // of their own (`rounds.rs`), and a third for the first work-item of a segment whose
        // own loops run it on its own.
        let copies = if own_loops { 2 } else { 0 };
        for copy in 0..=copies {
            for (seg, blocks) in r.blocks.iter().enumerate() {
                if copy == 2 && !self.peel[seg] {
                    continue;
                }
                self.copy_blocks(copy * nseg + seg as u32, blocks, "")?;
            }
        }
        if self.chunk.is_some() {
            let key = super::tiles::CHUNK_KEY;
            self.copy_blocks(key, &r.blocks[0], "chunk_block")?;
            let body = self.blocks[&(key, r.starts[0].0 as usize)];
            if let Some(c) = &mut self.chunk {
                c.body = Some(body);
            }
        }
        let entry = self.f.get_first_basic_block().expect("the entry");
        self.b.position_at_end(entry);
        if own_loops {
            self.segment_flags(nseg)?;
        }
        self.group_slots()?;
        if self.chunk.is_some() {
            self.chunk_checks()?;
        }
        let bb = |me: &Self, n: &str| me.cx.append_basic_block(me.f, n);
        let (round, round_end, exit) = (bb(self, "round"), bb(self, "round_end"), bb(self, "exit"));
        let dispatch = bb(self, "dispatch");
        let (t, f) = (self.cx.bool_type().const_int(1, false), self.cx.bool_type().const_zero());
        self.b.build_store(self.first, t)?;
        self.b.build_store(self.sub_now, f)?;
        self.b.build_unconditional_branch(round)?;
        // A round: every work-item, x fastest.
        self.b.position_at_end(round);
        self.b.build_store(self.any, f)?;
        let sub = self.b.build_load(self.cx.bool_type(), self.sub_now, "")?;
        self.b.build_store(self.sub_prev, sub)?;
        self.b.build_store(self.sub_now, f)?;
        self.load_group_values()?;
        let (generic, latch) = self.nest(dispatch, round_end)?;
        self.latch = Some(latch);
        let mut own = Vec::new();
        let mut first_done = Vec::new();
        if own_loops {
            for (seg, start) in r.starts.iter().enumerate() {
                let body = self.blocks[&(nseg + seg as u32, start.0 as usize)];
                if self.peel[seg] {
                    let (o, done) = self.peeled_nest(seg, body, round_end)?;
                    own.push(o);
                    first_done.push(Some(done));
                } else {
                    own.push(self.nest(body, round_end)?);
                    first_done.push(None);
                }
            }
            self.b.position_at_end(round);
            self.round_target(generic, &own)?;
        } else {
            self.b.position_at_end(round);
            self.b.build_unconditional_branch(generic)?;
        }
        // Where this work-item goes on: segment 0 in the first round, else its recorded segment.
        self.b.position_at_end(dispatch);
        let entry0 = self.blocks[&(0, r.starts[0].0 as usize)];
        if r.barriers() {
            self.dispatch(entry0, latch)?;
        } else {
            self.b.build_unconditional_branch(entry0)?;
        }
        for copy in 0..=copies {
            for (seg, blocks) in r.blocks.iter().enumerate() {
                if copy == 2 && !self.peel[seg] {
                    continue;
                }
                self.segment = seg as u32;
                self.key = copy * nseg + seg as u32;
                self.latch = Some(match copy {
                    0 => latch,
                    1 => own[seg].1,
                    _ => first_done[seg].expect("a peeled segment"),
                });
                for &bi in blocks {
                    self.block(bi)?;
                }
            }
        }
        if let Some(j) = self.chunk.as_ref().and_then(|c| c.latch) {
            self.segment = 0;
            self.key = super::tiles::CHUNK_KEY;
            self.latch = Some(j);
            for &bi in &r.blocks[0] {
                self.block(bi)?;
            }
            self.key = 0;
        }
        self.latch = Some(latch);
        // Another round while some work-item stopped at a barrier.
        self.b.position_at_end(round_end);
        self.b.build_store(self.first, f)?;
        if r.barriers() {
            let any = self.b.build_load(self.cx.bool_type(), self.any, "")?.into_int_value();
            self.b.build_conditional_branch(any, round, exit)?;
        } else {
            self.b.build_unconditional_branch(exit)?;
        }
        self.b.position_at_end(exit);
        self.b.build_return(None)?;
        Ok(())
    }

    /// A copy of `blocks` under `key`: an LLVM block each, with a phi per parameter.
    fn copy_blocks(&mut self, key: u32, blocks: &[usize], name: &str) -> Result<(), Error> {
        for &bi in blocks {
            let bb = self.cx.append_basic_block(self.f, name);
            self.b.position_at_end(bb);
            for p in &self.k.blocks[bi].params {
                let phi = self.b.build_phi(self.lt(self.k.ty(*p)), "")?;
                self.phis.insert((key, *p), phi);
                self.vals.insert((key, *p), phi.as_basic_value());
            }
            self.blocks.insert((key, bi), bb);
        }
        Ok(())
    }

    /// The dispatch of a kernel with barriers: segment 0 in the first round, else the segment
    /// the work-item recorded (finished ones go to the next work-item).
    fn dispatch(&mut self, entry0: BasicBlock<'ctx>, latch: BasicBlock<'ctx>) -> Result<(), Error> {
        let r = self.r;
        let first = self.b.build_load(self.cx.bool_type(), self.first, "")?.into_int_value();
        let resume = self.cx.append_basic_block(self.f, "resume");
        self.b.build_conditional_branch(first, entry0, resume)?;
        self.b.position_at_end(resume);
        let a = self.state_addr()?;
        let i32t = self.cx.i32_type();
        let state = self.own(|me| me.load(ir::Ty::I32, a))?.into_int_value();
        if !r.sub_segments.is_empty() {
            self.sub_group_gate(a, state)?;
        }
        let mut cases = Vec::new();
        for (seg, start) in r.starts.iter().enumerate() {
            let mut to = self.blocks[&(seg as u32, start.0 as usize)];
            if seg > 0 && !r.sub_segments.is_empty() && !r.sub_segments.contains(&(seg as u32)) {
                // After a work-group barrier: wait while some work-item is at a sub-group
                // barrier.
                let gate = self.cx.append_basic_block(self.f, "gate");
                let wait = self.cx.append_basic_block(self.f, "wait");
                let here = self.b.get_insert_block().expect("in a block");
                self.b.position_at_end(gate);
                let sub = self.b.build_load(self.cx.bool_type(), self.sub_prev, "")?.into_int_value();
                self.b.build_conditional_branch(sub, wait, to)?;
                self.b.position_at_end(wait);
                self.b.build_store(self.any, self.cx.bool_type().const_int(1, false))?;
                self.b.build_unconditional_branch(latch)?;
                self.b.position_at_end(here);
                to = gate;
            }
            cases.push((i32t.const_int(seg as u64, false), to));
        }
        self.b.build_switch(state, latch, &cases)?;
        Ok(())
    }

    /// See `backend/scalar.rs` (`sub_group_gate`): a work-item resuming after a sub-group
    /// barrier waits while another work-item of its sub-group is at an earlier one. Leaves the
    /// builder in the block that goes on.
    fn sub_group_gate(&mut self, a: IntValue<'ctx>, state: IntValue<'ctx>) -> Result<(), Error> {
        let i32t = self.cx.i32_type();
        let a4 = self.b.build_int_add(a, self.i64c(4), "")?;
        self.b.build_store(self.ptr_at(a4)?, state)?;
        let (check, wait, go) = (
            self.cx.append_basic_block(self.f, "sg_check"),
            self.cx.append_basic_block(self.f, "sg_wait"),
            self.cx.append_basic_block(self.f, "sg_go"),
        );
        let first = i32t.const_int(u64::from(self.r.sub_first), false);
        let n = i32t.const_int(self.r.starts.len() as u64, false);
        let sub = self.b.build_int_compare(IntPredicate::UGE, state, first, "")?;
        let known = self.b.build_int_compare(IntPredicate::ULT, state, n, "")?;
        let is_sub = self.b.build_and(sub, known, "")?;
        self.b.build_conditional_branch(is_sub, check, go)?;
        self.b.position_at_end(check);
        let wi = self.linear_id()?;
        let mask = !(u64::from(self.k.sub_group_size) - 1);
        let start = self.b.build_and(wi, self.i64c(mask), "")?;
        let private = self.g().private;
        let total = self.g().total;
        let off = u64::from(crate::align16(self.k.private_size) + self.r.spill_size);
        let mut blocked = self.cx.bool_type().const_zero();
        for k in 0..u64::from(self.k.sub_group_size) {
            let p = self.b.build_int_add(start, self.i64c(k), "")?;
            let inside = self.b.build_int_compare(IntPredicate::ULT, p, total, "")?;
            let other = self.b.build_int_compare(IntPredicate::NE, p, wi, "")?;
            let valid = self.b.build_and(inside, other, "")?;
            let pc = self.b.build_select(valid, p, wi, "")?.into_int_value();
            let o = self.b.build_int_mul(pc, self.i64c(u64::from(self.stride)), "")?;
            let pa = self.b.build_int_add(private, o, "")?;
            let pa = self.b.build_int_add(pa, self.i64c(off), "")?;
            let cur = self.b.build_load(i32t, self.ptr_at(pa)?, "")?.into_int_value();
            let pa4 = self.b.build_int_add(pa, self.i64c(4), "")?;
            let prev = self.b.build_load(i32t, self.ptr_at(pa4)?, "")?.into_int_value();
            let ran = self.b.build_int_compare(IntPredicate::ULT, p, wi, "")?;
            let st = self.b.build_select(ran, prev, cur, "")?.into_int_value();
            let sub = self.b.build_int_compare(IntPredicate::UGE, st, first, "")?;
            let earlier = self.b.build_int_compare(IntPredicate::ULT, st, state, "")?;
            let x = self.b.build_and(sub, earlier, "")?;
            let x = self.b.build_and(x, valid, "")?;
            blocked = self.b.build_or(blocked, x, "")?;
        }
        self.b.build_conditional_branch(blocked, wait, go)?;
        self.b.position_at_end(wait);
        let t = self.cx.bool_type().const_int(1, false);
        self.b.build_store(self.any, t)?;
        self.b.build_store(self.sub_now, t)?;
        self.b.build_unconditional_branch(self.latch.expect("the latch"))?;
        self.b.position_at_end(go);
        Ok(())
    }

    /// A pointer to the address `a`.
    pub(super) fn ptr_at(&self, a: IntValue<'ctx>) -> Result<PointerValue<'ctx>, Error> {
        let ptr = self.cx.ptr_type(AddressSpace::default());
        Ok(self.b.build_int_to_ptr(a, ptr, "")?)
    }

    /// Loads the kernel arguments the kernel reads (at a constant offset of the argument
    /// block) once, before the work-item loops, when nothing writes to the block.
    fn preload_args(&mut self) -> Result<(), Error> {
        let args = self.g().args;
        for (a, t, o) in crate::analysis::regions::arg_words(self.k, &self.arg_reads) {
            let addr = self.b.build_int_add(args, self.i64c(u64::from(o)), "")?;
            let v = self.load(t, addr)?;
            self.arg_words.insert((a, t), v);
        }
        Ok(())
    }

    /// The linear local id.
    pub(super) fn linear_id(&self) -> Result<IntValue<'ctx>, Error> {
        let lsz = self.g().lsz;
        let i64t = self.cx.i64_type();
        let [x, y, z] = self.lid.map(|l| self.b.build_load(i64t, l, ""));
        let (x, y, z) = (x?.into_int_value(), y?.into_int_value(), z?.into_int_value());
        let zy = self.b.build_int_mul(z, lsz[1], "")?;
        let zy = self.b.build_int_add(zy, y, "")?;
        let w = self.b.build_int_mul(zy, lsz[0], "")?;
        Ok(self.b.build_int_add(w, x, "")?)
    }

    /// The per-work-item area (private variables, then spills, then the resume state).
    pub(super) fn wi_area(&self) -> Result<IntValue<'ctx>, Error> {
        if let Some(p) = self.private_slot {
            return Ok(self.b.build_ptr_to_int(p, self.cx.i64_type(), "")?);
        }
        let p = self.g().private;
        if !self.r.barriers() {
            return Ok(p);
        }
        let wi = self.linear_id()?;
        let off = self.b.build_int_mul(wi, self.i64c(u64::from(self.stride)), "")?;
        Ok(self.b.build_int_add(p, off, "")?)
    }

    fn spill_addr(&self, slot: u32) -> Result<IntValue<'ctx>, Error> {
        let a = self.wi_area()?;
        let base = crate::align16(self.k.private_size) + slot;
        Ok(self.b.build_int_add(a, self.i64c(u64::from(base)), "")?)
    }

    /// Where a work-item records the segment it resumes at (`u32::MAX`: finished).
    fn state_addr(&self) -> Result<IntValue<'ctx>, Error> {
        self.spill_addr(self.r.spill_size)
    }

    /// Builds a memory access of the work-group function's own (see [`Lower::own_access`]).
    pub(super) fn own<T>(&self, f: impl FnOnce(&Self) -> Result<T, Error>) -> Result<T, Error> {
        self.own_access.set(true);
        let r = f(self);
        self.own_access.set(false);
        r
    }

    fn resume_at(&self, segment: u32) -> Result<(), Error> {
        let nseg = self.r.blocks.len() as u32;
        if self.key >= nseg && self.no_states.get((self.key % nseg) as usize) == Some(&true) {
            return self.note_resume(segment);
        }
        let a = self.state_addr()?;
        let v = self.cx.i32_type().const_int(u64::from(segment), false);
        self.own(|me| me.store(ir::Ty::I32, a, v.into()))?;
        self.note_resume(segment)
    }

    /// Records `v`'s value, spilling it if some segment needs it from an earlier round.
    fn def(&mut self, v: ir::Value, c: BasicValueEnum<'ctx>) -> Result<(), Error> {
        self.vals.insert((self.key, v), c);
        if let Some(slot) = self.r.spills.get(&v).copied() {
            if let Some((p, _)) = self.group_slot.get(&v) {
                self.b.build_store(*p, c)?;
                return Ok(());
            }
            let a = self.spill_addr(slot)?;
            self.own(|me| me.store(me.k.ty(v), a, c))?;
        }
        Ok(())
    }

    /// The value of `v` where the builder is.
    pub(super) fn v(&mut self, v: ir::Value) -> Result<BasicValueEnum<'ctx>, Error> {
        let seg = self.segment as usize;
        if self.r.direct(seg, v, self.at.0, self.at.1) {
            if let Some(c) = self.vals.get(&(self.key, v)) {
                return Ok(*c);
            }
        } else if self.r.remat.contains(&v) {
            let k = self.k;
            if let Some(inst) = self
                .r
                .def_of(v)
                .and_then(|(b, pos)| k.blocks[b].insts.get(pos.checked_sub(1)?))
            {
                if let Some(c) = self.op(Some(k.ty(v)), &inst.op)? {
                    return Ok(c);
                }
            }
        } else if let Some(slot) = self.r.spills.get(&v).copied() {
            if let Some(x) = self.group_snap.get(&v) {
                return Ok(*x);
            }
            let a = self.spill_addr(slot)?;
            return self.own(|me| me.load(me.k.ty(v), a));
        }
        self.broken = true;
        Ok(self.lt(self.k.ty(v)).const_zero())
    }

    pub(super) fn iv(&mut self, v: ir::Value) -> Result<IntValue<'ctx>, Error> {
        let x = self.v(v)?;
        if x.is_int_value() {
            Ok(x.into_int_value())
        } else {
            Err(Error::internal("llvm: an integer operand of another type"))
        }
    }

    /// Adds the arguments of an edge from the current block to block `t`'s parameters.
    fn edge(&mut self, t: ir::BlockId, args: &[ir::Value]) -> Result<BasicBlock<'ctx>, Error> {
        let here = self.b.get_insert_block().expect("in a block");
        let params = self.k.blocks[t.0 as usize].params.clone();
        for (p, a) in params.iter().zip(args) {
            let x = self.v(*a)?;
            let phi = self.phis[&(self.key, *p)];
            phi.add_incoming(&[(&x, here)]);
        }
        // Targets of inner edges are in the same segment (regions.rs built it so).
        Ok(self.blocks[&(self.key, t.0 as usize)])
    }

    fn block(&mut self, i: usize) -> Result<(), Error> {
        let k = self.k;
        let blk = &k.blocks[i];
        let bb = self.blocks[&(self.key, i)];
        self.b.position_at_end(bb);
        self.at = (i, 0);
        for p in &blk.params {
            let c = self.vals[&(self.key, *p)];
            self.def(*p, c)?;
        }
        for (ii, inst) in blk.insts.iter().enumerate() {
            self.at = (i, ii + 1);
            let tiled = match inst.result {
                Some(res) if self.chunk.is_some() => self.tile_op(res, &inst.op)?,
                _ => None,
            };
            let r = match tiled {
                Some(v) => Some(v),
                None => self.op(inst.result.map(|r| k.ty(r)), &inst.op)?,
            };
            if let (Some(res), Some(c)) = (inst.result, r) {
                self.def(res, c)?;
            }
        }
        self.at = (i, blk.insts.len() + 1);
        let latch = self.latch.expect("the latch");
        match &blk.term {
            Term::Jump(t, a) => {
                let t = self.edge(*t, a)?;
                self.b.build_unconditional_branch(t)?;
            }
            Term::Branch(c, (t, ta), (f, fa)) => {
                let c = self.iv(*c)?;
                let tb = self.edge(*t, ta)?;
                // The same block on both sides: the false edge goes through a block of its
                // own, so that each edge gives the parameters their values.
                let fb = if t == f {
                    let here = self.b.get_insert_block().expect("in a block");
                    let side = self.cx.append_basic_block(self.f, "");
                    self.b.position_at_end(side);
                    let fb = self.edge(*f, fa)?;
                    self.b.build_unconditional_branch(fb)?;
                    self.b.position_at_end(here);
                    side
                } else {
                    self.edge(*f, fa)?
                };
                self.b.build_conditional_branch(c, tb, fb)?;
            }
            Term::Switch(s, d, cases) => {
                let s = self.iv(*s)?;
                let t = s.get_type();
                let width = t.get_bit_width();
                let mut seen = HashSet::new();
                let mut arms = Vec::new();
                for (v, to) in cases {
                    let v = if width >= 64 { *v } else { *v & ((1u64 << width) - 1) };
                    if seen.insert(v) {
                        arms.push((t.const_int(v, false), self.blocks[&(self.key, to.0 as usize)]));
                    }
                }
                let d = self.blocks[&(self.key, d.0 as usize)];
                self.b.build_switch(s, d, &arms)?;
            }
            Term::Barrier(t) => {
                // Stop here; resume at the barrier's segment in the next round.
                let next = self.r.segment_of.get(&t.0).copied().unwrap_or(u32::MAX);
                self.resume_at(next)?;
                let one = self.cx.bool_type().const_int(1, false);
                self.b.build_store(self.any, one)?;
                if self.r.sub_segments.contains(&next) {
                    self.b.build_store(self.sub_now, one)?;
                }
                self.b.build_unconditional_branch(latch)?;
            }
            Term::Return | Term::Unreachable | Term::None => {
                if self.r.barriers() {
                    self.resume_at(u32::MAX)?;
                }
                self.b.build_unconditional_branch(latch)?;
            }
        }
        Ok(())
    }

    /// The group's first global id in dimension `d` (the global offset included).
    pub(super) fn group_start(&self, d: usize) -> Result<IntValue<'ctx>, Error> {
        let g = self.g();
        let s = self.b.build_int_mul(g.gid[d], g.lsz[d], "")?;
        Ok(self.b.build_int_add(s, g.goff[d], "")?)
    }

    pub(super) fn builtin(&mut self, b: Builtin, d: usize) -> Result<IntValue<'ctx>, Error> {
        let g = self.g();
        let (gid, lsz, ngr, goff, wdim) = (g.gid, g.lsz, g.ngr, g.goff, g.wdim);
        let i64t = self.cx.i64_type();
        Ok(match b {
            Builtin::LocalId => self.b.build_load(i64t, self.lid[d], "")?.into_int_value(),
            Builtin::GroupId => gid[d],
            Builtin::LocalSize => lsz[d],
            Builtin::NumGroups => ngr[d],
            Builtin::GlobalOffset => goff[d],
            Builtin::GlobalSize => self.b.build_int_mul(lsz[d], ngr[d], "")?,
            Builtin::GlobalId => {
                let l = self.b.build_load(i64t, self.lid[d], "")?.into_int_value();
                let start = self.group_start(d)?;
                self.b.build_int_add(start, l, "")?
            }
            Builtin::WorkDim => wdim,
            Builtin::LocalLinearId => self.linear_id()?,
            Builtin::GlobalLinearId => {
                let mut acc = self.i64c(0);
                for d in (0..3).rev() {
                    let size = self.builtin(Builtin::GlobalSize, d)?;
                    let id = self.builtin(Builtin::GlobalId, d)?;
                    let id = self.b.build_int_sub(id, goff[d], "")?;
                    let m = self.b.build_int_mul(acc, size, "")?;
                    acc = self.b.build_int_add(m, id, "")?;
                }
                acc
            }
            Builtin::SubgroupSize
            | Builtin::SubgroupMaxSize
            | Builtin::NumSubgroups
            | Builtin::SubgroupId
            | Builtin::SubgroupLocalId => {
                let s = u64::from(self.k.sub_group_size);
                let wi = self.linear_id()?;
                let n = self.g().total;
                let (mask, shift, size) = (self.i64c(s - 1), self.i64c(s.trailing_zeros().into()), self.i64c(s));
                let umin = |me: &Self, a, b| -> Result<IntValue<'ctx>, Error> {
                    let lt = me.b.build_int_compare(IntPredicate::ULT, a, b, "")?;
                    Ok(me.b.build_select(lt, a, b, "")?.into_int_value())
                };
                match b {
                    Builtin::SubgroupLocalId => self.b.build_and(wi, mask, "")?,
                    Builtin::SubgroupId => self.b.build_right_shift(wi, shift, false, "")?,
                    Builtin::NumSubgroups => {
                        let x = self.b.build_int_add(n, mask, "")?;
                        self.b.build_right_shift(x, shift, false, "")?
                    }
                    Builtin::SubgroupMaxSize => umin(self, n, size)?,
                    _ => {
                        let start = self.b.build_and(wi, self.i64c(!(s - 1)), "")?;
                        let left = self.b.build_int_sub(n, start, "")?;
                        umin(self, left, size)?
                    }
                }
            }
        })
    }
}

/// The field at byte `off` of the group context `p`, as a pointer.
fn field<'ctx>(me: &Lower<'_, 'ctx>, p: PointerValue<'ctx>, off: u64) -> Result<PointerValue<'ctx>, Error> {
    // SAFETY: an in-bounds byte offset of the group context (a field of `GroupCtx`); inkwell
    // marks `getelementptr` unsafe because a wrong index is undefined behaviour in the code
    // it generates, not in this process.
    let p = unsafe { me.b.build_in_bounds_gep(me.cx.i8_type(), p, &[me.i64c(off)], "") }?;
    Ok(p)
}
