//! Enums (open `u32` newtypes) and flags (`*_flag_t` bit and `*_flags_t` set newtypes).

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::helpers::*;
use super::{ident, Emitter, EtorOut};
use crate::model::flag_bits_name;
use crate::spec::*;

impl Emitter<'_> {
    pub(super) fn etors(&mut self, en: &Enum, type_name: &str) -> Vec<EtorOut> {
        let prefix = etor_prefix(type_name);
        let mut shorts = BTreeSet::new();
        let mut out = vec![];
        for e in &en.etors {
            let v = self.api.values.get(&e.name).copied().or_else(|| self.api.eval(&e.value));
            let value = match v {
                Some(v) if (0..=u32::MAX as i64).contains(&v) => v as u32,
                _ => {
                    self.errors.push(format!("enumerator {} = `{}` is not a u32 constant", e.name, e.value));
                    0
                }
            };
            let mut short = short_etor_name(&prefix, &e.name);
            if short == "FORCE_UINT32" || !shorts.insert(short.clone()) {
                short = e.name.clone();
                shorts.insert(short.clone());
            }
            let doc = item_doc(e.doc.as_deref(), e.since.as_deref());
            out.push(EtorOut { c_name: e.name.clone(), short, value, doc });
        }
        out
    }

    /// An open enum newtype: associated consts, `name()`, Debug/Display, C-named consts.
    pub(super) fn enum_newtype(&mut self, type_name: &str, doc: TokenStream, etors: &[EtorOut]) -> TokenStream {
        let ty = ident(type_name);
        let unknown_fmt = lit_str(&format!("{type_name}({{:#x}})"));
        self.claim(type_name);
        let force_c = format!("{}FORCE_UINT32", etor_prefix(type_name));
        let force_doc = lit_str(&format!(" Forces the C enum `{type_name}` to 32 bits; not a value."));
        let mut assoc = vec![];
        let mut module = vec![];
        let mut seen = BTreeSet::new();
        let mut arms = vec![];
        for e in etors {
            let s = ident(&e.short);
            let c = ident(&e.c_name);
            let v = lit_value(e.value);
            let d = &e.doc;
            assoc.push(quote! { #d pub const #s: Self = Self(#v); });
            module.push(quote! { #d pub const #c: #ty = #ty::#s; });
            self.claim(&e.c_name);
            if seen.insert(e.value) {
                let n = lit_str(&e.c_name);
                arms.push(quote! { #v => Some(#n), });
            }
        }
        let force_i = ident(&force_c);
        self.claim(&force_c);
        let force_v = lit_hex(0x7fff_ffff, 8);
        module.push(quote! { #[doc = #force_doc] pub const #force_i: #ty = #ty::FORCE_UINT32; });
        if seen.insert(0x7fff_ffff) {
            let n = lit_str(&force_c);
            arms.push(quote! { #force_v => Some(#n), });
        }
        quote! {
            #doc
            #[repr(transparent)]
            #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
            pub struct #ty(pub u32);

            impl #ty {
                #(#assoc)*
                #[doc = #force_doc]
                pub const FORCE_UINT32: Self = Self(#force_v);

                /// The C enumerator name of this value, if it has one.
                pub const fn name(self) -> Option<&'static str> {
                    match self.0 {
                        #(#arms)*
                        _ => None,
                    }
                }
            }

            impl ::core::fmt::Debug for #ty {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    match self.name() {
                        Some(n) => f.write_str(n),
                        None => write!(f, #unknown_fmt, self.0),
                    }
                }
            }

            impl ::core::fmt::Display for #ty {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::core::fmt::Debug::fmt(self, f)
                }
            }

            #(#module)*
        }
    }

    pub(super) fn emit_enum(&mut self, en: &Enum) -> TokenStream {
        let doc = item_doc(en.doc.as_deref(), en.since.as_deref());
        let etors = self.etors(en, &en.name);
        self.enum_newtype(&en.name, doc, &etors)
    }

    /// `kind: flags`: the `*_flag_t` bit newtype and the `*_flags_t` set newtype.
    pub(super) fn emit_flags(&mut self, en: &Enum) -> TokenStream {
        let bits_name = flag_bits_name(&en.name);
        let doc = item_doc(en.doc.as_deref(), en.since.as_deref());
        let etors = self.etors(en, &bits_name);
        let bits_tokens = self.enum_newtype(&bits_name, doc.clone(), &etors);
        let flags = ident(&en.name);
        let bits = ident(&bits_name);
        self.claim(&en.name);
        let mut all = 0u32;
        let mut assoc = vec![];
        let mut table = vec![];
        for e in &etors {
            all |= e.value;
            let s = ident(&e.short);
            let v = lit_hex(e.value as u64, 8);
            let d = &e.doc;
            assoc.push(quote! { #d pub const #s: Self = Self(#v); });
            let n = lit_str(&e.c_name);
            table.push(quote!((#v, #n)));
        }
        let all = lit_hex(all as u64, 8);
        let set_doc = lit_str(&format!(" A set of [`{bits_name}`] bits (C: `typedef uint32_t {}`).", en.name));
        let sep = if doc.is_empty() { quote!() } else { quote!(#[doc = ""]) };
        quote! {
            #bits_tokens

            #doc
            #sep
            #[doc = #set_doc]
            #[repr(transparent)]
            #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
            pub struct #flags(pub u32);

            impl #flags {
                #(#assoc)*

                /// No bits set.
                pub const fn empty() -> Self { Self(0) }
                /// Every bit the spec defines.
                pub const fn all_known() -> Self { Self(#all) }
                /// The raw bits.
                pub const fn bits(self) -> u32 { self.0 }
                /// From raw bits, unknown ones kept.
                pub const fn from_bits_retain(bits: u32) -> Self { Self(bits) }
                /// No bit set.
                pub const fn is_empty(self) -> bool { self.0 == 0 }
                /// Every bit of `other` is set in `self`.
                pub fn contains(self, other: impl Into<Self>) -> bool {
                    let o = other.into().0;
                    self.0 & o == o
                }
                /// Some bit of `other` is set in `self`.
                pub fn intersects(self, other: impl Into<Self>) -> bool {
                    self.0 & other.into().0 != 0
                }
            }

            impl From<#bits> for #flags {
                fn from(b: #bits) -> Self { Self(b.0) }
            }

            impl<T: Into<#flags>> ::core::ops::BitOr<T> for #flags {
                type Output = #flags;
                fn bitor(self, rhs: T) -> #flags { #flags(self.0 | rhs.into().0) }
            }

            impl<T: Into<#flags>> ::core::ops::BitOr<T> for #bits {
                type Output = #flags;
                fn bitor(self, rhs: T) -> #flags { #flags(self.0 | rhs.into().0) }
            }

            impl<T: Into<#flags>> ::core::ops::BitAnd<T> for #flags {
                type Output = #flags;
                fn bitand(self, rhs: T) -> #flags { #flags(self.0 & rhs.into().0) }
            }

            impl<T: Into<#flags>> ::core::ops::BitOrAssign<T> for #flags {
                fn bitor_assign(&mut self, rhs: T) { self.0 |= rhs.into().0; }
            }

            impl<T: Into<#flags>> ::core::ops::BitAndAssign<T> for #flags {
                fn bitand_assign(&mut self, rhs: T) { self.0 &= rhs.into().0; }
            }

            impl ::core::ops::Not for #flags {
                type Output = #flags;
                fn not(self) -> #flags { #flags(!self.0) }
            }

            impl ::core::fmt::Debug for #flags {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    crate::fmt_flags(f, self.0, &[#(#table),*])
                }
            }

            impl ::core::fmt::Display for #flags {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::core::fmt::Debug::fmt(self, f)
                }
            }
        }
    }
}
