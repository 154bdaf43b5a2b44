//! macOS: no `O_PATH`, no `openat2`. The portable walker (see [`portable`]), with one fast
//! path: a lexically normalized path (which [`Root::relative_path`] gives: no `.`, `..` or
//! empty component) has its parent directory opened in one call that refuses a symlink
//! anywhere on the way (`O_NOFOLLOW_ANY`, macOS 11+); its last component is then decided
//! and opened as the walker decides it (`fstatat` first, see [`portable`], whose residual
//! race it shares). Since no symlink was followed, the file was opened by the path asked
//! for. A symlink anywhere, or a race, goes to the walker.
//!
//! Only [`sys`] is macOS's own: elsewhere it does the same with what that OS has (Linux's
//! `openat2(RESOLVE_NO_SYMLINKS)`), so the Linux test suite runs this file too.

use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::io::Errno;

use super::{OpenError, OpenedFile, OsFamily, Root, Step, portable};

/// macOS's sandbox.
pub(super) struct MacOs;

impl OsFamily for MacOs {
    fn root_flags() -> rustix::fs::OFlags {
        portable::ROOT_FLAGS
    }

    fn open_file(root: &Root, relative: &str) -> Result<OpenedFile, OpenError> {
        match without_symlinks(root, relative) {
            Some(answer) => answer,
            None => portable::Portable::open_file(root, relative),
        }
    }

    fn open_by_walking(root: &Root, relative: &Path) -> Result<OpenedFile, OpenError> {
        portable::Portable::open_by_walking(root, relative)
    }
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
    let parent = match parent.map(|parent| sys::open_dir_without_symlinks(&root.dir, parent)) {
        None => None,
        Some(Ok(dir)) => Some(dir),
        // Without a symlink on the way, nothing before the failing component can have
        // led out: these are the answer.
        Some(Err(errno @ (Errno::NOENT | Errno::ACCESS))) => {
            return Some(Err(OpenError::Os(errno)));
        }
        // A symlink on the way (`ELOOP`; `ENOTDIR` where the kernel checks `O_DIRECTORY`
        // before `O_NOFOLLOW` on the last one, as Linux does), no such call here, or
        // anything the walker decides more precisely.
        Some(Err(_)) => return None,
    };
    let dir = parent.as_ref().map_or(root.dir.as_fd(), AsFd::as_fd);
    match portable::last_step(dir, OsStr::new(name), || PathBuf::from(relative)) {
        Ok(Step::Found(Some(opened))) => Some(Ok(opened)),
        Ok(_) => None,
        Err(err) => Some(Err(err)),
    }
}

/// The system-call leaf: the directory `path` beneath `dir`, opened (as the portable walker
/// opens directories) only if no component of it is a symlink; `ELOOP` if one is.
mod sys {
    use super::*;
    #[cfg(not(target_os = "freebsd"))]
    use rustix::fs::{self as rfs, Mode};

    #[cfg(target_os = "macos")]
    pub(super) fn open_dir_without_symlinks(dir: &OwnedFd, path: &str) -> Result<OwnedFd, Errno> {
        let flags = portable::DIR_FLAGS | rfs::OFlags::NOFOLLOW_ANY;
        rfs::openat(dir, path, flags, Mode::empty())
    }

    /// Linux's equivalent, for the tests: `path` is normalized, so refusing symlinks and
    /// staying beneath `dir` is what `O_NOFOLLOW_ANY` does to it.
    #[cfg(target_os = "linux")]
    pub(super) fn open_dir_without_symlinks(dir: &OwnedFd, path: &str) -> Result<OwnedFd, Errno> {
        let resolve = rfs::ResolveFlags::NO_SYMLINKS | rfs::ResolveFlags::BENEATH;
        rfs::openat2(dir, path, portable::DIR_FLAGS, Mode::empty(), resolve)
    }

    /// No such call: the walker decides.
    #[cfg(target_os = "freebsd")]
    pub(super) fn open_dir_without_symlinks(_dir: &OwnedFd, _path: &str) -> Result<OwnedFd, Errno> {
        Err(Errno::NOSYS)
    }
}
