//! agent-read-file-engine: the `read_file` tool of AI coding agents, without any JavaScript
//! (the Node-API addon `agent-read-file` is its binding):
//! - [`request`]: argument rules ([`request::ReadRequest`]),
//! - [`sandbox`]: where the path is checked and the file opened beneath the root handle,
//!   and [`root_cache`]: root handles reused across calls,
//! - [`file_guard`]: kind and size checks, the bounded read of a whole file, head or tail,
//! - [`window`]: the line model, the line window and line-range selection,
//! - [`render`]: line-number formats and per-line caps; [`encoding`]: encoding detection,
//! - [`read_file`](mod@read_file): the `read_file` use case, in the specification's order,
//! - [`dialect`]: the Codex, Forge and AIntern read tools over the same pieces,
//! - [`policy`]: which files a toolkit may read (deny and allow rules),
//! - [`version`]: file versions (content hashes) and the read ledger,
//! - [`error`]: the error codes; [`attempt`]: reads tried without waiting on the disk.

pub mod attempt;
pub mod dialect;
pub mod encoding;
pub mod error;
pub mod file_guard;
pub mod policy;
pub mod read_file;
pub mod render;
pub mod request;
pub mod root_cache;
pub mod sandbox;
pub mod version;
pub mod window;
