//! agent-read-file: the `read_file` tool of AI coding agents as a Node-API addon.
//!
//! This crate is the binding, the only code that knows JavaScript; the engine
//! ([`agent_read_file_engine`]) knows nothing of it. It turns JS arguments into a validated
//! [`ReadRequest`], runs the engine (on the calling thread for `readFileSync`; for
//! `readFile`, on the calling thread when the kernel proves the read cannot wait, see
//! [`inline`], else on the libuv pool, see [`batch`]), and turns the result into a JS object
//! or an `Error` whose `code` is the engine's [`ErrorCode`].

// napi-rs registers the exports from a constructor that test builds leave out, so there
// the exported items look unused.
#![cfg_attr(test, allow(dead_code))]

mod batch;
mod dialects;
mod env_state;
mod inline;
mod js;
mod output;

use std::ffi::CStr;
use std::sync::Arc;

use napi::bindgen_prelude::FromNapiValue;
use napi::{Env, JsValue, Unknown, ValueType, sys};
use napi_derive::napi;

use agent_read_file_engine::attempt::Attempt;
use agent_read_file_engine::error::{ErrorCode, ReadFileError};
use agent_read_file_engine::policy::Policy;
use agent_read_file_engine::read_file::{
    ReadFileOutput, ReadOptions, read_file_cached, read_file_versioned, read_file_with,
};
use agent_read_file_engine::request::{Argument, NumberArg, ReadRequest};
use agent_read_file_engine::root_cache;
use agent_read_file_engine::sandbox::Root;
use agent_read_file_engine::version::{FileVersion, Ledger, file_version};
use output::JsOutput;

/// The largest file `read_file` returns, in bytes (1048576: 1 MiB).
#[napi]
pub const MAX_FILE_BYTES: u32 = agent_read_file_engine::request::MAX_FILE_BYTES as u32;

/// Reads a window of a file in the workspace on the calling thread. Throws on failure: an
/// `Error` whose `code` is a `ReadFileErrorCode`.
#[napi(
    js_name = "readFileSync",
    ts_args_type = "workspaceRoot: string, input: ReadFileInput",
    ts_return_type = "ReadFileOutput"
)]
pub fn read_file_sync(env: Env, workspace_root: Unknown, input: Unknown) -> napi::Result<JsOutput> {
    let root = root_path(workspace_root).map(RootArg::Path);
    run_sync(&env, root, input)
}

/// Reads a window of a file in the workspace: on the calling thread, in a microtask, when
/// the kernel proves the read cannot wait (path and bytes cached, a local file system, at
/// most 256 KiB, at most four calls in one run of JS), else on the libuv thread pool. Never
/// throws: every failure, bad arguments included, rejects with an `Error` whose `code` is a
/// `ReadFileErrorCode`. If `signal` fires before the result is delivered, rejects at once
/// with an `AbortError` (`code: 'ABORT_ERR'`).
#[napi(
    js_name = "readFile",
    ts_args_type = "workspaceRoot: string, input: ReadFileInput, signal?: AbortSignal",
    ts_return_type = "Promise<ReadFileOutput>"
)]
pub fn read_file_async<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    input: Unknown,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    batch::enqueue(env, ReadCall::from_js(root, input), signal)
}

/// A workspace root held open until [`Workspace::close`] (`createAgentToolkit`).
#[napi]
pub struct Workspace {
    /// `None` once closed. Reads already on the pool keep their own handle until they end.
    root: Option<Arc<Root>>,
    options: Arc<ReadOptions>,
    /// What this toolkit's successful reads saw, by path.
    ledger: Arc<Ledger>,
}

/// A toolkit's compiled read options: its deny and allow rules.
#[napi]
pub struct ReadPolicy {
    options: Arc<ReadOptions>,
}

#[napi]
impl ReadPolicy {
    /// Compiles gitignore-syntax `deny` and `allow` rules (relative to the workspace root);
    /// throws `INVALID_ARGUMENT` for a rule that is not valid. `maxContentBytes` (checked
    /// by the caller to be an integer of at least 128) bounds every `content`.
    #[napi(constructor)]
    pub fn new(
        env: Env,
        deny: Vec<String>,
        allow: Vec<String>,
        max_content_bytes: Option<u32>,
    ) -> napi::Result<Self> {
        let policy = Policy::new(&deny, &allow).map_err(|error| throwable(&env, error))?;
        let options = ReadOptions {
            policy: Some(policy),
            max_content_bytes: max_content_bytes.map(|bytes| bytes as usize),
        };
        Ok(ReadPolicy {
            options: Arc::new(options),
        })
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
    let call = ReadCall::from_js(root, input).map(|call| call.with_options(policy.options.clone()));
    batch::enqueue(env, call, signal)
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
            options: policy.options.clone(),
            ledger: Arc::default(),
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
        batch::enqueue(env, self.call(input), signal)
    }

    /// `readFileSync` beneath this workspace's root.
    #[napi(
        ts_args_type = "input: ReadFileInput",
        ts_return_type = "ReadFileOutput"
    )]
    pub fn read_file_sync(&self, env: Env, input: Unknown) -> napi::Result<JsOutput> {
        self.call(input)
            .and_then(|call| call.run())
            .map(JsOutput)
            .map_err(|error| throwable(&env, error))
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
        ts_return_type = "Promise<Array<{ ok: true; output: ReadFileOutput } | { ok: false; error: { code: ReadFileErrorCode | 'POLICY_DENIED'; message: string } }>>"
    )]
    pub fn read_files<'env>(
        &self,
        env: &'env Env,
        inputs: Unknown,
        signal: Option<Unknown>,
    ) -> napi::Result<Unknown<'env>> {
        let call = match &self.root {
            Some(root) => {
                ReadCall::many_from_js(Ok(RootArg::Open(root.clone())), inputs).map(|call| {
                    call.with_options(self.options.clone())
                        .with_ledger(self.ledger.clone())
                })
            }
            None => Err(closed_error("readFiles")),
        };
        batch::enqueue(env, call, signal)
    }

    /// The version of `path` now, under this toolkit's policy (see `fileVersion`).
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
        let call = match &self.root {
            Some(root) => ReadCall::version_from_js(Ok(RootArg::Open(root.clone())), path)
                .map(|call| call.with_options(self.options.clone())),
            None => Err(closed_error(&string_or_type(&path).unwrap_or_default())),
        };
        batch::enqueue(env, call, signal)
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

    /// The call, or (before any check of `input`) the error of a closed toolkit.
    fn call(&self, input: Unknown) -> Result<ReadCall, ReadFileError> {
        match &self.root {
            Some(root) => ReadCall::from_js(Ok(RootArg::Open(root.clone())), input).map(|call| {
                call.with_options(self.options.clone())
                    .with_ledger(self.ledger.clone())
            }),
            None => Err(closed_error(&requested_path(&input))),
        }
    }
}

/// `readFileSync`: validate, run, throw the contract's error on failure.
fn run_sync(
    env: &Env,
    root: Result<RootArg, ReadFileError>,
    input: Unknown,
) -> napi::Result<JsOutput> {
    ReadCall::from_js(root, input)
        .and_then(|call| call.run())
        .map(JsOutput)
        .map_err(|error| throwable(env, error))
}

/// Which root a call reads beneath.
enum RootArg {
    /// A root path, opened (or found open) when the call runs.
    Path(String),
    /// A root already open.
    Open(Arc<Root>),
}

/// The error of every call on a closed toolkit.
fn closed_error(path: &str) -> ReadFileError {
    ReadFileError::new(
        ErrorCode::InvalidArgument,
        path,
        "the toolkit is closed (close() was called); create another with createAgentToolkit",
    )
}

/// `input.path` when it is a string, for a message; else empty.
fn requested_path(input: &Unknown) -> String {
    if type_of(input) != "object" {
        return String::new();
    }
    property(input, c"path")
        .ok()
        .and_then(|path| string_or_type(&path).ok())
        .unwrap_or_default()
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
    options: Arc<ReadOptions>,
    kind: CallKind,
    /// Where a toolkit's successful reads are recorded.
    ledger: Option<Arc<Ledger>>,
}

/// What a call asks for.
enum CallKind {
    /// A window of the file (`readFile`).
    Read,
    /// The file's version (`fileVersion`).
    Version,
    /// Windows of several files (`readFiles`): each input checked, or why it is not valid.
    Many(Vec<Result<ReadRequest, ReadFileError>>),
}

/// What a call answers, and what its reads saw for the toolkit's ledger.
pub enum Answer {
    Output(ReadFileOutput, Seen),
    Version(FileVersion),
    Many(Vec<Result<ReadFileOutput, ReadFileError>>, Seen),
}

impl Answer {
    /// Bytes of content it carries to JavaScript.
    fn content_len(&self) -> usize {
        let len = |output: &ReadFileOutput| output.content.as_str().len();
        match self {
            Answer::Output(output, _) => len(output),
            Answer::Version(_) => 0,
            Answer::Many(results, _) => results.iter().flatten().map(len).sum(),
        }
    }

    /// The answer is being delivered: what its reads saw goes into the ledger now, so that
    /// `lastRead` never names a read whose caller gave up on it (its signal fired first).
    fn delivered(self) -> Answer {
        match self {
            Answer::Output(output, seen) => {
                seen.record();
                Answer::Output(output, Seen::default())
            }
            Answer::Many(results, seen) => {
                seen.record();
                Answer::Many(results, Seen::default())
            }
            version => version,
        }
    }
}

/// The versions a call's successful reads saw, for its toolkit's ledger; recorded only
/// when the answer is delivered ([`Answer::delivered`]).
#[derive(Default)]
pub struct Seen(Option<(Arc<Ledger>, Vec<FileVersion>)>);

impl Seen {
    fn new(ledger: &Option<Arc<Ledger>>, versions: impl IntoIterator<Item = FileVersion>) -> Seen {
        Seen(
            ledger
                .clone()
                .map(|ledger| (ledger, versions.into_iter().collect())),
        )
    }

    fn record(self) {
        if let Some((ledger, versions)) = self.0 {
            for version in versions {
                ledger.record(version);
            }
        }
    }
}

/// How many `readFile` calls of this process were answered on the calling thread
/// (`inline`: the kernel proved they could not wait) and how many went to the thread pool.
/// For tests and diagnostics.
#[napi(object)]
pub struct ReadPathCounts {
    pub inline: f64,
    pub pool: f64,
}

/// The counts of where `readFile` calls ran so far (see [`ReadPathCounts`]).
#[napi(js_name = "readPathCounts")]
pub fn read_path_counts() -> ReadPathCounts {
    use std::sync::atomic::Ordering::Relaxed;
    ReadPathCounts {
        inline: inline::ANSWERED_INLINE.load(Relaxed) as f64,
        pool: inline::SENT_TO_POOL.load(Relaxed) as f64,
    }
}

/// For the benchmark's floor row: the raw cost, in nanoseconds per iteration, of opening
/// `path`, `fstat`, one `read` of the whole file and closing it, `iterations` times in a
/// loop in Rust (no Node-API per iteration, no sandbox, no line model). A failed open
/// counts as an iteration (the floor of a missing file).
#[napi(js_name = "readFloorNs")]
pub fn read_floor_ns(path: String, iterations: u32) -> f64 {
    use std::io::Read;
    let started = std::time::Instant::now();
    let mut buffer = Vec::new();
    for _ in 0..iterations {
        if let Ok(mut file) = std::fs::File::open(&path) {
            let len = file.metadata().map_or(0, |status| status.len() as usize);
            buffer.resize(len + 1, 0);
            let _ = file.read(&mut buffer);
        }
    }
    started.elapsed().as_nanos() as f64 / f64::from(iterations.max(1))
}

/// The most inputs one `readFiles` call takes.
#[napi]
pub const MAX_BATCH_FILES: u32 = 64;

/// The most content (UTF-8 bytes, all results together) one `readFiles` call returns
/// (4194304: 4 MiB). Results are kept in input order while their contents fit; a later
/// one that would go over answers `SIZE_LIMIT_EXCEEDED` (read it on its own).
#[napi]
pub const MAX_BATCH_CONTENT_BYTES: u32 = 4 << 20;

/// Reads windows of up to `MAX_BATCH_FILES` files in one native call, on the libuv pool.
/// Answers one result per input, in input order: `{ ok: true, output }` or
/// `{ ok: false, error: { code, message } }`; one failure never fails the others. Rejects
/// (`INVALID_ARGUMENT`) only for a bad `workspaceRoot`, `inputs` that is not an array or has
/// more than `MAX_BATCH_FILES` entries; with an `AbortError` when `signal` fires first.
#[napi(
    js_name = "readFiles",
    ts_args_type = "workspaceRoot: string, inputs: readonly ReadFileInput[], signal?: AbortSignal",
    ts_return_type = "Promise<Array<{ ok: true; output: ReadFileOutput } | { ok: false; error: { code: ReadFileErrorCode; message: string } }>>"
)]
pub fn read_files_async<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    inputs: Unknown,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    batch::enqueue(env, ReadCall::many_from_js(root, inputs), signal)
}

/// One version of a file: what a read saw, or what is on disk now (`fileVersion`). Two
/// versions with the same `hash` have the same bytes.
#[napi(object, js_name = "FileVersion")]
pub struct JsFileVersion {
    /// The normalized workspace-relative path, as `readFile` returns it.
    pub path: String,
    /// The content hash of the bytes on disk, with its algorithm: `xxh3-128:<32 hex digits>`.
    pub hash: String,
    #[napi(js_name = "byte_length")]
    pub byte_length: f64,
    #[napi(js_name = "mtime_ms")]
    pub mtime_ms: f64,
    /// `none`: no `\n` at all; `mixed`: both `\n` and `\r\n`.
    #[napi(js_name = "line_ending", ts_type = "'lf' | 'crlf' | 'mixed' | 'none'")]
    pub line_ending: String,
    /// Whether the file starts with a UTF-8 BOM.
    pub bom: bool,
    /// `false` when reading the text replaced invalid UTF-8 bytes with U+FFFD.
    #[napi(js_name = "valid_utf8")]
    pub valid_utf8: bool,
}

impl From<FileVersion> for JsFileVersion {
    fn from(version: FileVersion) -> Self {
        JsFileVersion {
            hash: version.hash_string(),
            path: version.path,
            byte_length: version.byte_length as f64,
            mtime_ms: version.mtime_ms as f64,
            line_ending: version.line_ending.as_str().to_owned(),
            bom: version.bom,
            valid_utf8: version.valid_utf8,
        }
    }
}

/// The version of a file in the workspace now: a content hash and what the bytes are
/// like. Never throws: rejects with an `Error` whose `code` is a `ReadFileErrorCode`
/// (a file over `MAX_FILE_BYTES` is `SIZE_LIMIT_EXCEEDED`), or an `AbortError`.
#[napi(
    js_name = "fileVersion",
    ts_args_type = "workspaceRoot: string, path: string, signal?: AbortSignal",
    ts_return_type = "Promise<FileVersion>"
)]
pub fn file_version_async<'env>(
    env: &'env Env,
    workspace_root: Unknown,
    path: Unknown,
    signal: Option<Unknown>,
) -> napi::Result<Unknown<'env>> {
    let root = root_path(workspace_root).map(RootArg::Path);
    batch::enqueue(env, ReadCall::version_from_js(root, path), signal)
}

/// The options of a bare `readFile`: none.
fn no_options() -> Arc<ReadOptions> {
    static NONE: std::sync::OnceLock<Arc<ReadOptions>> = std::sync::OnceLock::new();
    NONE.get_or_init(Arc::default).clone()
}

impl ReadCall {
    fn from_js(
        root: Result<RootArg, ReadFileError>,
        input: Unknown,
    ) -> Result<ReadCall, ReadFileError> {
        let request = request_from_js(&input)?;
        let root = root.map_err(|error| error.for_path(&request.path))?;
        Ok(ReadCall {
            root,
            request,
            options: no_options(),
            kind: CallKind::Read,
            ledger: None,
        })
    }

    /// A `fileVersion` call: `path` is the path string itself.
    fn version_from_js(
        root: Result<RootArg, ReadFileError>,
        path: Unknown,
    ) -> Result<ReadCall, ReadFileError> {
        let path = string_or_type(&path).map_err(|got| Argument::Path.wrong_kind("path", got))?;
        let request = ReadRequest::for_path(path)?;
        let root = root.map_err(|error| error.for_path(&request.path))?;
        Ok(ReadCall {
            root,
            request,
            options: no_options(),
            kind: CallKind::Version,
            ledger: None,
        })
    }

    /// A `readFiles` call: `inputs` an array of at most [`MAX_BATCH_FILES`] inputs, each
    /// checked on its own.
    fn many_from_js(
        root: Result<RootArg, ReadFileError>,
        inputs: Unknown,
    ) -> Result<ReadCall, ReadFileError> {
        const LABEL: &str = "readFiles";
        let invalid =
            |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, LABEL, reason);
        let env = inputs.value().env;
        let kind = type_of(&inputs);
        if kind != "array" {
            return Err(invalid(format!(
                "inputs must be an array of inputs like {{ path: \"src/main.ts\" }} (got {kind})"
            )));
        }
        let length = js::array_length(env, inputs.raw())
            .map_err(|_| invalid("inputs.length could not be read".into()))?;
        if length > MAX_BATCH_FILES {
            return Err(invalid(format!(
                "inputs has {length} entries, more than MAX_BATCH_FILES ({MAX_BATCH_FILES}); split it"
            )));
        }
        let mut requests = Vec::with_capacity(length as usize);
        for index in 0..length {
            let request = match js::element(env, inputs.raw(), index) {
                // SAFETY: a handle Node just returned, live in the current handle scope.
                Ok(input) => request_from_js(&unsafe { Unknown::from_raw_unchecked(env, input) }),
                Err(_) => Err(invalid(format!(
                    "inputs[{index}] could not be read (it threw)"
                ))),
            };
            requests.push(request);
        }
        let root = root.map_err(|error| error.for_path(LABEL))?;
        let request = ReadRequest {
            path: LABEL.to_owned(),
            start_line: 1,
            max_lines: 1,
        };
        Ok(ReadCall {
            root,
            request,
            options: no_options(),
            kind: CallKind::Many(requests),
            ledger: None,
        })
    }

    fn with_options(self, options: Arc<ReadOptions>) -> ReadCall {
        ReadCall { options, ..self }
    }

    fn with_ledger(self, ledger: Arc<Ledger>) -> ReadCall {
        let ledger = Some(ledger);
        ReadCall { ledger, ..self }
    }

    /// `readFileSync`: its answer is delivered as it returns.
    fn run(&self) -> Result<ReadFileOutput, ReadFileError> {
        let root = self.root(&mut OpenedRoots::default())?;
        let (output, seen) = self.read(&root, &self.request)?;
        seen.record();
        Ok(output)
    }

    /// Whether [`ReadCall::run_cached`] may answer it: a `readFile` (a version hashes the
    /// whole file and a batch is many reads; both stay on the pool).
    fn may_run_cached(&self) -> bool {
        matches!(self.kind, CallKind::Read)
    }

    /// A `readFile` for the JS thread: answered only if nothing would wait (a root path
    /// not in the root cache, or not resolvable from the dentry cache, would).
    fn run_cached(&self) -> Attempt<Result<Answer, ReadFileError>> {
        let root = match &self.root {
            RootArg::Path(path) => match root_cache::open_cached(path) {
                Attempt::Done(root) => root,
                Attempt::WouldBlock => return Attempt::WouldBlock,
            },
            RootArg::Open(root) => root.clone(),
        };
        let versioned = self.ledger.is_some();
        match read_file_cached(&root, &self.request, &self.options, versioned) {
            Attempt::Done(read) => {
                Attempt::Done(read.map(|(output, version)| {
                    Answer::Output(output, Seen::new(&self.ledger, version))
                }))
            }
            Attempt::WouldBlock => Attempt::WouldBlock,
        }
    }

    /// The one code path of every call on the pool.
    fn run_with(&self, roots: &mut OpenedRoots) -> Result<Answer, ReadFileError> {
        let root = self.root(roots)?;
        match &self.kind {
            CallKind::Read => {
                let (output, seen) = self.read(&root, &self.request)?;
                Ok(Answer::Output(output, seen))
            }
            CallKind::Version => {
                let policy = self.options.policy.as_ref();
                file_version(&root, &self.request.path, policy).map(Answer::Version)
            }
            CallKind::Many(requests) => {
                let (results, seen) = self.read_many(&root, requests);
                Ok(Answer::Many(results, seen))
            }
        }
    }

    /// The reads of `readFiles`, run in parallel on rayon's threads (the pool thread that
    /// runs this waits for them), then kept in input order while their contents fit in
    /// [`MAX_BATCH_CONTENT_BYTES`]. Only the reads kept are seen (for the ledger).
    fn read_many(
        &self,
        root: &Root,
        requests: &[Result<ReadRequest, ReadFileError>],
    ) -> (Vec<Result<ReadFileOutput, ReadFileError>>, Seen) {
        let versioned = self.ledger.is_some();
        let read = |request: &Result<ReadRequest, ReadFileError>| {
            let request = request.as_ref().map_err(Clone::clone)?;
            read_file_versioned(root, request, &self.options, versioned)
        };
        let reads: Vec<_> = parallel_map(requests, read);
        let mut room = MAX_BATCH_CONTENT_BYTES as usize;
        let mut results = Vec::with_capacity(reads.len());
        let mut seen = Vec::new();
        for (read, request) in reads.into_iter().zip(requests) {
            let result = read.and_then(|(output, version)| {
                let len = output.content.as_str().len();
                if len > room {
                    let requested = request.as_ref().map_or("", |request| &request.path);
                    return Err(ReadFileError::new(
                        ErrorCode::SizeLimitExceeded,
                        requested,
                        format!(
                            "its content ({len} bytes) does not fit in what is left of this \
                             readFiles call's {MAX_BATCH_CONTENT_BYTES} bytes ({room}); read it on its own"
                        ),
                    ));
                }
                room -= len;
                seen.extend(version);
                Ok(output)
            });
            results.push(result);
        }
        (results, Seen::new(&self.ledger, seen))
    }

    fn root(&self, roots: &mut OpenedRoots) -> Result<Arc<Root>, ReadFileError> {
        match &self.root {
            RootArg::Path(path) => roots
                .open(path)
                .map_err(|error| error.for_path(&self.request.path)),
            RootArg::Open(root) => Ok(root.clone()),
        }
    }

    /// The one code path of `readFile` and `readFileSync` on a thread that may wait: the
    /// output, and what the read saw if there is a ledger.
    fn read(
        &self,
        root: &Root,
        request: &ReadRequest,
    ) -> Result<(ReadFileOutput, Seen), ReadFileError> {
        if self.ledger.is_none() {
            return read_file_with(root, request, &self.options)
                .map(|output| (output, Seen::default()));
        }
        let (output, version) = read_file_versioned(root, request, &self.options, true)?;
        Ok((output, Seen::new(&self.ledger, version)))
    }
}

/// `items` mapped by `map`, in order, on rayon's threads (which stay up between calls;
/// the calling thread waits for them).
fn parallel_map<T: Sync, R: Send>(items: &[T], map: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    items.par_iter().map(map).collect()
}

/// The root path a run of calls resolved last. Calls sent to the pool together resolve
/// their root path once, as if at the same moment; a lone call resolves it afresh.
#[derive(Default)]
struct OpenedRoots(Option<(String, Arc<Root>)>);

impl OpenedRoots {
    fn open(&mut self, path: &str) -> Result<Arc<Root>, ReadFileError> {
        if let Some((opened, root)) = &self.0
            && opened == path
        {
            return Ok(root.clone());
        }
        let root = root_cache::open(path)?;
        self.0 = Some((path.to_owned(), root.clone()));
        Ok(root)
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
    let path = string_or_type(&path).map_err(|got| Argument::Path.wrong_kind("path", got))?;
    let request = ReadRequest::for_path(path)?;
    let start_line = number_arg(&start_line)
        .map_err(|got| Argument::StartLine.wrong_kind(&request.path, got))?;
    let request = request.with_start_line(start_line)?;
    let max_lines =
        number_arg(&max_lines).map_err(|got| Argument::MaxLines.wrong_kind(&request.path, got))?;
    request.with_max_lines(max_lines)
}

/// `object[name]`, or why it could not be read (a getter or proxy that throws; the
/// exception is dropped, and the caller reports an INVALID_ARGUMENT error instead).
fn property<'env>(object: &Unknown<'env>, name: &CStr) -> Result<Unknown<'env>, String> {
    let env = object.value().env;
    match js::named_property(env, object.raw(), name) {
        // SAFETY: a handle Node just returned, live in the current handle scope.
        Ok(value) => Ok(unsafe { Unknown::from_raw_unchecked(env, value) }),
        Err(_) => Err(format!(
            "input.{} could not be read (it threw)",
            name.to_string_lossy()
        )),
    }
}

fn string_or_type(value: &Unknown) -> Result<String, &'static str> {
    match value.get_type() {
        Ok(ValueType::String) => {
            // SAFETY: a live handle of this env, checked to be a string.
            unsafe { String::from_napi_value(value.value().env, value.raw()) }.map_err(|_| "string")
        }
        _ => Err(type_of(value)),
    }
}

/// A number or nothing (`undefined`, `null`), else the value's type name.
fn number_arg(value: &Unknown) -> Result<NumberArg, &'static str> {
    match value.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => Ok(NumberArg::Missing),
        Ok(ValueType::Number) => {
            // SAFETY: a live handle of this env, checked to be a number.
            unsafe { f64::from_napi_value(value.value().env, value.raw()) }
                .map(NumberArg::Number)
                .map_err(|_| "number")
        }
        _ => Err(type_of(value)),
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

/// `signal.aborted`, or `None` when `signal` is not an object with a boolean `aborted`.
fn is_aborted(signal: &Unknown) -> Option<bool> {
    if type_of(signal) != "object" {
        return None;
    }
    let aborted = property(signal, c"aborted").ok()?;
    match aborted.get_type() {
        Ok(ValueType::Boolean) => {
            // SAFETY: a live handle of this env, checked to be a boolean.
            unsafe { bool::from_napi_value(aborted.value().env, aborted.raw()) }.ok()
        }
        _ => None,
    }
}

/// A JS `Error` with our own `code` (and `name`), built on the JS thread. If even that
/// fails (the env is going away), `undefined`, so a promise still settles.
fn error_value(env: sys::napi_env, code: &str, message: &str, name: Option<&str>) -> js::Value {
    // `message` is made an own enumerable property too, so `JSON.stringify(err)` keeps it.
    let error = match name {
        Some(name) => js::error(
            env,
            message,
            &[(c"code", code), (c"name", name), (c"message", message)],
        ),
        None => js::error(env, message, &[(c"code", code), (c"message", message)]),
    };
    error
        .or_else(|_| js::undefined(env))
        .unwrap_or(std::ptr::null_mut())
}

/// The JS `Error` for an engine error, in the form napi-rs throws verbatim: `code` is the
/// error code, `message` names the requested path and the reason.
fn throwable(env: &Env, error: ReadFileError) -> napi::Error {
    let value = error_value(env.raw(), error.code.as_str(), &error.to_string(), None);
    // SAFETY: a handle just made on this env, live in the current handle scope.
    napi::Error::from(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}
