//! What the spec says about types and handles (plain structs, pointers, wrappers, release
//! functions), and the safe shape of each parameter.

use std::collections::BTreeSet;

use super::handles::*;
use super::Gen;
use crate::emit_rust::scalar_tokens;
use crate::model::{func_ns, strip_ns, CType, TypeKind};
use crate::params::{Param, RangeLen};
use crate::spec::*;

/// The parameter shapes of a safe method.
#[derive(Debug, Clone)]
pub(super) enum Shape {
    /// The receiver (first handle parameter).
    Receiver,
    /// An input handle: `&W` / `Option<&W>`.
    Handle { wrapper: String, optional: bool },
    /// A value passed as is (scalars, enums, flags, plain structs by value).
    Value,
    /// `const T*` struct input: `&T` / `Option<&T>`; a non-null `pNext` is an error.
    StructIn { optional: bool, chained: bool },
    /// `T*` `[in,out]` descriptor: `&mut T` (the driver may adjust it); a non-null `pNext`
    /// is an error.
    StructInOut { chained: bool },
    /// `T*` `[in,out]` scalar: `&mut T`.
    ScalarInOut,
    /// `const char*` input: `&str` / `Option<&str>`.
    Str { optional: bool },
    /// An output handle: returned wrapper (owned when `release` is given).
    OutHandle { wrapper: String, release: Option<(String, usize)> },
    /// An output struct, returned from `Default`.
    OutStruct,
    /// An output scalar, returned.
    OutScalar,
    /// `const char**` output: a copied `String`.
    OutStr,
    /// The count of a count protocol (dropped).
    Count,
    /// An array of a count protocol: returned `Vec`.
    CountArray { elem: Elem },
    /// The length of `[range(0, n)]` slices (dropped).
    Len,
    /// An input slice.
    SliceIn { elem: Elem, optional: bool },
    /// An output slice of scalars: `&mut [T]`.
    SliceOut,
}

#[derive(Debug, Clone)]
pub(super) enum Elem {
    Handle(String),
    Struct,
    Scalar,
    /// `char` (a string).
    Char,
    /// `const char*` (strings).
    CStr,
}

/// The verbs whose out handle the caller owns.
pub(super) const OWNING_VERBS: &[&str] = &["Create", "Open", "Attach", "Import", "Clone"];

impl Gen<'_> {
    pub(super) fn kind(&self, base: &str) -> Option<TypeKind> {
        self.api.type_kind(base)
    }

    pub(super) fn is_struct(&self, base: &str) -> bool {
        matches!(self.kind(base), Some(TypeKind::Struct))
    }

    /// Whether a value of this type can be passed or returned by value: scalars, enums,
    /// flags, and structs/unions with no pointer inside.
    pub(super) fn plain(&self, base: &str) -> bool {
        match self.kind(base) {
            Some(TypeKind::Scalar { .. } | TypeKind::Enum | TypeKind::Flags | TypeKind::FlagBits) => true,
            None => scalar_tokens(base).is_some() && base != "void",
            Some(TypeKind::Struct | TypeKind::Union) => !self.has_pointers(base, false, &mut BTreeSet::new()),
            _ => false,
        }
    }

    /// Whether a struct holds a pointer (other than `pNext` when `allow_next`) or a handle,
    /// directly or in a member struct.
    pub(super) fn has_pointers(&self, name: &str, allow_next: bool, seen: &mut BTreeSet<String>) -> bool {
        if !seen.insert(name.to_string()) {
            return false;
        }
        let members: Vec<&Field> = match self.api.entry(name) {
            Some(Entry::Struct(s)) | Some(Entry::Union(s)) => self.api.all_members(s),
            _ => return true,
        };
        for m in members {
            let ct = CType::parse(&m.ty);
            if ct.is_pointer() {
                if allow_next && m.name == "pNext" {
                    continue;
                }
                return true;
            }
            let base = self.api.resolve_typedef(&ct.base).to_string();
            match self.kind(&base) {
                Some(TypeKind::Struct | TypeKind::Union) if self.has_pointers(&base, false, seen) => return true,
                Some(TypeKind::Handle | TypeKind::Callback | TypeKind::Void) => return true,
                _ => {}
            }
        }
        false
    }

    /// A struct whose members are plain apart from its `pNext`: (safe, has a pNext).
    pub(super) fn safe_struct(&self, name: &str) -> Option<bool> {
        if !self.is_struct(name) || self.has_pointers(name, true, &mut BTreeSet::new()) {
            return None;
        }
        let Some(Entry::Struct(s)) = self.api.entry(name) else { return None };
        Some(self.api.all_members(s).iter().any(|m| m.name == "pNext"))
    }

    pub(super) fn handle_wrapper(&self, ty: &str) -> Option<&HandleInfo> {
        self.handles.get(ty)
    }

    /// The release function for a handle made by `f`.
    pub(super) fn release_for(&self, f: &Function, handle: &str) -> Option<(String, usize)> {
        let ns = self.ns_of(&f.name);
        let rest = strip_ns(&f.name, ns);
        let canonical = &self.handles.get(handle)?.canonical;
        let list = self.releases.get(canonical)?;
        let verb = OWNING_VERBS.iter().find(|v| rest.contains(**v))?;
        let pair = match *verb {
            "Open" => "Close",
            "Attach" => "Detach",
            "Import" => "Release",
            _ => "Destroy",
        };
        list.iter().find(|r| r.0.contains(pair)).or_else(|| list.first()).cloned()
    }

    pub(super) fn ns_of(&self, function: &str) -> &'static str {
        self.ns.get(function).copied().unwrap_or_else(|| func_ns(function))
    }

    /// The safe shapes of `f`'s parameters, or why there are none.
    pub(super) fn shapes(&self, f: &Function, ps: &[Param], receiver: bool) -> Result<Vec<Shape>, String> {
        if f.return_type.is_some() {
            return Err("returns no ze_result_t".into());
        }
        if ps.iter().any(|p| p.field.release) {
            return Err("releases what a parameter points to".into());
        }
        if f.name.contains("Destroy") {
            return Err("destroys a handle the spec does not mark `[release]`".into());
        }
        if f.name.contains("Indirect") {
            return Err("its arguments are read from device memory when the work runs".into());
        }
        let mut shapes: Vec<Option<Shape>> = vec![None; ps.len()];
        if receiver {
            shapes[0] = Some(Shape::Receiver);
        }
        // Ranges first: count protocols and slices.
        for (i, p) in ps.iter().enumerate() {
            let Some(r) = &p.range else { continue };
            let r = r.clone().map_err(|e| e.to_string())?;
            if !p.range_from_zero {
                return Err(format!("{}: range not from 0", p.field.name));
            }
            let elem = match (p.ct.ptrs.len(), p.kind.clone()) {
                (1, Some(TypeKind::Handle)) => Elem::Handle(self.handle_wrapper(&p.ct.base).ok_or("unknown handle")?.wrapper.clone()),
                (1, _) if p.base == "char" => Elem::Char,
                (1, _) if self.plain(&p.base) && !self.is_struct(&p.base) => Elem::Scalar,
                (1, Some(TypeKind::Struct)) => match self.safe_struct(&p.base) {
                    Some(_) => Elem::Struct,
                    None => return Err(format!("{}: struct with pointers", p.field.name)),
                },
                (2, _) if p.base == "char" && p.ct.konst => Elem::CStr,
                _ => return Err(format!("{}: array of {}", p.field.name, p.field.ty)),
            };
            match r {
                RangeLen::Deref(j) => {
                    if p.input || !p.field.optional {
                        return Err(format!("{}: count protocol array that is an input or not optional", p.field.name));
                    }
                    if ps[j].input && ps[j].field.dir == Some(Dir::In) {
                        return Err("count protocol with an input count".into());
                    }
                    shapes[j] = Some(Shape::Count);
                    shapes[i] = Some(Shape::CountArray { elem });
                }
                RangeLen::Param(j) => {
                    if matches!(shapes[j], Some(Shape::Receiver)) {
                        return Err("range over the receiver".into());
                    }
                    shapes[j] = Some(Shape::Len);
                    if p.input {
                        match elem {
                            Elem::Char | Elem::CStr => return Err(format!("{}: char array input", p.field.name)),
                            _ => shapes[i] = Some(Shape::SliceIn { elem, optional: p.field.optional }),
                        }
                    } else {
                        match elem {
                            Elem::Scalar => shapes[i] = Some(Shape::SliceOut),
                            _ => return Err(format!("{}: output array of non-scalars", p.field.name)),
                        }
                    }
                }
            }
        }
        let counts = shapes.iter().filter(|s| matches!(s, Some(Shape::Count))).count();
        if counts > 1 {
            return Err("two count protocols".into());
        }
        for (i, p) in ps.iter().enumerate() {
            if shapes[i].is_some() {
                continue;
            }
            if p.field.count.is_some() {
                return Err(format!("{}: counted pointer", p.field.name));
            }
            let n = p.ct.ptrs.len();
            let s = match (n, p.kind.clone()) {
                (0, Some(TypeKind::Handle)) => Shape::Handle {
                    wrapper: self.handle_wrapper(&p.ct.base).ok_or("unknown handle")?.wrapper.clone(),
                    optional: p.field.optional,
                },
                (0, _) if self.plain(&p.base) => Shape::Value,
                (1, _) if p.base == "char" && p.input => Shape::Str { optional: p.field.optional },
                (1, Some(TypeKind::Handle)) if !p.input && !p.field.optional => {
                    let info = self.handle_wrapper(&p.ct.base).ok_or("unknown handle")?;
                    Shape::OutHandle { wrapper: info.wrapper.clone(), release: self.release_for(f, &p.ct.base) }
                }
                (1, Some(TypeKind::Struct)) if p.input => match self.safe_struct(&p.base) {
                    Some(chained) => Shape::StructIn { optional: p.field.optional, chained },
                    None => return Err(format!("{}: struct with pointers", p.field.name)),
                },
                (1, Some(TypeKind::Struct)) if p.field.dir == Some(Dir::Inout) && p.base.ends_with("_desc_t") => {
                    match self.safe_struct(&p.base) {
                        Some(chained) => Shape::StructInOut { chained },
                        None => return Err(format!("{}: struct with pointers", p.field.name)),
                    }
                }
                (1, Some(TypeKind::Struct)) if !p.field.optional => match self.safe_struct(&p.base) {
                    Some(_) => Shape::OutStruct,
                    None => return Err(format!("{}: struct with pointers", p.field.name)),
                },
                (1, _) if !p.input && self.plain(&p.base) && !self.is_struct(&p.base) && p.base != "char" => {
                    if p.field.optional {
                        return Err(format!("{}: optional output", p.field.name));
                    }
                    if p.field.dir == Some(Dir::Inout) {
                        Shape::ScalarInOut
                    } else {
                        Shape::OutScalar
                    }
                }
                (2, _) if p.base == "char" && p.ct.konst && !p.input && !p.field.optional => Shape::OutStr,
                _ => return Err(format!("{}: no safe shape for `{}`", p.field.name, p.field.ty)),
            };
            shapes[i] = Some(s);
        }
        let shapes: Vec<Shape> = shapes.into_iter().map(|s| s.expect("every parameter shaped")).collect();
        // Recorded work writes its outputs when it runs, long after the call.
        if deferred(f) {
            let later = |s: &Shape| {
                matches!(
                    s,
                    Shape::OutHandle { .. }
                        | Shape::OutStruct
                        | Shape::OutScalar
                        | Shape::OutStr
                        | Shape::CountArray { .. }
                        | Shape::SliceOut
                        | Shape::ScalarInOut
                        | Shape::StructInOut { .. }
                )
            };
            if let Some(i) = shapes.iter().position(later) {
                return Err(format!("{}: written when the recorded work runs", ps[i].field.name));
            }
        }
        Ok(shapes)
    }
}

/// Whether `f` records work that runs later (`zeCommandListAppend*`): what its pointers point
/// to is read (or written) when the work runs.
pub(super) fn deferred(f: &Function) -> bool {
    f.name.contains("Append")
}
