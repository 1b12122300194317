//! Classifying lines and splitting declarations: identifiers, headings, types, signatures,
//! annotations and descriptions.

use super::lines::*;

pub(super) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// "Device Functions", "Mem - Extension Enums", "Device" ...
pub(super) fn is_section_heading(body: &str) -> bool {
    let Some(first) = body.split_whitespace().next() else {
        return false;
    };
    body.contains(' ')
        && first.starts_with(|c: char| c.is_ascii_uppercase())
        && !first.contains('_')
        && !body.contains('(')
}

/// A declaration that starts a new item (as opposed to a member or an
/// enumerator line).
pub(super) fn is_item_decl(body: &str) -> bool {
    body.starts_with("ZE_APIEXPORT ")
        || body.contains(" ZE_APICALL ")
        || body.starts_with("struct ")
        || body.starts_with("union ")
        || body.starts_with("enum ")
        || body.starts_with("typedef ")
}

/// `NAME#`, `NAME(args)#` or `NAME value#` under the heading `NAME`.
pub(super) fn is_macro_decl(heading: &str, body: &str) -> bool {
    heading.starts_with(|c: char| c.is_ascii_uppercase())
        && match body.strip_prefix(heading) {
            Some(rest) => rest.is_empty() || rest.starts_with('(') || rest.starts_with(' '),
            None => false,
        }
}

pub(super) fn parse_version(v: &str, line: usize) -> Result<String, String> {
    let v = v.trim();
    let ok = !v.is_empty()
        && v.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    if ok {
        Ok(v.to_string())
    } else {
        err(line, format!("bad version \"{v}\""))
    }
}

/// Collapses whitespace and attaches `*` to the type: `const char * *` ->
/// `const char**`.
pub(super) fn norm_type(s: &str) -> String {
    let mut t = s.split_whitespace().collect::<Vec<_>>().join(" ");
    while t.contains(" *") {
        t = t.replace(" *", "*");
    }
    t
}

pub(super) fn is_type_text(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| is_ident_char(c) || c == '*' || c == ' ')
}

/// `const void **pConstantValues` -> (`const void**`, `pConstantValues`,
/// None); `char name[ZE_MAX_DEVICE_NAME]` -> (`char`, `name`,
/// Some(`ZE_MAX_DEVICE_NAME`)).
pub(super) fn split_decl(s: &str, line: usize) -> Result<(String, String, Option<String>), String> {
    let s = s.trim();
    let (s, array) = match s.strip_suffix(']') {
        Some(inner) => match inner.rfind('[') {
            Some(open) => {
                let extent = inner.get(open + 1..).unwrap_or("").trim();
                if extent.is_empty() || extent.contains('[') {
                    return err(line, format!("bad array extent in \"{s}\""));
                }
                (
                    inner.get(..open).unwrap_or("").trim_end(),
                    Some(extent.to_string()),
                )
            }
            None => return err(line, format!("unbalanced ']' in \"{s}\"")),
        },
        None => (s, None),
    };
    let start = s
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_ident_char(c))
        .last()
        .map(|(i, _)| i);
    let Some(start) = start else {
        return err(line, format!("no name in declaration \"{s}\""));
    };
    let name = s.get(start..).unwrap_or("");
    let ty = s.get(..start).unwrap_or("").trim();
    if !is_ident(name) || !is_type_text(ty) {
        return err(line, format!("cannot split \"{s}\" into type and name"));
    }
    Ok((norm_type(ty), name.to_string(), array))
}

/// Splits `s` at commas outside parentheses/brackets.
pub(super) fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s.get(start..).unwrap_or(""));
    out
}

pub(super) struct Signature {
    pub(super) ret: String,
    pub(super) name: String,
    pub(super) params: Vec<(String, String)>,
}

/// `ZE_APIEXPORT ze_result_t ZE_APICALL zeX(ze_device_handle_t hDevice, ...)`
pub(super) fn parse_signature(body: &str, line: usize) -> Result<Signature, String> {
    let (Some(open), Some(close)) = (body.find('('), body.rfind(')')) else {
        return err(line, "function declaration without a parameter list");
    };
    if close < open || !body.get(close + 1..).unwrap_or("").trim().is_empty() {
        return err(line, "malformed function declaration");
    }
    let head = body.get(..open).unwrap_or("");
    let mut words: Vec<&str> = head
        .split_whitespace()
        .filter(|w| *w != "ZE_APIEXPORT" && *w != "ZE_APICALL")
        .collect();
    let Some(last) = words.pop() else {
        return err(line, "function declaration without a name");
    };
    let stars = last.len() - last.trim_start_matches('*').len();
    let name = last.trim_start_matches('*');
    let mut ret = words.join(" ");
    ret.push_str(&"*".repeat(stars));
    let ret = norm_type(&ret);
    if !is_ident(name) || !is_type_text(&ret) {
        return err(
            line,
            format!("cannot read return type and name from \"{head}\""),
        );
    }
    let inner = body.get(open + 1..close).unwrap_or("").trim();
    let mut params = Vec::new();
    if !inner.is_empty() && inner != "void" {
        for p in split_top_level(inner) {
            let (ty, pname, array) = split_decl(p, line)?;
            let ty = match array {
                Some(a) => format!("{ty}[{a}]"),
                None => ty,
            };
            if params.iter().any(|(_, n)| *n == pname) {
                return err(line, format!("parameter {pname} declared twice"));
            }
            params.push((ty, pname));
        }
    }
    Ok(Signature {
        ret,
        name: name.to_string(),
        params,
    })
}

/// One `[...]` annotation group body: `in`, `in,out`, `range(0, *pCount)`,
/// `optional` ... (a lowercase word first, balanced parentheses).
pub(super) fn is_annotation(content: &str) -> bool {
    if !content.starts_with(|c: char| c.is_ascii_lowercase()) {
        return false;
    }
    let mut depth = 0i32;
    for c in content.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            '[' | '"' | '\'' | '‘' | '’' | '“' | '”' => return false,
            _ => {}
        }
    }
    depth == 0
}

/// `"[in][optional] text"` -> (`"[in][optional]"`, `"text"`).
pub(super) fn split_annotations(s: &str) -> (String, String) {
    let mut end = 0;
    while let Some(rest) = s.get(end..) {
        if !rest.starts_with('[') {
            break;
        }
        let Some(close) = rest.find(']') else { break };
        if !is_annotation(rest.get(1..close).unwrap_or("")) {
            break;
        }
        end += close + 1;
    }
    (
        s.get(..end).unwrap_or("").to_string(),
        s.get(end..).unwrap_or("").trim_start().to_string(),
    )
}

/// `name – text` (en dash as printed; ` -- ` and ` - ` accepted too).
pub(super) fn split_param_line(s: &str) -> Option<(&str, &str)> {
    for sep in [" – ", "–", " -- ", " - "] {
        if let Some((l, r)) = s.split_once(sep) {
            let l = l.trim();
            if is_ident(l) {
                return Some((l, r.trim()));
            }
        }
    }
    None
}

/// Appends a bullet or paragraph to a details-like list. Bullets indented
/// deeper than the list's first bullet are appended to the previous entry.
pub(super) fn push_detail(list: &mut Vec<String>, base: &mut Option<usize>, u: &Unit<'_>) {
    match (u.bullet(), *base, list.last_mut()) {
        (Some(_), Some(b), Some(last)) if u.indent > b => {
            last.push('\n');
            last.push_str(u.dedent(b));
        }
        (Some(text), _, _) => {
            if base.is_none() {
                *base = Some(u.indent);
            }
            list.push(text.to_string());
        }
        (None, _, _) => list.push(u.text.to_string()),
    }
}

pub(super) fn append_line(doc: &mut String, line: &str) {
    if !doc.is_empty() {
        doc.push('\n');
    }
    doc.push_str(line);
}

/// Brief + details of a body with no further structure.
pub(super) fn doc_and_details(body: &[Unit<'_>]) -> (String, Vec<String>) {
    let mut doc = String::new();
    let mut details = Vec::new();
    let mut base = None;
    for u in body {
        if doc.is_empty() && details.is_empty() && u.bullet().is_none() {
            doc = u.text.to_string();
        } else {
            push_detail(&mut details, &mut base, u);
        }
    }
    (doc, details)
}
