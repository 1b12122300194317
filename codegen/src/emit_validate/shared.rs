//! Spec facts shared by all functions: enum and flags values, struct families, and the rule-6
//! chain checkers.

use super::*;

pub(super) struct EnumInfo {
    /// Rust type to construct values with (the resolved C name).
    pub(super) ty: String,
    /// Known values, in spec order, deduplicated.
    pub(super) values: Vec<u32>,
    /// `kind: flags` (both the `*_flags_t` set and the `*_flag_t` bits).
    pub(super) flags: bool,
    /// The member is `or_all_ones`: `UINT32_MAX` is valid too (flags: "every kind").
    pub(super) all_ones: bool,
}

impl EnumInfo {
    pub(super) fn mask(&self) -> u32 {
        self.values.iter().fold(0, |a, v| a | v)
    }

    pub(super) fn first(&self) -> u32 {
        if self.flags {
            0
        } else {
            self.values.first().copied().unwrap_or(0)
        }
    }

    /// A value the validation rejects.
    pub(super) fn bad(&self) -> Option<u32> {
        if self.flags {
            let m = self.mask();
            (0..32).rev().map(|b| 1u32 << b).find(|b| m & b == 0)
        } else {
            (0..0x7fff_ffffu32).rev().find(|v| !self.values.contains(v))
        }
    }
}

pub(super) struct Shared<'a> {
    pub(super) api: &'a Api,
    /// Stype values per family (`desc`, `properties`, ...) of the structs whose base is a
    /// `*_base_<family>_t` (rule 5's test picks a wrong but known value from it).
    pub(super) families: BTreeMap<String, BTreeSet<u32>>,
    /// The spec's chains (`extends`).
    pub(super) chains: Chains,
    /// Rule 6 per chain head: the checker it uses.
    pub(super) chain_rule: BTreeMap<String, usize>,
    /// Rule 6 checkers: one per distinct (accepted, rejected) pair of structure type sets.
    pub(super) rules: Vec<ChainRule>,
}

/// How rule 6 treats the links of one kind of chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ChainRule {
    /// `chain_<first head>`, or `chain_<ns>_<family>` for a rule without extensions.
    pub(super) name: String,
    /// The heads using it, in spec order.
    pub(super) heads: Vec<String>,
    /// Structure types the chain may hold: its extensions (`extends`, closed over), and the
    /// unplaced extensions of its family (the spec does not say where those go).
    pub(super) accept: Vec<u32>,
    /// The other structure types of the head's structure type enum: known, not allowed here.
    pub(super) reject: Vec<u32>,
    /// (struct, stype) of each extension, then of each unplaced extension, for the tests.
    pub(super) extensions: Vec<(String, u32)>,
    pub(super) unplaced: Vec<(String, u32)>,
    /// A known structure placed elsewhere (or any known one), for the tests.
    pub(super) misplaced: Option<(String, u32)>,
}

impl<'a> Shared<'a> {
    pub(super) fn new(api: &'a Api) -> Shared<'a> {
        let mut families: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
        for ns in NAMESPACES {
            for (_, d) in api.docs(ns) {
                if let Entry::Struct(s) = &d.entry {
                    let Some(fam) = s.base.as_deref().and_then(family_of_base) else { continue };
                    let set = families.entry(fam).or_default();
                    for st in &s.stype {
                        if let Some(v) = api.values.get(st) {
                            set.insert(*v as u32);
                        }
                    }
                }
            }
        }
        let chains = api.chains();
        let mut rules: Vec<ChainRule> = vec![];
        let mut chain_rule = BTreeMap::new();
        let first = |api: &Api, n: &str| -> Option<u32> {
            match api.entry(n) {
                Some(Entry::Struct(s)) => s.stype.first().and_then(|st| api.values.get(st)).map(|v| *v as u32),
                _ => None,
            }
        };
        for head in &chains.heads {
            let extensions: Vec<(String, u32)> =
                head.extensions.iter().filter_map(|n| Some((n.clone(), first(api, n)?))).collect();
            let unplaced: Vec<(String, u32)> =
                chains.unplaced_for(head).filter_map(|n| Some((n.to_string(), first(api, n)?))).collect();
            let mut accept = BTreeSet::new();
            for n in head.extensions.iter().map(String::as_str).chain(chains.unplaced_for(head)) {
                if let Some(Entry::Struct(x)) = api.entry(n) {
                    accept.extend(x.stype.iter().filter_map(|st| api.values.get(st)).map(|v| *v as u32));
                }
            }
            let mut reject = BTreeSet::new();
            if let Some(Entry::Enum(e)) = api.entry(&head.stype_enum) {
                for et in e.etors.iter().filter(|et| !et.name.ends_with("_FORCE_UINT32")) {
                    if let Some(v) = api.values.get(&et.name) {
                        if !accept.contains(&(*v as u32)) {
                            reject.insert(*v as u32);
                        }
                    }
                }
            }
            // Prefer a structure the spec places in some other chain.
            let misplaced = api
                .structs()
                .filter(|x| !x.extends.is_empty() && api.stype_enum_of(x).as_deref() == Some(head.stype_enum.as_str()))
                .filter_map(|x| Some((x.name.clone(), first(api, &x.name)?)))
                .find(|(_, v)| reject.contains(v))
                .or_else(|| {
                    api.structs()
                        .filter(|x| api.stype_enum_of(x).as_deref() == Some(head.stype_enum.as_str()))
                        .filter_map(|x| Some((x.name.clone(), first(api, &x.name)?)))
                        .find(|(_, v)| reject.contains(v))
                });
            // Rules without extensions are shared by every head of a structure type enum and
            // family: named after those (`chain_ze_desc`).
            let name = if extensions.is_empty() {
                let ns = head.stype_enum.strip_suffix("_structure_type_t").unwrap_or(&head.stype_enum);
                format!("chain_{ns}_{}", head.family.as_deref().unwrap_or("other"))
            } else {
                format!("chain_{}", head.name)
            };
            let rule = ChainRule {
                name,
                heads: vec![head.name.clone()],
                accept: accept.into_iter().collect(),
                reject: reject.into_iter().collect(),
                extensions,
                unplaced,
                misplaced,
            };
            let same = rules.iter().position(|r| r.accept == rule.accept && r.reject == rule.reject);
            let i = match same {
                Some(i) => {
                    rules[i].heads.push(head.name.clone());
                    i
                }
                None => {
                    rules.push(rule);
                    rules.len() - 1
                }
            };
            chain_rule.insert(head.name.clone(), i);
        }
        Shared { api, families, chains, chain_rule, rules }
    }

    /// The head a parameter starts a chain of, with its rule: a single struct pointer to a
    /// chain head, or a function's own `pNext` parameter.
    pub(super) fn chain_of(&self, f: &Function, p: &PInfo) -> Option<(&ChainHead, &ChainRule)> {
        let name = match p.single_struct() {
            Some(s) => s.to_string(),
            None if p.field.name == "pNext" && matches!(p.kind, PK::Ptr { .. }) => f.name.clone(),
            None => return None,
        };
        let head = self.chains.head(&name)?;
        if head.function != (p.single_struct().is_none()) {
            return None;
        }
        Some((head, &self.rules[*self.chain_rule.get(&name)?]))
    }

    pub(super) fn enum_info(&self, name: &str) -> Option<EnumInfo> {
        let resolved = self.api.resolve_typedef(name);
        let kind = self.api.type_kind(resolved)?;
        let (Some(Entry::Enum(e)) | Some(Entry::Flags(e))) = self.api.entry(resolved) else { return None };
        let flags = matches!(kind, TypeKind::Flags | TypeKind::FlagBits);
        if !flags && kind != TypeKind::Enum {
            return None;
        }
        let mut values = vec![];
        for et in &e.etors {
            if et.name.ends_with("_FORCE_UINT32") {
                continue;
            }
            if let Some(v) = self.api.values.get(&et.name) {
                if !values.contains(&(*v as u32)) {
                    values.push(*v as u32);
                }
            }
        }
        Some(EnumInfo { ty: resolved.to_string(), values, flags, all_ones: false })
    }

    pub(super) fn structure(&self, name: &str) -> Option<&'a Struct> {
        match self.api.entry(self.api.resolve_typedef(name)) {
            Some(Entry::Struct(s)) => Some(s),
            _ => None,
        }
    }

    /// The family of a struct (`desc`, `properties`, ...), from its base or its own name.
    pub(super) fn family(&self, s: &Struct) -> Option<String> {
        s.base.as_deref().and_then(family_of_base).or_else(|| family_of_base(&s.name))
    }

    pub(super) fn has_member(&self, s: &Struct, m: &str) -> bool {
        self.api.all_members(s).iter().any(|f| f.name == m)
    }

    /// Values of a struct's own `stype` list.
    pub(super) fn stypes(&self, s: &Struct) -> Vec<u32> {
        s.stype.iter().filter_map(|n| self.api.values.get(n)).map(|v| *v as u32).collect()
    }

    /// The enum and flags members rule 4 checks: (member name, type).
    pub(super) fn enum_members(&self, s: &Struct) -> Vec<(String, EnumInfo)> {
        let mut out = vec![];
        for m in self.api.all_members(s) {
            let t = CType::parse(&m.ty);
            if m.name == "stype" || m.array.is_some() || t.is_pointer() {
                continue;
            }
            if let Some(e) = self.enum_info(&t.base) {
                out.push((m.name.clone(), EnumInfo { all_ones: m.or_all_ones, ..e }));
            }
        }
        out
    }

    /// The Rust type of a struct member (for constructing enum newtypes: the resolved name).
    pub(super) fn member_ty(&self, s: &Struct, m: &str) -> Option<String> {
        self.api.all_members(s).iter().find(|f| f.name == m).map(|f| self.api.resolve_typedef(&CType::parse(&f.ty).base).to_string())
    }
}
