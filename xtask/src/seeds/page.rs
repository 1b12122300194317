//! The page parser: walks the units of a page and dispatches each item by its heading.

use super::classify::*;
use super::lines::*;
use super::model::*;

pub(super) struct PageParser<'a, 's> {
    pub(super) units: Vec<Unit<'a>>,
    pub(super) pos: usize,
    pub(super) title: String,
    pub(super) existing: &'s SeedSet,
    pub(super) out: SeedSet,
}

impl<'a> PageParser<'a, '_> {
    pub(super) fn peek(&self) -> Option<Unit<'a>> {
        self.units.get(self.pos).copied()
    }

    pub(super) fn parse(&mut self) -> Result<(), String> {
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
    pub(super) fn take_body(&mut self) -> Vec<Unit<'a>> {
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

    pub(super) fn claim(&mut self, name: &str, line: usize) -> Result<(), String> {
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

    pub(super) fn parse_item(&mut self, heading: Option<(&'a str, usize)>) -> Result<(), String> {
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

    pub(super) fn parse_decl(
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

}
