//! The byte pipeline every use case shares (`read_file`, file versions, the dialects): the
//! requested path checked and opened beneath the root, the policy asked about the file
//! opened, its kind and size checked and the part asked for read, every failure turned into
//! the contract's error.
//!
//! Every function here takes the read's [`Access`]: one pipeline for a read that may wait
//! for the disk and for one done from memory (an event loop's).

use std::cell::Cell;

use rustix::io::Errno;

use rustix::fs::Stat;

use crate::attempt::{Access, Attempt, Stop};
use crate::chunked::{self, LineIndexCache, ScanPace, ScanUnchangedError, Scanned, WindowAsk};
use crate::error::{ErrorCode, ReadFileError, SizeLimit};
use crate::file_guard::{self, FileBytes, GuardError, Span};
use crate::policy::{self, Policy};
use crate::request::{MAX_FILE_BYTES, reject_nul};
use crate::sandbox::{OpenError, OpenedFile, Root};

/// A file's bytes as read, and its normalized workspace-relative path.
pub type Source = (String, FileBytes);

/// `span` of the file `requested` names beneath `root`, refused before anything is read
/// when `policy` denies it. From memory, only a whole file, of at most
/// [`MAX_FROM_MEMORY_BYTES`](file_guard::MAX_FROM_MEMORY_BYTES).
pub fn read(
    root: &Root,
    requested: &str,
    span: Span,
    policy: Option<&Policy>,
    access: Access,
) -> Attempt<Source> {
    let (relative, opened) = open(root, requested, policy, access)?;
    Ok((relative, read_opened(&opened, requested, span, access)?))
}

/// `span` of `opened` (the file `requested` names), as `access` allows
/// ([`file_guard::read_span`]).
pub fn read_opened(
    opened: &OpenedFile,
    requested: &str,
    span: Span,
    access: Access,
) -> Attempt<FileBytes> {
    file_guard::read_span(&opened.file, &opened.stat, span, access)
        .map_err(|stop| stop.map(|err| guard_error(err, requested)))
}

/// The file `requested` names beneath `root`, opened, refused when `policy` denies it, and
/// its normalized workspace-relative path. From memory, a file over [`MAX_FILE_BYTES`] is
/// [`Stop::WouldBlock`] without being opened: it is read by a chunked scan, which waits.
pub fn open(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
    access: Access,
) -> Attempt<(String, OpenedFile)> {
    let relative = checked_relative(root, requested)?;
    let opened = match access {
        Access::MayWait => root.open_file(&relative).map_err(Stop::Failed),
        Access::FromMemory => root.open_file_from_memory(&relative, MAX_FILE_BYTES),
    };
    let opened = opened.map_err(|stop| stop.map(|err| open_error(err, requested)))?;
    if let Some(policy) = policy {
        policy::check(policy, root, &opened, requested, access)?;
    }
    Ok((relative, opened))
}

/// The file `opened` as `read_file` of a large file sees it: scanned chunk by chunk for
/// the window `ask`, at `pace` (from its line index in `indexes` when there is one),
/// refused when over `max_len` bytes, and the status the scan is of.
pub fn scan_large(
    opened: &OpenedFile,
    requested: &str,
    ask: WindowAsk,
    (pace, max_len): (ScanPace, u64),
    indexes: Option<&LineIndexCache>,
) -> Result<(Scanned, Stat), ReadFileError> {
    chunked::scan_unchanged(&opened.file, &opened.stat, ask, pace, max_len, indexes).map_err(
        |err| match err {
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
        },
    )
}

/// How a use case that reads several times (a dialect's call) reads, with one
/// [`Access`]: from memory, the first read that would wait marks the whole use case as one
/// to do again where waiting is allowed ([`Reader::finish`]).
#[derive(Debug)]
pub struct Reader {
    access: Access,
    would_have_waited: Cell<bool>,
}

impl Reader {
    pub fn new(access: Access) -> Reader {
        Reader {
            access,
            would_have_waited: Cell::new(false),
        }
    }

    /// [`read`] with the reader's access. A read that would wait fails with an error the
    /// use case may report as it likes: [`Reader::finish`] discards that answer.
    pub fn read(&self, root: &Root, requested: &str, span: Span) -> Result<Source, ReadFileError> {
        read(root, requested, span, None, self.access).map_err(|stop| match stop {
            Stop::Failed(error) => error,
            Stop::WouldBlock => {
                self.would_have_waited.set(true);
                ReadFileError::new(ErrorCode::Internal, requested, "this read would wait")
            }
        })
    }

    /// The use case's `answer`; `None` when one of its reads would have waited (do it again
    /// with [`Access::MayWait`]).
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
