//! The dialects' front door: `executeDialect(name, args, ctx)` on the libuv pool, and
//! AIntern's synchronous helpers. Arguments are taken as the model sent them: a JSON text
//! or an object (converted to JSON here, on the JS thread).

use napi::bindgen_prelude::{AsyncTask, FromNapiValue, ToNapiValue, TypeName};
use napi::{Env, JsValue, Task, Unknown, ValueType, sys};
use napi_derive::napi;
use serde_json::Value;

use crate::{js, property, string_or_type, throwable, type_of};
use agent_read_file_engine::dialect::{Args, Dialect, DialectCall, aintern};
use agent_read_file_engine::error::{ErrorCode, ReadFileError};

/// Runs one call of a dialect's tool (`codex`, `forge` or `aintern`) on the thread pool.
#[napi(
    js_name = "executeDialect",
    ts_args_type = "name: 'codex' | 'forge' | 'aintern', args: unknown, ctx: { workspaceRoot: string; config?: object }",
    ts_return_type = "Promise<unknown>"
)]
pub fn execute_dialect(name: String, args: Unknown, ctx: Unknown) -> AsyncTask<DialectTask> {
    let call = Dialect::from_name(&name)
        .ok_or_else(|| {
            ReadFileError::new(
                ErrorCode::InvalidArgument,
                &name,
                "no such dialect (codex, forge, aintern)",
            )
        })
        .map(|dialect| (dialect, call_from_js(&args, &ctx)));
    AsyncTask::new(DialectTask { call })
}

/// AIntern's `Validate`: `[{ parameterName, message, code }]`, empty when valid.
#[napi(js_name = "ainternValidate", ts_args_type = "args: unknown")]
pub fn aintern_validate(args: Unknown) -> Value {
    let args = args_from_js(&args).value();
    Value::Array(
        aintern::validate(&args)
            .iter()
            .map(aintern::error_json)
            .collect(),
    )
}

/// AIntern's `GetExecutionSummary`.
#[napi(js_name = "ainternExecutionSummary", ts_args_type = "args: unknown")]
pub fn aintern_execution_summary(args: Unknown) -> String {
    aintern::execution_summary(&args_from_js(&args).value())
}

/// AIntern's `FormatFileSize`.
#[napi(js_name = "ainternFormatFileSize")]
pub fn aintern_format_file_size(bytes: f64) -> String {
    aintern::format_file_size(if bytes.is_finite() && bytes > 0.0 {
        bytes as u64
    } else {
        0
    })
}

fn call_from_js(args: &Unknown, ctx: &Unknown) -> DialectCall {
    // A missing or malformed ctx leaves the root empty, which the dialect reports its way.
    let ctx = Some(ctx).filter(|ctx| type_of(ctx) == "object");
    let field = |name| ctx.map(|ctx| property(ctx, name));
    DialectCall {
        workspace_root: field(c"workspaceRoot")
            .and_then(Result::ok)
            .and_then(|root| string_or_type(&root).ok())
            .unwrap_or_default(),
        args: args_from_js(args),
        config: match field(c"config") {
            None => Ok(Value::Null),
            Some(Err(_)) => Err("ctx.config could not be read (it threw)".to_owned()),
            Some(Ok(config)) if matches!(type_of(&config), "undefined" | "null") => Ok(Value::Null),
            Some(Ok(config)) => json_from_js(&config, "ctx.config"),
        },
    }
}

fn args_from_js(args: &Unknown) -> Args {
    match args.get_type() {
        Ok(ValueType::String) => match string_or_type(args) {
            Ok(text) => Args::Json(text),
            Err(type_name) => Args::Unreadable(format!("arguments are a {type_name}")),
        },
        _ => match json_from_js(args, "arguments") {
            Ok(value) => Args::Value(value),
            Err(reason) => Args::Unreadable(reason),
        },
    }
}

/// A JS value as JSON; a throwing getter or proxy trap becomes an error (about `what`), not
/// a pending exception.
fn json_from_js(value: &Unknown, what: &str) -> Result<Value, String> {
    let env = value.value().env;
    // SAFETY: a live handle of this env, on its JS thread.
    match unsafe { Value::from_napi_value(env, value.raw()) } {
        Ok(json) => Ok(json),
        Err(_) if js::clear_exception(env) => {
            Err(format!("{what} could not be read (a property threw)"))
        }
        Err(error) => Err(format!(
            "{what} cannot be converted to JSON: {}",
            error.reason
        )),
    }
}

/// A dialect call on its way through the pool.
pub struct DialectTask {
    call: Result<(Dialect, DialectCall), ReadFileError>,
}

/// A dialect's answer on its way to JavaScript, as a plain object.
pub struct Answer(Value);

impl TypeName for Answer {
    fn type_name() -> &'static str {
        "DialectAnswer"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Answer {
    unsafe fn to_napi_value(env: sys::napi_env, answer: Self) -> napi::Result<sys::napi_value> {
        // SAFETY: called by napi-rs on the JS thread of `env`, as `to_napi_value` requires.
        unsafe { Value::to_napi_value(env, answer.0) }
    }
}

impl Task for DialectTask {
    type Output = Result<Value, ReadFileError>;
    type JsValue = Answer;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(match &self.call {
            Ok((dialect, call)) => dialect.execute(call),
            Err(error) => Err(error.clone()),
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Answer> {
        output.map(Answer).map_err(|error| throwable(&env, error))
    }
}
