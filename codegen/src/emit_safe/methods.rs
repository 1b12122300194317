//! The raw (`unsafe`, `_raw`) form of a method, and `// SAFETY:` comments.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::docs::*;
use super::naming::*;
use super::Gen;
use crate::emit_rust::{ident, rust_type_tokens};
use crate::params::Param;
use crate::spec::*;

impl Gen<'_> {
    pub(super) fn fn_ptr(&self, f: &Function) -> TokenStream {
        let ns = ident(self.ns_of(&f.name));
        let field = ident(&f.name);
        let cname = lit(&f.name);
        quote!(let f = api.fns().#ns.#field.ok_or_else(|| Error::missing(#cname))?;)
    }

    pub(super) fn unsafe_method(&self, f: &Function, ps: &[Param], name: &str, receiver: bool, why: &str) -> TokenStream {
        let m = format_ident!("{}", name);
        let mut doc = self.fn_doc(f);
        doc.push(String::new());
        doc.push(format!("Raw form: {}.", esc(why)));
        doc.push(String::new());
        doc.push("# Safety".into());
        doc.push(format!(
            "Every pointer argument follows the rules of `{}`: valid for what the function reads or writes, for as long as the call (or the work it records) uses it; handles are live handles of this API.",
            f.name
        ));
        let doc = doc_lines(&doc);
        let skip = usize::from(receiver);
        let args: Vec<TokenStream> = ps[skip..]
            .iter()
            .map(|p| {
                let n = snake_param(&p.field.name);
                let t = rust_type_tokens(&p.field.ty);
                quote!(#n: #t)
            })
            .collect();
        let mut call: Vec<TokenStream> = vec![];
        if receiver {
            call.push(quote!(self.as_raw()));
        }
        call.extend(ps[skip..].iter().map(|p| {
            let n = snake_param(&p.field.name);
            quote!(#n)
        }));
        let api_bind = if receiver { quote!(let api = self.api();) } else { quote!(let api = self;) };
        let fptr = self.fn_ptr(f);
        let cname = lit(&f.name);
        let this = quote!(&self);
        let sc = safety("the caller's promise (see `# Safety`)");
        match &f.return_type {
            None => quote! {
                #doc
                #[allow(clippy::too_many_arguments)]
                pub unsafe fn #m(#this, #(#args),*) -> Result<()> {
                    #api_bind
                    #fptr
                    #sc
                    let r = unsafe { f(#(#call),*) };
                    api.check(r, #cname)
                }
            },
            Some(rt) => {
                let rt = rust_type_tokens(rt);
                quote! {
                    #doc
                    #[allow(clippy::too_many_arguments)]
                    pub unsafe fn #m(#this, #(#args),*) -> Result<#rt> {
                        #api_bind
                        #fptr
                        #sc
                        let r = unsafe { f(#(#call),*) };
                        Ok(r)
                    }
                }
            }
        }
    }
}

pub(super) fn safety(text: &str) -> TokenStream {
    crate::emit_rust::comment(&format!("SAFETY: {text}"))
}
