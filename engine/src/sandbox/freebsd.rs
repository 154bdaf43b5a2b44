//! FreeBSD (13+): `O_RESOLVE_BENEATH` and `O_PATH`.
//!
//! The fast path is one `openat(O_PATH | O_RESOLVE_BENEATH)`: the kernel refuses any step
//! out of the root with `ENOTCAPABLE`, absolute symlinks included. The handle opens
//! nothing; its kind is checked from `fstat`, and only a regular file is opened for
//! reading, by reopening that very handle (`O_EMPTY_PATH`), so no name is looked up twice.
//! An escape, an absolute symlink, a loop or anything else the kernel refuses goes to the
//! portable walker (see [`portable`]), which gives the precise verdict.

use std::path::Path;

use rustix::fs::{self as rfs, Mode, OFlags};
use rustix::io::Errno;

use super::{OpenError, OpenedFile, READ_FLAGS, Root, non_regular_kind, portable};

/// How the root directory is opened.
pub(super) fn root_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// [`Root::open_file`] on FreeBSD.
pub(super) fn open_file(root: &Root, relative: &str) -> Result<OpenedFile, OpenError> {
    if !relative.is_empty() {
        match open_beneath(root, relative) {
            Ok(opened) => return Ok(opened),
            Err(Some(err)) => return Err(err),
            Err(None) => {}
        }
    }
    portable::open_file(root, relative)
}

/// [`Root::open_by_walking`] on FreeBSD: the portable walker.
pub(super) fn open_by_walking(root: &Root, relative: &Path) -> Result<OpenedFile, OpenError> {
    portable::open_file(root, &relative.to_string_lossy())
}

/// The fast path; `Err(None)` when the walker must decide.
fn open_beneath(root: &Root, relative: &str) -> Result<OpenedFile, Option<OpenError>> {
    let flags = OFlags::PATH | OFlags::RESOLVE_BENEATH | OFlags::CLOEXEC;
    let handle = match rfs::openat(&root.dir, relative, flags, Mode::empty()) {
        Ok(handle) => handle,
        // Reported at the component where they happen, after any escape before it.
        Err(errno @ (Errno::NOENT | Errno::NOTDIR | Errno::ACCESS)) => {
            return Err(Some(OpenError::Os(errno)));
        }
        Err(_) => return Err(None),
    };
    let os = |errno| Some(OpenError::Os(errno));
    let stat = rfs::fstat(&handle).map_err(os)?;
    if let Some(kind) = non_regular_kind(&stat) {
        return Err(Some(OpenError::NotFile(kind)));
    }
    let file =
        rfs::openat(&handle, "", READ_FLAGS | OFlags::EMPTY_PATH, Mode::empty()).map_err(os)?;
    Ok(OpenedFile { file, stat })
}

/// The path `fd` refers to: not told here, so a policy denies (fails closed).
pub(super) fn real_path(_fd: std::os::fd::BorrowedFd<'_>) -> Option<std::path::PathBuf> {
    None
}
