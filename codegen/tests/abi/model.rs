//! The parsed model of the reference headers: members, composites, enums, entities.

/// A struct or union member.
#[derive(Debug, Clone)]
pub struct Member {
    pub name: String,
    /// The declaration, whitespace-normalised, e.g. `uint8_t id[ZE_MAX_DEVICE_UUID_SIZE]`.
    pub decl: String,
    /// Byte offset of `name` inside `decl`.
    pub(super) name_at: usize,
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
