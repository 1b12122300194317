//! Layouts: `zekit-sys/src/layouts.rs` (`LAYOUTS`, as Rust computes them) and
//! `zekit-sys/tests/layout.rs` (those against the known C numbers).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::helpers::*;
use super::{ident, Emitter};

impl Emitter<'_> {
    pub(super) fn emit_layouts(&self) -> TokenStream {
        let rows = self.layouts.iter().map(|(_, r)| {
            let t = ident(&r.name);
            let n = lit_str(&r.name);
            let ms = r.members.iter().map(|c| {
                let i = ident(c);
                let c = lit_str(c);
                quote!((#c, offset_of!(#t, #i)))
            });
            quote!((#n, size_of::<#t>(), align_of::<#t>(), &[#(#ms),*]))
        });
        quote! {
            #![doc = " Layouts of every `#[repr(C)]` struct and union, as Rust computes them."]
            use crate::*;
            use ::core::mem::{align_of, offset_of, size_of};

            /// (C type name, size, alignment, [(member C name, offset)]).
            pub type LayoutRow = (&'static str, usize, usize, &'static [(&'static str, usize)]);

            /// Size, alignment and member offsets of every struct, union, DDI table and
            /// tracing struct, in emission order.
            pub const LAYOUTS: &[LayoutRow] = &[#(#rows),*];
        }
    }

    /// `tests/layout.rs` of zekit-sys: Rust layouts against the known C numbers.
    pub(super) fn emit_layout_test(&self) -> TokenStream {
        let mut groups: BTreeMap<&str, Vec<TokenStream>> = BTreeMap::new();
        for (_, r) in &self.layouts {
            let Some((size, align, offs)) = &r.expected else { continue };
            let group = if r.name.contains("_dditable_t") {
                "ddi"
            } else if r.name.ends_with("_params_t") || r.name.ends_with("callbacks_t") {
                "tracing"
            } else {
                crate::model::ns_of_name(&r.name).unwrap_or("ze")
            };
            let t = ident(&r.name);
            let (sl, al) = (lit_usize(*size), lit_usize(*align));
            let ms = r.members.iter().zip(offs).map(|(c, off)| {
                let i = ident(c);
                let (c, o) = (lit_str(c), lit_usize(*off));
                quote!((#c, offset_of!(#t, #i), #o))
            });
            let n = lit_str(&r.name);
            groups.entry(group).or_default().push(quote! {
                check(&mut errs, #n, (size_of::<#t>(), align_of::<#t>()), (#sl, #al), &[#(#ms),*]);
            });
        }
        let fns = groups.into_iter().map(|(g, checks)| {
            let f = ident(&format!("{g}_layouts"));
            quote! {
                #[test]
                fn #f() {
                    let mut errs: Vec<String> = Vec::new();
                    #(#checks)*
                    assert!(errs.is_empty(), "{} layout mismatches:\n{}", errs.len(), errs.join("\n"));
                }
            }
        });
        quote! {
            //! Rust layouts of zekit-sys against the C layouts the model computes (which
            //! `codegen/tests/rust_layout.rs` checks against the C compiler).
            #![allow(non_snake_case, clippy::all)]
            use ::core::mem::{align_of, offset_of, size_of};
            use zekit_sys::*;

            /// Records every difference between Rust's layout of `t` (size, align, offsets)
            /// and the C numbers; `members` holds (name, Rust offset, C offset).
            fn check(
                errs: &mut Vec<String>,
                t: &str,
                rust: (usize, usize),
                c: (usize, usize),
                members: &[(&str, usize, usize)],
            ) {
                if rust.0 != c.0 {
                    errs.push(format!("sizeof({t}): Rust {}, C {}", rust.0, c.0));
                }
                if rust.1 != c.1 {
                    errs.push(format!("_Alignof({t}): Rust {}, C {}", rust.1, c.1));
                }
                for (m, r, c) in members {
                    if r != c {
                        errs.push(format!("offsetof({t}, {m}): Rust {r}, C {c}"));
                    }
                }
            }

            #(#fns)*

            #[test]
            fn ddi_tables_are_one_pointer_per_entry() {
                let mut errs = Vec::new();
                for (ns, tables) in DDI_TABLES {
                    for t in *tables {
                        if t.size != 8 * t.entries.len() {
                            errs.push(format!("{ns} {}: {} bytes for {} entries", t.type_name, t.size, t.entries.len()));
                        }
                        for (i, e) in t.entries.iter().enumerate() {
                            if e.slot != i {
                                errs.push(format!("{}: entry {} has slot {}", t.type_name, e.name, e.slot));
                            }
                        }
                    }
                }
                assert!(errs.is_empty(), "{}", errs.join("\n"));
            }
        }
    }
}
