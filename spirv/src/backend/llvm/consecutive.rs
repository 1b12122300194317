//! Gathers and scatters of consecutive addresses back to vector loads and stores.
//!
//! LLVM's outer-loop vectorizer (`outer`) widens every load and store into a gather or a
//! scatter, consecutive or not, and the inner loop of a chunk (`tiles`) makes addresses that
//! are `base + j` for lane `j` in ways LLVM's own analysis does not see through. This pass
//! proves an address vector consecutive lane by lane: each lane's address is the first lane's
//! plus the lane number times the element's size, by the way the vector is built (splats,
//! constant steps, sums and differences, shifts and products by constants, casts, address
//! arithmetic, and the vectorizer's induction phis). Such a gather with every lane on becomes
//! one vector load from the first lane's address, and such a scatter one vector store.
//!
//! The casts are taken as keeping the steps: an index vector of 32-bit lanes that wrapped
//! around between lanes would address elements 2^32 apart, which no buffer here spans (the
//! Cranelift tier's lockstep shapes assume the same).

use std::collections::HashMap;

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMBuilderRef, LLVMValueRef};
use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMTargetDataRef};
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::values::{AsValueRef, FunctionValue};

use super::uniform::{all_lanes_on, intrinsic_named, is_vector, splat_value};

thread_local! {
    static REWRITTEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many gathers and scatters this thread turned into vector loads and stores.
pub(crate) fn rewritten_on_this_thread() -> u64 {
    REWRITTEN.with(|c| c.get())
}

/// Rewrites the consecutive gathers and scatters of `f`; true when it changed anything.
pub(super) fn rewrite(f: FunctionValue<'_>) -> bool {
    // SAFETY: `f` is a live function of a module whose context outlives this call; the pass
    // reads its instructions, adds instructions to its blocks with a builder of its context
    // (disposed of before returning), and erases only the calls it replaced.
    unsafe {
        let f = f.as_value_ref();
        let module = c::LLVMGetGlobalParent(f);
        let td = LLVMGetModuleDataLayout(module);
        let mut found = Vec::new();
        let mut bb = c::LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut i = c::LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if c::LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMCall {
                    if intrinsic_named(i, b"llvm.masked.gather.") && all_lanes_on(c::LLVMGetOperand(i, 2)) {
                        found.push((i, false));
                    } else if intrinsic_named(i, b"llvm.masked.scatter.") && all_lanes_on(c::LLVMGetOperand(i, 3)) {
                        found.push((i, true));
                    }
                }
                i = c::LLVMGetNextInstruction(i);
            }
            bb = c::LLVMGetNextBasicBlock(bb);
        }
        if found.is_empty() {
            return false;
        }
        let cx = c::LLVMGetTypeContext(c::LLVMTypeOf(f));
        let b = c::LLVMCreateBuilderInContext(cx);
        let mut steps = Steps { td, memo: HashMap::new() };
        let mut changed = 0;
        for (i, scatter) in found {
            let (ptrs, value, align) = if scatter {
                (c::LLVMGetOperand(i, 1), Some(c::LLVMGetOperand(i, 0)), c::LLVMGetOperand(i, 2))
            } else {
                (c::LLVMGetOperand(i, 0), None, c::LLVMGetOperand(i, 1))
            };
            let vty = match value {
                Some(v) => c::LLVMTypeOf(v),
                None => c::LLVMTypeOf(i),
            };
            let size = LLVMABISizeOfType(td, c::LLVMGetElementType(vty)) as i64;
            if steps.step(ptrs, 0) != Some(size) {
                continue;
            }
            c::LLVMPositionBuilderBefore(b, i);
            let lane0 = c::LLVMBuildExtractElement(b, ptrs, c::LLVMConstInt(c::LLVMInt32TypeInContext(cx), 0, 0), c"".as_ptr());
            let align = (c::LLVMConstIntGetZExtValue(align) as u32).max(1);
            match value {
                Some(v) => {
                    let st = c::LLVMBuildStore(b, v, lane0);
                    c::LLVMSetAlignment(st, align);
                }
                None => {
                    let ld = c::LLVMBuildLoad2(b, vty, lane0, c"".as_ptr());
                    c::LLVMSetAlignment(ld, align);
                    c::LLVMReplaceAllUsesWith(i, ld);
                }
            }
            c::LLVMInstructionEraseFromParent(i);
            changed += 1;
        }
        dispose(b);
        REWRITTEN.with(|c| c.set(c.get() + changed));
        changed > 0
    }
}

unsafe fn dispose(b: LLVMBuilderRef) {
    // SAFETY: a builder made by `rewrite`, not used after.
    unsafe { c::LLVMDisposeBuilder(b) }
}

/// The step between consecutive lanes of integer and pointer vectors (bytes for pointers).
struct Steps {
    td: LLVMTargetDataRef,
    memo: HashMap<LLVMValueRef, Option<i64>>,
}

impl Steps {
    /// The step of `v`: lane `k` is lane 0 plus `k` times it. `None` where not proven.
    unsafe fn step(&mut self, v: LLVMValueRef, depth: u32) -> Option<i64> {
        if depth > 24 {
            return None;
        }
        if let Some(s) = self.memo.get(&v) {
            return *s;
        }
        // SAFETY: `v` is a live value of the function `rewrite` works on.
        let s = unsafe { self.compute(v, depth) };
        self.memo.insert(v, s);
        s
    }

    unsafe fn compute(&mut self, v: LLVMValueRef, depth: u32) -> Option<i64> {
        // SAFETY: as `step`'s: live values of the function being rewritten.
        unsafe {
            let t = c::LLVMTypeOf(v);
            if !is_vector(t) {
                // A scalar operand (a GEP's base or index) is the same for every lane.
                return Some(0);
            }
            if splat_value(v).is_some() {
                return Some(0);
            }
            if c::LLVMIsConstant(v) != 0 {
                return const_step(v);
            }
            if !c::LLVMIsAShuffleVectorInst(v).is_null() {
                let n = c::LLVMGetNumMaskElements(v);
                return (0..n).all(|k| c::LLVMGetMaskValue(v, k) == 0).then_some(0);
            }
            if c::LLVMIsAInstruction(v).is_null() {
                return None;
            }
            let op = |k: u32| c::LLVMGetOperand(v, k);
            let d = depth + 1;
            use LLVMOpcode::*;
            match c::LLVMGetInstructionOpcode(v) {
                LLVMAdd => Some(self.step(op(0), d)?.wrapping_add(self.step(op(1), d)?)),
                LLVMOr if c::LLVMGetIsDisjoint(v) != 0 => Some(self.step(op(0), d)?.wrapping_add(self.step(op(1), d)?)),
                LLVMSub => Some(self.step(op(0), d)?.wrapping_sub(self.step(op(1), d)?)),
                LLVMShl => {
                    let k = splat_const(op(1))?;
                    (0..63).contains(&k).then_some(())?;
                    Some(self.step(op(0), d)?.wrapping_shl(k as u32))
                }
                LLVMMul => match (splat_const(op(0)), splat_const(op(1))) {
                    (_, Some(k)) => Some(self.step(op(0), d)?.wrapping_mul(k)),
                    (Some(k), _) => Some(self.step(op(1), d)?.wrapping_mul(k)),
                    _ => None,
                },
                LLVMZExt | LLVMSExt | LLVMTrunc => self.step(op(0), d),
                LLVMGetElementPtr => {
                    if c::LLVMGetNumOperands(v) != 2 {
                        return None;
                    }
                    let size = LLVMABISizeOfType(self.td, c::LLVMGetGEPSourceElementType(v)) as i64;
                    Some(self.step(op(0), d)?.wrapping_add(self.step(op(1), d)?.wrapping_mul(size)))
                }
                LLVMPHI => self.induction(v, d),
                _ => None,
            }
        }
    }

    /// A phi of two incoming values, one of them the phi plus a splat (the vectorizer's
    /// induction vectors): the step of the other.
    unsafe fn induction(&mut self, phi: LLVMValueRef, d: u32) -> Option<i64> {
        // SAFETY: as `step`'s: live values of the function being rewritten.
        unsafe {
            if c::LLVMCountIncoming(phi) != 2 {
                return None;
            }
            let (a, b) = (c::LLVMGetIncomingValue(phi, 0), c::LLVMGetIncomingValue(phi, 1));
            let advances = |x: LLVMValueRef| {
                !c::LLVMIsAInstruction(x).is_null()
                    && c::LLVMGetInstructionOpcode(x) == LLVMOpcode::LLVMAdd
                    && ((c::LLVMGetOperand(x, 0) == phi && splat_value(c::LLVMGetOperand(x, 1)).is_some())
                        || (c::LLVMGetOperand(x, 1) == phi && splat_value(c::LLVMGetOperand(x, 0)).is_some()))
            };
            // Provisionally unproven, so that the cycle through the phi ends.
            self.memo.insert(phi, None);
            if advances(b) {
                self.step(a, d)
            } else if advances(a) {
                self.step(b, d)
            } else {
                None
            }
        }
    }
}

/// The step of a constant integer vector whose lanes step evenly.
unsafe fn const_step(v: LLVMValueRef) -> Option<i64> {
    // SAFETY: `v` is a live constant vector.
    unsafe {
        let n = c::LLVMGetVectorSize(c::LLVMTypeOf(v));
        let lane = |k: u32| {
            let e = c::LLVMGetAggregateElement(v, k);
            if e.is_null() || c::LLVMIsAConstantInt(e).is_null() {
                None
            } else {
                Some(c::LLVMConstIntGetSExtValue(e))
            }
        };
        let first = lane(0)?;
        if n < 2 {
            return Some(0);
        }
        let s = lane(1)?.wrapping_sub(first);
        (2..n)
            .all(|k| lane(k) == Some(first.wrapping_add(s.wrapping_mul(i64::from(k)))))
            .then_some(s)
    }
}

/// The integer every lane of `v` holds, where `v` is a splat constant.
unsafe fn splat_const(v: LLVMValueRef) -> Option<i64> {
    // SAFETY: `v` is a live value.
    unsafe {
        let s = splat_value(v)?;
        (!c::LLVMIsAConstantInt(s).is_null()).then(|| c::LLVMConstIntGetSExtValue(s))
    }
}
