//! Lines of a page: non-blank units with their indentation, bullets and declarations.

/// One non-blank line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Unit<'a> {
    /// 1-based line number.
    pub(super) no: usize,
    /// The line without trailing whitespace.
    pub(super) raw: &'a str,
    /// The line without surrounding whitespace.
    pub(super) text: &'a str,
    /// Bytes of leading whitespace.
    pub(super) indent: usize,
}

pub(super) const BULLETS: [char; 4] = ['•', '◦', '▪', '‣'];

impl<'a> Unit<'a> {
    /// Text after the bullet glyph, for bullet lines.
    pub(super) fn bullet(&self) -> Option<&'a str> {
        self.text
            .strip_prefix(BULLETS)
            .map(str::trim_start)
            .filter(|t| !t.is_empty())
    }

    /// For an unindented line ending with `#`: the text before the `#`.
    pub(super) fn decl(&self) -> Option<&'a str> {
        if self.indent != 0 {
            return None;
        }
        self.text.strip_suffix('#').map(str::trim_end)
    }

    /// The raw line with `indent` bytes of indentation removed.
    pub(super) fn dedent(&self, indent: usize) -> &'a str {
        self.raw.get(indent.min(self.indent)..).unwrap_or(self.text)
    }
}

/// Lines of the HTML theme's chrome (table-of-contents and sidebar titles)
/// that the text export left in the pages: the Device page starts with
/// "Contents" and ends with "In this class". They are dropped wherever they
/// stand alone on a line.
pub(super) const CHROME: [&str; 3] = ["Contents", "In this class", "On this page"];

pub(super) fn split_units(text: &str) -> Vec<Unit<'_>> {
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

pub(super) fn err<T>(line: usize, msg: impl std::fmt::Display) -> Result<T, String> {
    Err(format!("line {line}: {msg}"))
}
