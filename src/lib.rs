//! agent-read-file: the `read_file` tool of AI coding agents as a Node-API addon.
//!
//! This crate is the binding, the only code that knows JavaScript; the engine
//! ([`agent_read_file_engine`]) knows nothing of it. This file holds the exported functions;
//! beside it:
//! - `convert.rs`: JS arguments into engine values, engine errors into JS `Error`s (`code`),
//! - `call.rs`: one validated call and its reply, run the same way on any thread,
//! - `schedule/`: where an async call runs (the JS thread when the kernel proves the read
//!   cannot wait, else the libuv pool), its promise and its abort signal, per env
//!   (`readFileSync` runs where called),
//! - `toolkit.rs`: the toolkit's open root, rules, budget and ledger,
//! - `output.rs`: result objects, `dialects.rs`: the Codex, Forge and AIntern tools,
//! - `mcp_answer.rs`: `agent-read-file mcp`'s answer to a plain call, as bytes,
//! - `js.rs`: every raw Node-API call, behind safe functions; `test_hooks.rs`: what only
//!   the tests and the benchmark may reach.

// napi-rs registers the exports from a constructor that test builds leave out, so there
// the exported items look unused.
#![cfg_attr(test, allow(dead_code))]

mod call;
mod code;
mod convert;
mod dialects;
mod js;
mod mcp_answer;
mod media;
mod model_text;
mod options;
mod output;
mod schedule;
mod test_hooks;
mod toolkit;

use napi::{Env, Unknown};
use napi_derive::napi;

use agent_read_file_engine::FileVersion;
use agent_read_file_engine::error::ReadFileError;
use call::{ReadCall, RootArg};
use convert::{Fields, root_path, throwable};
use model_text::{MediaFrame, MediaWindow};
use output::literal::Literal;
use schedule::EnvState;

/// The largest file `read_file` returns, in bytes (1048576: 1 MiB).
#[napi]
pub const MAX_FILE_BYTES: u32 = agent_read_file_engine::request::MAX_FILE_BYTES as u32;

/// The most lines one read returns (500): a toolkit reads a larger `max_lines` as this many.
#[napi]
pub const MAX_LINES: u32 = agent_read_file_engine::request::MAX_MAX_LINES;

/// The most line ranges one read of a toolkit takes (`ranges`: 16).
#[napi]
pub const MAX_RANGES: u32 = agent_read_file_engine::code::MAX_RANGES as u32;

/// The smallest content budget a toolkit takes (`maxContentBytes`, `maxBatchContentBytes`;
/// 128): room for a cut line's marker and some of the line.
#[napi]
pub const MIN_CONTENT_BYTES: u32 = agent_read_file_engine::MIN_CONTENT_BUDGET as u32;

/// Reads a window of a file in the workspace on the calling thread. Throws on failure: an
/// `Error` whose `code` is a `ReadFileErrorCode`.
#[napi(
    js_name = "readFileSync",
    ts_args_type = "workspaceRoot: string, input: ReadFileInput",
    ts_return_type = "ReadFileOutput"
)]
pub fn read_file_sync<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    input: Unknown,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    run_sync(env, ReadCall::from_js(root, input, Fields::Spec))
}

/// Reads a window of a file in the workspace: on the calling thread, in a microtask, when
/// the kernel proves the read cannot wait (path and bytes cached, a local file system, at
/// most 256 KiB read, at most four calls in one run of JS), else on the libuv thread pool. Never
/// throws: every failure, bad arguments included, rejects with an `Error` whose `code` is a
/// `ReadFileErrorCode`. If `signal` fires before the result is delivered, rejects at once
/// with an `AbortError` (`code: 'ABORT_ERR'`).
#[napi(
    js_name = "readFile",
    ts_args_type = "workspaceRoot: string, input: ReadFileInput, signal?: AbortSignal",
    ts_return_type = "Promise<ReadFileOutput>"
)]
pub fn read_file_async<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    input: Unknown,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    schedule::enqueue(env, ReadCall::from_js(root, input, Fields::Spec), signal)
}

/// A sync read (`readFileSync`, a toolkit's): run the validated `call` here, return its
/// output, throw the contract's error on failure.
fn run_sync<'env>(
    env: &'env Env,
    call: Result<ReadCall, ReadFileError>,
) -> napi::Result<Unknown<'env>> {
    let output = call
        .and_then(|call| call.run())
        .map_err(|error| throwable(env, error))?;
    output::output_value(env, &EnvState::of(env)?.literals, output, None)
}

/// An estimate of the tokens `text` costs a model, counted as `tokenizer` (`'o200k_base'`,
/// the default, or `'cl100k_base'`) would count it, without the tokenizer: within 10% of the
/// exact count for 95% of the reads of a corpus of code, prose, minified JavaScript, JSON,
/// CJK text and logs. Linear in the text. What a toolkit's `maxReadTokens` is counted with.
#[napi(
    js_name = "estimateTokens",
    ts_args_type = "text: string, tokenizer?: 'o200k_base' | 'cl100k_base'"
)]
pub fn estimate_tokens(env: Env, text: String, tokenizer: Option<String>) -> napi::Result<u32> {
    let tokenizer = match tokenizer {
        None => agent_read_file_engine::Tokenizer::default(),
        Some(name) => {
            options::tokenizer_named(&name).map_err(|error| convert::throwable(&env, error))?
        }
    };
    let tokens = agent_read_file_engine::tokens::estimate(&text, tokenizer);
    Ok(u32::try_from(tokens).unwrap_or(u32::MAX))
}

/// The most inputs one `readFiles` call takes.
#[napi]
pub const MAX_BATCH_FILES: u32 = 64;

/// The most content (UTF-8 bytes, all results together) one `readFiles` call returns
/// (4194304: 4 MiB). Results are kept in input order while their contents fit; a later
/// one that would go over answers `SIZE_LIMIT_EXCEEDED` (read it on its own).
#[napi]
pub const MAX_BATCH_CONTENT_BYTES: u32 = 4 << 20;

/// Reads windows of up to `MAX_BATCH_FILES` files in one native call, on the libuv pool.
/// Answers one result per input, in input order: `{ ok: true, output }` or
/// `{ ok: false, error: { code, message } }`; one failure never fails the others. Rejects
/// (`INVALID_ARGUMENT`) only for a bad `workspaceRoot`, `inputs` that is not an array or has
/// more than `MAX_BATCH_FILES` entries; with an `AbortError` when `signal` fires first.
#[napi(
    js_name = "readFiles",
    ts_args_type = "workspaceRoot: string, inputs: readonly ReadFileInput[], signal?: AbortSignal",
    ts_return_type = "Promise<Array<{ ok: true; output: ReadFileOutput } | { ok: false; error: { code: ReadFileErrorCode; message: string } }>>"
)]
pub fn read_files_async<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    inputs: Unknown,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    schedule::enqueue(
        env,
        ReadCall::many_from_js(root, inputs, Fields::Spec),
        signal,
    )
}

/// One version of a file: what a read saw, or what is on disk now (`fileVersion`). Two
/// versions with the same `hash` have the same bytes.
#[napi(
    object,
    js_name = "FileVersion",
    object_to_js = false,
    object_from_js = false
)]
#[derive(serde::Serialize)]
pub struct JsFileVersion {
    /// The normalized workspace-relative path, as `readFile` returns it.
    pub path: String,
    /// The content hash of the bytes on disk, with its algorithm: `xxh3-128-keyed:<32 hex
    /// digits>`, keyed with a secret this process drew at random (so that no file can be
    /// crafted to hash like another); comparable only with hashes made by the same process.
    pub hash: String,
    #[napi(js_name = "byte_length")]
    pub byte_length: f64,
    #[napi(js_name = "mtime_ms")]
    pub mtime_ms: f64,
    /// `none`: no `\n` at all; `mixed`: both `\n` and `\r\n`.
    #[napi(js_name = "line_ending", ts_type = "'lf' | 'crlf' | 'mixed' | 'none'")]
    pub line_ending: String,
    /// Whether the file starts with a UTF-8 BOM.
    pub bom: bool,
    /// `false` when reading the text replaced invalid UTF-8 bytes with U+FFFD.
    #[napi(js_name = "valid_utf8")]
    pub valid_utf8: bool,
}

impl From<FileVersion> for JsFileVersion {
    fn from(version: FileVersion) -> Self {
        JsFileVersion {
            hash: version.hash_string(),
            path: version.path,
            byte_length: version.byte_length as f64,
            mtime_ms: version.mtime_ms as f64,
            line_ending: version.line_ending.as_str().to_owned(),
            bom: version.bom,
            valid_utf8: version.valid_utf8,
        }
    }
}

/// The version of a file in the workspace now: a content hash and what the bytes are
/// like. Never throws: rejects with an `Error` whose `code` is a `ReadFileErrorCode`
/// (a file over `MAX_FILE_BYTES` is `SIZE_LIMIT_EXCEEDED`), or an `AbortError`.
#[napi(
    js_name = "fileVersion",
    ts_args_type = "workspaceRoot: string, path: string, signal?: AbortSignal",
    ts_return_type = "Promise<FileVersion>"
)]
pub fn file_version_async<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    path: Unknown,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    schedule::enqueue(env, ReadCall::version_from_js(root, path), signal)
}

/// The text `output`'s parts are framed by, a media answer (`toolkit.view` of an image, a
/// notebook or a PDF): `head`, its header line, before them; `tail`, the images left out and
/// the call that reads on, after them (empty when there is neither).
#[napi(ts_return_type = "MediaFrame")]
pub fn render_media_frame(output: MediaWindow) -> Literal<MediaFrame> {
    Literal(agent_read_file_engine::model_text::media_frame(output.facts()).into())
}
