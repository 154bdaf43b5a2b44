//! agent-read-file-engine: the `read_file` tool of AI coding agents, without any JavaScript
//! (the Node-API addon `agent-read-file` is its binding):
//! - [`request`]: argument rules ([`request::ReadRequest`]),
//! - [`sandbox`]: where the path is checked and the file opened beneath the root handle,
//!   and [`root_cache`]: root handles reused across calls,
//! - `file_guard`: kind and size checks, the bounded read of a whole file, head or tail,
//!   and `chunked`: the window of a file too large to read whole, found chunk by chunk,
//! - `window`: the line model, the line window and line-range selection,
//! - `render`: line-number formats and per-line caps; `encoding`: encoding detection,
//! - `source`: the byte pipeline every use case shares (open, policy, guard, errors),
//! - `read_file`: the `read_file` use case, in the specification's order,
//! - [`media`]: images, notebooks and PDFs as typed parts (a toolkit's media reads),
//! - [`view`]: a toolkit's one read of any file, text or media, decided by its content,
//! - [`code`]: code read as code: outlines, definitions by name, several ranges,
//! - [`model_text`]: the text a model is given for a toolkit's text window, and
//!   [`read_memory`]: the lines a `dedupeReads` toolkit's model was given,
//! - [`dialect`]: the Codex, Forge and AIntern read tools over the same pieces,
//! - [`policy`]: which files a toolkit may read (deny and allow rules),
//! - `suggest`: the readable files a toolkit's `NOT_FOUND` names as near misses,
//! - [`tokens`]: the estimate of a text's tokens, and a toolkit's token budget for a read,
//! - `version`: file versions (content hashes) and the read ledger; `file_version`: the
//!   version of a file on disk now (the `fileVersion` use case),
//! - [`error`]: the error codes; `attempt`: reads tried without waiting on the disk.
//!
//! The read API is re-exported here: [`read_file`] (the `read_file` use case, where waiting
//! is allowed or from memory, as its options' [`Access`] says), [`file_version`], and the
//! [`Reader`] a dialect reads through. The modules behind them are private.

mod attempt;
mod chunked;
pub mod code;
pub mod dialect;
mod encoding;
pub mod error;
mod file_guard;
mod file_status;
mod file_version;
mod keyed_hash;
pub mod media;
pub mod model_text;
pub mod policy;
mod read_file;
pub mod read_memory;
mod recent;
mod render;
pub mod request;
pub mod root_cache;
pub mod sandbox;
mod source;
mod suggest;
pub mod tokens;
mod version;
pub mod view;
mod window;

pub use attempt::{Access, Attempt, Stop, answered, waited};
pub use chunked::{LINE_INDEX_CAPACITY, LineIndexCache};
pub use file_guard::{MAX_FROM_MEMORY_BYTES, Span};
pub use file_version::{file_version, file_version_within};
pub use read_file::{
    Content, Continuation, OutputFields, Read, ReadFileMeta, ReadFileOutput, ReadOptions, read_file,
};
pub use source::{Reader, open_error};
pub use tokens::{TokenBudget, Tokenizer};
pub use version::{FileVersion, LEDGER_CAPACITY, Ledger};
pub use window::{LineEnding, MIN_CONTENT_BUDGET};
