//! The zekit spec schema: one serde type per entry kind of `spec/**/*.yml`.
//!
//! Every struct denies unknown keys, so a typo in the spec is an error with a
//! `file:line`, never a silently ignored key. `spec/README.md` documents each
//! kind and key; keep the two in step.

use serde::{Deserialize, Serialize};

fn is_false(b: &bool) -> bool {
    !*b
}

/// One YAML document of a spec file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    File(FileHeader),
    Macro(Macro),
    Typedef(Typedef),
    Handle(Handle),
    Class(Class),
    Enum(Enum),
    Flags(Enum),
    Struct(Struct),
    Union(Struct),
    Function(Function),
    Callback(Callback),
    Env(Env),
    DefaultStruct(DefaultStruct),
}

impl Entry {
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::File(_) => "file",
            Entry::Macro(_) => "macro",
            Entry::Typedef(_) => "typedef",
            Entry::Handle(_) => "handle",
            Entry::Class(_) => "class",
            Entry::Enum(_) => "enum",
            Entry::Flags(_) => "flags",
            Entry::Struct(_) => "struct",
            Entry::Union(_) => "union",
            Entry::Function(_) => "function",
            Entry::Callback(_) => "callback",
            Entry::Env(_) => "env",
            Entry::DefaultStruct(_) => "default_struct",
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Entry::File(f) => &f.title,
            Entry::Macro(x) => &x.name,
            Entry::Typedef(x) => &x.name,
            Entry::Handle(x) => &x.name,
            Entry::Class(x) => &x.name,
            Entry::Enum(x) | Entry::Flags(x) => &x.name,
            Entry::Struct(x) | Entry::Union(x) => &x.name,
            Entry::Function(x) => &x.name,
            Entry::Callback(x) => &x.name,
            Entry::Env(x) => &x.name,
            Entry::DefaultStruct(x) => &x.name,
        }
    }

    /// The entry's own description (`doc:`).
    pub fn doc(&self) -> Option<&str> {
        match self {
            Entry::File(x) => x.doc.as_deref(),
            Entry::Macro(x) => x.doc.as_deref(),
            Entry::Typedef(x) => x.doc.as_deref(),
            Entry::Handle(x) => x.doc.as_deref(),
            Entry::Class(x) => x.doc.as_deref(),
            Entry::Enum(x) | Entry::Flags(x) => x.doc.as_deref(),
            Entry::Struct(x) | Entry::Union(x) => x.doc.as_deref(),
            Entry::Function(x) => x.doc.as_deref(),
            Entry::Callback(x) => x.doc.as_deref(),
            Entry::Env(x) => x.doc.as_deref(),
            Entry::DefaultStruct(x) => x.doc.as_deref(),
        }
    }

    /// Version of the API that introduced this entry ("1.0" when absent).
    pub fn since(&self) -> Option<&str> {
        match self {
            Entry::File(_) | Entry::Env(_) => None,
            Entry::Macro(x) => x.since.as_deref(),
            Entry::Typedef(x) => x.since.as_deref(),
            Entry::Handle(x) => x.since.as_deref(),
            Entry::Class(x) => x.since.as_deref(),
            Entry::Enum(x) | Entry::Flags(x) => x.since.as_deref(),
            Entry::Struct(x) | Entry::Union(x) => x.since.as_deref(),
            Entry::Function(x) => x.since.as_deref(),
            Entry::Callback(x) => x.since.as_deref(),
            Entry::DefaultStruct(x) => x.since.as_deref(),
        }
    }
}

/// First document of every file: what the file is and where it goes in the header.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileHeader {
    pub title: String,
    /// Position of this file's contents in the namespace header (ascending).
    pub order: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Macro {
    pub name: String,
    /// Arguments of a function-like macro.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    pub value: String,
    /// Preprocessor condition; `value` applies when it holds, `altvalue` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub altvalue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Typedef {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Handle {
    pub name: String,
    pub class: String,
    /// Another handle type this one is the same object as (for example zet_device_handle_t).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// A class groups functions; its `ordinal` orders the DDI tables of its namespace.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Class {
    pub name: String,
    pub ordinal: u32,
    /// Position of this class's table in the legacy tracing aggregate `ze_callbacks_t`
    /// (frozen at API 1.0; classes without it have no tracing callbacks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracing: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// `kind: enum` (values) or `kind: flags` (bits; `name` is the `*_flags_t` typedef,
/// the bit enum is `*_flag_t`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Enum {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    pub etors: Vec<Etor>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Etor {
    pub name: String,
    /// C constant expression: an integer, `ZE_BIT(n)`, `ZE_MAKE_VERSION(a, b)`, or a hex literal.
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Kept for source compatibility with older official headers (may repeat a value).
    #[serde(default, skip_serializing_if = "is_false")]
    pub legacy: bool,
    /// The value was not printed by any source we may use; see spec/README.md.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unverified: bool,
}

/// Direction annotation of a parameter or member.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    In,
    Out,
    Inout,
}

impl Dir {
    pub fn annotation(self) -> &'static str {
        match self {
            Dir::In => "[in]",
            Dir::Out => "[out]",
            Dir::Inout => "[in,out]",
        }
    }
}

/// A function parameter or a struct member.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Field {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    /// Fixed array length (a number or a macro name) for array members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<Dir>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub optional: bool,
    /// `[range(a, b)]`: this pointer addresses elements `a .. b`; `b` names the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<(String, String)>,
    /// `[release]`: the call destroys the object or frees the memory.
    #[serde(default, skip_serializing_if = "is_false")]
    pub release: bool,
    /// `[mbz]`: must be zero.
    #[serde(default, skip_serializing_if = "is_false")]
    pub mbz: bool,
    /// A flags member that may also be `UINT32_MAX` (the spec's "or UINT32_MAX": every kind).
    #[serde(default, skip_serializing_if = "is_false")]
    pub or_all_ones: bool,
    /// Element count given by another parameter, without a range (`[*pCount]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub deprecated: bool,
    /// Default value (C expression) used by default initialisers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Struct {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// `ze_base_desc_t` / `ze_base_properties_t` (or a namespace's own): `stype` and `pNext` come first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// `*_STRUCTURE_TYPE_*` enumerators that identify this struct (first one is the default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stype: Vec<String>,
    /// Extensions that must be present for this struct to be meaningful.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
    /// Where this struct may be chained: the structs (or functions with a `pNext` parameter)
    /// in whose `pNext` chain it may be passed. Empty: the spec does not say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extends: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    pub members: Vec<Field>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Function {
    pub name: String,
    pub class: String,
    /// Static functions take no object handle first (for example `zeDeviceGet`).
    #[serde(default, rename = "static", skip_serializing_if = "is_false")]
    pub is_static: bool,
    /// Position within its class's DDI table, before newer versions are appended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordinal: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    pub params: Vec<Field>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<Return>,
    /// C return type of the few functions that do not return `ze_result_t`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_type: Option<String>,
    /// What such a function returns on failure (a C expression: `nullptr`, `UINT32_MAX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_value: Option<String>,
}

impl Function {
    /// The C return type: `ze_result_t` unless `return_type` says otherwise.
    pub fn ret(&self) -> &str {
        self.return_type.as_deref().unwrap_or("ze_result_t")
    }
}

/// An explicit result code with the conditions (C expressions over the parameters) that produce it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Return {
    pub code: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Callback {
    pub name: String,
    #[serde(rename = "returns")]
    pub ret: String,
    /// Calling convention macro, for example `ZE_APICALL`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convention: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    pub params: Vec<Field>,
}

/// An environment variable the API recognises (documentation only).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Env {
    pub name: String,
    pub category: String,
    /// What the variable accepts, in short words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// A named default initialiser of a struct (runtime namespace), emitted as a macro.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DefaultStruct {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The struct type this default initialises.
    pub base: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    pub members: Vec<Field>,
}
