//! The safe form of a method: converting each parameter shape to its C argument and back.

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::docs::*;
use super::handles::*;
use super::methods::*;
use super::naming::*;
use super::shapes::*;
use super::Gen;
use crate::emit_rust::{ident, rust_type_tokens};
use crate::model::CType;
use crate::params::{Param, RangeLen};
use crate::spec::*;

impl Gen<'_> {
    pub(super) fn safe_method(
        &self,
        f: &Function,
        ps: &[Param],
        shapes: &[Shape],
        name: &str,
        recv: Option<&HandleInfo>,
        chain_at: Option<usize>,
    ) -> Result<TokenStream, String> {
        let m = format_ident!("{}", name);
        let cname = lit(&f.name);
        let mut doc = self.fn_doc(f);
        let mut pdoc = vec![];
        let mut args = vec![];
        let mut pre = vec![];
        let mut call_first = vec![]; // count call (arrays null)
        let mut call = vec![];
        let mut post = vec![];
        let mut outs: Vec<(TokenStream, TokenStream)> = vec![];
        let mut count: Option<(Ident, TokenStream)> = None;
        let mut arrays = vec![];
        let mut len_checks: BTreeMap<usize, Vec<(Ident, bool)>> = BTreeMap::new();
        let parent = if recv.is_some() { quote!(Some(self.keep_alive())) } else { quote!(None) };
        // Recorded work uses its handles later: lists and queues keep them alive.
        let keeps = recv.is_some_and(|h| matches!(h.class.as_str(), "CommandList" | "CommandQueue"));
        // Recorded work reads its inputs when it runs: they are copied, and the list keeps the copies.
        let copy = keeps && deferred(f);
        for (i, (p, s)) in ps.iter().zip(shapes).enumerate() {
            let n = snake_param(&p.field.name);
            let ty = rust_type_tokens(&p.field.ty);
            let base = {
                let mut c = CType::parse(&p.field.ty);
                c.ptrs.clear();
                c.konst = false;
                rust_type_tokens(&c.base)
            };
            if chain_at == Some(i) {
                let input = matches!(s, Shape::StructIn { .. });
                if input {
                    args.push(quote!(#n: &Chain<'_, #base>));
                    call.push(quote!(#n.head() as *const #base as #ty));
                } else {
                    args.push(quote!(#n: &mut Chain<'_, #base>));
                    call.push(quote!(#n.head_mut() as *mut #base));
                }
                let which = if input { "read" } else { "filled" };
                pdoc.push(format!("* `{n}`: a typed `pNext` chain headed by `{}` ({which} with its extensions)", p.base));
                continue;
            }
            match s {
                Shape::Receiver => {
                    call.push(quote!(self.as_raw()));
                }
                Shape::Handle { wrapper, optional } => {
                    let w = format_ident!("{}", wrapper);
                    if *optional {
                        args.push(quote!(#n: Option<&#w>));
                        call.push(quote!(#n.map_or(::core::ptr::null_mut(), |h| h.as_raw())));
                    } else {
                        args.push(quote!(#n: &#w));
                        call.push(quote!(#n.as_raw()));
                    }
                    if keeps {
                        if *optional {
                            post.push(quote!(if let Some(h) = #n { self.keep(h); }));
                        } else {
                            post.push(quote!(self.keep(#n);));
                        }
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::Value => {
                    args.push(quote!(#n: #ty));
                    call.push(quote!(#n));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::StructIn { optional, chained } => {
                    let pn = lit(&p.field.name);
                    if copy {
                        let k = format_ident!("{}_kept", n.to_string().trim_start_matches("r#"));
                        if *optional {
                            args.push(quote!(#n: Option<&#base>));
                            if *chained {
                                pre.push(quote!(if let Some(s) = #n { no_chain(s.pNext as *const ::core::ffi::c_void, #cname, #pn)?; }));
                            }
                            pre.push(quote!(let #k = #n.map(|s| Kept::new(*s));));
                            call.push(quote!(#k.as_ref().map_or(::core::ptr::null(), |k| k.get() as *const #base) as #ty));
                            post.push(quote!(if let Some(k) = #k { self.keep_value(k.into_keep()); }));
                        } else {
                            args.push(quote!(#n: &#base));
                            if *chained {
                                pre.push(quote!(no_chain(#n.pNext as *const ::core::ffi::c_void, #cname, #pn)?;));
                            }
                            pre.push(quote!(let #k = Kept::new(*#n);));
                            call.push(quote!(#k.get() as *const #base as #ty));
                            post.push(quote!(self.keep_value(#k.into_keep());));
                        }
                    } else if *optional {
                        args.push(quote!(#n: Option<&#base>));
                        if *chained {
                            pre.push(quote!(if let Some(s) = #n { no_chain(s.pNext as *const ::core::ffi::c_void, #cname, #pn)?; }));
                        }
                        call.push(quote!(#n.map_or(::core::ptr::null(), |s| s as *const #base) as #ty));
                    } else {
                        args.push(quote!(#n: &#base));
                        if *chained {
                            pre.push(quote!(no_chain(#n.pNext as *const ::core::ffi::c_void, #cname, #pn)?;));
                        }
                        call.push(quote!(#n as *const #base as #ty));
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::StructInOut { chained } => {
                    let pn = lit(&p.field.name);
                    args.push(quote!(#n: &mut #base));
                    if *chained {
                        pre.push(quote!(no_chain(#n.pNext as *const ::core::ffi::c_void, #cname, #pn)?;));
                    }
                    call.push(quote!(&mut *#n as *mut #base));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::ScalarInOut => {
                    args.push(quote!(#n: &mut #base));
                    call.push(quote!(&mut *#n as *mut #base));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::Str { optional } => {
                    let c = format_ident!("{}_c", n.to_string().trim_start_matches("r#"));
                    let pn = lit(&p.field.name);
                    if *optional && copy {
                        args.push(quote!(#n: Option<&str>));
                        pre.push(quote!(let #c = match #n { Some(s) => Some(Kept::new(c_string(s, #cname, #pn)?)), None => None };));
                        call.push(quote!(#c.as_ref().map_or(::core::ptr::null(), |k| k.get().as_ptr())));
                        post.push(quote!(if let Some(k) = #c { self.keep_value(k.into_keep()); }));
                    } else if *optional {
                        args.push(quote!(#n: Option<&str>));
                        pre.push(quote!(let #c = match #n { Some(s) => Some(c_string(s, #cname, #pn)?), None => None };));
                        call.push(quote!(#c.as_ref().map_or(::core::ptr::null(), |s| s.as_ptr())));
                    } else if copy {
                        args.push(quote!(#n: &str));
                        pre.push(quote!(let #c = Kept::new(c_string(#n, #cname, #pn)?);));
                        call.push(quote!(#c.get().as_ptr()));
                        post.push(quote!(self.keep_value(#c.into_keep());));
                    } else {
                        args.push(quote!(#n: &str));
                        pre.push(quote!(let #c = c_string(#n, #cname, #pn)?;));
                        call.push(quote!(#c.as_ptr()));
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::OutHandle { wrapper, release } => {
                    let w = format_ident!("{}", wrapper);
                    pre.push(quote!(let mut #n: #base = ::core::ptr::null_mut();));
                    call.push(quote!(&mut #n));
                    let rel = match release {
                        Some((r, arity)) => {
                            let rns = ident(self.ns_of(r));
                            let rf = ident(r);
                            if *arity == 2 && recv.is_some() {
                                quote!(api.fns().#rns.#rf.map(|f| Release::with_parent(f, self.as_raw())))
                            } else if *arity == 1 {
                                quote!(api.fns().#rns.#rf.map(Release::new))
                            } else {
                                quote!(None)
                            }
                        }
                        None => quote!(None),
                    };
                    let driver = if p.base == "ze_driver_handle_t" { quote!(api.note_driver(#n);) } else { quote!() };
                    post.push(driver);
                    outs.push((quote!(#w::wrap(api, #n, #parent, #rel)), quote!(#w)));
                }
                Shape::OutStruct | Shape::OutScalar => {
                    pre.push(quote!(let mut #n = <#base as Default>::default();));
                    call.push(quote!(&mut #n));
                    outs.push((quote!(#n), base.clone()));
                }
                Shape::OutStr => {
                    pre.push(quote!(let mut #n: *const ::core::ffi::c_char = ::core::ptr::null();));
                    call.push(quote!(&mut #n));
                    let sc = safety("the driver wrote null or a NUL-terminated string it owns");
                    outs.push((quote!({ #sc unsafe { copy_c_str(#n) } }), quote!(String)));
                }
                Shape::Count => {
                    pre.push(quote!(let mut #n: #base = 0;));
                    call.push(quote!(&mut #n));
                    count = Some((n.clone(), base.clone()));
                }
                Shape::CountArray { elem } => {
                    let (init, out, oty, elty) = match elem {
                        Elem::Handle(w) => {
                            let w = format_ident!("{}", w);
                            let driver = if p.base == "ze_driver_handle_t" { quote!(api.note_driver(*h);) } else { quote!() };
                            (
                                quote!(::core::ptr::null_mut()),
                                quote!(#n.iter().map(|h| { #driver #w::wrap(api, *h, #parent, None) }).collect()),
                                quote!(Vec<#w>),
                                base.clone(),
                            )
                        }
                        Elem::Struct | Elem::Scalar => (quote!(<#base as Default>::default()), quote!(#n), quote!(Vec<#base>), base.clone()),
                        Elem::Char => (quote!(0), quote!(string_from_chars(&#n)), quote!(String), base.clone()),
                        Elem::CStr => (
                            quote!(::core::ptr::null()),
                            {
                                let sc = safety("the driver wrote null or NUL-terminated strings it owns");
                                quote!(#n.iter().map(|s| { #sc unsafe { copy_c_str(*s) } }).collect())
                            },
                            quote!(Vec<String>),
                            quote!(*const ::core::ffi::c_char),
                        ),
                    };
                    arrays.push((n.clone(), init, elty));
                    call_first.push((i, quote!(::core::ptr::null_mut())));
                    call.push(quote!(#n.as_mut_ptr()));
                    outs.push((out, oty));
                }
                Shape::Len => {
                    call.push(quote!(#n));
                    pre.push(quote!(let #n: #ty;));
                }
                Shape::SliceIn { elem, optional } => {
                    let j = match &p.range {
                        Some(Ok(RangeLen::Param(j))) => *j,
                        _ => return Err("slice without length".into()),
                    };
                    len_checks.entry(j).or_default().push((n.clone(), false));
                    match elem {
                        Elem::Handle(w) => {
                            let w = format_ident!("{}", w);
                            let raws = format_ident!("{}_raw", n.to_string().trim_start_matches("r#"));
                            args.push(quote!(#n: &[&#w]));
                            pre.push(quote!(let #raws: Vec<#base> = #n.iter().map(|h| h.as_raw()).collect();));
                            if keeps {
                                post.push(quote!(for h in #n { self.keep(*h); }));
                            }
                            if *optional {
                                call.push(quote!(if #raws.is_empty() { ::core::ptr::null_mut() } else { #raws.as_ptr() as #ty }));
                            } else {
                                call.push(quote!(#raws.as_ptr() as #ty));
                            }
                        }
                        Elem::Struct => {
                            args.push(quote!(#n: &[#base]));
                            let pn = lit(&p.field.name);
                            if self.safe_struct(&p.base) == Some(true) {
                                pre.push(quote!(for s in #n { no_chain(s.pNext as *const ::core::ffi::c_void, #cname, #pn)?; }));
                            }
                            slice_call(&mut pre, &mut call, &mut post, &n, &ty, *optional, copy);
                        }
                        _ => {
                            args.push(quote!(#n: &[#base]));
                            slice_call(&mut pre, &mut call, &mut post, &n, &ty, *optional, copy);
                        }
                    }
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
                Shape::SliceOut => {
                    let j = match &p.range {
                        Some(Ok(RangeLen::Param(j))) => *j,
                        _ => return Err("slice without length".into()),
                    };
                    len_checks.entry(j).or_default().push((n.clone(), true));
                    args.push(quote!(#n: &mut [#base]));
                    call.push(quote!(#n.as_mut_ptr()));
                    pdoc.extend(self.param_doc(p, &n.to_string()));
                }
            }
        }
        // Lengths of slices: the first slice's length, the others must match.
        let mut len_stmts = vec![];
        for (j, slices) in &len_checks {
            let ln = snake_param(&ps[*j].field.name);
            let lt = rust_type_tokens(&ps[*j].field.ty);
            let pn = lit(&ps[*j].field.name);
            let (first, _) = &slices[0];
            len_stmts.push(quote!(#ln = slice_len::<#lt>(#first.len(), #cname, #pn)?;));
            for (other, _) in &slices[1..] {
                len_stmts.push(quote!(same_len(#first.len(), #other.len(), #cname)?;));
            }
        }
        // `let n: T;` placeholders were pushed into `pre` for lengths; move their assignment after.
        let ret_ty = match outs.len() {
            0 => quote!(()),
            1 => outs[0].1.clone(),
            _ => {
                let t = outs.iter().map(|(_, t)| t);
                quote!((#(#t),*))
            }
        };
        let ret_val = match outs.len() {
            0 => quote!(()),
            1 => outs[0].0.clone(),
            _ => {
                let v = outs.iter().map(|(v, _)| v);
                quote!((#(#v),*))
            }
        };
        let api_bind = if recv.is_some() { quote!(let api = self.api();) } else { quote!(let api = self;) };
        let fptr = self.fn_ptr(f);
        if let Some(at) = chain_at {
            doc.push(String::new());
            doc.push(format!("The typed-chain form: `{}` heads a chain built with [`Chain`].", ps[at].base));
        }
        let invoke = if let Some((cn, _)) = &count {
            let mut first = call.clone();
            let offset = ps.len() - call.len();
            debug_assert_eq!(offset, 0);
            for (i, t) in &call_first {
                first[*i] = t.clone();
            }
            let inits = arrays.iter().map(|(n, init, elty)| quote!(let mut #n: Vec<#elty> = vec![#init; #cn as usize];));
            let truncs = arrays.iter().map(|(n, _, _)| quote!(#n.truncate(#cn as usize);));
            let s1 = safety("every pointer is a local of this call, a reference, or null (the count query)");
            let s2 = safety("every pointer is a local of this call or a reference; the arrays hold `count` elements");
            quote! {
                #s1
                let r = unsafe { f(#(#first),*) };
                api.check(r, #cname)?;
                #(#inits)*
                #s2
                let r = unsafe { f(#(#call),*) };
                api.check(r, #cname)?;
                #(#truncs)*
            }
        } else {
            let s1 = safety("every pointer is a local of this call, a reference, or null where the spec allows it");
            quote! {
                #s1
                let r = unsafe { f(#(#call),*) };
                api.check(r, #cname)?;
            }
        };
        if !pdoc.is_empty() {
            doc.push(String::new());
            doc.push("Parameters:".into());
            doc.extend(pdoc);
        }
        let doc = doc_lines(&doc);
        Ok(quote! {
            #doc
            #[allow(clippy::too_many_arguments, unused_mut, clippy::let_unit_value, clippy::unnecessary_cast, clippy::needless_late_init)]
            pub fn #m(&self, #(#args),*) -> Result<#ret_ty> {
                #api_bind
                #fptr
                #(#pre)*
                #(#len_stmts)*
                #invoke
                #(#post)*
                Ok(#ret_val)
            }
        })
    }
}

/// The C argument of an input slice `n` (null when empty and optional); `copy`: a copy the
/// receiver keeps (recorded work reads it later).
#[allow(clippy::too_many_arguments)]
pub(super) fn slice_call(
    pre: &mut Vec<TokenStream>,
    call: &mut Vec<TokenStream>,
    post: &mut Vec<TokenStream>,
    n: &Ident,
    ty: &TokenStream,
    optional: bool,
    copy: bool,
) {
    let v = if copy {
        let k = format_ident!("{}_kept", n.to_string().trim_start_matches("r#"));
        pre.push(quote!(let #k = Kept::new(#n.to_vec());));
        post.push(quote!(self.keep_value(#k.into_keep());));
        quote!(#k.get())
    } else {
        quote!(#n)
    };
    if optional {
        call.push(quote!(if #v.is_empty() { ::core::ptr::null_mut() } else { #v.as_ptr() as #ty }));
    } else {
        call.push(quote!(#v.as_ptr() as #ty));
    }
}
