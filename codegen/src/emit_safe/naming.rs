//! Method and parameter names.

use proc_macro2::Ident;

use crate::emit_rust::ident;
use crate::model::{camel_to_snake, strip_ns};
use crate::spec::*;

/// The method name of `f` on a wrapper of class `wclass` in namespace `wns` (`None`: `Api`).
pub(super) fn method_name(f: &Function, ns: &str, wrapper: Option<(&str, &str)>) -> String {
    let r = strip_ns(&f.name, ns);
    let own = strip_ns(&f.class, ns);
    let (wclass, wns) = wrapper.unwrap_or(("", "ze"));
    let name = match r.strip_prefix(own) {
        Some(rest) if own == wclass && !rest.is_empty() => {
            let rest = match rest.strip_prefix("Get") {
                Some(x) if x.starts_with(|c: char| c.is_ascii_uppercase()) => x,
                _ => rest,
            };
            camel_to_snake(rest)
        }
        Some(rest) if rest == "Get" || rest.is_empty() => format!("{}s", camel_to_snake(own)),
        Some(rest) if !own.is_empty() => {
            // `zeRTASBuilderCommandListAppendCopyExt` on a command list: without `CommandList`.
            let rest = match rest.strip_prefix(wclass) {
                Some(r) if !wclass.is_empty() && r.starts_with(|c: char| c.is_ascii_uppercase()) => r,
                _ => rest,
            };
            // The verb: a creating verb anywhere (`ViewCreateExt`), else the first word.
            let words = camel_words(rest);
            let at = words.iter().position(|w| matches!(*w, "Create" | "Open")).unwrap_or(0);
            let verb = words[at];
            let x: String = words.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, w)| *w).collect();
            let mut s = if verb == "Get" { camel_to_snake(own) } else { format!("{}_{}", camel_to_snake(verb), camel_to_snake(own)) };
            if !x.is_empty() {
                s.push('_');
                s.push_str(&camel_to_snake(&x));
            }
            s
        }
        _ => camel_to_snake(r),
    };
    if ns != wns {
        format!("{ns}_{name}")
    } else {
        name
    }
}

/// `ViewCreateExt` → `["View", "Create", "Ext"]` (a word starts at each capital).
pub(super) fn camel_words(s: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut start = 0;
    for (i, c) in s.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            out.push(&s[start..i]);
            start = i;
        }
    }
    out.push(&s[start..]);
    out
}

pub(super) fn snake_param(name: &str) -> Ident {
    let s = camel_to_snake(name);
    ident(&s)
}

pub(super) fn lit(s: &str) -> proc_macro2::Literal {
    proc_macro2::Literal::string(s)
}
