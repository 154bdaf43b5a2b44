//! The `fileVersion` use case: the version of a file as it is on disk now, refused as
//! `read_file` refuses it. (The value, [`FileVersion`], and the ledger that keeps the
//! versions reads saw are in `version`.)

use crate::attempt::{Access, waited};
use crate::chunked::{CHUNK_BYTES, ScanPace, WindowAsk};
use crate::error::ReadFileError;
use crate::file_guard::{self, Span};
use crate::policy::Policy;
use crate::request::MAX_FILE_BYTES;
use crate::sandbox::Root;
use crate::source;
use crate::version::FileVersion;

/// The version of the file `requested` names beneath `root` now (refused as `read_file`
/// refuses it: outside the workspace, not a regular file, over [`MAX_FILE_BYTES`], denied
/// by `policy`). Binary files have versions too.
pub fn file_version(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
) -> Result<FileVersion, ReadFileError> {
    let span = Span::Whole {
        max: MAX_FILE_BYTES,
    };
    let (relative, file) = waited(source::read(root, requested, span, policy, Access::MayWait))?;
    Ok(FileVersion::of(relative, &file.bytes, file.mtime_ms))
}

/// [`file_version`] of a file of at most `max_file_bytes`: one over [`MAX_FILE_BYTES`] has
/// the version [`FileVersion::of_large_file`] gives, the one a toolkit's read of it
/// records, found by the same chunked scan of all its bytes (no window kept), never from a
/// line index: a change that moved none of the file's times is seen too. A 1 GiB file
/// costs a read of it (`benchmark/large-files.mjs`).
pub fn file_version_within(
    root: &Root,
    requested: &str,
    policy: Option<&Policy>,
    max_file_bytes: u64,
) -> Result<FileVersion, ReadFileError> {
    let (relative, opened) = waited(source::open(root, requested, policy, Access::MayWait))?;
    let len = u64::try_from(opened.stat.st_size).unwrap_or(0);
    if max_file_bytes <= MAX_FILE_BYTES || len <= MAX_FILE_BYTES {
        let span = Span::Whole {
            max: max_file_bytes.min(MAX_FILE_BYTES),
        };
        let file = file_guard::read_guarded(&opened.file, &opened.stat, span)
            .map_err(|err| source::guard_error(err, requested))?;
        return Ok(FileVersion::of(relative, &file.bytes, file.mtime_ms));
    }
    let nothing = WindowAsk {
        start_line: u64::MAX,
        lines_from_end: None,
        start_column: 1,
        max_lines: 1,
        keep: 0,
    };
    let pace = ScanPace {
        chunk: CHUNK_BYTES,
        stop: None,
        hash: true,
    };
    let limits = (pace, max_file_bytes);
    let (scanned, stat) = source::scan_large(&opened, requested, nothing, limits, None)?;
    Ok(FileVersion::of_large_file(
        relative,
        &stat,
        &scanned.facts,
        scanned.content_hash,
    ))
}
