//! Parameters of one function, as the validation classifies them (over the shared model of
//! `crate::params`).

use super::*;

#[derive(Debug, Clone)]
pub(super) enum Pointee {
    Int(IntTy),
    Enum(String),
    Struct(String),
    Other,
}

#[derive(Debug, Clone)]
pub(super) enum PK {
    Handle,
    Ptr { range: Option<RangeLen>, pointee: Pointee, single: bool },
    Int(IntTy),
    /// Enum or flags by value (resolved type name).
    Enum(String),
    /// Struct by value (resolved name).
    Struct(String),
    Other,
}

pub(super) struct PInfo<'a> {
    pub(super) field: &'a Field,
    pub(super) ct: CType,
    pub(super) kind: PK,
    /// `[in]` (or a `const` pointee).
    pub(super) is_in: bool,
}

impl PInfo<'_> {
    pub(super) fn ident(&self) -> proc_macro2::Ident {
        ident(&self.field.name)
    }

    /// A pointer rule 2 guarantees non-null.
    pub(super) fn checked_non_null(&self) -> bool {
        matches!(self.kind, PK::Ptr { range: None, .. } | PK::Handle) && !self.field.optional
    }

    /// Whether the outermost pointer is `*const`.
    pub(super) fn outer_const(&self) -> bool {
        match self.ct.ptrs.len() {
            0 => false,
            1 => self.ct.konst,
            n => self.ct.ptrs[n - 2],
        }
    }

    /// A single, non-range struct pointer: (struct).
    pub(super) fn single_struct(&self) -> Option<&str> {
        match &self.kind {
            PK::Ptr { range: None, pointee: Pointee::Struct(s), single: true } => Some(s),
            _ => None,
        }
    }
}
