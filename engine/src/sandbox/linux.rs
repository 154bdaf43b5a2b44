//! Linux: `openat2` and `O_PATH`.
//!
//! The fast path is one `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` to an `O_PATH`
//! handle: the kernel refuses any step out of the root, including through directories
//! swapped while it walks, and any symlink, so a file it opens was opened by the path asked
//! for. A symlink, what the kernel cannot do (kernels without `openat2`) and what needs a
//! precise verdict (a refusal that may be an escape) goes to the walker, whose steps are
//! `O_PATH | O_NOFOLLOW` lookups and which follows symlinks itself.
//!
//! Both resolve the last component to an `O_PATH` handle, which opens nothing: its kind is
//! checked from `fstat` first, so a FIFO, socket or device is refused without being
//! opened. Only a regular file is then opened for reading, by reopening that same handle
//! (see [`reopen`]).
//!
//! Under [`PORTABLE_SWITCH`] the whole sandbox takes the portable code path instead (the
//! one macOS takes, without `O_NOFOLLOW_ANY`), so that Linux test runs check it too.

pub(super) mod from_memory;
mod open_files;
mod reopen;

pub(super) use open_files::OpenFiles;

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{self as rfs, FileType, Mode, OFlags, ResolveFlags, Stat};
use rustix::io::Errno;

use super::{
    Lookup, OpenError, OpenedFile, OsFamily, Root, Status, Step, Walk, non_regular_kind, portable,
};
use crate::attempt::Attempt;
use reopen::Reopened;

/// The environment variable that, set to `1`, makes this process's sandbox take the
/// portable code path (macOS's) instead of `openat2` and `O_PATH`. For tests only: it
/// checks on Linux the code path that other systems run. Read once per process.
pub const PORTABLE_SWITCH: &str = "AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX";

/// How each component is looked up: a handle that opens nothing, to the name itself even
/// when it is a symlink.
const STEP_FLAGS: OFlags = OFlags::PATH.union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// The resolution flags of the `openat2` fast path: beneath the root, through no symlink
/// (so the path is the one the file was opened by).
const BENEATH: ResolveFlags = ResolveFlags::BENEATH
    .union(ResolveFlags::NO_MAGICLINKS)
    .union(ResolveFlags::NO_SYMLINKS);

/// Set once `openat2` has answered `ENOSYS`, so later calls go straight to the walker.
static OPENAT2_UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// Whether this process runs the portable code path ([`PORTABLE_SWITCH`]).
fn portable_switch() -> bool {
    static PORTABLE: OnceLock<bool> = OnceLock::new();
    *PORTABLE.get_or_init(|| switch_is_on(std::env::var_os(PORTABLE_SWITCH).as_deref()))
}

fn switch_is_on(value: Option<&OsStr>) -> bool {
    value == Some(OsStr::new("1"))
}

/// [`Root::status_beneath`] on Linux: one `openat2` of an `O_PATH` handle beneath the root
/// through no symlink (from the dentry cache alone when `from_memory`), and its `fstat`.
pub(in crate::sandbox) fn status_beneath(root: &Root, relative: &str, from_memory: bool) -> Status {
    if portable_switch() || OPENAT2_UNAVAILABLE.load(Ordering::Relaxed) {
        return Status::Unknown;
    }
    if relative.is_empty() {
        // The root itself: its own handle's status, without a lookup (every read asks for
        // it). From memory only where the root's file system answers without waiting.
        if from_memory && root.memory_mount.is_none() {
            return Status::Unknown;
        }
        return rfs::fstat(&root.dir).map_or(Status::Unknown, |stat| Status::Found(Box::new(stat)));
    }
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let resolve = if from_memory {
        BENEATH | ResolveFlags::CACHED
    } else {
        BENEATH
    };
    match rfs::openat2(&root.dir, relative, flags, Mode::empty(), resolve) {
        Ok(handle) => {
            rfs::fstat(&handle).map_or(Status::Unknown, |stat| Status::Found(Box::new(stat)))
        }
        Err(Errno::NOENT | Errno::NOTDIR) => Status::Absent,
        Err(_) => Status::Unknown,
    }
}

/// [`Root::directory_status`] on Linux: one `fstatat` by name, without a handle (a third of
/// `status_beneath`'s cost here). Only a path of plain names is looked up this way; any other
/// is [`status_beneath`]'s.
pub(in crate::sandbox) fn directory_status(
    root: &Root,
    relative: &str,
    from_memory: bool,
) -> Status {
    let plain = Path::new(relative)
        .components()
        .all(|part| matches!(part, std::path::Component::Normal(_)));
    if relative.is_empty()
        || !plain
        || portable_switch()
        || OPENAT2_UNAVAILABLE.load(Ordering::Relaxed)
    {
        return status_beneath(root, relative, from_memory);
    }
    match rfs::statat(&root.dir, relative, rfs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Status::Found(Box::new(stat)),
        Err(Errno::NOENT | Errno::NOTDIR) => Status::Absent,
        Err(_) => Status::Unknown,
    }
}

/// Linux's sandbox.
pub(super) struct Linux;

impl OsFamily for Linux {
    fn root_flags() -> OFlags {
        if portable_switch() {
            portable::ROOT_FLAGS
        } else {
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC
        }
    }

    fn open_file(root: &Root, relative: &str) -> Result<OpenedFile, OpenError> {
        if portable_switch() {
            return portable::Portable::open_file(root, relative);
        }
        let relative = if relative.is_empty() { "." } else { relative };
        open_resolved(root, || resolve(root, relative))
    }

    fn open_by_walking(root: &Root, relative: &Path) -> Result<OpenedFile, OpenError> {
        open_resolved(root, || root.walk(relative, &OPathLookup))
    }

    fn memory_mount(dir: &OwnedFd) -> Option<u64> {
        from_memory::memory_mount(dir)
    }

    fn open_file_from_memory(
        root: &Root,
        relative: &str,
        mount: u64,
        max_len: u64,
    ) -> Attempt<OpenedFile, OpenError> {
        from_memory::open_file(root, relative, mount, max_len)
    }

    fn directory_identity_from_memory(path: &str) -> Option<(u64, u64)> {
        from_memory::directory_identity(path)
    }
}

/// Resolves, refuses what is not a regular file, and opens a regular file for reading.
/// A name replaced between the lookup and the reopen is looked up once more.
fn open_resolved<'r>(
    root: &Root,
    resolve: impl Fn() -> Result<Resolved<'r>, OpenError>,
) -> Result<OpenedFile, OpenError> {
    for _ in 0..2 {
        let resolved = resolve()?;
        if let Some(kind) = non_regular_kind(&resolved.stat) {
            return Err(OpenError::NotFile(kind));
        }
        match reopen::kept_or(root, &resolved, |resolved| {
            reopen::for_reading(&root.dir, resolved)
        }) {
            Reopened::File(file) => {
                return Ok(OpenedFile {
                    file,
                    stat: resolved.stat,
                    path: resolved.path,
                });
            }
            Reopened::Failed(errno) => return Err(OpenError::Os(errno)),
            Reopened::Raced => {}
        }
    }
    Err(OpenError::Os(Errno::NOENT))
}

/// The last component of `relative` as an `O_PATH` handle: by `openat2` when the kernel
/// can decide, else by the walker.
fn resolve<'r>(root: &Root, relative: &'r str) -> Result<Resolved<'r>, OpenError> {
    if !OPENAT2_UNAVAILABLE.load(Ordering::Relaxed) {
        match resolve_beneath(root, relative) {
            Ok(resolved) => return Ok(resolved),
            Err(errno) if is_final_answer(errno) => return Err(OpenError::Os(errno)),
            Err(Errno::NOSYS) => OPENAT2_UNAVAILABLE.store(true, Ordering::Relaxed),
            Err(_) => {}
        }
    }
    root.walk(Path::new(relative), &OPathLookup)
}

/// One `openat2` with the kernel's beneath-the-handle resolution, for an `O_PATH` handle.
fn resolve_beneath<'r>(root: &Root, relative: &'r str) -> Result<Resolved<'r>, Errno> {
    let flags = OFlags::PATH | OFlags::CLOEXEC;
    let handle = rfs::openat2(&root.dir, relative, flags, Mode::empty(), BENEATH)?;
    let stat = rfs::fstat(&handle)?;
    Ok(Resolved {
        handle,
        stat,
        path: PathBuf::from(relative),
        by_name: ByName::Beneath(relative),
    })
}

/// Errors from the `openat2` fast path that are already the answer: the kernel reports
/// them at the component where they happen, after any escape or symlink before it would
/// have been reported instead. Anything else (an escape, a symlink, a rename race, no
/// `openat2`) is decided by the walker; so is `ENAMETOOLONG`, which a whole path longer
/// than `PATH_MAX` gets before any component is looked at, even one that leads out.
fn is_final_answer(errno: Errno) -> bool {
    matches!(
        errno,
        Errno::NOENT | Errno::NOTDIR | Errno::ACCESS | Errno::NXIO
    )
}

/// The walker's steps on Linux: each name looked up as an `O_PATH | O_NOFOLLOW` handle
/// whose kind is read from the handle.
struct OPathLookup;

impl Lookup for OPathLookup {
    type Found = Resolved<'static>;
    const DIR_FLAGS: OFlags = STEP_FLAGS;

    fn step(
        &self,
        walk: &mut Walk<'_>,
        name: &OsStr,
        last: bool,
    ) -> Result<Step<Resolved<'static>>, OpenError> {
        let step =
            rfs::openat(walk.here(), name, STEP_FLAGS, Mode::empty()).map_err(OpenError::Os)?;
        let stat = rfs::fstat(&step).map_err(OpenError::Os)?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Symlink => link_target(step.as_fd()).map(Step::Link),
            FileType::Directory if !last => Ok(Step::Dir(step)),
            _ if last => Ok(Step::Found(resolved(walk, step, stat, name))),
            _ => Err(OpenError::Os(Errno::NOTDIR)),
        }
    }

    fn at_directory(&self, mut walk: Walk<'_>) -> Result<Resolved<'static>, OpenError> {
        let handle =
            rfs::openat(walk.here(), ".", STEP_FLAGS, Mode::empty()).map_err(OpenError::Os)?;
        let stat = rfs::fstat(&handle).map_err(OpenError::Os)?;
        Ok(resolved(&mut walk, handle, stat, OsStr::new(".")))
    }
}

/// The walk's result: `handle` on `name` in the directory the walk is in.
fn resolved(walk: &mut Walk<'_>, handle: OwnedFd, stat: Stat, name: &OsStr) -> Resolved<'static> {
    let path = walk.path_to(name);
    let by_name = ByName::InDir {
        dir: walk.kept.pop_back(),
        name: name.to_owned(),
    };
    Resolved {
        handle,
        stat,
        path,
        by_name,
    }
}

/// The target of the symlink an `O_PATH | O_NOFOLLOW` handle refers to.
fn link_target(link: BorrowedFd<'_>) -> Result<OsString, OpenError> {
    rfs::readlinkat(link, "", Vec::new())
        .map(|target| OsString::from_vec(target.into_bytes()))
        .map_err(OpenError::Os)
}

/// The last component of a path, looked up as an `O_PATH` handle: it can be inspected
/// (`fstat`) and reopened, but opening it opened nothing.
struct Resolved<'r> {
    handle: OwnedFd,
    /// The handle's status.
    stat: Stat,
    /// The workspace-relative path it was looked up by (see [`OpenedFile::path`]).
    path: PathBuf,
    /// How to look the same name up again, for reopening without procfs.
    by_name: ByName<'r>,
}

/// How a resolved file is named again for a reopen by name.
enum ByName<'r> {
    /// The workspace-relative path, resolved beneath the root as the fast path did.
    Beneath(&'r str),
    /// One name in a directory the walker held (`None`: the root itself).
    InDir {
        dir: Option<OwnedFd>,
        name: OsString,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::tests::{Fixture, fixture, read_all};
    use std::fs;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn the_portable_switch_is_on_only_for_1() {
        assert!(switch_is_on(Some(OsStr::new("1"))));
        for off in [
            None,
            Some(OsStr::new("0")),
            Some(OsStr::new("")),
            Some(OsStr::new("yes")),
        ] {
            assert!(!switch_is_on(off), "{off:?}");
        }
    }

    #[test]
    fn a_directory_status_is_the_status_of_what_the_name_names() {
        use std::os::unix::fs::MetadataExt;
        let fx = fixture();
        let identity = |relative: &str| match fx.root.directory_status(Path::new(relative), true) {
            Status::Found(stat) => Some((stat.st_dev, stat.st_ino)),
            Status::Absent => None,
            Status::Unknown => panic!("{relative}: not told"),
        };
        let of = |path: PathBuf| {
            let meta = fs::symlink_metadata(path).unwrap();
            Some((meta.dev(), meta.ino()))
        };
        let ws = fx.base.join("ws");
        assert_eq!(identity(""), of(ws.clone()));
        assert_eq!(identity("src"), of(ws.join("src")));
        assert_eq!(identity("src/deep"), of(ws.join("src/deep")));
        // A symlink last is its own status; one on the way is followed (see the doc).
        assert_eq!(identity("dir-in"), of(ws.join("dir-in")));
        assert_eq!(identity("dir-out"), of(ws.join("dir-out")));
        assert_eq!(identity("dir-in/deep-none"), None);
        assert_eq!(identity("none"), None);
        assert_eq!(identity("a.txt/none"), None);
    }

    /// The regular file `relative` resolved to its `O_PATH` handle, as the fast path does.
    fn resolved<'r>(fx: &Fixture, relative: &'r str) -> Resolved<'r> {
        resolve(&fx.root, relative).unwrap()
    }

    fn reopened_text(outcome: Reopened) -> String {
        let Reopened::File(file) = outcome else {
            panic!("not reopened");
        };
        read_all(&file)
    }

    #[test]
    fn without_procfs_a_file_is_reopened_by_name_when_it_is_still_the_same_file() {
        let fx = fixture();
        let beneath = resolved(&fx, "src/deep/b.txt");
        let by_name = reopen::reopen(&fx.root.dir, &beneath, None);
        assert_eq!(reopened_text(by_name), "deep\n");
        let walked = fx
            .root
            .walk(Path::new("dir-in/b.txt"), &OPathLookup)
            .unwrap();
        let by_name = reopen::reopen(&fx.root.dir, &walked, None);
        assert_eq!(reopened_text(by_name), "deep\n");
    }

    #[test]
    fn without_procfs_a_name_replaced_since_its_lookup_is_a_race() {
        let fx = fixture();
        let ws = fx.base.join("ws");
        for walk in [false, true] {
            let before = if walk {
                fx.root.walk(Path::new("a.txt"), &OPathLookup).unwrap()
            } else {
                resolved(&fx, "a.txt")
            };
            let looked_up = fs::read_to_string(ws.join("a.txt")).unwrap();
            fs::write(ws.join("new.txt"), format!("replaced, walk: {walk}\n")).unwrap();
            fs::rename(ws.join("new.txt"), ws.join("a.txt")).unwrap();
            let outcome = reopen::reopen(&fx.root.dir, &before, None);
            assert!(matches!(outcome, Reopened::Raced), "walk: {walk}");
            // Through procfs the handle's own file is reopened, whatever the name names now.
            let proc_fd_dir = reopen::open_proc_fd_dir(c"/proc/self/fd").unwrap();
            let outcome = reopen::reopen(&fx.root.dir, &before, Some(proc_fd_dir.as_fd()));
            assert_eq!(reopened_text(outcome), looked_up);
        }
    }

    #[test]
    fn a_directory_that_is_not_procfs_is_not_used_as_proc_self_fd() {
        let tmp = tempfile::tempdir().unwrap();
        let fake = std::ffi::CString::new(tmp.path().as_os_str().as_bytes()).unwrap();
        assert!(reopen::open_proc_fd_dir(&fake).is_none());
        assert!(reopen::open_proc_fd_dir(c"/proc/self/fd").is_some());
    }
}
