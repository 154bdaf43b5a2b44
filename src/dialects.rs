//! The dialects' front door: `executeDialect(name, args, ctx)`, scheduled as every read is
//! (`schedule`), and AIntern's synchronous helpers. Arguments are taken as the model sent them: a JSON text
//! or an object (converted to JSON here, on the JS thread). Answers are the engine's typed
//! answers, built as every result is (`output/literal.rs`).

use napi::bindgen_prelude::FromNapiValue;
use napi::{Env, JsValue, Unknown, ValueType};
use napi_derive::napi;
use serde_json::Value;

use crate::call::ReadCall;
use crate::convert::{property, string_or_type, type_of};
use crate::output::literal::Literal;
use crate::{js, schedule};
use agent_read_file_engine::dialect::{Args, Dialect, DialectCall, aintern};
use agent_read_file_engine::error::{ErrorCode, ReadFileError};

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
/// comes from the kernel's memory whole (as `readFile` does); else on the thread pool, as
/// `readFile` is scheduled. `ctx.signal`, an `AbortSignal`, rejects it with an `AbortError`.
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
    let call = Dialect::from_name(&name).ok_or_else(|| no_such_dialect(&name));
    let call = call.map(|dialect| {
        let JsCall {
            workspace_root,
            call,
        } = call_from_js(&args, &ctx);
        ReadCall::dialect(workspace_root, dialect, call)
    });
    schedule::enqueue_to(env, call, signal_of(&ctx), schedule::Route::AtOnce)
}

/// `ctx.signal`, when `ctx` is an object that has one that can be read.
fn signal_of<'env>(ctx: &Unknown<'env>) -> Option<Unknown<'env>> {
    (type_of(ctx) == "object")
        .then(|| property(ctx, "signal").ok())
        .flatten()
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
pub fn aintern_validate(args: Unknown) -> Literal<Vec<aintern::ValidationError>> {
    Literal(aintern::validate(&args_from_js(&args).value()))
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
