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

/// A parameter: the shared model's account of it ([`params::Param`], reached through `Deref`)
/// and how the validation classifies it.
pub(super) struct PInfo<'a> {
    pub(super) model: params::Param<'a>,
    pub(super) kind: PK,
}

impl<'a> std::ops::Deref for PInfo<'a> {
    type Target = params::Param<'a>;
    fn deref(&self) -> &params::Param<'a> {
        &self.model
    }
}

impl PInfo<'_> {
    pub(super) fn ident(&self) -> proc_macro2::Ident {
        ident(&self.field.name)
    }

    /// A pointer rule 2 guarantees non-null.
    pub(super) fn checked_non_null(&self) -> bool {
        matches!(self.kind, PK::Ptr { range: None, .. } | PK::Handle) && !self.field.optional
    }

    /// A single, non-range struct pointer: (struct).
    pub(super) fn single_struct(&self) -> Option<&str> {
        match &self.kind {
            PK::Ptr { range: None, pointee: Pointee::Struct(s), single: true } => Some(s),
            _ => None,
        }
    }
}
