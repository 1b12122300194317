//! Parser for the "seed" pages: pages of the published Level Zero HTML
//! specification saved as plain text (`shared/seeds/*.txt`).
//!
//! The pages are Sphinx/Breathe output flattened to text. Every paragraph is
//! one line and paragraphs are separated by blank lines. Headings and C
//! declarations end with `#` (the Sphinx permalink). An item looks like
//!
//! ```text
//! zeDeviceGet#                                  <- item heading
//! Added in version 1.0                          <- optional
//! ZE_APIEXPORT ze_result_t ZE_APICALL zeDeviceGet(...)#   <- declaration
//! Retrieves devices within a driver.            <- brief
//!   • ...                                       <- details (bullets)
//! Remark / Analogues / • clFoo                  <- optional
//! Parameters:
//!   • hDriver – [in] handle of the driver instance
//! Returns:
//! ```
//!
//! Enums are `enum X#` (the heading may be the `*_flags_t` typedef name),
//! `Values:`, then `enumerator NAME#` + description. Structs and unions are
//! `struct X#` / `union X#`, a brief, bullets, `Public Members`, then
//! `type name#` or `type name[ARRAY]#` followed by the member description
//! (`[in][optional] text ...`). Macros (`NAME#` / `NAME(args)#`), handles
//! (`typedef struct _x_handle_t *x_handle_t#`) and other typedefs are parsed
//! too, although the current seeds contain none.
//!
//! The parser is pure (no I/O except [`parse_dir`]) and never panics on odd
//! input: anything it cannot place is an `Err` naming the line.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

/// Everything parsed from one or more seed pages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedSet {
    pub functions: BTreeMap<String, SeedFunction>,
    /// Structs and unions (see [`SeedStruct::is_union`]).
    pub structs: BTreeMap<String, SeedStruct>,
    /// Keyed by the C enum name (`enum X`), e.g. `ze_device_property_flag_t`.
    pub enums: BTreeMap<String, SeedEnum>,
    pub macros: BTreeMap<String, SeedMacro>,
    /// Typedefs other than handles (plain aliases and function pointers).
    pub typedefs: BTreeMap<String, SeedTypedef>,
    /// `typedef struct _x_handle_t *x_handle_t`.
    pub handles: BTreeMap<String, SeedHandle>,
    /// Top-level item name -> page title (e.g. `"Device"`,
    /// `"Mem - Extensions"`). Holds every function, struct, union, enum (both
    /// the C enum name and, when it differs, the heading/typedef name),
    /// macro, typedef and handle. Members and enumerators are not keys; use
    /// the page of their parent (or [`SeedSet::item_names`]).
    pub page_of: BTreeMap<String, String>,
    /// Page titles in the order they were parsed.
    pub pages: Vec<String>,
    /// From the "oneAPI Level Zero Specification - Version X" line, e.g.
    /// `"1.18.31"`. All pages of a set must agree.
    pub spec_version: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedFunction {
    pub name: String,
    /// From "Added in version 1.3" -> `"1.3"`.
    pub since: Option<String>,
    /// Normalised C return type, e.g. `"ze_result_t"`.
    pub ret: String,
    /// In signature order.
    pub params: Vec<SeedParam>,
    /// The one-paragraph brief under the declaration.
    pub doc: String,
    /// The bullet list under the brief, one entry per top-level bullet
    /// (without the `•`). Nested bullets are appended to their parent entry
    /// as extra lines, as printed minus the parent's indentation. Extra
    /// non-bullet paragraphs (rare) are entries too.
    pub details: Vec<String>,
    /// Bullets under "Remark" / "Analogues", e.g. `["clGetDeviceInfo"]`.
    pub analogues: Vec<String>,
    /// Entries under "Returns:" (empty in the text export of 1.18.31).
    pub returns: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedParam {
    pub name: String,
    /// Normalised C type: single spaces, `*` attached to the type, e.g.
    /// `"const ze_foo_t*"`, `"void*"`, `"const char**"`.
    pub ty: String,
    /// Leading `[...]` groups exactly as printed, e.g.
    /// `"[in,out][optional][range(0, *pCount)]"`.
    pub annotations: String,
    /// Text after the annotations; continuation paragraphs joined with `\n`.
    pub doc: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedStruct {
    pub name: String,
    pub is_union: bool,
    pub since: Option<String>,
    /// The brief (first paragraph).
    pub doc: String,
    /// Bullets under the brief (same conventions as [`SeedFunction::details`]).
    pub details: Vec<String>,
    /// In declaration order, including `stype` / `pNext`.
    pub members: Vec<SeedMember>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedMember {
    /// Without the array suffix.
    pub name: String,
    /// Normalised C type (see [`SeedParam::ty`]), element type for arrays.
    pub ty: String,
    /// Array extent as printed, e.g. `"ZE_MAX_DEVICE_NAME"`.
    pub array: Option<String>,
    /// Leading `[...]` groups of the description, exactly as printed.
    pub annotations: String,
    /// Description after the annotations. Further paragraphs are appended
    /// with `\n`, as printed (bullets keep their `•` and indentation).
    pub doc: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedEnum {
    /// The C enum name as in `enum X`, e.g. `ze_device_property_flag_t`.
    pub name: String,
    /// The heading name when it differs, e.g. `ze_device_property_flags_t`.
    pub typedef_name: Option<String>,
    pub since: Option<String>,
    /// The brief (often empty for `*_flag_t` enums).
    pub doc: String,
    pub details: Vec<String>,
    /// In declaration order, including the `*_FORCE_UINT32` terminator.
    pub etors: Vec<SeedEtor>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedEtor {
    pub name: String,
    /// Only if printed as `enumerator NAME = VALUE#`; the 1.18.31 text
    /// export prints no values, so this is `None` for the current seeds.
    pub value: Option<String>,
    /// Description paragraphs joined with `\n`.
    pub doc: String,
    /// The generated `*_FORCE_UINT32` terminator; callers usually skip it.
    pub force_uint32: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedMacro {
    pub name: String,
    pub since: Option<String>,
    /// `Some` for function-like macros (`NAME(a, b)#`).
    pub params: Option<Vec<String>>,
    /// Replacement text if printed (`NAME value#`).
    pub value: Option<String>,
    pub doc: String,
    pub details: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedTypedef {
    pub name: String,
    pub since: Option<String>,
    /// The aliased type, normalised; for function pointers the declaration
    /// with the name removed, e.g. `"void (*)(ze_result_t, void*)"`.
    pub ty: String,
    pub doc: String,
    pub details: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SeedHandle {
    pub name: String,
    pub since: Option<String>,
    pub doc: String,
    pub details: Vec<String>,
}

/// Kind of a name returned by [`SeedSet::item_names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum SeedItemKind {
    Function,
    Struct,
    Union,
    Enum,
    /// A struct/union member, named `struct.member`.
    Member,
    Enumerator,
    Macro,
    Typedef,
    Handle,
}

impl SeedItemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SeedItemKind::Function => "function",
            SeedItemKind::Struct => "struct",
            SeedItemKind::Union => "union",
            SeedItemKind::Enum => "enum",
            SeedItemKind::Member => "member",
            SeedItemKind::Enumerator => "enumerator",
            SeedItemKind::Macro => "macro",
            SeedItemKind::Typedef => "typedef",
            SeedItemKind::Handle => "handle",
        }
    }
}

/// One named item of the seeds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SeedItem {
    pub kind: SeedItemKind,
    /// Function / type / macro / enumerator name; `struct.member` for members.
    pub name: String,
    /// Title of the page it appears on.
    pub page: String,
    /// True for `*_FORCE_UINT32` enumerators and the `stype` / `pNext`
    /// members every extensible struct repeats, so callers can skip them.
    pub boilerplate: bool,
}

impl SeedSet {
    /// Every named item: each function, struct/union, enum, macro, typedef
    /// and handle, each struct/union member (as `struct.member`) and each
    /// enumerator. Order: functions, then each struct followed by its
    /// members, then each enum followed by its enumerators, then macros,
    /// typedefs, handles (names sorted within a kind, members/enumerators
    /// in declaration order). An enum is listed once under its C name; its
    /// `*_flags_t` heading name is not a separate item. Function parameters
    /// are not items.
    ///
    /// The "316 items named in the seeds" are exactly this list for the
    /// four 1.18.31 pages:
    ///
    /// | kind        | count | of which boilerplate                 |
    /// |-------------|------:|--------------------------------------|
    /// | function    |    42 |                                      |
    /// | struct      |    25 |                                      |
    /// | enum        |    19 |                                      |
    /// | member      |   133 | 42 (`stype` + `pNext` of 21 structs) |
    /// | enumerator  |    97 | 19 (`*_FORCE_UINT32`)                |
    /// | **total**   |   316 | 61                                   |
    ///
    /// So the 316 counts the type names themselves, the base members and the
    /// `*_FORCE_UINT32` terminators. Functions + members + enumerators alone
    /// are 272; leaving out the boilerplate ([`SeedItem::boilerplate`]) as
    /// well gives 211. Parameters (133) are not counted.
    pub fn item_names(&self) -> Vec<SeedItem> {
        let page = |name: &str| self.page_of.get(name).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for f in self.functions.values() {
            out.push(SeedItem {
                kind: SeedItemKind::Function,
                name: f.name.clone(),
                page: page(&f.name),
                boilerplate: false,
            });
        }
        for s in self.structs.values() {
            let p = page(&s.name);
            out.push(SeedItem {
                kind: if s.is_union {
                    SeedItemKind::Union
                } else {
                    SeedItemKind::Struct
                },
                name: s.name.clone(),
                page: p.clone(),
                boilerplate: false,
            });
            for m in &s.members {
                out.push(SeedItem {
                    kind: SeedItemKind::Member,
                    name: format!("{}.{}", s.name, m.name),
                    page: p.clone(),
                    boilerplate: m.name == "stype" || m.name == "pNext",
                });
            }
        }
        for e in self.enums.values() {
            let p = page(&e.name);
            out.push(SeedItem {
                kind: SeedItemKind::Enum,
                name: e.name.clone(),
                page: p.clone(),
                boilerplate: false,
            });
            for t in &e.etors {
                out.push(SeedItem {
                    kind: SeedItemKind::Enumerator,
                    name: t.name.clone(),
                    page: p.clone(),
                    boilerplate: t.force_uint32,
                });
            }
        }
        let simple = [
            (SeedItemKind::Macro, self.macros.keys().collect::<Vec<_>>()),
            (SeedItemKind::Typedef, self.typedefs.keys().collect()),
            (SeedItemKind::Handle, self.handles.keys().collect()),
        ];
        for (kind, names) in simple {
            for n in names {
                out.push(SeedItem {
                    kind,
                    name: n.clone(),
                    page: page(n),
                    boilerplate: false,
                });
            }
        }
        out
    }
}

/// Parses every `*.txt` file of `dir` (sorted by file name) into one set.
/// Errors are prefixed with the file path.
pub fn parse_dir(dir: &Path) -> Result<SeedSet, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: cannot read dir: {e}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        if path.is_file() && path.extension().is_some_and(|x| x == "txt") {
            files.push(path);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no *.txt seed pages", dir.display()));
    }
    let mut set = SeedSet::default();
    for path in files {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        parse_page(&text, &mut set).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(set)
}

/// Parses one page into `set`. Errors read `line N: message`; on error
/// `set` is left unchanged.
pub fn parse_page(text: &str, set: &mut SeedSet) -> Result<(), String> {
    let units = split_units(text);
    let first = units
        .first()
        .ok_or_else(|| "line 1: empty page".to_string())?;
    let title = first
        .text
        .strip_suffix('#')
        .unwrap_or(first.text)
        .trim()
        .to_string();
    let mut p = PageParser {
        units,
        pos: 0,
        title: title.clone(),
        existing: set,
        out: SeedSet::default(),
    };
    p.parse()?;
    let out = p.out;

    if let (Some(a), Some(b)) = (&set.spec_version, &out.spec_version) {
        if a != b {
            return Err(format!(
                "line 1: page \"{title}\" is spec version {b}, earlier pages are {a}"
            ));
        }
    }
    if set.spec_version.is_none() {
        set.spec_version = out.spec_version;
    }
    set.pages.push(title);
    set.functions.extend(out.functions);
    set.structs.extend(out.structs);
    set.enums.extend(out.enums);
    set.macros.extend(out.macros);
    set.typedefs.extend(out.typedefs);
    set.handles.extend(out.handles);
    set.page_of.extend(out.page_of);
    Ok(())
}

// ---------------------------------------------------------------------------
// Lines

/// One non-blank line.
#[derive(Debug, Clone, Copy)]
struct Unit<'a> {
    /// 1-based line number.
    no: usize,
    /// The line without trailing whitespace.
    raw: &'a str,
    /// The line without surrounding whitespace.
    text: &'a str,
    /// Bytes of leading whitespace.
    indent: usize,
}

const BULLETS: [char; 4] = ['•', '◦', '▪', '‣'];

impl<'a> Unit<'a> {
    /// Text after the bullet glyph, for bullet lines.
    fn bullet(&self) -> Option<&'a str> {
        self.text
            .strip_prefix(BULLETS)
            .map(str::trim_start)
            .filter(|t| !t.is_empty())
    }

    /// For an unindented line ending with `#`: the text before the `#`.
    fn decl(&self) -> Option<&'a str> {
        if self.indent != 0 {
            return None;
        }
        self.text.strip_suffix('#').map(str::trim_end)
    }

    /// The raw line with `indent` bytes of indentation removed.
    fn dedent(&self, indent: usize) -> &'a str {
        self.raw.get(indent.min(self.indent)..).unwrap_or(self.text)
    }
}

/// Lines of the HTML theme's chrome (table-of-contents and sidebar titles)
/// that the text export left in the pages: the Device page starts with
/// "Contents" and ends with "In this class". They are dropped wherever they
/// stand alone on a line.
const CHROME: [&str; 3] = ["Contents", "In this class", "On this page"];

fn split_units(text: &str) -> Vec<Unit<'_>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let raw = line.trim_end();
            let text = raw.trim_start();
            if text.is_empty() || CHROME.contains(&text) {
                return None;
            }
            Some(Unit {
                no: i + 1,
                raw,
                text,
                indent: raw.len() - text.len(),
            })
        })
        .collect()
}

fn err<T>(line: usize, msg: impl std::fmt::Display) -> Result<T, String> {
    Err(format!("line {line}: {msg}"))
}

// ---------------------------------------------------------------------------
// Classification

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// "Device Functions", "Mem - Extension Enums", "Device" ...
fn is_section_heading(body: &str) -> bool {
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
fn is_item_decl(body: &str) -> bool {
    body.starts_with("ZE_APIEXPORT ")
        || body.contains(" ZE_APICALL ")
        || body.starts_with("struct ")
        || body.starts_with("union ")
        || body.starts_with("enum ")
        || body.starts_with("typedef ")
}

/// `NAME#`, `NAME(args)#` or `NAME value#` under the heading `NAME`.
fn is_macro_decl(heading: &str, body: &str) -> bool {
    heading.starts_with(|c: char| c.is_ascii_uppercase())
        && match body.strip_prefix(heading) {
            Some(rest) => rest.is_empty() || rest.starts_with('(') || rest.starts_with(' '),
            None => false,
        }
}

fn parse_version(v: &str, line: usize) -> Result<String, String> {
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
fn norm_type(s: &str) -> String {
    let mut t = s.split_whitespace().collect::<Vec<_>>().join(" ");
    while t.contains(" *") {
        t = t.replace(" *", "*");
    }
    t
}

fn is_type_text(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| is_ident_char(c) || c == '*' || c == ' ')
}

/// `const void **pConstantValues` -> (`const void**`, `pConstantValues`,
/// None); `char name[ZE_MAX_DEVICE_NAME]` -> (`char`, `name`,
/// Some(`ZE_MAX_DEVICE_NAME`)).
fn split_decl(s: &str, line: usize) -> Result<(String, String, Option<String>), String> {
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
fn split_top_level(s: &str) -> Vec<&str> {
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

struct Signature {
    ret: String,
    name: String,
    params: Vec<(String, String)>,
}

/// `ZE_APIEXPORT ze_result_t ZE_APICALL zeX(ze_device_handle_t hDevice, ...)`
fn parse_signature(body: &str, line: usize) -> Result<Signature, String> {
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
fn is_annotation(content: &str) -> bool {
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
fn split_annotations(s: &str) -> (String, String) {
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
fn split_param_line(s: &str) -> Option<(&str, &str)> {
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
fn push_detail(list: &mut Vec<String>, base: &mut Option<usize>, u: &Unit<'_>) {
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

fn append_line(doc: &mut String, line: &str) {
    if !doc.is_empty() {
        doc.push('\n');
    }
    doc.push_str(line);
}

/// Brief + details of a body with no further structure.
fn doc_and_details(body: &[Unit<'_>]) -> (String, Vec<String>) {
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

// ---------------------------------------------------------------------------
// Page parser

struct PageParser<'a, 's> {
    units: Vec<Unit<'a>>,
    pos: usize,
    title: String,
    existing: &'s SeedSet,
    out: SeedSet,
}

impl<'a> PageParser<'a, '_> {
    fn peek(&self) -> Option<Unit<'a>> {
        self.units.get(self.pos).copied()
    }

    fn parse(&mut self) -> Result<(), String> {
        let title_heading = format!("{}#", self.title);
        while let Some(u) = self.peek() {
            if u.text == title_heading {
                self.pos += 1;
            } else if let Some(v) = u
                .text
                .strip_prefix("oneAPI Level Zero Specification - Version ")
            {
                let v = parse_version(v, u.no)?;
                if let Some(old) = &self.out.spec_version {
                    if *old != v {
                        return err(u.no, format!("second spec version {v} (was {old})"));
                    }
                }
                self.out.spec_version = Some(v);
                self.pos += 1;
            } else if let Some(body) = u.decl() {
                if is_section_heading(body) {
                    self.pos += 1;
                } else if is_ident(body) {
                    self.pos += 1;
                    self.parse_item(Some((body, u.no)))?;
                } else if is_item_decl(body) {
                    self.parse_item(None)?;
                } else {
                    return err(
                        u.no,
                        format!("declaration outside any item: \"{}\"", u.text),
                    );
                }
            } else {
                // Page preamble ("Contents", the title line) or section prose.
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// Units of the current item's body, up to the next heading or item.
    fn take_body(&mut self) -> Vec<Unit<'a>> {
        let start = self.pos;
        while let Some(u) = self.peek() {
            if let Some(body) = u.decl() {
                if is_ident(body) || is_section_heading(body) || is_item_decl(body) {
                    break;
                }
            }
            self.pos += 1;
        }
        self.units.get(start..self.pos).unwrap_or(&[]).to_vec()
    }

    fn claim(&mut self, name: &str, line: usize) -> Result<(), String> {
        for (set, which) in [(self.existing, "an earlier page"), (&self.out, "this page")] {
            if let Some(page) = set.page_of.get(name) {
                return err(
                    line,
                    format!("duplicate item {name} (already on {which}, \"{page}\")"),
                );
            }
        }
        self.out
            .page_of
            .insert(name.to_string(), self.title.clone());
        Ok(())
    }

    fn parse_item(&mut self, heading: Option<(&'a str, usize)>) -> Result<(), String> {
        let mut since = None;
        loop {
            let Some(u) = self.peek() else {
                let (h, line) = heading.unwrap_or(("?", 0));
                return err(
                    line,
                    format!("item {h} has no declaration before end of page"),
                );
            };
            if let Some(v) = u.text.strip_prefix("Added in version") {
                if since.is_some() {
                    return err(u.no, "second \"Added in version\" line");
                }
                since = Some(parse_version(v, u.no)?);
                self.pos += 1;
                continue;
            }
            // A declaration may be wrapped over several lines.
            let mut joined = String::new();
            let decl: Option<&str> = if u.indent == 0
                && !u.text.ends_with('#')
                && (u.text.starts_with("ZE_APIEXPORT ") || u.text.starts_with("typedef "))
            {
                let mut end = self.pos;
                joined.push_str(u.text);
                loop {
                    end += 1;
                    match self.units.get(end) {
                        Some(n) => {
                            joined.push(' ');
                            joined.push_str(n.text);
                            if n.text.ends_with('#') {
                                break;
                            }
                        }
                        None => return err(u.no, "unterminated declaration"),
                    }
                }
                self.pos = end;
                joined.strip_suffix('#').map(str::trim_end)
            } else {
                u.decl()
            };
            if let Some(body) = decl {
                if let Some((h, _)) = heading {
                    if is_macro_decl(h, body) {
                        self.pos += 1;
                        return self.parse_macro(h, body, since, u.no);
                    }
                }
                if is_item_decl(body) {
                    self.pos += 1;
                    let body = body.to_string();
                    return self.parse_decl(heading, &body, since, u.no);
                }
                if is_ident(body) || is_section_heading(body) {
                    let (h, line) = heading.unwrap_or(("?", u.no));
                    return err(line, format!("item {h} has no declaration"));
                }
            }
            let h = heading.map(|(h, _)| h).unwrap_or("?");
            return err(
                u.no,
                format!(
                    "unexpected text before the declaration of {h}: \"{}\"",
                    u.text
                ),
            );
        }
    }

    fn parse_decl(
        &mut self,
        heading: Option<(&str, usize)>,
        body: &str,
        since: Option<String>,
        line: usize,
    ) -> Result<(), String> {
        let check_heading = |name: &str| -> Result<(), String> {
            match heading {
                Some((h, hl)) if h != name => {
                    err(hl, format!("heading {h} but the declaration names {name}"))
                }
                _ => Ok(()),
            }
        };
        if let Some(name) = body.strip_prefix("enum ") {
            let name = name.trim();
            if !is_ident(name) {
                return err(line, format!("bad enum name \"{name}\""));
            }
            let typedef_name = heading.map(|(h, _)| h).filter(|h| *h != name);
            return self.parse_enum(name, typedef_name, since, line);
        }
        for (kw, is_union) in [("struct ", false), ("union ", true)] {
            if let Some(name) = body.strip_prefix(kw) {
                let name = name.trim();
                if !is_ident(name) {
                    return err(line, format!("bad {kw}name \"{name}\""));
                }
                check_heading(name)?;
                return self.parse_struct(name, is_union, since, line);
            }
        }
        if let Some(rest) = body.strip_prefix("typedef ") {
            return self.parse_typedef(rest, check_heading, since, line);
        }
        let sig = parse_signature(body, line)?;
        check_heading(&sig.name)?;
        self.parse_function(sig, since, line)
    }

    fn parse_function(
        &mut self,
        sig: Signature,
        since: Option<String>,
        line: usize,
    ) -> Result<(), String> {
        #[derive(PartialEq)]
        enum Mode {
            Details,
            Remark,
            Analogues,
            Params,
            Returns,
        }
        self.claim(&sig.name, line)?;
        let body = self.take_body();
        let mut f = SeedFunction {
            name: sig.name.clone(),
            since,
            ret: sig.ret,
            ..SeedFunction::default()
        };
        let mut mode = Mode::Details;
        let mut base = None;
        let mut saw_params = false;
        // (name, annotations, doc, line, bullet indent)
        let mut documented: Vec<(String, String, String, usize, usize)> = Vec::new();
        for u in &body {
            match u.text {
                "Remark" => {
                    mode = Mode::Remark;
                    continue;
                }
                "Analogues" => {
                    mode = Mode::Analogues;
                    continue;
                }
                "Parameters:" | "Parameters" => {
                    mode = Mode::Params;
                    saw_params = true;
                    continue;
                }
                "Returns:" | "Returns" | "Return values:" => {
                    mode = Mode::Returns;
                    continue;
                }
                _ => {}
            }
            match mode {
                Mode::Details => {
                    if f.doc.is_empty() && f.details.is_empty() && u.bullet().is_none() {
                        f.doc = u.text.to_string();
                    } else {
                        push_detail(&mut f.details, &mut base, u);
                    }
                }
                Mode::Remark => push_detail(&mut f.details, &mut base, u),
                Mode::Analogues => match u.bullet() {
                    Some(b) => f.analogues.push(b.to_string()),
                    None => f.details.push(u.text.to_string()),
                },
                Mode::Returns => f.returns.push(u.bullet().unwrap_or(u.text).to_string()),
                Mode::Params => {
                    let text = u.bullet().unwrap_or(u.text);
                    let deeper = documented
                        .last()
                        .is_some_and(|d| u.bullet().is_some() && u.indent > d.4);
                    let new_param = if deeper { None } else { split_param_line(text) };
                    if let Some((n, _)) = new_param {
                        if !sig.params.iter().any(|(_, p)| p == n) {
                            return err(
                                u.no,
                                format!(
                                    "{}: documented parameter {n} is not in the signature",
                                    f.name
                                ),
                            );
                        }
                        if documented.iter().any(|d| d.0 == n) {
                            return err(
                                u.no,
                                format!("{}: parameter {n} documented twice", f.name),
                            );
                        }
                    }
                    match (new_param, documented.last_mut()) {
                        (Some((n, rest)), _) => {
                            let (ann, doc) = split_annotations(rest);
                            documented.push((n.to_string(), ann, doc, u.no, u.indent));
                        }
                        (None, Some(last)) => {
                            let line = if deeper { u.dedent(last.4) } else { u.text };
                            append_line(&mut last.2, line);
                        }
                        (None, None) => {
                            return err(
                                u.no,
                                format!(
                                    "{}: \"{}\" is not a \"name – [annotations] text\" \
                                     entry for a parameter of the signature",
                                    f.name, u.text
                                ),
                            )
                        }
                    }
                }
            }
        }
        if saw_params || !documented.is_empty() {
            for (i, (ty, name)) in sig.params.iter().enumerate() {
                let Some(d) = documented.get(i) else {
                    return err(
                        line,
                        format!("{}: parameter {name} is not documented", f.name),
                    );
                };
                if d.0 != *name {
                    return err(
                        d.3,
                        format!(
                            "{}: parameter {} documented where the signature has {name}",
                            f.name, d.0
                        ),
                    );
                }
                f.params.push(SeedParam {
                    name: name.clone(),
                    ty: ty.clone(),
                    annotations: d.1.clone(),
                    doc: d.2.clone(),
                });
            }
        } else {
            f.params = sig
                .params
                .into_iter()
                .map(|(ty, name)| SeedParam {
                    name,
                    ty,
                    ..SeedParam::default()
                })
                .collect();
        }
        self.out.functions.insert(f.name.clone(), f);
        Ok(())
    }

    fn parse_struct(
        &mut self,
        name: &str,
        is_union: bool,
        since: Option<String>,
        line: usize,
    ) -> Result<(), String> {
        self.claim(name, line)?;
        let body = self.take_body();
        let mut s = SeedStruct {
            name: name.to_string(),
            is_union,
            since,
            ..SeedStruct::default()
        };
        let split = body
            .iter()
            .position(|u| u.text == "Public Members")
            .unwrap_or(body.len());
        let (head, members) = body.split_at(split);
        (s.doc, s.details) = doc_and_details(head);
        // First unit of `members` is the "Public Members" marker.
        let mut first_doc = false;
        for u in members.iter().skip(1) {
            if let Some(decl) = u.decl() {
                let (ty, mname, array) = split_decl(decl, u.no)?;
                if s.members.iter().any(|m| m.name == mname) {
                    return err(u.no, format!("{name}: member {mname} declared twice"));
                }
                s.members.push(SeedMember {
                    name: mname,
                    ty,
                    array,
                    ..SeedMember::default()
                });
                first_doc = true;
                continue;
            }
            let Some(m) = s.members.last_mut() else {
                return err(
                    u.no,
                    format!("{name}: text before the first member: \"{}\"", u.text),
                );
            };
            if first_doc {
                (m.annotations, m.doc) = split_annotations(u.text);
                first_doc = false;
            } else {
                append_line(&mut m.doc, u.raw);
            }
        }
        self.out.structs.insert(s.name.clone(), s);
        Ok(())
    }

    fn parse_enum(
        &mut self,
        name: &str,
        typedef_name: Option<&str>,
        since: Option<String>,
        line: usize,
    ) -> Result<(), String> {
        self.claim(name, line)?;
        if let Some(t) = typedef_name {
            self.claim(t, line)?;
        }
        let body = self.take_body();
        let mut e = SeedEnum {
            name: name.to_string(),
            typedef_name: typedef_name.map(str::to_string),
            since,
            ..SeedEnum::default()
        };
        let split = body
            .iter()
            .position(|u| u.text == "Values:")
            .unwrap_or(body.len());
        let (head, values) = body.split_at(split);
        (e.doc, e.details) = doc_and_details(head);
        for u in values.iter().skip(1) {
            if let Some(decl) = u.decl().and_then(|d| d.strip_prefix("enumerator ")) {
                let (ename, value) = match decl.split_once('=') {
                    Some((n, v)) => (n.trim(), Some(v.trim().to_string())),
                    None => (decl.trim(), None),
                };
                if !is_ident(ename) {
                    return err(u.no, format!("{name}: bad enumerator name \"{ename}\""));
                }
                if e.etors.iter().any(|t| t.name == ename) {
                    return err(u.no, format!("{name}: enumerator {ename} declared twice"));
                }
                e.etors.push(SeedEtor {
                    name: ename.to_string(),
                    value,
                    doc: String::new(),
                    force_uint32: ename.ends_with("_FORCE_UINT32"),
                });
                continue;
            }
            match e.etors.last_mut() {
                Some(t) => append_line(&mut t.doc, u.text),
                None => {
                    return err(
                        u.no,
                        format!("{name}: text before the first enumerator: \"{}\"", u.text),
                    )
                }
            }
        }
        self.out.enums.insert(e.name.clone(), e);
        Ok(())
    }

    fn parse_macro(
        &mut self,
        name: &str,
        decl: &str,
        since: Option<String>,
        line: usize,
    ) -> Result<(), String> {
        self.claim(name, line)?;
        let rest = decl.get(name.len()..).unwrap_or("");
        let (params, value) = match rest.strip_prefix('(') {
            Some(r) => {
                let Some(close) = r.find(')') else {
                    return err(line, format!("macro {name}: unclosed parameter list"));
                };
                let list = r.get(..close).unwrap_or("");
                let params: Vec<String> = if list.trim().is_empty() {
                    Vec::new()
                } else {
                    list.split(',').map(|p| p.trim().to_string()).collect()
                };
                if params.iter().any(|p| !is_ident(p) && p != "...") {
                    return err(line, format!("macro {name}: bad parameter list \"{list}\""));
                }
                (Some(params), r.get(close + 1..).unwrap_or("").trim())
            }
            None => (None, rest.trim()),
        };
        let body = self.take_body();
        let (doc, details) = doc_and_details(&body);
        self.out.macros.insert(
            name.to_string(),
            SeedMacro {
                name: name.to_string(),
                since,
                params,
                value: (!value.is_empty()).then(|| value.to_string()),
                doc,
                details,
            },
        );
        Ok(())
    }

    fn parse_typedef(
        &mut self,
        rest: &str,
        check_heading: impl Fn(&str) -> Result<(), String>,
        since: Option<String>,
        line: usize,
    ) -> Result<(), String> {
        let rest = rest.trim();
        // Handle: `struct _ze_driver_handle_t *ze_driver_handle_t`.
        if let Some(r) = rest.strip_prefix("struct ") {
            if let Some((tag, name)) = r.split_once('*') {
                let (tag, name) = (tag.trim(), name.trim());
                if is_ident(name) && tag.strip_prefix('_') == Some(name) {
                    check_heading(name)?;
                    self.claim(name, line)?;
                    let body = self.take_body();
                    let (doc, details) = doc_and_details(&body);
                    self.out.handles.insert(
                        name.to_string(),
                        SeedHandle {
                            name: name.to_string(),
                            since,
                            doc,
                            details,
                        },
                    );
                    return Ok(());
                }
            }
        }
        // Function pointer: `ret (ZE_APICALL *name)(params)`.
        let (name, ty) = if let Some(open) = rest.find('(') {
            let close = rest
                .get(open..)
                .and_then(|r| r.find(')'))
                .map(|c| c + open)
                .unwrap_or(open);
            let inner = rest.get(open + 1..close).unwrap_or("");
            let name = inner.rsplit('*').next().unwrap_or("").trim();
            if close == open || !inner.contains('*') || !is_ident(name) {
                return err(
                    line,
                    format!("cannot read function pointer typedef \"{rest}\""),
                );
            }
            let head = rest.get(..open).unwrap_or("");
            let tail = rest.get(close + 1..).unwrap_or("");
            let ty = format!("{head}(*){tail}");
            (
                name.to_string(),
                ty.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        } else {
            let (ty, name, array) = split_decl(rest, line)?;
            (name, with_array(ty, array))
        };
        check_heading(&name)?;
        self.claim(&name, line)?;
        let body = self.take_body();
        let (doc, details) = doc_and_details(&body);
        self.out.typedefs.insert(
            name.clone(),
            SeedTypedef {
                name,
                since,
                ty,
                doc,
                details,
            },
        );
        Ok(())
    }
}

fn with_array(ty: String, array: Option<String>) -> String {
    match array {
        Some(a) => format!("{ty}[{a}]"),
        None => ty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_normalise() {
        assert_eq!(norm_type("const  char * *"), "const char**");
        let (ty, n, a) = split_decl("const void *pNext", 1).unwrap();
        assert_eq!((ty.as_str(), n.as_str(), a), ("const void*", "pNext", None));
        let (ty, n, a) = split_decl("char name[ZE_MAX_DEVICE_NAME]", 1).unwrap();
        assert_eq!((ty.as_str(), n.as_str()), ("char", "name"));
        assert_eq!(a.as_deref(), Some("ZE_MAX_DEVICE_NAME"));
        assert!(split_decl("*", 1).is_err());
        assert!(split_decl("x]", 1).is_err());
    }

    #[test]
    fn annotations_split() {
        let (a, d) = split_annotations("[in,out][optional][range(0, *pCount)] array of x");
        assert_eq!(a, "[in,out][optional][range(0, *pCount)]");
        assert_eq!(d, "array of x");
        let (a, d) = split_annotations("[ptr, ptr+size) is mapped [in]");
        assert_eq!(a, "");
        assert_eq!(d, "[ptr, ptr+size) is mapped [in]");
        let (a, d) = split_annotations("[out]");
        assert_eq!((a.as_str(), d.as_str()), ("[out]", ""));
    }

    #[test]
    fn other_kinds() {
        let page = "Common\n\nCommon#\n\nCommon Macros#\n\nZE_BIT#\n\nZE_BIT(_i)#\n\nGenerates a bit.\n\n\
                    Common Typedefs#\n\nze_bool_t#\n\ntypedef uint8_t ze_bool_t#\n\nA bool.\n\n\
                    ze_driver_handle_t#\n\ntypedef struct _ze_driver_handle_t *ze_driver_handle_t#\n\nDriver.\n\n\
                    ze_pfnCb_t#\n\ntypedef void (*ze_pfnCb_t)(ze_result_t r, void *p)#\n\nCallback.\n\n\
                    ze_u_t#\n\nunion ze_u_t#\n\nA union.\n\nPublic Members\n\nuint32_t a#\n\n[in] a\n";
        let mut set = SeedSet::default();
        parse_page(page, &mut set).unwrap();
        let m = &set.macros["ZE_BIT"];
        assert_eq!(m.params.as_deref(), Some(&["_i".to_string()][..]));
        assert_eq!(m.doc, "Generates a bit.");
        assert_eq!(set.typedefs["ze_bool_t"].ty, "uint8_t");
        assert_eq!(
            set.typedefs["ze_pfnCb_t"].ty,
            "void (*)(ze_result_t r, void *p)"
        );
        assert_eq!(set.handles["ze_driver_handle_t"].doc, "Driver.");
        assert!(set.structs["ze_u_t"].is_union);
        assert_eq!(set.page_of["ze_u_t"], "Common");
    }
}
