//! The sandbox without `O_PATH` or `openat2`: macOS's walker, FreeBSD's whole sandbox, and
//! Linux's under [`PORTABLE_SWITCH`](super::linux::PORTABLE_SWITCH). System calls every
//! Unix has, so it compiles and runs everywhere.
//!
//! Every step but the last opens one name as a directory,
//! `O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`: a directory is entered; a symlink
//! answers `ELOOP` (or `ENOTDIR`, `EMLINK` on FreeBSD) and is read with `readlinkat`;
//! anything else is "not a directory". `O_DIRECTORY` is checked before anything is
//! opened, so a FIFO met on the way is never opened and never blocks.
//!
//! The last component's kind is decided without opening it, by
//! `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: a symlink is read and followed, anything but
//! a regular file is refused unopened, and a regular file is opened
//! `O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY` by the same name in the same directory
//! handle and kept only if its `(st_dev, st_ino)` is the one `fstatat` saw; else the path is
//! resolved once more, then answered as not found.
//!
//! Residual race: between the `fstatat` and the open, anyone who can write in that
//! directory of the workspace can put a FIFO, socket or device node under the name; the
//! open then opens that object (with the side effects of opening it: a writer blocked on
//! the FIFO is released, a device driver's `open` runs) before the identity check refuses
//! it. Nothing is read from such an object, the open never blocks (`O_NONBLOCK`) nor
//! acquires a controlling terminal (`O_NOCTTY`), and it opens one name relative to a
//! directory handle beneath the root, without following a symlink, so confinement is not
//! affected.

use std::ffi::{OsStr, OsString};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

use super::{
    Lookup, OpenError, OpenedFile, OsFamily, READ_FLAGS, Root, Step, Walk, identity,
    non_regular_kind,
};

/// How the root directory is opened: for reading, so that it is a directory handle on
/// every system; `O_NONBLOCK` so that even a FIFO under the root's path cannot block.
pub(super) const ROOT_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

/// How each directory on the way is opened. `O_NONBLOCK` too, though `O_DIRECTORY`
/// already refuses a FIFO before opening it: nothing here may ever wait.
pub(super) const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

/// The portable walker as an OS family: FreeBSD's, and any Unix's.
pub(super) struct Portable;

impl OsFamily for Portable {
    fn root_flags() -> OFlags {
        ROOT_FLAGS
    }

    fn open_file(root: &Root, relative: &str) -> Result<OpenedFile, OpenError> {
        let relative = Path::new(if relative.is_empty() { "." } else { relative });
        for _ in 0..2 {
            if let Some(opened) = root.walk(relative, &PortableLookup)? {
                return Ok(opened);
            }
        }
        Err(OpenError::Os(Errno::NOENT))
    }

    fn open_by_walking(root: &Root, relative: &Path) -> Result<OpenedFile, OpenError> {
        Self::open_file(root, &relative.to_string_lossy())
    }
}

/// The portable walker's steps. A `None` found: the last name changed between its
/// `fstatat` and its open.
struct PortableLookup;

impl Lookup for PortableLookup {
    type Found = Option<OpenedFile>;
    const DIR_FLAGS: OFlags = DIR_FLAGS;

    fn step(
        &self,
        walk: &mut Walk<'_>,
        name: &OsStr,
        last: bool,
    ) -> Result<Step<Option<OpenedFile>>, OpenError> {
        if last {
            return last_step(walk.here(), name, || walk.path_to(name));
        }
        match rfs::openat(walk.here(), name, DIR_FLAGS, Mode::empty()) {
            Ok(dir) => Ok(Step::Dir(dir)),
            Err(Errno::LOOP | Errno::NOTDIR | Errno::MLINK) => match read_link(walk.here(), name) {
                Err(Errno::INVAL) => Err(OpenError::Os(Errno::NOTDIR)),
                read => read.map(Step::Link).map_err(OpenError::Os),
            },
            Err(errno) => Err(OpenError::Os(errno)),
        }
    }

    fn at_directory(&self, _walk: Walk<'_>) -> Result<Option<OpenedFile>, OpenError> {
        Err(OpenError::NotFile("a directory"))
    }
}

/// The last component `name` in `dir`: its kind decided by `fstatat`, a symlink read, a
/// regular file opened and kept only if it is still the file looked at; `path` is its
/// workspace-relative path.
pub(super) fn last_step(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    path: impl FnOnce() -> PathBuf,
) -> Result<Step<Option<OpenedFile>>, OpenError> {
    let stat = rfs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).map_err(OpenError::Os)?;
    if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink {
        return match read_link(dir, name) {
            Ok(target) => Ok(Step::Link(target)),
            // No longer a symlink: resolve again.
            Err(Errno::INVAL | Errno::NOENT) => Ok(Step::Found(None)),
            Err(errno) => Err(OpenError::Os(errno)),
        };
    }
    if let Some(kind) = non_regular_kind(&stat) {
        return Err(OpenError::NotFile(kind));
    }
    let opened = open_same_file(dir, name, &stat)?;
    Ok(Step::Found(opened.map(|(file, stat)| OpenedFile {
        file: Arc::new(file),
        stat,
        path: path(),
    })))
}

/// Opens `name` in `dir` for reading, when it is still the file `looked_at` describes; the
/// descriptor and its status.
fn open_same_file(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    looked_at: &Stat,
) -> Result<Option<(OwnedFd, Stat)>, OpenError> {
    let flags = READ_FLAGS | OFlags::NOFOLLOW;
    let file: OwnedFd = match rfs::openat(dir, name, flags, Mode::empty()) {
        Ok(file) => file,
        // Gone, or replaced by a symlink or a socket since the `fstatat`.
        Err(Errno::NOENT | Errno::LOOP | Errno::MLINK | Errno::NXIO) => return Ok(None),
        Err(errno) => return Err(OpenError::Os(errno)),
    };
    let stat = rfs::fstat(&file).map_err(OpenError::Os)?;
    let same = identity(&stat) == identity(looked_at);
    Ok(same.then_some((file, stat)))
}

/// The target of the symlink `name` in `dir`.
fn read_link(dir: BorrowedFd<'_>, name: &OsStr) -> Result<OsString, Errno> {
    rfs::readlinkat(dir, name, Vec::new()).map(|target| OsString::from_vec(target.into_bytes()))
}
