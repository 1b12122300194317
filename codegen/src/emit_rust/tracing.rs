//! The legacy `ze` tracing callback types (`ze_callbacks_t`, `zekit-sys/src/tracing.rs`),
//! from `Api::tracing_tables`.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::helpers::*;
use super::{ident, Emitter, LayoutRow};
use crate::model::TracingTable;
use crate::spec::*;

impl Emitter<'_> {
    pub(super) fn emit_tracing(&mut self, tables: &[TracingTable]) -> TokenStream {
        let api = self.api;
        let mut items = vec![];
        for t in tables {
            let mut members = vec![];
            let mut row = vec![];
            for (fname, params_type, pfn, member) in &t.functions {
                let Some(Entry::Function(f)) = api.entry(fname) else { continue };
                let pt = ident(params_type);
                let mut pfields = vec![];
                let mut prow = vec![];
                for p in &f.params {
                    let pn = format!("p{}", p.name);
                    let pi = ident(&pn);
                    let ty = self.rust_type(&format!("{}*", p.ty));
                    pfields.push(quote!(pub #pi: #ty));
                    prow.push(pn);
                }
                let n = prow.len() as u64;
                let offs = (0..n).map(|i| i * 8).collect();
                self.layouts.push((
                    params_type.clone(),
                    LayoutRow { name: params_type.clone(), members: prow, expected: Some((n * 8, 8, offs)) },
                ));
                let pdoc = lit_str(&format!(" Callback function parameters for {fname}: a pointer to each parameter."));
                let cbdoc = lit_str(&format!(" Callback function-pointer for {fname}."));
                let pfn_i = ident(pfn);
                self.claim(params_type);
                self.claim(pfn);
                items.push(quote! {
                    #[doc = #pdoc]
                    #[repr(C)]
                    #[derive(Clone, Copy, Debug)]
                    pub struct #pt { #(#pfields),* }

                    impl Default for #pt {
                        fn default() -> Self { unsafe { ::core::mem::zeroed() } }
                    }

                    #[doc = #cbdoc]
                    pub type #pfn_i = Option<unsafe extern "C" fn(
                        params: *mut #pt,
                        result: ze_result_t,
                        pTracerUserData: *mut c_void,
                        ppTracerInstanceUserData: *mut *mut c_void,
                    )>;
                });
                let mi = ident(member);
                members.push(quote!(pub #mi: #pfn_i));
                row.push(member.clone());
            }
            let n = row.len() as u64;
            let offs = (0..n).map(|i| i * 8).collect();
            self.layouts.push((
                t.type_name.clone(),
                LayoutRow { name: t.type_name.clone(), members: row, expected: Some((n * 8, 8, offs)) },
            ));
            let tt = ident(&t.type_name);
            self.claim(&t.type_name);
            let tdoc = lit_str(&format!(" Table of {} callback functions pointers.", t.name));
            items.push(quote! {
                #[doc = #tdoc]
                #[repr(C)]
                #[derive(Clone, Copy, Default, Debug)]
                pub struct #tt { #(#members),* }
            });
        }
        let mut by_slot: BTreeMap<u32, &TracingTable> = BTreeMap::new();
        for t in tables {
            by_slot.insert(t.slot, t);
        }
        let mut members = vec![];
        let mut row = vec![];
        let mut offs = vec![];
        let mut off = 0u64;
        for t in by_slot.values() {
            let mi = ident(&t.name);
            let tt = ident(&t.type_name);
            members.push(quote!(pub #mi: #tt));
            row.push(t.name.clone());
            offs.push(off);
            off += 8 * t.functions.len() as u64;
        }
        self.layouts.push((
            "ze_callbacks_t".into(),
            LayoutRow { name: "ze_callbacks_t".into(), members: row, expected: Some((off, 8, offs)) },
        ));
        self.claim("ze_callbacks_t");
        quote! {
            #![doc = " Legacy tracing callbacks of `ze_api.h` (frozen at API 1.0)."]
            #[allow(unused_imports)]
            use crate::*;
            #[allow(unused_imports)]
            use ::core::ffi::{c_char, c_int, c_void};
            #(#items)*

            /// Container for all callbacks.
            #[repr(C)]
            #[derive(Clone, Copy, Default, Debug)]
            pub struct ze_callbacks_t { #(#members),* }
        }
    }
}
