//! What the seed pages describe: `SeedSet` and its functions, structs, enums, macros,
//! typedefs and handles, and the list of every named item.

use std::collections::BTreeMap;

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
