//! A definition of an outline, and what the makers of outlines share: a text's lines found
//! by their starts, and definitions gathered with the scopes that hold them.

/// The most definitions an outline keeps: past it, the rest of the file is not outlined
/// (an outline that long would never be answered; see [`MAX_OUTLINE_SHARE`](super::MAX_OUTLINE_SHARE)).
pub const MAX_DEFINITIONS: usize = 20_000;

/// The deepest nesting an outline keeps (a definition deeper is left out, and so are its own).
pub const MAX_DEPTH: u32 = 8;

/// The longest signature kept, in bytes: a longer first line is cut at a character boundary
/// and ends in `…`.
pub const MAX_SIGNATURE_BYTES: usize = 160;

/// The longest name kept, in bytes: a name that is an expression (a computed key spanning
/// hundreds of lines) is cut at its first line break and at this length, and ends in `…`;
/// the cut name is the one its symbol reads it by.
pub const MAX_NAME_BYTES: usize = 100;

/// One definition of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// Its name as written (`parse_statement`; a heading's text; a key).
    pub name: String,
    /// Its name after the names of the scopes it is in, joined by `.`
    /// (`Parser.parse_statement`).
    pub name_path: String,
    /// What it is, in the language's own word where there is one (`fn`, `class`, `method`,
    /// `h2`, `key`, `block`).
    pub kind: &'static str,
    /// Its first line (1-based), wrappers such as `export`, decorators and templates
    /// included.
    pub start_line: u64,
    /// Its last line.
    pub end_line: u64,
    /// The first line of the comments and attributes just above it (its doc comment), or
    /// `start_line` when there are none: where a read of it by name starts.
    pub doc_line: u64,
    /// How many scopes it is in (0 at the top of the file).
    pub depth: u32,
    /// The line that names it, as written, without its indentation (at most
    /// [`MAX_SIGNATURE_BYTES`]).
    pub signature: String,
}

/// `line` as a signature: without its indentation and line break, at most
/// [`MAX_SIGNATURE_BYTES`].
pub(crate) fn signature(line: &str) -> String {
    cut(line.trim(), MAX_SIGNATURE_BYTES)
}

/// `name` as kept: its first line, at most [`MAX_NAME_BYTES`].
fn bounded_name(name: &str) -> String {
    match name.split_once(['\r', '\n']) {
        Some((first, _)) => format!("{}…", cut(first.trim_end(), MAX_NAME_BYTES)),
        None => cut(name, MAX_NAME_BYTES),
    }
}

/// `text` cut at a character boundary to at most `max` bytes, ending in `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The lines of a text, found by their starts, for the makers of outlines.
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
        if starts.last() == Some(&text.len()) && !text.is_empty() {
            starts.pop();
        }
        Lines { text, starts }
    }

    /// How many lines there are.
    pub(crate) fn len(&self) -> usize {
        if self.text.is_empty() {
            0
        } else {
            self.starts.len()
        }
    }

    /// The row and the column (0-based, in bytes) of offset `at`.
    pub(crate) fn position(&self, at: usize) -> (usize, usize) {
        if at >= self.text.len() && self.text.ends_with('\n') {
            return (self.starts.len(), 0);
        }
        let row = self
            .starts
            .partition_point(|&start| start <= at)
            .saturating_sub(1);
        (row, at - self.starts.get(row).copied().unwrap_or(0))
    }

    /// Line `index` (0-based), without its line break (and a `\r` before it).
    pub(crate) fn get(&self, index: usize) -> &'a str {
        let Some(&start) = self.starts.get(index) else {
            return "";
        };
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.text.len(), |&next| next);
        let line = &self.text[start..end];
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }
}

/// Definitions being gathered with their scopes: each new one is nested in the open scopes
/// that hold it, and named after them.
#[derive(Default)]
pub(crate) struct Gathered {
    pub(crate) definitions: Vec<Definition>,
    /// The open scopes: the last line each holds, and its name path.
    scopes: Vec<(u64, String)>,
}

/// A definition found, before it is placed among its scopes.
pub(crate) struct Found<'a> {
    pub(crate) name: &'a str,
    /// Names of scopes the definition states itself (a Go method's receiver, a C++
    /// `Parser::parse`), joined by `.`, placed after the open scopes'.
    pub(crate) qualifier: Option<String>,
    pub(crate) kind: &'static str,
    pub(crate) lines: (u64, u64),
    pub(crate) doc_line: u64,
    pub(crate) signature: &'a str,
    /// Whether what is inside it is named after it (a class, an `impl`, a heading).
    pub(crate) scope: bool,
}

impl Gathered {
    /// Closes the scopes that end before `line`.
    pub(crate) fn close_before(&mut self, line: u64) {
        while self.scopes.last().is_some_and(|(last, _)| *last < line) {
            self.scopes.pop();
        }
    }

    /// Whether no more definitions are kept.
    pub(crate) fn full(&self) -> bool {
        self.definitions.len() >= MAX_DEFINITIONS
    }

    /// Places `found` (its scopes closed already up to its first line), and opens it as a
    /// scope when it is one. Nothing deeper than [`MAX_DEPTH`] is kept.
    pub(crate) fn push(&mut self, found: Found<'_>) {
        let depth = self.scopes.len() as u32;
        if depth >= MAX_DEPTH || self.full() {
            return;
        }
        let name = bounded_name(found.name);
        let qualifier = found.qualifier.as_deref().map(bounded_name);
        let mut name_path = self
            .scopes
            .last()
            .map(|(_, path)| path.clone())
            .unwrap_or_default();
        for part in qualifier.iter().chain([&name]) {
            if !name_path.is_empty() {
                name_path.push('.');
            }
            name_path.push_str(part);
        }
        if found.scope {
            self.scopes.push((found.lines.1, name_path.clone()));
        }
        self.definitions.push(Definition {
            name,
            name_path,
            kind: found.kind,
            start_line: found.lines.0,
            end_line: found.lines.1,
            doc_line: found.doc_line.min(found.lines.0),
            depth,
            signature: signature(found.signature),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_found_without_their_breaks() {
        let lines = Lines::new("a\r\nb\n");
        assert_eq!((lines.len(), lines.get(0), lines.get(1)), (2, "a", "b"));
        assert_eq!(lines.get(7), "");
        assert_eq!(Lines::new("").len(), 0);
        assert_eq!(Lines::new("x").len(), 1);
    }

    #[test]
    fn a_long_signature_is_cut_at_a_character_boundary() {
        let long = format!("fn {}() {{", "é".repeat(200));
        let cut = signature(&long);
        assert!(cut.ends_with('…'));
        assert!(cut.len() <= MAX_SIGNATURE_BYTES + '…'.len_utf8());
        assert_eq!(
            signature("   pub fn new() -> Self {  "),
            "pub fn new() -> Self {"
        );
    }

    #[test]
    fn a_name_that_is_an_expression_is_cut_at_its_first_line_and_its_length() {
        assert_eq!(bounded_name("parse"), "parse");
        assert_eq!(bounded_name("[(a = 1,\n b = 2)]"), "[(a = 1,…");
        assert_eq!(bounded_name("[x]\r\n"), "[x]…");
        let long = "é".repeat(80);
        let cut = bounded_name(&long);
        assert!(cut.ends_with('…') && cut.len() <= MAX_NAME_BYTES + '…'.len_utf8());
    }

    #[test]
    fn definitions_are_named_after_the_scopes_that_hold_them() {
        let mut gathered = Gathered::default();
        let found = |name, lines, scope| Found {
            name,
            qualifier: None,
            kind: "x",
            lines,
            doc_line: lines.0,
            signature: name,
            scope,
        };
        for (name, lines, scope) in [
            ("A", (1, 10), true),
            ("f", (2, 3), false),
            ("B", (4, 9), true),
            ("g", (5, 6), false),
            ("h", (12, 13), false),
        ] {
            gathered.close_before(lines.0);
            gathered.push(found(name, lines, scope));
        }
        let paths: Vec<(&str, u32)> = gathered
            .definitions
            .iter()
            .map(|d| (d.name_path.as_str(), d.depth))
            .collect();
        assert_eq!(
            paths,
            [("A", 0), ("A.f", 1), ("A.B", 1), ("A.B.g", 2), ("h", 0)]
        );
    }
}
