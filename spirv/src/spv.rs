//! The SPIR-V binary format: header, instruction stream, literal strings, and the module-level
//! facts the lowering needs (types, constants, decorations, entry points, functions).

use std::collections::HashMap;

use crate::Error;

/// SPIR-V's magic number.
pub const MAGIC: u32 = 0x0723_0203;

/// One instruction: its opcode and operand words (after the first word).
#[derive(Clone, Debug)]
pub struct Inst {
    /// The opcode.
    pub op: u16,
    /// The operand words.
    pub ops: Vec<u32>,
}

impl Inst {
    /// Operand `i`, or an error naming the instruction.
    pub fn w(&self, i: usize) -> Result<u32, Error> {
        self.ops
            .get(i)
            .copied()
            .ok_or_else(|| Error::invalid(format!("{} has too few operands", op_name(self.op))))
    }
    /// The literal string starting at operand `i`, and the operand index after it.
    pub fn string(&self, i: usize) -> Result<(String, usize), Error> {
        let mut bytes = Vec::new();
        for (k, w) in self.ops.iter().enumerate().skip(i) {
            for b in w.to_le_bytes() {
                if b == 0 {
                    let s = String::from_utf8(bytes)
                        .map_err(|_| Error::invalid("a literal string is not UTF-8"))?;
                    return Ok((s, k + 1));
                }
                bytes.push(b);
            }
        }
        Err(Error::invalid(format!(
            "{}: unterminated literal string",
            op_name(self.op)
        )))
    }
}

/// Splits a binary into words (little- or big-endian, told by the magic number), checks the
/// header and returns the instructions and the id bound.
pub fn parse(bytes: &[u8]) -> Result<(Vec<Inst>, u32, u32), Error> {
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::invalid("size is not a multiple of 4 bytes"));
    }
    if bytes.len() < 20 {
        return Err(Error::invalid("shorter than the 5-word SPIR-V header"));
    }
    let le: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let words = if le[0] == MAGIC {
        le
    } else if le[0].swap_bytes() == MAGIC {
        le.into_iter().map(u32::swap_bytes).collect()
    } else {
        return Err(Error::invalid(format!("bad magic number {:#010x}", le[0])));
    };
    let version = words[1];
    if version & 0xff00_00ff != 0 || !(0x0001_0000..=0x0001_0600).contains(&version) {
        return Err(Error::invalid(format!(
            "unsupported SPIR-V version {version:#x}"
        )));
    }
    let bound = words[3];
    if bound > 4_000_000 {
        return Err(Error::invalid(format!("id bound {bound} is too large")));
    }
    let mut insts = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let op = (words[i] & 0xffff) as u16;
        if count == 0 || i + count > words.len() {
            return Err(Error::invalid(format!(
                "instruction {} at word {i} has a bad word count {count}",
                op_name(op)
            )));
        }
        insts.push(Inst {
            op,
            ops: words[i + 1..i + count].to_vec(),
        });
        i += count;
    }
    Ok((merge_continued(insts)?, bound, version))
}


/// SPV_INTEL_long_composites: a struct type, constant composite or composite construction with
/// more operands than one instruction holds goes on in `...ContinuedINTEL` instructions right
/// after it (operands only: no result type or id).
const OP_TYPE_STRUCT_CONTINUED_INTEL: u16 = 6090;
const OP_CONSTANT_COMPOSITE_CONTINUED_INTEL: u16 = 6091;
const OP_SPEC_CONSTANT_COMPOSITE_CONTINUED_INTEL: u16 = 6092;
const OP_COMPOSITE_CONSTRUCT_CONTINUED_INTEL: u16 = 6096;

/// Appends each continuation instruction's operands to the instruction it continues.
fn merge_continued(insts: Vec<Inst>) -> Result<Vec<Inst>, Error> {
    let mut out: Vec<Inst> = Vec::with_capacity(insts.len());
    for i in insts {
        let head = match i.op {
            OP_TYPE_STRUCT_CONTINUED_INTEL => 30,
            OP_CONSTANT_COMPOSITE_CONTINUED_INTEL => 44,
            OP_SPEC_CONSTANT_COMPOSITE_CONTINUED_INTEL => 51,
            OP_COMPOSITE_CONSTRUCT_CONTINUED_INTEL => 80,
            _ => {
                out.push(i);
                continue;
            }
        };
        match out.last_mut() {
            Some(prev) if prev.op == head => prev.ops.extend(i.ops),
            _ => {
                return Err(Error::invalid(format!(
                    "continuation instruction {} not after {}",
                    i.op,
                    op_name(head)
                )))
            }
        }
    }
    Ok(out)
}

/// A SPIR-V type.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `void`.
    Void,
    /// `bool`.
    Bool,
    /// An integer of this many bits.
    Int(u32),
    /// A float of this many bits.
    Float(u32),
    /// A vector of `n` elements.
    Vector(u32, u32),
    /// A fixed-size array (element type id, length).
    Array(u32, u64),
    /// A struct (member type ids, packed).
    Struct(Vec<u32>, bool),
    /// A pointer (storage class, pointee type id).
    Pointer(u32, u32),
    /// A function type (return type id, parameter type ids).
    Function(u32, Vec<u32>),
    /// An image type (see [`crate::image::ImageType`]).
    Image(crate::image::ImageType),
    /// `sampler_t`.
    Sampler,
    /// An image with a sampler (the image type's id).
    SampledImage(u32),
    /// `event_t` (what `async_work_group_copy` returns; 8 bytes in memory).
    Event,
    /// Something the compiler does not handle (events, pipes, ...).
    Other(&'static str),
}

/// Names of the opcodes the compiler mentions in its messages; others by number.
pub fn op_name(op: u16) -> String {
    let name = match op {
        1 => "OpUndef",
        5 => "OpName",
        10 => "OpExtension",
        11 => "OpExtInstImport",
        12 => "OpExtInst",
        14 => "OpMemoryModel",
        15 => "OpEntryPoint",
        16 => "OpExecutionMode",
        17 => "OpCapability",
        19 => "OpTypeVoid",
        20 => "OpTypeBool",
        21 => "OpTypeInt",
        22 => "OpTypeFloat",
        23 => "OpTypeVector",
        24 => "OpTypeMatrix",
        25 => "OpTypeImage",
        26 => "OpTypeSampler",
        27 => "OpTypeSampledImage",
        28 => "OpTypeArray",
        29 => "OpTypeRuntimeArray",
        30 => "OpTypeStruct",
        31 => "OpTypeOpaque",
        32 => "OpTypePointer",
        33 => "OpTypeFunction",
        34 => "OpTypeEvent",
        41 => "OpConstantTrue",
        42 => "OpConstantFalse",
        43 => "OpConstant",
        44 => "OpConstantComposite",
        45 => "OpConstantSampler",
        46 => "OpConstantNull",
        48 => "OpSpecConstantTrue",
        49 => "OpSpecConstantFalse",
        50 => "OpSpecConstant",
        51 => "OpSpecConstantComposite",
        52 => "OpSpecConstantOp",
        54 => "OpFunction",
        55 => "OpFunctionParameter",
        56 => "OpFunctionEnd",
        57 => "OpFunctionCall",
        59 => "OpVariable",
        61 => "OpLoad",
        62 => "OpStore",
        63 => "OpCopyMemory",
        64 => "OpCopyMemorySized",
        65 => "OpAccessChain",
        66 => "OpInBoundsAccessChain",
        67 => "OpPtrAccessChain",
        70 => "OpInBoundsPtrAccessChain",
        71 => "OpDecorate",
        77 => "OpVectorExtractDynamic",
        78 => "OpVectorInsertDynamic",
        79 => "OpVectorShuffle",
        80 => "OpCompositeConstruct",
        81 => "OpCompositeExtract",
        82 => "OpCompositeInsert",
        83 => "OpCopyObject",
        84 => "OpTranspose",
        109 => "OpConvertFToU",
        110 => "OpConvertFToS",
        111 => "OpConvertSToF",
        112 => "OpConvertUToF",
        113 => "OpUConvert",
        114 => "OpSConvert",
        115 => "OpFConvert",
        116 => "OpQuantizeToF16",
        117 => "OpConvertPtrToU",
        118 => "OpSatConvertSToU",
        119 => "OpSatConvertUToS",
        120 => "OpConvertUToPtr",
        121 => "OpPtrCastToGeneric",
        122 => "OpGenericCastToPtr",
        123 => "OpGenericCastToPtrExplicit",
        124 => "OpBitcast",
        126 => "OpSNegate",
        127 => "OpFNegate",
        128 => "OpIAdd",
        129 => "OpFAdd",
        130 => "OpISub",
        131 => "OpFSub",
        132 => "OpIMul",
        133 => "OpFMul",
        134 => "OpUDiv",
        135 => "OpSDiv",
        136 => "OpFDiv",
        137 => "OpUMod",
        138 => "OpSRem",
        139 => "OpSMod",
        140 => "OpFRem",
        141 => "OpFMod",
        142 => "OpVectorTimesScalar",
        148 => "OpDot",
        149 => "OpIAddCarry",
        150 => "OpISubBorrow",
        151 => "OpUMulExtended",
        152 => "OpSMulExtended",
        154 => "OpAny",
        155 => "OpAll",
        156 => "OpIsNan",
        157 => "OpIsInf",
        164 => "OpLogicalEqual",
        165 => "OpLogicalNotEqual",
        166 => "OpLogicalOr",
        167 => "OpLogicalAnd",
        168 => "OpLogicalNot",
        169 => "OpSelect",
        170 => "OpIEqual",
        194 => "OpShiftRightLogical",
        195 => "OpShiftRightArithmetic",
        196 => "OpShiftLeftLogical",
        197 => "OpBitwiseOr",
        198 => "OpBitwiseXor",
        199 => "OpBitwiseAnd",
        200 => "OpNot",
        201 => "OpBitFieldInsert",
        205 => "OpBitCount",
        224 => "OpControlBarrier",
        225 => "OpMemoryBarrier",
        227 => "OpAtomicLoad",
        228 => "OpAtomicStore",
        229 => "OpAtomicExchange",
        230 => "OpAtomicCompareExchange",
        231 => "OpAtomicCompareExchangeWeak",
        232 => "OpAtomicIIncrement",
        233 => "OpAtomicIDecrement",
        234 => "OpAtomicIAdd",
        235 => "OpAtomicISub",
        236 => "OpAtomicSMin",
        237 => "OpAtomicUMin",
        238 => "OpAtomicSMax",
        239 => "OpAtomicUMax",
        240 => "OpAtomicAnd",
        241 => "OpAtomicOr",
        242 => "OpAtomicXor",
        245 => "OpPhi",
        246 => "OpLoopMerge",
        247 => "OpSelectionMerge",
        248 => "OpLabel",
        249 => "OpBranch",
        250 => "OpBranchConditional",
        251 => "OpSwitch",
        252 => "OpKill",
        253 => "OpReturn",
        254 => "OpReturnValue",
        255 => "OpUnreachable",
        256 => "OpLifetimeStart",
        257 => "OpLifetimeStop",
        259 => "OpGroupAsyncCopy",
        260 => "OpGroupWaitEvents",
        261 => "OpGroupAll",
        262 => "OpGroupAny",
        263 => "OpGroupBroadcast",
        264 => "OpGroupIAdd",
        265 => "OpGroupFAdd",
        266 => "OpGroupFMin",
        267 => "OpGroupUMin",
        268 => "OpGroupSMin",
        269 => "OpGroupFMax",
        270 => "OpGroupUMax",
        271 => "OpGroupSMax",
        86 => "OpSampledImage",
        87 => "OpImageSampleImplicitLod",
        88 => "OpImageSampleExplicitLod",
        89 => "OpImageSampleDrefImplicitLod",
        90 => "OpImageSampleDrefExplicitLod",
        91 => "OpImageSampleProjImplicitLod",
        92 => "OpImageSampleProjExplicitLod",
        93 => "OpImageSampleProjDrefImplicitLod",
        94 => "OpImageSampleProjDrefExplicitLod",
        95 => "OpImageFetch",
        96 => "OpImageGather",
        97 => "OpImageDrefGather",
        98 => "OpImageRead",
        99 => "OpImageWrite",
        100 => "OpImage",
        101 => "OpImageQueryFormat",
        102 => "OpImageQueryOrder",
        103 => "OpImageQuerySizeLod",
        104 => "OpImageQuerySize",
        105 => "OpImageQueryLod",
        106 => "OpImageQueryLevels",
        107 => "OpImageQuerySamples",
        318 => "OpAtomicFlagTestAndSet",
        319 => "OpAtomicFlagClear",
        5571 => "OpSubgroupShuffleINTEL",
        5572 => "OpSubgroupShuffleDownINTEL",
        5573 => "OpSubgroupShuffleUpINTEL",
        5574 => "OpSubgroupShuffleXorINTEL",
        5600 => "OpConstantFunctionPointerINTEL",
        5601 => "OpFunctionPointerCallINTEL",
        5614 => "OpAtomicFMinEXT",
        5615 => "OpAtomicFMaxEXT",
        6035 => "OpAtomicFAddEXT",
        331 => "OpExecutionModeId",
        333 => "OpGroupNonUniformElect",
        334 => "OpGroupNonUniformAll",
        335 => "OpGroupNonUniformAny",
        336 => "OpGroupNonUniformAllEqual",
        337 => "OpGroupNonUniformBroadcast",
        338 => "OpGroupNonUniformBroadcastFirst",
        339 => "OpGroupNonUniformBallot",
        340 => "OpGroupNonUniformInverseBallot",
        341 => "OpGroupNonUniformBallotBitExtract",
        342 => "OpGroupNonUniformBallotBitCount",
        343 => "OpGroupNonUniformBallotFindLSB",
        344 => "OpGroupNonUniformBallotFindMSB",
        345 => "OpGroupNonUniformShuffle",
        346 => "OpGroupNonUniformShuffleXor",
        347 => "OpGroupNonUniformShuffleUp",
        348 => "OpGroupNonUniformShuffleDown",
        349 => "OpGroupNonUniformIAdd",
        350 => "OpGroupNonUniformFAdd",
        351 => "OpGroupNonUniformIMul",
        352 => "OpGroupNonUniformFMul",
        353 => "OpGroupNonUniformSMin",
        354 => "OpGroupNonUniformUMin",
        355 => "OpGroupNonUniformFMin",
        356 => "OpGroupNonUniformSMax",
        357 => "OpGroupNonUniformUMax",
        358 => "OpGroupNonUniformFMax",
        359 => "OpGroupNonUniformBitwiseAnd",
        360 => "OpGroupNonUniformBitwiseOr",
        361 => "OpGroupNonUniformBitwiseXor",
        362 => "OpGroupNonUniformLogicalAnd",
        363 => "OpGroupNonUniformLogicalOr",
        364 => "OpGroupNonUniformLogicalXor",
        365 => "OpGroupNonUniformQuadBroadcast",
        366 => "OpGroupNonUniformQuadSwap",
        158 => "OpIsFinite",
        159 => "OpIsNormal",
        160 => "OpSignBitSet",
        202 => "OpBitFieldSExtract",
        203 => "OpBitFieldUExtract",
        204 => "OpBitReverse",
        400 => "OpCopyLogical",
        401 => "OpPtrEqual",
        402 => "OpPtrNotEqual",
        403 => "OpPtrDiff",
        4431 => "OpGroupNonUniformRotateKHR",
        5056 => "OpReadClockKHR",
        5575 => "OpSubgroupBlockReadINTEL",
        5576 => "OpSubgroupBlockWriteINTEL",
        5630 => "OpAssumeTrueKHR",
        5631 => "OpExpectKHR",
        5887 => "OpLoopControlINTEL",
        6116 => "OpConvertFToBF16INTEL",
        6117 => "OpConvertBF16ToFINTEL",
        6142 => "OpControlBarrierArriveINTEL",
        6143 => "OpControlBarrierWaitINTEL",
        6145 => "OpArithmeticFenceEXT",
        6401 => "OpGroupIMulKHR",
        6402 => "OpGroupFMulKHR",
        6403 => "OpGroupBitwiseAndKHR",
        6404 => "OpGroupBitwiseOrKHR",
        6405 => "OpGroupBitwiseXorKHR",
        6406 => "OpGroupLogicalAndKHR",
        6407 => "OpGroupLogicalOrKHR",
        6408 => "OpGroupLogicalXorKHR",
        6426 => "OpRoundFToTF32INTEL",
        _ => return format!("Op#{op}"),
    };
    name.to_string()
}

/// A decoration: its number and literal operands.
pub type Decoration = (u32, Vec<u32>);

/// Decorations by target id (OpDecorate, and OpGroupDecorate expanded).
pub fn decorations(insts: &[Inst]) -> Result<HashMap<u32, Vec<Decoration>>, Error> {
    let mut map: HashMap<u32, Vec<Decoration>> = HashMap::new();
    for i in insts {
        match i.op {
            71 => map
                .entry(i.w(0)?)
                .or_default()
                .push((i.w(1)?, i.ops[2..].to_vec())),
            74 => {
                let group = map.get(&i.w(0)?).cloned().unwrap_or_default();
                for t in &i.ops[1..] {
                    map.entry(*t).or_default().extend(group.iter().cloned());
                }
            }
            _ => {}
        }
    }
    Ok(map)
}
