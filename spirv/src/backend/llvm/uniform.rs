//! Uniform values of outer-loop vectorized code back to scalars.
//!
//! LLVM's outer-loop vectorizer (`outer`) widens every instruction of the loop nest, the inner
//! loops' counters included: `for (j = 0; j < n; j++) q = pos[j]` becomes a vector of 16 equal
//! counters and a gather of 16 equal addresses, where one load and a broadcast would do. This
//! pass finds vector values that are the same in every lane, and computes them as scalars:
//! - splat constants, and broadcasts (`shufflevector` of an `insertelement` at lane 0 with an
//!   all-zero mask);
//! - element-wise integer arithmetic, comparisons and casts of such values, `getelementptr`s
//!   of them (or of scalars), and phis of them (the counters);
//! - gathers of one address with every lane on, which become one load.
//!
//! Each such vector value is replaced by a broadcast of its scalar; LLVM's `instcombine` then
//! folds what used it (a uniform branch condition, an address), and dead code goes.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMBuilderRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use inkwell::values::{AsValueRef, FunctionValue};

/// Rewrites the uniform vector values of `f`; true when it changed anything.
pub(super) fn scalarize(f: FunctionValue<'_>) -> bool {
    // SAFETY: `f` is a live function whose context outlives this call; the pass only touches
    // values and blocks it reads from that function or makes in it, with a builder of that
    // function's context, disposed of before returning.
    unsafe {
        let f = f.as_value_ref();
        let mut p = Pass::new(f);
        if p.uniform.is_empty() {
            c::LLVMDisposeBuilder(p.b);
            return false;
        }
        p.rewrite();
        c::LLVMDisposeBuilder(p.b);
        true
    }
}

struct Pass {
    b: LLVMBuilderRef,
    /// The uniform vector instructions, in the function's order.
    order: Vec<LLVMValueRef>,
    uniform: HashSet<LLVMValueRef>,
    /// The scalar made for each uniform vector value.
    scalar: HashMap<LLVMValueRef, LLVMValueRef>,
}

/// # Safety
/// Every value passed to these functions is a live value of the function being rewritten, or
/// of its context.
impl Pass {
    unsafe fn new(f: LLVMValueRef) -> Pass {
        // SAFETY: as this function's contract: live values of the function being rewritten.
        unsafe {
            let cx = c::LLVMGetTypeContext(c::LLVMTypeOf(f));
            let mut order = Vec::new();
            let mut bb = c::LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut i = c::LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    if is_vector(c::LLVMTypeOf(i)) && candidate(i) {
                        order.push(i);
                    }
                    i = c::LLVMGetNextInstruction(i);
                }
                bb = c::LLVMGetNextBasicBlock(bb);
            }
            // Optimistic: every candidate is uniform until an operand says otherwise (so that the
            // phis of a loop and their updates are found together).
            let mut uniform: HashSet<LLVMValueRef> = order.iter().copied().collect();
            loop {
                let before = uniform.len();
                order.retain(|i| {
                    let keep = operands_uniform(*i, &uniform);
                    if !keep {
                        uniform.remove(i);
                    }
                    keep
                });
                if uniform.len() == before {
                    break;
                }
            }
            Pass {
                b: c::LLVMCreateBuilderInContext(cx),
                order,
                uniform,
                scalar: HashMap::new(),
            }
        }
    }

    unsafe fn rewrite(&mut self) {
        // SAFETY: as this function's contract: live values of the function being rewritten.
        unsafe {
            let order = self.order.clone();
            // The counters first (their incoming values may come later in the function).
            for &i in &order {
                if c::LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMPHI {
                    c::LLVMPositionBuilderBefore(self.b, i);
                    let s = c::LLVMBuildPhi(self.b, c::LLVMGetElementType(c::LLVMTypeOf(i)), c"".as_ptr());
                    self.scalar.insert(i, s);
                }
            }
            for &i in &order {
                self.scalar_of(i);
            }
            for &i in &order {
                if c::LLVMGetInstructionOpcode(i) != LLVMOpcode::LLVMPHI {
                    continue;
                }
                let s = self.scalar[&i];
                for k in 0..c::LLVMCountIncoming(i) {
                    let mut v = self.scalar_of(c::LLVMGetIncomingValue(i, k));
                    let mut from = c::LLVMGetIncomingBlock(i, k);
                    c::LLVMAddIncoming(s, &mut v, &mut from, 1);
                }
            }
            // Every use of a uniform vector value reads a broadcast of its scalar.
            for &i in &order {
                let s = self.scalar[&i];
                let at = if c::LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMPHI {
                    first_non_phi(c::LLVMGetInstructionParent(i))
                } else {
                    c::LLVMGetNextInstruction(s)
                };
                c::LLVMPositionBuilderBefore(self.b, at);
                let splat = self.splat(s, c::LLVMTypeOf(i));
                c::LLVMReplaceAllUsesWith(i, splat);
            }
        }
    }

    /// The scalar of uniform value `v` (made after `v` where it is an instruction).
    unsafe fn scalar_of(&mut self, v: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: as this function's contract: live values of the function being rewritten.
        unsafe {
            if !is_vector(c::LLVMTypeOf(v)) {
                return v;
            }
            if let Some(s) = self.scalar.get(&v) {
                return *s;
            }
            if let Some(s) = splat_value(v) {
                return s;
            }
            let ops: Vec<LLVMValueRef> = (0..c::LLVMGetNumOperands(v) as u32)
                .map(|k| c::LLVMGetOperand(v, k))
                .collect();
            let op = c::LLVMGetInstructionOpcode(v);
            let scalars: Vec<LLVMValueRef> = match op {
                // The gather's address only (its other operands are constants and the callee).
                LLVMOpcode::LLVMCall => vec![self.scalar_of(ops[0])],
                _ => ops.iter().map(|o| self.scalar_of(*o)).collect(),
            };
            c::LLVMPositionBuilderBefore(self.b, c::LLVMGetNextInstruction(v));
            let elem = c::LLVMGetElementType(c::LLVMTypeOf(v));
            let s = match op {
                LLVMOpcode::LLVMICmp => c::LLVMBuildICmp(
                    self.b,
                    c::LLVMGetICmpPredicate(v),
                    scalars[0],
                    scalars[1],
                    c"".as_ptr(),
                ),
                LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMTrunc => {
                    c::LLVMBuildCast(self.b, op, scalars[0], elem, c"".as_ptr())
                }
                LLVMOpcode::LLVMGetElementPtr => {
                    let mut idx = scalars[1..].to_vec();
                    let ty = c::LLVMGetGEPSourceElementType(v);
                    let n = idx.len() as u32;
                    if c::LLVMIsInBounds(v) != 0 {
                        c::LLVMBuildInBoundsGEP2(self.b, ty, scalars[0], idx.as_mut_ptr(), n, c"".as_ptr())
                    } else {
                        c::LLVMBuildGEP2(self.b, ty, scalars[0], idx.as_mut_ptr(), n, c"".as_ptr())
                    }
                }
                LLVMOpcode::LLVMCall => {
                    let load = c::LLVMBuildLoad2(self.b, elem, scalars[0], c"".as_ptr());
                    let align = c::LLVMConstIntGetZExtValue(ops[1]) as u32;
                    c::LLVMSetAlignment(load, align.max(1));
                    load
                }
                _ => c::LLVMBuildBinOp(self.b, op, scalars[0], scalars[1], c"".as_ptr()),
            };
            self.scalar.insert(v, s);
            s
        }
    }

    unsafe fn splat(&mut self, s: LLVMValueRef, vty: LLVMTypeRef) -> LLVMValueRef {
        // SAFETY: as this function's contract: live values of the function being rewritten.
        unsafe {
            let cx = c::LLVMGetTypeContext(vty);
            let i32t = c::LLVMInt32TypeInContext(cx);
            let n = c::LLVMGetVectorSize(vty);
            let one = c::LLVMBuildInsertElement(
                self.b,
                c::LLVMGetPoison(vty),
                s,
                c::LLVMConstInt(i32t, 0, 0),
                c"".as_ptr(),
            );
            let mask = c::LLVMConstNull(c::LLVMVectorType(i32t, n));
            c::LLVMBuildShuffleVector(self.b, one, c::LLVMGetPoison(vty), mask, c"".as_ptr())
        }
    }
}

pub(super) unsafe fn is_vector(t: LLVMTypeRef) -> bool {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe { c::LLVMGetTypeKind(t) == LLVMTypeKind::LLVMVectorTypeKind }
}

/// An instruction this pass can make scalar, if its operands are uniform.
unsafe fn candidate(i: LLVMValueRef) -> bool {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe {
        use LLVMOpcode::*;
        match c::LLVMGetInstructionOpcode(i) {
            LLVMPHI | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr
            | LLVMXor | LLVMICmp | LLVMZExt | LLVMSExt | LLVMTrunc | LLVMGetElementPtr => true,
            LLVMCall => gather_of_all_lanes(i),
            _ => false,
        }
    }
}

/// `llvm.masked.gather` with a constant mask of every lane.
unsafe fn gather_of_all_lanes(i: LLVMValueRef) -> bool {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe { intrinsic_named(i, b"llvm.masked.gather.") && all_lanes_on(c::LLVMGetOperand(i, 2)) }
}

/// True when call `i` calls a function whose name starts with `prefix`.
pub(super) unsafe fn intrinsic_named(i: LLVMValueRef, prefix: &[u8]) -> bool {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe {
        let callee = c::LLVMGetCalledValue(i);
        let mut len = 0usize;
        let name = c::LLVMGetValueName2(callee, &mut len);
        !name.is_null() && std::slice::from_raw_parts(name.cast::<u8>(), len).starts_with(prefix)
    }
}

/// True when `mask` is a constant with every lane on.
pub(super) unsafe fn all_lanes_on(mask: LLVMValueRef) -> bool {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe {
        if c::LLVMIsConstant(mask) == 0 {
            return false;
        }
        let n = c::LLVMGetVectorSize(c::LLVMTypeOf(mask));
        (0..n).all(|k| {
            let e = c::LLVMGetAggregateElement(mask, k);
            !e.is_null()
                && c::LLVMIsPoison(e) == 0
                && c::LLVMIsUndef(e) == 0
                && c::LLVMConstIntGetZExtValue(e) == 1
        })
    }
}

/// True when each operand of `i` that matters is the same in every lane: a scalar, a splat, or
/// a value of `uniform`.
unsafe fn operands_uniform(i: LLVMValueRef, uniform: &HashSet<LLVMValueRef>) -> bool {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe {
        let ok = |v: LLVMValueRef| {
            !is_vector(c::LLVMTypeOf(v)) || uniform.contains(&v) || splat_value(v).is_some()
        };
        if c::LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMPHI {
            return (0..c::LLVMCountIncoming(i)).all(|k| ok(c::LLVMGetIncomingValue(i, k)));
        }
        if c::LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMCall {
            return ok(c::LLVMGetOperand(i, 0));
        }
        (0..c::LLVMGetNumOperands(i) as u32).all(|k| ok(c::LLVMGetOperand(i, k)))
    }
}

/// The scalar every lane of `v` holds, where `v` is a splat constant or a broadcast.
pub(super) unsafe fn splat_value(v: LLVMValueRef) -> Option<LLVMValueRef> {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe {
        if c::LLVMIsConstant(v) != 0 {
            let n = c::LLVMGetVectorSize(c::LLVMTypeOf(v));
            let first = c::LLVMGetAggregateElement(v, 0);
            if first.is_null() || c::LLVMIsPoison(first) != 0 || c::LLVMIsUndef(first) != 0 {
                return None;
            }
            // Constants are uniqued: equal elements are the same value.
            return (1..n)
                .all(|k| c::LLVMGetAggregateElement(v, k) == first)
                .then_some(first);
        }
        if c::LLVMIsAShuffleVectorInst(v).is_null() {
            return None;
        }
        let n = c::LLVMGetNumMaskElements(v);
        if !(0..n).all(|k| c::LLVMGetMaskValue(v, k) == 0) {
            return None;
        }
        let ins = c::LLVMGetOperand(v, 0);
        if c::LLVMIsAInsertElementInst(ins).is_null() {
            return None;
        }
        let lane = c::LLVMGetOperand(ins, 2);
        (c::LLVMIsConstant(lane) != 0 && c::LLVMConstIntGetZExtValue(lane) == 0)
            .then(|| c::LLVMGetOperand(ins, 1))
    }
}

unsafe fn first_non_phi(bb: inkwell::llvm_sys::prelude::LLVMBasicBlockRef) -> LLVMValueRef {
    // SAFETY: as this function's contract: live values of the function being rewritten.
    unsafe {
        let mut i = c::LLVMGetFirstInstruction(bb);
        while c::LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMPHI {
            i = c::LLVMGetNextInstruction(i);
        }
        i
    }
}
