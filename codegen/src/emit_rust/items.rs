//! Namespace modules (`zekit-sys/src/<ns>.rs`): macros, handles, typedefs, callbacks,
//! structs, unions and default structs.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::helpers::*;
use super::{ident, Emitter, LayoutRow};
use crate::emit_c::field_doc;
use crate::model::CType;
use crate::spec::*;

impl Emitter<'_> {
    pub(super) fn emit_macro(&mut self, m: &Macro) -> TokenStream {
        // Calling-convention and export decorations (`ZE_APICALL`, `ZE_APIEXPORT`, ...) are
        // conditional C macros with no Rust meaning: skipped.
        if m.condition.is_some() {
            return quote!();
        }
        let name = ident(&m.name);
        let doc = item_doc(m.doc.as_deref(), m.since.as_deref());
        if let Some(args) = &m.args {
            // Function-like macros: the version and bit helpers become `const fn`s; any
            // other function-like macro has no typed Rust equivalent and is skipped.
            let ns_prefix = format!("{}_", crate::model::ns_of_name(&m.name).unwrap_or("ze").to_uppercase());
            let suffix = m.name.strip_prefix(&ns_prefix).unwrap_or(&m.name);
            let (expected, body) = match suffix {
                "MAKE_VERSION" => (
                    "((_major<<16)|(_minor&0x0000ffff))",
                    quote! { pub const fn #name(major: u32, minor: u32) -> u32 { (major << 16) | (minor & 0x0000ffff) } },
                ),
                "MAJOR_VERSION" => ("(_ver>>16)", quote! { pub const fn #name(ver: u32) -> u32 { ver >> 16 } }),
                "MINOR_VERSION" => {
                    ("(_ver&0x0000ffff)", quote! { pub const fn #name(ver: u32) -> u32 { ver & 0x0000ffff } })
                }
                "BIT" => ("(1<<_i)", quote! { pub const fn #name(i: u32) -> u32 { 1 << i } }),
                _ => return quote!(),
            };
            if squash(&m.value) != expected {
                self.errors.push(format!(
                    "function-like macro {}({}) has body `{}`; emit_rust.rs translates `{expected}`",
                    m.name,
                    args.join(", "),
                    m.value
                ));
            }
            self.claim(&m.name);
            return quote! { #doc #body };
        }
        let v = m.value.trim();
        if let Some(s) = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            let text = s.replace("\\\"", "\"").replace("\\\\", "\\");
            let lit = lit_str(&text);
            let mut bytes = text.into_bytes();
            bytes.push(0);
            let blit = Literal::byte_string(&bytes);
            let bname = ident(&format!("{}_BYTES", m.name));
            let bdoc = lit_str(&format!(" [`{}`] as a nul-terminated C string.", m.name));
            self.claim(&m.name);
            self.claim(&bname.to_string());
            return quote! {
                #doc
                pub const #name: &str = #lit;
                #[doc = #bdoc]
                pub const #bname: &[u8] = #blit;
            };
        }
        // `(~(0ULL))` and friends: all ones of an unsigned 64-bit integer.
        let all_ones = squash(v).trim_start_matches('(').trim_end_matches(')').to_ascii_lowercase();
        let wide = all_ones.contains("ull");
        let value: Option<i128> = if all_ones == "~(0ull" || all_ones == "~0ull" {
            Some(u64::MAX as i128)
        } else {
            self.api.values.get(&m.name).copied().or_else(|| self.api.eval(v)).map(i128::from)
        };
        let Some(value) = value else {
            // Not a constant expression (none in the spec today): nothing to emit.
            return quote!();
        };
        let plain = v.chars().all(|c| c.is_ascii_alphanumeric());
        let doc = if plain {
            doc
        } else {
            let c = lit_str(&format!(" C: `{v}`"));
            quote!(#doc #[doc = #c])
        };
        self.claim(&m.name);
        if value < 0 {
            let lit = Literal::i64_unsuffixed(value as i64);
            return quote! { #doc pub const #name: i64 = #lit; };
        }
        let value = value as u64;
        if value > u32::MAX as u64 || wide {
            let lit = if value == u64::MAX { lit_hex(value, 16) } else { Literal::u64_unsuffixed(value) };
            quote! { #doc pub const #name: u64 = #lit; }
        } else {
            let lit = if v.starts_with("0x") || v.starts_with("0X") || v.contains("MAKE_VERSION") {
                lit_hex(value, 8)
            } else {
                Literal::u64_unsuffixed(value)
            };
            quote! { #doc pub const #name: u32 = #lit; }
        }
    }

    pub(super) fn emit_handle(&mut self, h: &Handle) -> TokenStream {
        let doc = item_doc(h.doc.as_deref(), h.since.as_deref());
        let name = ident(&h.name);
        self.claim(&h.name);
        if let Some(a) = &h.alias {
            let a = self.base_type(a);
            return quote! { #doc pub type #name = #a; };
        }
        let opaque_name = format!("_{}", h.name);
        self.claim(&opaque_name);
        let opaque = ident(&opaque_name);
        let odoc = lit_str(&format!(" Opaque object behind [`{}`].", h.name));
        quote! {
            #[doc = #odoc]
            #[repr(C)]
            pub struct #opaque { _p: [u8; 0] }
            #doc
            pub type #name = *mut #opaque;
        }
    }

    pub(super) fn emit_typedef(&mut self, t: &Typedef) -> TokenStream {
        let doc = item_doc(t.doc.as_deref(), t.since.as_deref());
        let name = ident(&t.name);
        self.claim(&t.name);
        let ty = self.rust_type(&t.ty);
        quote! { #doc pub type #name = #ty; }
    }

    pub(super) fn emit_callback(&mut self, cb: &Callback) -> TokenStream {
        let doc = item_doc(cb.doc.as_deref(), cb.since.as_deref());
        let name = ident(&cb.name);
        self.claim(&cb.name);
        // `ZE_CALLBACK_CONV` is `__stdcall` on Windows: Rust's "system" ABI.
        let system = cb.convention.as_deref().is_some_and(|c| c.ends_with("CALLBACK_CONV"));
        let ty = self.fn_ptr(&cb.params, Some(&cb.ret), system);
        quote! { #doc pub type #name = #ty; }
    }

    /// The member value of a struct's `stype` default: the first `stype` enumerator.
    pub(super) fn stype_default(&mut self, s: &Struct, members: &[&Field]) -> Option<TokenStream> {
        let first = s.stype.first()?;
        // Upstream tags a few plain structs (zes_uuid_t) with a structure type they have no
        // member for: nothing to set.
        if !members.iter().any(|m| m.name == "stype") {
            return None;
        }
        if !self.api.values.contains_key(first) {
            self.errors.push(format!("struct {}: stype `{first}` is not an enumerator", s.name));
            return None;
        }
        let i = ident(first);
        Some(quote!(#i))
    }

    pub(super) fn emit_struct(&mut self, s: &Struct, is_union: bool) -> TokenStream {
        let api = self.api;
        let doc = item_doc(s.doc.as_deref(), s.since.as_deref());
        let name = ident(&s.name);
        let name_str = lit_str(&s.name);
        self.claim(&s.name);
        let members = api.all_members(s);
        let mut fields = vec![];
        let mut dbg = vec![];
        let mut row = vec![];
        for m in &members {
            let mi = ident(&m.name);
            let ty = self.field_type(m);
            let mdoc = doc_attrs([field_doc(m)]);
            fields.push(quote! { #mdoc pub #mi: #ty });
            let ms = lit_str(&m.name);
            let c = CType::parse(&m.ty);
            if m.array.is_some() && c.base == "char" && !c.is_pointer() {
                dbg.push(quote! { .field(#ms, &crate::CharArray(&self.#mi)) });
            } else {
                dbg.push(quote! { .field(#ms, &self.#mi) });
            }
            row.push(m.name.clone());
        }
        let expected = api.layouts.get(&s.name).map(|l| (l.size, l.align, l.members.iter().map(|m| m.1).collect()));
        self.layouts.push((s.name.clone(), LayoutRow { name: s.name.clone(), members: row, expected }));

        let stype = if is_union { None } else { self.stype_default(s, &members) };
        let default_body = match &stype {
            Some(v) => quote! { Self { stype: #v, ..unsafe { ::core::mem::zeroed() } } },
            None => quote! { unsafe { ::core::mem::zeroed() } },
        };
        let default_doc = match (s.stype.first(), stype.is_some()) {
            (Some(st), true) => format!(" All members zero, `stype` = `{st}`."),
            _ => " All members zero.".to_string(),
        };
        let default_doc = lit_str(&default_doc);
        if is_union {
            return quote! {
                #doc
                #[repr(C)]
                #[derive(Clone, Copy)]
                pub union #name { #(#fields),* }

                impl Default for #name {
                    #[doc = #default_doc]
                    fn default() -> Self { #default_body }
                }

                impl ::core::fmt::Debug for #name {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.debug_struct(#name_str).finish_non_exhaustive()
                    }
                }
            };
        }
        quote! {
            #doc
            #[repr(C)]
            #[derive(Clone, Copy)]
            pub struct #name { #(#fields),* }

            impl Default for #name {
                #[doc = #default_doc]
                fn default() -> Self { #default_body }
            }

            impl ::core::fmt::Debug for #name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(#name_str) #(#dbg)* .finish()
                }
            }
        }
    }

    /// A `kind: default_struct` (runtime namespace): a `const` of its base struct.
    pub(super) fn emit_default_struct(&mut self, ds: &DefaultStruct) -> TokenStream {
        let api = self.api;
        let doc = item_doc(ds.doc.as_deref(), ds.since.as_deref());
        let name = ident(&ds.name);
        self.claim(&ds.name);
        let Some(Entry::Struct(base)) = api.entry(&ds.base) else {
            self.errors.push(format!("default struct {}: base `{}` is not a struct", ds.name, ds.base));
            return quote!();
        };
        let base_i = ident(&base.name);
        let mut inits = vec![];
        let mut all = true;
        for m in api.all_members(base) {
            let mi = ident(&m.name);
            let init = ds.members.iter().find(|d| d.name == m.name).and_then(|d| d.init.as_deref());
            let listed = ds.members.iter().any(|d| d.name == m.name);
            let init = match init {
                None | Some("nullptr") | Some("NULL") => None,
                Some(v) => Some(v.trim()),
            };
            let c = CType::parse(&m.ty);
            let value = match init {
                None if !listed => {
                    all = false;
                    continue;
                }
                None if c.is_pointer() => {
                    let n = c.ptrs.len();
                    let outer_const = if n == 1 { c.konst } else { c.ptrs[n - 2] };
                    if outer_const {
                        quote!(::core::ptr::null())
                    } else {
                        quote!(::core::ptr::null_mut())
                    }
                }
                None => quote!(unsafe { ::core::mem::zeroed() }),
                Some(v) => match self.init_expr(&m.ty, v) {
                    Some(t) => t,
                    None if v == "0" => quote!(unsafe { ::core::mem::zeroed() }),
                    None => {
                        self.errors.push(format!("default struct {}: cannot express `{}` = `{v}`", ds.name, m.name));
                        continue;
                    }
                },
            };
            inits.push(quote!(#mi: #value));
        }
        let rest = if all { quote!() } else { quote!(..unsafe { ::core::mem::zeroed() }) };
        quote! {
            #doc
            pub const #name: #base_i = #base_i { #(#inits,)* #rest };
        }
    }

    /// A constant C initialiser (`A | B`, an enumerator, a number) for a member of type `ty`.
    pub(super) fn init_expr(&mut self, ty: &str, v: &str) -> Option<TokenStream> {
        let api = self.api;
        let c = CType::parse(ty);
        if c.is_pointer() {
            return None;
        }
        let base = api.resolve_typedef(&c.base).to_string();
        match api.type_kind(&base)? {
            crate::model::TypeKind::Enum | crate::model::TypeKind::FlagBits => {
                api.values.get(v)?;
                let i = ident(v);
                Some(quote!(#i))
            }
            crate::model::TypeKind::Flags => {
                let parts: Vec<&str> = v.split('|').map(str::trim).collect();
                let mut ps = vec![];
                for p in parts {
                    api.values.get(p)?;
                    let i = ident(p);
                    ps.push(quote!(#i.0));
                }
                let t = ident(&c.base);
                Some(quote!(#t(#(#ps)|*)))
            }
            crate::model::TypeKind::Scalar { float, .. } => {
                let n = api.eval(v)?;
                if float {
                    let l = Literal::f64_unsuffixed(n as f64);
                    Some(quote!(#l))
                } else {
                    let l = Literal::i64_unsuffixed(n);
                    Some(quote!(#l))
                }
            }
            _ => None,
        }
    }

    pub(super) fn emit_namespace(&mut self, ns: &str) -> TokenStream {
        let api = self.api;
        let mut items = vec![];
        for (_, d) in api.docs(ns) {
            let t = match &d.entry {
                Entry::File(_) | Entry::Class(_) | Entry::Function(_) | Entry::Env(_) => continue,
                Entry::Macro(m) => self.emit_macro(m),
                Entry::Typedef(t) => self.emit_typedef(t),
                Entry::Handle(h) => self.emit_handle(h),
                Entry::Enum(e) => self.emit_enum(e),
                Entry::Flags(e) => self.emit_flags(e),
                Entry::Struct(s) => self.emit_struct(s, false),
                Entry::Union(s) => self.emit_struct(s, true),
                Entry::Callback(c) => self.emit_callback(c),
                Entry::DefaultStruct(ds) => self.emit_default_struct(ds),
            };
            items.push(t);
        }
        let doc = lit_str(&format!(" Types and constants of `{ns}_api.h`."));
        quote! {
            #![doc = #doc]
            #[allow(unused_imports)]
            use crate::*;
            #[allow(unused_imports)]
            use ::core::ffi::{c_char, c_int, c_void};
            #(#items)*
        }
    }
}
