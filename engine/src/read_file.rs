//! The `read_file` use case: argument check -> sandbox -> stat -> kind -> size -> binary ->
//! read -> window, in that fixed order. Sync and async callers both run [`read_file`].

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::AtomicBool;

use crate::attempt::{Access, Attempt, Stop};
use rustix::fs::Stat;
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::chunked::{
    self, CHUNK_BYTES, FromMemoryReads, LineIndexCache, ReadAt, ScanPace, Scanned, WindowAsk,
};
use crate::error::{ErrorCode, ReadFileError};
use crate::file_guard::{self, FileBytes, MAX_FROM_MEMORY_BYTES, Span};
use crate::file_status;
use crate::policy::Policy;
use crate::request::{MAX_FILE_BYTES, MAX_LINES_CAPPED_NOTE, MAX_MAX_LINES, ReadRequest};
use crate::sandbox::{OpenedFile, Root};
use crate::source::{self, Source};
use crate::suggest;
use crate::tokens::{TokenBudget, TokenFit};
use crate::version::FileVersion;
use crate::window::{self, Fit, LinePlace};

/// The contract's `ReadFileOutput`.
#[derive(Debug, PartialEq)]
pub struct ReadFileOutput {
    /// The requested path, normalized and relative to the workspace root.
    pub path: String,
    pub content: Content,
    pub truncated: bool,
    pub next_start_line: Option<u64>,
    pub meta: ReadFileMeta,
    /// Where the window's line continues when it was cut to fit the content budget (a
    /// toolkit's answer only; never set without a budget).
    pub continuation: Option<Continuation>,
    /// What the answer tells the model beside the window: [`MAX_LINES_CAPPED_NOTE`] when
    /// the request's `max_lines` was capped and the file goes on after the window.
    pub note: Option<&'static str>,
}

impl ReadFileOutput {
    /// The first line of the window: worked out from where it ends.
    pub fn first_line(&self) -> u64 {
        first_line(&self.meta, self.next_start_line)
    }

    /// The output with its `content` left out (an MCP answer's `structuredContent` past
    /// its size, whose text carries the lines).
    pub fn without_content(&self) -> OutputFields<'_> {
        OutputFields {
            output: self,
            content: false,
        }
    }
}

/// The output as JavaScript and JSON have it: the specification's keys in its order, then,
/// for a toolkit's answer, its `note`, or else, when its line was cut, the `continuation`
/// and `cut_line_bytes`. Every other answer is the specification's shape exactly.
impl Serialize for ReadFileOutput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = OutputFields {
            output: self,
            content: true,
        };
        fields.serialize(serializer)
    }
}

/// A [`ReadFileOutput`]'s fields, with or without its `content`.
pub struct OutputFields<'a> {
    output: &'a ReadFileOutput,
    content: bool,
}

impl Serialize for OutputFields<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let output = self.output;
        let mut fields = serializer.serialize_struct("ReadFileOutput", 8)?;
        fields.serialize_field("path", &output.path)?;
        if self.content {
            fields.serialize_field("content", output.content.as_str())?;
        }
        fields.serialize_field("truncated", &output.truncated)?;
        fields.serialize_field("next_start_line", &output.next_start_line)?;
        fields.serialize_field("meta", &output.meta)?;
        match (output.note, output.continuation) {
            (Some(note), _) => fields.serialize_field("note", note)?,
            (None, Some(continuation)) => {
                fields.serialize_field("continuation", &continuation)?;
                if let Some(bytes) = continuation.line_bytes {
                    fields.serialize_field("cut_line_bytes", &bytes)?;
                }
            }
            (None, None) => {}
        }
        fields.end()
    }
}

/// The first line of a window of `meta.returned_line_count` lines after which the file goes
/// on from `next_start_line` (`None`: the window ends the file).
pub(crate) fn first_line(meta: &ReadFileMeta, next_start_line: Option<u64>) -> u64 {
    let returned = u64::from(meta.returned_line_count);
    match next_start_line {
        None => (meta.line_count + 1).saturating_sub(returned),
        Some(next) => next.saturating_sub(returned),
    }
}

/// The arguments of the call that reads on from where a cut line was cut.
/// Serialised as those arguments alone; the line's length goes beside them
/// (`cut_line_bytes`), so that the object can be spread into the next call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Continuation {
    pub start_line: u64,
    /// The 1-based column (byte of the line as stored) the rest of the line starts at.
    pub start_column: u64,
    /// The cut line's length in bytes as stored, its terminator not counted: the model is
    /// told how much of it is left. `None` only for an answer that did not say (one made
    /// by someone else's toolkit).
    #[serde(skip)]
    pub line_bytes: Option<u64>,
}

/// The contract's `ReadFileOutput.meta` (serialised with the contract's keys, in its order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ReadFileMeta {
    pub byte_length: u64,
    pub line_count: u64,
    pub returned_line_count: u32,
    pub mtime_ms: i64,
}

/// The window's text. It keeps the file's buffer and borrows the window from it when no
/// decoding was needed, so the text is copied once, into the JavaScript string.
#[derive(Debug, PartialEq)]
pub struct Content {
    buffer: Vec<u8>,
    /// Invariant: `buffer[range]` is valid UTF-8 (checked once, in [`Content::new`]).
    range: Range<usize>,
}

impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::owned(text)
    }
}

impl Content {
    /// The window `buffer[range]`, whose decoded text is `decoded` when decoding changed it
    /// (else the bytes are already the text).
    fn of_window(buffer: Vec<u8>, range: Range<usize>, decoded: Option<String>) -> Content {
        match decoded {
            None => Content { buffer, range },
            Some(text) => Content::owned(text),
        }
    }

    pub(crate) fn owned(text: String) -> Content {
        Content {
            range: 0..text.len(),
            buffer: text.into_bytes(),
        }
    }

    /// Keeps the first `len` bytes, `len` a character boundary of the text.
    fn shorten(&mut self, len: usize) {
        debug_assert!(self.as_str().is_char_boundary(len));
        self.range.end = self.range.start + len.min(self.range.len());
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: `new` keeps `range` only where `window::decode` accepted the bytes as UTF-8
        // (it borrowed them), or over a `String`'s bytes; `buffer` is never changed after.
        // Checking again here would run on the JS thread, once per result, for nothing.
        unsafe { std::str::from_utf8_unchecked(&self.buffer[self.range.clone()]) }
    }
}

/// What a toolkit adds to a read: its policy, its content budget, and whether it keeps a
/// read ledger. Made for each call; the default is a bare read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions<'p> {
    /// Deny and allow rules, checked on the file opened before it is read.
    pub policy: Option<&'p Policy>,
    /// The most bytes (UTF-8) `content` may have, at least
    /// [`MIN_CONTENT_BUDGET`](window::MIN_CONTENT_BUDGET): the window ends at the last whole
    /// line that fits, or a first line over it is cut and marked ([`window::fit`]).
    pub max_content_bytes: Option<usize>,
    /// Whether a read also gives the [`FileVersion`] of the bytes it read.
    pub versioned: bool,
    /// The largest file read, in bytes; `None`: the specification's [`MAX_FILE_BYTES`]. A
    /// file over [`MAX_FILE_BYTES`] is never read whole: its window is found by a chunked
    /// scan, and its content is never more than [`MAX_FILE_BYTES`] bytes.
    pub max_file_bytes: Option<u64>,
    /// Where the line indexes of files over [`MAX_FILE_BYTES`] are kept between reads (a
    /// toolkit's), so that a later page of an unchanged file reads from the chunk the
    /// window starts in to its end only; `None`: every read scans the whole file.
    pub line_indexes: Option<&'p LineIndexCache>,
    /// Set (from any thread) when the caller gives up on the read: a scan of a file over
    /// [`MAX_FILE_BYTES`] stops at its next chunk, with [`ErrorCode::Aborted`].
    pub stop: Option<&'p AtomicBool>,
    /// The most tokens a model is given for the read, estimated ([`TokenBudget::fit`]): a
    /// window over it is read again with as many bytes as fit, so it ends at the last whole
    /// line within it, or its first line is cut and marked, as `max_content_bytes` cuts.
    pub max_tokens: Option<TokenBudget>,
    /// Whether the read may wait for the disk, or is done from memory (an event loop's).
    pub access: Access,
    /// Where a toolkit keeps the outlines of the files it read last (see
    /// [`OutlineCache`](crate::code::OutlineCache)); `None`: every outline is made anew.
    pub outlines: Option<&'p crate::code::OutlineCache>,
}

impl<'p> ReadOptions<'p> {
    /// These options, for a read done from memory ([`Access::FromMemory`]).
    pub fn from_memory(self) -> ReadOptions<'p> {
        ReadOptions {
            access: Access::FromMemory,
            ..self
        }
    }

    /// The largest file read, in bytes.
    pub fn max_file_bytes(&self) -> u64 {
        self.max_file_bytes.unwrap_or(MAX_FILE_BYTES)
    }
}

/// What a read gives: the contract's output, and the version of the file read when
/// [`ReadOptions::versioned`].
pub type Read = (ReadFileOutput, Option<FileVersion>);

/// Reads the requested window of a file beneath `root`, under `options`, as
/// [`ReadOptions::access`] allows: with [`Access::MayWait`] it never ends in
/// [`Stop::WouldBlock`] ([`waited`](crate::attempt::waited) takes its answer); from memory,
/// a file is read whole up to [`MAX_FROM_MEMORY_BYTES`], a larger one only when the toolkit
/// remembers this version of it (its window alone is read), and the answer, when there is
/// one, is the one a read that may wait gives. A toolkit's `NOT_FOUND` (one with a policy)
/// names the readable files closest to the path asked for, if any are close, and its
/// `NOT_FILE` of a directory what the directory holds ([`suggest`]): found by listing
/// directories, which may wait, so from memory such an error is [`Stop::WouldBlock`].
pub fn read_file(root: &Root, request: &ReadRequest, options: ReadOptions) -> Attempt<Read> {
    let read = source::open(root, &request.path, options.policy, options.access)
        .and_then(|opened| read_opened_window(request, options, (&opened.0, &opened.1)));
    with_next_steps_as_allowed(root, request, options, read)
}

/// [`read_file`] of the file `request` names, already opened (by `relative`): the same
/// answer, the file not looked up again.
pub(crate) fn read_opened_file(
    root: &Root,
    request: &ReadRequest,
    options: ReadOptions,
    opened: (&str, &OpenedFile),
) -> Attempt<Read> {
    let read = read_opened_window(request, options, opened);
    with_next_steps_as_allowed(root, request, options, read)
}

/// The window of `opened`, within the token budget, with the note the request calls for.
fn read_opened_window(
    request: &ReadRequest,
    options: ReadOptions,
    opened: (&str, &OpenedFile),
) -> Attempt<Read> {
    read_window(request, options, opened)
        .and_then(|read| {
            within_tokens(options, read, |narrowed| {
                read_window(request, narrowed, opened)
            })
        })
        .map(|read| noted(request, read))
}

/// `read`'s failure with what to read next ([`with_next_steps`]); from memory, a failure
/// that would be told so is [`Stop::WouldBlock`] (listing a directory may wait).
pub(crate) fn with_next_steps_as_allowed<T>(
    root: &Root,
    request: &ReadRequest,
    options: ReadOptions,
    read: Attempt<T>,
) -> Attempt<T> {
    read.map_err(|stop| match stop {
        Stop::Failed(error) if options.access == Access::FromMemory && lists(&error, &options) => {
            Stop::WouldBlock
        }
        stop => stop.map(|error| with_next_steps(error, root, &request.path, options.policy)),
    })
}

/// Whether a toolkit's `error` is told with what a directory holds ([`with_next_steps`]).
fn lists(error: &ReadFileError, options: &ReadOptions) -> bool {
    options.policy.is_some() && matches!(error.code, ErrorCode::NotFound | ErrorCode::NotFile)
}

/// How many times a window over its token budget is read again, narrower each time. Once is
/// enough unless the file changed in between (or the budget is smaller than the smallest
/// content budget).
const TOKEN_FITS: usize = 3;

/// `read`, or, when its text is over the options' token budget, the same window read
/// `again` with the bytes that fit as its content budget (see [`ReadOptions::max_tokens`]).
fn within_tokens(
    options: ReadOptions,
    mut read: Read,
    mut again: impl FnMut(ReadOptions) -> Attempt<Read>,
) -> Attempt<Read> {
    let Some(budget) = options.max_tokens else {
        return Ok(read);
    };
    for _ in 0..TOKEN_FITS {
        let Some(bytes) = bytes_within(budget, &read.0) else {
            break;
        };
        let narrowed = ReadOptions {
            max_content_bytes: Some(
                options
                    .max_content_bytes
                    .map_or(bytes, |own| own.min(bytes)),
            ),
            ..options
        };
        read = again(narrowed)?;
    }
    Ok(read)
}

/// The content budget, in bytes, under which `output`'s window fits `budget`; `None` when it
/// fits as it is.
fn bytes_within(budget: TokenBudget, output: &ReadFileOutput) -> Option<usize> {
    let first_line = output.first_line();
    let lines = output.meta.returned_line_count;
    match budget.fit(&output.path, output.content.as_str(), first_line, lines) {
        TokenFit::Whole => None,
        TokenFit::Lines { bytes } => Some(bytes),
        // Room for the longest marker the cut line may get: its text gets at least `bytes`.
        TokenFit::FirstLine { bytes } => {
            Some(bytes + 1 + window::cut_marker(first_line, u64::MAX, u64::MAX).len())
        }
    }
}

/// `error`, when it is a toolkit's (one with a `policy`), with what to read next: a
/// `NOT_FOUND` of `requested` names the near misses the policy admits, a `NOT_FILE` of a
/// directory what it holds ([`suggest`]); any other error as it is.
pub(crate) fn with_next_steps(
    mut error: ReadFileError,
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
) -> ReadFileError {
    let Some(policy) =
        policy.filter(|_| matches!(error.code, ErrorCode::NotFound | ErrorCode::NotFile))
    else {
        return error;
    };
    let Ok(relative) = root.relative_path(requested) else {
        return error;
    };
    match error.code {
        ErrorCode::NotFound => {
            let near = suggest::near_misses(root, &relative, policy);
            error.reason = suggest::with_suggestions(&error.reason, &near);
        }
        ErrorCode::NotFile => {
            if let Some(entries) = suggest::directory_entries(root, &relative, policy) {
                error.reason = suggest::with_entries(&error.reason, &entries);
            }
        }
        _ => {}
    }
    error
}

/// What a toolkit's answer says (its `note`) when the file grew while it was read: the
/// window is of the file as it was when the read began.
pub const GROWING_NOTE: &str =
    "the file is growing: this is how it was when the read began; read again for the rest";

/// `read` with the note its request calls for: a capped `max_lines` is told when it
/// made a difference (the window has [`MAX_MAX_LINES`] lines and the file goes on).
fn noted(request: &ReadRequest, (mut output, version): Read) -> Read {
    let capped = request.max_lines_capped
        && output.meta.returned_line_count == MAX_MAX_LINES
        && output.next_start_line.is_some();
    if capped {
        output.note = Some(MAX_LINES_CAPPED_NOTE);
    }
    (output, version)
}

/// The window of `opened` (by `relative`), within the options' content budget.
fn read_window(
    request: &ReadRequest,
    options: ReadOptions,
    (relative, opened): (&str, &OpenedFile),
) -> Attempt<Read> {
    let max_file_bytes = options.max_file_bytes();
    let max = max_file_bytes.min(MAX_FILE_BYTES);
    let access = options.access;
    let len = u64::try_from(opened.stat.st_size).unwrap_or(u64::MAX);
    let scanned = || large_window_of(request, options, relative, opened, CHUNK_BYTES);
    if len > MAX_FILE_BYTES && max_file_bytes > MAX_FILE_BYTES {
        return Ok(scanned()?);
    }
    // From memory, a file over what is read whole there is read only when it is remembered.
    let remembered = match access {
        Access::MayWait => remembered_window(request, options, relative, opened, &*opened.file)?,
        Access::FromMemory => {
            let reads = FromMemoryReads::new(&opened.file, len, MAX_FROM_MEMORY_BYTES);
            remembered_window(request, options, relative, opened, &reads)?
        }
    };
    if let Some(read) = remembered {
        return Ok(read);
    }
    match whole_window(request, options, relative, opened, max) {
        // It grew past what is read whole since it was opened: scan it.
        Err(Stop::Failed(error))
            if error.code == ErrorCode::SizeLimitExceeded
                && max_file_bytes > max
                && access == Access::MayWait =>
        {
            Ok(scanned()?)
        }
        read => read,
    }
}

/// The window of `opened` read whole (at most `max` bytes). For a toolkit, a file worth it
/// (at least [`REMEMBERED_FROM_BYTES`], its last change settled) is remembered: its line
/// index and content hash, under its identity, so that a later read of the same version
/// reads only its window ([`remembered_window`]). From memory, nothing is remembered (that
/// may wait for a write under way to end).
fn whole_window(
    request: &ReadRequest,
    options: ReadOptions,
    relative: &str,
    opened: &OpenedFile,
    max: u64,
) -> Attempt<Read> {
    let stat = opened.stat;
    let indexes = remembers(&options)
        .filter(|_| options.access == Access::MayWait && worth_remembering(&stat));
    if indexes.is_some() {
        // Bytes half-written by a write still under way must not be remembered.
        chunked::wait_for_writes_in_progress(&opened.file);
    }
    let span = Span::Whole { max };
    let bytes = source::read_opened(opened, &request.path, span, options.access)?;
    // The bytes are hashed whole for the version: the index need not hash them again.
    let pace = ScanPace {
        chunk: CHUNK_BYTES,
        stop: None,
        hash: false,
    };
    let index =
        indexes.and_then(|_| chunked::index_file(&bytes.bytes[..], bytes.file_len, pace).ok());
    let read = window_of(request, options, (relative.to_owned(), bytes))?;
    if let (Some(indexes), Some(index), Some(version)) = (indexes, index, &read.1) {
        indexes.insert(&stat, index.with_content_hash(version.hash));
    }
    Ok(read)
}

/// Files read whole that a toolkit remembers from this size on: below it, reading the whole
/// file costs about what finding its window does.
const REMEMBERED_FROM_BYTES: u64 = 64 * 1024;

/// Where a toolkit remembers the files it read: its line indexes, when it keeps a ledger.
fn remembers<'p>(options: &ReadOptions<'p>) -> Option<&'p LineIndexCache> {
    options.line_indexes.filter(|_| options.versioned)
}

/// Whether a file whose status is `stat` is worth remembering: large enough, and its last
/// change settled (any later write moves its times, so its identity names these bytes).
fn worth_remembering(stat: &Stat) -> bool {
    u64::try_from(stat.st_size).is_ok_and(|len| len >= REMEMBERED_FROM_BYTES)
        && file_status::settled(stat)
}

/// The window of `opened` found from what the toolkit remembers of this version of it (the
/// same device, inode, size, times), reading only the window and the index's pieces;
/// `None` when it remembers nothing of it, or the file changed while the window was read.
fn remembered_window(
    request: &ReadRequest,
    options: ReadOptions,
    relative: &str,
    opened: &OpenedFile,
    source: &(impl ReadAt + ?Sized),
) -> Result<Option<Read>, ReadFileError> {
    let Some(index) = remembers(&options).and_then(|indexes| indexes.get(&opened.stat)) else {
        return Ok(None);
    };
    let Some(hash) = index.content_hash() else {
        return Ok(None);
    };
    if index.facts().binary {
        return Err(binary_error(request));
    }
    let budget = options
        .max_content_bytes
        .map(|b| b.max(window::MIN_CONTENT_BUDGET));
    let ask = WindowAsk {
        start_line: request.start_line,
        lines_from_end: request.lines_from_end,
        start_column: request.start_column,
        max_lines: request.max_lines,
        keep: budget.map_or(usize::MAX, text_for),
    };
    let Ok(scanned) = chunked::window_from_index(source, &index, ask) else {
        return Ok(None);
    };
    let unchanged = rustix::fs::fstat(&opened.file)
        .is_ok_and(|after| file_status::same_version(&opened.stat, &after));
    if !unchanged {
        return Ok(None);
    }
    let version = options
        .versioned
        .then(|| FileVersion::remembered(relative.to_owned(), hash, &opened.stat, index.facts()));
    let request = &request.from_line_count(scanned.line_count);
    let output = scanned_output(relative.to_owned(), scanned, &opened.stat, request, budget);
    Ok(Some((output, version)))
}

/// The content budget of a read of a file over [`MAX_FILE_BYTES`]: the toolkit's, and never
/// more than such a file's whole text would be, so that no line of a huge file (a log
/// without newlines, a hole read as NUL bytes) is returned whole.
fn large_file_budget(options: &ReadOptions) -> usize {
    let most = MAX_FILE_BYTES as usize;
    options.max_content_bytes.map_or(most, |budget| {
        budget.clamp(window::MIN_CONTENT_BUDGET, most)
    })
}

/// The bytes of text that decide how a window fits `budget`: more than `budget + 1`, enough
/// for [`window::fit_window`] to decide; the few bytes more cover a character or a `\r\n`
/// cut at the end. What a chunked scan keeps of a window ([`WindowAsk::keep`]).
fn text_for(budget: usize) -> usize {
    budget.saturating_add(8)
}

/// The bytes of a window that decide how it fits `budget`: decoding never makes a text
/// shorter than half its bytes (`\r\n` -> `\n`), so this many decode to [`text_for`] it.
fn kept_for(budget: usize) -> usize {
    text_for(budget).saturating_mul(2)
}

/// The output for a file too large to read whole: its window found by a chunked scan,
/// within [`large_file_budget`], scanning `chunk` bytes at a time.
fn large_window_of(
    request: &ReadRequest,
    options: ReadOptions,
    relative: &str,
    opened: &OpenedFile,
    chunk: usize,
) -> Result<Read, ReadFileError> {
    let budget = large_file_budget(&options);
    let ask = WindowAsk {
        start_line: request.start_line,
        lines_from_end: request.lines_from_end,
        start_column: request.start_column,
        max_lines: request.max_lines,
        keep: text_for(budget),
    };
    let pace = ScanPace {
        chunk,
        stop: options.stop,
        hash: true,
    };
    let limits = (pace, options.max_file_bytes());
    let (scanned, stat) =
        source::scan_large(opened, &request.path, ask, limits, options.line_indexes)?;
    if scanned.facts.binary {
        return Err(binary_error(request));
    }
    let version = options.versioned.then(|| {
        let hash = scanned.content_hash;
        FileVersion::of_large_file(relative.to_owned(), &stat, &scanned.facts, hash)
    });
    let growing = scanned.growing;
    let request = &request.from_line_count(scanned.line_count);
    let mut output = scanned_output(relative.to_owned(), scanned, &stat, request, Some(budget));
    if growing {
        output.note = Some(GROWING_NOTE);
    }
    Ok((output, version))
}

/// The output of a window found from a line index (`scanned`), of a file whose status was
/// `stat`, fitted to `budget`.
fn scanned_output(
    relative: String,
    scanned: Scanned,
    stat: &Stat,
    request: &ReadRequest,
    budget: Option<usize>,
) -> ReadFileOutput {
    let window = WindowFacts {
        returned_line_count: scanned.returned_line_count,
        next_start_line: scanned.next_start_line,
        line_count: scanned.line_count,
        start_column: scanned.start_column,
        first_line_len: Some(scanned.first_line_len),
    };
    let file = FileFacts {
        byte_length: scanned.facts.file_len,
        mtime_ms: file_guard::mtime_ms(stat),
    };
    let kept_len = scanned.kept.len();
    shaped(
        relative,
        (scanned.kept, 0..kept_len),
        window,
        request,
        budget,
        file,
    )
}

pub(crate) fn binary_error(request: &ReadRequest) -> ReadFileError {
    ReadFileError::new(
        ErrorCode::BinaryNotSupported,
        &request.path,
        "binary file (NUL byte in the first 8192 bytes)",
    )
}

/// The output for the bytes of a whole file: the window of `request`, within the budget.
fn window_of(
    request: &ReadRequest,
    options: ReadOptions,
    (relative, file): Source,
) -> Result<Read, ReadFileError> {
    if file.binary {
        return Err(binary_error(request));
    }
    let version = options
        .versioned
        .then(|| FileVersion::of(relative.clone(), &file.bytes, file.mtime_ms));
    let mtime_ms = file.mtime_ms;
    let output = whole_file_window(request, options, relative, Cow::Owned(file.bytes), mtime_ms);
    Ok((output, version))
}

/// The output of `request`'s window of a whole file's `bytes`, within the options' content
/// budget: the window keeps `bytes` when they are owned, a copy of its own bytes when not.
fn whole_file_window(
    request: &ReadRequest,
    options: ReadOptions,
    relative: String,
    bytes: Cow<[u8]>,
    mtime_ms: i64,
) -> ReadFileOutput {
    let byte_length = bytes.len() as u64;
    let text = window::strip_bom(&bytes);
    let bom_len = bytes.len() - text.len();
    // A window counted from the end starts where the text's line count says.
    let from_end;
    let request = match request.lines_from_end {
        Some(_) => {
            from_end = request.from_line_count(window::line_count(text));
            &from_end
        }
        None => request,
    };
    let (window, start_column) = window::line_window_from(
        text,
        request.start_line,
        request.start_column,
        request.max_lines,
    );
    let range = window.bytes.start + bom_len..window.bytes.end + bom_len;
    let facts = WindowFacts {
        returned_line_count: window.returned_line_count,
        next_start_line: window.next_start_line,
        line_count: window.line_count,
        start_column,
        first_line_len: None,
    };
    let budget = options
        .max_content_bytes
        .map(|b| b.max(window::MIN_CONTENT_BUDGET));
    let facts_of_file = FileFacts {
        byte_length,
        mtime_ms,
    };
    let window = match bytes {
        Cow::Owned(bytes) => (bytes, range),
        Cow::Borrowed(bytes) => (bytes[range.clone()].to_vec(), 0..range.len()),
    };
    shaped(relative, window, facts, request, budget, facts_of_file)
}

/// A file read whole once, for several windows of one call (a read of ranges), and its
/// version.
pub(crate) struct WholeFile {
    relative: String,
    bytes: FileBytes,
    version: Option<FileVersion>,
}

/// The file `opened` read whole once, for several windows cut from it
/// ([`window_of_whole_file`]), when a window of it would be read from the whole file; `None`
/// when it would not (the toolkit remembers this version, or is about to, and reads each
/// window from its line index; or it is too large to read whole): read each window then.
pub(crate) fn read_whole_file(
    request: &ReadRequest,
    options: ReadOptions,
    (relative, opened): (&str, &OpenedFile),
) -> Attempt<Option<WholeFile>> {
    let len = u64::try_from(opened.stat.st_size).unwrap_or(u64::MAX);
    let max = options.max_file_bytes().min(MAX_FILE_BYTES);
    // A toolkit reads a window of a file it remembers, or is about to, from its line index.
    let indexed = remembers(&options).is_some_and(|indexes| {
        indexes.get(&opened.stat).is_some()
            || (options.access == Access::MayWait && worth_remembering(&opened.stat))
    });
    if indexed || len > max {
        return Ok(None);
    }
    let span = Span::Whole { max };
    let bytes = match source::read_opened(opened, &request.path, span, options.access) {
        Ok(bytes) => bytes,
        Err(Stop::WouldBlock) => return Err(Stop::WouldBlock),
        // It grew past what is read whole, or went: a window's read says what it is now.
        Err(Stop::Failed(_)) => return Ok(None),
    };
    if bytes.binary {
        return Err(Stop::Failed(binary_error(request)));
    }
    let version = options
        .versioned
        .then(|| FileVersion::of(relative.to_owned(), &bytes.bytes, bytes.mtime_ms));
    let relative = relative.to_owned();
    Ok(Some(WholeFile {
        relative,
        bytes,
        version,
    }))
}

/// The window `request` asks for of a file read whole once, as [`read_opened_file`] answers
/// it (within the budgets, with its note).
pub(crate) fn window_of_whole_file(
    request: &ReadRequest,
    options: ReadOptions,
    whole: &WholeFile,
) -> Attempt<Read> {
    let window = |options: ReadOptions| -> Read {
        let bytes = Cow::Borrowed(&whole.bytes.bytes[..]);
        let relative = whole.relative.clone();
        let output = whole_file_window(request, options, relative, bytes, whole.bytes.mtime_ms);
        (output, whole.version.clone())
    };
    within_tokens(options, window(options), |narrowed| Ok(window(narrowed)))
        .map(|read| noted(request, read))
}

/// Where a window lies among the file's lines.
struct WindowFacts {
    returned_line_count: u32,
    next_start_line: Option<u64>,
    line_count: u64,
    /// The column of its first line the window starts at (1: the line's start).
    start_column: u64,
    /// The bytes of the window's first line from where the window starts, its terminator
    /// not counted, when the window's bytes may hold only its first bytes; `None` when
    /// they hold the whole window.
    first_line_len: Option<u64>,
}

/// What `meta` says of the file itself.
struct FileFacts {
    byte_length: u64,
    mtime_ms: i64,
}

/// The output of a window whose bytes are `buffer[range]` (when they are not all of it,
/// enough to decode to [`text_for`] `budget` bytes), fitted to `budget`.
fn shaped(
    relative: String,
    (buffer, range): (Vec<u8>, Range<usize>),
    window: WindowFacts,
    request: &ReadRequest,
    budget: Option<usize>,
    file: FileFacts,
) -> ReadFileOutput {
    let (mut returned, mut next) = (window.returned_line_count, window.next_start_line);
    let start = request.start_line;
    // Under a budget, only what decides the fit is decoded (a window longer than that does
    // not fit whole, and the rest of it is never shown).
    let decided = budget.map_or(range.len(), |budget| range.len().min(kept_for(budget)));
    // A first line known to be longer than the budget is cut, whatever follows it: its text
    // decodes to at least its bytes (it holds no `\r\n`).
    let first_line_over = budget
        .zip(window.first_line_len)
        .is_some_and(|(budget, len)| len > budget as u64);
    let text = (!first_line_over).then(|| window::decode(&buffer[range.start..][..decided]));
    let fit = budget.map(|budget| match &text {
        Some(text) => (budget, window::fit_window(text, budget)),
        None => (budget, Fit::FirstLineCut),
    });
    let mut continuation = None;
    let content = match fit {
        Some((budget, Fit::FirstLineCut)) => {
            let cut = cut_first_line(&buffer[range], budget, start, &window);
            (returned, next) = (1, (start < window.line_count).then(|| start + 1));
            continuation = Some(Continuation {
                start_line: start,
                start_column: cut.next_column,
                line_bytes: Some(cut.line_len),
            });
            Content::owned(cut.content)
        }
        None | Some((_, Fit::Whole | Fit::Lines { .. })) => {
            let decoded = match text {
                Some(Cow::Owned(text)) => Some(text),
                _ => None,
            };
            let shown = range.start..range.start + decided;
            let mut content = Content::of_window(buffer, shown, decoded);
            if let Some((_, Fit::Lines { bytes, lines })) = fit {
                content.shorten(bytes);
                (returned, next) = (lines, Some(start + u64::from(lines)));
            }
            content
        }
    };
    ReadFileOutput {
        path: relative,
        content,
        truncated: next.is_some() || fit.is_some_and(|(_, fit)| fit != Fit::Whole),
        next_start_line: next,
        meta: ReadFileMeta {
            byte_length: file.byte_length,
            line_count: window.line_count,
            returned_line_count: returned,
            mtime_ms: file.mtime_ms,
        },
        continuation,
        note: None,
    }
}

/// The window's first line (line `line`, whose bytes from the window's start begin `raw`)
/// cut to fit `budget`, and marked.
fn cut_first_line(raw: &[u8], budget: usize, line: u64, window: &WindowFacts) -> window::CutLine {
    let rest_len = window
        .first_line_len
        .unwrap_or_else(|| window::line_text_end(raw, 0) as u64);
    let rest = &raw[..raw
        .len()
        .min(usize::try_from(rest_len).unwrap_or(usize::MAX))];
    let place = LinePlace {
        line,
        column: window.start_column,
        line_len: window.start_column - 1 + rest_len,
    };
    window::cut_line(rest, budget, place)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::waited;

    #[test]
    fn a_window_over_its_token_budget_is_read_again_to_fit_it() {
        let text: String = (1..=200)
            .map(|n| format!("line {n} of words that cost tokens\n"))
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f.txt"), &text).unwrap();
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let budget = TokenBudget {
            tokens: 400,
            tokenizer: crate::tokens::Tokenizer::default(),
            numbered: true,
        };
        let options = ReadOptions {
            max_tokens: Some(budget),
            ..ReadOptions::default()
        };
        let request = ReadRequest::for_path("f.txt".into()).unwrap();
        let (out, _) = waited(read_file(&root, &request, options)).unwrap();
        let lines = out.meta.returned_line_count;
        assert!((1..200).contains(&lines), "{lines} lines");
        assert_eq!(out.next_start_line, Some(u64::from(lines) + 1));
        let fit = budget.fit(&out.path, out.content.as_str(), 1, lines);
        assert_eq!(fit, TokenFit::Whole);
    }

    #[test]
    fn a_window_cut_from_a_file_read_once_is_the_window_read_alone() {
        let long_line = "é".repeat(300);
        let texts = [
            "one\ntwo\nthree\n".to_owned(),
            "\u{feff}crlf\r\nlines\r\nhere".to_owned(),
            format!("a\n{long_line}\nb\n{long_line}\n"),
            (1..=400)
                .map(|n| format!("line {n} {}\n", "x".repeat(n % 37)))
                .collect(),
        ];
        let budgets = [
            (None, None),
            (Some(200), None),
            (None, Some(60)),
            (Some(1000), Some(150)),
        ];
        let tokens = |tokens| TokenBudget {
            tokens,
            tokenizer: crate::tokens::Tokenizer::default(),
            numbered: true,
        };
        for text in &texts {
            let tmp = tempfile::tempdir().unwrap();
            std::fs::write(tmp.path().join("f.txt"), text).unwrap();
            let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
            let opened = source::open(&root, "f.txt", None, Access::MayWait).unwrap();
            let opened = (opened.0.as_str(), &opened.1);
            for (max_content_bytes, max_tokens) in budgets {
                let options = ReadOptions {
                    versioned: true,
                    max_content_bytes,
                    max_tokens: max_tokens.map(tokens),
                    ..ReadOptions::default()
                };
                let request = ReadRequest::for_path("f.txt".into()).unwrap();
                let whole = waited(read_whole_file(&request, options, opened)).unwrap();
                let whole = whole.expect("a small file is read whole");
                for (start, lines) in [(1, 2), (2, 1), (3, 500), (150, 40), (399, 10), (900, 3)] {
                    let request = ReadRequest {
                        start_line: start,
                        max_lines: lines,
                        ..request.clone()
                    };
                    // Compared as the answer shows them: the content's text, not its buffer.
                    let shown = |(output, version): Read| {
                        (
                            serde_json::to_string(&output).unwrap(),
                            output.continuation,
                            version,
                        )
                    };
                    let alone = waited(read_opened_file(&root, &request, options, opened));
                    let cut = waited(window_of_whole_file(&request, options, &whole));
                    let case =
                        format!("{start}+{lines} under {max_content_bytes:?}, {max_tokens:?}");
                    assert_eq!(cut.map(shown), alone.map(shown), "{case}");
                }
            }
        }
    }

    /// `(content, truncated, next_start_line, returned_line_count)` of reading `text` as a
    /// file from `start` under `budget`.
    fn read(text: &str, start: u64, budget: usize) -> (String, bool, Option<u64>, u32) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f.txt"), text).unwrap();
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let request = ReadRequest::for_path("f.txt".into())
            .unwrap()
            .with_start_line(crate::request::NumberArg::Number(start as f64))
            .unwrap();
        let options = ReadOptions {
            max_content_bytes: Some(budget),
            ..ReadOptions::default()
        };
        let (out, _) = waited(read_file(&root, &request, options)).unwrap();
        assert!(out.content.as_str().len() <= budget);
        let meta = out.meta.returned_line_count;
        (
            out.content.as_str().into(),
            out.truncated,
            out.next_start_line,
            meta,
        )
    }

    #[test]
    fn the_budget_ends_the_window_at_the_last_whole_line_that_fits() {
        let line = |c: char| format!("{}\n", c.to_string().repeat(149)); // 150 bytes
        let text = [line('a'), line('b'), line('c')].concat();
        // Exact fit of everything, and of two lines.
        assert_eq!(read(&text, 1, 450), (text.clone(), false, None, 3));
        let two = [line('a'), line('b')].concat();
        assert_eq!(read(&text, 1, 300), (two.clone(), true, Some(3), 2));
        // One byte short of two lines.
        assert_eq!(read(&text, 1, 299), (line('a'), true, Some(2), 1));
        // From line 2, the last line fits whole.
        assert_eq!(read(&text, 3, 150), (line('c'), false, None, 1));
    }

    #[test]
    fn a_first_line_over_the_budget_is_cut_at_a_character_and_marked() {
        // "é" is 2 bytes: 300 of them and a newline, then a short last line.
        let long = format!("{}\n", "é".repeat(300));
        let text = format!("{long}end\n");
        let (content, truncated, next, returned) = read(&text, 1, 200);
        let (kept, marker) = content.split_once('\n').unwrap();
        assert!(kept.chars().all(|c| c == 'é'));
        let column = kept.len() + 1;
        assert_eq!(
            marker,
            format!(
                "[line 1 continues at column {column} of 600: call read_file with start_line 1 \
                 and start_column {column}]\n"
            )
        );
        assert_eq!((truncated, next, returned), (true, Some(2), 1));
        // The last line, cut: nothing follows it, yet it is truncated. The marker sized for
        // column 500 is 95 bytes: 128 - 1 - 95 = 32 bytes, column 33, whose marker is 93
        // bytes: 128 - 1 - 93 = 34 bytes of the line are shown.
        let text = format!("short\n{}", "x".repeat(500));
        let (content, truncated, next, returned) = read(&text, 2, 128);
        let marker = "[line 2 continues at column 35 of 500: call read_file with start_line 2 \
                      and start_column 35]\n";
        assert_eq!(content, format!("{}\n{marker}", "x".repeat(34)));
        assert_eq!((truncated, next, returned), (true, None, 1));
    }

    /// A workspace holding `text` as `f.txt`.
    fn workspace(text: &[u8]) -> (tempfile::TempDir, Root) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f.txt"), text).unwrap();
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        (tmp, root)
    }

    /// The output of reading `request` under `budget`: the file read whole, or (`chunk`
    /// some size) scanned `chunk` bytes at a time.
    fn read_way(
        root: &Root,
        request: &ReadRequest,
        budget: Option<usize>,
        chunk: Option<usize>,
    ) -> Result<Read, ReadFileError> {
        let options = ReadOptions {
            max_content_bytes: budget,
            ..ReadOptions::default()
        };
        let Some(chunk) = chunk else {
            return waited(read_file(root, request, options));
        };
        let (relative, opened) = source::open(root, &request.path, None, Access::MayWait).unwrap();
        large_window_of(request, options, &relative, &opened, chunk)
    }

    /// The output of reading `text` as a file, whole and by the chunked scan (`chunk` bytes
    /// at a time, every version checked).
    fn both_ways(
        text: &[u8],
        request: &ReadRequest,
        budget: Option<usize>,
        chunk: usize,
    ) -> (Result<Read, ReadFileError>, Result<Read, ReadFileError>) {
        let (_tmp, root) = workspace(text);
        let whole = read_way(&root, request, budget, None);
        (whole, read_way(&root, request, budget, Some(chunk)))
    }

    fn text_strategy() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            4 => Just(b"\n".to_vec()),
            2 => Just(b"\r\n".to_vec()),
            1 => Just(b"\r".to_vec()),
            4 => "[a-z ]{1,60}".prop_map(String::into_bytes),
            2 => Just("é".repeat(20).into_bytes()),
            1 => Just("\u{1F600}".as_bytes().to_vec()),
            1 => Just(b"\xFF\xC3".to_vec()),
            1 => Just(b"\xEF\xBB\xBF".to_vec()),
        ];
        proptest::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat())
    }

    #[test]
    fn a_first_line_as_long_as_the_budget_is_cut_only_when_it_does_not_fit() {
        let budget = 200;
        let request = ReadRequest::for_path("f.txt".into()).unwrap();
        // Whether the window of `text` is cut, read both ways (which agree), and its content.
        let cut = |text: &str| {
            let (whole, chunked) = both_ways(text.as_bytes(), &request, Some(budget), 64);
            let (whole, chunked) = (whole.unwrap().0, chunked.unwrap().0);
            assert_eq!(whole.content.as_str(), chunked.content.as_str(), "{text}");
            assert_eq!(whole.continuation, chunked.continuation, "{text}");
            (
                chunked.continuation.is_some(),
                chunked.content.as_str().to_owned(),
            )
        };
        for len in budget - 2..=budget + 1 {
            // With its `\n` the line fits up to `budget - 1` bytes; longer, it is cut.
            let line = "a".repeat(len);
            let (is_cut, content) = cut(&format!("{line}\n{}", "b".repeat(10)));
            assert_eq!(is_cut, len >= budget, "line of {len}");
            if !is_cut {
                assert_eq!(content, format!("{line}\n"));
            }
            // The file's last line, unterminated, fits up to `budget` bytes.
            assert_eq!(cut(&"c".repeat(len)).0, len > budget, "last line of {len}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        #[test]
        fn the_chunked_read_answers_what_the_whole_read_answers(
            text in text_strategy(),
            start_line in 1u64..40,
            start_column in proptest::prop_oneof![proptest::strategy::Just(1u64), 1u64..300],
            max_lines in 1u32..30,
            budget in proptest::option::of(128usize..400),
            chunk in 1usize..48,
        ) {
            let request = ReadRequest {
                path: "f.txt".into(),
                start_line,
                max_lines,
                start_column,
                max_lines_capped: false,
                lines_from_end: None,
            };
            let (whole, chunked) = both_ways(&text, &request, budget, chunk);
            let shown = |(out, _): Read| {
                let content = out.content.as_str().to_owned();
                (out.path, content, out.truncated, out.next_start_line, out.meta, out.continuation)
            };
            proptest::prop_assert_eq!(shown(whole.unwrap()), shown(chunked.unwrap()));
        }

        /// Issue 19 §2: following the answers from line 1 (a cut line's continuation first,
        /// else `next_start_line`) gives back the file's text exactly, each answer within
        /// the budget, whether the file is read whole or scanned in chunks.
        #[test]
        fn following_the_continuations_reassembles_the_text(
            text in long_lines_strategy(),
            max_lines in 1u32..6,
            budget in 128usize..300,
            chunk in 1usize..64,
        ) {
            let expected = String::from_utf8_lossy(window::strip_bom(&text)).replace("\r\n", "\n");
            let (_tmp, root) = workspace(&text);
            for chunk in [None, Some(chunk)] {
                let mut request = ReadRequest::for_path("f.txt".into()).unwrap();
                request.max_lines = max_lines;
                let mut joined = String::new();
                for _ in 0..10_000 {
                    let (out, _) = read_way(&root, &request, Some(budget), chunk).unwrap();
                    let content = out.content.as_str();
                    proptest::prop_assert!(content.len() <= budget);
                    match out.continuation {
                        Some(at) => {
                            let (piece, marker) = content.split_once('\n').unwrap();
                            proptest::prop_assert!(marker.starts_with('[') && marker.ends_with("]\n"));
                            proptest::prop_assert_eq!(at.start_line, request.start_line);
                            proptest::prop_assert!(at.start_column > request.start_column);
                            joined.push_str(piece);
                            request.start_column = at.start_column;
                        }
                        None => {
                            joined.push_str(content);
                            request.start_column = 1;
                            match out.next_start_line {
                                Some(next) => request.start_line = next,
                                None => break,
                            }
                        }
                    }
                }
                proptest::prop_assert_eq!(&joined, &expected, "chunk: {:?}", chunk);
            }
        }
    }

    /// Files with lines longer than any budget: runs of ASCII, 2- and 4-byte characters,
    /// invalid bytes, `\r`, and the line ends between them.
    fn long_lines_strategy() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            2 => Just(b"\n".to_vec()),
            1 => Just(b"\r\n".to_vec()),
            1 => Just(b"\r".to_vec()),
            3 => "[a-z ]{1,200}".prop_map(String::into_bytes),
            2 => (1usize..150).prop_map(|n| "é".repeat(n).into_bytes()),
            2 => (1usize..80).prop_map(|n| "\u{1F600}".repeat(n).into_bytes()),
            1 => Just(b"\xFF\xC3".to_vec()),
            1 => Just(b"\xE2\x82".to_vec()),
            1 => Just(b"\xEF\xBB\xBF".to_vec()),
        ];
        proptest::collection::vec(piece, 0..30).prop_map(|pieces| pieces.concat())
    }

    /// Files a toolkit remembers: long lines, multibyte text, CRLF, a BOM, invalid bytes,
    /// each over [`REMEMBERED_FROM_BYTES`].
    fn remembered_texts() -> Vec<Vec<u8>> {
        let lines: String = (0..3000)
            .map(|i| format!("line {i} {}\n", "x".repeat(i % 90)))
            .collect();
        let mut mixed = "\u{FEFF}".as_bytes().to_vec();
        for i in 0..6000 {
            mixed.extend_from_slice(format!("é{i}\r\n").as_bytes());
            if i % 97 == 0 {
                mixed.extend_from_slice(b"\xFF\xE2\x82 ");
                mixed.extend_from_slice("😀".repeat(400).as_bytes());
                mixed.push(b'\n');
            }
        }
        let texts = vec![lines.into_bytes(), mixed, "z".repeat(70_000).into_bytes()];
        assert!(
            texts
                .iter()
                .all(|text| text.len() as u64 >= REMEMBERED_FROM_BYTES)
        );
        texts
    }

    /// Everything a read answers, its content as text.
    #[allow(clippy::type_complexity)]
    fn answer(
        (out, version): Read,
    ) -> (
        String,
        String,
        bool,
        Option<u64>,
        ReadFileMeta,
        Option<Continuation>,
        Option<FileVersion>,
    ) {
        let content = out.content.as_str().to_owned();
        let facts = (
            out.path,
            content,
            out.truncated,
            out.next_start_line,
            out.meta,
        );
        (
            facts.0,
            facts.1,
            facts.2,
            facts.3,
            facts.4,
            out.continuation,
            version,
        )
    }

    /// A toolkit's later read of a file it read before, unchanged, is found from what it
    /// remembers of it, and answers what reading the whole file answers, version included.
    #[test]
    fn a_remembered_file_answers_what_the_whole_file_answers() {
        let tmp = tempfile::tempdir().unwrap();
        let texts = remembered_texts();
        for (i, text) in texts.iter().enumerate() {
            std::fs::write(tmp.path().join(format!("{i}.txt")), text).unwrap();
        }
        // Past a clock tick, so that the files' versions are settled and remembered.
        std::thread::sleep(std::time::Duration::from_millis(30));
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let indexes = LineIndexCache::default();
        let bare = ReadOptions {
            versioned: true,
            ..ReadOptions::default()
        };
        for budget in [None, Some(128), Some(1000), Some(40_000)] {
            let plain = ReadOptions {
                max_content_bytes: budget,
                ..bare
            };
            let toolkit = ReadOptions {
                line_indexes: Some(&indexes),
                ..plain
            };
            for i in 0..texts.len() {
                for (start_line, start_column, max_lines) in [
                    (1, 1, 200),
                    (1, 1, 3),
                    (7, 1, 500),
                    (1, 12_345, 2),
                    (1500, 3, 20),
                    (99_999, 1, 5),
                ] {
                    let request = ReadRequest {
                        path: format!("{i}.txt"),
                        start_line,
                        max_lines,
                        start_column,
                        ..ReadRequest::for_path("x".into()).unwrap()
                    };
                    let whole = waited(read_file(&root, &request, plain)).unwrap();
                    let first = waited(read_file(&root, &request, toolkit)).unwrap();
                    let stat = rustix::fs::stat(tmp.path().join(&request.path)).unwrap();
                    let remembered = indexes.get(&stat).expect("remembered after a read");
                    assert!(remembered.content_hash().is_some());
                    let again = waited(read_file(&root, &request, toolkit)).unwrap();
                    let whole = answer(whole);
                    assert!(answer(first) == whole, "{request:?} {budget:?}");
                    assert!(answer(again) == whole, "{request:?} {budget:?}");
                }
            }
        }
        // A same-size rewrite is another version: read whole, and its new hash.
        let path = tmp.path().join("0.txt");
        let request = ReadRequest::for_path("0.txt".into()).unwrap();
        let toolkit = remembering(&indexes);
        let before = waited(read_file(&root, &request, toolkit)).unwrap();
        let mut rewritten = std::fs::read(&path).unwrap();
        rewritten[0] = b'L';
        std::fs::write(&path, &rewritten).unwrap();
        let after = waited(read_file(&root, &request, toolkit)).unwrap();
        assert!(after.0.content.as_str().starts_with("Line 0"));
        assert_ne!(before.1.unwrap().hash, after.1.unwrap().hash);
    }

    /// A toolkit's options: versions recorded, and files remembered in `indexes`.
    fn remembering(indexes: &LineIndexCache) -> ReadOptions<'_> {
        ReadOptions {
            versioned: true,
            line_indexes: Some(indexes),
            ..ReadOptions::default()
        }
    }

    /// On a thread that must not wait, a file over [`MAX_FROM_MEMORY_BYTES`] is read only
    /// when the toolkit remembers this version of it, and then only its window (at most that
    /// many bytes): the answer is the one the waiting read gives. A window needing more, a
    /// version not remembered yet, or a file rewritten since is left to the waiting read.
    #[test]
    fn a_remembered_large_file_is_read_from_memory_by_its_window_alone() {
        if !cfg!(target_os = "linux") {
            return; // the page cache is asked (RWF_NOWAIT) on Linux only
        }
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("big.txt");
        // 1,000,000 bytes: 20,000 numbered lines of 50 bytes, then 60 lines of 5,000.
        let mut text: String = (1..=20_000).map(|n| format!("{n:>49}\n")).collect();
        text.truncate(700_000);
        text.push_str(&format!("{}\n", "w".repeat(4_999)).repeat(60));
        std::fs::write(&path, &text).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let indexes = LineIndexCache::default();
        let toolkit = remembering(&indexes);
        let window = |start_line, start_column, max_lines| ReadRequest {
            start_line,
            start_column,
            max_lines,
            ..ReadRequest::for_path("big.txt".into()).unwrap()
        };
        let first = window(10_000, 1, 200);
        let from_memory = read_file(&root, &first, toolkit.from_memory());
        assert_eq!(
            from_memory.map(|_| ()),
            Err(Stop::WouldBlock),
            "not remembered yet"
        );
        waited(read_file(&root, &first, toolkit)).unwrap();
        for request in [
            first,
            window(1, 1, 3),
            window(13_999, 7, 2),
            window(14_030, 1, 40),
        ] {
            let waited = answer(waited(read_file(&root, &request, toolkit)).unwrap());
            let here = read_file(&root, &request, toolkit.from_memory());
            let here = answer(here.unwrap_or_else(|_| panic!("{request:?} read here")));
            assert!(here == waited, "{request:?}");
        }
        // 60 lines of 5,000 bytes: more than this thread may read.
        let long = window(14_001, 1, 60);
        let from_memory = read_file(&root, &long, toolkit.from_memory());
        assert_eq!(from_memory.map(|_| ()), Err(Stop::WouldBlock));
        // Rewritten, same size: another version, not remembered, never the old lines.
        std::fs::write(&path, text.replace("    1\n", "    A\n")).unwrap();
        let from_memory = read_file(&root, &window(1, 1, 3), toolkit.from_memory());
        assert_eq!(from_memory.map(|_| ()), Err(Stop::WouldBlock));
        let (out, _) = waited(read_file(&root, &window(1, 1, 3), toolkit)).unwrap();
        assert!(out.content.as_str().starts_with(&format!("{:>49}\n", "A")));
    }

    /// A file changed within a clock tick of its read is not remembered: its times may not
    /// move with the next write.
    #[test]
    fn a_file_changed_a_moment_ago_is_not_remembered() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f.txt"), "a\n".repeat(40_000)).unwrap();
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let indexes = LineIndexCache::default();
        let toolkit = remembering(&indexes);
        let request = ReadRequest::for_path("f.txt".into()).unwrap();
        waited(read_file(&root, &request, toolkit)).unwrap();
        let stat = rustix::fs::stat(tmp.path().join("f.txt")).unwrap();
        assert!(indexes.get(&stat).is_none());
    }

    #[test]
    fn a_version_of_a_large_file_changes_with_a_same_size_rewrite() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f.txt");
        std::fs::write(&path, "a\n".repeat(600_000)).unwrap();
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let options = ReadOptions {
            versioned: true,
            max_file_bytes: Some(u64::MAX),
            ..ReadOptions::default()
        };
        let request = ReadRequest::for_path("f.txt".into()).unwrap();
        let (out, first) = waited(read_file(&root, &request, options)).unwrap();
        assert_eq!(out.meta.line_count, 600_000);
        assert_eq!(out.meta.byte_length, 1_200_000);
        let (_, again) = waited(read_file(&root, &request, options)).unwrap();
        assert_eq!(first, again);
        std::fs::write(&path, "b\n".repeat(600_000)).unwrap();
        let (_, changed) = waited(read_file(&root, &request, options)).unwrap();
        assert_ne!(first.unwrap().hash, changed.unwrap().hash);
        let small = ReadOptions {
            max_file_bytes: None,
            ..options
        };
        let refused = waited(read_file(&root, &request, small)).unwrap_err();
        assert_eq!(refused.code, ErrorCode::SizeLimitExceeded);
    }

    #[test]
    fn a_toolkits_not_found_names_near_misses_and_a_bare_read_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("src")).unwrap();
        std::fs::write(tmp.path().join("src/main.ts"), "x\n").unwrap();
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let request = ReadRequest::for_path("src/mian.ts".into()).unwrap();
        let bare = waited(read_file(&root, &request, ReadOptions::default())).unwrap_err();
        assert_eq!(
            bare.to_string(),
            "NOT_FOUND: src/mian.ts: no such file in the workspace"
        );
        let policy = Policy::new(crate::policy::PolicyRules::default()).unwrap();
        let toolkit = ReadOptions {
            policy: Some(&policy),
            ..ReadOptions::default()
        };
        let error = waited(read_file(&root, &request, toolkit)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "NOT_FOUND: src/mian.ts: no such file in the workspace; did you mean src/main.ts?"
        );
        // Listing a directory may wait: the event loop leaves such an error to the pool.
        let from_memory = read_file(&root, &request, toolkit.from_memory());
        assert_eq!(from_memory.map(|_| ()), Err(Stop::WouldBlock));
        if cfg!(target_os = "linux") {
            // Where a root's files can be opened from memory, a bare NOT_FOUND is answered there.
            let from_memory = read_file(&root, &request, ReadOptions::default().from_memory());
            assert_eq!(from_memory.map(|_| ()), Err(Stop::Failed(bare)));
        }
    }

    #[test]
    fn a_capped_max_lines_is_noted_only_when_the_file_goes_on() {
        use crate::request::NumberArg;
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("long.txt"), "x\n".repeat(600)).unwrap();
        std::fs::write(tmp.path().join("short.txt"), "x\n".repeat(120)).unwrap();
        let root = Root::open(tmp.path().to_str().unwrap()).unwrap();
        let note = |path: &str, max: f64, start: f64| {
            let request = ReadRequest::for_path(path.into())
                .and_then(|r| r.with_start_line(NumberArg::Number(start)))
                .and_then(|r| r.with_max_lines_capped(NumberArg::Number(max)))
                .unwrap();
            let (out, _) = waited(read_file(&root, &request, ReadOptions::default())).unwrap();
            (out.meta.returned_line_count, out.next_start_line, out.note)
        };
        let capped = Some(MAX_LINES_CAPPED_NOTE);
        assert_eq!(note("long.txt", 1000.0, 1.0), (500, Some(501), capped));
        assert_eq!(note("long.txt", 1000.0, 101.0), (500, None, None));
        assert_eq!(note("long.txt", 500.0, 1.0), (500, Some(501), None));
        assert_eq!(note("short.txt", 1000.0, 1.0), (120, None, None));
    }
}
