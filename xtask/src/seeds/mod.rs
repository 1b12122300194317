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

mod classify;
mod items;
mod lines;
mod model;
mod page;

use std::path::Path;

use lines::*;
use page::*;
pub use model::*;

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

#[cfg(test)]
mod tests {
    use super::classify::{norm_type, split_annotations, split_decl};
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
