//! Type mapping: Rust identifiers for C names, and the Rust spelling of C scalar, pointer,
//! array and function-pointer types.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::helpers::lit_usize;
use super::Emitter;
use crate::model::CType;
use crate::spec::Field;

/// Rust keywords (strict and reserved, all editions) that C member names may collide with.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
    "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move",
    "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// A Rust identifier for a C name: keywords become raw identifiers (`r#type`); the few
/// words that cannot be raw get a trailing underscore.
pub fn ident(name: &str) -> Ident {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => Ident::new(&format!("{name}_"), Span::call_site()),
        n if KEYWORDS.contains(&n) => Ident::new_raw(n, Span::call_site()),
        n => Ident::new(n, Span::call_site()),
    }
}

/// The Rust spelling of a C scalar type (`uint32_t` → `u32`), `None` for named types.
pub fn scalar_tokens(name: &str) -> Option<TokenStream> {
    Some(match name {
        "uint8_t" | "unsigned char" => quote!(u8),
        "int8_t" | "signed char" => quote!(i8),
        "char" => quote!(c_char),
        "uint16_t" => quote!(u16),
        "int16_t" => quote!(i16),
        "uint32_t" | "unsigned int" | "unsigned" => quote!(u32),
        "int32_t" => quote!(i32),
        "int" => quote!(c_int),
        "uint64_t" => quote!(u64),
        "int64_t" => quote!(i64),
        "size_t" | "uintptr_t" => quote!(usize),
        "intptr_t" => quote!(isize),
        "float" => quote!(f32),
        "double" => quote!(f64),
        "void" => quote!(c_void),
        _ => return None,
    })
}

/// The Rust spelling of a C type in zekit-sys terms: `const char**` → `*mut *const c_char`.
pub fn rust_type_tokens(ty: &str) -> TokenStream {
    let c = CType::parse(ty);
    let base = scalar_tokens(&c.base).unwrap_or_else(|| {
        let i = ident(&c.base);
        quote!(#i)
    });
    behind_pointers(&c, base)
}

/// `base` (the Rust spelling of `c`'s base type) behind `c`'s pointers, each `*const` or `*mut`
/// as `c` says: the one pointer mapping of every Rust emitter.
fn behind_pointers(c: &CType, base: TokenStream) -> TokenStream {
    let mut t = base;
    let mut konst = c.konst;
    for p in &c.ptrs {
        t = if konst { quote!(*const #t) } else { quote!(*mut #t) };
        konst = *p;
    }
    t
}

impl Emitter<'_> {
    pub(super) fn base_type(&mut self, name: &str) -> TokenStream {
        if let Some(t) = scalar_tokens(name) {
            return t;
        }
        if self.api.type_kind(name).is_none() && !self.extra_types.contains(name) {
            self.errors.push(format!("unknown type `{name}`"));
        }
        let i = ident(name);
        quote!(#i)
    }

    /// The Rust spelling of a C type: `const char**` → `*mut *const c_char`.
    pub(super) fn rust_type(&mut self, ty: &str) -> TokenStream {
        let c = CType::parse(ty);
        let base = self.base_type(&c.base);
        behind_pointers(&c, base)
    }

    pub(super) fn field_type(&mut self, f: &Field) -> TokenStream {
        let t = self.rust_type(&f.ty);
        match &f.array {
            Some(a) => match self.api.eval(a) {
                Some(n) if n >= 0 => {
                    let n = lit_usize(n as u64);
                    quote!([#t; #n])
                }
                _ => {
                    self.errors.push(format!("array length `{a}` of `{}` does not evaluate", f.name));
                    quote!([#t; 0])
                }
            },
            None => t,
        }
    }

    /// `Option<unsafe extern "C" fn(a: A, ...) -> R>`.
    pub(super) fn fn_ptr(&mut self, params: &[Field], ret: Option<&str>, system: bool) -> TokenStream {
        let ps: Vec<TokenStream> = params
            .iter()
            .map(|p| {
                let n = ident(&p.name);
                let t = self.rust_type(&p.ty);
                quote!(#n: #t)
            })
            .collect();
        let ret = match ret {
            None | Some("void") => quote!(),
            Some(r) => {
                let r = self.rust_type(r);
                quote!(-> #r)
            }
        };
        let abi = if system { quote!(extern "system") } else { quote!(extern "C") };
        quote!(Option<unsafe #abi fn(#(#ps),*) #ret>)
    }
}
