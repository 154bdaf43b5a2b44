//! A toolkit's reads of code as code across the boundary: the `outline`, `symbol` and
//! `ranges` of a `view`'s input, read and checked, and the TypeScript of their answers
//! (built as every result is, from the engine's `Serialize` types, `output/literal.rs`).

use napi::bindgen_prelude::Either;
use napi::bindgen_prelude::{FromNapiValue, JsObjectValue, Null, Object};
use napi::{Env, JsValue, Unknown, ValueType};
use napi_derive::napi;
use serde::Serialize;

use agent_read_file_engine::code::{CodeAsk, MAX_RANGES, OutlineOutput as EngineOutline};
use agent_read_file_engine::code::{RangesOutput as EngineRanges, SymbolQuery, parse_ranges};
use agent_read_file_engine::error::{ErrorCode, ReadFileError};

use crate::convert::{property, string_or_type, type_of};
use crate::js;

/// What a `view` of code answers beside a window: an outline page (or a symbol's matches), or
/// several ranges.
pub(crate) enum CodeAnswer {
    Outline(EngineOutline),
    Ranges(EngineRanges),
}

impl CodeAnswer {
    /// Bytes of text it carries to JavaScript.
    pub(crate) fn content_len(&self) -> usize {
        match self {
            CodeAnswer::Outline(output) => output
                .definitions
                .iter()
                .map(|entry| entry.signature.len() + entry.name_path.len())
                .sum(),
            CodeAnswer::Ranges(output) => output.ranges.iter().map(|r| r.content.len()).sum(),
        }
    }

    /// The model's text of it (lines numbered as `line_numbers` says, for ranges).
    pub(crate) fn text(&self, line_numbers: bool) -> String {
        use agent_read_file_engine::code::text::{render_outline, render_ranges};
        use agent_read_file_engine::model_text::TextOptions;
        match self {
            CodeAnswer::Outline(output) => render_outline(output),
            CodeAnswer::Ranges(output) => {
                let options = TextOptions {
                    line_numbers,
                    ..TextOptions::default()
                };
                render_ranges(output, options)
            }
        }
    }
}

impl Serialize for CodeAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            CodeAnswer::Outline(output) => output.serialize(serializer),
            CodeAnswer::Ranges(output) => output.serialize(serializer),
        }
    }
}

/// A code answer and the model's text of it (a `view` asked for the text).
#[derive(Serialize)]
pub(crate) struct CodeWithText<'a> {
    pub(crate) output: &'a CodeAnswer,
    pub(crate) text: &'a str,
}

/// What a toolkit's `view` of `input` asks of code: `outline: true`, `symbol` (a name like
/// `"Parser.parse"`) or `ranges` (like `["10-40", "120-160"]`), one at a time; `None` when
/// none (`undefined`, `null`, or `outline: false`). `INVALID_ARGUMENT` about `path` for any
/// other value, or for two of them.
pub(crate) fn code_from_js(input: &Unknown, path: &str) -> Result<Option<CodeAsk>, ReadFileError> {
    let invalid = |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, path, reason);
    let outline = given(input, "outline", path)?.map(|value| outline_of(&value, path));
    let symbol = given(input, "symbol", path)?.map(|value| symbol_of(&value, path));
    let ranges = given(input, "ranges", path)?.map(|value| ranges_of(&value, path));
    let asks: Vec<Option<CodeAsk>> = [outline, symbol, ranges]
        .into_iter()
        .flatten()
        .collect::<Result<_, _>>()?;
    let mut asks = asks.into_iter().flatten();
    match (asks.next(), asks.next()) {
        (first, None) => Ok(first),
        (Some(_), Some(_)) => Err(invalid(
            "outline, symbol and ranges ask for different reads: give one of them".into(),
        )),
        (None, Some(_)) => Ok(None),
    }
}

/// `input[name]` unless it is `undefined` or `null`.
fn given<'env>(
    input: &Unknown<'env>,
    name: &str,
    path: &str,
) -> Result<Option<Unknown<'env>>, ReadFileError> {
    let value = property(input, name)
        .map_err(|reason| ReadFileError::new(ErrorCode::InvalidArgument, path, reason))?;
    Ok(match value.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => None,
        _ => Some(value),
    })
}

fn outline_of(value: &Unknown, path: &str) -> Result<Option<CodeAsk>, ReadFileError> {
    match value.get_type() {
        Ok(ValueType::Boolean) => Ok(bool::from_unknown(*value)
            .unwrap_or(false)
            .then_some(CodeAsk::Outline)),
        _ => Err(ReadFileError::new(
            ErrorCode::InvalidArgument,
            path,
            format!("outline must be true or false (got {})", type_of(value)),
        )),
    }
}

fn symbol_of(value: &Unknown, path: &str) -> Result<Option<CodeAsk>, ReadFileError> {
    let invalid = |got: String| {
        ReadFileError::new(
            ErrorCode::InvalidArgument,
            path,
            format!(
                "symbol must name a definition, like \"Parser.parse\" or \"parse\" (got {got})"
            ),
        )
    };
    let text = string_or_type(value).map_err(|got| invalid(got.to_owned()))?;
    match SymbolQuery::parse(&text) {
        Some(query) => Ok(Some(CodeAsk::Symbol(query))),
        None => Err(invalid(serde_json::to_string(&text).unwrap_or_default())),
    }
}

fn ranges_of(value: &Unknown, path: &str) -> Result<Option<CodeAsk>, ReadFileError> {
    let invalid = |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, path, reason);
    let rule = || {
        format!(
            "ranges must be an array of at most {MAX_RANGES} line ranges like [\"10-40\", \"120-160\"]"
        )
    };
    if type_of(value) != "array" {
        return Err(invalid(format!("{} (got {})", rule(), type_of(value))));
    }
    let env = Env::from_raw(value.value().env);
    let length = js::cleared(
        &env,
        Object::from_unknown(*value).and_then(|a| a.get_array_length()),
    )
    .map_err(|_| invalid("ranges.length could not be read".into()))?;
    if length as usize > MAX_RANGES {
        return Err(invalid(format!("{} (got {length})", rule())));
    }
    let mut ranges = Vec::with_capacity(length as usize);
    for index in 0..length {
        let element = Object::from_unknown(*value).and_then(|array| array.get_element(index));
        let element = js::cleared(&env, element)
            .map_err(|_| invalid(format!("ranges[{index}] could not be read (it threw)")))?;
        let range = string_or_type(&element).map_err(|got| {
            invalid(format!(
                "ranges[{index}] must be a string like \"10-40\" (got {got})"
            ))
        })?;
        ranges.push(range);
    }
    parse_ranges(&ranges, path).map(|spans| Some(CodeAsk::Ranges(spans)))
}

/// A file's outline, a page of it (`kind: "outline"`), or the definitions a symbol names
/// when it names several (`kind: "matches"`): a toolkit's `view` with `outline: true` or
/// `symbol`, or of a long source file with no range.
#[napi(object, object_to_js = false, object_from_js = false)]
#[expect(
    dead_code,
    reason = "it declares the TypeScript; the object is the engine's"
)]
pub struct OutlineOutput {
    /// The normalized workspace-relative path.
    pub path: String,
    #[napi(ts_type = "'outline' | 'matches'")]
    pub kind: String,
    /// The language it was read as: `'rust'`, `'typescript'`, `'tsx'`, `'javascript'`,
    /// `'python'`, `'go'`, `'java'`, `'c'`, `'cpp'`, `'json'`, `'markdown'`, `'yaml'`,
    /// `'toml'`, or `'text'`.
    pub language: String,
    /// How the outline was made: by a grammar, from headings or keys, or from the
    /// indentation (approximate).
    #[napi(ts_type = "'grammar' | 'headings' | 'keys' | 'indentation'")]
    pub source: String,
    /// The definitions of this page, in file order.
    pub definitions: Vec<DefinitionEntry>,
    /// The definitions in all: of the outline, or that the symbol names.
    #[napi(js_name = "total_definitions")]
    pub total_definitions: f64,
    /// Whether more definitions follow: read on from `next_start_line` with `outline: true`
    /// (an outline) or with the same `symbol` (its matches).
    pub truncated: bool,
    /// The `start_line` of the next page, else `null`.
    #[napi(js_name = "next_start_line")]
    pub next_start_line: Either<f64, Null>,
    pub meta: OutlineMeta,
    /// Whether no outline was asked for: a read with no range of a long source file is
    /// given its outline when that is small (a quarter of the file's tokens at most).
    pub unasked: bool,
    /// The symbol asked for (`kind: 'matches'`).
    pub symbol: Option<String>,
}

/// One definition of an outline.
#[napi(object, object_to_js = false, object_from_js = false)]
#[expect(
    dead_code,
    reason = "it declares the TypeScript; the object is the engine's"
)]
pub struct DefinitionEntry {
    /// Its name as written.
    pub name: String,
    /// Its name after its scopes' names, joined by `.` (`Parser.parse_statement`).
    #[napi(js_name = "name_path")]
    pub name_path: String,
    /// The `symbol` that reads it: its name path, and `#n` when others share it.
    pub symbol: String,
    /// What it is, in its language's word (`fn`, `class`, `method`, `h2`, `key`, `block`).
    pub kind: String,
    /// Its first line, wrappers such as `export`, decorators and templates included.
    #[napi(js_name = "start_line")]
    pub start_line: f64,
    /// Its last line.
    #[napi(js_name = "end_line")]
    pub end_line: f64,
    /// How many scopes it is in (0 at the top of the file).
    pub depth: u32,
    /// The line that names it, as written, without indentation (at most 160 bytes).
    pub signature: String,
}

/// The file an outline or ranges answer is of.
#[napi(object, object_to_js = false, object_from_js = false)]
#[expect(
    dead_code,
    reason = "it declares the TypeScript; the object is the engine's"
)]
pub struct OutlineMeta {
    /// The file's size on disk, in bytes.
    #[napi(js_name = "byte_length")]
    pub byte_length: f64,
    /// How many lines the file has.
    #[napi(js_name = "line_count")]
    pub line_count: f64,
    /// Last modification, in milliseconds since the epoch.
    #[napi(js_name = "mtime_ms")]
    pub mtime_ms: f64,
}

/// Several ranges of a file's lines, read in one call (`ranges`).
#[napi(object, object_to_js = false, object_from_js = false)]
#[expect(
    dead_code,
    reason = "it declares the TypeScript; the object is the engine's"
)]
pub struct RangesOutput {
    /// The normalized workspace-relative path.
    pub path: String,
    #[napi(ts_type = "'ranges'")]
    pub kind: String,
    /// The ranges read, in line order, merged where they overlapped or touched.
    pub ranges: Vec<RangeSegment>,
    /// Whether ranges asked for were left unread (the budget ran out).
    pub truncated: bool,
    /// The ranges left, as the next call's `ranges`, else `null`.
    #[napi(js_name = "next_ranges")]
    pub next_ranges: Either<Vec<String>, Null>,
    pub meta: OutlineMeta,
}

/// One range read.
#[napi(object, object_to_js = false, object_from_js = false)]
#[expect(
    dead_code,
    reason = "it declares the TypeScript; the object is the engine's"
)]
pub struct RangeSegment {
    #[napi(js_name = "start_line")]
    pub start_line: f64,
    #[napi(js_name = "end_line")]
    pub end_line: f64,
    /// Its lines, each ending in `\n` but perhaps the file's last.
    pub content: String,
}
