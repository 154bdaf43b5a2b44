//! The toolkit's native side (`createAgentToolkit`, `ToolCatalog`): a workspace root
//! held open, its compiled deny and allow rules and content budget, its read ledger, and
//! the line indexes of the large files it read.

use std::sync::Arc;

use napi::bindgen_prelude::Either;
use napi::{Env, Unknown};
use napi_derive::napi;

use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::media::MediaLimits;
use agent_read_file_engine::policy::{Policy, PolicyRules};
use agent_read_file_engine::request::Argument;
use agent_read_file_engine::sandbox::Root;
use agent_read_file_engine::{Ledger, LineIndexCache, TokenBudget, Tokenizer};

use crate::JsFileVersion;
use crate::call::{ReadCall, RootArg, Rules};
use crate::convert::{Fields, requested_path, root_path, safe_integer, string_or_type, throwable};
use crate::mcp_answer::{McpAnswer, McpAnswerOptions};
use crate::media::MediaOptions;
use crate::model_text::{ModelTextOptions, text_options};
use crate::schedule;

/// A workspace root held open until [`Workspace::close`] (`createAgentToolkit`).
#[napi]
pub struct Workspace {
    /// `None` once closed. Reads already on the pool keep their own handle until they end.
    root: Option<Arc<Root>>,
    rules: Arc<Rules>,
    /// What this toolkit's successful reads saw, by path.
    ledger: Arc<Ledger>,
    /// The line indexes of the files over 1 MiB it read last.
    line_indexes: Arc<LineIndexCache>,
}

/// A toolkit's compiled read options: its deny and allow rules, the ignore files it obeys,
/// content budget and file size limit.
#[napi]
pub struct ReadPolicy {
    rules: Arc<Rules>,
}

#[napi]
impl ReadPolicy {
    /// Compiles gitignore-syntax rules relative to the workspace root: `defaultDeny` (the
    /// default list, or none), `deny` (added to it), `allow` (re-admits what any of them or
    /// an ignore file denies), and `ignoreFiles`, the names of the workspace's ignore files
    /// obeyed in every directory. Throws `INVALID_ARGUMENT` for a rule that is not valid or a
    /// name that is not a plain file name. `maxContentBytes` (checked
    /// by the caller to be an integer of at least 128) bounds every `content`;
    /// `maxFileBytes` (a positive safe integer or `Infinity`, else `INVALID_ARGUMENT`) is
    /// the largest file read, the specification's `MAX_FILE_BYTES` when absent;
    /// `maxBatchContentBytes` (checked by the caller like `maxContentBytes`) is what one
    /// `readFiles` call returns at most, all files together, `MAX_BATCH_CONTENT_BYTES` when
    /// absent. `media` (each limit checked by the caller) bounds the toolkit's media reads;
    /// `tokens` is the budget of tokens of each read's text, none when absent.
    #[napi(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        env: Env,
        default_deny: Vec<String>,
        deny: Vec<String>,
        allow: Vec<String>,
        ignore_files: Vec<String>,
        max_content_bytes: Option<u32>,
        max_file_bytes: Option<f64>,
        max_batch_content_bytes: Option<u32>,
        media: Option<MediaOptions>,
        tokens: Option<TokenOptions>,
    ) -> napi::Result<Self> {
        let rules = PolicyRules {
            default_deny: &default_deny,
            deny: &deny,
            allow: &allow,
            ignore_files: &ignore_files,
        };
        let policy = Policy::new(rules).map_err(|error| throwable(&env, error))?;
        let max_file_bytes = max_file_bytes
            .map(file_size_limit)
            .transpose()
            .map_err(|error| throwable(&env, error))?;
        let rules = Rules {
            policy: Some(policy),
            max_content_bytes: max_content_bytes.map(|bytes| bytes as usize),
            max_file_bytes,
            max_batch_content_bytes: max_batch_content_bytes.map(|bytes| bytes as usize),
            media: media.map(MediaLimits::from).unwrap_or_default(),
            max_tokens: tokens
                .map(TokenBudget::try_from)
                .transpose()
                .map_err(|error| throwable(&env, error))?,
        };
        Ok(ReadPolicy {
            rules: Arc::new(rules),
        })
    }
}

/// A toolkit's budget of tokens for each read (`maxReadTokens`, `tokenizer`), as checked by
/// the caller.
#[napi(object)]
pub struct TokenOptions {
    /// The most tokens of text one read gives a model.
    pub max_read_tokens: u32,
    /// The tokenizer whose counts are estimated: `'o200k_base'` or `'cl100k_base'`.
    pub tokenizer: String,
    /// Whether each line costs a gutter beside its text (line numbers, or JSON's escapes).
    pub numbered: bool,
}

impl TryFrom<TokenOptions> for TokenBudget {
    type Error = ReadFileError;

    fn try_from(options: TokenOptions) -> Result<TokenBudget, ReadFileError> {
        Ok(TokenBudget {
            tokens: options.max_read_tokens as usize,
            tokenizer: tokenizer_named(&options.tokenizer)?,
            numbered: options.numbered,
        })
    }
}

/// The tokenizer of its name: `o200k_base` or `cl100k_base`, else `INVALID_ARGUMENT`.
pub(crate) fn tokenizer_named(name: &str) -> Result<Tokenizer, ReadFileError> {
    match name {
        "o200k_base" => Ok(Tokenizer::O200kBase),
        "cl100k_base" => Ok(Tokenizer::Cl100kBase),
        _ => Err(ReadFileError::new(
            ErrorCode::InvalidArgument,
            "tokenizer",
            format!("tokenizer must be 'o200k_base' or 'cl100k_base' (got {name:?})"),
        )),
    }
}

/// `maxFileBytes` as a limit in bytes: `Infinity` is no limit; anything but a positive
/// safe integer is `INVALID_ARGUMENT`.
fn file_size_limit(bytes: f64) -> Result<u64, ReadFileError> {
    if bytes == f64::INFINITY {
        return Ok(u64::MAX);
    }
    match safe_integer(bytes).and_then(|bytes| u64::try_from(bytes).ok()) {
        Some(limit) if limit >= 1 => Ok(limit),
        _ => Err(ReadFileError::new(
            ErrorCode::InvalidArgument,
            "maxFileBytes",
            format!("maxFileBytes must be a positive safe integer or Infinity (got {bytes})"),
        )),
    }
}

/// `readFile` under a toolkit's `policy` (`ToolCatalog.read_file.execute`).
#[napi(
    js_name = "readFileWithPolicy",
    ts_args_type = "workspaceRoot: string, input: ReadFileInput, signal: AbortSignal | undefined, policy: ReadPolicy",
    ts_return_type = "Promise<ReadFileOutput>"
)]
pub fn read_file_with_policy<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    input: Unknown,
    signal: Option<Unknown>,
    policy: &ReadPolicy,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    let call = ReadCall::from_js(root, input, Fields::Toolkit)
        .map(|call| call.with_rules(policy.rules.clone()));
    schedule::enqueue(env, call, signal)
}

#[napi]
impl Workspace {
    /// Opens `workspaceRoot` (an absolute path to a directory) once; its reads follow
    /// `policy`.
    #[napi(
        constructor,
        ts_args_type = "workspaceRoot: string, policy: ReadPolicy"
    )]
    pub fn new(env: Env, workspace_root: Unknown, policy: &ReadPolicy) -> napi::Result<Self> {
        let path = root_path(workspace_root).map_err(|error| throwable(&env, error))?;
        let root = Root::open(&path).map_err(|error| throwable(&env, error))?;
        Ok(Workspace {
            root: Some(Arc::new(root)),
            rules: policy.rules.clone(),
            ledger: Arc::default(),
            line_indexes: Arc::default(),
        })
    }

    /// `readFile` beneath this workspace's root.
    #[napi(
        ts_args_type = "input: ReadFileInput, signal?: AbortSignal",
        ts_return_type = "Promise<ReadFileOutput>"
    )]
    pub fn read_file<'env>(
        &self,
        env: &'env Env,
        input: Unknown,
        signal: Option<Unknown>,
    ) -> napi::Result<Unknown<'env>> {
        schedule::enqueue(env, self.call(input), signal)
    }

    /// `agent-read-file mcp`'s answer to a plain `read_file` call of `input` with JSON-RPC
    /// `id`, read as `view` reads it: for a text window, the response line (a
    /// newline at its end) the MCP SDK's server would write for `runToolCall`'s text answer;
    /// for an image, a notebook or a PDF, its `MediaOutput` (answer it as `runToolCall`
    /// does); `null` for an `id` or `options` number not spelt here (answer the call
    /// through `runToolCall`). Recorded in the ledger; rejects as `view` does. Read during
    /// the call when the kernel has a text file in memory (its promise is settled when it
    /// is returned), else as `view` reads.
    #[napi(
        ts_args_type = "input: ReadFileInput, id: string | number, options: McpAnswerOptions, signal?: AbortSignal",
        ts_return_type = "Promise<string | MediaOutput | null>"
    )]
    pub fn mcp_answer<'env>(
        &self,
        env: &'env Env,
        input: Unknown,
        id: Either<String, f64>,
        options: McpAnswerOptions,
        signal: Option<Unknown>,
    ) -> napi::Result<Unknown<'env>> {
        let answer = McpAnswer::new(id, options);
        schedule::enqueue_to(
            env,
            self.view_call(input).map(|call| call.answered_as(answer)),
            signal,
            schedule::Route::AtOnce,
        )
    }

    /// A toolkit's `view` of `input`: a text window as `readFile` reads it, or, when the
    /// file's content is an image, a notebook or a PDF, its typed parts (`input.pages`: which
    /// pages or cells); recorded in the ledger. One call: the engine opens the file and
    /// decides by its bytes (a name that claims an image, a notebook or a PDF must be one).
    /// With `text`, a text window comes as `{ output, text }`, the model's text of it too, and
    /// a media answer as `{ output, frame }`, the text its parts are framed by.
    #[napi(
        ts_args_type = "input: ReadFileInput & { start_column?: number | null; pages?: string | null }, signal?: AbortSignal | undefined, text?: ModelTextOptions",
        ts_return_type = "Promise<ReadFileOutput | MediaOutput | { output: ReadFileOutput; text: string } | FramedMediaOutput>"
    )]
    pub fn view<'env>(
        &self,
        env: &'env Env,
        input: Unknown,
        signal: Option<Unknown>,
        text: Option<ModelTextOptions>,
    ) -> napi::Result<Unknown<'env>> {
        let call = self.view_call(input);
        let call = match text {
            Some(text) => call.map(|call| call.with_text(text_options(Some(&text)))),
            None => call,
        };
        schedule::enqueue(env, call, signal)
    }

    /// `readFileSync` beneath this workspace's root.
    #[napi(
        ts_args_type = "input: ReadFileInput",
        ts_return_type = "ReadFileOutput"
    )]
    pub fn read_file_sync<'env>(
        &self,
        env: &'env Env,
        input: Unknown,
    ) -> napi::Result<Unknown<'env>> {
        crate::run_sync(env, self.call(input))
    }

    /// Lets go of the root handle now; later reads fail with `INVALID_ARGUMENT` ("toolkit
    /// is closed"). Closing again does nothing.
    #[napi]
    pub fn close(&mut self) {
        self.root = None;
    }

    /// What this toolkit's last successful read of `path` saw (`path` in any spelling of
    /// the same workspace-relative path), or `null`. Throws `INVALID_ARGUMENT` for a
    /// path that is not a string, or once the toolkit is closed.
    #[napi(
        ts_args_type = "path: string",
        ts_return_type = "FileVersion | undefined"
    )]
    pub fn last_read(&self, env: Env, path: Unknown) -> napi::Result<Option<JsFileVersion>> {
        let root = self.open_root(&env, &path)?;
        let path = string_or_type(&path)
            .map_err(|got| throwable(&env, Argument::Path.wrong_kind("path", got)))?;
        let Ok(relative) = root.relative_path(&path) else {
            return Ok(None);
        };
        Ok(self.ledger.get(&relative).map(JsFileVersion::from))
    }

    /// `readFiles` beneath this workspace's root, under its policy, recorded in its ledger.
    #[napi(
        ts_args_type = "inputs: readonly ReadFileInput[], signal?: AbortSignal",
        ts_return_type = "Promise<Array<{ ok: true; output: ReadFileOutput } | { ok: false; error: { code: ReadFileErrorCode | 'POLICY_DENIED' | 'FILE_CHANGED'; message: string } }>>"
    )]
    pub fn read_files<'env>(
        &self,
        env: &'env Env,
        inputs: Unknown,
        signal: Option<Unknown>,
    ) -> napi::Result<Unknown<'env>> {
        let call = self.toolkit_call(
            || "readFiles".to_owned(),
            |root| ReadCall::many_from_js(Ok(root), inputs, Fields::Toolkit),
        );
        schedule::enqueue(env, call, signal)
    }

    /// The version of `path` now, under this toolkit's policy (see `fileVersion`); an image,
    /// notebook or PDF over the text size limit has the version its `view` recorded.
    #[napi(
        ts_args_type = "path: string, signal?: AbortSignal",
        ts_return_type = "Promise<FileVersion>"
    )]
    pub fn file_version<'env>(
        &self,
        env: &'env Env,
        path: Unknown,
        signal: Option<Unknown>,
    ) -> napi::Result<Unknown<'env>> {
        let call = self.toolkit_call(
            || string_or_type(&path).unwrap_or_default(),
            |root| ReadCall::version_from_js(Ok(root), path).map(ReadCall::with_media_versions),
        );
        schedule::enqueue(env, call, signal)
    }

    fn open_root(&self, env: &Env, path: &Unknown) -> napi::Result<Arc<Root>> {
        match &self.root {
            Some(root) => Ok(root.clone()),
            None => {
                let path = string_or_type(path).unwrap_or_default();
                Err(throwable(env, closed_error(&path)))
            }
        }
    }

    /// The `readFile` call of `input`, or (before any check of `input`) the error of a
    /// closed toolkit.
    fn call(&self, input: Unknown) -> Result<ReadCall, ReadFileError> {
        self.toolkit_call(
            || requested_path(&input),
            |root| ReadCall::from_js(Ok(root), input, Fields::Toolkit),
        )
    }

    /// The `view` call of `input`, or (before any check of `input`) the error of a closed
    /// toolkit.
    fn view_call(&self, input: Unknown) -> Result<ReadCall, ReadFileError> {
        self.toolkit_call(
            || requested_path(&input),
            |root| ReadCall::view_from_js(Ok(root), input),
        )
    }

    /// The call `make` builds beneath this toolkit's root, with its rules, ledger and line
    /// indexes; or, once the toolkit is closed, the error about `path_of_error()`.
    fn toolkit_call(
        &self,
        path_of_error: impl FnOnce() -> String,
        make: impl FnOnce(RootArg) -> Result<ReadCall, ReadFileError>,
    ) -> Result<ReadCall, ReadFileError> {
        let Some(root) = &self.root else {
            return Err(closed_error(&path_of_error()));
        };
        make(RootArg::Open(root.clone())).map(|call| {
            call.with_rules(self.rules.clone())
                .with_ledger(self.ledger.clone())
                .with_line_indexes(self.line_indexes.clone())
        })
    }
}

/// The error of every call on a closed toolkit.
pub(crate) fn closed_error(path: &str) -> ReadFileError {
    ReadFileError::new(
        ErrorCode::InvalidArgument,
        path,
        "the toolkit is closed (close() was called); create another with createAgentToolkit",
    )
}
