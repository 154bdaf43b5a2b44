//! Other agents' read tools as dialects of the same engine. Each dialect is argument
//! mapping plus a renderer: it parses the model's arguments its tool's way, asks the
//! shared sandbox and file guard, through the [`Reader`] its caller hands it (which says
//! whether reads may wait), for the bytes beneath the root its caller opened, splits lines with the shared line model ([`crate::window`]),
//! selects them, renders them with [`crate::render`], and answers in its tool's shape: a
//! typed [`Answer`] that serializes to the object the tool returns.

pub mod aintern;
pub mod codex;
pub mod codex_indentation;
pub mod forge;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ReadFileError;
use crate::sandbox::Root;
use crate::source::Reader;

/// The one list of the dialects: for each, its [`Dialect`] variant, its name, and its
/// module (which has an `Answer` type and an `execute(root, call, reader)` function). Everything
/// else that names the dialects (the [`Dialect`] enum, [`Answer`], the binding's
/// `DialectName`, and from that the JavaScript side) is generated from this list by
/// handing it to `$callback`, a macro taking `$(Variant = "name" => module,)*`.
#[macro_export]
macro_rules! dialect_list {
    ($callback:ident) => {
        $callback! {
            Codex = "codex" => codex,
            Forge = "forge" => forge,
            AIntern = "aintern" => aintern,
        }
    };
}

/// Declares [`Dialect`] and [`Answer`] from [`dialect_list!`].
macro_rules! declare_dialects {
    ($($variant:ident = $name:literal => $module:ident,)*) => {
        /// The dialects by name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Dialect {
            $($variant,)*
        }

        impl Dialect {
            /// Every dialect, in the order of [`dialect_list!`].
            pub const ALL: &[Dialect] = &[$(Dialect::$variant,)*];

            /// The dialect's name, as JavaScript calls it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Dialect::$variant => $name,)*
                }
            }

            /// Runs the call beneath `root`, the opened workspace root or why it could
            /// not be opened, which each dialect reports in its own shape where its tool
            /// would, reading through `reader`. `Err` only for a dialect whose tool reports
            /// failures as errors (Forge); Codex and AIntern answer every failure in their
            /// result shape.
            pub fn execute(
                self,
                root: Result<&Root, ReadFileError>,
                call: &DialectCall,
                reader: &Reader,
            ) -> Result<Answer, ReadFileError> {
                match self {
                    $(Dialect::$variant => {
                        $module::execute(root, call, reader).map(Answer::$variant)
                    })*
                }
            }
        }

        /// A dialect's answer, serialized as the bare object its tool returns.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Answer {
            $($variant($module::Answer),)*
        }
    };
}

crate::dialect_list!(declare_dialects);

impl Dialect {
    /// The dialect called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|dialect| dialect.name() == name)
    }
}

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

/// A call of one dialect's tool, apart from the root it reads beneath: the model's
/// arguments and the toolkit's configuration.
#[derive(Clone, Debug)]
pub struct DialectCall {
    pub args: Args,
    /// `ctx.config` (`Value::Null` when absent), or why it could not be read as JSON (a
    /// throwing getter, a function), which the dialect reports as an invalid configuration.
    pub config: Result<Value, String>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_variants_match_both_ways() {
        assert_eq!(Dialect::ALL.len(), 3);
        for &dialect in Dialect::ALL {
            assert_eq!(Dialect::from_name(dialect.name()), Some(dialect));
        }
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        assert_eq!(names, ["codex", "forge", "aintern"]);
        assert_eq!(Dialect::from_name("Codex"), None);
        assert_eq!(Dialect::from_name(""), None);
    }
}
