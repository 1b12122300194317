//! The function builder's core: IR instructions appended to the kernel, SPIR-V ids resolved to
//! IR values, and each instruction dispatched to its family's method.

use super::{dpcpp, elementwise, fnptr, nonuniform, stdlib, Builder, ConstVal, Frame, Global, Val};
use crate::ir::{self, BinOp, CmpOp, ConvOp, Op, Term, Ty, Value};
use crate::spv::{op, op_name, Inst};
use crate::Error;

impl Builder<'_> {
    pub(super) fn push(&mut self, ty: Ty, op: Op) -> Value {
        let v = self.k.new_value(ty);
        self.k.blocks[self.cur.0 as usize].insts.push(ir::Inst {
            result: Some(v),
            op,
        });
        v
    }

    pub(super) fn effect(&mut self, op: Op) {
        self.k.blocks[self.cur.0 as usize]
            .insts
            .push(ir::Inst { result: None, op });
    }

    pub(super) fn get(&mut self, fr: &Frame, id: u32) -> Result<(Val, u32), Error> {
        if let Some(v) = fr.vals.get(&id) {
            return Ok(v.clone());
        }
        if let Some(v) = self.fnptr_const(id)? {
            return Ok(v);
        }
        if let Some((ty, c)) = self.m.consts.get(&id) {
            if self.m.is_aggregate(*ty) {
                let ty = *ty;
                return Ok((Val::Vec(self.const_aggregate(fr, id, 0)?), ty));
            }
            if let Some((e, n)) = self.m.vector(*ty) {
                let et = self.m.ir_ty(e)?;
                let scalar_parts = match c {
                    ConstVal::Composite(parts) => parts.iter().all(|p| {
                        self.m.consts.get(p).is_some_and(|(t, _)| {
                            self.m.vector(*t).is_none() && !self.m.is_aggregate(*t)
                        })
                    }),
                    _ => true,
                };
                if !scalar_parts || self.m.vector(e).is_some() {
                    return Err(Error::invalid(
                        "a vector constant whose elements are not scalar constants",
                    ));
                }
                let elems = match c {
                    ConstVal::Composite(parts) if parts.len() == n as usize => parts
                        .iter()
                        .map(|p| self.val(fr, *p))
                        .collect::<Result<Vec<_>, _>>()?,
                    ConstVal::Composite(_) => {
                        return Err(Error::invalid(
                            "a vector constant with the wrong number of elements",
                        ))
                    }
                    _ => (0..n).map(|_| self.push(et, Op::Const(0))).collect(),
                };
                if elems.iter().any(|v| self.k.ty(*v) != et) {
                    return Err(Error::invalid(
                        "a vector constant with elements of the wrong type",
                    ));
                }
                return Ok((Val::Vec(elems), *ty));
            }
            let bits = match c {
                ConstVal::Scalar(v) => *v,
                ConstVal::Null => 0,
                ConstVal::Composite(_) => {
                    return Err(Error::unsupported("composite constants used as values"))
                }
            };
            let irt = self.m.ir_ty(*ty)?;
            let bits = if self.m.is_half(*ty) {
                stdlib::half_to_f32_bits(bits)
            } else {
                bits
            };
            return Ok((Val::V(self.push(irt, Op::Const(bits))), *ty));
        }
        if let Some((ty, g)) = self.m.globals.get(&id) {
            let v = match g {
                Global::Data(_, true) if self.m.shared_writable => {
                    return Err(Error::unsupported(
                        "a function linked from another module using its own module's writable program-scope variables, which zeModuleDynamicLink keeps apart (a module program of several inputs shares them)",
                    ))
                }
                Global::Data(o, _) => {
                    Val::V(self.push(Ty::I64, Op::GlobalAddr(self.m.data_base + *o)))
                }
                Global::Local(o) => Val::V(self.push(Ty::I64, Op::LocalAddr(self.m.local_base + *o))),
                Global::Builtin(b) => Val::BVar(*b),
            };
            return Ok((v, *ty));
        }
        Err(Error::invalid(format!(
            "%{id} is used but not defined (or not yet)"
        )))
    }

    pub(super) fn val(&mut self, fr: &Frame, id: u32) -> Result<Value, Error> {
        match self.get(fr, id)?.0 {
            Val::V(v) => Ok(v),
            Val::Vec(_) => Err(Error::invalid(format!(
                "vector %{id} used where a scalar is expected"
            ))),
            _ => Err(Error::unsupported(format!(
                "built-in variable %{id} used other than by OpLoad + OpCompositeExtract"
            ))),
        }
    }

    /// `ix == k` for an integer index.
    pub(super) fn index_is(&mut self, ix: Value, k: usize) -> Result<Value, Error> {
        let t = self.k.ty(ix);
        if t.is_float() || t == Ty::Bool {
            return Err(Error::invalid("a vector index is not an integer"));
        }
        let c = self.push(t, Op::Const(k as u64));
        Ok(self.push(Ty::Bool, Op::Cmp(CmpOp::Eq, ix, c)))
    }

    /// Stores `values` one after the other from `addr` (a scalar, or a vector's elements).
    pub(super) fn store_elems(&mut self, addr: Value, values: &[Value]) -> Result<(), Error> {
        for (k, value) in values.iter().enumerate() {
            let t = self.k.ty(*value);
            if t == Ty::Bool {
                return Err(Error::unsupported("stores of booleans"));
            }
            let a = self.add_const(addr, k as u64 * u64::from(t.bytes()));
            self.effect(Op::Store {
                addr: a,
                value: *value,
            });
        }
        Ok(())
    }

    /// `addr + off` (just `addr` for 0).
    pub(super) fn add_const(&mut self, addr: Value, off: u64) -> Value {
        if off == 0 {
            return addr;
        }
        let c = self.push(Ty::I64, Op::Const(off));
        self.push(Ty::I64, Op::Bin(BinOp::Add, addr, c))
    }

    /// The scalar values of `id`: itself, or a vector's elements.
    pub(super) fn elems(&mut self, fr: &Frame, id: u32) -> Result<(Vec<Value>, u32), Error> {
        match self.get(fr, id)? {
            (Val::V(v), t) => Ok((vec![v], t)),
            (Val::Vec(v), t) => Ok((v, t)),
            _ => Err(Error::unsupported(format!(
                "built-in variable %{id} used other than by OpLoad + OpCompositeExtract"
            ))),
        }
    }

    /// The IR types a value of SPIR-V type `ty` is made of (one per vector element).
    pub(super) fn value_types(&self, ty: u32) -> Result<Vec<Ty>, Error> {
        if self.m.is_aggregate(ty) {
            return self.aggregate_types(ty);
        }
        match self.m.vector(ty) {
            Some((e, n)) => Ok(vec![self.m.ir_ty(e)?; n as usize]),
            None => Ok(vec![self.m.ir_ty(ty)?]),
        }
    }

    /// `vals` as a value of SPIR-V type `ty`.
    pub(super) fn pack(&self, ty: u32, mut vals: Vec<Value>) -> Val {
        if self.m.vector(ty).is_some() || self.m.is_aggregate(ty) || vals.len() != 1 {
            Val::Vec(vals)
        } else {
            Val::V(vals.remove(0))
        }
    }

    pub(super) fn set_term(&mut self, t: Term) {
        self.k.blocks[self.cur.0 as usize].term = t;
    }

    /// Lowers one instruction; true when it ended the block: the instructions of extensions
    /// and libraries first, then each family's method.
    pub(super) fn inst(&mut self, fr: &mut Frame, label: u32, i: &Inst) -> Result<bool, Error> {
        let m = self.m;
        let op = i.op;
        if let Some(ended) = self.half_inst(fr, label, i)? {
            return Ok(ended);
        }
        if let Some(ended) = self.dpcpp_inst(fr, i)? {
            return Ok(ended);
        }
        if let Some(ended) = self.spirv_int_inst(fr, i)? {
            return Ok(ended);
        }
        if matches!(
            op,
            fnptr::CONSTANT_FUNCTION_POINTER | fnptr::FUNCTION_POINTER_CALL
        ) {
            self.fnptr_inst(fr, i)?;
            return Ok(false);
        }
        if op == op::EXT_INST {
            if let Some(ended) = self.std_whole(fr, i)? {
                return Ok(ended);
            }
        }
        if (86..=107).contains(&op) {
            return self.image_inst(fr, i).map(|()| false);
        }
        if matches!(
            op,
            op::COMPOSITE_CONSTRUCT | op::COMPOSITE_EXTRACT | op::COMPOSITE_INSERT | op::SELECT
        ) && self.aggregate_inst(fr, i)?.is_some()
        {
            return Ok(false);
        }
        if let Some(first) = elementwise(op) {
            if let Some((e, n)) = i.ops.first().and_then(|t| m.vector(*t)) {
                return self.per_element(fr, label, i, first, e, n);
            }
        }
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
            | op::MODULE_PROCESSED
            | op::FUNCTION_CALL
            | op::BRANCH
            | op::BRANCH_CONDITIONAL
            | op::SWITCH
            | op::KILL
            | op::RETURN
            | op::RETURN_VALUE
            | op::UNREACHABLE => {
                self.control_inst(fr, label, i)
            }
            op::VARIABLE
            | op::LOAD
            | op::STORE
            | op::COPY_MEMORY
            | op::COPY_MEMORY_SIZED
            | op::ACCESS_CHAIN
            | op::IN_BOUNDS_ACCESS_CHAIN
            | op::PTR_ACCESS_CHAIN
            | op::IN_BOUNDS_PTR_ACCESS_CHAIN => self.memory_inst(fr, i),
            op::VECTOR_EXTRACT_DYNAMIC
            | op::VECTOR_INSERT_DYNAMIC
            | op::VECTOR_SHUFFLE
            | op::COMPOSITE_CONSTRUCT
            | op::COMPOSITE_EXTRACT
            | op::COMPOSITE_INSERT
            | op::VECTOR_TIMES_SCALAR
            | op::DOT
            | op::ANY
            | op::ALL => self.composite_inst(fr, i),
            83 | 109..=115 | 117 | 120..=124 | 126..=140 | 156 | 157 | 162..=191 | 194..=200
            | 205 => self.arith_inst(fr, i),
            op::EXT_INST => self.math_inst(fr, i),
            op::ATOMIC_LOAD
            | op::ATOMIC_STORE
            | op::ATOMIC_EXCHANGE
            | op::ATOMIC_COMPARE_EXCHANGE
            | op::ATOMIC_COMPARE_EXCHANGE_WEAK
            | op::ATOMIC_I_INCREMENT
            | op::ATOMIC_I_DECREMENT
            | op::ATOMIC_I_ADD
            | op::ATOMIC_I_SUB
            | op::ATOMIC_S_MIN
            | op::ATOMIC_U_MIN
            | op::ATOMIC_S_MAX
            | op::ATOMIC_U_MAX
            | op::ATOMIC_AND
            | op::ATOMIC_OR
            | op::ATOMIC_XOR
            | op::ATOMIC_FLAG_TEST_AND_SET
            | op::ATOMIC_FLAG_CLEAR
            | op::ATOMIC_F_MIN_EXT
            | op::ATOMIC_F_MAX_EXT
            | op::ATOMIC_F_ADD_EXT => self.atomic_inst(fr, i),
            224 | 225 | 259..=271
            | dpcpp::OP_GROUP_IMUL_KHR..=dpcpp::OP_GROUP_LOGICAL_XOR_KHR
            | 5571..=5574
            | 333..=366
            | nonuniform::ROTATE_KHR => self.group_inst(fr, i),
            _ => Err(Error::unsupported(format!("instruction {}", op_name(op)))),
        }
    }

    /// Addresses are 64-bit values (pointers of Physical64).
    pub(super) fn pointer(&self, v: Value, op: u16) -> Result<(), Error> {
        if self.k.ty(v) != Ty::I64 {
            return Err(Error::invalid(format!(
                "{}: the pointer operand is not a pointer",
                op_name(op)
            )));
        }
        Ok(())
    }

    pub(super) fn int_check(&self, v: Value, op: u16) -> Result<(), Error> {
        if !matches!(self.k.ty(v), Ty::I32 | Ty::I64) {
            return Err(Error::unsupported(format!(
                "{} on {:?}",
                op_name(op),
                self.k.ty(v)
            )));
        }
        Ok(())
    }

    /// A built-in's 64-bit value as the loaded type, which must be an integer.
    pub(super) fn builtin_resize(&mut self, x: Value, to: Ty) -> Result<Value, Error> {
        if to.is_float() || to == Ty::Bool {
            return Err(Error::invalid(format!(
                "a built-in variable read as {to:?}"
            )));
        }
        Ok(self.resize(x, to))
    }

    /// Integer resize (zero-extension or truncation) to `to`.
    pub(super) fn resize(&mut self, x: Value, to: Ty) -> Value {
        if self.k.ty(x) == to {
            x
        } else {
            self.push(to, Op::Conv(ConvOp::UResize, x))
        }
    }

    /// `addr + index * size`, the index sign-extended to 64 bits.
    pub(super) fn offset(&mut self, fr: &Frame, addr: Value, index: u32, size: u64) -> Result<Value, Error> {
        let ix = self.val(fr, index)?;
        let t = self.k.ty(ix);
        if t.is_float() || t == Ty::Bool {
            return Err(Error::invalid("an access chain index is not an integer"));
        }
        let ix = if t == Ty::I64 {
            ix
        } else {
            self.push(Ty::I64, Op::Conv(ConvOp::SResize, ix))
        };
        let s = self.push(Ty::I64, Op::Const(size));
        let o = self.push(Ty::I64, Op::Bin(BinOp::Mul, ix, s));
        Ok(self.push(Ty::I64, Op::Bin(BinOp::Add, addr, o)))
    }
}
