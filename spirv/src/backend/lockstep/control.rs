//! The lockstep lowering of control flow: edges and block parameters, lane masks, and
//! divergent branches run under a mask ([`Div`]).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder};

use super::{exit_like, vty, CValue, Div, Lower, Lv, ALL, W};
use crate::ir::{self, BlockId, Term};
use crate::Error;

impl Lower<'_> {
    /// The native arguments of an edge to `target`, in the shapes of its parameters.
    pub(in crate::backend) fn lockstep_args(
        &mut self,
        target: BlockId,
        args: &[ir::Value],
    ) -> Vec<BlockArg> {
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
    pub(in crate::backend) fn lockstep_inlined(&self, b: usize) -> bool {
        self.vplan.as_ref().is_some_and(|p| p.inlined.contains(&b))
    }

    /// The lanes of a condition as mask bits (an `I8`).
    pub(super) fn cond_bits(&mut self, c: ir::Value) -> CValue {
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

    /// Lanes of the values arriving at one parameter over several edges (mask, value, block
    /// the edge leaves): each lane takes the value of the edge it came by.
    pub(super) fn merge(&mut self, incoming: &[(CValue, ir::Value, usize)]) -> Vec<CValue> {
        let mut acc = self.edge_lanes(incoming[0].2, incoming[0].1);
        for (m, v, from) in &incoming[1..] {
            let lanes = self.edge_lanes(*from, *v);
            for (i, (a, x)) in acc.iter_mut().zip(lanes).enumerate() {
                let bit = self.b.ins().band_imm_s(*m, 1 << i);
                let on = self.b.ins().icmp_imm_s(IntCC::NotEqual, bit, 0);
                *a = self.b.ins().select(on, x, *a);
            }
        }
        acc
    }

    /// Runs `f` as at the end of block `from` (where an edge leaving it uses its arguments),
    /// for whether a value comes from an earlier round.
    fn at_end_of<T>(&mut self, from: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.at;
        self.at = (from, self.k.blocks[from].insts.len() + 1);
        let r = f(self);
        self.at = saved;
        r
    }

    fn edge_lanes(&mut self, from: usize, v: ir::Value) -> Vec<CValue> {
        self.at_end_of(from, |me| me.lanes(v))
    }

    /// Lowers a branch on a varying condition and the blocks it controls (see [`Div`]).
    pub(super) fn diverge(&mut self, bi: usize, term: &Term) -> Result<(), Error> {
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
        // Edges into the blocks run here: target -> [(mask, arguments, block they leave)].
        type Edges = std::collections::HashMap<usize, Vec<(CValue, Vec<ir::Value>, usize)>>;
        let mut edges: Edges = std::collections::HashMap::new();
        let (blocks, go_on) = match &d {
            Div::Serial { blocks, join } => return self.serialize(bi, term, blocks, *join),
            Div::Region { blocks, join } => {
                edges
                    .entry(t.0 as usize)
                    .or_default()
                    .push((mt, ta.clone(), bi));
                edges
                    .entry(f.0 as usize)
                    .or_default()
                    .push((mf, fa.clone(), bi));
                (blocks.clone(), *join)
            }
            Div::Retire { blocks, on_true } => {
                let (into, m, a, on) = if *on_true {
                    (f.0 as usize, mf, fa, t.0 as usize)
                } else {
                    (t.0 as usize, mt, ta, f.0 as usize)
                };
                edges.entry(into).or_default().push((m, a.clone(), bi));
                (blocks.clone(), on)
            }
        };
        let mut retired = self.b.ins().iconst(types::I8, 0);
        self.predicated += 1;
        for rb in blocks {
            let inc = edges.remove(&rb).unwrap_or_default();
            let mut mask = self.b.ins().iconst(types::I8, 0);
            for (m, _, _) in &inc {
                mask = self.b.ins().bor(mask, *m);
            }
            let params = self.k.blocks[rb].params.clone();
            for (j, p) in params.iter().enumerate() {
                let incoming: Vec<(CValue, ir::Value, usize)> = inc
                    .iter()
                    .filter_map(|(m, a, from)| a.get(j).map(|v| (*m, *v, *from)))
                    .collect();
                let l = match incoming.as_slice() {
                    [] => Lv::U(self.missing(*p)),
                    [(_, v, from)] => self.at_end_of(*from, |me| me.get(*v)),
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
                    .push((mask, a.clone(), rb)),
                Term::Branch(c2, (t2, a2), (f2, b2)) => {
                    let bits = self.cond_bits(*c2);
                    let m2 = self.b.ins().band(mask, bits);
                    let m3 = self.b.ins().band_not(mask, bits);
                    edges
                        .entry(t2.0 as usize)
                        .or_default()
                        .push((m2, a2.clone(), rb));
                    edges
                        .entry(f2.0 as usize)
                        .or_default()
                        .push((m3, b2.clone(), rb));
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
            for (m, _, _) in edges.remove(&b).unwrap_or_default() {
                retired = self.b.ins().bor(retired, m);
            }
        }
        let out = self.b.ins().band_not(alive, retired);
        self.b.def_var(self.alive, out);
        // The lanes that go on: every edge into the join (or the branch's other side).
        let inc: Vec<(CValue, Vec<ir::Value>, usize)> = match &d {
            Div::Region { .. } | Div::Serial { .. } => edges.remove(&go_on).unwrap_or_default(),
            Div::Retire { on_true, .. } => {
                vec![(out, if *on_true { ta.clone() } else { fa.clone() }, bi)]
            }
        };
        let params = self.k.blocks[go_on].params.clone();
        let mut args = Vec::new();
        for (j, p) in params.iter().enumerate() {
            let incoming: Vec<(CValue, ir::Value, usize)> = inc
                .iter()
                .filter_map(|(m, a, from)| a.get(j).map(|v| (*m, *v, *from)))
                .collect();
            let lanes = match incoming.as_slice() {
                [] => vec![self.missing(*p); W],
                [(_, v, from)] if !self.varying(*p) => vec![self.at_end_of(*from, |me| me.uni(*v)); 1],
                [(_, v, from)] => self.edge_lanes(*from, *v),
                _ => self.merge(&incoming),
            };
            self.param_args(*p, lanes, &mut args);
        }
        self.go_on(out, go_on, &args);
        Ok(())
    }

    /// Lowers a branch on a varying condition whose region has a loop ([`Div::Serial`]): each
    /// active lane in turn runs the branch and the region's blocks with the scalar lowering,
    /// with its own operands and ids, and leaves its values for the join; then the lanes meet
    /// at the join.
    fn serialize(&mut self, bi: usize, term: &Term, region: &[usize], join: usize) -> Result<(), Error> {
        let Term::Branch(c, (t, ta), (f, fa)) = term else {
            return Err(Error::internal("a divergent branch that is not a branch"));
        };
        let k = self.k;
        // The region leaves only to the join (`Div::Serial`).
        let blocks = region;
        // Its operands defined elsewhere, as each lane has them at the branch.
        let mut defined = std::collections::HashSet::new();
        for &b in blocks {
            defined.extend(k.blocks[b].params.iter().copied());
            defined.extend(k.blocks[b].insts.iter().filter_map(|i| i.result));
        }
        let mut live = Vec::new();
        let uses = blocks
            .iter()
            .flat_map(|b| {
                let blk = &k.blocks[*b];
                blk.insts.iter().flat_map(|i| ir::operands(&i.op)).chain(ir::term_operands(&blk.term))
            })
            .chain(ir::term_operands(term));
        for v in uses {
            if !defined.contains(&v) && !live.contains(&v) {
                live.push(v);
            }
        }
        self.at = (bi, k.blocks[bi].insts.len() + 1);
        let lanes: Vec<(ir::Value, Vec<CValue>)> = live.into_iter().map(|v| (v, self.lanes(v))).collect();
        let (x0, wi0) = (self.b.use_var(self.lid[0]), self.b.use_var(self.wi));
        let jparams = k.blocks[join].params.clone();
        // Each lane's values for the join (zeros for lanes that do not run).
        let jvars: Vec<Vec<cranelift_frontend::Variable>> = (0..W)
            .map(|_| {
                jparams
                    .iter()
                    .map(|p| {
                        let var = self.b.declare_var(super::ty(k.ty(*p)));
                        let z = self.zero(k.ty(*p));
                        self.b.def_var(var, z);
                        var
                    })
                    .collect()
            })
            .collect();
        let copy = self.segment;
        self.serials += 1;
        let mut next = self.b.create_block();
        self.b.ins().jump(next, &[]);
        for (i, vars) in jvars.iter().enumerate() {
            self.b.switch_to_block(next);
            let (enter, after) = (self.b.create_block(), self.b.create_block());
            let alive = self.b.use_var(self.alive);
            let bit = self.b.ins().band_imm_s(alive, 1 << i);
            self.b.ins().brif(bit, enter, &[], after, &[]);
            self.b.switch_to_block(enter);
            // A copy of the blocks of its own, keyed like a segment's.
            let seg = super::SERIAL + (self.serials * W + i) as u32;
            self.segment = seg;
            for (v, l) in &lanes {
                self.vals.insert((seg, *v), l[i]);
            }
            let (xi, wii) = (self.b.ins().iadd_imm_s(x0, i as i64), self.b.ins().iadd_imm_s(wi0, i as i64));
            self.b.def_var(self.lid[0], xi);
            self.b.def_var(self.wi, wii);
            for &b in blocks {
                let cb = self.b.create_block();
                for p in &k.blocks[b].params {
                    let v = self.b.append_block_param(cb, super::ty(k.ty(*p)));
                    self.vals.insert((seg, *p), v);
                }
                self.blocks.insert((seg, b), cb);
            }
            let exit = self.b.create_block();
            let got: Vec<CValue> =
                jparams.iter().map(|p| self.b.append_block_param(exit, super::ty(k.ty(*p)))).collect();
            self.blocks.insert((seg, join), exit);
            self.serial = true;
            let cv = self.v(*c);
            let (ta, fa) = (self.args(ta), self.args(fa));
            let (tb, fb) = (self.target(*t), self.target(*f));
            self.b.ins().brif(cv, tb, &ta, fb, &fa);
            let lowered = blocks.iter().try_for_each(|&b| self.block(b, &k.blocks[b]));
            self.serial = false;
            lowered?;
            self.b.switch_to_block(exit);
            for (var, v) in vars.iter().zip(got) {
                self.b.def_var(*var, v);
            }
            self.b.def_var(self.lid[0], x0);
            self.b.def_var(self.wi, wi0);
            self.b.ins().jump(after, &[]);
            next = after;
        }
        self.segment = copy;
        self.b.switch_to_block(next);
        let mut args = Vec::new();
        for (j, p) in jparams.iter().enumerate() {
            let l: Vec<CValue> = jvars.iter().map(|vars| self.b.use_var(vars[j])).collect();
            self.param_args(*p, l, &mut args);
        }
        // Every lane that came in goes on.
        let target = self.target(BlockId(join as u32));
        self.b.ins().jump(target, &args);
        Ok(())
    }

    /// The native arguments for parameter `p` from its lanes' values, in its shape (one value
    /// when uniform, a vector, or a scalar per lane).
    fn param_args(&mut self, p: ir::Value, lanes: Vec<CValue>, out: &mut Vec<BlockArg>) {
        if !self.varying(p) {
            out.push(BlockArg::Value(lanes[0]));
        } else if let Some(vt) = vty(self.k.ty(p)) {
            let mut x = self.b.ins().splat(vt, lanes[0]);
            for (i, c) in lanes.iter().enumerate().skip(1) {
                x = self.b.ins().insertlane(x, *c, i as u8);
            }
            out.push(BlockArg::Value(x));
        } else {
            out.extend(lanes.into_iter().map(BlockArg::Value));
        }
    }

    /// After a divergent branch: on at block `to` with `args` while some lane of `alive` is
    /// left, else the turn ends.
    fn go_on(&mut self, alive: CValue, to: usize, args: &[BlockArg]) {
        let target = self.target(BlockId(to as u32));
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, alive, 0);
        let retired = self.retired();
        self.b.ins().brif(none, retired, &[], target, args);
    }

    /// Lowers block `i` for all lanes (its parameters were made by [`Self::lockstep_param`]).
    pub(in crate::backend) fn lockstep_block(
        &mut self,
        i: usize,
        blk: &ir::Block,
    ) -> Result<(), Error> {
        let cb = self.blocks[&(self.segment, i)];
        self.b.switch_to_block(cb);
        self.at = (i, 0);
        for p in &blk.params {
            if let Some(l) = self.lv.get(&(self.segment, *p)).cloned() {
                self.spill_lv(*p, &l);
            }
        }
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
            Term::Barrier(t) => {
                // The turn stops here and resumes at the barrier's segment in the next round
                // (the plan has every lane of the turn reach it).
                let next = self.r.segment_of.get(&t.0).copied().unwrap_or(u32::MAX);
                self.resume_at(next);
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(self.any, one);
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

    /// Where a turn whose lanes all retired goes: the latch, having recorded (with barriers)
    /// that the turn is finished ([`Self::lockstep_finish`] fills that block).
    fn retired(&mut self) -> cranelift_codegen::ir::Block {
        if !self.r.barriers() {
            return self.latch;
        }
        match self.done {
            Some(d) => d,
            None => {
                let d = self.b.create_block();
                self.done = Some(d);
                d
            }
        }
    }

    /// After the blocks: the block where retired turns record that they are finished.
    pub(in crate::backend) fn lockstep_finish(&mut self) {
        if let Some(d) = self.done {
            self.b.switch_to_block(d);
            self.resume_at(u32::MAX);
            self.b.ins().jump(self.latch, &[]);
        }
    }

    /// The dispatch of a turn: its lane mask, then the entry of the full or the general copy
    /// (with barriers: of the segment the turn resumes at, recorded for its first lane; a
    /// finished turn goes to the latch).
    pub(in crate::backend) fn lockstep_dispatch(&mut self) {
        let r = self.r;
        let start = |seg: usize| r.starts[seg].0 as usize;
        if !r.barriers() {
            let full = self.blocks[&(super::FULL, start(0))];
            let general = self.blocks[&(super::GENERAL, start(0))];
            self.lockstep_mask(full, general);
            return;
        }
        let (full, general) = (self.b.create_block(), self.b.create_block());
        self.lockstep_mask(full, general);
        for (at, is_full) in [(full, true), (general, false)] {
            self.b.switch_to_block(at);
            let entry = self.blocks[&(super::copy(0, is_full), start(0))];
            let first = self.b.use_var(self.first);
            let resume = self.b.create_block();
            self.b.ins().brif(first, entry, &[], resume, &[]);
            self.b.switch_to_block(resume);
            let a = self.state_addr();
            let state = self
                .b
                .ins()
                .load(types::I32, cranelift_codegen::ir::MemFlagsData::trusted(), a, 0);
            let mut sw = cranelift_frontend::Switch::new();
            for seg in 0..r.starts.len() {
                sw.set_entry(seg as u128, self.blocks[&(super::copy(seg as u32, is_full), start(seg))]);
            }
            sw.emit(&mut self.b, state, self.latch);
        }
    }
}
