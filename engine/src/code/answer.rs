//! What a read of code answers, as JavaScript and JSON have it (each type's `Serialize`).

use std::sync::Arc;

use serde::Serialize;

/// A page of a file's outline (`kind: "outline"`), or the definitions a symbol matches
/// (`kind: "matches"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutlineOutput {
    /// The normalized workspace-relative path.
    pub path: String,
    /// `"outline"`, or `"matches"` for a symbol that names several definitions.
    pub kind: &'static str,
    /// The language the outline read it as (`"rust"`, `"markdown"`, `"text"`).
    pub language: &'static str,
    /// How the outline was made: `"grammar"`, `"headings"`, `"keys"`, or `"indentation"`
    /// (approximate).
    pub source: &'static str,
    /// The definitions of this page, in file order.
    pub definitions: DefinitionEntries,
    /// The definitions in all (of the outline, or that match).
    pub total_definitions: u64,
    /// Whether definitions are left after this page.
    pub truncated: bool,
    /// The `start_line` of the next page, when there is one (an outline's with `outline:
    /// true`, a symbol's matches with the same `symbol`).
    pub next_start_line: Option<u64>,
    pub meta: OutlineMeta,
    /// Whether the read asked for no outline: it asked for the file's first lines, and the
    /// file is long and its outline small, so it is given the outline instead.
    pub unasked: bool,
    /// The symbol asked for (`kind: "matches"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

/// The definitions of an answer, some of an outline's entries: a page, or those a symbol
/// matches. They are the kept outline's, shared: an answer is made without copying one.
#[derive(Clone, Debug)]
pub struct DefinitionEntries {
    all: Arc<Vec<DefinitionEntry>>,
    picked: Vec<usize>,
}

impl DefinitionEntries {
    /// The entries of `all` at `picked` (each less than its length), in that order.
    pub(crate) fn new(all: Arc<Vec<DefinitionEntry>>, picked: Vec<usize>) -> DefinitionEntries {
        let picked = picked.into_iter().filter(|&at| at < all.len()).collect();
        DefinitionEntries { all, picked }
    }

    /// The entries, in the answer's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &DefinitionEntry> + Clone {
        self.picked.iter().map(|&at| &self.all[at])
    }

    /// How many entries the answer gives.
    pub fn len(&self) -> usize {
        self.picked.len()
    }

    /// Whether the answer gives none.
    pub fn is_empty(&self) -> bool {
        self.picked.is_empty()
    }
}

impl PartialEq for DefinitionEntries {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for DefinitionEntries {}

impl Serialize for DefinitionEntries {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// One definition of an outline answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DefinitionEntry {
    pub name: String,
    /// Its name after its scopes' (`Parser.parse_statement`).
    pub name_path: String,
    /// The `symbol` that reads it (its name path, and `#n` when others share it).
    pub symbol: String,
    pub kind: &'static str,
    pub start_line: u64,
    pub end_line: u64,
    /// How many scopes it is in.
    pub depth: u32,
    /// Its first line as written, without indentation.
    pub signature: String,
}

/// The file an outline or ranges answer is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OutlineMeta {
    pub byte_length: u64,
    pub line_count: u64,
    pub mtime_ms: i64,
}

/// Several ranges of a file's lines (`kind: "ranges"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RangesOutput {
    pub path: String,
    pub kind: &'static str,
    /// The ranges read, in order, merged where they overlapped or touched.
    pub ranges: Vec<RangeSegment>,
    /// Whether ranges asked for are left unread (the budget ran out).
    pub truncated: bool,
    /// The ranges left, as the next call's `ranges`.
    pub next_ranges: Option<Vec<String>>,
    pub meta: OutlineMeta,
}

/// One range read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RangeSegment {
    pub start_line: u64,
    pub end_line: u64,
    /// Its lines, each ending in `\n` but perhaps the file's last.
    pub content: String,
}
