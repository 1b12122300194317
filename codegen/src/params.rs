//! One parameter model: what each parameter of a function is, computed once from its C type
//! and annotations, and read by every emitter that needs more than the C declaration (the
//! ICD's conversions in [`crate::emit_icd`], parameter validation in [`crate::emit_validate`]).
//!
//! * the C type, parsed, and its base with typedefs resolved, and what kind of type that is;
//! * the effective direction: a `const` pointee is an input whatever the annotation says;
//! * a `[range(0, n)]` normalised once: backticks and spaces trimmed, the bound resolved to the
//!   index of an integer parameter (`n`) or of a pointer to one (`*pCount`), or a reason why
//!   it cannot be.

use crate::model::{Api, CType, TypeKind};
use crate::spec::{Dir, Field, Function};

/// The element count of a `[range(0, n)]`: a parameter's value, or the value it points to
/// (indexes into the function's parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeLen {
    Param(usize),
    Deref(usize),
}

/// One parameter of a function.
#[derive(Debug, Clone)]
pub struct Param<'a> {
    pub field: &'a Field,
    pub ct: CType,
    /// The base type with typedefs resolved (`ze_bool_t` → `uint8_t`).
    pub base: String,
    /// What kind of type the base is (`None` for scalars and `void`).
    pub kind: Option<TypeKind>,
    /// Read by the callee only: `[in]`, or a `const` pointee whatever the annotation says.
    pub input: bool,
    /// The normalised `[range]` bound: `None` without one, `Err(why)` when it cannot be used.
    pub range: Option<Result<RangeLen, String>>,
    /// Whether a `[range]` starts at 0 (`[range(1, n)]` exists too).
    pub range_from_zero: bool,
}

impl Param<'_> {
    /// Whether what the outermost pointer points to is `const` (false for a value).
    pub fn pointee_const(&self) -> bool {
        pointee_const(&self.ct)
    }

    /// Whether the parameter is a plain integer (by value).
    pub fn is_integer(&self) -> bool {
        self.ct.ptrs.is_empty() && is_integer(&self.base)
    }

    /// Whether the parameter is a pointer to one integer.
    pub fn is_integer_pointer(&self) -> bool {
        self.ct.ptrs.len() == 1 && is_integer(&self.base) && self.base != "char"
    }
}

/// Integer C scalars (what a range count may be).
pub fn is_integer(base: &str) -> bool {
    matches!(
        base,
        "uint8_t"
            | "int8_t"
            | "unsigned char"
            | "signed char"
            | "char"
            | "uint16_t"
            | "int16_t"
            | "uint32_t"
            | "int32_t"
            | "unsigned int"
            | "unsigned"
            | "int"
            | "uint64_t"
            | "int64_t"
            | "size_t"
            | "uintptr_t"
            | "intptr_t"
    )
}

fn pointee_const(ct: &CType) -> bool {
    match ct.ptrs.len() {
        0 => false,
        1 => ct.konst,
        n => ct.ptrs[n - 2],
    }
}

/// The bound of a range, normalised: `` `*pCount` `` → `*pCount`.
fn bound(s: &str) -> &str {
    s.trim().trim_matches('`').trim()
}

/// The parameters of `f`.
pub fn of_function<'a>(api: &Api, f: &'a Function) -> Vec<Param<'a>> {
    let mut ps: Vec<Param<'a>> = f
        .params
        .iter()
        .map(|p| {
            let ct = CType::parse(&p.ty);
            let base = api.resolve_typedef(&ct.base).to_string();
            let kind = api.type_kind(&base);
            // A `const` pointee cannot be written, whatever its annotation says.
            let input = pointee_const(&ct) || matches!(p.dir, None | Some(Dir::In));
            Param { field: p, ct, base, kind, input, range: None, range_from_zero: false }
        })
        .collect();
    for i in 0..ps.len() {
        let Some((a, b)) = &ps[i].field.range else { continue };
        let (a, b) = (bound(a), bound(b));
        let find = |n: &str| f.params.iter().position(|q| q.name == n);
        ps[i].range_from_zero = a == "0";
        let len = if let Some(n) = b.strip_prefix('*') {
            match find(n.trim()) {
                None => Err(format!("{}: range bound `{b}` names no parameter", f.name)),
                Some(j) if ps[j].is_integer_pointer() => Ok(RangeLen::Deref(j)),
                Some(_) => Err(format!("{}: range bound `{b}` is not a pointer to an integer", f.name)),
            }
        } else {
            match find(b) {
                None => Err(format!("{}: range bound `{b}` names no parameter", f.name)),
                Some(j) if ps[j].is_integer() => Ok(RangeLen::Param(j)),
                Some(_) => Err(format!("{}: range bound `{b}` is not an integer parameter", f.name)),
            }
        };
        ps[i].range = Some(len);
    }
    ps
}
