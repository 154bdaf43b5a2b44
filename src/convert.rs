//! JS values in, engine values out, and back: the call's arguments read from JS values
//! (never trusting a getter, a proxy or a type), and engine errors turned into JS `Error`s
//! whose `code` is the engine's.

use std::ffi::CStr;

use napi::bindgen_prelude::FromNapiValue;
use napi::{Env, JsValue, Unknown, ValueType, sys};

use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::request::{Argument, NumberArg, ReadRequest};

use crate::js;

/// `input.path` when it is a string, for a message; else empty.
pub(crate) fn requested_path(input: &Unknown) -> String {
    if type_of(input) != "object" {
        return String::new();
    }
    property(input, c"path")
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

pub(crate) fn request_from_js(input: &Unknown) -> Result<ReadRequest, ReadFileError> {
    let invalid = |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, "input", reason);
    let input_type = type_of(input);
    if input_type != "object" {
        return Err(invalid(format!(
            "input must be an object like {{ path: \"src/main.ts\" }} (got {input_type})"
        )));
    }
    let path = property(input, c"path").map_err(&invalid)?;
    let start_line = property(input, c"start_line").map_err(&invalid)?;
    let max_lines = property(input, c"max_lines").map_err(&invalid)?;
    let path = string_or_type(&path).map_err(|got| Argument::Path.wrong_kind("path", got))?;
    let request = ReadRequest::for_path(path)?;
    let start_line = number_arg(&start_line)
        .map_err(|got| Argument::StartLine.wrong_kind(&request.path, got))?;
    let request = request.with_start_line(start_line)?;
    let max_lines =
        number_arg(&max_lines).map_err(|got| Argument::MaxLines.wrong_kind(&request.path, got))?;
    request.with_max_lines(max_lines)
}

/// `object[name]`, or why it could not be read (a getter or proxy that throws; the
/// exception is dropped, and the caller reports an INVALID_ARGUMENT error instead).
pub(crate) fn property<'env>(object: &Unknown<'env>, name: &CStr) -> Result<Unknown<'env>, String> {
    let env = object.value().env;
    match js::named_property(env, object.raw(), name) {
        // SAFETY: a handle Node just returned, live in the current handle scope.
        Ok(value) => Ok(unsafe { Unknown::from_raw_unchecked(env, value) }),
        Err(_) => Err(format!(
            "input.{} could not be read (it threw)",
            name.to_string_lossy()
        )),
    }
}

pub(crate) fn string_or_type(value: &Unknown) -> Result<String, &'static str> {
    match value.get_type() {
        Ok(ValueType::String) => {
            // SAFETY: a live handle of this env, checked to be a string.
            unsafe { String::from_napi_value(value.value().env, value.raw()) }.map_err(|_| "string")
        }
        _ => Err(type_of(value)),
    }
}

/// A number or nothing (`undefined`, `null`), else the value's type name.
pub(crate) fn number_arg(value: &Unknown) -> Result<NumberArg, &'static str> {
    match value.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => Ok(NumberArg::Missing),
        Ok(ValueType::Number) => {
            // SAFETY: a live handle of this env, checked to be a number.
            unsafe { f64::from_napi_value(value.value().env, value.raw()) }
                .map(NumberArg::Number)
                .map_err(|_| "number")
        }
        _ => Err(type_of(value)),
    }
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
    let aborted = property(signal, c"aborted").ok()?;
    match aborted.get_type() {
        Ok(ValueType::Boolean) => {
            // SAFETY: a live handle of this env, checked to be a boolean.
            unsafe { bool::from_napi_value(aborted.value().env, aborted.raw()) }.ok()
        }
        _ => None,
    }
}

/// A JS `Error` with our own `code` (and `name`), built on the JS thread. If even that
/// fails (the env is going away), `undefined`, so a promise still settles.
pub(crate) fn error_value(
    env: sys::napi_env,
    code: &str,
    message: &str,
    name: Option<&str>,
) -> js::Value {
    // `message` is made an own enumerable property too, so `JSON.stringify(err)` keeps it.
    let error = match name {
        Some(name) => js::error(
            env,
            message,
            &[(c"code", code), (c"name", name), (c"message", message)],
        ),
        None => js::error(env, message, &[(c"code", code), (c"message", message)]),
    };
    error
        .or_else(|_| js::undefined(env))
        .unwrap_or(std::ptr::null_mut())
}

/// The JS `Error` for an engine error, in the form napi-rs throws verbatim: `code` is the
/// error code, `message` names the requested path and the reason.
pub(crate) fn throwable(env: &Env, error: ReadFileError) -> napi::Error {
    let value = error_value(env.raw(), error.code.as_str(), &error.to_string(), None);
    // SAFETY: a handle just made on this env, live in the current handle scope.
    napi::Error::from(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}
