//! What Intel's DPC++ (SYCL) compiler, through the LLVM/SPIR-V translator, puts in ordinary
//! kernels for spir64 beyond what clang's OpenCL C does: capabilities that are only hints
//! (accepted, their decorations, execution modes and instructions read and ignored), the
//! instructions of those extensions that have a meaning (`OpExpectKHR`, `OpIsFinite`,
//! `OpSignBitSet`, `OpIsNormal`, `OpArithmeticFenceEXT`, the bfloat16 and tf32 conversions,
//! `OpBitcast` between vector shapes, `OpReadClockKHR`, the sub-group block reads and writes
//! of SPV_INTEL_subgroups, split barriers, `OpPtrDiff`/`OpPtrEqual`/`OpPtrNotEqual`), built-in
//! variables read through access chains, `HostAccessINTEL` variables exported by name, the KHR
//! uniform group instructions (lowered by [`Builder::group_op`] with the combining operations
//! of `frontend/nonuniform.rs`), and the capabilities refused by name. The LLVM intrinsics and
//! the integer instructions the translator makes of some are in `frontend/intrinsics.rs`.

use super::{Builder, Frame, Module, Val};
use crate::ir::{BinOp, CmpOp, ConvOp, MathFn, Op, Ty, Value};
use crate::spv::{cap, deco, op, scope, Inst, Type};
use crate::Error;

// Opcodes (SPIR-V registry; the extension that adds each in its comment).
/// `OpExtInst`.
const OP_EXT_INST: u16 = op::EXT_INST;
/// `OpDecorateId` (SPIR-V 1.2).
const OP_DECORATE_ID: u16 = op::DECORATE_ID;
/// `OpIsFinite`.
const OP_IS_FINITE: u16 = op::IS_FINITE;
/// `OpIsNormal`.
const OP_IS_NORMAL: u16 = op::IS_NORMAL;
/// `OpSignBitSet`.
const OP_SIGN_BIT_SET: u16 = op::SIGN_BIT_SET;
/// `OpBitcast`.
const OP_BITCAST: u16 = op::BITCAST;
/// `OpSubgroupBlockReadINTEL` (SPV_INTEL_subgroups, SubgroupBufferBlockIOINTEL).
const OP_SUBGROUP_BLOCK_READ_INTEL: u16 = op::SUBGROUP_BLOCK_READ_INTEL;
/// `OpSubgroupBlockWriteINTEL`.
const OP_SUBGROUP_BLOCK_WRITE_INTEL: u16 = op::SUBGROUP_BLOCK_WRITE_INTEL;
/// `OpPtrEqual` (SPIR-V 1.4).
const OP_PTR_EQUAL: u16 = op::PTR_EQUAL;
/// `OpPtrNotEqual`.
const OP_PTR_NOT_EQUAL: u16 = op::PTR_NOT_EQUAL;
/// `OpPtrDiff`.
const OP_PTR_DIFF: u16 = op::PTR_DIFF;
/// `OpControlBarrierArriveINTEL` (SPV_INTEL_split_barrier).
const OP_CONTROL_BARRIER_ARRIVE_INTEL: u16 = op::CONTROL_BARRIER_ARRIVE_INTEL;
/// `OpControlBarrierWaitINTEL`.
const OP_CONTROL_BARRIER_WAIT_INTEL: u16 = op::CONTROL_BARRIER_WAIT_INTEL;
/// `OpReadClockKHR` (SPV_KHR_shader_clock).
const OP_READ_CLOCK_KHR: u16 = op::READ_CLOCK_KHR;
/// `OpAssumeTrueKHR` (SPV_KHR_expect_assume).
const OP_ASSUME_TRUE_KHR: u16 = op::ASSUME_TRUE_KHR;
/// `OpExpectKHR` (SPV_KHR_expect_assume).
const OP_EXPECT_KHR: u16 = op::EXPECT_KHR;
/// `OpDecorateString` (SPIR-V 1.4, SPV_GOOGLE_decorate_string).
const OP_DECORATE_STRING: u16 = op::DECORATE_STRING;
/// `OpMemberDecorateString`.
const OP_MEMBER_DECORATE_STRING: u16 = op::MEMBER_DECORATE_STRING;
/// `OpLoopControlINTEL` (SPV_INTEL_unstructured_loop_controls).
const OP_LOOP_CONTROL_INTEL: u16 = op::LOOP_CONTROL_INTEL;
/// `OpAliasDomainDeclINTEL` (SPV_INTEL_memory_access_aliasing).
const OP_ALIAS_DOMAIN_DECL_INTEL: u16 = op::ALIAS_DOMAIN_DECL_INTEL;
/// `OpAliasScopeDeclINTEL`.
const OP_ALIAS_SCOPE_DECL_INTEL: u16 = op::ALIAS_SCOPE_DECL_INTEL;
/// `OpAliasScopeListDeclINTEL`.
const OP_ALIAS_SCOPE_LIST_DECL_INTEL: u16 = op::ALIAS_SCOPE_LIST_DECL_INTEL;
/// `OpConvertFToBF16INTEL` (SPV_INTEL_bfloat16_conversion).
const OP_CONVERT_F_TO_BF16_INTEL: u16 = op::CONVERT_F_TO_BF16_INTEL;
/// `OpConvertBF16ToFINTEL`.
const OP_CONVERT_BF16_TO_F_INTEL: u16 = op::CONVERT_BF16_TO_F_INTEL;
/// `OpArithmeticFenceEXT` (SPV_EXT_arithmetic_fence, was SPV_INTEL_arithmetic_fence).
const OP_ARITHMETIC_FENCE_EXT: u16 = op::ARITHMETIC_FENCE_EXT;
/// `OpRoundFToTF32INTEL` (SPV_INTEL_tensor_float32_conversion).
const OP_ROUND_F_TO_TF32_INTEL: u16 = op::ROUND_F_TO_TF32_INTEL;

// SPV_KHR_uniform_group_instructions: like `OpGroupIAdd` (scope, group operation, value).
/// `OpGroupIMulKHR`.
pub(super) const OP_GROUP_IMUL_KHR: u16 = op::GROUP_I_MUL_KHR;
/// `OpGroupFMulKHR`.
pub(super) const OP_GROUP_FMUL_KHR: u16 = op::GROUP_F_MUL_KHR;
/// `OpGroupBitwiseAndKHR`.
pub(super) const OP_GROUP_BITWISE_AND_KHR: u16 = op::GROUP_BITWISE_AND_KHR;
/// `OpGroupBitwiseOrKHR`.
const OP_GROUP_BITWISE_OR_KHR: u16 = op::GROUP_BITWISE_OR_KHR;
/// `OpGroupBitwiseXorKHR`.
const OP_GROUP_BITWISE_XOR_KHR: u16 = op::GROUP_BITWISE_XOR_KHR;
/// `OpGroupLogicalAndKHR`.
pub(super) const OP_GROUP_LOGICAL_AND_KHR: u16 = op::GROUP_LOGICAL_AND_KHR;
/// `OpGroupLogicalOrKHR`.
const OP_GROUP_LOGICAL_OR_KHR: u16 = op::GROUP_LOGICAL_OR_KHR;
/// `OpGroupLogicalXorKHR`.
pub(super) const OP_GROUP_LOGICAL_XOR_KHR: u16 = op::GROUP_LOGICAL_XOR_KHR;

/// Capabilities whose extensions are hints on a CPU (or whose instructions this module
/// implements): accepted.
pub(super) const ACCEPTED_CAPS: &[(u32, &str)] = &[
    (cap::DENORM_PRESERVE, "DenormPreserve"),
    (cap::DENORM_FLUSH_TO_ZERO, "DenormFlushToZero"),
    (cap::SIGNED_ZERO_INF_NAN_PRESERVE, "SignedZeroInfNanPreserve"),
    (cap::ROUNDING_MODE_RTE, "RoundingModeRTE"),
    (cap::ROUNDING_MODE_RTZ, "RoundingModeRTZ"),
    (cap::SHADER_CLOCK_KHR, "ShaderClockKHR"),
    (cap::SUBGROUP_BUFFER_BLOCK_IO_INTEL, "SubgroupBufferBlockIOINTEL"),
    (cap::ROUND_TO_INFINITY_INTEL, "RoundToInfinityINTEL"),
    (cap::FLOATING_POINT_MODE_INTEL, "FloatingPointModeINTEL"),
    (cap::INDIRECT_REFERENCES_INTEL, "IndirectReferencesINTEL"),
    (cap::EXPECT_ASSUME_KHR, "ExpectAssumeKHR"),
    (cap::FUNCTION_FLOAT_CONTROL_INTEL, "FunctionFloatControlINTEL"),
    (cap::FP_FAST_MATH_MODE_INTEL, "FPFastMathModeINTEL"),
    (cap::UNSTRUCTURED_LOOP_CONTROLS_INTEL, "UnstructuredLoopControlsINTEL"),
    (cap::KERNEL_ATTRIBUTES_INTEL, "KernelAttributesINTEL"),
    (cap::MEMORY_ACCESS_ALIASING_INTEL, "MemoryAccessAliasingINTEL"),
    (cap::BIT_INSTRUCTIONS, "BitInstructions"),
    (cap::GROUP_NON_UNIFORM_ROTATE_KHR, "GroupNonUniformRotateKHR"),
    (cap::FLOAT_CONTROLS2, "FloatControls2"),
    (cap::LONG_COMPOSITES_INTEL, "LongCompositesINTEL"),
    (cap::FAST_COMPOSITE_INTEL, "FastCompositeINTEL"),
    (cap::OPT_NONE_INTEL, "OptNoneINTEL"),
    (cap::B_FLOAT16_CONVERSION_INTEL, "BFloat16ConversionINTEL"),
    (cap::SPLIT_BARRIER_INTEL, "SplitBarrierINTEL"),
    (cap::ARITHMETIC_FENCE_EXT, "ArithmeticFenceEXT"),
    (cap::GLOBAL_VARIABLE_DECORATIONS_INTEL, "GlobalVariableDecorationsINTEL"),
    (cap::FP_MAX_ERROR_INTEL, "FPMaxErrorINTEL"),
    (cap::GLOBAL_VARIABLE_HOST_ACCESS_INTEL, "GlobalVariableHostAccessINTEL"),
    (cap::GROUP_UNIFORM_ARITHMETIC_KHR, "GroupUniformArithmeticKHR"),
    (cap::TENSOR_FLOAT32_ROUNDING_INTEL, "TensorFloat32RoundingINTEL"),
    (cap::CACHE_CONTROLS_INTEL, "CacheControlsINTEL"),
    (cap::REGISTER_LIMITS_INTEL, "RegisterLimitsINTEL"),
];

/// Capabilities of extensions with no meaning on a CPU (FPGA, media and motion-estimation
/// hardware, vector compute, inline assembly): refused by name.
const NO_CPU_MEANING: &[(u32, &str)] = &[
    (cap::SUBGROUP_IMAGE_MEDIA_BLOCK_IO_INTEL, "SubgroupImageMediaBlockIOINTEL"),
    (cap::ASM_INTEL, "AsmINTEL"),
    (cap::VECTOR_COMPUTE_INTEL, "VectorComputeINTEL"),
    (cap::VECTOR_ANY_INTEL, "VectorAnyINTEL"),
    (cap::SUBGROUP_AVC_MOTION_ESTIMATION_INTEL, "SubgroupAvcMotionEstimationINTEL"),
    (cap::SUBGROUP_AVC_MOTION_ESTIMATION_INTRA_INTEL, "SubgroupAvcMotionEstimationIntraINTEL"),
    (cap::SUBGROUP_AVC_MOTION_ESTIMATION_CHROMA_INTEL, "SubgroupAvcMotionEstimationChromaINTEL"),
    (cap::FPGA_MEMORY_ATTRIBUTES_INTEL, "FPGAMemoryAttributesINTEL"),
    (cap::ARBITRARY_PRECISION_INTEGERS_INTEL, "ArbitraryPrecisionIntegersINTEL"),
    (cap::ARBITRARY_PRECISION_FLOATING_POINT_INTEL, "ArbitraryPrecisionFloatingPointINTEL"),
    (cap::FPGA_LOOP_CONTROLS_INTEL, "FPGALoopControlsINTEL"),
    (cap::FPGA_KERNEL_ATTRIBUTES_INTEL, "FPGAKernelAttributesINTEL"),
    (cap::FPGA_MEMORY_ACCESSES_INTEL, "FPGAMemoryAccessesINTEL"),
    (cap::FPGA_CLUSTER_ATTRIBUTES_INTEL, "FPGAClusterAttributesINTEL"),
    (cap::LOOP_FUSE_INTEL, "LoopFuseINTEL"),
    (cap::FPGADSP_CONTROL_INTEL, "FPGADSPControlINTEL"),
    (cap::FPGA_INVOCATION_PIPELINING_ATTRIBUTES_INTEL, "FPGAInvocationPipeliningAttributesINTEL"),
    (cap::FPGA_BUFFER_LOCATION_INTEL, "FPGABufferLocationINTEL"),
    (cap::ARBITRARY_PRECISION_FIXED_POINT_INTEL, "ArbitraryPrecisionFixedPointINTEL"),
    (cap::USM_STORAGE_CLASSES_INTEL, "USMStorageClassesINTEL"),
    (cap::RUNTIME_ALIGNED_ATTRIBUTE_INTEL, "RuntimeAlignedAttributeINTEL"),
    (cap::IO_PIPES_INTEL, "IOPipesINTEL"),
    (cap::BLOCKING_PIPES_INTEL, "BlockingPipesINTEL"),
    (cap::FPGA_REG_INTEL, "FPGARegINTEL"),
    (cap::FPGA_CLUSTER_ATTRIBUTES_V2_INTEL, "FPGAClusterAttributesV2INTEL"),
    (cap::FPGA_KERNEL_ATTRIBUTESV2_INTEL, "FPGAKernelAttributesv2INTEL"),
    (cap::TASK_SEQUENCE_INTEL, "TaskSequenceINTEL"),
    (cap::FPGA_LATENCY_CONTROL_INTEL, "FPGALatencyControlINTEL"),
    (cap::FPGA_ARGUMENT_INTERFACES_INTEL, "FPGAArgumentInterfacesINTEL"),
    (cap::GLOBAL_VARIABLE_FPGA_DECORATIONS_INTEL, "GlobalVariableFPGADecorationsINTEL"),
];

/// Other capabilities named in refusals (not implemented).
const OTHER_CAPS: &[(u32, &str)] = &[
    (cap::MATRIX, "Matrix"),
    (cap::SHADER, "Shader"),
    (cap::GEOMETRY, "Geometry"),
    (cap::TESSELLATION, "Tessellation"),
    (cap::IMAGE_MIPMAP, "ImageMipmap"),
    (cap::PIPES, "Pipes"),
    (cap::DEVICE_ENQUEUE, "DeviceEnqueue"),
    (cap::IMAGE_GATHER_EXTENDED, "ImageGatherExtended"),
    (cap::STORAGE_IMAGE_MULTISAMPLE, "StorageImageMultisample"),
    (cap::STORAGE_IMAGE_EXTENDED_FORMATS, "StorageImageExtendedFormats"),
    (cap::NAMED_BARRIER, "NamedBarrier"),
    (cap::PIPE_STORAGE, "PipeStorage"),
    (cap::GROUP_NON_UNIFORM_QUAD, "GroupNonUniformQuad"),
    (cap::SUBGROUP_BALLOT_KHR, "SubgroupBallotKHR"),
    (cap::VARIABLE_POINTERS_STORAGE_BUFFER, "VariablePointersStorageBuffer"),
    (cap::VARIABLE_POINTERS, "VariablePointers"),
    (cap::FLOAT16_IMAGE_AMD, "Float16ImageAMD"),
    (cap::INT64_IMAGE_EXT, "Int64ImageEXT"),
    (cap::SUBGROUP_IMAGE_BLOCK_IO_INTEL, "SubgroupImageBlockIOINTEL"),
    (cap::ATOMIC_FLOAT16_MIN_MAX_EXT, "AtomicFloat16MinMaxEXT"),
    (cap::VARIABLE_LENGTH_ARRAY_INTEL, "VariableLengthArrayINTEL"),
    (cap::DOT_PRODUCT_INPUT_ALL, "DotProductInputAll"),
    (cap::DOT_PRODUCT, "DotProduct"),
    (cap::COOPERATIVE_MATRIX_KHR, "CooperativeMatrixKHR"),
    (cap::ATOMIC_FLOAT16_ADD_EXT, "AtomicFloat16AddEXT"),
    (cap::DEBUG_INFO_MODULE_INTEL, "DebugInfoModuleINTEL"),
    (cap::JOINT_MATRIX_INTEL, "JointMatrixINTEL"),
    (cap::MASKED_GATHER_SCATTER_INTEL, "MaskedGatherScatterINTEL"),
];

/// The name of capability `c`, if it is one the compiler knows.
pub(super) fn cap_name(c: u32) -> Option<&'static str> {
    [ACCEPTED_CAPS, NO_CPU_MEANING, OTHER_CAPS, super::SUPPORTED_CAPS]
        .iter()
        .flat_map(|t| t.iter())
        .find(|e| e.0 == c)
        .map(|e| e.1)
}

/// The error refusing capability `c` (not accepted), naming it where it is known.
pub(super) fn refuse_capability(c: u32) -> Error {
    if let Some((_, n)) = NO_CPU_MEANING.iter().find(|e| e.0 == c) {
        return Error::unsupported(format!("capability {n} ({c}) has no meaning on a CPU"));
    }
    match cap_name(c) {
        Some(n) => Error::unsupported(format!("capability {n} ({c})")),
        None => Error::unsupported(format!("capability {c}")),
    }
}

/// `HostAccessINTEL` (SPV_INTEL_global_variable_host_access): access, then the name by which
/// the host finds a program-scope variable (SYCL's `device_global`).
const DECORATION_HOST_ACCESS_INTEL: u32 = deco::HOST_ACCESS_INTEL;
/// The same decoration under the translator's earlier, internal number (capability 6146,
/// `GlobalVariableDecorationsINTEL`), where 6147 with one literal is `InitModeINTEL`.
const DECORATION_HOST_ACCESS_INTEL_OLD: u32 = 6147;

/// The name a `HostAccessINTEL` decoration gives variable `id`, under which it is exported
/// (so that `zeModuleGetGlobalPointer` finds a `device_global`).
pub(super) fn host_access_name(m: &Module, id: u32) -> Result<Option<String>, Error> {
    for d in m.decos.get(&id).into_iter().flatten() {
        let old = d.0 == DECORATION_HOST_ACCESS_INTEL_OLD && d.1.len() > 1;
        if d.0 == DECORATION_HOST_ACCESS_INTEL || old {
            let w = Inst {
                op: op::DECORATE,
                ops: d.1.clone(),
            };
            return Ok(Some(w.string(1)?.0));
        }
    }
    Ok(None)
}

/// Extended instruction sets whose instructions do not change what a kernel computes
/// (SPV_KHR_non_semantic_info's `NonSemantic.*`, and the debug information sets): their
/// `OpExtInst`s are ignored.
pub(super) fn ignored_set(name: &str) -> bool {
    name.starts_with("NonSemantic.") || name == "OpenCL.DebugInfo.100" || name == "SPIRV.Debug"
}

/// Module-scope instructions read and ignored: decorations with id or string operands
/// (`AliasScopeINTEL`/`NoAliasINTEL` through `OpDecorateId`, `UserSemantic`), the alias
/// domain, scope and scope-list declarations, and the `OpExtInst`s of ignored sets.
pub(super) fn module_ignored(m: &Module, i: &Inst) -> Result<bool, Error> {
    Ok(match i.op {
        OP_DECORATE_ID
        | OP_DECORATE_STRING
        | OP_MEMBER_DECORATE_STRING
        | OP_ALIAS_DOMAIN_DECL_INTEL
        | OP_ALIAS_SCOPE_DECL_INTEL
        | OP_ALIAS_SCOPE_LIST_DECL_INTEL => true,
        OP_EXT_INST => {
            if !m.ignored_sets.contains(&i.w(2)?) {
                return Err(Error::unsupported(
                    "OpExtInst at module scope of a set other than NonSemantic.* and the debug information sets",
                ));
            }
            true
        }
        _ => false,
    })
}

/// The KHR uniform group instruction `op` as its `OpGroupNonUniform*` twin (whose combining
/// operation and identity `frontend/nonuniform.rs` has), or an `OpGroup*` one as its twin.
pub(super) fn group_twin(op: u16) -> u16 {
    match op {
        op::GROUP_I_ADD => op::GROUP_NON_UNIFORM_I_ADD,
        op::GROUP_F_ADD => op::GROUP_NON_UNIFORM_F_ADD,
        op::GROUP_F_MIN => op::GROUP_NON_UNIFORM_F_MIN,
        op::GROUP_U_MIN => op::GROUP_NON_UNIFORM_U_MIN,
        op::GROUP_S_MIN => op::GROUP_NON_UNIFORM_S_MIN,
        op::GROUP_F_MAX => op::GROUP_NON_UNIFORM_F_MAX,
        op::GROUP_U_MAX => op::GROUP_NON_UNIFORM_U_MAX,
        op::GROUP_S_MAX => op::GROUP_NON_UNIFORM_S_MAX,
        OP_GROUP_IMUL_KHR => op::GROUP_NON_UNIFORM_I_MUL,
        OP_GROUP_FMUL_KHR => op::GROUP_NON_UNIFORM_F_MUL,
        OP_GROUP_BITWISE_AND_KHR => op::GROUP_NON_UNIFORM_BITWISE_AND,
        OP_GROUP_BITWISE_OR_KHR => op::GROUP_NON_UNIFORM_BITWISE_OR,
        OP_GROUP_BITWISE_XOR_KHR => op::GROUP_NON_UNIFORM_BITWISE_XOR,
        OP_GROUP_LOGICAL_AND_KHR => op::GROUP_NON_UNIFORM_LOGICAL_AND,
        OP_GROUP_LOGICAL_OR_KHR => op::GROUP_NON_UNIFORM_LOGICAL_OR,
        _ => op::GROUP_NON_UNIFORM_LOGICAL_XOR,
    }
}

/// Group instructions on booleans with a group operation (the logical KHR ones).
pub(super) fn group_logical(op: u16) -> bool {
    (OP_GROUP_LOGICAL_AND_KHR..=OP_GROUP_LOGICAL_XOR_KHR).contains(&op)
}

/// Group instructions on floats.
pub(super) fn group_float(op: u16) -> bool {
    matches!(op, op::GROUP_F_ADD | op::GROUP_F_MIN | op::GROUP_F_MAX | OP_GROUP_FMUL_KHR)
}

/// Bits of a SPIR-V scalar type (pointers: 64).
fn scalar_bits(m: &Module, ty: u32) -> Result<u32, Error> {
    match m.ty(ty)? {
        Type::Int(b) | Type::Float(b) => Ok(*b),
        Type::Pointer(..) => Ok(64),
        t => Err(Error::invalid(format!("OpBitcast of {t:?}"))),
    }
}

fn int_of_bits(bits: u32) -> Ty {
    match bits {
        8 => Ty::I8,
        16 => Ty::I16,
        32 => Ty::I32,
        _ => Ty::I64,
    }
}

impl Builder<'_> {
    /// The instructions of this module (see the module's comment). `None`: not one of them
    /// (a vector `OpIsFinite`, `OpIsNormal` or `OpSignBitSet` goes element by element).
    pub(super) fn dpcpp_inst(&mut self, fr: &mut Frame, i: &Inst) -> Result<Option<bool>, Error> {
        let m = self.m;
        match i.op {
            OP_EXT_INST if m.ignored_sets.contains(&i.w(2)?) => {}
            OP_ASSUME_TRUE_KHR
            | OP_LOOP_CONTROL_INTEL
            | OP_ALIAS_DOMAIN_DECL_INTEL
            | OP_ALIAS_SCOPE_DECL_INTEL
            | OP_ALIAS_SCOPE_LIST_DECL_INTEL => {}
            OP_EXPECT_KHR | OP_ARITHMETIC_FENCE_EXT => {
                let (v, ty) = self.get(fr, i.w(2)?)?;
                if ty != i.w(0)? {
                    return Err(Error::invalid(format!(
                        "{}: the operand's type is not the result's",
                        crate::spv::op_name(i.op)
                    )));
                }
                fr.vals.insert(i.w(1)?, (v, ty));
            }
            OP_IS_FINITE | OP_IS_NORMAL | OP_SIGN_BIT_SET => {
                if m.vector(i.w(0)?).is_some() {
                    return Ok(None);
                }
                let (x, xty) = self.get(fr, i.w(2)?)?;
                let Val::V(x) = x else {
                    return Err(Error::invalid("OpIsFinite: a vector operand of a scalar result"));
                };
                let v = self.float_class(i.op, x, m.is_half(xty))?;
                fr.vals.insert(i.w(1)?, (Val::V(v), i.w(0)?));
            }
            OP_BITCAST if matches!(self.get(fr, i.w(2)?)?.0, Val::BVar(_) | Val::BPtr(..)) => {
                // A pointer into a built-in variable keeps its place, whatever it points to.
                let (v, sty) = self.get(fr, i.w(2)?)?;
                let v = match v {
                    Val::BVar(b) => Val::BPtr(b, 0, self.builtin_element_bytes(sty)?),
                    v => v,
                };
                fr.vals.insert(i.w(1)?, (v, i.w(0)?));
            }
            OP_BITCAST => {
                let sty = self.type_of(fr, i.w(2)?);
                if m.vector(i.w(0)?).is_none() && sty.and_then(|t| m.vector(t)).is_none() {
                    return Ok(None);
                }
                self.vector_bitcast(fr, i)?;
            }
            OP_CONVERT_F_TO_BF16_INTEL | OP_CONVERT_BF16_TO_F_INTEL | OP_ROUND_F_TO_TF32_INTEL => {
                let (xs, _) = self.elems(fr, i.w(2)?)?;
                let mut out = Vec::new();
                for x in xs {
                    out.push(self.narrow_float(i.op, x)?);
                }
                let n = m.vector(i.w(0)?).map_or(1, |v| v.1) as usize;
                let want = m.ir_ty(m.vector(i.w(0)?).map_or(i.w(0)?, |v| v.0))?;
                if out.len() != n || m.is_half(i.w(0)?) || out.iter().any(|v| self.k.ty(*v) != want)
                {
                    return Err(Error::invalid(format!(
                        "{}: result of the wrong type",
                        crate::spv::op_name(i.op)
                    )));
                }
                let v = self.pack(i.w(0)?, out);
                fr.vals.insert(i.w(1)?, (v, i.w(0)?));
            }
            OP_SUBGROUP_BLOCK_READ_INTEL | OP_SUBGROUP_BLOCK_WRITE_INTEL => {
                self.block_io(fr, i)?;
            }
            OP_PTR_EQUAL | OP_PTR_NOT_EQUAL | OP_PTR_DIFF => {
                let (a, b) = (self.val(fr, i.w(2)?)?, self.val(fr, i.w(3)?)?);
                self.pointer(a, i.op)?;
                self.pointer(b, i.op)?;
                let v = if i.op == OP_PTR_DIFF {
                    // In elements of the pointee type.
                    let pointee = match self.type_of(fr, i.w(2)?).map(|t| m.ty(t)) {
                        Some(Ok(Type::Pointer(_, p))) => *p,
                        _ => return Err(Error::invalid("OpPtrDiff of a non-pointer")),
                    };
                    let (size, _) = m.layout(pointee)?;
                    let rt = m.ir_ty(i.w(0)?)?;
                    if size == 0 || rt.is_float() || rt == Ty::Bool {
                        return Err(Error::invalid("OpPtrDiff: no element size or a non-integer result"));
                    }
                    let d = self.push(Ty::I64, Op::Bin(BinOp::Sub, a, b));
                    let s = self.push(Ty::I64, Op::Const(size));
                    let q = self.push(Ty::I64, Op::Bin(BinOp::SDiv, d, s));
                    self.resize(q, rt)
                } else {
                    let c = if i.op == OP_PTR_EQUAL { CmpOp::Eq } else { CmpOp::Ne };
                    self.push(Ty::Bool, Op::Cmp(c, a, b))
                };
                fr.vals.insert(i.w(1)?, (Val::V(v), i.w(0)?));
            }
            // A split barrier: arriving does nothing, waiting is the barrier (every work-item
            // arrives before it waits, and the wait lets none past until all arrived).
            OP_CONTROL_BARRIER_ARRIVE_INTEL => {}
            OP_CONTROL_BARRIER_WAIT_INTEL => match m.const_scalar(i.w(0)?)? {
                scope::WORKGROUP => self.effect(Op::Barrier),
                scope::SUBGROUP => self.effect(Op::SubgroupBarrier),
                s => {
                    return Err(Error::unsupported(format!(
                        "OpControlBarrierWaitINTEL in scope {s}"
                    )))
                }
            },
            OP_READ_CLOCK_KHR => {
                let t = self.push(Ty::I64, Op::Math(MathFn::ReadClock, vec![]));
                let v = match m.vector(i.w(0)?) {
                    Some((e, 2)) if m.ir_ty(e)? == Ty::I32 => {
                        let lo = self.push(Ty::I32, Op::Conv(ConvOp::UResize, t));
                        let s = self.push(Ty::I64, Op::Const(32));
                        let h = self.push(Ty::I64, Op::Bin(BinOp::LShr, t, s));
                        let hi = self.push(Ty::I32, Op::Conv(ConvOp::UResize, h));
                        Val::Vec(vec![lo, hi])
                    }
                    None if m.ir_ty(i.w(0)?)? == Ty::I64 => Val::V(t),
                    _ => {
                        return Err(Error::invalid(
                            "OpReadClockKHR of a type other than a 64-bit integer or two 32-bit ones",
                        ))
                    }
                };
                fr.vals.insert(i.w(1)?, (v, i.w(0)?));
            }
            _ => return Ok(None),
        }
        Ok(Some(false))
    }

    /// `OpIsFinite`, `OpIsNormal` or `OpSignBitSet` of the float `x` (a half carried as f32
    /// when `half`).
    fn float_class(&mut self, op: u16, x: Value, half: bool) -> Result<Value, Error> {
        let t = self.k.ty(x);
        if !t.is_float() {
            return Err(Error::invalid(format!(
                "{} of a non-float",
                crate::spv::op_name(op)
            )));
        }
        let c = |s: &mut Self, v: f64| {
            let bits = if t == Ty::F32 {
                u64::from((v as f32).to_bits())
            } else {
                v.to_bits()
            };
            s.push(t, Op::Const(bits))
        };
        if op == OP_SIGN_BIT_SET {
            let it = if t == Ty::F32 { Ty::I32 } else { Ty::I64 };
            let b = self.push(it, Op::Conv(ConvOp::Bitcast, x));
            let zero = self.push(it, Op::Const(0));
            return Ok(self.push(Ty::Bool, Op::Cmp(CmpOp::SLt, b, zero)));
        }
        let a = self.push(t, Op::Math(MathFn::Fabs, vec![x]));
        let inf = c(self, f64::INFINITY);
        let finite = self.push(Ty::Bool, Op::Cmp(CmpOp::FLt, a, inf));
        if op == OP_IS_FINITE {
            return Ok(finite);
        }
        let min = if half {
            2f64.powi(-14)
        } else if t == Ty::F32 {
            f64::from(f32::MIN_POSITIVE)
        } else {
            f64::MIN_POSITIVE
        };
        let min = c(self, min);
        let big = self.push(Ty::Bool, Op::Cmp(CmpOp::FGe, a, min));
        Ok(self.push(Ty::Bool, Op::Bin(BinOp::And, finite, big)))
    }

    /// The bfloat16 conversions (to nearest even; a NaN stays a quiet NaN) and the rounding
    /// of a float to tf32 precision (10 fraction bits, to nearest even), of one element.
    fn narrow_float(&mut self, op: u16, x: Value) -> Result<Value, Error> {
        let xt = self.k.ty(x);
        let c = |s: &mut Self, v: u64| s.push(Ty::I32, Op::Const(v));
        if op == OP_CONVERT_BF16_TO_F_INTEL {
            if xt != Ty::I16 {
                return Err(Error::invalid(
                    "OpConvertBF16ToFINTEL of a non-16-bit integer",
                ));
            }
            let w = self.push(Ty::I32, Op::Conv(ConvOp::UResize, x));
            let sixteen = c(self, 16);
            let b = self.push(Ty::I32, Op::Bin(BinOp::Shl, w, sixteen));
            return Ok(self.push(Ty::F32, Op::Conv(ConvOp::Bitcast, b)));
        }
        if xt != Ty::F32 {
            return Err(Error::invalid(format!(
                "{} of a value other than a 32-bit float",
                crate::spv::op_name(op)
            )));
        }
        let bits = self.push(Ty::I32, Op::Conv(ConvOp::Bitcast, x));
        let nan = self.push(Ty::Bool, Op::Cmp(CmpOp::FUnord, x, x));
        // Dropped fraction bits: 16 for bfloat16, 13 for tf32.
        let drop: u64 = if op == OP_CONVERT_F_TO_BF16_INTEL { 16 } else { 13 };
        let d = c(self, drop);
        let kept = self.push(Ty::I32, Op::Bin(BinOp::LShr, bits, d));
        let one = c(self, 1);
        let lsb = self.push(Ty::I32, Op::Bin(BinOp::And, kept, one));
        let half = c(self, (1 << (drop - 1)) - 1);
        let b1 = self.push(Ty::I32, Op::Bin(BinOp::Add, bits, half));
        let b2 = self.push(Ty::I32, Op::Bin(BinOp::Add, b1, lsb));
        // A NaN keeps its high bits with the quiet bit set.
        let quiet = c(self, 1 << 22);
        let qnan = self.push(Ty::I32, Op::Bin(BinOp::Or, bits, quiet));
        let r = self.push(Ty::I32, Op::Select(nan, qnan, b2));
        if op == OP_CONVERT_F_TO_BF16_INTEL {
            let top = self.push(Ty::I32, Op::Bin(BinOp::LShr, r, d));
            Ok(self.push(Ty::I16, Op::Conv(ConvOp::UResize, top)))
        } else {
            let mask = c(self, u64::from(u32::MAX << drop));
            let t = self.push(Ty::I32, Op::Bin(BinOp::And, r, mask));
            Ok(self.push(Ty::F32, Op::Conv(ConvOp::Bitcast, t)))
        }
    }

    /// The size of the elements of a built-in variable of pointer type `pty` (a vector's
    /// elements, or the scalar).
    fn builtin_element_bytes(&self, pty: u32) -> Result<u32, Error> {
        let m = self.m;
        let pointee = match m.ty(pty)? {
            Type::Pointer(_, p) => *p,
            _ => return Err(Error::invalid("a built-in variable that is not a pointer")),
        };
        let e = m.vector(pointee).map_or(pointee, |v| v.0);
        Ok(m.layout(e)?.0 as u32)
    }

    /// An access chain into a built-in variable (LLVM's InstCombine turns an element of a
    /// loaded built-in vector into a load through such a chain, `i8` offsets included): the
    /// place it names, from constant indices.
    pub(super) fn builtin_chain(
        &mut self,
        fr: &mut Frame,
        i: &Inst,
        base: Val,
        bty: u32,
    ) -> Result<(), Error> {
        let m = self.m;
        let (b, mut off, size) = match base {
            Val::BVar(b) => (b, 0, self.builtin_element_bytes(bty)?),
            Val::BPtr(b, off, size) => (b, u64::from(off), size),
            _ => return Err(Error::unsupported("access chains into built-in values")),
        };
        let constant = |id: u32| {
            m.const_scalar(id).map_err(|_| {
                Error::unsupported("an access chain into a built-in variable with a run-time index")
            })
        };
        let mut ty = match m.ty(bty)? {
            Type::Pointer(_, p) => *p,
            _ => return Err(Error::invalid("an access chain whose base is not a pointer")),
        };
        let mut idx = 3;
        if matches!(i.op, op::PTR_ACCESS_CHAIN | op::IN_BOUNDS_PTR_ACCESS_CHAIN) {
            let (s, _) = m.layout(ty)?;
            off = off.wrapping_add(constant(i.w(3)?)?.wrapping_mul(s));
            idx = 4;
        }
        for &ix in i.ops.get(idx..).unwrap_or(&[]) {
            let k = constant(ix)?;
            match m.ty(ty)?.clone() {
                Type::Struct(members, packed) => {
                    let n = usize::try_from(k).unwrap_or(usize::MAX);
                    off = off.wrapping_add(m.member_offset(&members, packed, n)?);
                    ty = members[n];
                }
                Type::Array(e, _) | Type::Vector(e, _) => {
                    off = off.wrapping_add(k.wrapping_mul(m.layout(e)?.0));
                    ty = e;
                }
                t => return Err(Error::invalid(format!("an access chain into {t:?}"))),
            }
        }
        if off >= 3 * u64::from(size) {
            return Err(Error::invalid("an access chain past the end of a built-in variable"));
        }
        fr.vals.insert(i.w(1)?, (Val::BPtr(b, off as u32, size), i.w(0)?));
        Ok(())
    }

    /// A load through a pointer into a built-in variable: the component there (a vector at
    /// offset 0: the whole built-in; a narrower integer: the component's low bits).
    pub(super) fn builtin_ptr_load(
        &mut self,
        b: crate::ir::Builtin,
        off: u32,
        size: u32,
        ty: u32,
    ) -> Result<Val, Error> {
        let m = self.m;
        if m.vector(ty).is_some() {
            if off != 0 {
                return Err(Error::unsupported("a vector load inside a built-in variable"));
            }
            return Ok(Val::BVec(b));
        }
        let t = m.ir_ty(ty)?;
        if size == 0 || !off.is_multiple_of(size) || t.bytes() > size {
            return Err(Error::unsupported(
                "a load of part of a built-in variable's element other than its low bits",
            ));
        }
        let x = self.push(Ty::I64, Op::Builtin(b, (off / size) as u8));
        Ok(Val::V(self.builtin_resize(x, t)?))
    }

    /// Sub-group block reads and writes (SPV_INTEL_subgroups): element `k` of the value of
    /// the work-item with sub-group local id `l` is at `ptr[l + k * max sub-group size]`, as
    /// `cl_intel_subgroups` has it; each work-item moves its own elements (no exchange).
    fn block_io(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let m = self.m;
        let read = i.op == OP_SUBGROUP_BLOCK_READ_INTEL;
        let (ptr, data_ty) = if read {
            (self.val(fr, i.w(2)?)?, i.w(0)?)
        } else {
            let ty = self
                .type_of(fr, i.w(1)?)
                .ok_or_else(|| Error::invalid("OpSubgroupBlockWriteINTEL of an unknown value"))?;
            (self.val(fr, i.w(0)?)?, ty)
        };
        self.pointer(ptr, i.op)?;
        let (e, n) = m.vector(data_ty).unwrap_or((data_ty, 1));
        let t = m.ir_ty(e)?;
        if t.is_float() || t == Ty::Bool || m.is_half(e) {
            return Err(Error::invalid(format!(
                "{} of a type other than integers",
                crate::spv::op_name(i.op)
            )));
        }
        let l = self.push(Ty::I64, Op::Builtin(crate::ir::Builtin::SubgroupLocalId, 0));
        let max = self.push(Ty::I64, Op::Builtin(crate::ir::Builtin::SubgroupMaxSize, 0));
        let size = self.push(Ty::I64, Op::Const(u64::from(t.bytes())));
        let stride = self.push(Ty::I64, Op::Bin(BinOp::Mul, max, size));
        let first = self.push(Ty::I64, Op::Bin(BinOp::Mul, l, size));
        let mut addr = self.push(Ty::I64, Op::Bin(BinOp::Add, ptr, first));
        let values = if read {
            Vec::new()
        } else {
            self.elems(fr, i.w(1)?)?.0
        };
        if !read && (values.len() != n as usize || values.iter().any(|v| self.k.ty(*v) != t)) {
            return Err(Error::invalid("OpSubgroupBlockWriteINTEL: data of the wrong type"));
        }
        let mut out = Vec::new();
        for k in 0..n as usize {
            if k > 0 {
                addr = self.push(Ty::I64, Op::Bin(BinOp::Add, addr, stride));
            }
            match values.get(k) {
                Some(&value) => self.effect(Op::Store { addr, value }),
                None => out.push(self.push(t, Op::Load(addr))),
            }
        }
        if read {
            let v = self.pack(data_ty, out);
            fr.vals.insert(i.w(1)?, (v, data_ty));
        }
        Ok(())
    }

    /// `OpBitcast` where the result or the operand is a vector: the operand's elements as
    /// integers, laid end to end (the first element in the low bits), cut into the result's
    /// elements. Both must have the same total width.
    fn vector_bitcast(&mut self, fr: &mut Frame, i: &Inst) -> Result<(), Error> {
        let m = self.m;
        let (xs, sty) = self.elems(fr, i.w(2)?)?;
        let rty = i.w(0)?;
        let (se, sn) = m.vector(sty).unwrap_or((sty, 1));
        let (re, rn) = m.vector(rty).unwrap_or((rty, 1));
        let (sb, rb) = (scalar_bits(m, se)?, scalar_bits(m, re)?);
        if sb * sn != rb * rn || xs.len() != sn as usize {
            return Err(Error::invalid("OpBitcast between types of different sizes"));
        }
        let (s_half, r_half) = (m.is_half(se), m.is_half(re));
        let (sit, rit) = (int_of_bits(sb), int_of_bits(rb));
        // The operand's elements as integers of their width.
        let mut ints = Vec::new();
        for x in xs {
            let t = self.k.ty(x);
            let v = if s_half && t == Ty::F32 {
                self.push(Ty::I16, Op::Conv(ConvOp::FToF16(crate::ir::Round::Rte), x))
            } else if t.is_float() && t.bytes() * 8 == sb {
                self.push(sit, Op::Conv(ConvOp::Bitcast, x))
            } else if !t.is_float() && t != Ty::Bool && t.bytes() * 8 == sb {
                x
            } else {
                return Err(Error::invalid("OpBitcast: operand of the wrong type"));
            };
            ints.push(v);
        }
        let mut out = Vec::new();
        for j in 0..rn {
            let v = if rb >= sb {
                // Several operand elements make one result element.
                let ratio = rb / sb;
                let mut acc: Option<Value> = None;
                for k in 0..ratio {
                    let part = ints[(j * ratio + k) as usize];
                    let w = self.resize(part, rit);
                    let w = if k == 0 {
                        w
                    } else {
                        let s = self.push(rit, Op::Const(u64::from(k * sb)));
                        self.push(rit, Op::Bin(BinOp::Shl, w, s))
                    };
                    acc = Some(match acc {
                        Some(a) => self.push(rit, Op::Bin(BinOp::Or, a, w)),
                        None => w,
                    });
                }
                acc.ok_or_else(|| Error::internal("an empty bitcast element"))?
            } else {
                // One operand element makes several result elements.
                let ratio = sb / rb;
                let src = ints[(j / ratio) as usize];
                let shift = (j % ratio) * rb;
                let shifted = if shift == 0 {
                    src
                } else {
                    let s = self.push(sit, Op::Const(u64::from(shift)));
                    self.push(sit, Op::Bin(BinOp::LShr, src, s))
                };
                self.resize(shifted, rit)
            };
            let want = m.ir_ty(re)?;
            let v = if r_half {
                self.push(Ty::F32, Op::Conv(ConvOp::F16ToF, v))
            } else if want.is_float() {
                self.push(want, Op::Conv(ConvOp::Bitcast, v))
            } else {
                v
            };
            out.push(v);
        }
        let v = self.pack(rty, out);
        fr.vals.insert(i.w(1)?, (v, rty));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each capability number is in one table once, with one name.
    #[test]
    fn capability_tables_do_not_overlap() {
        let all: Vec<(u32, &str)> = [ACCEPTED_CAPS, NO_CPU_MEANING, OTHER_CAPS, super::super::SUPPORTED_CAPS]
            .iter()
            .flat_map(|t| t.iter().copied())
            .collect();
        for (k, (c, n)) in all.iter().enumerate() {
            for (c2, n2) in &all[k + 1..] {
                assert!(c != c2 && n != n2, "{c} {n} / {c2} {n2}");
            }
        }
        assert_eq!(
            refuse_capability(5617).to_string(),
            "unsupported: capability VectorComputeINTEL (5617) has no meaning on a CPU"
        );
        assert_eq!(refuse_capability(1).to_string(), "unsupported: capability Shader (1)");
    }
}
