//! A [`ReadFileOutput`] as a JavaScript object.
//!
//! Building the object through Node-API (an empty object, then nine named properties)
//! costs more than the read itself: every name is hashed into V8's string table again and
//! every property moves the object to a new hidden class. A JavaScript object literal
//! does neither, so the object comes from a small function compiled once per env and
//! called with the nine values.

use std::cell::OnceCell;

use napi::sys;

use crate::js;
use agent_read_file_engine::ReadFileOutput;
use agent_read_file_engine::error::ReadFileError;

/// The shape of the contract's `ReadFileOutput`, property order included.
const MAKE_OUTPUT_SOURCE: &str = "(function readFileOutput(path, content, truncated, \
     next_start_line, byte_length, line_count, returned_line_count, mtime_ms) {\n\
     return { path, content, truncated, next_start_line,\n\
     meta: { byte_length, line_count, returned_line_count, mtime_ms } }\n})";

/// The functions that build result objects, compiled once per env (kept in its state).
#[derive(Default)]
pub(crate) struct Makers {
    output: OnceCell<js::Reference>,
    results: OnceCell<js::Reference>,
}

/// A [`ReadFileOutput`] as the JS object `{ path, content, truncated, next_start_line,
/// meta: { byte_length, line_count, returned_line_count, mtime_ms } }`.
pub(crate) fn output_value(
    env: sys::napi_env,
    makers: &Makers,
    output: ReadFileOutput,
) -> napi::Result<js::Value> {
    let meta = output.meta;
    let next = match output.next_start_line {
        Some(line) => js::double(env, line as f64)?,
        None => js::null(env)?,
    };
    let values = [
        js::string(env, &output.path)?,
        content_string(env, output.content.as_str())?,
        js::boolean(env, output.truncated)?,
        next,
        js::double(env, meta.byte_length as f64)?,
        js::double(env, meta.line_count as f64)?,
        js::double(env, meta.returned_line_count.into())?,
        js::double(env, meta.mtime_ms as f64)?,
    ];
    let make_output = compiled(env, &makers.output, MAKE_OUTPUT_SOURCE)?;
    js::call(env, make_output, make_output, &values)
}

/// The function `source` compiles to, compiled once per env into `cell`.
fn compiled(
    env: sys::napi_env,
    cell: &OnceCell<js::Reference>,
    source: &str,
) -> napi::Result<js::Value> {
    if let Some(reference) = cell.get() {
        return reference.value(env);
    }
    let function = js::run_script(env, source)?;
    // Compiling runs no JS of anyone else's, so nothing can have set the cell meanwhile.
    let _ = cell.set(js::Reference::new(env, function)?);
    Ok(function)
}

/// Builds the `readFiles` answer from pairs of arguments: `(null, output)` for a read
/// that succeeded, `(code, message)` for one that failed.
const MAKE_RESULTS_SOURCE: &str = "(function readFilesResults() {\n\
     const results = []\n\
     for (let i = 0; i < arguments.length; i += 2) {\n\
     const code = arguments[i], value = arguments[i + 1]\n\
     results[i / 2] = code === null ? { ok: true, output: value }\n\
     : { ok: false, error: { code, message: value } }\n\
     }\n\
     return results\n})";

/// The results of `readFiles` as a JS array, in input order.
pub(crate) fn results_value(
    env: sys::napi_env,
    makers: &Makers,
    results: Vec<Result<ReadFileOutput, ReadFileError>>,
) -> napi::Result<js::Value> {
    let mut args = Vec::with_capacity(results.len() * 2);
    for result in results {
        match result {
            Ok(output) => {
                args.push(js::null(env)?);
                args.push(output_value(env, makers, output)?);
            }
            Err(error) => {
                args.push(js::string(env, error.code.as_str())?);
                args.push(js::string(env, &error.to_string())?);
            }
        }
    }
    let maker = compiled(env, &makers.results, MAKE_RESULTS_SOURCE)?;
    js::call(env, maker, maker, &args)
}

/// The content as a JS string: ASCII as Latin-1 (V8 copies it without a UTF-8 decoding
/// pass), everything else as UTF-8.
fn content_string(env: sys::napi_env, text: &str) -> napi::Result<js::Value> {
    if text.is_ascii() {
        js::ascii_string(env, text)
    } else {
        js::string(env, text)
    }
}
