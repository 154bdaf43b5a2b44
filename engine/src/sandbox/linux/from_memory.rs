//! Opening a file without waiting, for a caller on an event loop: only what the kernel
//! proves it can do from memory.
//!
//! - The path is resolved by `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//!   RESOLVE_CACHED)`: the kernel resolves it from its dentry cache alone and answers
//!   `EAGAIN` for anything it would have to read from a disk or revalidate over a network.
//!   A path through a symlink is left to the pool's walker.
//! - The status comes from `statx(AT_STATX_DONT_SYNC)`, which never asks a server.
//! - The file must be on the root's own mount, and that mount must be a local file system
//!   whose `open` runs in memory (a network or FUSE file system's `open` asks its server:
//!   NFSv4 sends an `OPEN`, FUSE a request to its daemon). The root's handle keeps its
//!   mount from being unmounted, so the mount id cannot be reused meanwhile.
//! - Only a regular file is reopened for reading, through procfs as on the pool (no reopen
//!   by name, which would resolve the path again without `RESOLVE_CACHED`), or, when the
//!   root keeps a descriptor of this very version of it, by a duplicate of that (see
//!   [`super::OpenFiles`]).
//!
//! Anything else is [`Stop::WouldBlock`]: the caller reads on a thread that may wait,
//! by the full resolution (the walker included).

use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;

use rustix::fs::{self as rfs, AtFlags, Mode, OFlags, ResolveFlags, Stat, StatxFlags};

use super::reopen::{self, Reopened};
use super::{BENEATH, ByName, Resolved, is_final_answer, portable_switch};
use crate::attempt::{Attempt, Stop};
use crate::sandbox::{OpenError, OpenedFile, Root, non_regular_kind};

/// File systems whose lookups, `open` and status live in the kernel's memory once cached:
/// ext2/3/4, XFS, Btrfs, tmpfs, F2FS, bcachefs, ZFS, and overlayfs (a container's root
/// file system; its layers are assumed local, as a container runtime makes them).
const LOCAL_FILE_SYSTEMS: [i64; 8] = [
    0xEF53,      // ext2, ext3, ext4
    0x5846_5342, // XFS
    0x9123_683E, // Btrfs
    0x0102_1994, // tmpfs
    0xF2F5_2010, // F2FS
    0xCA45_1A4E, // bcachefs
    0x2FC1_2FC1, // ZFS
    0x794C_7630, // overlayfs
];

/// What `statx` must report for a status to be used.
const NEEDED: StatxFlags = StatxFlags::TYPE
    .union(StatxFlags::MODE)
    .union(StatxFlags::NLINK)
    .union(StatxFlags::INO)
    .union(StatxFlags::SIZE)
    .union(StatxFlags::MTIME)
    .union(StatxFlags::CTIME)
    .union(StatxFlags::MNT_ID);

/// The mount id of the root directory `dir` when files on it can be opened without
/// waiting (a local file system, a kernel that reports mount ids); `None` otherwise.
pub(in crate::sandbox) fn memory_mount(dir: &OwnedFd) -> Option<u64> {
    if portable_switch() {
        return None;
    }
    let status = rfs::statx(dir, "", AtFlags::EMPTY_PATH, StatxFlags::MNT_ID).ok()?;
    let local = LOCAL_FILE_SYSTEMS.contains(&(rfs::fstatfs(dir).ok()?.f_type as i64));
    (local && status.stx_mask & StatxFlags::MNT_ID.bits() != 0).then_some(status.stx_mnt_id)
}

/// [`crate::sandbox::directory_identity_from_memory`] on Linux.
pub(in crate::sandbox) fn directory_identity(path: &str) -> Option<(u64, u64)> {
    if !path.starts_with('/') || portable_switch() {
        return None;
    }
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = rfs::openat2(rfs::CWD, path, flags, Mode::empty(), ResolveFlags::CACHED).ok()?;
    let sync = AtFlags::EMPTY_PATH | AtFlags::STATX_DONT_SYNC;
    let status = rfs::statx(&dir, "", sync, StatxFlags::INO).ok()?;
    let device = rfs::makedev(status.stx_dev_major, status.stx_dev_minor);
    (status.stx_mask & StatxFlags::INO.bits() != 0).then_some((device, status.stx_ino))
}

/// [`Root::open_file`], without waiting (see [`Root::open_file_from_memory`]).
pub(in crate::sandbox) fn open_file(
    root: &Root,
    relative: &str,
    mount: u64,
    max_len: u64,
) -> Attempt<OpenedFile, OpenError> {
    let relative = if relative.is_empty() { "." } else { relative };
    let flags = OFlags::PATH | OFlags::CLOEXEC;
    let resolve = BENEATH | ResolveFlags::CACHED;
    let handle = match rfs::openat2(&root.dir, relative, flags, Mode::empty(), resolve) {
        Ok(handle) => handle,
        // Said from the dentry cache: a name cached as absent, a file where a directory
        // should be, no search permission.
        Err(errno) if is_final_answer(errno) => return Err(OpenError::Os(errno).into()),
        // Not all in the cache (`EAGAIN`), or for the walker to judge (an escape, a loop).
        Err(_) => return Err(Stop::WouldBlock),
    };
    let stat = status_on_mount(&handle, mount).ok_or(Stop::WouldBlock)?;
    if let Some(kind) = non_regular_kind(&stat) {
        return Err(OpenError::NotFile(kind).into());
    }
    if u64::try_from(stat.st_size).unwrap_or(u64::MAX) > max_len {
        return Err(Stop::WouldBlock);
    }
    let resolved = Resolved {
        handle,
        stat,
        path: PathBuf::from(relative),
        by_name: ByName::Beneath(relative),
    };
    // Without procfs, as when the name raced: the pool reads it (by name).
    let through_procfs =
        |resolved: &Resolved<'_>| reopen::through_procfs(resolved).unwrap_or(Reopened::Raced);
    match reopen::kept_or(root, &resolved, through_procfs) {
        Reopened::File(file) => Ok(OpenedFile {
            file,
            stat,
            path: resolved.path,
        }),
        Reopened::Failed(errno) => Err(OpenError::Os(errno).into()),
        Reopened::Raced => Err(Stop::WouldBlock),
    }
}

/// The status of `handle` from what the kernel has in memory, when the file is on `mount`.
fn status_on_mount(handle: &OwnedFd, mount: u64) -> Option<Stat> {
    let flags = AtFlags::EMPTY_PATH | AtFlags::STATX_DONT_SYNC;
    let status = rfs::statx(handle.as_fd(), "", flags, NEEDED).ok()?;
    let complete = status.stx_mask & NEEDED.bits() == NEEDED.bits();
    if !complete || status.stx_mnt_id != mount {
        return None;
    }
    // SAFETY: `Stat` is a C `struct stat` of integers (and integer padding), for which all
    // zero bits are a valid value; the fields the sandbox and the file guard read are set
    // below, the others stay zero.
    let mut stat: Stat = unsafe { std::mem::zeroed() };
    stat.st_dev = rfs::makedev(status.stx_dev_major, status.stx_dev_minor) as _;
    stat.st_ino = status.stx_ino as _;
    stat.st_mode = u32::from(status.stx_mode) as _;
    stat.st_nlink = status.stx_nlink as _;
    stat.st_size = status.stx_size as _;
    stat.st_mtime = status.stx_mtime.tv_sec as _;
    stat.st_mtime_nsec = status.stx_mtime.tv_nsec as _;
    // The change time completes a version's identity (a toolkit's remembered files).
    stat.st_ctime = status.stx_ctime.tv_sec as _;
    stat.st_ctime_nsec = status.stx_ctime.tv_nsec as _;
    Some(stat)
}
