//! The N-API binding: the only module that knows JavaScript. It turns JS arguments into a
//! validated [`ReadRequest`], runs the engine (inline for `readFileSync`, on the libuv pool
//! for `readFile`; both call [`ReadCall::run`]), and turns the result into a JS object or
//! an `Error` whose `code` is the engine's [`ErrorCode`].

use std::ffi::CStr;
use std::ptr;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, FromNapiValue, ObjectRef, ToNapiValue, TypeName};
use napi::{Env, JsError, JsValue, Task, Unknown, ValueType, sys};
use napi_derive::napi;

use crate::error::{ErrorCode, ReadFileError};
use crate::read_file::{ReadFileOutput, read_file, read_file_at};
use crate::request::{NumberArg, ReadRequest};
use crate::sandbox::Root;

/// The largest file `read_file` returns, in bytes (1 MiB).
#[napi]
pub const MAX_FILE_BYTES: u32 = crate::request::MAX_FILE_BYTES as u32;

/// `err.code` and `err.name` of the rejection when the caller's `AbortSignal` fires first.
const ABORT_CODE: &str = "ABORT_ERR";

/// Reads a window of a file in the workspace, on the calling thread.
#[napi(
    js_name = "readFileSync",
    ts_args_type = "workspaceRoot: string, input: ReadFileInput",
    ts_return_type = "ReadFileOutput"
)]
pub fn read_file_sync(env: Env, workspace_root: Unknown, input: Unknown) -> napi::Result<JsOutput> {
    let root = root_path(workspace_root).map(RootArg::Path);
    let call = ReadCall::from_js(root, input).map_err(|error| throwable(&env, error))?;
    call.run()
        .map(JsOutput)
        .map_err(|error| throwable(&env, error))
}

/// Reads a window of a file in the workspace on the libuv thread pool. Never throws:
/// every failure, bad arguments included, rejects the promise.
#[napi(
    js_name = "readFile",
    ts_args_type = "workspaceRoot: string, input: ReadFileInput, signal?: AbortSignal",
    ts_return_type = "Promise<ReadFileOutput>"
)]
pub fn read_file_async(
    workspace_root: Unknown,
    input: Unknown,
    signal: Option<Unknown>,
) -> AsyncTask<ReadTask> {
    let root = root_path(workspace_root).map(RootArg::Path);
    ReadTask::new(ReadCall::from_js(root, input), signal)
}

/// A workspace root held open for the lifetime of this object (`createAgentToolkit`).
#[napi]
pub struct Workspace {
    root: Arc<Root>,
}

#[napi]
impl Workspace {
    /// Opens `workspaceRoot` (an absolute path to a directory) once.
    #[napi(constructor, ts_args_type = "workspaceRoot: string")]
    pub fn new(env: Env, workspace_root: Unknown) -> napi::Result<Self> {
        let path = root_path(workspace_root).map_err(|error| throwable(&env, error))?;
        let root = Root::open(&path).map_err(|error| throwable(&env, error))?;
        Ok(Workspace {
            root: Arc::new(root),
        })
    }

    /// `readFile` beneath this workspace's root.
    #[napi(
        ts_args_type = "input: ReadFileInput, signal?: AbortSignal",
        ts_return_type = "Promise<ReadFileOutput>"
    )]
    pub fn read_file(&self, input: Unknown, signal: Option<Unknown>) -> AsyncTask<ReadTask> {
        let root = Ok(RootArg::Open(self.root.clone()));
        ReadTask::new(ReadCall::from_js(root, input), signal)
    }

    /// `readFileSync` beneath this workspace's root.
    #[napi(
        ts_args_type = "input: ReadFileInput",
        ts_return_type = "ReadFileOutput"
    )]
    pub fn read_file_sync(&self, env: Env, input: Unknown) -> napi::Result<JsOutput> {
        let root = Ok(RootArg::Open(self.root.clone()));
        let call = ReadCall::from_js(root, input).map_err(|error| throwable(&env, error))?;
        call.run()
            .map(JsOutput)
            .map_err(|error| throwable(&env, error))
    }
}

/// Which root a call reads beneath.
enum RootArg {
    /// A root path, opened (or found open) when the call runs.
    Path(String),
    /// A root already open.
    Open(Arc<Root>),
}

fn root_path(value: Unknown) -> Result<String, ReadFileError> {
    string_or_type(&value).map_err(|type_name| {
        ReadFileError::new(
            ErrorCode::InvalidArgument,
            "workspaceRoot",
            format!("workspaceRoot must be an absolute path to a directory (got {type_name})"),
        )
    })
}

/// One validated call, ready to run on any thread.
pub struct ReadCall {
    root: RootArg,
    request: ReadRequest,
}

impl ReadCall {
    fn from_js(
        root: Result<RootArg, ReadFileError>,
        input: Unknown,
    ) -> Result<ReadCall, ReadFileError> {
        let request = request_from_js(&input)?;
        let root = root.map_err(|mut error| {
            error.path.clone_from(&request.path);
            error
        })?;
        Ok(ReadCall { root, request })
    }

    /// The one code path of `readFile` and `readFileSync`.
    fn run(&self) -> Result<ReadFileOutput, ReadFileError> {
        match &self.root {
            RootArg::Path(path) => read_file_at(path, &self.request),
            RootArg::Open(root) => read_file(root, &self.request),
        }
    }
}

fn request_from_js(input: &Unknown) -> Result<ReadRequest, ReadFileError> {
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
    ReadRequest::new(
        string_or_type(&path),
        number_arg(&start_line),
        number_arg(&max_lines),
    )
}

/// `object[name]`, or why it could not be read (a getter or proxy that throws).
fn property<'env>(object: &Unknown<'env>, name: &CStr) -> Result<Unknown<'env>, String> {
    let env = object.value().env;
    let mut value = ptr::null_mut();
    let status =
        unsafe { sys::napi_get_named_property(env, object.raw(), name.as_ptr(), &mut value) };
    if status == sys::Status::napi_ok {
        return Ok(unsafe { Unknown::from_raw_unchecked(env, value) });
    }
    // Swallow the exception: the caller gets an INVALID_ARGUMENT error instead.
    let mut exception = ptr::null_mut();
    unsafe { sys::napi_get_and_clear_last_exception(env, &mut exception) };
    Err(format!(
        "input.{} could not be read (it threw)",
        name.to_string_lossy()
    ))
}

fn string_or_type(value: &Unknown) -> Result<String, &'static str> {
    match value.get_type() {
        Ok(ValueType::String) => {
            unsafe { String::from_napi_value(value.value().env, value.raw()) }.map_err(|_| "string")
        }
        _ => Err(type_of(value)),
    }
}

fn number_arg(value: &Unknown) -> NumberArg {
    match value.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => NumberArg::Missing,
        Ok(ValueType::Number) => {
            match unsafe { f64::from_napi_value(value.value().env, value.raw()) } {
                Ok(number) => NumberArg::Number(number),
                Err(_) => NumberArg::Other("number"),
            }
        }
        _ => NumberArg::Other(type_of(value)),
    }
}

/// A JavaScript `typeof`-style name for messages (`null` and arrays named as such).
fn type_of(value: &Unknown) -> &'static str {
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

/// The JS `Error` for an engine error: `code` is the error code, `message` names the
/// requested path and the reason.
fn throwable(env: &Env, error: ReadFileError) -> napi::Error {
    js_error(env, error.code.as_str(), error.to_string(), None)
}

/// `readFile`'s work: validated on the JS thread, run on the pool, settled on the JS thread.
pub struct ReadTask {
    call: Result<ReadCall, ReadFileError>,
    signal: Option<ObjectRef>,
    aborted: bool,
}

impl ReadTask {
    fn new(call: Result<ReadCall, ReadFileError>, signal: Option<Unknown>) -> AsyncTask<Self> {
        let mut task = ReadTask {
            call,
            signal: None,
            aborted: false,
        };
        if let Some(signal) = signal.filter(|s| !matches!(type_of(s), "undefined" | "null"))
            && let Err(error) = task.watch(&signal)
        {
            task.call = Err(error);
        }
        AsyncTask::new(task)
    }

    /// Records whether `signal` has fired, and keeps it to look again at settlement.
    fn watch(&mut self, signal: &Unknown) -> Result<(), ReadFileError> {
        let path = match &self.call {
            Ok(call) => call.request.path.clone(),
            Err(_) => return Ok(()),
        };
        let aborted = is_aborted(signal).ok_or_else(|| {
            ReadFileError::new(
                ErrorCode::InvalidArgument,
                &path,
                "signal must be an AbortSignal",
            )
        })?;
        self.aborted = aborted;
        if !aborted {
            let object = unsafe {
                napi::bindgen_prelude::Object::from_napi_value(signal.value().env, signal.raw())
            };
            self.signal = object.and_then(|o| o.create_ref()).ok();
        }
        Ok(())
    }

    fn abort_error(&self, env: &Env) -> napi::Error {
        let path = match &self.call {
            Ok(call) => call.request.path.as_str(),
            Err(_) => "",
        };
        let message = format!("{ABORT_CODE}: {path}: the read was aborted");
        js_error(env, ABORT_CODE, message, Some(c"AbortError"))
    }
}

fn is_aborted(signal: &Unknown) -> Option<bool> {
    if type_of(signal) != "object" {
        return None;
    }
    let aborted = property(signal, c"aborted").ok()?;
    match aborted.get_type() {
        Ok(ValueType::Boolean) => {
            unsafe { bool::from_napi_value(aborted.value().env, aborted.raw()) }.ok()
        }
        _ => None,
    }
}

/// An `Error` built on the JS thread with our own `code` (and `name`), carried through
/// napi-rs's `Task` plumbing, which only knows its own status codes, verbatim.
fn js_error(env: &Env, code: &str, message: String, name: Option<&CStr>) -> napi::Error {
    let error = JsError::from(napi::Error::new(code, message)).into_unknown(*env);
    if let Some(name) = name {
        let mut name_value = ptr::null_mut();
        unsafe {
            sys::napi_create_string_utf8(
                env.raw(),
                name.as_ptr(),
                name.count_bytes() as isize,
                &mut name_value,
            );
            sys::napi_set_named_property(env.raw(), error.raw(), c"name".as_ptr(), name_value);
        }
    }
    napi::Error::from(error)
}

impl Task for ReadTask {
    /// `None` when the signal had fired before the work started.
    type Output = Option<Result<ReadFileOutput, ReadFileError>>;
    type JsValue = JsOutput;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        if self.aborted {
            return Ok(None);
        }
        Ok(Some(match &self.call {
            Ok(call) => call.run(),
            Err(error) => Err(error.clone()),
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<JsOutput> {
        let aborted = self.aborted
            || self.signal.as_ref().is_some_and(|signal| {
                signal
                    .get_value(&env)
                    .ok()
                    .and_then(|object| is_aborted(&object.to_unknown()))
                    .unwrap_or(false)
            });
        let Some(output) = output.filter(|_| !aborted) else {
            return Err(self.abort_error(&env));
        };
        output.map(JsOutput).map_err(|error| throwable(&env, error))
    }

    fn finally(mut self, env: Env) -> napi::Result<()> {
        if let Some(signal) = self.signal.take() {
            signal.unref(&env)?;
        }
        Ok(())
    }
}

/// A [`ReadFileOutput`] on its way to JavaScript: `{ path, content, truncated,
/// next_start_line, meta: { byte_length, line_count, returned_line_count, mtime_ms } }`.
pub struct JsOutput(ReadFileOutput);

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
        let meta_object = new_object(env)?;
        set(env, meta_object, c"byte_length", meta.byte_length as f64)?;
        set(env, meta_object, c"line_count", meta.line_count as f64)?;
        set(
            env,
            meta_object,
            c"returned_line_count",
            meta.returned_line_count,
        )?;
        set(env, meta_object, c"mtime_ms", meta.mtime_ms as f64)?;
        let object = new_object(env)?;
        set(env, object, c"path", output.path.as_str())?;
        set(env, object, c"content", output.content.as_str())?;
        set(env, object, c"truncated", output.truncated)?;
        set(
            env,
            object,
            c"next_start_line",
            output.next_start_line.map(|n| n as f64),
        )?;
        let status =
            unsafe { sys::napi_set_named_property(env, object, c"meta".as_ptr(), meta_object) };
        check(status)?;
        Ok(object)
    }
}

fn new_object(env: sys::napi_env) -> napi::Result<sys::napi_value> {
    let mut object = ptr::null_mut();
    check(unsafe { sys::napi_create_object(env, &mut object) })?;
    Ok(object)
}

fn set<V: ToNapiValue>(
    env: sys::napi_env,
    object: sys::napi_value,
    key: &CStr,
    value: V,
) -> napi::Result<()> {
    let value = unsafe { V::to_napi_value(env, value)? };
    check(unsafe { sys::napi_set_named_property(env, object, key.as_ptr(), value) })
}

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::new(
            napi::Status::from(status),
            "building the result object failed",
        ))
    }
}
