//! The dialects' front door: `executeDialect(name, args, ctx)` on the libuv pool, and
//! AIntern's synchronous helpers. Arguments are taken as the model sent them: a JSON text
//! or an object (converted to JSON here, on the JS thread). Answers are the engine's typed
//! answers, serialized straight into JS objects by napi-rs's serde support.

use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypeName};
use napi::{Env, JsValue, Task, Unknown, ValueType, sys};
use napi_derive::napi;
use serde_json::Value;

use crate::convert::{error_value, property, string_or_type, throwable, type_of};
use crate::{js, schedule};
use agent_read_file_engine::Reader;
use agent_read_file_engine::dialect::{Answer, Args, Dialect, DialectCall, aintern};
use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::root_cache;

/// Declares `DialectName` from the engine's list of dialects.
macro_rules! declare_dialect_name {
    ($($variant:ident = $name:literal => $module:ident,)*) => {
        /// The name of a dialect, as `executeDialect` takes it.
        #[napi(string_enum)]
        pub enum DialectName {
            $(#[napi(value = $name)] $variant,)*
        }
    };
}

agent_read_file_engine::dialect_list!(declare_dialect_name);

/// The names of the dialects, in the engine's order (`dialects.js` builds one tool per name).
#[napi(js_name = "dialectNames", ts_return_type = "Array<`${DialectName}`>")]
pub fn dialect_names() -> Vec<&'static str> {
    Dialect::ALL.iter().map(|dialect| dialect.name()).collect()
}

/// Runs one call of a dialect's tool: its answer, or for Forge an `Error` whose `code` is a
/// `ReadFileErrorCode`. On the calling thread, settled at once, when every file it reads
/// comes from the kernel's memory whole (as `readFile` does); else on the thread pool.
#[napi(
    js_name = "executeDialect",
    ts_generic_types = "N extends `${DialectName}`",
    ts_args_type = "name: N, args: unknown, ctx: DialectContext",
    ts_return_type = "Promise<DialectResults[N]>"
)]
pub fn execute_dialect<'env>(
    env: &'env Env,
    name: String,
    args: Unknown,
    ctx: Unknown,
) -> napi::Result<Unknown<'env>> {
    let call = Dialect::from_name(&name)
        .ok_or_else(|| no_such_dialect(&name))
        .map(|dialect| (dialect, call_from_js(&args, &ctx)));
    if let Ok((dialect, js_call)) = &call
        && let Some(outcome) = schedule::try_now(env, || execute_from_memory(*dialect, js_call))
    {
        return settled(env, outcome);
    }
    schedule::count_sent_to_pool(1);
    Ok(env
        .spawn(DialectTask { call })?
        .promise_object()
        .to_unknown())
}

/// The call, if its root is open and every file it reads is in memory; `None` otherwise.
fn execute_from_memory(
    dialect: Dialect,
    js_call: &JsCall,
) -> Option<Result<Answer, ReadFileError>> {
    let root = root_cache::open_cached(&js_call.workspace_root)?;
    let reader = Reader::from_memory();
    let answer = dialect.execute(Ok(&root), &js_call.call, &reader);
    reader.finish(answer)
}

/// A promise settled now with `outcome`, as the pool's task would have settled it.
fn settled<'env>(
    env: &'env Env,
    outcome: Result<Answer, ReadFileError>,
) -> napi::Result<Unknown<'env>> {
    let (deferred, promise) = js::promise(env)?;
    let value = match outcome {
        Ok(answer) => Ok(env.to_js_value(&answer)?),
        Err(error) => Err(error_value(
            env,
            error.code.as_str(),
            &error.to_string(),
            None,
        )?),
    };
    deferred.settle(env, value);
    Ok(promise.to_unknown())
}

fn no_such_dialect(name: &str) -> ReadFileError {
    let names: Vec<&str> = Dialect::ALL.iter().map(|dialect| dialect.name()).collect();
    let reason = format!("no such dialect ({})", names.join(", "));
    ReadFileError::new(ErrorCode::InvalidArgument, name, reason)
}

/// AIntern's `Validate`: `[{ parameterName, message, code }]`, empty when valid.
#[napi(
    js_name = "ainternValidate",
    ts_args_type = "args: unknown",
    ts_return_type = "AInternValidationError[]"
)]
pub fn aintern_validate(args: Unknown) -> Serialized<Vec<aintern::ValidationError>> {
    Serialized(aintern::validate(&args_from_js(&args).value()))
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

/// A dialect call as read from JS: the root path (resolved on the pool) and the call.
struct JsCall {
    workspace_root: String,
    call: DialectCall,
}

fn call_from_js(args: &Unknown, ctx: &Unknown) -> JsCall {
    // A missing or malformed ctx leaves the root empty, which the dialect reports its way.
    let ctx = Some(ctx).filter(|ctx| type_of(ctx) == "object");
    let field = |name| ctx.map(|ctx| property(ctx, name));
    let workspace_root = field("workspaceRoot")
        .and_then(Result::ok)
        .and_then(|root| string_or_type(&root).ok())
        .unwrap_or_default();
    let config = match field("config") {
        None => Ok(Value::Null),
        Some(Err(_)) => Err("ctx.config could not be read (it threw)".to_owned()),
        Some(Ok(config)) if matches!(type_of(&config), "undefined" | "null") => Ok(Value::Null),
        Some(Ok(config)) => json_from_js(&config, "ctx.config"),
    };
    let args = args_from_js(args);
    JsCall {
        workspace_root,
        call: DialectCall { args, config },
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
    let env = Env::from_raw(value.value().env);
    match Value::from_unknown(*value) {
        Ok(json) => Ok(json),
        Err(_) if js::clear_exception(&env) => {
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
    call: Result<(Dialect, JsCall), ReadFileError>,
}

impl Task for DialectTask {
    type Output = Result<Answer, ReadFileError>;
    type JsValue = Serialized<Answer>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(match &self.call {
            Ok((dialect, js_call)) => {
                let root = root_cache::open(&js_call.workspace_root);
                let root = root.as_deref().map_err(Clone::clone);
                dialect.execute(root, &js_call.call, &Reader::waiting())
            }
            Err(error) => Err(error.clone()),
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output
            .map(Serialized)
            .map_err(|error| throwable(&env, error))
    }
}

/// An engine value on its way to JavaScript as the object its `Serialize` implementation
/// describes (field names and order kept).
pub struct Serialized<T>(T);

impl<T> TypeName for Serialized<T> {
    fn type_name() -> &'static str {
        "object"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

/// `ToNapiValue` for each engine type that crosses over serialized (this crate names serde
/// only through napi-rs, so the impls are per type rather than over `T: Serialize`).
macro_rules! serialized_to_js {
    ($($type:ty),*) => {
        $(impl ToNapiValue for Serialized<$type> {
            unsafe fn to_napi_value(
                env: sys::napi_env,
                value: Self,
            ) -> napi::Result<sys::napi_value> {
                Env::from_raw(env)
                    .to_js_value(&value.0)
                    .map(|value| value.raw())
            }
        })*
    };
}

serialized_to_js!(Answer, Vec<aintern::ValidationError>);
