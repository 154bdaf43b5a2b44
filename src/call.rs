//! One validated call (`readFile`, `readFiles`, `fileVersion`, a toolkit's `view`, a
//! dialect's `executeDialect`), ready to run on any thread, and what it answers. Every way
//! a call runs goes through [`ReadCall::run_with`], with the engine's [`Access`]: on the
//! pool and for `readFileSync` it may wait; on the JS thread it is done from memory (see
//! `schedule/js_thread.rs`).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::{FromNapiValue, JsObjectValue, Object};
use napi::{Env, JsValue, Unknown};

use agent_read_file_engine::code::{CodeAsk, CodeMode, CodeRead, OutlineCache};
use agent_read_file_engine::dialect::{Answer, Dialect, DialectCall};
use agent_read_file_engine::error::{ErrorCode, ReadFileError, SizeLimit};
use agent_read_file_engine::media::{self, MediaLimits, MediaOutput, MediaRequest, PartRange};
use agent_read_file_engine::model_text::{self, MediaFrame, TextOptions};
use agent_read_file_engine::policy::Policy;
use agent_read_file_engine::read_memory::ReadMemory;
use agent_read_file_engine::request::{Argument, MAX_FILE_BYTES, ReadRequest};
use agent_read_file_engine::root_cache;
use agent_read_file_engine::sandbox::Root;
use agent_read_file_engine::view::{self, Opened, Stage, Viewed};
use agent_read_file_engine::{
    Access, Attempt, FileVersion, Ledger, LineIndexCache, MIN_CONTENT_BUDGET, Read, ReadFileOutput,
    ReadOptions, Reader, Stop, TokenBudget, file_version, file_version_within, read_file, waited,
};

use crate::code::{CodeAnswer, code_from_js};
use crate::convert::{
    Fields, pages_from_js, placed_request_from_js, request_from_js, string_or_type, type_of,
};
use crate::js;
use crate::mcp_answer::McpAnswer;
use crate::{MAX_BATCH_CONTENT_BYTES, MAX_BATCH_FILES};

/// Which root a call reads beneath.
pub(crate) enum RootArg {
    /// A root path, opened (or found open) when the call runs.
    Path(String),
    /// A root already open.
    Open(Arc<Root>),
}

/// What a toolkit (or a `ToolCatalog` context) adds to its reads: its compiled deny and
/// allow rules, its content budget and its file size limit. A bare read has none.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    pub(crate) policy: Option<Policy>,
    pub(crate) max_content_bytes: Option<usize>,
    /// `None`: the specification's `MAX_FILE_BYTES`.
    pub(crate) max_file_bytes: Option<u64>,
    /// The content one `readFiles` call returns at most, all files together; `None`:
    /// [`MAX_BATCH_CONTENT_BYTES`].
    pub(crate) max_batch_content_bytes: Option<usize>,
    /// What a media read (`view`) may take and give.
    pub(crate) media: MediaLimits,
    /// The most tokens of text one read gives a model; `None`: no such budget.
    pub(crate) max_tokens: Option<TokenBudget>,
}

/// One validated call, ready to run on any thread.
pub(crate) struct ReadCall {
    root: RootArg,
    pub(crate) request: ReadRequest,
    rules: Arc<Rules>,
    kind: CallKind,
    /// Where a toolkit's successful reads are recorded.
    ledger: Option<Arc<Ledger>>,
    /// Where a toolkit keeps the line indexes of the large files it read.
    line_indexes: Option<Arc<LineIndexCache>>,
    /// Set when the caller gives up on the call (its signal fired): a long scan stops.
    stop: Option<Arc<AtomicBool>>,
    /// A `readFile` answered as an MCP server's response line instead of an object.
    mcp_answer: Option<Box<McpAnswer>>,
    /// A window answered with the model's text of it, made with these options (a media
    /// answer with the text its parts are framed by).
    text: Option<TextOptions>,
    /// Where a `dedupeReads` toolkit remembers the lines its model was given (with `text`).
    memory: Option<Arc<Mutex<ReadMemory>>>,
    /// Where a toolkit keeps the outlines of the files it read last.
    outlines: Option<Arc<OutlineCache>>,
}

/// What a call asks for.
pub(crate) enum CallKind {
    /// A window of the file (`readFile`).
    Read,
    /// The file's version (`fileVersion`); with `media`, an image, notebook or PDF over the
    /// text size limit has the version a media read records (a toolkit's freshness check).
    Version { media: bool },
    /// Windows of several files (`readFiles`): each input checked, or why it is not valid.
    Many(Vec<Result<ReadRequest, ReadFileError>>),
    /// A toolkit's `view`: a text window, or an image, a notebook or a PDF as typed parts,
    /// the pages or cells asked for (or why they are not valid: told only when the file is
    /// decoded). Run in `stage`: text first unless the name claims media; a call the text
    /// stage finds needs decoding is run again in the media stage ([`Reply::NeedsDecoding`]).
    View {
        pages: Result<Option<PartRange>, ReadFileError>,
        stage: Stage,
        /// The file the text stage opened, for the media stage (boxed: a file's status is
        /// large on some systems, and few calls carry one).
        opened: Option<Box<Opened>>,
        /// Code read as code: what the call asked for (`outline`, `symbol`, `ranges`), or,
        /// for a read that places no window, whether a long source file's outline may be
        /// given instead of its first lines.
        code: ViewCode,
    },
    /// A call of a dialect's tool (`executeDialect`): its arguments and config, read on the
    /// JS thread; the dialect answers a root that cannot be opened its own way.
    Dialect(Dialect, DialectCall),
}

/// What a `view` reads of code.
pub(crate) enum ViewCode {
    Off,
    Unasked,
    Asked(Box<CodeAsk>),
}

impl ViewCode {
    fn mode(&self) -> CodeMode<'_> {
        match self {
            ViewCode::Off => CodeMode::Off,
            ViewCode::Unasked => CodeMode::Unasked,
            ViewCode::Asked(ask) => CodeMode::Asked(ask),
        }
    }
}

/// What a call replies, and what its reads saw for the toolkit's ledger.
pub(crate) enum Reply {
    /// A window, and the model's text of it when the call asked for it.
    Output(ReadFileOutput, Option<WindowText>, Seen),
    Version(FileVersion),
    Many(Vec<Result<ReadFileOutput, ReadFileError>>, Seen),
    /// An image, a notebook or a PDF of a `view`, and the text its parts are framed by when
    /// the call asked for the model's text.
    Media(MediaOutput, Option<MediaFrame>, Seen),
    /// A `view` in its text stage found a file to decode (opened): run it again in the
    /// media stage ([`ReadCall::decoding`]). Never settles a promise.
    NeedsDecoding(Box<Opened>),
    /// A window as an MCP server's response line; `None`: not answered that way (see
    /// [`McpAnswer::encode`]).
    McpAnswer(Option<String>, Seen),
    /// A dialect's answer.
    Dialect(Answer),
    /// An outline, a symbol's matches or several ranges of a `view`, and the model's text
    /// of it when the call asked for it.
    Code(CodeAnswer, Option<String>, Seen),
}

impl Reply {
    /// Bytes of content it carries to JavaScript.
    pub(crate) fn content_len(&self) -> usize {
        let len = |output: &ReadFileOutput| output.content.as_str().len();
        match self {
            Reply::Output(output, text, _) => {
                len(output) + text.as_ref().map_or(0, |text| text.text.len())
            }
            Reply::Version(_) => 0,
            Reply::Media(output, frame, _) => {
                let frame_len = frame
                    .as_ref()
                    .map_or(0, |frame| frame.head.len() + frame.tail.len());
                media_len(output) + frame_len
            }
            Reply::NeedsDecoding(_) | Reply::Dialect(_) => 0,
            Reply::Code(answer, text, _) => {
                answer.content_len() + text.as_ref().map_or(0, String::len)
            }
            Reply::Many(results, _) => results.iter().flatten().map(len).sum(),
            Reply::McpAnswer(line, _) => line.as_ref().map_or(0, String::len),
        }
    }

    /// The reply is being delivered: what its reads saw goes into the ledger now, so that
    /// `lastRead` never names a read whose caller gave up on it (its signal fired first).
    pub(crate) fn delivered(mut self) -> Reply {
        match &mut self {
            Reply::Output(output, text, seen) => {
                if let Some(text) = text {
                    text.deduplicated(output, seen);
                }
                std::mem::take(seen).record()
            }
            Reply::Many(_, seen)
            | Reply::Media(_, _, seen)
            | Reply::McpAnswer(_, seen)
            | Reply::Code(_, _, seen) => std::mem::take(seen).record(),
            Reply::Version(_) | Reply::NeedsDecoding(_) | Reply::Dialect(_) => {}
        }
        self
    }
}

/// A window's model text, and, for a `dedupeReads` toolkit, where the lines its model was
/// given are remembered: told as the reply is delivered ([`Reply::delivered`]), so that
/// lines count as given only once their reply is (never those of a call given up on), in
/// the order the replies are.
pub(crate) struct WindowText {
    pub(crate) text: String,
    given: Option<Given>,
}

/// Where a toolkit remembers the lines its model was given, and whether the window was read
/// from a column (not whole lines).
struct Given {
    memory: Arc<Mutex<ReadMemory>>,
    from_column: bool,
}

impl WindowText {
    /// The text of `output`, unless the model was given all its lines of the version `seen`
    /// before: then the note that says so ([`model_text::render_unchanged`]).
    fn deduplicated(&mut self, output: &ReadFileOutput, seen: &Seen) {
        let (Some(given), Some(hash)) = (self.given.take(), seen.hash()) else {
            return;
        };
        let mut memory = given.memory.lock().unwrap_or_else(PoisonError::into_inner);
        if memory.given_before(output, hash, given.from_column) {
            self.text = model_text::render_unchanged(output);
        }
    }
}

/// The versions a call's successful reads saw, for its toolkit's ledger; recorded only
/// when the reply is delivered ([`Reply::delivered`]).
#[derive(Default)]
pub(crate) struct Seen(Option<(Arc<Ledger>, Vec<FileVersion>)>);

impl Seen {
    pub(crate) fn new(
        ledger: &Option<Arc<Ledger>>,
        versions: impl IntoIterator<Item = FileVersion>,
    ) -> Seen {
        Seen(
            ledger
                .clone()
                .map(|ledger| (ledger, versions.into_iter().collect())),
        )
    }

    /// The content hash of the version its (first) read saw.
    fn hash(&self) -> Option<u128> {
        let (_, versions) = self.0.as_ref()?;
        versions.first().map(|version| version.hash)
    }

    pub(crate) fn record(self) {
        if let Some((ledger, versions)) = self.0 {
            for version in versions {
                ledger.record(version);
            }
        }
    }
}

/// The rules of a bare `readFile`: none.
pub(crate) fn no_rules() -> Arc<Rules> {
    static NONE: std::sync::OnceLock<Arc<Rules>> = std::sync::OnceLock::new();
    NONE.get_or_init(Arc::default).clone()
}

impl ReadCall {
    /// A call of `kind` for `request` beneath `root`, with no rules, ledger, remembered
    /// files, stop flag or MCP answer yet (`with_rules` and the like, `answered_as`, add them).
    fn new(root: RootArg, request: ReadRequest, kind: CallKind) -> ReadCall {
        ReadCall {
            root,
            request,
            rules: no_rules(),
            kind,
            ledger: None,
            line_indexes: None,
            stop: None,
            mcp_answer: None,
            text: None,
            memory: None,
            outlines: None,
        }
    }

    /// A `readFile` call of `input`, whose `fields` are read.
    pub(crate) fn from_js(
        root: Result<RootArg, ReadFileError>,
        input: Unknown,
        fields: Fields,
    ) -> Result<ReadCall, ReadFileError> {
        let request = request_from_js(&input, fields)?;
        let root = root.map_err(|error| error.for_path(&request.path))?;
        Ok(ReadCall::new(root, request, CallKind::Read))
    }

    /// A `fileVersion` call: `path` is the path string itself.
    pub(crate) fn version_from_js(
        root: Result<RootArg, ReadFileError>,
        path: Unknown,
    ) -> Result<ReadCall, ReadFileError> {
        let path = string_or_type(&path).map_err(|got| Argument::Path.wrong_kind("path", got))?;
        let request = ReadRequest::for_path(path)?;
        let root = root.map_err(|error| error.for_path(&request.path))?;
        Ok(ReadCall::new(
            root,
            request,
            CallKind::Version { media: false },
        ))
    }

    /// A toolkit's `view` of `input`: the window a toolkit's `readFile` reads, `pages`, and
    /// code read as code (`outline`, `symbol`, `ranges`); `outlines`: whether a read that
    /// places no window may be given a long source file's outline.
    pub(crate) fn view_from_js(
        root: Result<RootArg, ReadFileError>,
        input: Unknown,
        outlines: bool,
    ) -> Result<ReadCall, ReadFileError> {
        let (request, placed) = placed_request_from_js(&input, Fields::Toolkit)?;
        let pages = pages_from_js(&input, &request.path);
        let placed = placed || !matches!(pages, Ok(None));
        let code = match code_from_js(&input, &request.path)? {
            Some(ask) => ViewCode::Asked(Box::new(ask)),
            None if outlines && !placed => ViewCode::Unasked,
            None => ViewCode::Off,
        };
        let root = root.map_err(|error| error.for_path(&request.path))?;
        let stage = Stage::first_for(&request);
        let opened = None;
        let kind = CallKind::View {
            pages,
            stage,
            opened,
            code,
        };
        Ok(ReadCall::new(root, request, kind))
    }

    /// This `view`, to be run in its media stage on the file its text stage `opened` (see
    /// [`Reply::NeedsDecoding`]).
    pub(crate) fn decoding(self, opened: Box<Opened>) -> ReadCall {
        let kind = match self.kind {
            CallKind::View { pages, code, .. } => CallKind::View {
                pages,
                stage: Stage::Media,
                opened: Some(opened),
                code,
            },
            kind => kind,
        };
        ReadCall { kind, ..self }
    }

    /// A call of `dialect`'s tool beneath the root path `workspace_root`.
    pub(crate) fn dialect(workspace_root: String, dialect: Dialect, call: DialectCall) -> ReadCall {
        let kind = CallKind::Dialect(dialect, call);
        ReadCall::new(RootArg::Path(workspace_root), named(dialect.name()), kind)
    }

    /// A `readFiles` call: `inputs` an array of at most [`MAX_BATCH_FILES`] inputs, each
    /// checked on its own.
    pub(crate) fn many_from_js(
        root: Result<RootArg, ReadFileError>,
        inputs: Unknown,
        fields: Fields,
    ) -> Result<ReadCall, ReadFileError> {
        const LABEL: &str = "readFiles";
        let invalid =
            |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, LABEL, reason);
        let env = Env::from_raw(inputs.value().env);
        let kind = type_of(&inputs);
        if kind != "array" {
            return Err(invalid(format!(
                "inputs must be an array of inputs like {{ path: \"src/main.ts\" }} (got {kind})"
            )));
        }
        let array = Object::from_unknown(inputs);
        let length = js::cleared(&env, array.and_then(|array| array.get_array_length()))
            .map_err(|_| invalid("inputs.length could not be read".into()))?;
        if length > MAX_BATCH_FILES {
            return Err(invalid(format!(
                "inputs has {length} entries, more than MAX_BATCH_FILES ({MAX_BATCH_FILES}); split it"
            )));
        }
        let mut requests = Vec::with_capacity(length as usize);
        for index in 0..length {
            let element = Object::from_unknown(inputs).and_then(|array| array.get_element(index));
            let request = match js::cleared(&env, element) {
                Ok(input) => request_from_js(&input, fields),
                Err(_) => Err(invalid(format!(
                    "inputs[{index}] could not be read (it threw)"
                ))),
            };
            requests.push(request);
        }
        let root = root.map_err(|error| error.for_path(LABEL))?;
        Ok(ReadCall::new(root, named(LABEL), CallKind::Many(requests)))
    }

    /// This version call, answering for an image, notebook or PDF over the text size limit
    /// the version its media read records.
    pub(crate) fn with_media_versions(self) -> ReadCall {
        let kind = match self.kind {
            CallKind::Version { .. } => CallKind::Version { media: true },
            kind => kind,
        };
        ReadCall { kind, ..self }
    }

    pub(crate) fn with_rules(self, rules: Arc<Rules>) -> ReadCall {
        ReadCall { rules, ..self }
    }

    /// The engine's options for one read of this call with `access`: its rules, and a
    /// version of the file read when there is a ledger to record it in.
    fn options(&self, access: Access) -> ReadOptions<'_> {
        ReadOptions {
            policy: self.rules.policy.as_ref(),
            max_content_bytes: self.rules.max_content_bytes,
            versioned: self.ledger.is_some(),
            max_file_bytes: self.rules.max_file_bytes,
            line_indexes: self.line_indexes.as_deref(),
            stop: self.stop.as_deref(),
            max_tokens: self.rules.max_tokens,
            access,
            outlines: self.outlines.as_deref(),
        }
    }

    /// This call, stopped (a long scan at its next chunk) once `stop` is set.
    pub(crate) fn with_stop(self, stop: Arc<AtomicBool>) -> ReadCall {
        let stop = Some(stop);
        ReadCall { stop, ..self }
    }

    pub(crate) fn with_ledger(self, ledger: Arc<Ledger>) -> ReadCall {
        let ledger = Some(ledger);
        ReadCall { ledger, ..self }
    }

    /// This `readFile` call, answered as the response line of `answer`.
    pub(crate) fn answered_as(self, answer: McpAnswer) -> ReadCall {
        let mcp_answer = Some(Box::new(answer));
        ReadCall { mcp_answer, ..self }
    }

    /// This call, its window answered with the model's text of it (`{ output, text }`).
    pub(crate) fn with_text(self, text: TextOptions) -> ReadCall {
        let text = Some(text);
        ReadCall { text, ..self }
    }

    /// This call, its model text told to `memory` (a `dedupeReads` toolkit's) when delivered.
    pub(crate) fn with_memory(self, memory: Option<Arc<Mutex<ReadMemory>>>) -> ReadCall {
        ReadCall { memory, ..self }
    }

    /// This call, keeping the outlines it makes in `outlines` (a toolkit's).
    pub(crate) fn with_outlines(self, outlines: Arc<OutlineCache>) -> ReadCall {
        let outlines = Some(outlines);
        ReadCall { outlines, ..self }
    }

    pub(crate) fn with_line_indexes(self, line_indexes: Arc<LineIndexCache>) -> ReadCall {
        let line_indexes = Some(line_indexes);
        ReadCall {
            line_indexes,
            ..self
        }
    }

    /// `readFileSync`: its answer is delivered as it returns.
    pub(crate) fn run(&self) -> Result<ReadFileOutput, ReadFileError> {
        let reply = waited(self.run_with(&mut OpenedRoots::default(), Access::MayWait))?;
        match reply.delivered() {
            Reply::Output(output, _, _) => Ok(output),
            _ => Err(ReadFileError::new(
                ErrorCode::Internal,
                &self.request.path,
                "readFileSync answered something other than a window",
            )),
        }
    }

    /// `error`, when it is a toolkit's refusal of a file's size, naming the option that
    /// lifts the limit: `maxFileBytes` for text, `media.maxFileBytes` for an image, a
    /// notebook or a PDF. A size refusal of the specification's functions has no option.
    fn explained(&self, mut error: ReadFileError) -> ReadFileError {
        if self.rules.policy.is_none() {
            return error;
        }
        let option = match error.size_limit {
            Some(SizeLimit::Text) => "maxFileBytes",
            Some(SizeLimit::Media) => "media.maxFileBytes",
            None => return error,
        };
        error.reason = format!("{}; the toolkit's {option} lifts the limit", error.reason);
        error
    }

    /// Whether it may be run from memory ([`Access::FromMemory`]): a `readFile`, a dialect's
    /// call, or a `view` in its text stage (a version hashes the whole file and a batch is
    /// many reads; both stay on the pool, as does a decode).
    pub(crate) fn may_run_from_memory(&self) -> bool {
        match &self.kind {
            CallKind::Read | CallKind::Dialect(..) => true,
            // A parse waits: the engine says so, and a kept outline is answered from memory.
            CallKind::View { stage, .. } => *stage == Stage::Text,
            CallKind::Version { .. } | CallKind::Many(_) => false,
        }
    }

    /// Whether it may decode an image, a notebook or a PDF (a `view` in its media stage):
    /// seconds of a pool thread.
    pub(crate) fn decodes(&self) -> bool {
        matches!(
            self.kind,
            CallKind::View {
                stage: Stage::Media,
                ..
            }
        )
    }

    /// The one code path of every call, with `access`: on the pool (roots resolved once for
    /// the calls it runs together, in `roots`) and for `readFileSync` it may wait; from
    /// memory, a root path not in the root cache, or anything else that would wait, is
    /// [`Stop::WouldBlock`], and the call is run again where it may wait.
    pub(crate) fn run_with(&self, roots: &mut OpenedRoots, access: Access) -> Attempt<Reply> {
        let explained = |stop: Stop| stop.map(|error| self.explained(error));
        match self.reply_with(roots, access) {
            Ok(Reply::Many(results, seen)) => {
                let results = results
                    .into_iter()
                    .map(|result| result.map_err(|error| self.explained(error)));
                Ok(Reply::Many(results.collect(), seen))
            }
            reply => reply.map_err(explained),
        }
    }

    fn reply_with(&self, roots: &mut OpenedRoots, access: Access) -> Attempt<Reply> {
        if let CallKind::Dialect(dialect, call) = &self.kind {
            // A dialect answers a root that cannot be opened its own way.
            let root = self.opened_root(roots, access).ok_or(Stop::WouldBlock)?;
            return dialect_reply(*dialect, call, root.as_deref(), access);
        }
        if access == Access::FromMemory && !self.may_run_from_memory() {
            return Err(Stop::WouldBlock);
        }
        let root = self.opened_root(roots, access).ok_or(Stop::WouldBlock)?;
        let root = root.map_err(|error| error.for_path(&self.request.path))?;
        let options = self.options(access);
        match &self.kind {
            CallKind::Read => {
                let (output, version) = read_file(&root, &self.request, options)?;
                Ok(self.window_reply(output, Seen::new(&self.ledger, version)))
            }
            CallKind::Version { media: with_media } => Ok(self.version(&root, *with_media)?),
            CallKind::Many(requests) => {
                let (results, seen) = self.read_many(&root, requests);
                Ok(Reply::Many(results, seen))
            }
            CallKind::View {
                pages,
                stage,
                opened,
                code,
            } => self.view(
                &root,
                pages,
                (*stage, code.mode(), opened.as_deref()),
                options,
            ),
            CallKind::Dialect(dialect, call) => dialect_reply(*dialect, call, Ok(&root), access),
        }
    }

    /// The reply of a `fileVersion`; `with_media`: an image, notebook or PDF over the text
    /// size limit has the version its media read records.
    fn version(&self, root: &Root, with_media: bool) -> Result<Reply, ReadFileError> {
        let policy = self.rules.policy.as_ref();
        let path = &self.request.path;
        let version = |max: Option<u64>| match max {
            None => file_version(root, path, policy),
            Some(max) => file_version_within(root, path, policy, max),
        };
        if !with_media {
            return version(self.rules.max_file_bytes).map(Reply::Version);
        }
        // An image or a PDF over 1 MiB has the version its media read recorded (a hash
        // of its bytes); a text file over it, the version of the toolkit's limit.
        let whole = self.rules.max_file_bytes.map(|max| max.min(MAX_FILE_BYTES));
        match version(whole) {
            Err(error) if error.code == ErrorCode::SizeLimitExceeded => {
                let media = media::media_version(root, path, policy, &self.rules.media)?;
                match (media, self.rules.max_file_bytes) {
                    (Some(media), _) => Ok(Reply::Version(media)),
                    (None, Some(max)) if max > MAX_FILE_BYTES => {
                        version(Some(max)).map(Reply::Version)
                    }
                    (None, _) => Err(error),
                }
            }
            version => version.map(Reply::Version),
        }
    }

    /// The reply of a `view` in `stage` (of the file its text stage `opened`, if it did): a
    /// window (or its MCP response line), typed parts, or that it needs decoding. The pages
    /// asked for are checked when the file is decoded.
    fn view(
        &self,
        root: &Root,
        pages: &Result<Option<PartRange>, ReadFileError>,
        (stage, code, opened): (Stage, CodeMode, Option<&Opened>),
        options: ReadOptions,
    ) -> Attempt<Reply> {
        let pages = match stage {
            Stage::Media => pages.clone()?,
            Stage::Text => None,
        };
        let media = MediaRequest {
            path: &self.request.path,
            pages,
            max_text_bytes: self.rules.max_content_bytes.unwrap_or(MEDIA_TEXT_BYTES),
            stop: self.stop.as_deref(),
        };
        let limits = &self.rules.media;
        let viewed = view::view(
            root,
            &self.request,
            &media,
            (options, limits),
            (stage, code),
            opened,
        )?;
        Ok(match viewed {
            Viewed::Text((output, version)) => {
                self.window_reply(output, Seen::new(&self.ledger, version))
            }
            Viewed::Media(output, version) => {
                let frame = self.text.map(|_| model_text::media_frame(&output));
                Reply::Media(output, frame, Seen::new(&self.ledger, [version]))
            }
            Viewed::NeedsDecoding(opened) => Reply::NeedsDecoding(Box::new(opened)),
            Viewed::Code(read) => self.code_reply(read),
        })
    }

    /// The reply of a read of code: a window as any window, an outline or ranges with the
    /// model's text of them when the call asked for it. An MCP answer of them is made in
    /// JavaScript (`None`: the call is answered the general way).
    fn code_reply(&self, read: CodeRead) -> Reply {
        let (answer, version) = match read {
            CodeRead::Window((output, version)) => {
                return self.window_reply(output, Seen::new(&self.ledger, version));
            }
            CodeRead::Outline(output, version) => (CodeAnswer::Outline(output), Some(version)),
            CodeRead::Ranges(output, version) => (CodeAnswer::Ranges(output), version),
        };
        let seen = Seen::new(&self.ledger, version);
        if self.mcp_answer.is_some() {
            return Reply::McpAnswer(None, seen);
        }
        let text = self.text.map(|options| answer.text(options.line_numbers));
        Reply::Code(answer, text, seen)
    }

    /// The reply of a `readFile`: the window, or its MCP response line.
    fn window_reply(&self, output: ReadFileOutput, seen: Seen) -> Reply {
        match &self.mcp_answer {
            None => {
                let text = self.text.map(|options| WindowText {
                    text: model_text::render_read(&output, options),
                    given: self.memory.clone().map(|memory| Given {
                        memory,
                        from_column: self.request.start_column > 1,
                    }),
                });
                Reply::Output(output, text, seen)
            }
            Some(answer) => Reply::McpAnswer(answer.encode(&output), seen),
        }
    }

    /// The reads of `readFiles`, run in parallel on rayon's threads (the pool thread that
    /// runs this waits for them) [`READS_AT_ONCE`] at a time, then given the batch's budget
    /// in input order: a window that fits is kept; one that does not is read again with
    /// what is left as its budget, so it is narrowed (fewer lines, `truncated` and
    /// `next_start_line` right; a first line cut and marked), never refused; a file that
    /// gets less than [`MIN_CONTENT_BUDGET`] gets nothing, and its error says to read it on
    /// its own. A window that does not fit is dropped as soon as its group is done, so a
    /// call holds at most what it returns plus one group's windows. Only the reads kept are
    /// seen (for the ledger).
    pub(crate) fn read_many(
        &self,
        root: &Root,
        requests: &[Result<ReadRequest, ReadFileError>],
    ) -> (Vec<Result<ReadFileOutput, ReadFileError>>, Seen) {
        let options = self.options(Access::MayWait);
        let read = |request: &Result<ReadRequest, ReadFileError>| {
            let request = request.as_ref().map_err(Clone::clone)?;
            waited(read_file(root, request, options))
        };
        let budget = self.batch_budget();
        let mut room = budget;
        let mut results = Vec::with_capacity(requests.len());
        let mut seen = Vec::new();
        for group in requests.chunks(READS_AT_ONCE) {
            for (read, request) in parallel_map(group, read).into_iter().zip(group) {
                let read = read.and_then(|read| self.within(root, request, read, room, budget));
                let result = read.map(|(output, version)| {
                    room -= output.content.as_str().len();
                    seen.extend(version);
                    output
                });
                results.push(result);
            }
        }
        (results, Seen::new(&self.ledger, seen))
    }

    /// The content one `readFiles` call returns at most.
    fn batch_budget(&self) -> usize {
        let budget = self.rules.max_batch_content_bytes;
        budget.unwrap_or(MAX_BATCH_CONTENT_BYTES as usize)
    }

    /// `read` when its content fits in `room`; else the same window read again with `room`
    /// as its content budget, or, with less room than any window needs, why it gets none.
    fn within(
        &self,
        root: &Root,
        request: &Result<ReadRequest, ReadFileError>,
        read: Read,
        room: usize,
        budget: usize,
    ) -> Result<Read, ReadFileError> {
        if read.0.content.as_str().len() <= room {
            return Ok(read);
        }
        let Ok(request) = request else {
            return Ok(read);
        };
        if room < MIN_CONTENT_BUDGET {
            return Err(no_room_for(request, room, budget));
        }
        let narrowed = ReadOptions {
            max_content_bytes: Some(
                self.rules
                    .max_content_bytes
                    .map_or(room, |own| own.min(room)),
            ),
            ..self.options(Access::MayWait)
        };
        waited(read_file(root, request, narrowed))
    }

    /// The call's root, or why it cannot be opened (about the root); `None` when that
    /// would wait: from memory, only a root in the root cache is found
    /// ([`root_cache::open_from_memory`]).
    fn opened_root(
        &self,
        roots: &mut OpenedRoots,
        access: Access,
    ) -> Option<Result<Arc<Root>, ReadFileError>> {
        match (&self.root, access) {
            (RootArg::Open(root), _) => Some(Ok(root.clone())),
            (RootArg::Path(path), Access::MayWait) => Some(roots.open(path)),
            (RootArg::Path(path), Access::FromMemory) => root_cache::open_from_memory(path).map(Ok),
        }
    }
}

/// The request of a call that reads no window of its own (a batch, a dialect's call): it only
/// names the call, in its promise's errors.
fn named(label: &str) -> ReadRequest {
    ReadRequest {
        path: label.to_owned(),
        start_line: 1,
        max_lines: 1,
        start_column: 1,
        max_lines_capped: false,
        lines_from_end: None,
    }
}

/// The reply of `dialect`'s `call` beneath `root` (or why it could not be opened), its reads
/// made with `access`; from memory, [`Stop::WouldBlock`] when one of them would wait.
fn dialect_reply(
    dialect: Dialect,
    call: &DialectCall,
    root: Result<&Root, &ReadFileError>,
    access: Access,
) -> Attempt<Reply> {
    let reader = Reader::new(access);
    let answer = dialect.execute(root.map_err(Clone::clone), call, &reader);
    let answer = reader.finish(answer).ok_or(Stop::WouldBlock)?;
    Ok(answer.map(Reply::Dialect)?)
}

/// The text one media answer carries at most without a toolkit content budget: about 16,000
/// tokens, a long chapter of a PDF or a notebook's worth of cells, well within every model's
/// context.
const MEDIA_TEXT_BYTES: usize = 64 * 1024;

/// Bytes of text and image data a media answer carries.
fn media_len(output: &MediaOutput) -> usize {
    output
        .parts
        .iter()
        .map(|part| match part {
            media::MediaPart::Text(text) => text.len(),
            media::MediaPart::Image(image) => image.data.len(),
        })
        .sum()
}

/// How many reads of one `readFiles` call run at once: few enough that their windows (up to
/// ~1 MiB of content each, and the bytes it was decoded from) stay a fixed amount beside the
/// 4 MiB a call returns; many enough that waiting for the pool's threads once per group costs
/// small files little (the benchmark README has both measured).
const READS_AT_ONCE: usize = 16;

/// `SIZE_LIMIT_EXCEEDED` for a file that gets nothing of the batch's `budget`: `room` is
/// what is left, less than any window needs.
fn no_room_for(request: &ReadRequest, room: usize, budget: usize) -> ReadFileError {
    ReadFileError::new(
        ErrorCode::SizeLimitExceeded,
        &request.path,
        format!(
            "nothing of it fits in what is left of this readFiles call's {budget} bytes of \
             content ({room}); read it on its own"
        ),
    )
}

/// `items` mapped by `map`, in order, on rayon's threads (which stay up between calls;
/// the calling thread waits for them).
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    map: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    use rayon::prelude::*;
    items.par_iter().map(map).collect()
}

/// The root path a run of calls resolved last. Calls sent to the pool together resolve
/// their root path once, as if at the same moment; a lone call resolves it afresh.
#[derive(Default)]
pub(crate) struct OpenedRoots(Option<(String, Arc<Root>)>);

impl OpenedRoots {
    pub(crate) fn open(&mut self, path: &str) -> Result<Arc<Root>, ReadFileError> {
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
