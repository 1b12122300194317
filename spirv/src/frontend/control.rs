//! Control flow: branches, switches, returns and calls (each call inlined), and the
//! instructions that lower to nothing.

use std::collections::HashMap;

use super::{dominance_order, Builder, Frame, Module, Val, MAX_DEPTH, MAX_INSTS};
use crate::ir::{BlockId, Op, Term, Ty, Value};
use crate::spv::{op, op_name, Inst, Type};
use crate::Error;

impl Builder<'_> {
    /// No-ops, calls, branches, switches and returns.
    pub(super) fn control_inst(
        &mut self,
        fr: &mut Frame,
        label: u32,
        i: &Inst,
    ) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        // Result type and id of value instructions.
        let rt = || i.w(0);
        let rid = || i.w(1);
        let def = |fr: &mut Frame, v: Val, ty: u32| -> Result<(), Error> {
            fr.vals.insert(i.w(1)?, (v, ty));
            Ok(())
        };
        match op {
            op::NOP
            | op::UNDEF
            | op::NAME
            | op::LINE
            | op::PHI
            | op::LOOP_MERGE
            | op::SELECTION_MERGE
            | op::LIFETIME_START
            | op::LIFETIME_STOP
            | op::NO_LINE
            | op::MODULE_PROCESSED => {
                if op == 1 {
                    let vs = self
                        .value_types(rt()?)?
                        .into_iter()
                        .map(|t| self.push(t, Op::Const(0)))
                        .collect();
                    let v = self.pack(rt()?, vs);
                    def(fr, v, rt()?)?;
                }
            }
            op::FUNCTION_CALL if self.intrinsic(fr, i)? => {}
            op::FUNCTION_CALL => {
                let fid = i.w(2)?;
                let args = i.ops[3..]
                    .iter()
                    .map(|a| self.get(fr, *a))
                    .collect::<Result<Vec<_>, _>>()?;
                let ret_ty = rt()?;
                let cont = self.k.new_block();
                let mut result = None;
                if m.ty(ret_ty)? != &Type::Void {
                    let vs: Vec<Value> = self
                        .value_types(ret_ty)?
                        .into_iter()
                        .map(|t| self.k.new_value(t))
                        .collect();
                    self.k.blocks[cont.0 as usize].params.extend(&vs);
                    result = Some(self.pack(ret_ty, vs));
                }
                let from = self.cur;
                let entry = self.inline(fid, args, Some(cont))?;
                self.k.blocks[from.0 as usize].term = Term::Jump(entry, vec![]);
                self.cur = cont;
                if let Some(p) = result {
                    fr.vals.insert(rid()?, (p, ret_ty));
                }
            }
            op::BRANCH => {
                let (t, a) = self.edge(fr, label, i.w(0)?)?;
                self.set_term(Term::Jump(t, a));
                return Ok(true);
            }
            op::BRANCH_CONDITIONAL => {
                let c = self.val(fr, i.w(0)?)?;
                if self.k.ty(c) != Ty::Bool {
                    return Err(Error::invalid(
                        "OpBranchConditional condition is not a boolean",
                    ));
                }
                let t = self.edge(fr, label, i.w(1)?)?;
                let f = self.edge(fr, label, i.w(2)?)?;
                self.set_term(Term::Branch(c, t, f));
                return Ok(true);
            }
            op::SWITCH => {
                let sel = self.val(fr, i.w(0)?)?;
                let st = self.k.ty(sel);
                if st.is_float() || st == Ty::Bool {
                    return Err(Error::invalid("OpSwitch selector is not an integer"));
                }
                // A switch passes no block arguments: an edge into a block with OpPhi goes
                // through a block of its own that jumps there with them.
                let via = |b: &mut Self, (t, a): (BlockId, Vec<Value>)| {
                    if a.is_empty() {
                        return t;
                    }
                    let hop = b.k.new_block();
                    b.k.blocks[hop.0 as usize].term = Term::Jump(t, a);
                    hop
                };
                let de = self.edge(fr, label, i.w(1)?)?;
                let d = via(self, de);
                let step = if st == Ty::I64 { 3 } else { 2 };
                let mut cases = Vec::new();
                for c in i.ops[2..].chunks(step) {
                    if c.len() != step {
                        return Err(Error::invalid("OpSwitch with a truncated case"));
                    }
                    let mut v = u64::from(c[0]);
                    if step == 3 {
                        v |= u64::from(c[1]) << 32;
                    }
                    let e = self.edge(fr, label, c[step - 1])?;
                    cases.push((v, via(self, e)));
                }
                self.set_term(Term::Switch(sel, d, cases));
                return Ok(true);
            }
            op::RETURN | op::RETURN_VALUE => {
                let args = if op == op::RETURN_VALUE {
                    self.elems(fr, i.w(0)?)?.0
                } else {
                    vec![]
                };
                match fr.ret {
                    Some(r) => {
                        let want = self.k.blocks[r.0 as usize].params.clone();
                        if want.len() != args.len()
                            || want
                                .iter()
                                .zip(&args)
                                .any(|(w, a)| self.k.ty(*w) != self.k.ty(*a))
                        {
                            return Err(Error::invalid(
                                "return value does not match the function type",
                            ));
                        }
                        self.set_term(Term::Jump(r, args));
                    }
                    None => self.set_term(Term::Return),
                }
                return Ok(true);
            }
            op::KILL | op::UNREACHABLE => {
                self.set_term(Term::Unreachable);
                return Ok(true);
            }
            _ => return Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
        Ok(false)
    }

    pub(super) fn block(&self, fr: &Frame, label: u32) -> Result<BlockId, Error> {
        fr.labels.get(&label).copied().ok_or_else(|| {
            Error::invalid(format!(
                "branch to %{label}, which is not a block of the function"
            ))
        })
    }

    /// Arguments of the edge from SPIR-V block `from` to block `to`.
    pub(super) fn edge(&mut self, fr: &Frame, from: u32, to: u32) -> Result<(BlockId, Vec<Value>), Error> {
        let target = self.block(fr, to)?;
        let mut args = Vec::new();
        for phi in fr.phis.get(&to).map(Vec::as_slice).unwrap_or(&[]) {
            let pairs = &phi.ops[2..];
            let v = pairs
                .chunks(2)
                .find(|p| p.len() == 2 && p[1] == from)
                .map(|p| p[0])
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "OpPhi %{} has no value for predecessor %{from}",
                        phi.ops[1]
                    ))
                })?;
            let (vals, _) = self.elems(fr, v)?;
            let expect = self.value_types(phi.ops[0])?;
            if vals.len() != expect.len()
                || vals.iter().zip(&expect).any(|(v, t)| self.k.ty(*v) != *t)
            {
                return Err(Error::invalid(format!(
                    "OpPhi %{}: operand of the wrong type",
                    phi.ops[1]
                )));
            }
            args.extend(vals);
        }
        Ok((target, args))
    }

    /// Lowers function `fid` with `args` into the kernel; returns its entry block. Returns jump
    /// to `ret` (with the value as its parameter), or end the work-item when `ret` is None.
    pub(super) fn inline(
        &mut self,
        fid: u32,
        args: Vec<(Val, u32)>,
        ret: Option<BlockId>,
    ) -> Result<BlockId, Error> {
        let m = self.m;
        let f = m
            .funcs
            .get(&fid)
            .ok_or_else(|| Error::invalid(format!("call to %{fid}, which is not a function")))?;
        if f.blocks.is_empty() {
            if let Some(name) = m.imports.get(&fid) {
                let found = self
                    .libs
                    .iter()
                    .find_map(|l| l.exports.get(name).map(|id| (l, *id)));
                let Some((lib, id)) = found else {
                    return Err(Error::unsupported(format!(
                        "call to `{name}`, which the module imports: link it with a module exporting it (zeModuleDynamicLink)"
                    )));
                };
                let saved = self.m;
                self.m = lib;
                let r = self.inline(id, args, ret);
                self.m = saved;
                return r.map_err(|e| e.context(format!("`{name}` (linked)")));
            }
            return Err(Error::unsupported(format!(
                "call to `{}`, which is declared but not defined in the module",
                m.name(fid)
            )));
        }
        let key = (m as *const Module as usize, fid);
        if self.stack.contains(&key) {
            return Err(Error::invalid(format!(
                "recursive call to `{}`",
                m.name(fid)
            )));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Error::unsupported("calls nested more than 64 deep"));
        }
        if args.len() != f.params.len() {
            return Err(Error::invalid(format!(
                "call to `{}` with the wrong number of arguments",
                m.name(fid)
            )));
        }
        self.stack.push(key);
        let mut fr = Frame {
            vals: HashMap::new(),
            labels: HashMap::new(),
            phis: HashMap::new(),
            ret,
        };
        for ((pid, pty), (a, _)) in f.params.iter().zip(args) {
            fr.vals.insert(*pid, (a, *pty));
        }
        for (label, insts) in &f.blocks {
            let b = self.k.new_block();
            if fr.labels.insert(*label, b).is_some() {
                return Err(Error::invalid(format!("block %{label} defined twice")));
            }
            let phis: Vec<Inst> = insts.iter().filter(|i| i.op == op::PHI).cloned().collect();
            for p in &phis {
                let types = self.value_types(p.w(0)?)?;
                let vs: Vec<Value> = types.iter().map(|t| self.k.new_value(*t)).collect();
                self.k.blocks[b.0 as usize].params.extend(&vs);
                fr.vals.insert(p.w(1)?, (self.pack(p.w(0)?, vs), p.w(0)?));
            }
            fr.phis.insert(*label, phis);
        }
        let entry = fr.labels[&f.blocks[0].0];
        for &bi in &dominance_order(&f.blocks) {
            let (label, insts) = &f.blocks[bi];
            self.cur = fr.labels[label];
            let mut ended = false;
            for i in insts {
                if ended {
                    return Err(Error::invalid(format!(
                        "{} after the terminator of block %{label}",
                        op_name(i.op)
                    )));
                }
                ended = self.inst(&mut fr, *label, i)?;
                if self.k.types.len() > MAX_INSTS {
                    return Err(Error::unsupported(
                        "kernels of more than a million instructions after inlining",
                    ));
                }
            }
            if !ended {
                return Err(Error::invalid(format!("block %{label} has no terminator")));
            }
        }
        self.stack.pop();
        Ok(entry)
    }

}
