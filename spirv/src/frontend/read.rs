//! Reading a SPIR-V module: its capabilities, execution modes, types, constants (with
//! specialization), program-scope variables laid out in data and local memory, and functions.

use std::collections::{HashMap, HashSet};

use super::{align_up, builtin_of, dpcpp, fnptr, image, ConstVal, Func, Global, Module};
use crate::ir;
use crate::spv::{self, addressing_model, cap, deco, exec_mode, exec_model, memory_model, op, op_name, storage, Inst, Type};
use crate::Error;

pub(super) const SUPPORTED_CAPS: &[(u32, &str)] = &[
    (cap::ADDRESSES, "Addresses"),
    (cap::LINKAGE, "Linkage"),
    (cap::KERNEL, "Kernel"),
    (cap::FLOAT64, "Float64"),
    (cap::INT64, "Int64"),
    (cap::INT64_ATOMICS, "Int64Atomics"),
    (cap::GROUPS, "Groups"),
    (cap::INT16, "Int16"),
    (cap::GENERIC_POINTER, "GenericPointer"),
    (cap::INT8, "Int8"),
    (cap::ATOMIC_FLOAT32_MIN_MAX_EXT, "AtomicFloat32MinMaxEXT"),
    (cap::ATOMIC_FLOAT64_MIN_MAX_EXT, "AtomicFloat64MinMaxEXT"),
    (cap::ATOMIC_FLOAT32_ADD_EXT, "AtomicFloat32AddEXT"),
    (cap::ATOMIC_FLOAT64_ADD_EXT, "AtomicFloat64AddEXT"),
    (cap::SUBGROUP_DISPATCH, "SubgroupDispatch"),
    (cap::SUBGROUP_SHUFFLE_INTEL, "SubgroupShuffleINTEL"),
    (cap::GROUP_NON_UNIFORM, "GroupNonUniform"),
    (cap::GROUP_NON_UNIFORM_VOTE, "GroupNonUniformVote"),
    (cap::GROUP_NON_UNIFORM_ARITHMETIC, "GroupNonUniformArithmetic"),
    (cap::GROUP_NON_UNIFORM_BALLOT, "GroupNonUniformBallot"),
    (cap::GROUP_NON_UNIFORM_SHUFFLE, "GroupNonUniformShuffle"),
    (cap::GROUP_NON_UNIFORM_SHUFFLE_RELATIVE, "GroupNonUniformShuffleRelative"),
    (cap::GROUP_NON_UNIFORM_CLUSTERED, "GroupNonUniformClustered"),
    (cap::VECTOR16, "Vector16"),
    (cap::FLOAT16_BUFFER, "Float16Buffer"),
    (cap::FLOAT16, "Float16"),
    (fnptr::CAPABILITY, "FunctionPointersINTEL"),
    // Images (see `frontend/image.rs`).
    (cap::IMAGE_BASIC, "ImageBasic"),
    (cap::IMAGE_READ_WRITE, "ImageReadWrite"),
    (cap::LITERAL_SAMPLER, "LiteralSampler"),
    (cap::SAMPLED1_D, "Sampled1D"),
    (cap::IMAGE1_D, "Image1D"),
    (cap::SAMPLED_BUFFER, "SampledBuffer"),
    (cap::IMAGE_BUFFER, "ImageBuffer"),
];

pub(super) type Read = (
    Module,
    Vec<u8>,
    Vec<(String, u32, u32)>,
    Vec<(u32, String)>,
    HashMap<u32, Modes>,
);

/// What a kernel's execution modes report (`OpExecutionMode`).
#[derive(Clone, Debug, Default)]
pub(super) struct Modes {
    /// LocalSize (17): `reqd_work_group_size`.
    pub(super) reqd: Option<[u32; 3]>,
    /// LocalSizeHint (18): `work_group_size_hint`.
    pub(super) hint: Option<[u32; 3]>,
    /// VecTypeHint (30): `vec_type_hint`, as its OpenCL C type name.
    pub(super) vec_type_hint: Option<String>,
    /// SubgroupSize (35): `intel_reqd_sub_group_size`.
    pub(super) sub_group: Option<u32>,
}

/// The OpenCL C type name of a VecTypeHint literal: the low 16 bits are the element type
/// (0 to 3: 8- to 64-bit integers, 4 to 6: 16- to 64-bit floats), the high 16 bits the
/// component count (0 or 1: a scalar). SPIR-V keeps no signedness, so `uint` reads as `int`.
pub(super) fn vec_type_name(lit: u32) -> Result<String, Error> {
    let elem = match lit & 0xffff {
        0 => "char",
        1 => "short",
        2 => "int",
        3 => "long",
        4 => "half",
        5 => "float",
        6 => "double",
        _ => return Err(Error::invalid(format!(
            "OpExecutionMode VecTypeHint with the literal {lit:#x}: element type {} is none of 0 to 6",
            lit & 0xffff
        ))),
    };
    match lit >> 16 {
        0 | 1 => Ok(elem.to_string()),
        n @ (2 | 3 | 4 | 8 | 16) => Ok(format!("{elem}{n}")),
        n => Err(Error::invalid(format!(
            "OpExecutionMode VecTypeHint with the literal {lit:#x}: {n} components (not 1, 2, 3, 4, 8 or 16)"
        ))),
    }
}

pub(super) fn read_module(insts: &[Inst], spec: &HashMap<u32, u64>) -> Result<Read, Error> {
    let decos = spv::decorations(insts)?;
    let mut exports = HashMap::new();
    let mut imports = HashMap::new();
    for (id, ds) in &decos {
        for d in ds.iter().filter(|d| d.0 == deco::LINKAGE_ATTRIBUTES) {
            let w = Inst {
                op: op::DECORATE,
                ops: d.1.clone(),
            };
            let (name, next) = w.string(0)?;
            match d.1.get(next) {
                // Export, and LinkOnceODR (SPV_KHR_linkonce_odr: a definition other modules
                // may have too; the first found is linked).
                Some(0 | 2) => {
                    exports.insert(name, *id);
                }
                Some(1) => {
                    imports.insert(*id, name);
                }
                _ => {}
            }
        }
    }
    let mut m = Module {
        exports,
        imports,
        types: HashMap::new(),
        consts: HashMap::new(),
        globals: HashMap::new(),
        funcs: HashMap::new(),
        decos,
        names: HashMap::new(),
        opencl_std: HashSet::new(),
        ignored_sets: HashSet::new(),
        local_size: 0,
        data_base: 0,
        local_base: 0,
        shared_writable: false,
        fnptr: fnptr::FnPtrs::default(),
    };
    let mut data = Vec::new();
    let mut globals = Vec::new();
    let mut entries = Vec::new();
    let mut modes: HashMap<u32, Modes> = HashMap::new();
    let mut current: Option<(u32, Func)> = None;
    for i in insts {
        if let Some((fid, f)) = current.as_mut() {
            match i.op {
                op::FUNCTION_PARAMETER => f.params.push((i.w(1)?, i.w(0)?)),
                op::LABEL => f.blocks.push((i.w(0)?, Vec::new())),
                op::FUNCTION_END => {
                    let (fid, f) = current.take().expect("inside a function");
                    m.funcs.insert(fid, f);
                }
                op::FUNCTION => return Err(Error::invalid("OpFunction inside a function")),
                _ => match f.blocks.last_mut() {
                    Some(b) => b.1.push(i.clone()),
                    None => {
                        return Err(Error::invalid(format!(
                            "{} before the first block of function %{fid}",
                            op_name(i.op)
                        )))
                    }
                },
            }
            continue;
        }
        if dpcpp::module_ignored(&m, i)? {
            continue;
        }
        match i.op {
            op::NOP
            | op::SOURCE_CONTINUED
            | op::SOURCE
            | op::SOURCE_EXTENSION
            | op::MEMBER_NAME
            | op::STRING
            | op::LINE
            | op::EXTENSION
            | op::DECORATE
            | op::MEMBER_DECORATE
            | op::DECORATION_GROUP
            | op::GROUP_DECORATE
            | op::NO_LINE
            | op::MODULE_PROCESSED => {}
            op::NAME => {
                let (s, _) = i.string(1)?;
                m.names.insert(i.w(0)?, s);
            }
            op::CAPABILITY => {
                let c = i.w(0)?;
                if !SUPPORTED_CAPS.iter().chain(dpcpp::ACCEPTED_CAPS).any(|s| s.0 == c) {
                    return Err(dpcpp::refuse_capability(c));
                }
            }
            op::EXT_INST_IMPORT => {
                let (s, _) = i.string(1)?;
                if s == "OpenCL.std" {
                    m.opencl_std.insert(i.w(0)?);
                } else if dpcpp::ignored_set(&s) {
                    m.ignored_sets.insert(i.w(0)?);
                }
            }
            op::MEMORY_MODEL => {
                if i.w(0)? != addressing_model::PHYSICAL64 {
                    return Err(Error::unsupported(
                        "addressing model other than Physical64 (compile for spir64)",
                    ));
                }
                if i.w(1)? != memory_model::OPEN_CL {
                    return Err(Error::unsupported("memory model other than OpenCL"));
                }
            }
            op::ENTRY_POINT => {
                if i.w(0)? != exec_model::KERNEL {
                    return Err(Error::unsupported("entry points other than Kernel"));
                }
                let (name, _) = i.string(2)?;
                entries.push((i.w(1)?, name));
            }
            op::EXECUTION_MODE | op::EXECUTION_MODE_ID => {
                // intel_reqd_sub_group_size: one of the sizes the device reports.
                if i.w(1)? == exec_mode::SUBGROUP_SIZE {
                    let size = i.w(2)?;
                    if !ir::SUB_GROUP_SIZES.contains(&size) {
                        return Err(Error::unsupported(format!(
                            "a required sub-group size of {size} (sub-groups may have {:?} \
                             work-items)",
                            ir::SUB_GROUP_SIZES
                        )));
                    }
                    modes.entry(i.w(0)?).or_default().sub_group = Some(size);
                }
                if matches!(
                    i.w(1)?,
                    exec_mode::SUBGROUPS_PER_WORKGROUP | exec_mode::SUBGROUPS_PER_WORKGROUP_ID
                ) {
                    return Err(Error::unsupported("execution mode SubgroupsPerWorkgroup"));
                }
                match i.w(1)? {
                    exec_mode::LOCAL_SIZE => {
                        modes.entry(i.w(0)?).or_default().reqd =
                            Some([i.w(2)?, i.w(3)?, i.w(4)?]);
                    }
                    exec_mode::LOCAL_SIZE_HINT => {
                        modes.entry(i.w(0)?).or_default().hint =
                            Some([i.w(2)?, i.w(3)?, i.w(4)?]);
                    }
                    exec_mode::VEC_TYPE_HINT => {
                        modes.entry(i.w(0)?).or_default().vec_type_hint =
                            Some(vec_type_name(i.w(2)?)?);
                    }
                    _ => {}
                }
            }
            op::TYPE_VOID => {
                m.types.insert(i.w(0)?, Type::Void);
            }
            op::TYPE_BOOL => {
                m.types.insert(i.w(0)?, Type::Bool);
            }
            op::TYPE_INT => {
                let b = i.w(1)?;
                if ![8, 16, 32, 64].contains(&b) {
                    return Err(Error::unsupported(format!("{b}-bit integers")));
                }
                m.types.insert(i.w(0)?, Type::Int(b));
            }
            op::TYPE_FLOAT => {
                let b = i.w(1)?;
                if ![16, 32, 64].contains(&b) {
                    return Err(Error::invalid(format!("{b}-bit floats")));
                }
                m.types.insert(i.w(0)?, Type::Float(b));
            }
            op::TYPE_VECTOR => {
                // OpenCL vectors have 2, 3, 4, 8 or 16 elements (a mutated count of billions
                // would exhaust memory when the vector is scalarized).
                if ![2, 3, 4, 8, 16].contains(&i.w(2)?) {
                    return Err(Error::invalid(format!("vectors of {} elements", i.w(2)?)));
                }
                m.types.insert(i.w(0)?, Type::Vector(i.w(1)?, i.w(2)?));
            }
            op::TYPE_ARRAY => {
                let len = m.const_scalar(i.w(2)?)?;
                m.types.insert(i.w(0)?, Type::Array(i.w(1)?, len));
            }
            op::TYPE_STRUCT => {
                let packed = m.has_deco(i.w(0)?, deco::C_PACKED).is_some();
                m.types
                    .insert(i.w(0)?, Type::Struct(i.ops[1..].to_vec(), packed));
            }
            op::TYPE_POINTER => {
                m.types.insert(i.w(0)?, Type::Pointer(i.w(1)?, i.w(2)?));
            }
            op::TYPE_FUNCTION => {
                m.types
                    .insert(i.w(0)?, Type::Function(i.w(1)?, i.ops[2..].to_vec()));
            }
            op::TYPE_IMAGE => {
                let t = crate::image::ImageType::parse(&i.ops)?;
                m.types.insert(i.w(0)?, Type::Image(t));
            }
            op::TYPE_SAMPLER => {
                m.types.insert(i.w(0)?, Type::Sampler);
            }
            op::TYPE_SAMPLED_IMAGE => {
                m.types.insert(i.w(0)?, Type::SampledImage(i.w(1)?));
            }
            op::CONSTANT_SAMPLER => image::constant_sampler(&mut m, &mut data, i)?,
            op::TYPE_EVENT => {
                m.types.insert(i.w(0)?, Type::Event);
            }
            op::TYPE_MATRIX
            | op::TYPE_RUNTIME_ARRAY
            | op::TYPE_OPAQUE
            | op::TYPE_DEVICE_EVENT
            | op::TYPE_RESERVE_ID
            | op::TYPE_QUEUE
            | op::TYPE_PIPE
            | op::TYPE_FORWARD_POINTER
            | op::TYPE_PIPE_STORAGE => {
                m.types.insert(i.w(0)?, Type::Other("opaque"));
            }
            op::CONSTANT_TRUE
            | op::CONSTANT_FALSE
            | op::SPEC_CONSTANT_TRUE
            | op::SPEC_CONSTANT_FALSE => {
                let mut v = u64::from(i.op == op::CONSTANT_TRUE || i.op == op::SPEC_CONSTANT_TRUE);
                if i.op >= 48 {
                    if let Some(s) = m.has_deco(i.w(1)?, deco::SPEC_ID).and_then(|d| d.first()) {
                        if let Some(x) = spec.get(s) {
                            v = u64::from(*x != 0);
                        }
                    }
                }
                m.consts.insert(i.w(1)?, (i.w(0)?, ConstVal::Scalar(v)));
            }
            op::CONSTANT | op::SPEC_CONSTANT => {
                let ty = i.w(0)?;
                let bits = match m.ty(ty)? {
                    Type::Int(b) | Type::Float(b) => *b,
                    t => return Err(Error::invalid(format!("OpConstant of type {t:?}"))),
                };
                let mut v = u64::from(i.w(2)?);
                if bits > 32 {
                    v |= u64::from(i.w(3)?) << 32;
                }
                if i.op == op::SPEC_CONSTANT {
                    if let Some(s) = m.has_deco(i.w(1)?, deco::SPEC_ID).and_then(|d| d.first()) {
                        if let Some(x) = spec.get(s) {
                            v = if bits >= 64 {
                                *x
                            } else {
                                *x & ((1u64 << bits) - 1)
                            };
                        }
                    }
                }
                m.consts.insert(i.w(1)?, (ty, ConstVal::Scalar(v)));
            }
            op::CONSTANT_COMPOSITE | op::SPEC_CONSTANT_COMPOSITE => {
                m.consts
                    .insert(i.w(1)?, (i.w(0)?, ConstVal::Composite(i.ops[2..].to_vec())));
            }
            op::CONSTANT_NULL => {
                m.consts.insert(i.w(1)?, (i.w(0)?, ConstVal::Null));
            }
            op::UNDEF => {
                m.consts.insert(i.w(1)?, (i.w(0)?, ConstVal::Null));
            }
            op::VARIABLE => {
                let (pty, id, sc) = (i.w(0)?, i.w(1)?, i.w(2)?);
                let pointee = match m.ty(pty)? {
                    Type::Pointer(_, p) => *p,
                    _ => return Err(Error::invalid("OpVariable whose type is not a pointer")),
                };
                // A `BuiltIn` variable is the built-in in any storage class (the translator of
                // LLVM 14 declares them UniformConstant).
                let builtin = m.has_deco(id, deco::BUILT_IN).and_then(|d| d.first().copied());
                let g = match sc {
                    _ if builtin.is_some() => Global::Builtin(builtin_of(builtin.unwrap_or(0))?),
                    storage::INPUT => return Err(Error::unsupported("Input variables that are not built-ins")),
                    storage::UNIFORM_CONSTANT | storage::CROSS_WORKGROUP => {
                        let (size, align) = m.layout(pointee)?;
                        let off = align_up(data.len() as u64, align.max(8));
                        if off + size > 64 << 20 {
                            return Err(Error::unsupported(
                                "more than 64 MiB of program-scope variables",
                            ));
                        }
                        data.resize((off + size) as usize, 0);
                        if let Some(init) = i.ops.get(3) {
                            m.write_const(*init, pointee, &mut data[off as usize..], 0)?;
                            fnptr::init_relocs(&mut m, *init, pointee, off)?;
                        }
                        if let Some(d) = m.has_deco(id, deco::LINKAGE_ATTRIBUTES) {
                            let w = Inst {
                                op: op::CONSTANT_TRUE,
                                ops: d.to_vec(),
                            };
                            let (name, next) = w.string(0)?;
                            if d.get(next) == Some(&0) {
                                globals.push((name, off as u32, size as u32));
                            }
                        }
                        if let Some(name) = dpcpp::host_access_name(&m, id)? {
                            globals.push((name, off as u32, size as u32));
                        }
                        Global::Data(off as u32, sc == storage::CROSS_WORKGROUP)
                    }
                    storage::WORKGROUP => {
                        let (size, align) = m.layout(pointee)?;
                        let off = align_up(u64::from(m.local_size), align.max(8));
                        if off + size > 1 << 30 {
                            return Err(Error::unsupported("more than 1 GiB of local variables"));
                        }
                        m.local_size = (off + size) as u32;
                        Global::Local(off as u32)
                    }
                    s => {
                        return Err(Error::unsupported(format!(
                            "program-scope variables of storage class {s}"
                        )))
                    }
                };
                m.globals.insert(id, (pty, g));
            }
            op::FUNCTION => {
                let ret = i.w(0)?;
                current = Some((
                    i.w(1)?,
                    Func {
                        params: Vec::new(),
                        ret,
                        blocks: Vec::new(),
                    },
                ));
            }
            52 | fnptr::CONSTANT_FUNCTION_POINTER => fnptr::module_inst(&mut m, i, &mut data)?,
            op => {
                return Err(Error::unsupported(format!(
                    "instruction {} at module scope",
                    op_name(op)
                )))
            }
        }
    }
    if current.is_some() {
        return Err(Error::invalid("a function has no OpFunctionEnd"));
    }
    // Only defined functions are exports (variables and declarations are not).
    m.exports
        .retain(|_, id| m.funcs.get(id).is_some_and(|f| !f.blocks.is_empty()));
    fnptr::finish(&mut m, &mut data, insts, &entries)?;
    Ok((m, data, globals, entries, modes))
}
