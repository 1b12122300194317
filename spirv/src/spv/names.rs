//! Names of SPIR-V enumerants: the grammar's constants (from `grammar`, generated from the
//! `spirv` crate), the few newer ones that grammar lacks, and the opcode names used in messages
//! ([`op_name`]).

use super::grammar;

pub use grammar::{
    access, addressing, addressing_model, builtin, channel_order, channel_type, cl, deco, dim,
    exec_mode, exec_model, filter, group_op, image_format, linkage, memory_model, param_attr,
    rounding, scope, source_language, storage,
};

/// Capabilities: the grammar's, and newer ones (or newer names and numbers) its version lacks.
pub mod cap {
    pub use super::grammar::cap::*;

    /// `FloatControls2` (SPV_KHR_float_controls2), capability 6029.
    pub const FLOAT_CONTROLS2: u32 = 6029;
    /// `LongCompositesINTEL` (SPV_INTEL_long_composites), capability 6089: the crate's
    /// grammar names it `LongConstantCompositeINTEL`.
    pub const LONG_COMPOSITES_INTEL: u32 = 6089;
    /// `FastCompositeINTEL` (SPV_INTEL_fast_composite), capability 6093.
    pub const FAST_COMPOSITE_INTEL: u32 = 6093;
    /// `JointMatrixINTEL` (SPV_INTEL_joint_matrix), capability 6118.
    pub const JOINT_MATRIX_INTEL: u32 = 6118;
    /// `ArithmeticFenceEXT` (SPV_EXT_arithmetic_fence), capability 6144.
    pub const ARITHMETIC_FENCE_EXT: u32 = 6144;
    /// `GlobalVariableDecorationsINTEL`, capability 6146: the SPIR-V LLVM translator's earlier
    /// number for SPV_INTEL_global_variable_host_access (the crate's grammar has
    /// `GlobalVariableFPGADecorationsINTEL` there).
    pub const GLOBAL_VARIABLE_DECORATIONS_INTEL: u32 = 6146;
    /// `FPGAClusterAttributesV2INTEL` (SPV_INTEL_fpga_cluster_attributes), capability 6150.
    pub const FPGA_CLUSTER_ATTRIBUTES_V2_INTEL: u32 = 6150;
    /// `TaskSequenceINTEL` (SPV_INTEL_task_sequence), capability 6162.
    pub const TASK_SEQUENCE_INTEL: u32 = 6162;
    /// `GlobalVariableHostAccessINTEL` (SPV_INTEL_global_variable_host_access), capability 6187
    /// (6167 in the crate's grammar: this one shadows it).
    pub const GLOBAL_VARIABLE_HOST_ACCESS_INTEL: u32 = 6187;
    /// `GlobalVariableFPGADecorationsINTEL` (SPV_INTEL_global_variable_fpga_decorations),
    /// capability 6189 (6146 in the crate's grammar: this one shadows it).
    pub const GLOBAL_VARIABLE_FPGA_DECORATIONS_INTEL: u32 = 6189;
    /// `TensorFloat32RoundingINTEL` (SPV_INTEL_tensor_float32_conversion), capability 6425.
    pub const TENSOR_FLOAT32_ROUNDING_INTEL: u32 = 6425;
    /// `MaskedGatherScatterINTEL` (SPV_INTEL_masked_gather_scatter), capability 6427.
    pub const MASKED_GATHER_SCATTER_INTEL: u32 = 6427;
    /// `RegisterLimitsINTEL` (SPV_INTEL_maximum_registers), capability 6460.
    pub const REGISTER_LIMITS_INTEL: u32 = 6460;
}

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
