//! Turning the `O_PATH` handle of a regular file into a readable descriptor.
//!
//! The handle is reopened through procfs: `openat(<handle on /proc/self/fd>, "<N>")` opens
//! exactly the file the handle refers to, whatever its name now names. The directory
//! handle is opened once per process (again after a `fork`, whose child has another
//! `/proc/self`) and used only when it is really procfs.
//!
//! Without procfs the file is reopened by name (beneath the root as the fast path
//! resolved it, or by its last name in the directory the walker held) and accepted only if
//! `(st_dev, st_ino)` matches the handle's. Residual race of that fallback: between the
//! `O_PATH` lookup and the reopen, anyone who can write in the workspace can put a FIFO,
//! socket or device node under the name; the reopen then opens that object (with the side
//! effects of opening it: a writer blocked on the FIFO is released, a device driver's
//! `open` runs) before the identity check refuses it and the lookup is retried once, then
//! answered as not found. Nothing is read from such an object, the reopen never blocks
//! (`O_NONBLOCK`) nor acquires a controlling terminal (`O_NOCTTY`), and it resolves
//! beneath the same root with the same flags, so confinement is not affected.

use std::ffi::CStr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, PoisonError, RwLock};

use rustix::fs::{self as rfs, Mode, OFlags, PROC_SUPER_MAGIC, Stat};
use rustix::io::Errno;

use super::{BENEATH, ByName, Resolved};
use crate::sandbox::{READ_FLAGS, Root};

/// The outcome of reopening a resolved regular file for reading.
pub(super) enum Reopened {
    File(Arc<OwnedFd>),
    /// The name no longer names the file that was resolved.
    Raced,
    Failed(Errno),
}

/// The process's `/proc/self/fd` directory, for the process that opened it.
struct ProcFdDir {
    pid: u32,
    /// `None` when `/proc/self/fd` could not be opened or is not procfs.
    dir: Option<OwnedFd>,
}

static PROC_FD_DIR: RwLock<Option<ProcFdDir>> = RwLock::new(None);

/// A readable descriptor of `resolved` (a regular file): a duplicate of the one its root
/// keeps of this very version, else what `reopen` gives, which the root then keeps.
pub(super) fn kept_or(
    root: &Root,
    resolved: &Resolved<'_>,
    reopen: impl FnOnce(&Resolved<'_>) -> Reopened,
) -> Reopened {
    if let Some(file) = root.open_files.reopen(&resolved.stat) {
        return Reopened::File(file);
    }
    let reopened = reopen(resolved);
    if let Reopened::File(file) = &reopened {
        root.open_files
            .remember(&resolved.path, &resolved.stat, file);
    }
    reopened
}

/// Reopens `resolved` (a regular file) for reading: through procfs, else by name.
pub(super) fn for_reading(root: &OwnedFd, resolved: &Resolved<'_>) -> Reopened {
    with_proc_fd_dir(|proc_fd_dir| reopen(root, resolved, proc_fd_dir))
}

/// Reopens `resolved` (a regular file) for reading through procfs only; `None` without
/// procfs, where a reopen by name would resolve the path again (see [`super::cached`]).
pub(super) fn through_procfs(resolved: &Resolved<'_>) -> Option<Reopened> {
    with_proc_fd_dir(|proc_fd_dir| {
        let mut digits = [0u8; 12];
        let name = decimal(resolved.handle.as_raw_fd(), &mut digits);
        match rfs::openat(proc_fd_dir?, name, READ_FLAGS, Mode::empty()) {
            Ok(file) => Some(Reopened::File(Arc::new(file))),
            Err(Errno::NOENT | Errno::SRCH) => None,
            Err(errno) => Some(Reopened::Failed(errno)),
        }
    })
}

/// Runs `use_dir` with this process's `/proc/self/fd` handle (`None` without procfs),
/// opening it first when there is none yet or it belongs to the parent of a `fork`.
fn with_proc_fd_dir<T>(use_dir: impl FnOnce(Option<BorrowedFd<'_>>) -> T) -> T {
    let pid = std::process::id();
    {
        let cached = PROC_FD_DIR.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = cached.as_ref().filter(|cached| cached.pid == pid) {
            return use_dir(cached.dir.as_ref().map(AsFd::as_fd));
        }
    }
    let mut cached = PROC_FD_DIR.write().unwrap_or_else(PoisonError::into_inner);
    if cached.as_ref().is_none_or(|cached| cached.pid != pid) {
        *cached = Some(ProcFdDir {
            pid,
            dir: open_proc_fd_dir(c"/proc/self/fd"),
        });
    }
    use_dir(
        cached
            .as_ref()
            .and_then(|cached| cached.dir.as_ref().map(AsFd::as_fd)),
    )
}

/// A handle on the directory `path` when it is on procfs (not a look-alike mounted there).
pub(super) fn open_proc_fd_dir(path: &CStr) -> Option<OwnedFd> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = rfs::open(path, flags, Mode::empty()).ok()?;
    let on_procfs = rfs::fstatfs(&dir).ok()?.f_type == PROC_SUPER_MAGIC;
    on_procfs.then_some(dir)
}

/// Reopens through `proc_fd_dir` when given, else (or when procfs cannot see the handle)
/// by name.
pub(super) fn reopen(
    root: &OwnedFd,
    resolved: &Resolved<'_>,
    proc_fd_dir: Option<BorrowedFd<'_>>,
) -> Reopened {
    let Some(proc_fd_dir) = proc_fd_dir else {
        return reopen_by_name(root, resolved);
    };
    let mut digits = [0u8; 12];
    let name = decimal(resolved.handle.as_raw_fd(), &mut digits);
    match rfs::openat(proc_fd_dir, name, READ_FLAGS, Mode::empty()) {
        Ok(file) => Reopened::File(Arc::new(file)),
        // This process's procfs entries are gone (a `/proc` of another pid namespace, say).
        Err(Errno::NOENT | Errno::SRCH) => reopen_by_name(root, resolved),
        Err(errno) => Reopened::Failed(errno),
    }
}

/// Opens the resolved name again and keeps it only if it is the same file.
fn reopen_by_name(root: &OwnedFd, resolved: &Resolved<'_>) -> Reopened {
    let opened = match &resolved.by_name {
        ByName::Beneath(relative) => {
            rfs::openat2(root, *relative, READ_FLAGS, Mode::empty(), BENEATH)
        }
        ByName::InDir { dir, name } => {
            let dir = dir.as_ref().unwrap_or(root);
            rfs::openat(dir, name, READ_FLAGS | OFlags::NOFOLLOW, Mode::empty())
        }
    };
    match opened {
        Ok(file) => match rfs::fstat(&file) {
            Ok(stat) if same_file(&stat, &resolved.stat) => Reopened::File(Arc::new(file)),
            Ok(_) => Reopened::Raced,
            Err(errno) => Reopened::Failed(errno),
        },
        // The name is gone, or became a symlink, a non-directory parent, an escape.
        Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR | Errno::XDEV | Errno::NXIO) => {
            Reopened::Raced
        }
        Err(errno) => Reopened::Failed(errno),
    }
}

fn same_file(a: &Stat, b: &Stat) -> bool {
    (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
}

/// `fd` in decimal as a C string, written into `buffer` (no allocation on the hot path).
fn decimal(fd: i32, buffer: &mut [u8; 12]) -> &CStr {
    let mut value = fd.unsigned_abs();
    let mut start = buffer.len() - 1; // the last byte stays the NUL terminator
    loop {
        start -= 1;
        buffer[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    CStr::from_bytes_with_nul(&buffer[start..]).unwrap_or(c"")
}
