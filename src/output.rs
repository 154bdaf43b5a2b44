//! Results as JavaScript objects, and their types.
//!
//! The shape of a `readFile` result is declared once, here, as [`ReadFileOutput`] and
//! [`ReadFileMeta`]: napi-rs generates their TypeScript from these structs (`binding.d.ts`,
//! which `index.d.ts` re-exports, and which the type test holds to the specification). The
//! objects themselves are built by small functions in `src/output/*.js`, compiled once per
//! env and called with the values in field order: measured against napi-rs's own objects
//! (`napi_define_properties` on a new object), they are faster (the benchmark README has
//! the figures).

use napi::bindgen_prelude::{
    Either, FnArgs, FromNapiValue, Function, Null, Object, ObjectRef, ToNapiValue,
};
use napi::{Env, JsString, JsValue, Unknown};

use agent_read_file_engine::error::ReadFileError;
use agent_read_file_engine::{Content, ReadFileOutput as EngineOutput};
use napi_derive::napi;
use std::cell::OnceCell;

/// The contract's `ReadFileOutput`. (The object is built by
/// `src/output/read-file-output.js`, which takes these fields in this order.)
#[napi(object, object_to_js = false, object_from_js = false)]
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
/// `cut_line_bytes`) and `note` when they apply. (Built by `src/output/read-file-output.js`;
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

/// The functions that build result objects, compiled once per env (kept in its state).
#[derive(Default)]
pub(crate) struct Makers {
    output: OnceCell<ObjectRef<false>>,
    results: OnceCell<ObjectRef<false>>,
}

/// The arguments of `read-file-output.js`, in its order: the fields of
/// [`ReadFileOutput`], then a toolkit's `continuation` (`start_line`, `start_column`), or
/// `null` when the answer has none, the cut line's length, its `note`, or `null`, and the
/// model's text of it, or `null` when the call did not ask for it.
type OutputArgs<'env> = FnArgs<(
    String,
    JsString<'env>,
    bool,
    Either<f64, Null>,
    f64,
    f64,
    f64,
    f64,
    Either<f64, Null>,
    f64,
    f64,
    Either<&'static str, Null>,
    Either<JsString<'env>, Null>,
)>;

impl From<EngineOutput> for ReadFileOutput {
    fn from(output: EngineOutput) -> ReadFileOutput {
        let meta = output.meta;
        ReadFileOutput {
            path: output.path,
            content: output.content,
            truncated: output.truncated,
            next_start_line: match output.next_start_line {
                Some(line) => Either::A(line as f64),
                None => Either::B(Null),
            },
            meta: ReadFileMeta {
                byte_length: meta.byte_length as f64,
                line_count: meta.line_count as f64,
                returned_line_count: f64::from(meta.returned_line_count),
                mtime_ms: meta.mtime_ms as f64,
            },
        }
    }
}

/// A `readFile` result as the JS object [`ReadFileOutput`] describes; with `text`, the
/// object `{ output, text }`.
pub(crate) fn output_value<'env>(
    env: &'env Env,
    makers: &Makers,
    output: EngineOutput,
    text: Option<String>,
) -> napi::Result<Unknown<'env>> {
    let (continued_line, continued_column, cut_line_bytes) = match output.continuation {
        Some(at) => (
            Either::A(at.start_line as f64),
            at.start_column as f64,
            at.line_bytes.unwrap_or(0) as f64,
        ),
        None => (Either::B(Null), 0.0, 0.0),
    };
    let note = output.note.map_or(Either::B(Null), Either::A);
    let ReadFileOutput {
        path,
        content,
        truncated,
        next_start_line,
        meta,
    } = output.into();
    let args = (
        path,
        content_string(env, content.as_str())?,
        truncated,
        next_start_line,
        meta.byte_length,
        meta.line_count,
        meta.returned_line_count,
        meta.mtime_ms,
        continued_line,
        continued_column,
        cut_line_bytes,
        note,
        match text {
            Some(text) => Either::A(content_string(env, &text)?),
            None => Either::B(Null),
        },
    );
    let source = include_str!("output/read-file-output.js");
    let make: Function<OutputArgs, Unknown> = compiled(env, &makers.output, source)?;
    make.call(args.into())
}

/// The results of `readFiles` as a JS array, in input order.
pub(crate) fn results_value<'env>(
    env: &'env Env,
    makers: &Makers,
    results: Vec<Result<EngineOutput, ReadFileError>>,
) -> napi::Result<Unknown<'env>> {
    let mut pairs = Vec::with_capacity(results.len() * 2);
    for result in results {
        match result {
            Ok(output) => {
                pairs.push(Null.into_unknown(env)?);
                pairs.push(output_value(env, makers, output, None)?);
            }
            Err(error) => {
                pairs.push(env.create_string(error.code.as_str())?.to_unknown());
                pairs.push(env.create_string(error.to_string())?.to_unknown());
            }
        }
    }
    let source = include_str!("output/read-files-results.js");
    let make: Function<FnArgs<(Vec<Unknown>,)>, Unknown> = compiled(env, &makers.results, source)?;
    make.call((pairs,).into())
}

/// The function `source` compiles to, compiled once per env into `cell`.
fn compiled<'env, Args, Return>(
    env: &'env Env,
    cell: &OnceCell<ObjectRef<false>>,
    source: &str,
) -> napi::Result<Function<'env, Args, Return>>
where
    Args: napi::bindgen_prelude::JsValuesTupleIntoVec,
    Return: FromNapiValue,
{
    let function = match cell.get() {
        Some(kept) => kept.get_value(env)?,
        None => {
            let function: Object = env.run_script(source)?;
            // Compiling runs no JS of anyone else's, so nothing can have set the cell meanwhile.
            let _ = cell.set(function.create_ref()?);
            function
        }
    };
    Function::from_unknown(function.to_unknown())
}

/// The content as a JS string: ASCII as Latin-1 (V8 copies it without a UTF-8 decoding
/// pass), everything else as UTF-8.
fn content_string<'env>(env: &'env Env, text: &str) -> napi::Result<JsString<'env>> {
    if text.is_ascii() {
        env.create_string_latin1(text.as_bytes())
    } else {
        env.create_string(text)
    }
}
