//! Parsing each kind of item: functions, structs and unions, enums, macros, typedefs and
//! handles.

use super::classify::*;
use super::lines::*;
use super::model::*;
use super::page::*;

impl PageParser<'_, '_> {
    pub(super) fn parse_function(
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

    pub(super) fn parse_struct(
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

    pub(super) fn parse_enum(
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

    pub(super) fn parse_macro(
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

    pub(super) fn parse_typedef(
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

pub(super) fn with_array(ty: String, array: Option<String>) -> String {
    match array {
        Some(a) => format!("{ty}[{a}]"),
        None => ty,
    }
}
