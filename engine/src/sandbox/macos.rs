//! macOS: no `O_PATH`, no `openat2`. The portable walker (see [`portable`]), with one fast
//! path: a lexically normalized path (which [`Root::relative_path`] gives: no `.`, `..` or
//! empty component) has its parent directory opened in one call with `O_NOFOLLOW_ANY`
//! (macOS 11+), which refuses a symlink anywhere on the way; its last component is then
//! decided and opened as the walker decides it (`fstatat` first, see [`portable`], whose
//! residual race it shares). A symlink anywhere, or a race, goes to the walker.

use std::ffi::OsStr;
use std::os::fd::AsFd;
use std::path::Path;

use rustix::fs::{self as rfs, Mode, OFlags};
use rustix::io::Errno;

use super::{OpenError, OpenedFile, Root, Step, portable};

/// How the root directory is opened.
pub(super) fn root_flags() -> OFlags {
    portable::ROOT_FLAGS
}

/// [`Root::open_file`] on macOS.
pub(super) fn open_file(root: &Root, relative: &str) -> Result<OpenedFile, OpenError> {
    match without_symlinks(root, relative) {
        Some(answer) => answer,
        None => portable::open_file(root, relative),
    }
}

/// [`Root::open_by_walking`] on macOS: the portable walker.
pub(super) fn open_by_walking(root: &Root, relative: &Path) -> Result<OpenedFile, OpenError> {
    portable::open_file(root, &relative.to_string_lossy())
}

/// The answer when the path has no symlink on it; `None` when the walker must decide.
fn without_symlinks(root: &Root, relative: &str) -> Option<Result<OpenedFile, OpenError>> {
    if relative.is_empty() || relative.ends_with('/') {
        return None;
    }
    let (parent, name) = match relative.rsplit_once('/') {
        Some((parent, name)) => (Some(parent), name),
        None => (None, relative),
    };
    let parent = match parent.map(|parent| open_parent(root, parent)) {
        None => None,
        Some(Ok(dir)) => Some(dir),
        // Without a symlink on the way, nothing before the failing component can have
        // led out: these are the answer.
        Some(Err(errno @ (Errno::NOENT | Errno::NOTDIR | Errno::ACCESS))) => {
            return Some(Err(OpenError::Os(errno)));
        }
        // A symlink on the way (`ELOOP`), or anything the walker decides more precisely.
        Some(Err(_)) => return None,
    };
    let dir = parent.as_ref().map_or(root.dir.as_fd(), AsFd::as_fd);
    match portable::last_step(dir, OsStr::new(name)) {
        Ok(Step::Found(Some(opened))) => Some(Ok(opened)),
        Ok(_) => None,
        Err(err) => Some(Err(err)),
    }
}

/// The directory `parent` beneath the root, opened only if no component is a symlink.
fn open_parent(root: &Root, parent: &str) -> Result<std::os::fd::OwnedFd, Errno> {
    let flags = portable::DIR_FLAGS | OFlags::NOFOLLOW_ANY;
    rfs::openat(&root.dir, parent, flags, Mode::empty())
}

/// The path `fd` refers to now, by `F_GETPATH`; `None` when the kernel cannot say.
pub(super) fn real_path(fd: std::os::fd::BorrowedFd<'_>) -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let path = rfs::getpath(fd).ok()?;
    Some(std::ffi::OsString::from_vec(path.into_bytes()).into())
}
