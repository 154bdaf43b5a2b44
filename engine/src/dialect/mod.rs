//! Other agents' read tools as dialects of the same engine. Each dialect is argument
//! mapping plus a renderer: it parses the model's arguments its tool's way, asks the
//! shared sandbox and file guard ([`crate::read_file::read_source`]) for the bytes, splits
//! lines with the shared line model ([`crate::window`]), selects them, renders them with
//! [`crate::render`], and answers in its tool's shape.

pub mod aintern;
pub mod codex;
pub mod codex_indentation;
pub mod forge;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ReadFileError;

/// The model's arguments as they arrived: a JSON text or an already-parsed object.
#[derive(Clone, Debug)]
pub enum Args {
    Json(String),
    Value(Value),
    /// Arguments that could not be turned into JSON, and why.
    Unreadable(String),
}

impl Args {
    /// The arguments as the dialect's argument type.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match self {
            Args::Json(text) => serde_json::from_str(text),
            Args::Value(value) => T::deserialize(value),
            Args::Unreadable(reason) => Err(serde::de::Error::custom(reason)),
        }
    }

    /// The arguments as a JSON value (`Value::Null` when they are not JSON).
    pub fn value(&self) -> Value {
        match self {
            Args::Json(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            Args::Value(value) => value.clone(),
            Args::Unreadable(_) => Value::Null,
        }
    }
}

/// A call of one dialect's tool: where, with what, and the toolkit's configuration.
#[derive(Clone, Debug)]
pub struct DialectCall {
    pub workspace_root: String,
    pub args: Args,
    /// `ctx.config` (`Value::Null` when absent), or why it could not be read as JSON (a
    /// throwing getter, a function), which the dialect reports as an invalid configuration.
    pub config: Result<Value, String>,
}

/// The dialects by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Codex,
    Forge,
    AIntern,
}

impl Dialect {
    pub fn from_name(name: &str) -> Option<Dialect> {
        match name {
            "codex" => Some(Dialect::Codex),
            "forge" => Some(Dialect::Forge),
            "aintern" => Some(Dialect::AIntern),
            _ => None,
        }
    }

    /// Runs the call. `Err` only for a dialect whose tool reports failures as errors
    /// (Forge); Codex and AIntern answer every failure in their result shape.
    pub fn execute(self, call: &DialectCall) -> Result<Value, ReadFileError> {
        match self {
            Dialect::Codex => Ok(codex::execute(call)),
            Dialect::Forge => forge::execute(call),
            Dialect::AIntern => Ok(aintern::execute(call)),
        }
    }
}

/// The largest byte limit a dialect's configuration may set: 512 MiB. V8's longest string
/// is 2^29 - 24 UTF-16 units (about 512 Mi), so a larger read could never reach
/// JavaScript as text; the bound also keeps every size computed from a limit far from
/// overflow.
pub const MAX_CONFIG_BYTES: u64 = 512 * 1024 * 1024;

/// `value` when the byte-limit setting `name` is within [`MAX_CONFIG_BYTES`], else why not.
fn byte_limit(name: &str, value: u64) -> Result<u64, String> {
    if value <= MAX_CONFIG_BYTES {
        Ok(value)
    } else {
        Err(format!(
            "{name} must be at most {MAX_CONFIG_BYTES} bytes (got {value})"
        ))
    }
}

/// A dialect's configuration from `ctx.config`, defaults for what is missing.
fn config<T: DeserializeOwned + Default>(
    config: &Result<Value, String>,
) -> Result<T, serde_json::Error> {
    match config {
        Ok(Value::Null) => Ok(T::default()),
        Ok(value) => T::deserialize(value),
        Err(reason) => Err(serde::de::Error::custom(reason)),
    }
}
