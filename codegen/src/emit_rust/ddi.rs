//! DDI (`zekit-sys/src/ddi.rs`): function-pointer types, DDI tables, their getters and slot
//! listings.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::helpers::*;
use super::{ident, Emitter, LayoutRow};
use crate::model::{pfn_name, strip_ns, Version};

impl Emitter<'_> {
    pub(super) fn emit_ddi(&mut self, namespaces: &[&str]) -> TokenStream {
        let api = self.api;
        let mut items = vec![];
        let mut all = vec![];
        for &ns in namespaces {
            for (_, f) in api.functions(ns) {
                let pfn = pfn_name(ns, &f.name);
                let pi = ident(&pfn);
                self.claim(&pfn);
                let ty = self.fn_ptr(&f.params, Some(f.ret()), false);
                let mut lines = vec![format!("Function-pointer for {}.", f.name)];
                if let Some(d) = &f.doc {
                    lines.push(String::new());
                    lines.push(d.clone());
                }
                let doc = doc_attrs(lines);
                items.push(quote! { #doc pub type #pi = #ty; });
            }
            let tables = api.ddi_tables(ns);
            let mut infos = vec![];
            let mut agg = vec![];
            let mut agg_row = vec![];
            let mut agg_offs = vec![];
            let mut off = 0u64;
            for t in &tables {
                let tt = ident(&t.type_name);
                let mut members = vec![];
                let mut entries = vec![];
                let mut row = vec![];
                for (slot, r) in t.functions.iter().enumerate() {
                    let f = api.function(*r);
                    let member = format!("pfn{}", strip_ns(strip_ns(&f.name, ns), strip_ns(&f.class, ns)));
                    let mi = ident(&member);
                    let pi = ident(&pfn_name(ns, &f.name));
                    members.push(quote!(pub #mi: #pi));
                    let Version(a, b) = Version::of(f.since.as_deref());
                    let (a, b) = (Literal::u32_unsuffixed(a), Literal::u32_unsuffixed(b));
                    let (slot_l, name_l, member_l) = (lit_usize(slot as u64), lit_str(&f.name), lit_str(&member));
                    entries
                        .push(quote! { DdiEntry { slot: #slot_l, name: #name_l, member: #member_l, since: (#a, #b) } });
                    row.push(member);
                }
                let n = row.len() as u64;
                self.layouts.push((
                    t.type_name.clone(),
                    LayoutRow {
                        name: t.type_name.clone(),
                        members: row,
                        expected: Some((n * 8, 8, (0..n).map(|i| i * 8).collect())),
                    },
                ));
                self.claim(&t.type_name);
                let getter_pfn = ident(&t.getter_pfn);
                self.claim(&t.getter_pfn);
                let entries_name = entries_const_name(&t.type_name);
                let ei = ident(&entries_name);
                self.claim(&entries_name);
                let tdoc = lit_str(&format!(" Table of {} functions pointers.", t.name));
                let gdoc = lit_str(&format!(" Function-pointer for {}.", t.getter));
                let edoc = lit_str(&format!(" The slots of [`{}`], in order.", t.type_name));
                items.push(quote! {
                    #[doc = #tdoc]
                    #[repr(C)]
                    #[derive(Clone, Copy, Default, Debug)]
                    pub struct #tt { #(#members),* }

                    #[doc = #gdoc]
                    pub type #getter_pfn = Option<unsafe extern "C" fn(version: ze_api_version_t, pDdiTable: *mut #tt) -> ze_result_t>;

                    #[doc = #edoc]
                    pub const #ei: &[DdiEntry] = &[#(#entries),*];
                });
                let (ns_l, name_l, type_l, getter_l) =
                    (lit_str(ns), lit_str(&t.name), lit_str(&t.type_name), lit_str(&t.getter));
                infos.push(quote! {
                    DdiTableInfo {
                        ns: #ns_l,
                        name: #name_l,
                        type_name: #type_l,
                        getter: #getter_l,
                        size: ::core::mem::size_of::<#tt>(),
                        entries: #ei,
                    }
                });
                let ai = ident(&t.name);
                agg.push(quote!(pub #ai: #tt));
                agg_row.push((t.name.clone(), ai));
                agg_offs.push(off);
                off += 8 * n;
            }
            let agg_name = format!("{ns}_dditable_t");
            let agg_i = ident(&agg_name);
            self.claim(&agg_name);
            self.layouts.push((
                agg_name.clone(),
                LayoutRow {
                    name: agg_name.clone(),
                    members: agg_row.iter().map(|(n, _)| n.clone()).collect(),
                    expected: Some((off, 8, agg_offs)),
                },
            ));
            let tables_name = format!("{}_DDI_TABLES", ns.to_uppercase());
            let tables_i = ident(&tables_name);
            self.claim(&tables_name);
            let adoc = lit_str(&format!(" Container for all DDI tables of `{ns}`."));
            let tdoc = lit_str(&format!(" Every DDI table of `{ns}`, in the order of [`{agg_name}`]."));
            items.push(quote! {
                #[doc = #adoc]
                #[repr(C)]
                #[derive(Clone, Copy, Default, Debug)]
                pub struct #agg_i { #(#agg),* }

                #[doc = #tdoc]
                pub const #tables_i: &[DdiTableInfo] = &[#(#infos),*];
            });
            // `<ns>_dditable_driver_t`: the tables a driver points its handles at.
            let drv_name = format!("{ns}_dditable_driver_t");
            let drv_i = ident(&drv_name);
            self.claim(&drv_name);
            let ddoc = lit_str(&format!(" `{ns}` tables of a driver, as its handles point to them (`ze_handle_t`)."));
            let drv_members = agg_row.iter().map(|(n, ai)| {
                let tt = ident(&format!("{ns}_{}_dditable_t", heck_snake(n)));
                quote!(pub #ai: *mut #tt)
            });
            let drv_defaults = agg_row.iter().map(|(_, ai)| quote!(#ai: ::core::ptr::null_mut()));
            let mut drv_row = vec!["version".to_string(), "isValidFlag".to_string()];
            drv_row.extend(agg_row.iter().map(|(n, _)| n.clone()));
            let mut drv_offs = vec![0u64, 4];
            drv_offs.extend((0..agg_row.len() as u64).map(|i| 8 + 8 * i));
            self.layouts.push((
                drv_name.clone(),
                LayoutRow {
                    name: drv_name.clone(),
                    members: drv_row,
                    expected: Some((8 + 8 * agg_row.len() as u64, 8, drv_offs)),
                },
            ));
            items.push(quote! {
                #[doc = #ddoc]
                #[repr(C)]
                #[derive(Clone, Copy, Debug)]
                pub struct #drv_i {
                    pub version: ze_api_version_t,
                    pub isValidFlag: u8,
                    #(#drv_members),*
                }
                impl Default for #drv_i {
                    fn default() -> Self {
                        Self { version: ze_api_version_t(0), isValidFlag: 0, #(#drv_defaults),* }
                    }
                }
            });
            let ns_l = lit_str(ns);
            all.push(quote!((#ns_l, #tables_i)));
        }
        if namespaces.len() == 4 {
            let members = ["pCore", "pTools", "pSysman", "pRuntime"];
            self.layouts.push((
                "ze_handle_t".to_string(),
                LayoutRow {
                    name: "ze_handle_t".to_string(),
                    members: members.iter().map(|m| m.to_string()).collect(),
                    expected: Some((32, 8, vec![0, 8, 16, 24])),
                },
            ));
            items.push(quote! {
                /// The first bytes of every object handle of a driver that supports
                /// `ZE_extension_driver_ddi_handles` (`ze_ddi_common.h`).
                #[repr(C)]
                #[derive(Clone, Copy, Debug)]
                pub struct ze_handle_t {
                    pub pCore: *mut ze_dditable_driver_t,
                    pub pTools: *mut zet_dditable_driver_t,
                    pub pSysman: *mut zes_dditable_driver_t,
                    pub pRuntime: *mut zer_dditable_driver_t,
                }
            });
        }
        quote! {
            #![doc = " DDI tables (`<ns>_ddi.h`): function-pointer types, tables and their slots."]
            #[allow(unused_imports)]
            use crate::*;
            #[allow(unused_imports)]
            use ::core::ffi::{c_char, c_int, c_void};
            #(#items)*

            /// The DDI tables of every namespace: (namespace, tables).
            pub const DDI_TABLES: &[(&str, &[DdiTableInfo])] = &[#(#all),*];
        }
    }
}
