//! The ELF object LLVM writes for one kernel, turned into a [`FuncImage`]: its code and
//! read-only sections laid out one after the other (the kernel's function first, so that the
//! image starts at its entry), relocations inside the image resolved here when PC-relative and
//! kept as absolute relocations of the image itself (`zekit_self`) when absolute, and the
//! symbols it imports kept by name.

use object::{Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionKind};

use crate::backend::module::SELF;
use crate::backend::{FuncImage, RelocImage, Target};
use crate::Error;

pub(super) fn image(obj: &[u8], entry: &str) -> Result<FuncImage, Error> {
    let bad = |m: String| Error::internal(format!("llvm object: {m}"));
    let file = object::File::parse(obj).map_err(|e| bad(e.to_string()))?;
    // The sections the code needs, text first, each at its alignment.
    let mut placed: Vec<(object::SectionIndex, u64)> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut align = 16u64;
    let mut order: Vec<_> = file
        .sections()
        .filter(|s| s.size() > 0 && s.name().is_ok_and(|n| n != ".eh_frame"))
        .filter(|s| {
            matches!(
                s.kind(),
                SectionKind::Text
                    | SectionKind::ReadOnlyData
                    | SectionKind::ReadOnlyString
                    | SectionKind::ReadOnlyDataWithRel
                    | SectionKind::Data
                    | SectionKind::UninitializedData
            )
        })
        .collect();
    order.sort_by_key(|s| s.kind() != SectionKind::Text);
    for s in &order {
        if matches!(s.kind(), SectionKind::Data | SectionKind::UninitializedData) {
            return Err(bad(format!("writable section {}", s.name().unwrap_or("?"))));
        }
        let a = s.align().max(1);
        if !a.is_power_of_two() || a > 4096 {
            return Err(bad(format!("section alignment {a}")));
        }
        align = align.max(a);
        let at = bytes.len().next_multiple_of(a as usize);
        bytes.resize(at, 0);
        bytes.extend_from_slice(s.data().map_err(|e| bad(e.to_string()))?);
        placed.push((s.index(), at as u64));
    }
    let offset_of = |i: object::SectionIndex| placed.iter().find(|p| p.0 == i).map(|p| p.1);
    let sym = file
        .symbols()
        .find(|s| s.name() == Ok(entry))
        .ok_or_else(|| bad(format!("no symbol `{entry}`")))?;
    let start = sym
        .section_index()
        .and_then(offset_of)
        .map(|o| o + sym.address());
    if start != Some(0) {
        return Err(bad(format!("`{entry}` does not start the code")));
    }
    let mut relocs = Vec::new();
    for s in &order {
        let base = offset_of(s.index()).unwrap_or(0);
        for (off, r) in s.relocations() {
            let at = base + off;
            let RelocationFlags::Elf { r_type } = r.flags() else {
                return Err(bad("a relocation that is not ELF's".into()));
            };
            // Where the target is: inside the image (an offset), or a symbol it imports.
            let (inside, name) = match r.target() {
                RelocationTarget::Section(i) => (offset_of(i), None),
                RelocationTarget::Symbol(i) => {
                    let t = file.symbol_by_index(i).map_err(|e| bad(e.to_string()))?;
                    if t.is_undefined() {
                        (None, Some(t.name().map_err(|e| bad(e.to_string()))?.to_string()))
                    } else {
                        let o = t.section_index().and_then(offset_of);
                        (o.map(|o| o + t.address()), None)
                    }
                }
                _ => return Err(bad("a relocation to an absolute address".into())),
            };
            let addend = r.addend();
            match (r_type, inside, name) {
                (object::elf::R_X86_64_64, Some(t), _) => relocs.push(RelocImage {
                    offset: u32::try_from(at).map_err(|_| bad("code too large".into()))?,
                    kind: 0,
                    target: Target::Symbol(SELF.into()),
                    addend: t as i64 + addend,
                }),
                (object::elf::R_X86_64_64, None, Some(n)) => relocs.push(RelocImage {
                    offset: u32::try_from(at).map_err(|_| bad("code too large".into()))?,
                    kind: 0,
                    target: Target::Symbol(n),
                    addend,
                }),
                (object::elf::R_X86_64_PC32 | object::elf::R_X86_64_PLT32, Some(t), _) => {
                    let v = t as i64 + addend - at as i64;
                    let v = i32::try_from(v).map_err(|_| bad("a PC-relative overflow".into()))?;
                    let at = at as usize;
                    bytes
                        .get_mut(at..at + 4)
                        .ok_or_else(|| bad("a relocation outside the code".into()))?
                        .copy_from_slice(&v.to_le_bytes());
                }
                (t, _, n) => {
                    return Err(bad(format!(
                        "relocation type {t} to {}",
                        n.unwrap_or_else(|| "a section".into())
                    )))
                }
            }
        }
    }
    Ok(FuncImage {
        align,
        bytes,
        relocs,
    })
}
