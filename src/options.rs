//! A toolkit's read options (`createAgentToolkit`'s, a `ToolCatalog` context's), read from
//! the caller's object and checked here alone, once: each property read once, in a fixed
//! order, so that a value checked is the value used; a getter or proxy trap that throws is
//! `INVALID_ARGUMENT` naming the option; a rule list copied element by element, by index
//! (never through its iterator or its species, which the caller controls), at most
//! [`MAX_RULES`] long. The rules compiled from the same options are shared ([`compiled`]).

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::{FnArgs, FromNapiValue, Function, JsObjectValue, Object};
use napi::{Env, Unknown, ValueType};
use napi_derive::napi;

use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::media::MediaLimits;
use agent_read_file_engine::policy::{Policy, PolicyRules, defaults};
use agent_read_file_engine::{MIN_CONTENT_BUDGET, TokenBudget, Tokenizer};

use crate::call::Rules;
use crate::convert::{safe_integer, type_of};
use crate::js;

/// The most rules a list may hold: a bound for a proxy that claims any length.
const MAX_RULES: u32 = 100_000;

/// A toolkit's `maxReadTokens` when absent: 25,000 tokens, one eighth of a 200k-token
/// context (about 2,000 lines of code, or 100 KB of English), what Claude Code's read gives.
const DEFAULT_READ_TOKENS: u32 = 25_000;

/// The smallest `maxReadTokens`: room for a header, a closing line and some lines.
#[napi]
pub const MIN_READ_TOKENS: u32 = 1000;

/// The rules a toolkit refuses unless told otherwise (`DEFAULT_DENY`): secrets an agent has
/// no business sending to a model, and their copies.
#[napi]
pub fn default_deny_rules() -> Vec<String> {
    defaults::default_deny()
}

/// The ignore files a toolkit obeys unless told otherwise (`IGNORE_FILES`).
#[napi]
pub fn ignore_file_names() -> Vec<String> {
    defaults::IGNORE_FILES.map(str::to_owned).to_vec()
}

/// Whose options these are: a toolkit's (its reads are a model's: files of any size, and
/// [`DEFAULT_READ_TOKENS`] a read, by default; `numbered`: whether each line costs a gutter
/// in what the model is given), or a `ToolCatalog` context's (the specification's defaults:
/// 1 MiB, no token budget).
#[derive(Clone, Copy)]
pub(crate) enum Owner {
    Toolkit { numbered: bool },
    Context,
}

impl Owner {
    /// How errors name the options object.
    fn name(self) -> &'static str {
        match self {
            Owner::Toolkit { .. } => "options",
            Owner::Context => "ctx",
        }
    }
}

/// The read options of an options object, as read and checked: what the rules are
/// compiled from, and the key under which they are shared.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ReadOptionValues {
    default_deny: bool,
    deny: Vec<String>,
    allow: Vec<String>,
    /// `None`: [`defaults::IGNORE_FILES`].
    ignore_files: Option<Vec<String>>,
    max_content_bytes: Option<u32>,
    /// `u64::MAX`: `Infinity`.
    max_file_bytes: Option<u64>,
    max_batch_content_bytes: Option<u32>,
    media: MediaValues,
    /// The budget's tokens, tokenizer and gutter; `None`: no budget.
    tokens: Option<(u32, Tokenizer, bool)>,
}

/// `options.media`'s limits, each as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct MediaValues {
    max_file_bytes: Option<u64>,
    max_image_edge: Option<u64>,
    max_image_pixels: Option<u64>,
    max_image_bytes: Option<u64>,
    max_images: Option<u64>,
}

/// The rules of `options` (an object; `owner` says whose), read and checked here, compiled,
/// or shared with the toolkits that had the same options; else the error, and what
/// JavaScript threw when an option could not be read (its `cause`).
pub(crate) fn rules_of<'env>(
    env: &'env Env,
    options: &Unknown<'env>,
    owner: Owner,
) -> Result<Arc<Rules>, (ReadFileError, Option<Unknown<'env>>)> {
    let object = OptionsObject::new(env, options, owner.name()).map_err(|error| (error, None))?;
    let values = object
        .read_values(owner)
        .map_err(|error| (error, object.cause.take()))?;
    compiled(values).map_err(|error| (error, None))
}

/// Rules compiled, by the options they were compiled from; the oldest goes past
/// [`SHARED_RULES`]. Most toolkits of a process have the same options.
static COMPILED: Mutex<VecDeque<(ReadOptionValues, Arc<Rules>)>> = Mutex::new(VecDeque::new());

/// How many compiled rules are kept for sharing.
const SHARED_RULES: usize = 32;

fn compiled(values: ReadOptionValues) -> Result<Arc<Rules>, ReadFileError> {
    let lock = || COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, rules)) = lock().iter().find(|(key, _)| *key == values) {
        return Ok(rules.clone());
    }
    let rules = Arc::new(compile(&values)?);
    let mut shared = lock();
    if shared.len() >= SHARED_RULES {
        shared.pop_front();
    }
    shared.push_back((values, rules.clone()));
    Ok(rules)
}

fn compile(values: &ReadOptionValues) -> Result<Rules, ReadFileError> {
    let default_deny = match values.default_deny {
        true => defaults::default_deny(),
        false => Vec::new(),
    };
    let ignore_files = values
        .ignore_files
        .clone()
        .unwrap_or_else(|| defaults::IGNORE_FILES.map(str::to_owned).to_vec());
    let policy = Policy::new(PolicyRules {
        default_deny: &default_deny,
        deny: &values.deny,
        allow: &values.allow,
        ignore_files: &ignore_files,
    })?;
    Ok(Rules {
        policy: Some(policy),
        max_content_bytes: values.max_content_bytes.map(|bytes| bytes as usize),
        max_file_bytes: values.max_file_bytes,
        max_batch_content_bytes: values.max_batch_content_bytes.map(|bytes| bytes as usize),
        media: media_limits(&values.media),
        max_tokens: values
            .tokens
            .map(|(tokens, tokenizer, numbered)| TokenBudget {
                tokens: tokens as usize,
                tokenizer,
                numbered,
            }),
    })
}

fn media_limits(media: &MediaValues) -> MediaLimits {
    let defaults = MediaLimits::default();
    let mut limits = defaults;
    limits.max_file_bytes = media.max_file_bytes.unwrap_or(defaults.max_file_bytes);
    limits.max_images = media.max_images.map_or(defaults.max_images, |n| n as u32);
    let image = &mut limits.image;
    image.max_edge = media.max_image_edge.map_or(image.max_edge, |n| n as u32);
    image.max_pixels = media.max_image_pixels.unwrap_or(image.max_pixels);
    image.max_base64_bytes = media
        .max_image_bytes
        .map_or(image.max_base64_bytes, |n| n as usize);
    limits
}

/// The limits `options.media` may set, with their bounds.
const MEDIA_LIMITS: [(&str, u64, u64); 5] = [
    ("maxFileBytes", 1, MAX_SAFE_INTEGER),
    ("maxImageEdge", 16, U32_MAX),
    ("maxImagePixels", 256, MAX_SAFE_INTEGER),
    ("maxImageBytes", 1024, MAX_SAFE_INTEGER),
    ("maxImages", 0, U32_MAX),
];

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
const U32_MAX: u64 = u32::MAX as u64;

/// An options object, its properties read one at a time.
struct OptionsObject<'env> {
    env: &'env Env,
    object: Object<'env>,
    /// How errors name the object (`options`, `ctx`, `options.media`).
    owner: String,
    /// What JavaScript threw when a property could not be read.
    cause: Cell<Option<Unknown<'env>>>,
}

impl<'env> OptionsObject<'env> {
    /// `value` as an options object named `owner`; anything but an object is
    /// `INVALID_ARGUMENT`.
    fn new(
        env: &'env Env,
        value: &Unknown<'env>,
        owner: &str,
    ) -> Result<OptionsObject<'env>, ReadFileError> {
        let object = match value.get_type() {
            Ok(ValueType::Object) => Object::from_unknown(*value).ok(),
            _ => None,
        };
        let Some(object) = object else {
            let reason = format!("{owner} must be an object (got {})", typeof_name(value));
            return Err(invalid(owner, reason));
        };
        let owner = owner.to_owned();
        let cause = Cell::new(None);
        Ok(OptionsObject {
            env,
            object,
            owner,
            cause,
        })
    }

    /// The values of the read options, in the order they have always been read.
    fn read_values(&self, owner: Owner) -> Result<ReadOptionValues, ReadFileError> {
        let default_deny = self.default_deny()?;
        let deny = self.rule_list("deny")?;
        let allow = self.rule_list("allow")?;
        let ignore_files = self.ignore_files()?;
        let max_file_bytes = match (self.file_limit()?, owner) {
            (None, Owner::Toolkit { .. }) => Some(u64::MAX),
            (limit, _) => limit,
        };
        let budget = [MIN_CONTENT_BUDGET as u64, U32_MAX];
        let max_content_bytes = self.integer("maxContentBytes", budget)?;
        let max_batch_content_bytes = self.integer("maxBatchContentBytes", budget)?;
        let media = self.media()?;
        let tokens = self.token_budget(owner)?;
        Ok(ReadOptionValues {
            default_deny,
            deny,
            allow,
            ignore_files,
            max_content_bytes: max_content_bytes.map(|bytes| bytes as u32),
            max_file_bytes,
            max_batch_content_bytes: max_batch_content_bytes.map(|bytes| bytes as u32),
            media,
            tokens,
        })
    }

    /// `object[name]`, read once; `INVALID_ARGUMENT` at `name` if reading throws.
    fn read(&self, name: &str) -> Result<Unknown<'env>, ReadFileError> {
        let read = self.object.get_named_property::<Unknown>(name);
        self.caught(read)
            .map_err(|()| self.unreadable(name, &format!("{}.{name}", self.owner)))
    }

    /// `read`'s value, or, when JavaScript threw, `Err` and what it threw kept as the cause.
    fn caught<T>(&self, read: napi::Result<T>) -> Result<T, ()> {
        read.map_err(|_| self.cause.set(js::take_exception(self.env)))
    }

    fn unreadable(&self, path: &str, label: &str) -> ReadFileError {
        let reason = format!("{label} could not be read (a getter or proxy trap threw)");
        invalid(path, reason)
    }

    /// `defaultDeny`: whether [`defaults::default_deny`] applies (`true` when absent).
    fn default_deny(&self) -> Result<bool, ReadFileError> {
        let value = self.read("defaultDeny")?;
        match value.get_type() {
            Ok(ValueType::Undefined) => Ok(true),
            Ok(ValueType::Boolean) => Ok(bool::from_unknown(value).unwrap_or(true)),
            _ => Err(invalid(
                "defaultDeny",
                format!(
                    "{}.defaultDeny must be true or false (got {})",
                    self.owner,
                    typeof_name(&value)
                ),
            )),
        }
    }

    /// A rule list (`deny`, `allow`): empty when absent, else a copy.
    fn rule_list(&self, name: &str) -> Result<Vec<String>, ReadFileError> {
        let value = self.read(name)?;
        if matches!(value.get_type(), Ok(ValueType::Undefined)) {
            return Ok(Vec::new());
        }
        self.string_list(&value, name, "gitignore-style rules")
    }

    /// `ignoreFiles`: `None` for the defaults (`true`, or absent), none for `false`, else
    /// exactly the names given.
    fn ignore_files(&self) -> Result<Option<Vec<String>>, ReadFileError> {
        let value = self.read("ignoreFiles")?;
        match value.get_type() {
            Ok(ValueType::Undefined) => Ok(None),
            Ok(ValueType::Boolean) => match bool::from_unknown(value) {
                Ok(false) => Ok(Some(Vec::new())),
                _ => Ok(None),
            },
            Ok(ValueType::Object) => self
                .string_list(&value, "ignoreFiles", "file names")
                .map(Some),
            _ => Err(invalid(
                "ignoreFiles",
                format!(
                    "{}.ignoreFiles must be true, false or an array of file names (got {})",
                    self.owner,
                    typeof_name(&value)
                ),
            )),
        }
    }

    /// A copy of `list` (the option `name`), an array of strings: its length and each
    /// element read once, by index.
    fn string_list(
        &self,
        list: &Unknown,
        name: &str,
        what: &str,
    ) -> Result<Vec<String>, ReadFileError> {
        let label = format!("{}.{name}", self.owner);
        let wrong = |got: &str| {
            invalid(
                name,
                format!("{label} must be an array of {what} (got {got})"),
            )
        };
        match self.is_array(list) {
            Err(()) => return Err(self.unreadable(name, &label)),
            Ok(false) => return Err(wrong(typeof_name(list))),
            Ok(true) => {}
        }
        let array = Object::from_unknown(*list).map_err(|_| wrong(typeof_name(list)))?;
        let length = self
            .caught(array.get_named_property::<Unknown>("length"))
            .map_err(|()| self.unreadable(name, &format!("{label}.length")))?;
        let length =
            list_length(&length).map_err(|reason| invalid(name, format!("{label}{reason}")))?;
        let mut copy = Vec::with_capacity(length as usize);
        for index in 0..length {
            let element = self
                .caught(array.get_element::<Unknown>(index))
                .map_err(|()| self.unreadable(name, &format!("{label}[{index}]")))?;
            match element.get_type() {
                Ok(ValueType::String) => copy.push(
                    String::from_unknown(element)
                        .map_err(|_| wrong("an array with a non-string"))?,
                ),
                _ => return Err(wrong("an array with a non-string")),
            }
        }
        Ok(copy)
    }

    /// `Array.isArray(value)` as JavaScript answers it (a proxy of an array is one); `Err`
    /// when it throws (a revoked proxy).
    fn is_array(&self, value: &Unknown) -> Result<bool, ()> {
        let is_array = || -> napi::Result<bool> {
            // `Array` is a function: read it as any value, used as the `this` of the call.
            let array = self
                .env
                .get_global()?
                .get_named_property::<Unknown>("Array")?;
            let array = Object::from_unknown(array)?;
            let is_array: Function<FnArgs<(Unknown,)>, bool> =
                array.get_named_property("isArray")?;
            is_array.apply(array, (*value,).into())
        };
        self.caught(is_array())
    }

    /// `maxFileBytes`: absent, a positive safe integer, or `Infinity` (`u64::MAX`).
    fn file_limit(&self) -> Result<Option<u64>, ReadFileError> {
        let value = self.read("maxFileBytes")?;
        match given(&value) {
            Given::Absent => Ok(None),
            Given::Number(number) if number == f64::INFINITY => Ok(Some(u64::MAX)),
            Given::Number(number) => match safe_integer(number) {
                Some(limit) if limit >= 1 => Ok(Some(limit as u64)),
                _ => Err(self.file_limit_error(&js_number(number))),
            },
            Given::Other(got) => Err(self.file_limit_error(got)),
        }
    }

    fn file_limit_error(&self, got: &str) -> ReadFileError {
        let owner = &self.owner;
        let reason =
            format!("{owner}.maxFileBytes must be a positive safe integer or Infinity (got {got})");
        invalid("maxFileBytes", reason)
    }

    /// The option `name`: absent, or an integer within `[min, max]`.
    fn integer(&self, name: &str, bounds: [u64; 2]) -> Result<Option<u64>, ReadFileError> {
        self.integer_at(name, bounds, name)
    }

    /// [`OptionsObject::integer`], its errors at `path`.
    fn integer_at(
        &self,
        name: &str,
        [min, max]: [u64; 2],
        path: &str,
    ) -> Result<Option<u64>, ReadFileError> {
        let value = self.read(name).map_err(|error| error.for_path(path))?;
        let got = match given(&value) {
            Given::Absent => return Ok(None),
            Given::Number(number) => match safe_integer(number) {
                Some(integer) if (min as i64..=max as i64).contains(&integer) => {
                    return Ok(Some(integer as u64));
                }
                _ => js_number(number),
            },
            Given::Other(got) => got.to_owned(),
        };
        let owner = &self.owner;
        let reason = format!("{owner}.{name} must be an integer from {min} to {max} (got {got})");
        Err(invalid(path, reason))
    }

    /// `media`: each limit given, within its bounds.
    fn media(&self) -> Result<MediaValues, ReadFileError> {
        let value = self.read("media")?;
        if matches!(value.get_type(), Ok(ValueType::Undefined)) {
            return Ok(MediaValues::default());
        }
        let owner = format!("{}.media", self.owner);
        let media = OptionsObject::new(self.env, &value, &owner).map_err(|_| {
            let got = typeof_name(&value);
            let reason = format!(
                "{owner} must be an object of limits like {{ maxImageEdge: 1568 }} (got {got})"
            );
            invalid("media", reason)
        })?;
        let mut limits = [None; MEDIA_LIMITS.len()];
        for (limit, (name, min, max)) in limits.iter_mut().zip(MEDIA_LIMITS) {
            *limit = media.integer_at(name, [min, max], "media")?;
        }
        let [
            max_file_bytes,
            max_image_edge,
            max_image_pixels,
            max_image_bytes,
            max_images,
        ] = limits;
        Ok(MediaValues {
            max_file_bytes,
            max_image_edge,
            max_image_pixels,
            max_image_bytes,
            max_images,
        })
    }

    /// `maxReadTokens` and `tokenizer`: the budget of tokens, with the gutter `owner`
    /// counts; `None` for none (`Infinity`, or absent for a context's).
    fn token_budget(&self, owner: Owner) -> Result<Option<(u32, Tokenizer, bool)>, ReadFileError> {
        let limit = self.read("maxReadTokens")?;
        let named = self.read("tokenizer")?;
        let tokenizer = match named.get_type() {
            Ok(ValueType::Undefined) => Tokenizer::O200kBase,
            _ => self.tokenizer(&named)?,
        };
        let (numbered, fallback) = match owner {
            Owner::Toolkit { numbered } => (numbered, Some(DEFAULT_READ_TOKENS)),
            Owner::Context => (true, None),
        };
        let limit = match given(&limit) {
            Given::Absent => return Ok(fallback.map(|tokens| (tokens, tokenizer, numbered))),
            Given::Number(number) if number == f64::INFINITY => return Ok(None),
            Given::Number(number) => match safe_integer(number) {
                Some(tokens) if (i64::from(MIN_READ_TOKENS)..=U32_MAX as i64).contains(&tokens) => {
                    return Ok(Some((tokens as u32, tokenizer, numbered)));
                }
                _ => js_number(number),
            },
            Given::Other(got) => got.to_owned(),
        };
        let owner = &self.owner;
        let reason = format!(
            "{owner}.maxReadTokens must be an integer from {MIN_READ_TOKENS} to 4294967295, or Infinity (got {limit})"
        );
        Err(invalid("maxReadTokens", reason))
    }

    fn tokenizer(&self, named: &Unknown) -> Result<Tokenizer, ReadFileError> {
        let name = match named.get_type() {
            Ok(ValueType::String) => String::from_unknown(*named).ok(),
            _ => None,
        };
        if let Some(tokenizer) = name.as_deref().and_then(tokenizer_of) {
            return Ok(tokenizer);
        }
        let got = match &name {
            Some(name) => serde_json::to_string(name).unwrap_or_default(),
            None => typeof_name(named).to_owned(),
        };
        let owner = &self.owner;
        let reason = format!("{owner}.tokenizer must be 'o200k_base' or 'cl100k_base' (got {got})");
        Err(invalid("tokenizer", reason))
    }
}

/// The tokenizer of its name (`estimateTokens`'s argument), else `INVALID_ARGUMENT`.
pub(crate) fn tokenizer_named(name: &str) -> Result<Tokenizer, ReadFileError> {
    tokenizer_of(name).ok_or_else(|| {
        let reason = format!("tokenizer must be 'o200k_base' or 'cl100k_base' (got {name:?})");
        invalid("tokenizer", reason)
    })
}

/// The tokenizer of its name: `o200k_base` or `cl100k_base`.
fn tokenizer_of(name: &str) -> Option<Tokenizer> {
    match name {
        "o200k_base" => Some(Tokenizer::O200kBase),
        "cl100k_base" => Some(Tokenizer::Cl100kBase),
        _ => None,
    }
}

/// A list's `length` when it is one an array can have and at most [`MAX_RULES`]; else the
/// end of the reason it is not.
fn list_length(length: &Unknown) -> Result<u32, String> {
    let not_a_length = || ".length is not the length of an array".to_owned();
    let number = match length.get_type() {
        Ok(ValueType::Number) => f64::from_unknown(*length).map_err(|_| not_a_length())?,
        _ => return Err(not_a_length()),
    };
    if !number.is_finite() || number.fract() != 0.0 || number < 0.0 {
        return Err(not_a_length());
    }
    if number > f64::from(MAX_RULES) {
        let length = js_number(number);
        return Err(format!(" has {length} rules, more than {MAX_RULES}"));
    }
    Ok(number as u32)
}

/// What an option holds, as its checks see it.
enum Given {
    /// Nothing (`undefined`).
    Absent,
    Number(f64),
    /// Anything else: its `typeof` (`null` as such).
    Other(&'static str),
}

fn given(value: &Unknown) -> Given {
    match value.get_type() {
        Ok(ValueType::Undefined) => Given::Absent,
        Ok(ValueType::Number) => {
            f64::from_unknown(*value).map_or(Given::Other("number"), Given::Number)
        }
        _ => Given::Other(typeof_name(value)),
    }
}

/// JavaScript's `typeof value`, `null` named as such (as the messages name it).
fn typeof_name(value: &Unknown) -> &'static str {
    match type_of(value) {
        "array" => "object",
        name => name,
    }
}

/// `number` as JavaScript's `String(number)` spells it.
fn js_number(number: f64) -> String {
    if number.is_nan() {
        return "NaN".to_owned();
    }
    if number.is_infinite() {
        return if number > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        }
        .to_owned();
    }
    let magnitude = number.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        // `1e21` -> `1e+21`, `1e-7` as it is.
        let text = format!("{number:e}");
        return match text.split_once('e') {
            Some((digits, exponent)) if !exponent.starts_with('-') => {
                format!("{digits}e+{exponent}")
            }
            _ => text,
        };
    }
    // Rust spells -0 `-0` and JavaScript `0`; integers have no `.0` in either.
    format!("{}", number + 0.0)
}

fn invalid(path: &str, reason: String) -> ReadFileError {
    ReadFileError::new(ErrorCode::InvalidArgument, path, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_spelt_as_javascript_spells_them() {
        let cases = [
            (5.0, "5"),
            (-1.0, "-1"),
            (1.5, "1.5"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-7, "1e-7"),
            (123_456_789_012.0, "123456789012"),
        ];
        for (number, spelt) in cases {
            assert_eq!(js_number(number), spelt, "{number}");
        }
    }
}
