//! The `read_file` use case: argument check -> sandbox -> stat -> kind -> size -> binary ->
//! read -> window, in that fixed order. Sync and async callers both run [`read_file`].

use std::borrow::Cow;
use std::cell::Cell;
use std::ops::Range;

use rustix::io::Errno;

use crate::attempt::{self, Attempt, done_or_return};
use crate::error::{ErrorCode, ReadFileError};
use crate::file_guard::{self, FileBytes, GuardError, MAX_CACHED_READ_BYTES, Span};
use crate::policy::{self, Policy};
use crate::request::{MAX_FILE_BYTES, ReadRequest, reject_nul};
use crate::sandbox::{OpenError, Root};
use crate::version::FileVersion;
use crate::window::{self, Fit};

/// The contract's `ReadFileOutput`.
#[derive(Debug, PartialEq)]
pub struct ReadFileOutput {
    /// The requested path, normalized and relative to the workspace root.
    pub path: String,
    pub content: Content,
    pub truncated: bool,
    pub next_start_line: Option<u64>,
    pub meta: ReadFileMeta,
}

/// The contract's `ReadFileOutput.meta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

impl Content {
    fn new(buffer: Vec<u8>, window: Range<usize>) -> Content {
        match window::decode(&buffer[window.clone()]) {
            Cow::Borrowed(_) => Content {
                buffer,
                range: window,
            },
            Cow::Owned(text) => Content {
                range: 0..text.len(),
                buffer: text.into_bytes(),
            },
        }
    }

    fn owned(text: String) -> Content {
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

/// What a toolkit adds to a read: its policy and its content budget.
#[derive(Debug, Default)]
pub struct ReadOptions {
    /// Deny and allow rules, checked on the file opened before it is read.
    pub policy: Option<Policy>,
    /// The most bytes (UTF-8) `content` may have, at least
    /// [`MIN_CONTENT_BUDGET`](window::MIN_CONTENT_BUDGET): the window ends at the last whole
    /// line that fits, or a first line over it is cut and marked ([`window::fit`]).
    pub max_content_bytes: Option<usize>,
}

/// Reads the requested window of a file beneath `root`.
pub fn read_file(root: &Root, request: &ReadRequest) -> Result<ReadFileOutput, ReadFileError> {
    read_file_with(root, request, &ReadOptions::default())
}

/// [`read_file`] under a toolkit's `options`.
pub fn read_file_with(
    root: &Root,
    request: &ReadRequest,
    options: &ReadOptions,
) -> Result<ReadFileOutput, ReadFileError> {
    read_file_versioned(root, request, options, false).map(|(output, _)| output)
}

/// [`read_file_with`], with the version of the file read when `versioned`.
pub fn read_file_versioned(
    root: &Root,
    request: &ReadRequest,
    options: &ReadOptions,
    versioned: bool,
) -> Result<(ReadFileOutput, Option<FileVersion>), ReadFileError> {
    let span = Span::Whole {
        max: MAX_FILE_BYTES,
    };
    let (relative, file) = read_source_with(root, &request.path, span, options.policy.as_ref())?;
    window_of(request, options, versioned, relative, file)
}

/// [`read_file_versioned`] for a thread that must not wait (an event loop): done only if
/// the path, the file's status and its bytes are all in the kernel's memory
/// ([`Root::open_file_cached`], [`file_guard::read_whole_cached`]), else
/// [`Attempt::WouldBlock`], and the caller reads with [`read_file_versioned`] where waiting
/// is allowed. The answer, when there is one, is the one [`read_file_versioned`] gives.
pub fn read_file_cached(
    root: &Root,
    request: &ReadRequest,
    options: &ReadOptions,
    versioned: bool,
) -> Attempt<Result<(ReadFileOutput, Option<FileVersion>), ReadFileError>> {
    let read = || -> Result<Attempt<_>, ReadFileError> {
        let policy = options.policy.as_ref();
        let whole = read_whole_cached(root, &request.path, policy, MAX_FILE_BYTES);
        let (relative, file) = done_or_return!(whole);
        window_of(request, options, versioned, relative, file).map(Attempt::Done)
    };
    attempt::untranspose(read())
}

/// [`read_source_with`] of the whole file (at most `max` bytes), without waiting.
fn read_whole_cached(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
    max: u64,
) -> Result<Attempt<(String, FileBytes)>, ReadFileError> {
    let relative = checked_relative(root, requested)?;
    // A file the guard would not read here is not opened here either; one over the size
    // limit is refused by the pool's read, in the usual order.
    let opened = root
        .open_file_cached(&relative, MAX_CACHED_READ_BYTES)
        .transpose();
    let opened = done_or_return!(opened.map_err(|err| open_error(err, requested)));
    if let Some(policy) = policy {
        policy::check(policy, &opened, requested)?;
    }
    let fail = |code, reason: String| ReadFileError::new(code, requested, reason);
    let file = file_guard::read_whole_cached(opened.file, &opened.stat, max).transpose();
    let file = done_or_return!(file.map_err(|err| guard_error(err, &fail)));
    Ok(Attempt::Done((relative, file)))
}

/// The output for the bytes of a whole file: the window of `request`, within the budget.
fn window_of(
    request: &ReadRequest,
    options: &ReadOptions,
    versioned: bool,
    relative: String,
    file: FileBytes,
) -> Result<(ReadFileOutput, Option<FileVersion>), ReadFileError> {
    if file.binary {
        return Err(ReadFileError::new(
            ErrorCode::BinaryNotSupported,
            &request.path,
            "binary file (NUL byte in the first 8192 bytes)",
        ));
    }
    let version = versioned.then(|| FileVersion::of(relative.clone(), &file.bytes, file.mtime_ms));
    let byte_length = file.bytes.len() as u64;
    let text = window::strip_bom(&file.bytes);
    let bom_len = file.bytes.len() - text.len();
    let window = window::line_window(text, request.start_line, request.max_lines);
    let bytes = window.bytes.start + bom_len..window.bytes.end + bom_len;
    let mut content = Content::new(file.bytes, bytes);
    let (mut returned, mut next) = (window.returned_line_count, window.next_start_line);
    let start = request.start_line;
    let budget = options
        .max_content_bytes
        .map(|b| b.max(window::MIN_CONTENT_BUDGET));
    let fit = budget.map(|budget| window::fit(content.as_str(), budget, start));
    let cut_by_budget = matches!(fit, Some(Fit::Lines { .. } | Fit::FirstLineCut { .. }));
    match fit {
        None | Some(Fit::Whole) => {}
        Some(Fit::Lines { bytes, lines }) => {
            content.shorten(bytes);
            (returned, next) = (lines, Some(start + u64::from(lines)));
        }
        Some(Fit::FirstLineCut { bytes, left_out }) => {
            let text = &content.as_str()[..bytes];
            let marker = window::cut_marker(start, left_out);
            content = Content::owned(format!("{text}\n{marker}"));
            (returned, next) = (1, (start < window.line_count).then(|| start + 1));
        }
    }
    let output = ReadFileOutput {
        path: relative,
        content,
        truncated: next.is_some() || cut_by_budget,
        next_start_line: next,
        meta: ReadFileMeta {
            byte_length,
            line_count: window.line_count,
            returned_line_count: returned,
            mtime_ms: file.mtime_ms,
        },
    };
    Ok((output, version))
}

/// The first steps of every read, whatever the dialect: the requested path checked and
/// opened beneath `root`, the file's kind checked and `span` of it read. Returns the
/// normalized workspace-relative path and the bytes.
pub fn read_source(
    root: &Root,
    requested: &str,
    span: Span,
) -> Result<(String, FileBytes), ReadFileError> {
    read_source_with(root, requested, span, None)
}

/// [`read_source`], refusing before reading anything a file that `policy` denies.
pub fn read_source_with(
    root: &Root,
    requested: &str,
    span: Span,
    policy: Option<&Policy>,
) -> Result<(String, FileBytes), ReadFileError> {
    if WITHOUT_WAITING.get().is_some() {
        return read_source_from_memory(root, requested, span, policy);
    }
    let relative = checked_relative(root, requested)?;
    let opened = root
        .open_file(&relative)
        .map_err(|err| open_error(err, requested))?;
    if let Some(policy) = policy {
        policy::check(policy, &opened, requested)?;
    }
    let fail = |code, reason: String| ReadFileError::new(code, requested, reason);
    let file = file_guard::read_guarded(opened.file, &opened.stat, span)
        .map_err(|err| guard_error(err, &fail))?;
    Ok((relative, file))
}

thread_local! {
    /// `Some` while [`without_waiting`] runs on this thread: whether a read would have waited.
    static WITHOUT_WAITING: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Runs `work`, a whole use case (a dialect's call, say), where every file it reads through
/// [`read_source`] must come from the kernel's memory ([`read_file_cached`]'s rules; whole
/// files only). `Done` with its result when none would have waited; else
/// [`Attempt::WouldBlock`], the result discarded (a read that would wait fails inside
/// `work` with an error that nothing sees), and the caller runs `work` where waiting is
/// allowed.
pub fn without_waiting<T>(work: impl FnOnce() -> T) -> Attempt<T> {
    /// Puts back what was there before, even if `work` unwinds, so that no later read on
    /// this thread is taken for one that must not wait.
    struct Restore(Option<bool>);
    impl Drop for Restore {
        fn drop(&mut self) {
            WITHOUT_WAITING.set(self.0);
        }
    }
    let restore = Restore(WITHOUT_WAITING.replace(Some(false)));
    let result = work();
    let would_block = WITHOUT_WAITING.get() == Some(true);
    drop(restore);
    if would_block {
        Attempt::WouldBlock
    } else {
        Attempt::Done(result)
    }
}

/// [`read_source_with`] inside [`without_waiting`]: a whole file from memory, or a note that
/// this read would have waited and an error for `work` to carry (its result is discarded).
fn read_source_from_memory(
    root: &Root,
    requested: &str,
    span: Span,
    policy: Option<&Policy>,
) -> Result<(String, FileBytes), ReadFileError> {
    let attempt = match span {
        Span::Whole { max } => read_whole_cached(root, requested, policy, max)?,
        Span::Head { .. } | Span::Tail { .. } => Attempt::WouldBlock,
    };
    attempt.done().ok_or_else(|| {
        WITHOUT_WAITING.set(Some(true));
        ReadFileError::new(ErrorCode::Internal, requested, "this read would wait")
    })
}

/// The requested path checked (no NUL) and made workspace-relative.
fn checked_relative(root: &Root, requested: &str) -> Result<String, ReadFileError> {
    reject_nul(requested)?;
    root.relative_path(requested)
        .map_err(|err| open_error(err, requested))
}

/// The contract's error for a path the sandbox could not open.
pub fn open_error(err: OpenError, requested: &str) -> ReadFileError {
    let fail = |code, reason: String| ReadFileError::new(code, requested, reason);
    match err {
        OpenError::Outside => fail(
            ErrorCode::OutsideWorkspace,
            "path resolves outside the workspace".into(),
        ),
        OpenError::Loop => fail(
            ErrorCode::NotFound,
            "too many levels of symbolic links".into(),
        ),
        OpenError::NotFile(kind) => fail(ErrorCode::NotFile, format!("{kind}, not a regular file")),
        OpenError::Os(errno) => os_error(errno, &fail),
    }
}

fn os_error(errno: Errno, fail: &impl Fn(ErrorCode, String) -> ReadFileError) -> ReadFileError {
    match errno {
        Errno::NOENT => fail(ErrorCode::NotFound, "no such file in the workspace".into()),
        Errno::NOTDIR => fail(
            ErrorCode::NotFound,
            "a parent of this path is not a directory".into(),
        ),
        Errno::NAMETOOLONG => fail(ErrorCode::NotFound, "file name too long".into()),
        Errno::ACCESS | Errno::PERM => {
            fail(ErrorCode::PermissionDenied, "permission denied".into())
        }
        // A socket (or a device without a driver) refuses to be opened at all.
        Errno::NXIO | Errno::NODEV | Errno::OPNOTSUPP => {
            fail(ErrorCode::NotFile, "not a regular file".into())
        }
        other => fail(ErrorCode::Internal, format!("cannot open: {other}")),
    }
}

fn guard_error(
    err: GuardError,
    fail: &impl Fn(ErrorCode, String) -> ReadFileError,
) -> ReadFileError {
    match err {
        GuardError::TooLarge { len, max } => ReadFileError {
            file_size: Some(len),
            ..fail(
                ErrorCode::SizeLimitExceeded,
                format!("file is {len} bytes, over the limit of {max} bytes"),
            )
        },
        GuardError::Io(err) => match err.raw_os_error() {
            Some(code) => os_error(Errno::from_raw_os_error(code), fail),
            None => fail(ErrorCode::Internal, err.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            policy: None,
            max_content_bytes: Some(budget),
        };
        let out = read_file_with(&root, &request, &options).unwrap();
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
        let left_out = 600 - kept.len();
        assert_eq!(
            marker,
            format!("[read_file: {left_out} bytes of line 1 left out]\n")
        );
        assert_eq!((truncated, next, returned), (true, Some(2), 1));
        // The last line, cut: nothing follows it, yet it is truncated.
        let text = format!("short\n{}", "x".repeat(500));
        let (content, truncated, next, returned) = read(&text, 2, 128);
        assert!(
            content.ends_with("bytes of line 2 left out]\n"),
            "{content}"
        );
        assert_eq!((truncated, next, returned), (true, None, 1));
    }
}
