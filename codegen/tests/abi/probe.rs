//! The probe unit: one `KIND NAME VALUE` line per item (sizes, offsets, values, presence).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::model::*;
use super::{FN_MACRO_ARGS, HEADERS};

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
pub(super) enum Expr {
    /// An integer constant expression, printed as `%lld`.
    Num(String),
    /// An integer macro, printed with its type: value, `i`/`u` and size.
    Typed(String),
    /// A string literal macro.
    Str(String),
}

#[derive(Debug, Clone)]
pub(super) struct Probe {
    pub(super) key: String,
    pub(super) cat: Cat,
    pub(super) expr: Expr,
    /// For members of a DDI table: table, member and position in the reference.
    pub(super) ddi: Option<(String, String, usize)>,
    /// Members of the DDI container and size of DDI tables/containers get growth tolerance.
    pub(super) growable: bool,
}

pub(super) fn probes(api: &Api) -> Vec<Probe> {
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

pub(super) fn includes() -> String {
    HEADERS
        .iter()
        .map(|h| format!("#include <level_zero/{h}>\n"))
        .collect()
}

/// Writes the probe source; returns it and the source line of each included probe.
pub(super) fn probe_source(probes: &[Probe], excluded: &HashSet<usize>) -> (String, HashMap<usize, usize>) {
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
