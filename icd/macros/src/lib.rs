//! `#[zekit_icd::implement]`, put on a driver's `impl <Class>Api for MyDriver { ... }` block,
//! adds the method `__implemented` that lists the methods the block defines. The generated
//! layer fills a DDI table entry only where a driver defines the method, so no driver keeps a
//! list of the functions it supports by hand.
//!
//! The macro only reads the block: every `fn NAME` at the top level of the impl body is
//! recorded; nothing else is changed. It needs no parser crate.

use proc_macro::{Delimiter, Group, TokenStream, TokenTree};

/// See the crate documentation.
#[proc_macro_attribute]
pub fn implement(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return error("#[implement] takes no arguments");
    }
    let mut tokens: Vec<TokenTree> = item.into_iter().collect();
    if !tokens.iter().any(|t| matches!(t, TokenTree::Ident(i) if i.to_string() == "impl")) {
        return error("#[implement] goes on an `impl <Class>Api for Type { ... }` block");
    }
    let Some(TokenTree::Group(body)) = tokens.last() else {
        return error("#[implement]: the impl block has no body");
    };
    if body.delimiter() != Delimiter::Brace {
        return error("#[implement]: the impl block has no body");
    }
    let inner: Vec<TokenTree> = body.stream().into_iter().collect();
    let mut names = vec![];
    for w in inner.windows(2) {
        if let (TokenTree::Ident(kw), TokenTree::Ident(name)) = (&w[0], &w[1]) {
            if kw.to_string() == "fn" {
                names.push(name.to_string());
            }
        }
    }
    let list = names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ");
    let method: TokenStream = format!(
        "#[doc(hidden)] fn __implemented(&self) -> &'static [&'static str] {{ &[{list}] }}"
    )
    .parse()
    .expect("the generated method parses");
    let mut stream: TokenStream = body.stream();
    stream.extend(method);
    let mut group = Group::new(Delimiter::Brace, stream);
    group.set_span(body.span());
    let last = tokens.len() - 1;
    tokens[last] = TokenTree::Group(group);
    tokens.into_iter().collect()
}

fn error(msg: &str) -> TokenStream {
    format!("compile_error!({msg:?});").parse().expect("compile_error parses")
}
