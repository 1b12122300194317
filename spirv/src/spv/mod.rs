//! The SPIR-V binary format: header, instruction stream, literal strings, and the module-level
//! facts the lowering needs (types, constants, decorations, entry points, functions). The
//! opcode names used in messages ([`op_name`]) and the named SPIR-V enumerants ([`op`], [`cap`],
//! [`storage`], [`cl`], ...: constants from the `spirv` crate's grammar) are in `names`.

use std::collections::HashMap;

use crate::Error;

// Generated; `names` shadows the few constants newer grammars renumbered, left unused here.
#[allow(dead_code)]
mod grammar;
mod names;
pub use names::{
    access, addressing, addressing_model, builtin, cap, channel_order, channel_type, cl, deco,
    dim, exec_mode, exec_model, filter, group_op, image_format, linkage, memory_model, op,
    op_name, param_attr, rounding, scope, source_language, storage,
};

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
const OP_TYPE_STRUCT_CONTINUED_INTEL: u16 = op::TYPE_STRUCT_CONTINUED_INTEL;
const OP_CONSTANT_COMPOSITE_CONTINUED_INTEL: u16 = op::CONSTANT_COMPOSITE_CONTINUED_INTEL;
const OP_SPEC_CONSTANT_COMPOSITE_CONTINUED_INTEL: u16 = op::SPEC_CONSTANT_COMPOSITE_CONTINUED_INTEL;
const OP_COMPOSITE_CONSTRUCT_CONTINUED_INTEL: u16 = op::COMPOSITE_CONSTRUCT_CONTINUED_INTEL;

/// Appends each continuation instruction's operands to the instruction it continues.
fn merge_continued(insts: Vec<Inst>) -> Result<Vec<Inst>, Error> {
    let mut out: Vec<Inst> = Vec::with_capacity(insts.len());
    for i in insts {
        let head = match i.op {
            OP_TYPE_STRUCT_CONTINUED_INTEL => op::TYPE_STRUCT,
            OP_CONSTANT_COMPOSITE_CONTINUED_INTEL => op::CONSTANT_COMPOSITE,
            OP_SPEC_CONSTANT_COMPOSITE_CONTINUED_INTEL => op::SPEC_CONSTANT_COMPOSITE,
            OP_COMPOSITE_CONSTRUCT_CONTINUED_INTEL => op::COMPOSITE_CONSTRUCT,
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

/// A decoration: its number and literal operands.
pub type Decoration = (u32, Vec<u32>);

/// Decorations by target id (OpDecorate, and OpGroupDecorate expanded).
pub fn decorations(insts: &[Inst]) -> Result<HashMap<u32, Vec<Decoration>>, Error> {
    let mut map: HashMap<u32, Vec<Decoration>> = HashMap::new();
    for i in insts {
        match i.op {
            op::DECORATE => map
                .entry(i.w(0)?)
                .or_default()
                .push((i.w(1)?, i.ops[2..].to_vec())),
            op::GROUP_DECORATE => {
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
