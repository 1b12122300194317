//! ABI comparison harness for the Level Zero headers.
//!
//! The reference is Debian's `libze-dev` (API 1.4), installed under `/usr/include/level_zero/`.
//! Those headers are machine-generated and very regular, so they are read with a small text
//! parser: comments are stripped, the handful of `#if` forms they use are evaluated for gcc on
//! Linux, and the remaining code is split into statements at top-level `;`.
//!
//! From the parsed items two C translation units are generated:
//!
//! * a *probe* that prints one `KIND NAME VALUE` line per item (sizes, alignments, member
//!   offsets, enumerator values, macro values, presence of functions). It is compiled and run
//!   once against the reference include root and once against the candidate root, and the two
//!   outputs are compared item by item. Items that do not compile against the candidate (for
//!   example a missing member) are taken out one compile round at a time and reported as
//!   missing, so one missing item does not hide all the others.
//! * a *signature* unit that includes the candidate headers and then repeats, verbatim, every
//!   reference function declaration, function-pointer typedef and plain typedef, a tag check for
//!   every struct/union/enum, and a type check for every struct member. C11 accepts compatible
//!   redeclarations and gcc rejects conflicting ones, so `-fsyntax-only -Werror` proves that the
//!   signatures match. Each redeclaration sits on its own line, so every error maps back to the
//!   item that caused it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The headers compared, in include order. `zer` has no Debian counterpart (API 1.4 predates it).
pub const HEADERS: [&str; 6] = [
    "ze_api.h",
    "ze_ddi.h",
    "zet_api.h",
    "zet_ddi.h",
    "zes_api.h",
    "zes_ddi.h",
];

/// Include root of Debian's `libze-dev` headers (system-wide, or where `cargo xtask test`
/// unpacked them: see `zekit_testkit::level_zero_root`).
pub fn debian_include_root() -> std::path::PathBuf {
    zekit_testkit::debian_include_dir()
}

/// How many difference lines a failure message lists.
pub const MAX_LISTED: usize = 200;

/// Arguments used to probe function-like macros, by position.
const FN_MACRO_ARGS: [&str; 4] = ["3", "5", "7", "11"];

// ------------------------------------------------------------------------------------------------
// Parsed model
// ------------------------------------------------------------------------------------------------

/// A struct or union member.
#[derive(Debug, Clone)]
pub struct Member {
    pub name: String,
    /// The declaration, whitespace-normalised, e.g. `uint8_t id[ZE_MAX_DEVICE_UUID_SIZE]`.
    pub decl: String,
    /// Byte offset of `name` inside `decl`.
    name_at: usize,
}

#[derive(Debug, Clone)]
pub struct Composite {
    pub is_union: bool,
    pub tag: String,
    pub name: String,
    pub members: Vec<Member>,
}

impl Composite {
    /// A function-pointer table of a `*_ddi.h` header (`ze_command_list_dditable_t`, ...).
    pub fn is_ddi_table(&self) -> bool {
        self.name.ends_with("_dditable_t") && !self.is_ddi_container()
    }

    /// The container of all tables (`ze_dditable_t`, ...): its members are tables, not pfns.
    pub fn is_ddi_container(&self) -> bool {
        self.name.ends_with("_dditable_t")
            && !self.members.is_empty()
            && self.members.iter().all(|m| {
                m.decl
                    .split(' ')
                    .next()
                    .is_some_and(|t| t.ends_with("_dditable_t"))
            })
    }
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    pub tag: String,
    pub name: String,
    pub etors: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum Entity {
    Composite(Composite),
    Enum(EnumDef),
    /// Object-like macro with a numeric value.
    Macro(String),
    /// Object-like macro whose value is a string literal (extension names).
    StrMacro(String),
    /// Function-like macro and its number of parameters.
    FnMacro(String, usize),
    /// Any other typedef: scalar aliases, handles, forward declarations.
    Alias {
        name: String,
        text: String,
    },
    /// `typedef R (ZE_APICALL *name)(...)`; `ddi` is false for the tracing callbacks of `*_api.h`.
    Pfn {
        name: String,
        text: String,
        ddi: bool,
    },
    /// `ZE_APIEXPORT`/`ZE_DLLEXPORT` function declaration.
    Function {
        name: String,
        text: String,
    },
}

/// Everything extracted from one set of headers, in header order.
#[derive(Debug, Default)]
pub struct Api {
    pub entities: Vec<(&'static str, Entity)>,
    /// Object-like macros that are not compared, with the reason.
    pub skipped_macros: Vec<String>,
}

impl Api {
    pub fn composites(&self) -> impl Iterator<Item = &Composite> {
        self.entities.iter().filter_map(|(_, e)| match e {
            Entity::Composite(c) => Some(c),
            _ => None,
        })
    }

    pub fn find_composite(&self, name: &str) -> Option<&Composite> {
        self.composites().find(|c| c.name == name)
    }
}

// ------------------------------------------------------------------------------------------------
// Header parsing
// ------------------------------------------------------------------------------------------------

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

fn parse_header(
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

/// Removes `/* */` and `//` comments, keeping line structure and string literals intact.
fn strip_comments(src: &str) -> String {
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

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits a leading identifier off `s`.
fn split_ident(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Collapses all whitespace runs to one space.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Evaluates the `#if` expressions found in the Level Zero headers: `defined(X)`, `defined X`,
/// `!`, `&&`, `||`, parentheses, integer literals, macro names and comparisons.
fn eval_if(expr: &str, defined: &HashMap<String, String>) -> Result<bool, String> {
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

struct IfParser<'a> {
    toks: &'a [String],
    pos: usize,
    defined: &'a HashMap<String, String>,
}

impl IfParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }

    fn next(&mut self) -> Result<&str, String> {
        let t = self
            .toks
            .get(self.pos)
            .ok_or("unexpected end of #if expression")?;
        self.pos += 1;
        Ok(t)
    }

    fn expect(&mut self, t: &str) -> Result<(), String> {
        let got = self.next()?;
        if got == t {
            Ok(())
        } else {
            Err(format!("expected `{t}` in #if expression, got `{got}`"))
        }
    }

    fn or(&mut self) -> Result<i64, String> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.pos += 1;
            let r = self.and()?;
            v = i64::from(v != 0 || r != 0);
        }
        Ok(v)
    }

    fn and(&mut self) -> Result<i64, String> {
        let mut v = self.cmp()?;
        while self.peek() == Some("&&") {
            self.pos += 1;
            let r = self.cmp()?;
            v = i64::from(v != 0 && r != 0);
        }
        Ok(v)
    }

    fn cmp(&mut self) -> Result<i64, String> {
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

    fn unary(&mut self) -> Result<i64, String> {
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

fn parse_int(t: &str) -> Result<i64, String> {
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
    } else {
        t.parse()
    };
    r.map_err(|_| format!("bad integer `{t}` in #if expression"))
}

fn parse_define(
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
fn looks_numeric(value: &str, is_numeric_macro: impl Fn(&str) -> bool) -> bool {
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

/// Splits code into statements at `;` outside braces.
#[derive(Default)]
struct StatementSplitter {
    cur: String,
    depth: i32,
}

impl StatementSplitter {
    fn feed(&mut self, line: &str) -> Vec<String> {
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

    fn is_empty(&self) -> bool {
        self.cur.trim().is_empty()
    }
}

fn parse_statement(header: &'static str, s: &str, api: &mut Api) -> Result<(), String> {
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

fn trailing_ident(s: &str) -> &str {
    let start = s.rfind(|c: char| !is_ident_char(c)).map_or(0, |p| p + 1);
    &s[start..]
}

/// Parses `struct _X { ... } X` / `union ...` / `enum ...` (after `typedef `).
fn parse_body(kw: &str, rest: &str, whole: &str) -> Result<Entity, String> {
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
fn split_top_level(s: &str, sep: char) -> Vec<&str> {
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

// ------------------------------------------------------------------------------------------------
// Probe items
// ------------------------------------------------------------------------------------------------

/// What an item counts as in the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cat {
    TypeSize,
    TypeAlign,
    Offset,
    DdiOffset,
    Etor,
    Macro,
    StrMacro,
    FnMacro,
    Function,
}

#[derive(Debug, Clone)]
enum Expr {
    /// An integer constant expression, printed as `%lld`.
    Num(String),
    /// An integer macro, printed with its type: value, `i`/`u` and size.
    Typed(String),
    /// A string literal macro.
    Str(String),
}

#[derive(Debug, Clone)]
struct Probe {
    key: String,
    cat: Cat,
    expr: Expr,
    /// For members of a DDI table: table, member and position in the reference.
    ddi: Option<(String, String, usize)>,
    /// Members of the DDI container and size of DDI tables/containers get growth tolerance.
    growable: bool,
}

fn probes(api: &Api) -> Vec<Probe> {
    let mut out = Vec::new();
    let mut typed: HashSet<String> = HashSet::new();
    let mut type_probes = |out: &mut Vec<Probe>, name: &str, growable: bool| {
        if typed.insert(name.to_string()) {
            out.push(Probe {
                key: format!("size {name}"),
                cat: Cat::TypeSize,
                expr: Expr::Num(format!("sizeof({name})")),
                ddi: None,
                growable,
            });
            out.push(Probe {
                key: format!("align {name}"),
                cat: Cat::TypeAlign,
                expr: Expr::Num(format!("_Alignof({name})")),
                ddi: None,
                growable: false,
            });
        }
    };
    // Types first need their complete definitions: emit size/align for forward-declared structs
    // at their definition. Collect names of defined composites so aliases `typedef struct _X X`
    // defer to the definition.
    let defined: HashSet<&str> = api.composites().map(|c| c.name.as_str()).collect();
    for (_, e) in &api.entities {
        match e {
            Entity::Composite(c) => {
                let table = c.is_ddi_table();
                let container = c.is_ddi_container();
                type_probes(&mut out, &c.name, table || container);
                for (i, m) in c.members.iter().enumerate() {
                    out.push(Probe {
                        key: format!("offset {}.{}", c.name, m.name),
                        cat: if table { Cat::DdiOffset } else { Cat::Offset },
                        expr: Expr::Num(format!("offsetof({}, {})", c.name, m.name)),
                        ddi: table.then(|| (c.name.clone(), m.name.clone(), i)),
                        growable: container,
                    });
                }
            }
            Entity::Enum(en) => {
                type_probes(&mut out, &en.name, false);
                for etor in &en.etors {
                    out.push(Probe {
                        key: format!("etor {etor}"),
                        cat: Cat::Etor,
                        expr: Expr::Num(etor.clone()),
                        ddi: None,
                        growable: etor.ends_with("_VERSION_CURRENT"),
                    });
                }
            }
            Entity::Macro(m) => out.push(Probe {
                key: format!("macro {m}"),
                cat: Cat::Macro,
                expr: Expr::Typed(m.clone()),
                ddi: None,
                growable: false,
            }),
            Entity::StrMacro(m) => out.push(Probe {
                key: format!("strmacro {m}"),
                cat: Cat::StrMacro,
                expr: Expr::Str(m.clone()),
                ddi: None,
                growable: false,
            }),
            Entity::FnMacro(m, arity) => {
                let args = FN_MACRO_ARGS[..(*arity).min(FN_MACRO_ARGS.len())].join(",");
                out.push(Probe {
                    key: format!("fnmacro {m}({args})"),
                    cat: Cat::FnMacro,
                    expr: Expr::Typed(format!("{m}({args})")),
                    ddi: None,
                    growable: false,
                });
            }
            Entity::Alias { name, .. } => {
                if !defined.contains(name.as_str()) {
                    type_probes(&mut out, name, false);
                }
            }
            Entity::Pfn { name, .. } => type_probes(&mut out, name, false),
            Entity::Function { name, .. } => out.push(Probe {
                key: format!("func {name}"),
                cat: Cat::Function,
                expr: Expr::Num(format!("sizeof(&{name})")),
                ddi: None,
                growable: false,
            }),
        }
    }
    out
}

fn includes() -> String {
    HEADERS
        .iter()
        .map(|h| format!("#include <level_zero/{h}>\n"))
        .collect()
}

/// Writes the probe source; returns it and the source line of each included probe.
fn probe_source(probes: &[Probe], excluded: &HashSet<usize>) -> (String, HashMap<usize, usize>) {
    let mut src = String::new();
    src.push_str("/* zekit ABI probe (generated by codegen/tests/abi_debian.rs) */\n");
    src.push_str("#include <stddef.h>\n#include <stdio.h>\n");
    src.push_str(&includes());
    src.push_str(
        "struct zk_probe { const char *key; long long v; int typed; int sz; int sg; const char *s; };\n",
    );
    src.push_str("static const struct zk_probe zk_probes[] = {\n");
    let mut lines = HashMap::new();
    let mut line = src.lines().count() + 1;
    for (i, p) in probes.iter().enumerate() {
        if excluded.contains(&i) {
            continue;
        }
        lines.insert(line, i);
        line += 1;
        let key = &p.key;
        match &p.expr {
            Expr::Num(e) => writeln!(src, "{{\"{key}\", (long long)({e}), 0, 0, 0, 0}},"),
            Expr::Typed(e) => writeln!(
                src,
                "{{\"{key}\", (long long)({e}), 1, (int)sizeof({e}), (({e}) * 0 - 1 < 0), 0}},"
            ),
            Expr::Str(e) => writeln!(src, "{{\"{key}\", 0, 2, 0, 0, {e}}},"),
        }
        .expect("write to String");
    }
    src.push_str("{0, 0, 0, 0, 0, 0}\n};\n");
    src.push_str(concat!(
        "int main(void) {\n",
        "    for (const struct zk_probe *p = zk_probes; p->key; ++p) {\n",
        "        if (p->typed == 2) printf(\"%s \\\"%s\\\"\\n\", p->key, p->s);\n",
        "        else if (p->typed == 1) printf(\"%s %lld %c%d\\n\", p->key, p->v, p->sg ? 'i' : 'u', p->sz);\n",
        "        else printf(\"%s %lld\\n\", p->key, p->v);\n",
        "    }\n",
        "    return 0;\n",
        "}\n",
    ));
    (src, lines)
}

// ------------------------------------------------------------------------------------------------
// Signature unit
// ------------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SigCat {
    Function,
    DdiPfn,
    CallbackPfn,
    Typedef,
    Tag,
    MemberType,
}

#[derive(Debug, Clone)]
struct SigItem {
    what: String,
    cat: SigCat,
    line: String,
}

fn sig_items(api: &Api) -> Vec<SigItem> {
    let mut out = Vec::new();
    let mut n = 0usize;
    for (_, e) in &api.entities {
        match e {
            Entity::Composite(c) => {
                let kw = if c.is_union { "union" } else { "struct" };
                out.push(SigItem {
                    what: format!("tag {kw} {} of {}", c.tag, c.name),
                    cat: SigCat::Tag,
                    line: format!("typedef {kw} {} {};", c.tag, c.name),
                });
                for m in &c.members {
                    n += 1;
                    let var = format!("zk_member_{n}");
                    let decl = format!(
                        "{}{}{}",
                        &m.decl[..m.name_at],
                        var,
                        &m.decl[m.name_at + m.name.len()..]
                    );
                    out.push(SigItem {
                        what: format!("member type {}.{} (`{}`)", c.name, m.name, m.decl),
                        cat: SigCat::MemberType,
                        line: format!(
                            "extern __typeof__((({} *)0)->{}) {var}; extern {decl};",
                            c.name, m.name
                        ),
                    });
                }
            }
            Entity::Enum(en) => out.push(SigItem {
                what: format!("tag enum {} of {}", en.tag, en.name),
                cat: SigCat::Tag,
                line: format!("typedef enum {} {};", en.tag, en.name),
            }),
            Entity::Alias { name, text } => out.push(SigItem {
                what: format!("typedef {name}"),
                cat: SigCat::Typedef,
                line: text.clone(),
            }),
            Entity::Pfn { name, text, ddi } => out.push(SigItem {
                what: format!("function-pointer typedef {name}"),
                cat: if *ddi {
                    SigCat::DdiPfn
                } else {
                    SigCat::CallbackPfn
                },
                line: text.clone(),
            }),
            Entity::Function { name, text } => out.push(SigItem {
                what: format!("function {name}"),
                cat: SigCat::Function,
                line: text.clone(),
            }),
            Entity::Macro(_) | Entity::StrMacro(_) | Entity::FnMacro(..) => {}
        }
    }
    out
}

fn sig_source(items: &[SigItem]) -> (String, HashMap<usize, usize>) {
    let mut src = String::new();
    src.push_str("/* zekit ABI signature check (generated by codegen/tests/abi_debian.rs) */\n");
    src.push_str(&includes());
    src.push_str("/* Verbatim redeclarations from the reference headers. */\n");
    let mut lines = HashMap::new();
    let first = src.lines().count() + 1;
    for (i, it) in items.iter().enumerate() {
        debug_assert!(!it.line.contains('\n'));
        lines.insert(first + i, i);
        src.push_str(&it.line);
        src.push('\n');
    }
    (src, lines)
}

// ------------------------------------------------------------------------------------------------
// Compiling
// ------------------------------------------------------------------------------------------------

fn cc() -> String {
    std::env::var("ZEKIT_ABI_CC").unwrap_or_else(|_| "cc".to_string())
}

/// A unique scratch directory, removed on drop unless `ZEKIT_ABI_KEEP_TEMP` is set.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "zekit-abi-{label}-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create temp dir {}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("ZEKIT_ABI_KEEP_TEMP").is_some() {
            eprintln!("keeping ABI scratch files in {}", self.0.display());
        } else {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

struct Compiled {
    ok: bool,
    /// Errors located in (or expanded from) the source, by source line.
    errors: BTreeMap<usize, Vec<String>>,
    /// Errors that could not be attributed to a source line.
    unattributed: Vec<String>,
    stderr: String,
}

fn compile(src: &Path, args: &[&str]) -> Result<Compiled, String> {
    let out = Command::new(cc())
        .args(args)
        .arg(src)
        .output()
        .map_err(|e| format!("cannot run `{}` (is a C compiler installed?): {e}", cc()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let src_prefix = format!("{}:", src.display());
    let mut errors: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut unattributed = Vec::new();
    // An error reported inside a header may be followed by "in expansion of macro" notes that
    // point back at the source line that used it.
    let mut pending: Option<String> = None;
    // The last error located in the source: "previous declaration" notes in a header belong to it.
    let mut last_src_error: Option<usize> = None;
    for line in stderr.lines() {
        let (at, kind, msg) = match diag_parts(line) {
            Some(p) => p,
            None => continue,
        };
        let src_line = at
            .strip_prefix(&src_prefix)
            .and_then(|r| r.split(':').next())
            .and_then(|l| l.parse::<usize>().ok());
        match (kind, src_line) {
            ("error" | "fatal error", Some(l)) => {
                if let Some(p) = pending.take() {
                    unattributed.push(p);
                }
                errors.entry(l).or_default().push(msg.to_string());
                last_src_error = Some(l);
            }
            ("error" | "fatal error", None) => {
                if let Some(p) = pending.take() {
                    unattributed.push(p);
                }
                pending = Some(format!("{at}: {msg}"));
                last_src_error = None;
            }
            ("note", Some(l)) => {
                if let Some(p) = pending.take() {
                    errors.entry(l).or_default().push(p);
                } else if last_src_error == Some(l) && msg.starts_with("previous") {
                    errors.entry(l).or_default().push(msg.to_string());
                }
            }
            ("note", None) if msg.starts_with("previous") => {
                if let Some(l) = last_src_error {
                    errors.entry(l).or_default().push(format!("{msg} at {at}"));
                }
            }
            _ => {}
        }
    }
    if let Some(p) = pending.take() {
        unattributed.push(p);
    }
    let ok = out.status.success();
    if !ok && errors.is_empty() && unattributed.is_empty() {
        unattributed.push(format!(
            "compiler failed ({}) without a recognised error",
            out.status
        ));
    }
    Ok(Compiled {
        ok,
        errors,
        unattributed,
        stderr,
    })
}

/// Splits `path:line:col: kind: message`.
fn diag_parts(line: &str) -> Option<(&str, &str, &str)> {
    for kind in ["fatal error", "error", "note", "warning"] {
        let pat = format!(": {kind}: ");
        if let Some(p) = line.find(&pat) {
            return Some((&line[..p], kind, &line[p + pat.len()..]));
        }
    }
    None
}

fn excerpt(s: &str, lines: usize) -> String {
    let all: Vec<&str> = s.lines().collect();
    let mut out = all[..all.len().min(lines)].join("\n");
    if all.len() > lines {
        write!(out, "\n... ({} more lines)", all.len() - lines).expect("write to String");
    }
    out
}

/// Result of running the probe against one include root.
struct ProbeRun {
    values: HashMap<String, String>,
    /// Items that did not compile, with the compiler's message.
    failed: BTreeMap<usize, String>,
}

fn run_probe(probes: &[Probe], root: &Path, work: &Path, label: &str) -> Result<ProbeRun, String> {
    let root_arg = format!("-I{}", root.display());
    let mut excluded: HashSet<usize> = HashSet::new();
    let mut failed = BTreeMap::new();
    for round in 0..8 {
        let (src, lines) = probe_source(probes, &excluded);
        let src_path = work.join(format!("probe_{label}.c"));
        let exe = work.join(format!("probe_{label}"));
        let deps = work.join(format!("probe_{label}.d"));
        fs::write(&src_path, &src)
            .map_err(|e| format!("cannot write {}: {e}", src_path.display()))?;
        let exe_s = exe.display().to_string();
        let deps_s = deps.display().to_string();
        let c = compile(
            &src_path,
            &[
                "-std=c11",
                "-O0",
                "-fdiagnostics-color=never",
                "-fno-diagnostics-show-caret",
                &root_arg,
                "-MD",
                "-MF",
                &deps_s,
                "-o",
                &exe_s,
            ],
        )?;
        if c.ok {
            check_deps(&deps, root)?;
            let out = Command::new(&exe)
                .output()
                .map_err(|e| format!("cannot run probe {}: {e}", exe.display()))?;
            if !out.status.success() {
                return Err(format!("probe {} failed: {}", exe.display(), out.status));
            }
            let mut values = HashMap::new();
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let mut parts = line.splitn(3, ' ');
                let (kind, name, value) = (parts.next(), parts.next(), parts.next());
                match (kind, name, value) {
                    (Some(k), Some(n), Some(v)) => {
                        values.insert(format!("{k} {n}"), v.to_string());
                    }
                    _ => return Err(format!("malformed probe output line `{line}`")),
                }
            }
            return Ok(ProbeRun { values, failed });
        }
        let mut progress = false;
        let mut stray = c.unattributed.clone();
        for (line, msgs) in &c.errors {
            match lines.get(line) {
                Some(&i) => {
                    excluded.insert(i);
                    failed.insert(i, msgs.join("; "));
                    progress = true;
                }
                None => stray.push(format!("probe line {line}: {}", msgs.join("; "))),
            }
        }
        if !stray.is_empty() || !progress {
            return Err(format!(
                "the probe does not compile against {} (round {round}); errors not tied to a \
                 single item:\n  {}\ncompiler output:\n{}",
                root.display(),
                stray.join("\n  "),
                excerpt(&c.stderr, 60)
            ));
        }
    }
    Err(format!(
        "the probe still does not compile against {} after 8 rounds of removing failing items",
        root.display()
    ))
}

/// Makes sure every Level Zero header the probe used came from `root`, so that a missing
/// generated header cannot silently fall back to the system copy.
fn check_deps(deps: &Path, root: &Path) -> Result<(), String> {
    let text =
        fs::read_to_string(deps).map_err(|e| format!("cannot read {}: {e}", deps.display()))?;
    let root = fs::canonicalize(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let body = text.split_once(": ").map_or("", |(_, b)| b);
    for tok in body.split_whitespace().filter(|t| *t != "\\") {
        if tok.contains("/level_zero/") {
            let p = fs::canonicalize(tok).unwrap_or_else(|_| PathBuf::from(tok));
            if !p.starts_with(&root) {
                return Err(format!(
                    "the probe compiled against {} picked up {} from outside that include root",
                    root.display(),
                    p.display()
                ));
            }
        }
    }
    Ok(())
}

/// Compiles the signature unit against `root`; returns the conflicting items with messages.
fn run_signatures(
    items: &[SigItem],
    root: &Path,
    work: &Path,
    label: &str,
) -> Result<Vec<(usize, String)>, String> {
    let (src, lines) = sig_source(items);
    let src_path = work.join(format!("signatures_{label}.c"));
    fs::write(&src_path, &src).map_err(|e| format!("cannot write {}: {e}", src_path.display()))?;
    let root_arg = format!("-I{}", root.display());
    let c = compile(
        &src_path,
        &[
            "-std=c11",
            "-fsyntax-only",
            "-Werror",
            "-fdiagnostics-color=never",
            "-fno-diagnostics-show-caret",
            &root_arg,
        ],
    )?;
    if c.ok {
        return Ok(Vec::new());
    }
    let mut stray = c.unattributed.clone();
    let mut out = Vec::new();
    for (line, msgs) in &c.errors {
        match lines.get(line) {
            Some(&i) => out.push((i, msgs.join("; "))),
            None => stray.push(format!("line {line}: {}", msgs.join("; "))),
        }
    }
    if !stray.is_empty() {
        return Err(format!(
            "the signature unit does not compile against {}; errors not tied to a single \
             declaration:\n  {}\ncompiler output:\n{}",
            root.display(),
            stray.join("\n  "),
            excerpt(&c.stderr, 60)
        ));
    }
    Ok(out)
}

// ------------------------------------------------------------------------------------------------
// Comparison
// ------------------------------------------------------------------------------------------------

/// Item counts of the reference headers.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub structs: usize,
    pub unions: usize,
    pub members: usize,
    pub enums: usize,
    pub etors: usize,
    pub macros: usize,
    pub str_macros: usize,
    pub fn_macros: usize,
    pub typedefs: usize,
    pub functions: usize,
    pub ddi_pfns: usize,
    pub callback_pfns: usize,
    pub ddi_tables: usize,
    pub ddi_members: usize,
    pub probe_lines: usize,
    pub sig_lines: usize,
    pub sig_member_types: usize,
    pub sig_tags: usize,
    pub skipped_macros: Vec<String>,
}

impl Counts {
    /// Structs, members, enumerators, macros, functions and pfn typedefs: the headline count.
    pub fn headline(&self) -> usize {
        self.structs
            + self.unions
            + self.members
            + self.etors
            + self.macros
            + self.functions
            + self.ddi_pfns
            + self.callback_pfns
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "  structs:                    {}", self.structs)?;
        writeln!(f, "  unions:                     {}", self.unions)?;
        writeln!(f, "  struct/union members:       {}", self.members)?;
        writeln!(f, "  enums:                      {}", self.enums)?;
        writeln!(f, "  enumerators:                {}", self.etors)?;
        writeln!(f, "  numeric macros:             {}", self.macros)?;
        writeln!(f, "  string macros:              {}", self.str_macros)?;
        writeln!(f, "  function-like macros:       {}", self.fn_macros)?;
        writeln!(f, "  functions:                  {}", self.functions)?;
        writeln!(f, "  DDI pfn typedefs:           {}", self.ddi_pfns)?;
        writeln!(f, "  callback pfn typedefs:      {}", self.callback_pfns)?;
        writeln!(f, "  other typedefs:             {}", self.typedefs)?;
        writeln!(
            f,
            "  DDI tables (members):       {} ({})",
            self.ddi_tables, self.ddi_members
        )?;
        writeln!(f, "  headline items:             {}", self.headline())?;
        writeln!(f, "  probe lines compared:       {}", self.probe_lines)?;
        writeln!(
            f,
            "  redeclarations checked:     {} (incl. {} member types, {} struct/union/enum tags)",
            self.sig_lines, self.sig_member_types, self.sig_tags
        )?;
        write!(
            f,
            "  macros not compared:        {}",
            self.skipped_macros.join(", ")
        )
    }
}

fn count(api: &Api, probes: &[Probe], sigs: &[SigItem]) -> Counts {
    let mut c = Counts {
        probe_lines: probes.len(),
        sig_lines: sigs.len(),
        sig_member_types: sigs.iter().filter(|s| s.cat == SigCat::MemberType).count(),
        sig_tags: sigs.iter().filter(|s| s.cat == SigCat::Tag).count(),
        skipped_macros: api.skipped_macros.clone(),
        ..Counts::default()
    };
    for (_, e) in &api.entities {
        match e {
            Entity::Composite(s) => {
                if s.is_union {
                    c.unions += 1;
                } else {
                    c.structs += 1;
                }
                c.members += s.members.len();
                if s.is_ddi_table() {
                    c.ddi_tables += 1;
                    c.ddi_members += s.members.len();
                }
            }
            Entity::Enum(en) => {
                c.enums += 1;
                c.etors += en.etors.len();
            }
            Entity::Macro(_) => c.macros += 1,
            Entity::StrMacro(_) => c.str_macros += 1,
            Entity::FnMacro(..) => c.fn_macros += 1,
            Entity::Alias { .. } => c.typedefs += 1,
            Entity::Pfn { ddi: true, .. } => c.ddi_pfns += 1,
            Entity::Pfn { ddi: false, .. } => c.callback_pfns += 1,
            Entity::Function { .. } => c.functions += 1,
        }
    }
    c
}

/// Outcome of comparing a candidate include root with the reference.
#[derive(Debug, Default)]
pub struct Report {
    pub counts: Counts,
    /// One line per difference; each line names the item.
    pub differences: Vec<String>,
    /// Differences that are allowed (DDI growth, newer `*_VERSION_CURRENT`).
    pub tolerated: Vec<String>,
}

impl Report {
    pub fn summary(&self, candidate: &str) -> String {
        let mut s = format!(
            "ABI comparison, Debian libze-dev (API 1.4) vs {candidate}:\n{}\n  tolerated differences:      {}\n  differences:                {}",
            self.counts,
            self.tolerated.len(),
            self.differences.len()
        );
        for t in &self.tolerated {
            write!(s, "\n    tolerated: {t}").expect("write to String");
        }
        s
    }

    /// The failure message: count plus the first [`MAX_LISTED`] differences.
    pub fn failure_message(&self, candidate: &str) -> String {
        let mut s = format!(
            "{} ABI differences between Debian libze-dev (API 1.4) and {candidate}:\n",
            self.differences.len()
        );
        for d in self.differences.iter().take(MAX_LISTED) {
            s.push_str("  ");
            s.push_str(d);
            s.push('\n');
        }
        if self.differences.len() > MAX_LISTED {
            writeln!(s, "  ... and {} more", self.differences.len() - MAX_LISTED)
                .expect("write to String");
        }
        write!(s, "total: {} differences", self.differences.len()).expect("write to String");
        s
    }
}

fn int(v: &str) -> Option<i128> {
    v.split(' ').next()?.parse().ok()
}

/// Compares `candidate` (an include root holding `level_zero/*.h`) with the reference root.
pub fn compare(reference: &Path, candidate: &Path, work: &Path) -> Result<Report, String> {
    let api = parse_headers(reference)?;
    let probes = probes(&api);
    let sigs = sig_items(&api);
    let counts = count(&api, &probes, &sigs);

    let reference_run = run_probe(&probes, reference, work, "reference")?;
    if let Some((&i, msg)) = reference_run.failed.iter().next() {
        return Err(format!(
            "harness bug: probe item `{}` does not compile against the reference headers: {msg}",
            probes[i].key
        ));
    }
    let reference_sigs = run_signatures(&sigs, reference, work, "reference")?;
    if let Some((i, msg)) = reference_sigs.first() {
        return Err(format!(
            "harness bug: {} does not redeclare cleanly against the reference headers: {msg}\n  {}",
            sigs[*i].what, sigs[*i].line
        ));
    }

    let candidate_run = run_probe(&probes, candidate, work, "candidate")?;
    let candidate_sigs = run_signatures(&sigs, candidate, work, "candidate")?;

    let ptr = std::mem::size_of::<usize>() as i128;
    let mut report = Report {
        counts,
        ..Report::default()
    };
    for (i, p) in probes.iter().enumerate() {
        let want = reference_run
            .values
            .get(&p.key)
            .ok_or_else(|| format!("harness bug: reference probe printed no `{}`", p.key))?;
        let got = match candidate_run.failed.get(&i) {
            Some(msg) => {
                let what = match &p.ddi {
                    Some((t, m, slot)) => {
                        format!(" [DDI table {t}: member {m} (slot {slot}) is missing]")
                    }
                    None => String::new(),
                };
                report.differences.push(format!(
                    "{}: debian={want} generated=<missing: {msg}>{what}",
                    p.key
                ));
                continue;
            }
            None => candidate_run
                .values
                .get(&p.key)
                .ok_or_else(|| format!("harness bug: candidate probe printed no `{}`", p.key))?,
        };
        if got == want {
            continue;
        }
        let line = format!("{}: debian={want} generated={got}", p.key);
        if p.growable {
            let grown = matches!((int(want), int(got)), (Some(w), Some(g)) if g >= w);
            if p.cat == Cat::Offset || grown {
                report.tolerated.push(line);
                continue;
            }
        }
        match &p.ddi {
            Some((t, m, slot)) => {
                let now = int(got).map_or_else(|| "?".to_string(), |g| (g / ptr).to_string());
                report.differences.push(format!(
                    "{line} [DDI table {t}: member {m} moved from slot {slot} to slot {now}; DDI \
                     tables may only grow by appending]"
                ));
            }
            None => report.differences.push(line),
        }
    }
    for (i, msg) in candidate_sigs {
        report.differences.push(format!(
            "signature {}: {msg}\n      redeclared from debian: {}",
            sigs[i].what, sigs[i].line
        ));
    }
    Ok(report)
}

/// Checks that `<root>/level_zero/` holds all six headers; the error names the missing ones.
pub fn missing_headers(root: &Path) -> Vec<PathBuf> {
    HEADERS
        .iter()
        .map(|h| root.join("level_zero").join(h))
        .filter(|p| !p.is_file())
        .collect()
}
