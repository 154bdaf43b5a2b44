//! Results as JavaScript objects, and their types.
//!
//! Every value that crosses to JavaScript as an object is its `Serialize` implementation,
//! built by an object literal compiled for its shape ([`literal`]): a read's output
//! (`agent_read_file_engine::ReadFileOutput`, whose serde implementation is also what an
//! MCP answer's `structuredContent` is written from), `readFiles`' entries, a media answer,
//! a file's version, a dialect's answer. The TypeScript of a read's result is declared here,
//! as [`ReadFileOutput`] and [`ReadFileMeta`]: napi-rs generates `binding.d.ts` from these
//! structs (which `index.d.ts` re-exports, and which the type test holds to the
//! specification); a test holds each object built to its declaration's keys.

pub(crate) mod literal;

use napi::bindgen_prelude::{Either, Null};
use napi::{Env, Unknown};
use serde::Serialize;

use agent_read_file_engine::error::ReadFileError;
use agent_read_file_engine::{Content, ReadFileOutput as EngineOutput};
use napi_derive::napi;

pub(crate) use literal::Literals;

/// The contract's `ReadFileOutput` (built from the engine's output, whose serde
/// implementation gives these keys in this order).
#[napi(object, object_to_js = false, object_from_js = false)]
#[expect(
    dead_code,
    reason = "it declares the TypeScript; the object is the engine's output"
)]
pub struct ReadFileOutput {
    /// The requested path, normalized and relative to the workspace root.
    pub path: String,
    /// The lines of the window, as UTF-8 text (line endings normalized to `\n`).
    #[napi(ts_type = "string")]
    pub content: Content,
    /// Whether lines follow the window (or the window was cut to fit a content budget).
    pub truncated: bool,
    /// The line to continue from when `truncated`, else `null`.
    #[napi(js_name = "next_start_line")]
    pub next_start_line: Either<f64, Null>,
    pub meta: ReadFileMeta,
}

/// What a toolkit's read returns: the specification's output, and `continuation` (with
/// `cut_line_bytes`) and `note` when they apply. (Built as `ReadFileOutput` is;
/// `adapters/schemas.js` states it as a JSON Schema, which a test holds to this; read back
/// from JavaScript to be rendered, `src/model_text.rs`.)
#[napi(object, object_to_js = false)]
pub struct ToolkitReadFileOutput {
    /// The requested path, normalized and relative to the workspace root.
    pub path: String,
    /// The lines of the window, as UTF-8 text (line endings normalized to `\n`).
    pub content: String,
    /// Whether lines follow the window (or the window was cut to fit a content budget).
    pub truncated: bool,
    /// The line to continue from when `truncated`, else `null`.
    #[napi(js_name = "next_start_line")]
    pub next_start_line: Either<f64, Null>,
    pub meta: ReadFileMeta,
    /// Present only when the window is one line cut to fit the content budget: the arguments
    /// that, with the same `path` and `max_lines`, read the rest of that line. Absent from
    /// every other answer.
    pub continuation: Option<ToolkitContinuation>,
    /// Present only beside `continuation`: the cut line's length in bytes as stored (its
    /// terminator not counted), so that what is left of it is known. The model's text says
    /// it (`[line L continues at column C of N; …]`).
    #[napi(js_name = "cut_line_bytes")]
    pub cut_line_bytes: Option<f64>,
    /// Present only when `max_lines` was over 500 (read as 500, where the bare `readFile`
    /// refuses it) and the file goes on after the window, or when the file grew while it was
    /// read: says so, and how to read on. Absent from every other answer.
    pub note: Option<String>,
}

/// Where a cut line reads on: the `start_line` and `start_column` of the call that reads
/// the rest of it.
#[napi(object, object_to_js = false)]
pub struct ToolkitContinuation {
    #[napi(js_name = "start_line")]
    pub start_line: f64,
    #[napi(js_name = "start_column")]
    pub start_column: f64,
}

/// What the file and the window are, beside the content.
#[napi(object, object_to_js = false)]
pub struct ReadFileMeta {
    /// The file's size on disk, in bytes.
    #[napi(js_name = "byte_length")]
    pub byte_length: f64,
    /// How many lines the whole file has.
    #[napi(js_name = "line_count")]
    pub line_count: f64,
    /// How many lines `content` holds.
    #[napi(js_name = "returned_line_count")]
    pub returned_line_count: f64,
    /// Last modification, in milliseconds since the epoch.
    #[napi(js_name = "mtime_ms")]
    pub mtime_ms: f64,
}

/// A toolkit's read for `runToolCall`: its output and the model's text of it.
#[derive(Serialize)]
struct WithText<'a> {
    output: &'a EngineOutput,
    text: &'a str,
}

/// One entry of `readFiles`' answer.
#[derive(Serialize)]
#[serde(untagged)]
enum Entry<'a> {
    Read { ok: bool, output: &'a EngineOutput },
    Failed { ok: bool, error: ErrorFields },
}

/// A failed read's error, as `readFiles` answers it.
#[derive(Serialize)]
struct ErrorFields {
    code: &'static str,
    message: String,
}

/// A `readFile` result as the JS object [`ReadFileOutput`] describes; with `text`, the
/// object `{ output, text }`.
pub(crate) fn output_value<'env>(
    env: &'env Env,
    literals: &Literals,
    output: EngineOutput,
    text: Option<String>,
) -> napi::Result<Unknown<'env>> {
    match text {
        None => literal::to_js(env, literals, &output),
        Some(text) => literal::to_js(
            env,
            literals,
            &WithText {
                output: &output,
                text: &text,
            },
        ),
    }
}

/// The results of `readFiles` as a JS array, in input order.
pub(crate) fn results_value<'env>(
    env: &'env Env,
    literals: &Literals,
    results: Vec<Result<EngineOutput, ReadFileError>>,
) -> napi::Result<Unknown<'env>> {
    let entries: Vec<Entry> = results
        .iter()
        .map(|result| match result {
            Ok(output) => Entry::Read { ok: true, output },
            Err(error) => Entry::Failed {
                ok: false,
                error: ErrorFields {
                    code: error.code.as_str(),
                    message: error.to_string(),
                },
            },
        })
        .collect();
    literal::to_js(env, literals, &entries)
}
