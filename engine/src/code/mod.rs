//! Code read as code: a file's outline instead of its first page, a definition read by its
//! name, several ranges in one read. A toolkit's `view` answers them (see [`CodeAsk`]); the
//! specification's functions never do.
//!
//! - [`language`]: which language a file is, by its name;
//! - [`outline`]: the outline and its definitions, made by `grammar` (tree-sitter, bounded
//!   in bytes and time), or `plain` (Markdown's headings, YAML's and TOML's keys, the
//!   indentation's blocks);
//! - [`symbol`]: a definition by its name; [`ranges`]: several line ranges;
//! - `read`: each of them read from the file a view opened, under its options, and
//!   [`text`]: what the model is given for them.

pub mod language;
pub mod outline;
pub mod ranges;
mod read;
pub mod symbol;
pub mod text;

mod answer;
mod definition;
mod grammar;
mod pieces;
mod plain;

use std::sync::{Arc, Mutex, PoisonError};

pub use answer::{
    DefinitionEntries, DefinitionEntry, OutlineMeta, OutlineOutput, RangeSegment, RangesOutput,
};
pub use language::Language;
pub use outline::{Definition, Outline, OutlineSource, ParseBounds};
pub use ranges::{LineSpan, MAX_RANGES, parse_ranges};
pub use read::{CodeRead, read_code, unasked_outline};
pub use symbol::SymbolQuery;

use crate::recent::Recent;
use crate::version::FileVersion;

/// The share of a file's tokens an outline may cost at most: past it, the file's lines are
/// answered as if no outline had been asked for.
pub const MAX_OUTLINE_SHARE: f32 = 0.25;

/// The largest file read whole for its outline or a definition (8 MiB): a larger one is
/// read by ranges and windows only.
pub const MAX_CODE_BYTES: u64 = 8 * 1024 * 1024;

/// What a read of code asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeAsk {
    /// The file's outline, from the request's `start_line` (a page of `max_lines`
    /// definitions).
    Outline,
    /// A definition by its name.
    Symbol(SymbolQuery),
    /// Several line ranges, merged.
    Ranges(Vec<LineSpan>),
}

/// How a view reads code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CodeMode<'a> {
    /// Never: a window of lines.
    #[default]
    Off,
    /// A read with no range of a long source file answers its outline, when the outline is
    /// small enough ([`MAX_OUTLINE_SHARE`]).
    Unasked,
    /// What the call asked for.
    Asked(&'a CodeAsk),
}

/// The outlines of the files a toolkit read last, at most 64, each kept with the content
/// hash of the version it is of: an unchanged file's next outline or definition is a
/// lookup. Its status tells it is unchanged without a read when it was settled (its last
/// change old enough that any later write moves its times); else its bytes are hashed.
#[derive(Debug, Default)]
pub struct OutlineCache(Mutex<Recent<CachedOutline, OUTLINE_CACHE_CAPACITY>>);

/// How many files' outlines a toolkit keeps.
pub const OUTLINE_CACHE_CAPACITY: usize = 64;

/// An outline kept, with what tells its version.
#[derive(Clone, Debug)]
pub(crate) struct CachedOutline {
    /// The file's status when it was read, if it was settled then.
    pub(crate) settled_identity: Option<[i128; 7]>,
    pub(crate) version: FileVersion,
    pub(crate) outline: Arc<Outline>,
    /// Each of its definitions as an answer gives it, with the symbol that reads it
    /// ([`symbol::symbols_of`]).
    pub(crate) entries: Arc<Vec<DefinitionEntry>>,
    /// Its definitions by their last names, where a symbol's candidates are found.
    pub(crate) names: Arc<symbol::NameIndex>,
    /// The estimated tokens each definition costs in an answer: what a page is sized by.
    pub(crate) answer_tokens: Arc<read::AnswerTokens>,
    /// The estimated tokens of the whole outline's text and of the file's, the file's counted
    /// only as far as [`MAX_OUTLINE_SHARE`] needs.
    pub(crate) tokens: (usize, usize),
}

impl OutlineCache {
    pub(crate) fn get(&self, path: &str) -> Option<CachedOutline> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.used(path).cloned()
    }

    pub(crate) fn insert(&self, path: &str, cached: CachedOutline) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.insert(path.to_owned(), cached);
    }

    /// How many outlines it keeps.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
