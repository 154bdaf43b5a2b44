//! The toolkit's native side (`createAgentToolkit`, `ToolCatalog`): a workspace root
//! held open, its compiled deny and allow rules and content budget, its read ledger, and
//! the line indexes of the large files it read.

use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::Either;
use napi::{Env, Unknown};
use napi_derive::napi;

use agent_read_file_engine::code::OutlineCache;
use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::read_memory::ReadMemory;
use agent_read_file_engine::request::Argument;
use agent_read_file_engine::sandbox::Root;
use agent_read_file_engine::{Ledger, LineIndexCache};

use crate::JsFileVersion;
use crate::call::{ReadCall, RootArg, Rules};
use crate::convert::{
    Fields, requested_path, root_path, string_or_type, throwable, throwable_caused,
};
use crate::mcp_answer::{McpAnswer, McpAnswerOptions};
use crate::model_text::{ModelTextOptions, text_options};
use crate::options::{self, Owner};
use crate::output::literal::Literal;
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
    /// The lines its model was given, with `dedupeReads`.
    memory: Option<Arc<Mutex<ReadMemory>>>,
    /// The outlines of the files it read last.
    outlines: Arc<OutlineCache>,
    /// Whether a `view` with no range of a long source file answers its outline.
    unasked_outlines: bool,
}

/// A toolkit's compiled read options: its deny and allow rules, the ignore files it obeys,
/// its budgets and limits, read from its options object and checked once, in Rust
/// (`options.rs`).
#[napi]
pub struct ReadPolicy {
    rules: Arc<Rules>,
}

#[napi]
impl ReadPolicy {
    /// The read options of a toolkit's `options` (`createAgentToolkit`): `defaultDeny`,
    /// `deny`, `allow`, `ignoreFiles`, `maxFileBytes`, `maxContentBytes`,
    /// `maxBatchContentBytes`, `media`, `maxReadTokens` and `tokenizer`, each read once, in
    /// that order. A toolkit reads files of any size and gives 25,000 tokens a read unless
    /// told otherwise; `numbered`: whether each line costs a gutter in what the model is
    /// given (line numbers, or JSON's escapes). Throws `INVALID_ARGUMENT` naming the option
    /// for a bad or unreadable one, or a rule that is not valid.
    #[napi(factory, ts_args_type = "options: object, numbered: boolean")]
    pub fn for_toolkit(env: Env, options: Unknown, numbered: bool) -> napi::Result<ReadPolicy> {
        ReadPolicy::of(&env, &options, Owner::Toolkit { numbered })
    }

    /// The read options of a `ToolCatalog` context (`ctx`), as [`ReadPolicy::for_toolkit`]
    /// reads a toolkit's, with the specification's defaults (1 MiB, no token budget).
    #[napi(factory, ts_args_type = "ctx: object")]
    pub fn for_context(env: Env, ctx: Unknown) -> napi::Result<ReadPolicy> {
        ReadPolicy::of(&env, &ctx, Owner::Context)
    }

    fn of(env: &Env, options: &Unknown, owner: Owner) -> napi::Result<ReadPolicy> {
        let rules = options::rules_of(env, options, owner)
            .map_err(|(error, cause)| throwable_caused(env, error, cause))?;
        Ok(ReadPolicy { rules })
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
    /// `policy`. With `dedupeReads`, a window whose lines its model was given already, of
    /// the same version, is answered (to a `view` with `text`) by a note saying so. With
    /// `outlines` (the default), a `view` that places no window (no `start_line`,
    /// `max_lines`, `start_column` or `pages`) of a long source file answers its outline
    /// when that costs at most a quarter of the file's tokens.
    #[napi(
        constructor,
        ts_args_type = "workspaceRoot: string, policy: ReadPolicy, dedupeReads?: boolean, outlines?: boolean"
    )]
    pub fn new(
        env: Env,
        workspace_root: Unknown,
        policy: &ReadPolicy,
        dedupe_reads: Option<bool>,
        outlines: Option<bool>,
    ) -> napi::Result<Self> {
        let path = root_path(workspace_root).map_err(|error| throwable(&env, error))?;
        let root = Root::open(&path).map_err(|error| throwable(&env, error))?;
        Ok(Workspace {
            root: Some(Arc::new(root)),
            rules: policy.rules.clone(),
            ledger: Arc::default(),
            line_indexes: Arc::default(),
            memory: dedupe_reads.unwrap_or(false).then(Arc::default),
            outlines: Arc::default(),
            unasked_outlines: outlines.unwrap_or(true),
        })
    }

    /// Forgets which lines the model was given (`dedupeReads`): every next window is sent.
    #[napi]
    pub fn forget_reads(&self) {
        if let Some(memory) = &self.memory {
            memory
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .forget();
        }
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
    /// a media answer as `{ output, frame }`, the text its parts are framed by. Code is read
    /// as code: `outline: true` answers the file's outline (a page from `start_line`),
    /// `symbol` a definition's lines by its name (or the definitions it names, when several),
    /// `ranges` several ranges of lines in one answer; a read that places no window of a long
    /// source file may answer its outline (see the constructor's `outlines`).
    #[napi(
        ts_args_type = "input: ViewInput, signal?: AbortSignal | undefined, text?: ModelTextOptions",
        ts_return_type = "Promise<ViewOutput | { output: ReadFileOutput | OutlineOutput | RangesOutput; text: string } | FramedMediaOutput>"
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
    pub fn last_read(
        &self,
        env: Env,
        path: Unknown,
    ) -> napi::Result<Option<Literal<JsFileVersion>>> {
        let root = self.open_root(&env, &path)?;
        let path = string_or_type(&path)
            .map_err(|got| throwable(&env, Argument::Path.wrong_kind("path", got)))?;
        let Ok(relative) = root.relative_path(&path) else {
            return Ok(None);
        };
        Ok(self
            .ledger
            .get(&relative)
            .map(|version| Literal(version.into())))
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
            |root| ReadCall::view_from_js(Ok(root), input, self.unasked_outlines),
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
                .with_memory(self.memory.clone())
                .with_outlines(self.outlines.clone())
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
