//! C integer types: promotions, usual arithmetic conversions, wrapping and literals.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct IntTy {
    pub(super) bits: u32,
    pub(super) signed: bool,
    pub(super) name: &'static str,
}

impl IntTy {
    pub(super) const INT: IntTy = IntTy { bits: 32, signed: true, name: "i32" };
    pub(super) const U32: IntTy = IntTy { bits: 32, signed: false, name: "u32" };
    pub(super) const I64: IntTy = IntTy { bits: 64, signed: true, name: "i64" };
    pub(super) const USIZE: IntTy = IntTy { bits: 64, signed: false, name: "usize" };

    pub(super) fn of_scalar(name: &str) -> Option<IntTy> {
        let (bits, signed, name) = match name {
            "uint8_t" | "unsigned char" => (8, false, "u8"),
            "int8_t" | "signed char" | "char" => (8, true, "i8"),
            "uint16_t" => (16, false, "u16"),
            "int16_t" => (16, true, "i16"),
            "uint32_t" | "unsigned int" | "unsigned" => (32, false, "u32"),
            "int32_t" | "int" => (32, true, "i32"),
            "uint64_t" => (64, false, "u64"),
            "int64_t" => (64, true, "i64"),
            "size_t" | "uintptr_t" => (64, false, "usize"),
            "intptr_t" => (64, true, "isize"),
            _ => return None,
        };
        Some(IntTy { bits, signed, name })
    }

    /// C's integer promotion.
    pub(super) fn promote(self) -> IntTy {
        if self.bits < 32 {
            IntTy::INT
        } else {
            self
        }
    }

    /// `v` converted to this type (C's modular conversion).
    pub(super) fn wrap(self, v: i128) -> i128 {
        let m = (1i128 << self.bits) - 1;
        let u = v & m;
        if self.signed && u >= 1i128 << (self.bits - 1) {
            u - (1i128 << self.bits)
        } else {
            u
        }
    }

    pub(super) fn tokens(self) -> TokenStream {
        let i = format_ident!("{}", self.name);
        quote!(#i)
    }

    /// A typed literal of `v` (already in range).
    pub(super) fn lit(self, v: i128) -> TokenStream {
        let v = self.wrap(v);
        if v < 0 {
            let name = match self.name {
                "i8" => "u8",
                "i16" => "u16",
                "i32" => "u32",
                "i64" => "u64",
                _ => "usize",
            };
            let unsigned = IntTy { signed: false, name, ..self };
            let u = unsigned.lit(unsigned.wrap(v));
            let t = self.tokens();
            return quote!((#u as #t));
        }
        let l: Literal = format!("{v}{}", self.name).parse().expect("integer literal");
        quote!(#l)
    }
}

/// C's usual arithmetic conversions.
pub(super) fn common(a: IntTy, b: IntTy) -> IntTy {
    let (a, b) = (a.promote(), b.promote());
    if a.bits == b.bits && a.signed == b.signed {
        return a;
    }
    if a.signed == b.signed {
        return if a.bits > b.bits { a } else { b };
    }
    let (u, s) = if a.signed { (b, a) } else { (a, b) };
    if u.bits >= s.bits {
        u
    } else {
        s
    }
}

/// A literal's C type.
pub(super) fn literal_ty(v: i64) -> IntTy {
    if i32::try_from(v).is_ok() {
        IntTy::INT
    } else {
        IntTy::I64
    }
}
