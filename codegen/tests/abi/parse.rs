//! Header parsing: files into statements, statements into entities.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use super::model::*;
use super::preproc::*;
use super::HEADERS;

/// Parses the six headers under `<root>/level_zero/`.
pub fn parse_headers(root: &Path) -> Result<Api, String> {
    let mut api = Api::default();
    let mut defined: HashMap<String, String> = HashMap::new();
    // The reference headers are evaluated as gcc on Linux, like the probe compiles.
    defined.insert("__GNUC__".into(), "12".into());
    for header in HEADERS {
        let path = root.join("level_zero").join(header);
        let text = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        parse_header(header, &text, &mut defined, &mut api)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(api)
}

pub(super) fn parse_header(
    header: &'static str,
    text: &str,
    defined: &mut HashMap<String, String>,
    api: &mut Api,
) -> Result<(), String> {
    let text = strip_comments(text);
    // Join continuation lines.
    let text = text.replace("\\\n", " ");
    // Each entry: is the enclosing group active, has a branch been taken, is the parent active.
    let mut conds: Vec<(bool, bool, bool)> = Vec::new();
    let mut splitter = StatementSplitter::default();
    for (lineno, line) in text.lines().enumerate() {
        let lineno = lineno + 1;
        let active = conds.last().is_none_or(|c| c.0);
        let trimmed = line.trim();
        if let Some(directive) = trimmed.strip_prefix('#') {
            let directive = directive.trim_start();
            let (word, rest) = split_ident(directive);
            let rest = rest.trim();
            match word {
                "ifndef" | "ifdef" | "if" => {
                    let value = if !active {
                        false
                    } else if word == "ifndef" {
                        !defined.contains_key(rest)
                    } else if word == "ifdef" {
                        defined.contains_key(rest)
                    } else {
                        eval_if(rest, defined).map_err(|e| format!("line {lineno}: {e}"))?
                    };
                    conds.push((active && value, value, active));
                }
                "else" => {
                    let c = conds
                        .last_mut()
                        .ok_or_else(|| format!("line {lineno}: #else without #if"))?;
                    *c = (c.2 && !c.1, true, c.2);
                }
                "elif" => {
                    let c = *conds
                        .last()
                        .ok_or_else(|| format!("line {lineno}: #elif without #if"))?;
                    let value = c.2
                        && !c.1
                        && eval_if(rest, defined).map_err(|e| format!("line {lineno}: {e}"))?;
                    *conds.last_mut().expect("checked above") = (value, c.1 || value, c.2);
                }
                "endif" => {
                    conds
                        .pop()
                        .ok_or_else(|| format!("line {lineno}: #endif without #if"))?;
                }
                _ if !active => {}
                "define" => parse_define(header, rest, defined, api)
                    .map_err(|e| format!("line {lineno}: {e}"))?,
                "undef" => {
                    defined.remove(rest);
                }
                "include" | "pragma" => {}
                other => return Err(format!("line {lineno}: unsupported directive #{other}")),
            }
            continue;
        }
        if !active {
            continue;
        }
        for stmt in splitter.feed(line) {
            parse_statement(header, &stmt, api).map_err(|e| format!("near line {lineno}: {e}"))?;
        }
    }
    if !conds.is_empty() {
        return Err("unterminated #if".into());
    }
    if !splitter.is_empty() {
        return Err(format!("unterminated statement: {}", norm(&splitter.cur)));
    }
    Ok(())
}

/// Splits code into statements at `;` outside braces.
#[derive(Default)]
pub(super) struct StatementSplitter {
    pub(super) cur: String,
    pub(super) depth: i32,
}

impl StatementSplitter {
    pub(super) fn feed(&mut self, line: &str) -> Vec<String> {
        let mut out = Vec::new();
        for c in line.chars() {
            match c {
                '{' => self.depth += 1,
                '}' => self.depth -= 1,
                ';' if self.depth == 0 => {
                    out.push(norm(&self.cur));
                    self.cur.clear();
                    continue;
                }
                _ => {}
            }
            self.cur.push(c);
        }
        self.cur.push('\n');
        out
    }

    pub(super) fn is_empty(&self) -> bool {
        self.cur.trim().is_empty()
    }
}

pub(super) fn parse_statement(header: &'static str, s: &str, api: &mut Api) -> Result<(), String> {
    if s.is_empty() {
        return Ok(());
    }
    let entity = if let Some(rest) = s.strip_prefix("typedef ") {
        let kw = rest.split(' ').next().unwrap_or("");
        if matches!(kw, "struct" | "union" | "enum") && rest.contains('{') {
            parse_body(kw, rest, s)?
        } else if let Some(p) = rest.find("(ZE_APICALL *") {
            let after = &rest[p + "(ZE_APICALL *".len()..];
            let name = after[..after
                .find(')')
                .ok_or_else(|| format!("bad typedef `{s}`"))?]
                .trim();
            if name.is_empty() || !name.chars().all(is_ident_char) {
                return Err(format!("bad function-pointer typedef `{s}`"));
            }
            Entity::Pfn {
                name: name.to_string(),
                text: format!("{s};"),
                ddi: header.ends_with("_ddi.h"),
            }
        } else {
            let name = trailing_ident(s);
            if name.is_empty() || s.contains('(') {
                return Err(format!("unrecognised typedef `{s}`"));
            }
            Entity::Alias {
                name: name.to_string(),
                text: format!("{s};"),
            }
        }
    } else if s.starts_with("ZE_APIEXPORT ") || s.starts_with("ZE_DLLEXPORT ") {
        let paren = s
            .find('(')
            .ok_or_else(|| format!("bad declaration `{s}`"))?;
        let name = trailing_ident(s[..paren].trim_end());
        if name.is_empty() {
            return Err(format!("bad declaration `{s}`"));
        }
        Entity::Function {
            name: name.to_string(),
            text: format!("{s};"),
        }
    } else {
        return Err(format!("unrecognised statement `{s}`"));
    };
    api.entities.push((header, entity));
    Ok(())
}

pub(super) fn trailing_ident(s: &str) -> &str {
    let start = s.rfind(|c: char| !is_ident_char(c)).map_or(0, |p| p + 1);
    &s[start..]
}

/// Parses `struct _X { ... } X` / `union ...` / `enum ...` (after `typedef `).
pub(super) fn parse_body(kw: &str, rest: &str, whole: &str) -> Result<Entity, String> {
    let open = rest.find('{').expect("caller checked");
    let close = rest
        .rfind('}')
        .ok_or_else(|| format!("unbalanced braces in `{whole}`"))?;
    let tag = rest[kw.len()..open].trim();
    let body = &rest[open + 1..close];
    let name = rest[close + 1..].trim();
    if tag.is_empty()
        || !tag.chars().all(is_ident_char)
        || name.is_empty()
        || !name.chars().all(is_ident_char)
    {
        return Err(format!("unrecognised {kw} typedef `{whole}`"));
    }
    if body.contains('{') {
        return Err(format!("nested body in `{whole}` is not supported"));
    }
    if kw == "enum" {
        let mut etors = Vec::new();
        for part in split_top_level(body, ',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (etor, _) = split_ident(part);
            if etor.is_empty() {
                return Err(format!("bad enumerator `{part}` in {name}"));
            }
            etors.push(etor.to_string());
        }
        return Ok(Entity::Enum(EnumDef {
            tag: tag.to_string(),
            name: name.to_string(),
            etors,
        }));
    }
    let mut members = Vec::new();
    for part in body.split(';') {
        let decl = norm(part);
        if decl.is_empty() {
            continue;
        }
        // Drop array dimensions and bit-field widths to find the declarator name.
        let mut head = decl.as_str();
        if let Some(colon) = head.find(':') {
            head = head[..colon].trim_end();
        }
        while head.ends_with(']') {
            head = head[..head
                .rfind('[')
                .ok_or_else(|| format!("bad member `{decl}`"))?]
                .trim_end();
        }
        let member = trailing_ident(head);
        if member.is_empty() || member.len() == head.len() || decl.contains('(') {
            return Err(format!("unsupported member `{decl}` in {name}"));
        }
        members.push(Member {
            name: member.to_string(),
            name_at: head.len() - member.len(),
            decl: decl.clone(),
        });
    }
    Ok(Entity::Composite(Composite {
        is_union: kw == "union",
        tag: tag.to_string(),
        name: name.to_string(),
        members,
    }))
}

/// Splits at `sep` outside parentheses.
pub(super) fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}
