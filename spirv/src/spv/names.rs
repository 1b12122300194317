//! Names of SPIR-V enumerants: the grammar's constants (from `grammar`, generated from the
//! `spirv` crate), the few newer ones that grammar lacks, and the opcode names used in messages
//! ([`op_name`]).

use super::grammar;

pub use grammar::{
    access, addressing, addressing_model, builtin, cap, channel_order, channel_type, cl, deco, dim,
    exec_mode, exec_model, filter, group_op, image_format, linkage, memory_model, param_attr,
    rounding, scope, source_language, storage,
};

/// Opcodes: the grammar's, and newer vendor ones its version lacks.
pub mod op {
    pub use super::grammar::op::*;

    /// `OpArithmeticFenceEXT` (SPV_EXT_arithmetic_fence), opcode 6145.
    pub const ARITHMETIC_FENCE_EXT: u16 = 6145;
    /// `OpRoundFToTF32INTEL` (SPV_INTEL_tensor_float32_conversion), opcode 6426.
    pub const ROUND_F_TO_TF32_INTEL: u16 = 6426;
    /// `OpCompositeConstructContinuedINTEL` (SPV_INTEL_long_composites), opcode 6096.
    pub const COMPOSITE_CONSTRUCT_CONTINUED_INTEL: u16 = 6096;
}

/// Names of the opcodes [`op`] adds to the grammar's.
const EXTRA_OPS: &[(u16, &str)] = &[
    (op::ARITHMETIC_FENCE_EXT, "OpArithmeticFenceEXT"),
    (op::ROUND_F_TO_TF32_INTEL, "OpRoundFToTF32INTEL"),
    (
        op::COMPOSITE_CONSTRUCT_CONTINUED_INTEL,
        "OpCompositeConstructContinuedINTEL",
    ),
];

/// The name of opcode `op` (`OpFAdd`), from the grammar; `Op#N` for one it does not name.
pub fn op_name(op: u16) -> String {
    if let Some(o) = spirv::Op::from_u32(u32::from(op)) {
        return format!("Op{o:?}");
    }
    match EXTRA_OPS.iter().find(|e| e.0 == op) {
        Some((_, n)) => n.to_string(),
        None => format!("Op#{op}"),
    }
}
