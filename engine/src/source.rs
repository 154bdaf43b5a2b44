//! The byte pipeline every use case shares (`read_file`, file versions, the dialects): the
//! requested path checked and opened beneath the root, the policy asked about the file
//! opened, its kind and size checked and the part asked for read, every failure turned into
//! the contract's error.
//!
//! A read either may wait for the disk ([`read`]) or must not ([`read_whole_from_memory`]:
//! an event loop's). A use case that reads through a [`Reader`] is told which by its
//! caller.

use std::cell::Cell;

use rustix::io::Errno;

use rustix::fs::Stat;

use crate::attempt::{Attempt, Stop};
use crate::chunked::{self, LineIndexCache, ScanPace, ScanUnchangedError, Scanned, WindowAsk};
use crate::error::{ErrorCode, ReadFileError, SizeLimit};
use crate::file_guard::{self, FileBytes, GuardError, MAX_CACHED_READ_BYTES, Span};
use crate::policy::{self, Policy};
use crate::request::reject_nul;
use crate::sandbox::{OpenError, OpenedFile, Root};

/// A file's bytes as read, and its normalized workspace-relative path.
pub type Source = (String, FileBytes);

/// `span` of the file `requested` names beneath `root`, refused before anything is read
/// when `policy` denies it. May wait for the disk.
pub fn read(
    root: &Root,
    requested: &str,
    span: Span,
    policy: Option<&Policy>,
) -> Result<Source, ReadFileError> {
    let (relative, opened) = open(root, requested, policy)?;
    let file = file_guard::read_guarded(opened.file, &opened.stat, span)
        .map_err(|err| guard_error(err, requested))?;
    Ok((relative, file))
}

/// The file `requested` names beneath `root`, opened, refused when `policy` denies it,
/// and its normalized workspace-relative path. May wait for the disk.
pub fn open(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
) -> Result<(String, OpenedFile), ReadFileError> {
    let relative = checked_relative(root, requested)?;
    let opened = root
        .open_file(&relative)
        .map_err(|err| open_error(err, requested))?;
    if let Some(policy) = policy {
        policy::check(policy, root, &opened, requested)?;
    }
    Ok((relative, opened))
}

/// The file `opened` as `read_file` of a large file sees it: scanned chunk by chunk for
/// the window `ask`, at `pace` (from its line index in `indexes` when there is one),
/// refused when over `max_len` bytes, and the status the scan is of.
pub fn scan_large(
    opened: OpenedFile,
    requested: &str,
    ask: WindowAsk,
    (pace, max_len): (ScanPace, u64),
    indexes: Option<&LineIndexCache>,
) -> Result<(Scanned, Stat), ReadFileError> {
    let file = std::fs::File::from(opened.file);
    chunked::scan_unchanged(&file, &opened.stat, ask, pace, max_len, indexes).map_err(|err| {
        match err {
            ScanUnchangedError::Changed => ReadFileError::new(
                ErrorCode::FileChanged,
                requested,
                "the file changed while it was read, twice; read it again",
            ),
            ScanUnchangedError::TooLarge(len) => {
                guard_error(GuardError::TooLarge { len, max: max_len }, requested)
            }
            ScanUnchangedError::Stopped => ReadFileError::new(
                ErrorCode::Aborted,
                requested,
                "the read was stopped before it ended",
            ),
            ScanUnchangedError::Io(err) => guard_error(GuardError::Io(err), requested),
        }
    })
}

/// [`read`] of the whole file (at most `max` bytes), for a thread that must not wait: done
/// only when the path, the file's status and its bytes are all in the kernel's memory
/// ([`Root::open_file_cached`], [`file_guard::read_whole_cached`]); else
/// [`Stop::WouldBlock`]. When done, the answer is [`read`]'s.
pub fn read_whole_from_memory(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
    max: u64,
) -> Attempt<Source> {
    // A file the guard would not read here is not opened here either; one over the size
    // limit is refused by the full read, in the usual order.
    let (relative, opened) = open_from_memory(root, requested, policy, MAX_CACHED_READ_BYTES)?;
    Ok((relative, read_opened_from_memory(opened, requested, max)?))
}

/// The whole of `opened` (at most `max` bytes; the file `requested` names), read from the
/// page cache alone ([`file_guard::read_whole_cached`]), else [`Stop::WouldBlock`].
pub fn read_opened_from_memory(
    opened: OpenedFile,
    requested: &str,
    max: u64,
) -> Attempt<FileBytes> {
    file_guard::read_whole_cached(opened.file, &opened.stat, max)
        .map_err(|stop| stop.map(|err| guard_error(err, requested)))
}

/// [`open`], for a thread that must not wait: done only when the path and the file's
/// status are in the kernel's memory and the file is at most `max_len` bytes; else
/// [`Stop::WouldBlock`].
pub fn open_from_memory(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
    max_len: u64,
) -> Attempt<(String, OpenedFile)> {
    let relative = checked_relative(root, requested)?;
    let opened = root
        .open_file_cached(&relative, max_len)
        .map_err(|stop| stop.map(|err| open_error(err, requested)))?;
    if let Some(policy) = policy {
        policy::check_from_memory(policy, root, &opened, requested)?;
    }
    Ok((relative, opened))
}

/// How a use case that reads several times (a dialect's call) reads: where waiting is
/// allowed, or from memory only, in which case the first read that would wait marks the
/// whole use case as one to do again where waiting is allowed ([`Reader::finish`]).
#[derive(Debug)]
pub struct Reader {
    from_memory_only: bool,
    would_have_waited: Cell<bool>,
}

impl Reader {
    /// Reads that may wait.
    pub fn waiting() -> Reader {
        Reader {
            from_memory_only: false,
            would_have_waited: Cell::new(false),
        }
    }

    /// Reads from the kernel's memory only ([`read_whole_from_memory`]'s rules; whole
    /// files only).
    pub fn from_memory() -> Reader {
        Reader {
            from_memory_only: true,
            would_have_waited: Cell::new(false),
        }
    }

    /// [`read`], or from memory only. A read that would wait fails with an error the use
    /// case may report as it likes: [`Reader::finish`] discards that answer.
    pub fn read(&self, root: &Root, requested: &str, span: Span) -> Result<Source, ReadFileError> {
        if !self.from_memory_only {
            return read(root, requested, span, None);
        }
        let attempt = match span {
            Span::Whole { max } => read_whole_from_memory(root, requested, None, max),
            Span::Head { .. } | Span::Tail { .. } => Err(Stop::WouldBlock),
        };
        attempt.map_err(|stop| match stop {
            Stop::Failed(error) => error,
            Stop::WouldBlock => {
                self.would_have_waited.set(true);
                ReadFileError::new(ErrorCode::Internal, requested, "this read would wait")
            }
        })
    }

    /// The use case's `answer`; `None` when one of its reads would have waited (do it again
    /// with [`Reader::waiting`]).
    pub fn finish<T>(self, answer: T) -> Option<T> {
        (!self.would_have_waited.get()).then_some(answer)
    }
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
        OpenError::Os(errno) => os_error(errno, requested),
    }
}

fn os_error(errno: Errno, requested: &str) -> ReadFileError {
    let fail = |code, reason: &str| ReadFileError::new(code, requested, reason);
    match errno {
        Errno::NOENT => fail(ErrorCode::NotFound, "no such file in the workspace"),
        Errno::NOTDIR => fail(
            ErrorCode::NotFound,
            "a parent of this path is not a directory",
        ),
        Errno::NAMETOOLONG => fail(ErrorCode::NotFound, "file name too long"),
        Errno::ACCESS | Errno::PERM => fail(ErrorCode::PermissionDenied, "permission denied"),
        // A socket (or a device without a driver) refuses to be opened at all.
        Errno::NXIO | Errno::NODEV | Errno::OPNOTSUPP => {
            fail(ErrorCode::NotFile, "not a regular file")
        }
        other => ReadFileError::new(
            ErrorCode::Internal,
            requested,
            format!("cannot open: {other}"),
        ),
    }
}

pub(crate) fn guard_error(err: GuardError, requested: &str) -> ReadFileError {
    match err {
        GuardError::TooLarge { len, max } => ReadFileError {
            file_size: Some(len),
            size_limit: Some(SizeLimit::Text),
            ..ReadFileError::new(
                ErrorCode::SizeLimitExceeded,
                requested,
                format!("file is {len} bytes, over the limit of {max} bytes"),
            )
        },
        GuardError::Io(err) => match err.raw_os_error() {
            Some(code) => os_error(Errno::from_raw_os_error(code), requested),
            None => ReadFileError::new(ErrorCode::Internal, requested, err.to_string()),
        },
    }
}
