//! JS values in, engine values out, and back: the call's arguments read from JS values
//! (never trusting a getter, a proxy or a type), and engine errors turned into JS `Error`s
//! whose `code` is the engine's.

use napi::bindgen_prelude::{
    FromNapiValue, JsObjectValue, Object, Property, PropertyAttributes, ToNapiValue,
};
use napi::{Env, JsValue, Unknown, ValueType};

use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::media::PartRange;
use agent_read_file_engine::request::{Argument, NumberArg, ReadRequest};

use crate::js;

/// `input.path` when it is a string, for a message; else empty.
pub(crate) fn requested_path(input: &Unknown) -> String {
    if type_of(input) != "object" {
        return String::new();
    }
    property(input, "path")
        .ok()
        .and_then(|path| string_or_type(&path).ok())
        .unwrap_or_default()
}

pub(crate) fn root_path(value: Unknown) -> Result<String, ReadFileError> {
    string_or_type(&value).map_err(|type_name| {
        ReadFileError::new(
            ErrorCode::InvalidArgument,
            "workspaceRoot",
            format!("workspaceRoot must be an absolute path to a directory (got {type_name})"),
        )
    })
}

/// Which fields of an input a call reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fields {
    /// The specification's three (`path`, `start_line`, `max_lines`); others are ignored.
    Spec,
    /// A toolkit's: the specification's and `start_column`, which continues a cut line; a
    /// `max_lines` over 500 is read as 500, and the answer says so; a negative `start_line`
    /// counts from the end.
    Toolkit,
}

/// The request of an input object, its fields checked in order: `path`, `start_line`,
/// `max_lines`, then (a toolkit's) `start_column`.
pub(crate) fn request_from_js(
    input: &Unknown,
    fields: Fields,
) -> Result<ReadRequest, ReadFileError> {
    placed_request_from_js(input, fields).map(|(request, _)| request)
}

/// [`request_from_js`]'s request, and whether the input places its window: gives
/// `start_line`, `max_lines` or `start_column` (not `undefined` or `null`).
pub(crate) fn placed_request_from_js(
    input: &Unknown,
    fields: Fields,
) -> Result<(ReadRequest, bool), ReadFileError> {
    let invalid = |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, "input", reason);
    let input_type = type_of(input);
    if input_type != "object" {
        return Err(invalid(format!(
            "input must be an object like {{ path: \"src/main.ts\" }} (got {input_type})"
        )));
    }
    let path = property(input, "path").map_err(&invalid)?;
    let start_line = property(input, "start_line").map_err(&invalid)?;
    let max_lines = property(input, "max_lines").map_err(&invalid)?;
    let path = string_or_type(&path).map_err(|got| Argument::Path.wrong_kind("path", got))?;
    let request = ReadRequest::for_path(path)?;
    let start_line = number_arg(&start_line)
        .map_err(|got| Argument::StartLine.wrong_kind(&request.path, got))?;
    let request = match fields {
        Fields::Spec => request.with_start_line(start_line)?,
        Fields::Toolkit => request.with_start_line_or_tail(start_line)?,
    };
    let max_lines =
        number_arg(&max_lines).map_err(|got| Argument::MaxLines.wrong_kind(&request.path, got))?;
    let placed = start_line != NumberArg::Missing || max_lines != NumberArg::Missing;
    if fields == Fields::Spec {
        return Ok((request.with_max_lines(max_lines)?, placed));
    }
    let request = request.with_max_lines_capped(max_lines)?;
    let start_column = property(input, "start_column").map_err(&invalid)?;
    let start_column = number_arg(&start_column)
        .map_err(|got| Argument::StartColumn.wrong_kind(&request.path, got))?;
    let placed = placed || start_column != NumberArg::Missing;
    Ok((request.with_start_column(start_column)?, placed))
}

/// The pages or cells a toolkit's `view` of `input` (an object) asks for: `input.pages`, a
/// string like `"3"` or `"3-7"`, or nothing (`undefined`, `null`); anything else is
/// `INVALID_ARGUMENT` about `path`.
pub(crate) fn pages_from_js(
    input: &Unknown,
    path: &str,
) -> Result<Option<PartRange>, ReadFileError> {
    let pages = property(input, "pages")
        .map_err(|reason| ReadFileError::new(ErrorCode::InvalidArgument, path, reason))?;
    match pages.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => Ok(None),
        Ok(ValueType::String) => {
            let pages = string_or_type(&pages).unwrap_or_default();
            PartRange::parse(&pages, path).map(Some)
        }
        _ => Err(ReadFileError::new(
            ErrorCode::InvalidArgument,
            path,
            format!(
                "pages must be a string like \"3\" or \"3-7\" (got {})",
                type_of(&pages)
            ),
        )),
    }
}

/// `object[name]` of an object, or why it could not be read (a getter or proxy that
/// throws; the exception is dropped, and the caller reports an INVALID_ARGUMENT error
/// instead).
pub(crate) fn property<'env>(object: &Unknown<'env>, name: &str) -> Result<Unknown<'env>, String> {
    let env = Env::from_raw(object.value().env);
    let read = Object::from_unknown(*object).and_then(|object| object.get_named_property(name));
    js::cleared(&env, read).map_err(|_| format!("input.{name} could not be read (it threw)"))
}

pub(crate) fn string_or_type(value: &Unknown) -> Result<String, &'static str> {
    match value.get_type() {
        Ok(ValueType::String) => String::from_unknown(*value).map_err(|_| "string"),
        _ => Err(type_of(value)),
    }
}

/// A number or nothing (`undefined`, `null`), else the value's type name.
pub(crate) fn number_arg(value: &Unknown) -> Result<NumberArg, &'static str> {
    match value.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => Ok(NumberArg::Missing),
        Ok(ValueType::Number) => f64::from_unknown(*value)
            .map(NumberArg::Number)
            .map_err(|_| "number"),
        _ => Err(type_of(value)),
    }
}

/// The largest safe integer of JavaScript, `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// `number` as an integer when it is a safe integer of JavaScript (`Number.isSafeInteger`),
/// else `None`.
pub(crate) fn safe_integer(number: f64) -> Option<i64> {
    (number.fract() == 0.0 && number.abs() <= MAX_SAFE_INTEGER).then_some(number as i64)
}

/// A JavaScript `typeof`-style name for messages (`null` and arrays named as such).
pub(crate) fn type_of(value: &Unknown) -> &'static str {
    match value.get_type() {
        Ok(ValueType::Undefined) => "undefined",
        Ok(ValueType::Null) => "null",
        Ok(ValueType::Boolean) => "boolean",
        Ok(ValueType::Number) => "number",
        Ok(ValueType::String) => "string",
        Ok(ValueType::Symbol) => "symbol",
        Ok(ValueType::Function) => "function",
        Ok(ValueType::BigInt) => "bigint",
        Ok(ValueType::Object) if value.is_array().unwrap_or(false) => "array",
        Ok(ValueType::Object | ValueType::External) => "object",
        _ => "unknown",
    }
}

/// `signal.aborted`, or `None` when `signal` is not an object with a boolean `aborted`.
pub(crate) fn is_aborted(signal: &Unknown) -> Option<bool> {
    if type_of(signal) != "object" {
        return None;
    }
    let aborted = property(signal, "aborted").ok()?;
    match aborted.get_type() {
        Ok(ValueType::Boolean) => bool::from_unknown(aborted).ok(),
        _ => None,
    }
}

/// A JS `Error` with our own `code` (and `name`), built on the JS thread. If even that
/// fails (the env is going away), `undefined`, so a promise still settles.
pub(crate) fn error_value<'env>(
    env: &'env Env,
    code: &str,
    message: &str,
    name: Option<&str>,
) -> napi::Result<Unknown<'env>> {
    // `message` is made an own enumerable property too, so `JSON.stringify(err)` keeps it.
    let error = match name {
        Some(name) => js::error(
            env,
            message,
            &[("code", code), ("name", name), ("message", message)],
        ),
        None => js::error(env, message, &[("code", code), ("message", message)]),
    };
    error
        .map(|error| error.to_unknown())
        .or_else(|_| ().into_unknown(env))
}

/// The JS `Error` for an engine error, in the form napi-rs throws verbatim: `code` is the
/// error code, `message` names the requested path and the reason.
pub(crate) fn throwable(env: &Env, error: ReadFileError) -> napi::Error {
    throwable_caused(env, error, None)
}

/// [`throwable`], with what JavaScript threw as its `cause` (as `new Error(message, {
/// cause })` defines it: not enumerable).
pub(crate) fn throwable_caused(
    env: &Env,
    error: ReadFileError,
    cause: Option<Unknown>,
) -> napi::Error {
    let message = error.to_string();
    match error_value(env, error.code.as_str(), &message, None) {
        Ok(value) => {
            if let Some(cause) = cause {
                // Without its cause the error still says what could not be read.
                let _ = with_cause(env, value, cause);
            }
            napi::Error::from(value)
        }
        Err(_) => napi::Error::from_reason(message),
    }
}

fn with_cause(env: &Env, error: Unknown, cause: Unknown) -> napi::Result<()> {
    let mut error = Object::from_unknown(error)?;
    let attributes = PropertyAttributes::Writable | PropertyAttributes::Configurable;
    let cause = Property::new()
        .with_utf8_name("cause")?
        .with_value(&cause)
        .with_property_attributes(attributes);
    js::cleared(env, error.define_properties(&[cause]))
}
