//! The scalar lowering: one work-item at a time, the work-group function's rounds and its
//! work-item loop, blocks, branches and built-ins ([`Lower`]; its operations are in `ops`).

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, BlockArg, InstBuilder, MemFlagsData, Signature, Type};
use cranelift_frontend::{FunctionBuilder, Switch, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{DataId, FuncId, Module};

use crate::ir::{self, Builtin, Term, Ty};
use crate::analysis::regions::Regions;
use crate::{Error, GroupCtx};

use super::{lockstep, lockstep_policy, ty};

/// The module and the symbols a kernel's code refers to.
pub(super) struct Syms<'a> {
    pub(super) module: &'a mut JITModule,
    pub(super) funcs: &'a HashMap<usize, FuncId>,
    pub(super) data: DataId,
    pub(super) data_gv: Option<cranelift_codegen::ir::GlobalValue>,
}

/// Values read once from the group context.
pub(super) struct Group {
    pub(super) gid: [cranelift_codegen::ir::Value; 3],
    pub(super) lsz: [cranelift_codegen::ir::Value; 3],
    pub(super) ngr: [cranelift_codegen::ir::Value; 3],
    pub(super) goff: [cranelift_codegen::ir::Value; 3],
    pub(super) wdim: cranelift_codegen::ir::Value,
    pub(super) args: cranelift_codegen::ir::Value,
    pub(super) local: cranelift_codegen::ir::Value,
    pub(super) private: cranelift_codegen::ir::Value,
    /// [`GroupCtx::stream`], read when some record store may stream.
    pub(super) stream: Option<cranelift_codegen::ir::Value>,
}

pub(super) struct Lower<'a> {
    pub(super) b: FunctionBuilder<'a>,
    pub(super) k: &'a ir::Kernel,
    pub(super) r: &'a Regions,
    pub(super) stride: u32,
    pub(super) syms: Syms<'a>,
    pub(super) vals: HashMap<(u32, ir::Value), cranelift_codegen::ir::Value>,
    pub(super) blocks: HashMap<(u32, usize), cranelift_codegen::ir::Block>,
    /// Block and position being lowered (for [`Regions::direct`]).
    pub(super) at: (usize, usize),
    pub(super) wi: Variable,
    /// Some work-item stopped at a barrier in this round.
    pub(super) any: Variable,
    /// This is the first round.
    pub(super) first: Variable,
    /// Some work-item stopped at a sub-group barrier in this round / in the previous round
    /// (work-items stopped at work-group barriers then wait).
    pub(super) sub_now: Variable,
    pub(super) sub_prev: Variable,
    pub(super) lid: [Variable; 3],
    /// Segment being lowered.
    pub(super) segment: u32,
    pub(super) latch: cranelift_codegen::ir::Block,
    pub(super) g: Option<Group>,
    pub(super) broken: bool,
    pub(super) fc: cranelift_codegen::isa::TargetFrontendConfig,
    /// The ISA has a fused multiply-add.
    pub(super) fma: bool,
    /// Set when the kernel runs [`lockstep::W`] work-items at a time.
    pub(super) vplan: Option<lockstep::Plan>,
    /// The lockstep shape of each value.
    pub(super) lv: HashMap<(u32, ir::Value), lockstep::Lv>,
    /// The lanes of the current lockstep iteration.
    pub(super) vmask: Option<lockstep::Mask>,
    /// Constants, by value (for lockstep address arithmetic).
    pub(super) consts: HashMap<ir::Value, u64>,
    /// Addresses in the argument block, when the kernel never writes there.
    pub(super) arg_reads: std::collections::HashSet<ir::Value>,
    /// Kernel arguments loaded before the work-item loop, by address value and type.
    pub(super) arg_words: HashMap<(ir::Value, Type), CValue>,
    /// Values of earlier rounds recomputed, by native block ([`Lower::remat`]).
    pub(super) remats: HashMap<(Option<cranelift_codegen::ir::Block>, ir::Value), CValue>,
    /// Values the same for every work-item of the group, computed once before the work-item
    /// loop ([`Lower::hoist_uniform`]).
    pub(super) hoisted: HashMap<ir::Value, CValue>,
    /// Lockstep record groups being lowered: the base, and the rows once loaded.
    pub(super) records: HashMap<(u32, usize, usize), lockstep::Record>,
    /// Lockstep: the active lanes (an `I8` of bits).
    pub(super) alive: Variable,
    /// Lockstep: inside a divergent region (nesting depth).
    pub(super) predicated: u32,
    /// Lockstep: the entry of the copy for turns with every lane active.
    pub(super) full_entry: Option<cranelift_codegen::ir::Block>,
    /// Lockstep: the lanes' active flags, computed from this `alive` value.
    pub(super) vactive: Option<(CValue, cranelift_codegen::ir::Block, [CValue; lockstep::W])>,
    /// Lockstep: lowering one lane's copy of a serialized region (with the scalar lowering).
    pub(super) serial: bool,
    /// Lockstep: serialized regions lowered so far.
    pub(super) serials: usize,
    /// Lockstep with barriers: where turns whose lanes all retired go.
    pub(super) done: Option<cranelift_codegen::ir::Block>,
    /// Lockstep with barriers: values of earlier rounds loaded, by native block.
    pub(super) spilled: HashMap<(Option<cranelift_codegen::ir::Block>, ir::Value), lockstep::Lv>,
}

pub(super) type CValue = cranelift_codegen::ir::Value;

impl<'a> Lower<'a> {
    pub(super) fn new(
        b: FunctionBuilder<'a>,
        k: &'a ir::Kernel,
        r: &'a Regions,
        stride: u32,
        syms: Syms<'a>,
        fc: cranelift_codegen::isa::TargetFrontendConfig,
        fma: bool,
    ) -> Self {
        let mut b = b;
        let wi = b.declare_var(types::I64);
        let lid = [
            b.declare_var(types::I64),
            b.declare_var(types::I64),
            b.declare_var(types::I64),
        ];
        let any = b.declare_var(types::I8);
        let first = b.declare_var(types::I8);
        let alive = b.declare_var(types::I8);
        let sub_now = b.declare_var(types::I8);
        let sub_prev = b.declare_var(types::I8);
        let latch = b.create_block();
        Lower {
            b,
            k,
            r,
            stride,
            syms,
            vals: HashMap::new(),
            blocks: HashMap::new(),
            at: (0, 0),
            wi,
            any,
            first,
            sub_now,
            sub_prev,
            lid,
            segment: 0,
            latch,
            g: None,
            broken: false,
            fc,
            fma,
            vplan: lockstep::plan(k, r, lockstep_policy()),
            lv: HashMap::new(),
            vmask: None,
            consts: HashMap::new(),
            arg_reads: crate::analysis::regions::arg_reads(k),
            records: HashMap::new(),
            arg_words: HashMap::new(),
            remats: HashMap::new(),
            hoisted: HashMap::new(),
            alive,
            predicated: 0,
            vactive: None,
            full_entry: None,
            spilled: HashMap::new(),
            done: None,
            serial: false,
            serials: 0,
        }
    }

    pub(super) fn g(&self) -> &Group {
        self.g.as_ref().expect("group values are read first")
    }

    pub(super) fn run(mut self) -> Result<(), Error> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let ctx = self.b.block_params(entry)[0];
        let f = MemFlagsData::trusted();
        let at = |b: &mut FunctionBuilder, o: i32| b.ins().load(types::I64, f, ctx, o);
        let tri = |b: &mut FunctionBuilder, o: i32| [at(b, o), at(b, o + 8), at(b, o + 16)];
        let gid = tri(&mut self.b, GroupCtx::GROUP_ID);
        let lsz = tri(&mut self.b, GroupCtx::LOCAL_SIZE);
        let ngr = tri(&mut self.b, GroupCtx::NUM_GROUPS);
        let goff = tri(&mut self.b, GroupCtx::GLOBAL_OFFSET);
        let at = |b: &mut FunctionBuilder, o: i32| b.ins().load(types::I64, f, ctx, o);
        let wdim = at(&mut self.b, GroupCtx::WORK_DIM);
        let args = at(&mut self.b, GroupCtx::ARGS);
        let local = at(&mut self.b, GroupCtx::LOCAL_MEM);
        let private = at(&mut self.b, GroupCtx::PRIVATE_MEM);
        let streams = self.vplan.as_ref().is_some_and(|p| !p.streams.is_empty());
        let stream = streams.then(|| at(&mut self.b, GroupCtx::STREAM));
        self.g = Some(Group {
            gid,
            lsz,
            ngr,
            goff,
            wdim,
            args,
            local,
            private,
            stream,
        });
        let t01 = self.b.ins().imul(lsz[0], lsz[1]);
        let total = self.b.ins().imul(t01, lsz[2]);
        self.preload_args();
        if !self.lockstep() {
            self.hoist_uniform()?;
        }
        let r = self.r;
        // One copy of each block per segment that contains it (in lockstep, two per segment:
        // one for turns with every lane active and one for the others).
        let copies: Vec<(u32, &Vec<usize>)> = if self.lockstep() {
            (0..r.blocks.len() as u32)
                .flat_map(|s| [false, true].map(|full| (lockstep::copy(s, full), &r.blocks[s as usize])))
                .collect()
        } else {
            r.blocks.iter().enumerate().map(|(s, b)| (s as u32, b)).collect()
        };
        for (seg, blocks) in copies.iter().copied() {
            self.segment = seg;
            for &bi in blocks {
                if self.lockstep_inlined(bi) {
                    continue;
                }
                let cb = self.b.create_block();
                for p in &self.k.blocks[bi].params {
                    if self.lockstep() {
                        self.lockstep_param(cb, *p);
                        continue;
                    }
                    let v = self.b.append_block_param(cb, ty(self.k.ty(*p)));
                    self.vals.insert((seg, *p), v);
                }
                self.blocks.insert((seg, bi), cb);
            }
        }
        let zero = self.b.ins().iconst(types::I64, 0);
        let exit = self.b.create_block();
        let round = self.b.create_block();
        let header = self.b.create_block();
        let dispatch = self.b.create_block();
        let round_end = self.b.create_block();
        self.latch = self.b.create_block();
        let one8 = self.b.ins().iconst(types::I8, 1);
        self.b.def_var(self.first, one8);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(self.sub_now, zero8);
        self.b.ins().jump(round, &[]);
        // A round: every work-item, x fastest.
        self.b.switch_to_block(round);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(self.any, zero8);
        let sub = self.b.use_var(self.sub_now);
        self.b.def_var(self.sub_prev, sub);
        self.b.def_var(self.sub_now, zero8);
        self.b.def_var(self.wi, zero);
        for l in self.lid {
            self.b.def_var(l, zero);
        }
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let wi = self.b.use_var(self.wi);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, wi, total);
        self.b.ins().brif(more, dispatch, &[], round_end, &[]);
        // Where this work-item goes on: segment 0 in the first round, else its recorded segment.
        self.b.switch_to_block(dispatch);
        let entry0 = self.blocks[&(0, r.starts[0].0 as usize)];
        if self.lockstep() {
            self.lockstep_dispatch();
        } else if r.barriers() {
            let first = self.b.use_var(self.first);
            let resume = self.b.create_block();
            self.b.ins().brif(first, entry0, &[], resume, &[]);
            self.b.switch_to_block(resume);
            let a = self.state_addr();
            let state = self.b.ins().load(types::I32, MemFlagsData::trusted(), a, 0);
            if !r.sub_segments.is_empty() {
                self.sub_group_gate(a, state, total);
            }
            let mut sw = Switch::new();
            let mut gates = Vec::new();
            for (seg, start) in r.starts.iter().enumerate() {
                let mut to = self.blocks[&(seg as u32, start.0 as usize)];
                if seg > 0 && !r.sub_segments.is_empty() && !r.sub_segments.contains(&(seg as u32))
                {
                    let gate = self.b.create_block();
                    gates.push((gate, to));
                    to = gate;
                }
                sw.set_entry(seg as u128, to);
            }
            // Finished work-items (state DONE) go straight to the next one.
            sw.emit(&mut self.b, state, self.latch);
            // After a work-group barrier: wait while some work-item is at a sub-group barrier.
            for (gate, to) in gates {
                let wait = self.b.create_block();
                self.b.switch_to_block(gate);
                let sub = self.b.use_var(self.sub_prev);
                self.b.ins().brif(sub, wait, &[], to, &[]);
                self.b.switch_to_block(wait);
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(self.any, one);
                self.b.ins().jump(self.latch, &[]);
            }
        } else {
            self.b.ins().jump(entry0, &[]);
        }
        for (seg, blocks) in copies {
            self.segment = seg;
            for &bi in blocks {
                if self.lockstep_inlined(bi) {
                    continue;
                }
                self.block(bi, &self.k.blocks[bi])?;
            }
        }
        if self.lockstep() {
            self.lockstep_finish();
        }
        // Next work-item.
        self.b.switch_to_block(self.latch);
        if self.lockstep() {
            self.lockstep_latch(header, dispatch, zero);
        } else {
            self.next_item(header, zero);
        }
        // Another round while some work-item stopped at a barrier.
        self.b.switch_to_block(round_end);
        let any = self.b.use_var(self.any);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(self.first, zero8);
        self.b.ins().brif(any, round, &[], exit, &[]);
        self.b.switch_to_block(exit);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        self.b.finalize(self.fc);
        if self.broken {
            return Err(Error::internal(format!(
                "kernel `{}`: a value used before its definition",
                self.k.name
            )));
        }
        Ok(())
    }

    /// The work-item loop's latch: the next work-item (x fastest), then the loop header.
    pub(super) fn next_item(&mut self, header: cranelift_codegen::ir::Block, zero: CValue) {
        let lsz = self.g().lsz;
        let wi = self.b.use_var(self.wi);
        let wi = self.b.ins().iadd_imm_s(wi, 1);
        self.b.def_var(self.wi, wi);
        let [x, y, z] = self.lid.map(|l| self.b.use_var(l));
        let nx = self.b.ins().iadd_imm_s(x, 1);
        let wx = self.b.ins().icmp(IntCC::Equal, nx, lsz[0]);
        let x = self.b.ins().select(wx, zero, nx);
        let (y, z) = self.carry(wx, y, z, zero);
        for (l, v) in self.lid.into_iter().zip([x, y, z]) {
            self.b.def_var(l, v);
        }
        self.b.ins().jump(header, &[]);
    }

    /// The local ids `y` and `z` after a step of x that wrapped around when `wx` (an `I8`
    /// boolean): `y + 1`, wrapping around into `z + 1`.
    pub(super) fn carry(
        &mut self,
        wx: CValue,
        y: CValue,
        z: CValue,
        zero: CValue,
    ) -> (CValue, CValue) {
        let lsz = self.g().lsz;
        let wx = self.b.ins().uextend(types::I64, wx);
        let ny = self.b.ins().iadd(y, wx);
        let wy = self.b.ins().icmp(IntCC::Equal, ny, lsz[1]);
        let y = self.b.ins().select(wy, zero, ny);
        let wy = self.b.ins().uextend(types::I64, wy);
        (y, self.b.ins().iadd(z, wy))
    }

    /// Loads the kernel arguments the kernel reads (at a constant offset of the argument block)
    /// once, before the work-item loop, when nothing writes to the block.
    pub(super) fn preload_args(&mut self) {
        let args = self.g().args;
        for (a, t, o) in crate::analysis::regions::arg_words(self.k, &self.arg_reads) {
            let t = ty(t);
            let fl = MemFlagsData::new().with_notrap().with_readonly();
            let v = self.b.ins().load(t, fl, args, o as i32);
            self.arg_words.insert((a, t), v);
        }
    }

    /// The per-work-item area (private variables, then spills, then the resume state).
    pub(super) fn wi_area(&mut self) -> CValue {
        let p = self.g().private;
        if !self.r.barriers() {
            return p;
        }
        let wi = self.b.use_var(self.wi);
        let off = self.b.ins().imul_imm_s(wi, i64::from(self.stride));
        self.b.ins().iadd(p, off)
    }

    pub(super) fn spill_addr(&mut self, slot: u32) -> CValue {
        let a = self.wi_area();
        let base = crate::align16(self.k.private_size) + slot;
        self.b.ins().iadd_imm_s(a, i64::from(base))
    }

    /// At the dispatch of a work-item whose recorded segment `state` (at `a`) follows a
    /// sub-group barrier: it waits (another round, with the work-items at work-group barriers
    /// waiting too) while another work-item of its sub-group was, when this round started,
    /// stopped at an earlier sub-group barrier segment (the renumbering in `regions.rs`), so
    /// that only the earliest sub-group barrier of each sub-group goes on in a round. Each
    /// work-item copies its state next to it (`a + 4`) before it runs, so that the work-items
    /// after it in the round see where it was. Leaves the builder in the block that goes on.
    pub(super) fn sub_group_gate(&mut self, a: CValue, state: CValue, total: CValue) {
        let f = MemFlagsData::trusted();
        self.b.ins().store(f, state, a, 4);
        let (check, wait, go) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let first = i64::from(self.r.sub_first);
        let uge = IntCC::UnsignedGreaterThanOrEqual;
        // Finished work-items (u32::MAX) and those after work-group barriers go on.
        let sub = self.b.ins().icmp_imm_u(uge, state, first);
        let n = self.r.starts.len() as i64;
        let known = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, state, n);
        let is_sub = self.b.ins().band(sub, known);
        self.b.ins().brif(is_sub, check, &[], go, &[]);
        self.b.switch_to_block(check);
        let wi = self.b.use_var(self.wi);
        let mask = !(i64::from(self.k.sub_group_size) - 1);
        let start = self.b.ins().band_imm_s(wi, mask);
        let private = self.g().private;
        let off = i64::from(crate::align16(self.k.private_size) + self.r.spill_size);
        let mut blocked = self.b.ins().iconst(types::I8, 0);
        for k in 0..i64::from(self.k.sub_group_size) {
            let p = self.b.ins().iadd_imm_s(start, k);
            let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, total);
            let other = self.b.ins().icmp(IntCC::NotEqual, p, wi);
            let valid = self.b.ins().band(inside, other);
            let pc = self.b.ins().select(valid, p, wi);
            let o = self.b.ins().imul_imm_s(pc, i64::from(self.stride));
            let pa = self.b.ins().iadd(private, o);
            let cur = self.b.ins().load(types::I32, f, pa, off as i32);
            let prev = self.b.ins().load(types::I32, f, pa, off as i32 + 4);
            let ran = self.b.ins().icmp(IntCC::UnsignedLessThan, p, wi);
            let st = self.b.ins().select(ran, prev, cur);
            let sub = self.b.ins().icmp_imm_u(uge, st, first);
            let earlier = self.b.ins().icmp(IntCC::UnsignedLessThan, st, state);
            let x = self.b.ins().band(sub, earlier);
            let x = self.b.ins().band(x, valid);
            blocked = self.b.ins().bor(blocked, x);
        }
        self.b.ins().brif(blocked, wait, &[], go, &[]);
        self.b.switch_to_block(wait);
        let one = self.b.ins().iconst(types::I8, 1);
        self.b.def_var(self.any, one);
        self.b.def_var(self.sub_now, one);
        self.b.ins().jump(self.latch, &[]);
        self.b.switch_to_block(go);
    }

    /// Where a work-item records the segment it resumes at (`u32::MAX`: finished).
    pub(super) fn state_addr(&mut self) -> CValue {
        let slot = self.r.spill_size;
        self.spill_addr(slot)
    }

    /// Records `v`'s native value, spilling it if some segment needs it from an earlier round.
    pub(super) fn def(&mut self, v: ir::Value, c: CValue) {
        self.vals.insert((self.segment, v), c);
        if let Some(slot) = self.r.spills.get(&v).copied() {
            let a = self.spill_addr(slot);
            self.b.ins().store(MemFlagsData::trusted(), c, a, 0);
        }
    }

    pub(super) fn v(&mut self, v: ir::Value) -> CValue {
        if let Some(c) = self.hoisted.get(&v) {
            return *c;
        }
        // In lockstep, the scalar lowering runs for one lane at a time with the operands that
        // lane has (`per_lane`), values of earlier rounds included.
        if self.lockstep() {
            return match self.vals.get(&(self.segment, v)) {
                Some(c) => *c,
                None => self.missing(v),
            };
        }
        let seg = self.segment as usize;
        if self.r.direct(seg, v, self.at.0, self.at.1) {
            if let Some(c) = self.vals.get(&(self.segment, v)) {
                return *c;
            }
        } else if self.r.remat.contains(&v) {
            return self.remat(v);
        } else if let Some(slot) = self.r.spills.get(&v).copied() {
            let a = self.spill_addr(slot);
            return self
                .b
                .ins()
                .load(ty(self.k.ty(v)), MemFlagsData::trusted(), a, 0);
        }
        self.missing(v)
    }

    /// A value of an earlier round computed again ([`Regions::remat`]), once per native block.
    pub(super) fn remat(&mut self, v: ir::Value) -> CValue {
        let here = self.b.current_block();
        if let Some(c) = self.remats.get(&(here, v)) {
            return *c;
        }
        let k = self.k;
        let Some(inst) = self
            .r
            .def_of(v)
            .and_then(|(b, pos)| k.blocks[b].insts.get(pos.checked_sub(1)?))
        else {
            return self.missing(v);
        };
        match self.op(Some(k.ty(v)), &inst.op) {
            Ok(Some(c)) => {
                // Where the lowering ended up (it may have added blocks).
                let at = self.b.current_block();
                self.remats.insert((at, v), c);
                c
            }
            _ => self.missing(v),
        }
    }

    /// A value the backend never saw defined (the verifier rules this out): a zero of its type,
    /// and the function is refused when it is finished.
    pub(super) fn missing(&mut self, v: ir::Value) -> CValue {
        self.broken = true;
        self.zero(self.k.ty(v))
    }

    /// A zero of type `t`.
    pub(super) fn zero(&mut self, t: Ty) -> CValue {
        match t {
            Ty::F32 => self.b.ins().f32const(0.0),
            Ty::F64 => self.b.ins().f64const(0.0),
            t => self.b.ins().iconst(ty(t), 0),
        }
    }

    pub(super) fn args(&mut self, a: &[ir::Value]) -> Vec<BlockArg> {
        a.iter().map(|v| BlockArg::Value(self.v(*v))).collect()
    }

    pub(super) fn target(&self, t: ir::BlockId) -> cranelift_codegen::ir::Block {
        // Targets of inner edges are in the same segment (regions.rs built it so).
        self.blocks[&(self.segment, t.0 as usize)]
    }

    pub(super) fn block(&mut self, i: usize, blk: &ir::Block) -> Result<(), Error> {
        if self.lockstep() && !self.serial {
            return self.lockstep_block(i, blk);
        }
        let cb = self.blocks[&(self.segment, i)];
        self.b.switch_to_block(cb);
        self.at = (i, 0);
        for p in &blk.params {
            let c = match self.vals.get(&(self.segment, *p)) {
                Some(c) => *c,
                None => self.missing(*p),
            };
            self.def(*p, c);
        }
        for (ii, inst) in blk.insts.iter().enumerate() {
            self.at = (i, ii + 1);
            if inst.result.is_some_and(|r| self.hoisted.contains_key(&r)) {
                continue;
            }
            let r = self.op(inst.result.map(|r| self.k.ty(r)), &inst.op)?;
            if let (Some(res), Some(c)) = (inst.result, r) {
                self.def(res, c);
            }
        }
        self.at = (i, blk.insts.len() + 1);
        match &blk.term {
            Term::Jump(t, a) => {
                let a = self.args(a);
                let t = self.target(*t);
                self.b.ins().jump(t, &a);
            }
            Term::Branch(c, (t, ta), (f, fa)) => {
                let c = self.v(*c);
                let ta = self.args(ta);
                let fa = self.args(fa);
                let (t, f) = (self.target(*t), self.target(*f));
                self.b.ins().brif(c, t, &ta, f, &fa);
            }
            Term::Switch(s, d, cases) => {
                let s = self.v(*s);
                self.switch(s, *d, cases);
            }
            Term::Barrier(t) => {
                // Stop here; resume at the barrier's segment in the next round.
                let next = self.r.segment_of.get(&t.0).copied().unwrap_or(u32::MAX);
                self.resume_at(next);
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(self.any, one);
                if self.r.sub_segments.contains(&next) {
                    self.b.def_var(self.sub_now, one);
                }
                self.b.ins().jump(self.latch, &[]);
            }
            Term::Return | Term::Unreachable | Term::None => {
                if self.r.barriers() {
                    self.resume_at(u32::MAX);
                }
                self.b.ins().jump(self.latch, &[]);
            }
        }
        Ok(())
    }

    /// A multi-way branch on `s`.
    pub(super) fn switch(&mut self, s: CValue, d: ir::BlockId, cases: &[(u64, ir::BlockId)]) {
        let width = self.b.func.dfg.value_type(s).bits();
        let mut sw = Switch::new();
        for (v, t) in cases {
            let v = if width >= 64 {
                *v
            } else {
                *v & ((1u64 << width) - 1)
            };
            if sw.entries().contains_key(&u128::from(v)) {
                continue;
            }
            sw.set_entry(u128::from(v), self.target(*t));
        }
        let d = self.target(d);
        sw.emit(&mut self.b, s, d);
    }

    pub(super) fn resume_at(&mut self, segment: u32) {
        let a = self.state_addr();
        let v = self.b.ins().iconst(types::I32, i64::from(segment as i32));
        self.b.ins().store(MemFlagsData::trusted(), v, a, 0);
    }

    pub(super) fn builtin(&mut self, b: Builtin, d: usize) -> CValue {
        let g = self.g();
        let (gid, lsz, ngr, goff, wdim) = (g.gid, g.lsz, g.ngr, g.goff, g.wdim);
        match b {
            Builtin::LocalId => self.b.use_var(self.lid[d]),
            Builtin::GroupId => gid[d],
            Builtin::LocalSize => lsz[d],
            Builtin::NumGroups => ngr[d],
            Builtin::GlobalOffset => goff[d],
            Builtin::GlobalSize => self.b.ins().imul(lsz[d], ngr[d]),
            Builtin::GlobalId => {
                let l = self.b.use_var(self.lid[d]);
                let x = self.b.ins().imul(gid[d], lsz[d]);
                let x = self.b.ins().iadd(x, l);
                self.b.ins().iadd(x, goff[d])
            }
            Builtin::WorkDim => wdim,
            Builtin::LocalLinearId => self.b.use_var(self.wi),
            Builtin::GlobalLinearId => {
                let mut acc = self.b.ins().iconst(types::I64, 0);
                for d in (0..3).rev() {
                    let size = self.builtin(Builtin::GlobalSize, d);
                    let id = self.builtin(Builtin::GlobalId, d);
                    let id = self.b.ins().isub(id, goff[d]);
                    let m = self.b.ins().imul(acc, size);
                    acc = self.b.ins().iadd(m, id);
                }
                acc
            }
            Builtin::SubgroupSize
            | Builtin::SubgroupMaxSize
            | Builtin::NumSubgroups
            | Builtin::SubgroupId
            | Builtin::SubgroupLocalId => self.subgroup_builtin(b),
        }
    }

    /// Sub-group built-ins from the linear local id and the group size.
    pub(super) fn subgroup_builtin(&mut self, b: Builtin) -> CValue {
        let s = i64::from(self.k.sub_group_size);
        let lsz = self.g().lsz;
        let wi = self.b.use_var(self.wi);
        let n = self.b.ins().imul(lsz[0], lsz[1]);
        let n = self.b.ins().imul(n, lsz[2]);
        let c = |me: &mut Self, x: i64| me.b.ins().iconst(types::I64, x);
        let (mask, shift, size) = (c(self, s - 1), c(self, s.trailing_zeros().into()), c(self, s));
        match b {
            Builtin::SubgroupLocalId => self.b.ins().band(wi, mask),
            Builtin::SubgroupId => self.b.ins().ushr(wi, shift),
            Builtin::NumSubgroups => {
                let x = self.b.ins().iadd(n, mask);
                self.b.ins().ushr(x, shift)
            }
            Builtin::SubgroupMaxSize => self.b.ins().umin(n, size),
            _ => {
                let start = self.b.ins().band_not(wi, mask);
                let left = self.b.ins().isub(n, start);
                self.b.ins().umin(left, size)
            }
        }
    }

    /// Calls the function at `addr`, one of `symbols` (through a relocation; any other
    /// address through a pointer).
    pub(super) fn call(
        &mut self,
        addr: usize,
        params: &[Type],
        ret: Type,
        args: &[CValue],
    ) -> CValue {
        if let Some(id) = self.syms.funcs.get(&addr) {
            let fr = self.syms.module.declare_func_in_func(*id, self.b.func);
            let call = self.b.ins().call(fr, args);
            if let Some(r) = self.b.inst_results(call).first().copied() {
                return r;
            }
            return self.b.ins().iconst(types::I64, 0);
        }
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        if ret != types::INVALID {
            sig.returns.push(AbiParam::new(ret));
        }
        let sr = self.b.import_signature(sig);
        let f = self.b.ins().iconst(types::I64, addr as i64);
        let call = self.b.ins().call_indirect(sr, f, args);
        self.b.inst_results(call).first().copied().unwrap_or(f)
    }

}
