//! The preprocessor subset the headers use: comments, `#if` expressions, `#define`s.

use std::collections::HashMap;

use super::model::*;

/// Removes `/* */` and `//` comments, keeping line structure and string literals intact.
pub(super) fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let mut start = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                out.push_str(&src[start..i]);
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                start = i;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                out.push_str(&src[start..i]);
                let end = src[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
                // Keep the newlines so that line numbers stay meaningful.
                out.extend(src[i..end].chars().filter(|&c| c == '\n'));
                out.push(' ');
                i = end;
                start = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&src[start.min(src.len())..]);
    out
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits a leading identifier off `s`.
pub(super) fn split_ident(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Collapses all whitespace runs to one space.
pub(super) fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Evaluates the `#if` expressions found in the Level Zero headers: `defined(X)`, `defined X`,
/// `!`, `&&`, `||`, parentheses, integer literals, macro names and comparisons.
pub(super) fn eval_if(expr: &str, defined: &HashMap<String, String>) -> Result<bool, String> {
    let mut toks = Vec::new();
    let mut rest = expr.trim();
    while !rest.is_empty() {
        let c = rest.chars().next().expect("non-empty");
        if c.is_whitespace() {
            rest = rest.trim_start();
            continue;
        }
        if is_ident_char(c) {
            let (w, r) = split_ident(rest);
            toks.push(w.to_string());
            rest = r;
            continue;
        }
        let two = rest.get(..2).unwrap_or("");
        if [">=", "<=", "==", "!=", "&&", "||"].contains(&two) {
            toks.push(two.to_string());
            rest = &rest[2..];
        } else if "()!<>".contains(c) {
            toks.push(c.to_string());
            rest = &rest[1..];
        } else {
            return Err(format!("unsupported #if expression `{expr}`"));
        }
    }
    let mut p = IfParser {
        toks: &toks,
        pos: 0,
        defined,
    };
    let v = p.or()?;
    if p.pos != toks.len() {
        return Err(format!("unsupported #if expression `{expr}`"));
    }
    Ok(v != 0)
}

pub(super) struct IfParser<'a> {
    pub(super) toks: &'a [String],
    pub(super) pos: usize,
    pub(super) defined: &'a HashMap<String, String>,
}

impl IfParser<'_> {
    pub(super) fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }

    pub(super) fn next(&mut self) -> Result<&str, String> {
        let t = self
            .toks
            .get(self.pos)
            .ok_or("unexpected end of #if expression")?;
        self.pos += 1;
        Ok(t)
    }

    pub(super) fn expect(&mut self, t: &str) -> Result<(), String> {
        let got = self.next()?;
        if got == t {
            Ok(())
        } else {
            Err(format!("expected `{t}` in #if expression, got `{got}`"))
        }
    }

    pub(super) fn or(&mut self) -> Result<i64, String> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.pos += 1;
            let r = self.and()?;
            v = i64::from(v != 0 || r != 0);
        }
        Ok(v)
    }

    pub(super) fn and(&mut self) -> Result<i64, String> {
        let mut v = self.cmp()?;
        while self.peek() == Some("&&") {
            self.pos += 1;
            let r = self.cmp()?;
            v = i64::from(v != 0 && r != 0);
        }
        Ok(v)
    }

    pub(super) fn cmp(&mut self) -> Result<i64, String> {
        let l = self.unary()?;
        let op = match self.peek() {
            Some(op @ (">=" | "<=" | "==" | "!=" | "<" | ">")) => op.to_string(),
            _ => return Ok(l),
        };
        self.pos += 1;
        let r = self.unary()?;
        Ok(i64::from(match op.as_str() {
            ">=" => l >= r,
            "<=" => l <= r,
            "==" => l == r,
            "!=" => l != r,
            "<" => l < r,
            _ => l > r,
        }))
    }

    pub(super) fn unary(&mut self) -> Result<i64, String> {
        let t = self.next()?.to_string();
        match t.as_str() {
            "!" => Ok(i64::from(self.unary()? == 0)),
            "(" => {
                let v = self.or()?;
                self.expect(")")?;
                Ok(v)
            }
            "defined" => {
                let paren = self.peek() == Some("(");
                if paren {
                    self.pos += 1;
                }
                let name = self.next()?.to_string();
                if paren {
                    self.expect(")")?;
                }
                Ok(i64::from(self.defined.contains_key(&name)))
            }
            _ if t.starts_with(|c: char| c.is_ascii_digit()) => parse_int(&t),
            _ => match self.defined.get(&t) {
                Some(v) => parse_int(v.trim()),
                None => Ok(0),
            },
        }
    }
}

pub(super) fn parse_int(t: &str) -> Result<i64, String> {
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
    } else {
        t.parse()
    };
    r.map_err(|_| format!("bad integer `{t}` in #if expression"))
}

pub(super) fn parse_define(
    header: &'static str,
    rest: &str,
    defined: &mut HashMap<String, String>,
    api: &mut Api,
) -> Result<(), String> {
    let (name, after) = split_ident(rest);
    if name.is_empty() {
        return Err(format!("bad #define `{rest}`"));
    }
    if let Some(params) = after.strip_prefix('(') {
        let close = params
            .find(')')
            .ok_or_else(|| format!("bad #define `{rest}`"))?;
        let arity = params[..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .count();
        defined.insert(name.to_string(), format!("({})", &params[..close]));
        api.entities
            .push((header, Entity::FnMacro(name.to_string(), arity)));
        return Ok(());
    }
    let value = after.trim();
    let known_numeric = |n: &str| {
        api.entities.iter().any(|(_, e)| match e {
            Entity::Macro(m) | Entity::FnMacro(m, _) => m == n,
            _ => false,
        })
    };
    let entity = if value.is_empty() {
        api.skipped_macros
            .push(if name.starts_with('_') && name.ends_with("_H") {
                format!("{name} (include guard)")
            } else {
                format!("{name} (empty value)")
            });
        None
    } else if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
        Some(Entity::StrMacro(name.to_string()))
    } else if looks_numeric(value, known_numeric) {
        Some(Entity::Macro(name.to_string()))
    } else {
        api.skipped_macros
            .push(format!("{name} (value `{value}` is not a number)"));
        None
    };
    defined.insert(name.to_string(), value.to_string());
    if let Some(e) = entity {
        api.entities.push((header, e));
    }
    Ok(())
}

/// True if `value` is made of integer literals, operators and names of numeric macros.
pub(super) fn looks_numeric(value: &str, is_numeric_macro: impl Fn(&str) -> bool) -> bool {
    let mut rest = value;
    let mut saw_operand = false;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() || "()~|&<>+-*/%^!,".contains(c) {
            rest = &rest[c.len_utf8()..];
        } else if c.is_ascii_digit() {
            let (lit, r) = split_ident(rest);
            let body = lit.trim_end_matches(['u', 'U', 'l', 'L']);
            let ok = body.chars().all(|d| d.is_ascii_digit())
                || (body.len() > 2
                    && (body.starts_with("0x") || body.starts_with("0X"))
                    && body[2..].chars().all(|d| d.is_ascii_hexdigit()));
            if !ok {
                return false;
            }
            saw_operand = true;
            rest = r;
        } else if is_ident_char(c) {
            let (id, r) = split_ident(rest);
            if !is_numeric_macro(id) {
                return false;
            }
            saw_operand = true;
            rest = r;
        } else {
            return false;
        }
    }
    saw_operand
}
