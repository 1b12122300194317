//! Function pointers (SPV_INTEL_function_pointers) with every call still inlined.
//!
//! Each function whose address the module takes (`OpConstantFunctionPointerINTEL`) and, in a
//! module declaring the capability FunctionPointersINTEL, each exported function that is not a
//! kernel gets an 8-byte slot in the module's program-scope data: its pointer value is the
//! slot's address, so it is a real host address, distinct per function and per module
//! instance, stable while the module lives, and what `zeModuleGetFunctionPointer` returns for
//! the exported ones. A call through a pointer (`OpFunctionPointerCallINTEL`) becomes a switch
//! on `pointer - data address` over the module's functions of the call's signature, each case
//! that function inlined. Any other value (null, another module's pointer, garbage) takes the
//! default case: the call does nothing and its result is zero. A function already being
//! inlined (recursion through a pointer) is left out of the switch, so such a call also returns
//! zero. Initializers of program-scope variables holding pointers are relocated when the data
//! is placed ([`relocate`]).

use std::collections::HashMap;

use super::{align_up, Builder, ConstVal, Frame, Module, Val};
use crate::ir::{BinOp, Op, Term, Ty};
use crate::spv::{cap, op, op_name, Inst, Type};
use crate::Error;

/// `OpConstantFunctionPointerINTEL` (formerly `OpFunctionPointerINTEL`).
pub(super) const CONSTANT_FUNCTION_POINTER: u16 = op::CONSTANT_FUNCTION_POINTER_INTEL;
/// `OpFunctionPointerCallINTEL`.
pub(super) const FUNCTION_POINTER_CALL: u16 = op::FUNCTION_POINTER_CALL_INTEL;
/// The capability `FunctionPointersINTEL`.
pub(super) const CAPABILITY: u32 = cap::FUNCTION_POINTERS_INTEL;

/// A module's function pointers.
#[derive(Debug, Default)]
pub(super) struct FnPtrs {
    /// Function-pointer constants (and module-scope casts of them) → the function.
    consts: HashMap<u32, u32>,
    /// Function → offset of its slot in the data.
    slots: HashMap<u32, u32>,
    /// Exported functions with a slot: name, offset (sorted by name).
    pub names: Vec<(String, u32)>,
    /// Offsets in the data of 8-byte values to which the data's address is added.
    pub relocs: Vec<u32>,
}

/// The slot of function `fid`, made when it has none.
fn slot(m: &mut Module, data: &mut Vec<u8>, fid: u32) -> Result<u32, Error> {
    if let Some(o) = m.fnptr.slots.get(&fid) {
        return Ok(*o);
    }
    let off = align_up(data.len() as u64, 8);
    if off + 8 > 64 << 20 {
        return Err(Error::unsupported(
            "more than 64 MiB of program-scope variables",
        ));
    }
    data.resize(off as usize + 8, 0);
    m.fnptr.slots.insert(fid, off as u32);
    Ok(off as u32)
}

/// A module-scope `OpConstantFunctionPointerINTEL`, or an `OpSpecConstantOp` casting one
/// (`PtrCastToGeneric`, `GenericCastToPtr`, `Bitcast`, `ConvertPtrToU`: the same value); any
/// other `OpSpecConstantOp` is refused.
pub(super) fn module_inst(m: &mut Module, i: &Inst, data: &mut Vec<u8>) -> Result<(), Error> {
    let (ty, id) = (i.w(0)?, i.w(1)?);
    let fid = if i.op == CONSTANT_FUNCTION_POINTER {
        i.w(2)?
    } else {
        match (i.w(2)?, i.ops.get(3).and_then(|o| m.fnptr.consts.get(o))) {
            (117 | 121 | 122 | 124, Some(f)) => *f,
            _ => {
                return Err(Error::unsupported(format!(
                    "instruction {} at module scope (other than a cast of a function pointer)",
                    op_name(i.op)
                )))
            }
        }
    };
    match m.ty(ty)? {
        Type::Pointer(..) | Type::Int(64) => {}
        t => {
            return Err(Error::invalid(format!(
                "{} %{id} of type {t:?}",
                op_name(i.op)
            )))
        }
    }
    let off = slot(m, data, fid)?;
    m.fnptr.consts.insert(id, fid);
    m.consts.insert(id, (ty, ConstVal::Scalar(u64::from(off))));
    Ok(())
}

/// Records the relocations of a program-scope variable's initializer `init` (of type `ty`)
/// written at offset `off` of the data: where it holds function pointers.
pub(super) fn init_relocs(m: &mut Module, init: u32, ty: u32, off: u64) -> Result<(), Error> {
    if m.fnptr.consts.is_empty() {
        return Ok(());
    }
    let mut out = Vec::new();
    walk(m, init, ty, off, 0, &mut out)?;
    m.fnptr.relocs.extend(out);
    Ok(())
}

fn walk(
    m: &Module,
    id: u32,
    ty: u32,
    off: u64,
    depth: u32,
    out: &mut Vec<u32>,
) -> Result<(), Error> {
    if depth > 32 {
        return Err(Error::invalid("constants nested too deeply"));
    }
    if m.fnptr.consts.contains_key(&id) {
        if m.layout(ty)?.0 != 8 {
            return Err(Error::invalid(format!(
                "function pointer %{id} stored in a value of another size"
            )));
        }
        out.push(off as u32);
        return Ok(());
    }
    if let Some((_, ConstVal::Composite(parts))) = m.consts.get(&id) {
        let (elems, packed): (Vec<u32>, bool) = match m.ty(ty)? {
            Type::Array(e, n) => (vec![*e; (*n).min(parts.len() as u64) as usize], false),
            Type::Vector(e, n) => (vec![*e; *n as usize], true),
            Type::Struct(ms, p) => (ms.clone(), *p),
            _ => return Ok(()),
        };
        let mut o = 0u64;
        for (p, e) in parts.iter().zip(&elems) {
            let (s, a) = m.layout(*e)?;
            o = align_up(o, if packed { s } else { a });
            walk(m, *p, *e, off + o, depth + 1, out)?;
            o += s;
        }
    }
    Ok(())
}

/// After the module is read: slots for pointers taken inside functions and, when the module
/// declares FunctionPointersINTEL, for its exported functions that are not kernels (named for
/// `zeModuleGetFunctionPointer`); every pointed-to id must be a function.
pub(super) fn finish(
    m: &mut Module,
    data: &mut Vec<u8>,
    insts: &[Inst],
    entries: &[(u32, String)],
) -> Result<(), Error> {
    let mut inner = Vec::new();
    for f in m.funcs.values() {
        for (_, body) in &f.blocks {
            for i in body.iter().filter(|i| i.op == CONSTANT_FUNCTION_POINTER) {
                inner.push(i.w(2)?);
            }
        }
    }
    inner.sort_unstable();
    for fid in inner {
        slot(m, data, fid)?;
    }
    if insts
        .iter()
        .any(|i| i.op == op::CAPABILITY && i.ops.first() == Some(&CAPABILITY))
    {
        let mut named: Vec<(String, u32)> = m
            .exports
            .iter()
            .filter(|(n, _)| !entries.iter().any(|e| &e.1 == *n))
            .map(|(n, f)| (n.clone(), *f))
            .collect();
        named.sort();
        for (name, fid) in named {
            let off = slot(m, data, fid)?;
            m.fnptr.names.push((name, off));
        }
    }
    if let Some(f) = m.fnptr.slots.keys().find(|f| !m.funcs.contains_key(f)) {
        return Err(Error::invalid(format!(
            "a function pointer to %{f}, which is not a function"
        )));
    }
    Ok(())
}

/// Adds `base` to the 8-byte little-endian values at `relocs` (byte offsets) of `words`;
/// offsets past the end are skipped (the lowering and the native loader never give them).
#[cfg(feature = "jit")]
pub(crate) fn relocate(words: &mut [u64], relocs: &[u32], base: u64) {
    let byte = |w: &[u64], i: usize| (w[i / 8] >> (8 * (i % 8))) as u8;
    for &off in relocs {
        let off = off as usize;
        if off + 8 > words.len() * 8 {
            continue;
        }
        let mut b = [0u8; 8];
        for (k, x) in b.iter_mut().enumerate() {
            *x = byte(words, off + k);
        }
        let v = u64::from_le_bytes(b).wrapping_add(base);
        for (k, x) in v.to_le_bytes().into_iter().enumerate() {
            let i = off + k;
            let sh = 8 * (i % 8);
            words[i / 8] = (words[i / 8] & !(0xff << sh)) | (u64::from(x) << sh);
        }
    }
}

impl Builder<'_> {
    /// Refuses what needs the module's own data inside a function linked from another module.
    fn own_module(&self, what: &str) -> Result<(), Error> {
        if std::ptr::eq(self.m, self.root) {
            Ok(())
        } else {
            Err(Error::unsupported(format!("{what} in a linked function")))
        }
    }

    /// The value of a function-pointer constant: its slot's address (`None`: not one).
    pub(super) fn fnptr_const(&mut self, id: u32) -> Result<Option<(Val, u32)>, Error> {
        let Some(fid) = self.m.fnptr.consts.get(&id).copied() else {
            return Ok(None);
        };
        self.own_module("a function pointer")?;
        let ty = self.m.consts.get(&id).map(|c| c.0).unwrap_or_default();
        let off = self.m.fnptr.slots[&fid];
        Ok(Some((Val::V(self.push(Ty::I64, Op::GlobalAddr(off))), ty)))
    }

    /// `OpConstantFunctionPointerINTEL` inside a function, `OpFunctionPointerCallINTEL`.
    pub(super) fn fnptr_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        if i.op == CONSTANT_FUNCTION_POINTER {
            self.own_module("a function pointer")?;
            let off = self.m.fnptr.slots.get(&i.w(2)?).copied().ok_or_else(|| {
                Error::invalid("OpConstantFunctionPointerINTEL of an unknown function")
            })?;
            let v = self.push(Ty::I64, Op::GlobalAddr(off));
            fr.vals.insert(i.w(1)?, (Val::V(v), i.w(0)?));
            return Ok(());
        }
        self.own_module("a call through a function pointer")?;
        let (rt, rid) = (i.w(0)?, i.w(1)?);
        let p = self.val(fr, i.w(2)?)?;
        if self.k.ty(p) != Ty::I64 {
            return Err(Error::invalid(
                "OpFunctionPointerCallINTEL: the callee is not a pointer",
            ));
        }
        let args = i.ops[3..]
            .iter()
            .map(|a| self.get(fr, *a))
            .collect::<Result<Vec<_>, _>>()?;
        let arg_types = args
            .iter()
            .map(|(v, _)| match v {
                Val::V(x) => Ok(vec![self.k.ty(*x)]),
                Val::Vec(xs) => Ok(xs.iter().map(|x| self.k.ty(*x)).collect()),
                _ => Err(Error::unsupported(
                    "a built-in variable passed through a function pointer",
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let void = self.m.ty(rt)? == &Type::Void;
        let ret_types = if void { vec![] } else { self.value_types(rt)? };
        let cont = self.k.new_block();
        let results: Vec<_> = ret_types.iter().map(|t| self.k.new_value(*t)).collect();
        self.k.blocks[cont.0 as usize].params.extend(&results);
        let base = self.push(Ty::I64, Op::GlobalAddr(0));
        let rel = self.push(Ty::I64, Op::Bin(BinOp::Sub, p, base));
        let from = self.cur;
        let mut candidates: Vec<(u32, u32)> =
            self.m.fnptr.slots.iter().map(|(f, o)| (*o, *f)).collect();
        candidates.sort_unstable();
        let mut cases = Vec::new();
        for (off, fid) in candidates {
            let key = (self.m as *const Module as usize, fid);
            if self.stack.contains(&key) || !self.signature_is(fid, void, &ret_types, &arg_types) {
                continue;
            }
            let entry = self.inline(fid, args.clone(), Some(cont)).map_err(|e| {
                e.context(format!(
                    "`{}` (a target of a call through a function pointer)",
                    self.m.name(fid)
                ))
            })?;
            cases.push((u64::from(off), entry));
        }
        // Not one of this module's functions of this signature: nothing runs, the result is 0.
        let unknown = self.k.new_block();
        self.cur = unknown;
        let zeros = ret_types
            .iter()
            .map(|t| self.push(*t, Op::Const(0)))
            .collect();
        self.set_term(Term::Jump(cont, zeros));
        self.k.blocks[from.0 as usize].term = Term::Switch(rel, unknown, cases);
        self.cur = cont;
        if !void {
            let v = self.pack(rt, results);
            fr.vals.insert(rid, (v, rt));
        }
        Ok(())
    }

    /// Whether function `fid` takes arguments of `args`' value types and returns `ret`'s.
    fn signature_is(&self, fid: u32, void: bool, ret: &[Ty], args: &[Vec<Ty>]) -> bool {
        let Some(f) = self.m.funcs.get(&fid) else {
            return false;
        };
        let f_void = self.m.ty(f.ret).is_ok_and(|t| t == &Type::Void);
        if f_void != void || f.params.len() != args.len() {
            return false;
        }
        if !void && self.value_types(f.ret).ok().as_deref() != Some(ret) {
            return false;
        }
        f.params
            .iter()
            .zip(args)
            .all(|((_, t), a)| self.value_types(*t).ok().as_ref() == Some(a))
    }
}
