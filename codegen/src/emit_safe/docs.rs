//! Rustdoc text from spec prose: escaping, `#[doc]` lines, and the docs of methods and their
//! parameters.

use proc_macro2::TokenStream;
use quote::quote;

use super::Gen;
use crate::params::Param;
use crate::spec::*;

/// Rustdoc text from spec prose: brackets and angle brackets escaped outside code spans.
pub(super) fn esc(s: &str) -> String {
    // Bare URLs become code spans (rustdoc warns about bare URLs).
    let words: Vec<String> = s
        .split(' ')
        .map(|w| if w.contains("://") && !w.contains('`') { format!("`{w}`") } else { w.to_string() })
        .collect();
    let s = words.join(" ");
    let mut out = String::new();
    let mut code = false;
    for c in s.chars() {
        match c {
            '`' => {
                code = !code;
                out.push(c);
            }
            '[' | ']' if !code => {
                out.push('\\');
                out.push(c);
            }
            '<' if !code => out.push_str("&lt;"),
            '>' if !code => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    if code {
        out.push('`');
    }
    out
}

pub(super) fn doc_lines(lines: &[String]) -> TokenStream {
    let mut out = TokenStream::new();
    for l in lines {
        if l.is_empty() {
            out.extend(quote!(#[doc = ""]));
            continue;
        }
        for l in l.lines() {
            let l = l.trim();
            if l.is_empty() {
                continue;
            }
            let s = format!(" {l}");
            out.extend(quote!(#[doc = #s]));
        }
    }
    out
}

impl Gen<'_> {
    pub(super) fn fn_doc(&self, f: &Function) -> Vec<String> {
        let mut doc = vec![];
        if let Some(d) = &f.doc {
            doc.push(esc(d));
        }
        if !f.details.is_empty() {
            doc.push(String::new());
            for d in &f.details {
                doc.push(format!("* {}", esc(d)));
            }
        }
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push(format!("Calls `{}`.", f.name));
        doc
    }

    pub(super) fn param_doc(&self, p: &Param, shown: &str) -> Option<String> {
        p.field.doc.as_ref().map(|d| format!("* `{shown}`: {}", esc(&d.split_whitespace().collect::<Vec<_>>().join(" "))))
    }
}
