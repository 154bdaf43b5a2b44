//! A [`ReadFileOutput`] as a JavaScript object.
//!
//! Building the object through Node-API (an empty object, then nine named properties)
//! costs more than the read itself: every name is hashed into V8's string table again and
//! every property moves the object to a new hidden class. A JavaScript object literal
//! does neither, so the object comes from a small function compiled once per JS thread
//! and called with the nine values.

use std::cell::Cell;
use std::ptr;

use napi::bindgen_prelude::{ToNapiValue, TypeName};
use napi::{ValueType, sys};

use super::check;
use crate::read_file::ReadFileOutput;

/// The shape of the contract's `ReadFileOutput`, property order included.
const MAKE_OUTPUT_SOURCE: &str = "(function readFileOutput(path, content, truncated, \
     next_start_line, byte_length, line_count, returned_line_count, mtime_ms) {\n\
     return { path, content, truncated, next_start_line,\n\
     meta: { byte_length, line_count, returned_line_count, mtime_ms } }\n})";

thread_local! {
    /// The compiled function of this JS thread's env: `(env, reference)`.
    static MAKE_OUTPUT: Cell<Option<(sys::napi_env, sys::napi_ref)>> = const { Cell::new(None) };
}

/// A [`ReadFileOutput`] on its way to JavaScript: `{ path, content, truncated,
/// next_start_line, meta: { byte_length, line_count, returned_line_count, mtime_ms } }`.
pub struct JsOutput(pub ReadFileOutput);

impl TypeName for JsOutput {
    fn type_name() -> &'static str {
        "ReadFileOutput"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for JsOutput {
    unsafe fn to_napi_value(env: sys::napi_env, output: Self) -> napi::Result<sys::napi_value> {
        let output = output.0;
        let meta = output.meta;
        let next = output.next_start_line.map(|n| n as f64);
        let values = unsafe {
            [
                <&str>::to_napi_value(env, output.path.as_str())?,
                JsText::to_napi_value(env, JsText(output.content.as_str()))?,
                bool::to_napi_value(env, output.truncated)?,
                Option::<f64>::to_napi_value(env, next)?,
                f64::to_napi_value(env, meta.byte_length as f64)?,
                f64::to_napi_value(env, meta.line_count as f64)?,
                u32::to_napi_value(env, meta.returned_line_count)?,
                f64::to_napi_value(env, meta.mtime_ms as f64)?,
            ]
        };
        let make_output = make_output(env)?;
        let mut object = ptr::null_mut();
        check(unsafe {
            sys::napi_call_function(
                env,
                make_output,
                make_output,
                values.len(),
                values.as_ptr(),
                &mut object,
            )
        })?;
        Ok(object)
    }
}

/// This env's `readFileOutput` function, compiled on first use.
fn make_output(env: sys::napi_env) -> napi::Result<sys::napi_value> {
    let reference = match MAKE_OUTPUT.get() {
        Some((compiled_for, reference)) if compiled_for == env => reference,
        _ => {
            let reference = compile_make_output(env)?;
            MAKE_OUTPUT.set(Some((env, reference)));
            reference
        }
    };
    let mut function = ptr::null_mut();
    check(unsafe { sys::napi_get_reference_value(env, reference, &mut function) })?;
    Ok(function)
}

fn compile_make_output(env: sys::napi_env) -> napi::Result<sys::napi_ref> {
    let source = unsafe { <&str>::to_napi_value(env, MAKE_OUTPUT_SOURCE)? };
    let mut function = ptr::null_mut();
    check(unsafe { sys::napi_run_script(env, source, &mut function) })?;
    let mut reference = ptr::null_mut();
    check(unsafe { sys::napi_create_reference(env, function, 1, &mut reference) })?;
    Ok(reference)
}

/// Text for a JS string. ASCII goes in as Latin-1, which V8 copies without the UTF-8
/// decoding pass it would otherwise make; everything else as UTF-8.
struct JsText<'a>(&'a str);

impl ToNapiValue for JsText<'_> {
    unsafe fn to_napi_value(env: sys::napi_env, text: Self) -> napi::Result<sys::napi_value> {
        let text = text.0;
        let mut value = ptr::null_mut();
        let (data, len) = (text.as_ptr().cast(), text.len() as isize);
        let status = if text.is_ascii() {
            unsafe { sys::napi_create_string_latin1(env, data, len, &mut value) }
        } else {
            unsafe { sys::napi_create_string_utf8(env, data, len, &mut value) }
        };
        check(status)?;
        Ok(value)
    }
}
