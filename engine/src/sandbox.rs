//! The path sandbox: every file is opened *beneath* a directory handle of the workspace
//! root, so the kernel, not a string comparison, keeps the open inside the workspace.
//!
//! Two steps, both here:
//! 1. [`Root::relative_path`] normalizes the requested path lexically (`.`/`..`, an absolute
//!    spelling of the root) into a workspace-relative path; climbing above the root is
//!    refused before any system call.
//! 2. [`Root::open`] opens that path relative to the root handle. The fast path is one
//!    `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`: the kernel refuses any step out of
//!    the root, including through symlinks and through directories swapped while it walks.
//!    What the kernel refuses but the contract allows (an absolute symlink that points back
//!    inside the workspace), what it cannot do (kernels without `openat2`) and what needs a
//!    precise verdict (a refusal that may be an escape or a loop) goes to
//!    [`Root::open_by_walking`], which resolves one component at a time with `O_NOFOLLOW`
//!    opens relative to directory handles it holds, reading symlinks itself. Neither path
//!    ever hands the kernel a name that could resolve outside the handle it is relative to.
//!
//! Both resolve the last component to an `O_PATH` handle, which opens nothing: its kind is
//! checked from `fstat` first, so a FIFO, socket or device is refused without being opened
//! (opening a FIFO releases a blocked writer; opening a device runs its driver). Only a
//! regular file is then opened for reading, by reopening that same handle (see [`reopen`]).

mod reopen;

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{self as rfs, FileType, Mode, OFlags, ResolveFlags, Stat};
use rustix::io::Errno;

use crate::error::{ErrorCode, ReadFileError};
use reopen::Reopened;

/// How many symlinks one resolution may follow; the kernel's own limit.
pub const MAX_SYMLINK_FOLLOWS: u32 = 40;

/// How a regular file is opened for reading: read-only, never waiting (on a lease, or on a
/// FIFO swapped in under a name reopened by the fallback), never becoming a controlling
/// terminal.
const READ_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY);

/// How each component is looked up: a handle that opens nothing, to the name itself even
/// when it is a symlink.
const STEP_FLAGS: OFlags = OFlags::PATH.union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// The resolution flags of the `openat2` fast path.
const BENEATH: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_MAGICLINKS);

/// Set once `openat2` has answered `ENOSYS`, so later calls go straight to the walker.
static OPENAT2_UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// An open workspace root: the handle every file is opened beneath.
#[derive(Debug)]
pub struct Root {
    dir: OwnedFd,
    /// The root's path with every symlink resolved.
    canonical: PathBuf,
    /// The root's path as the caller spelled it, lexically normalized; `None` when that
    /// spelling names another directory than the handle's (`<base>/link/..` is `<base>`
    /// lexically but the kernel resolves `link` first).
    given: Option<PathBuf>,
    /// `(st_dev, st_ino)` of the directory the handle refers to.
    identity: (u64, u64),
}

/// A regular file beneath the root, opened for reading.
#[derive(Debug)]
pub struct OpenedFile {
    /// The readable descriptor.
    pub file: OwnedFd,
    /// The file's status, taken from the `O_PATH` handle it was reopened from.
    pub stat: Stat,
}

/// Why a confined open did not produce a file handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// The path, or a symlink on it, leads out of the workspace.
    Outside,
    /// More than [`MAX_SYMLINK_FOLLOWS`] symlinks.
    Loop,
    /// Not a regular file (never opened); the kind in words ("a directory", "a FIFO", ...).
    NotFile(&'static str),
    /// What the kernel said about a step inside the workspace.
    Os(Errno),
}

impl Root {
    /// Opens `path` (absolute, an existing directory) as a workspace root.
    pub fn open(path: &str) -> Result<Root, ReadFileError> {
        let given = Path::new(path);
        if path.contains('\0') || !given.is_absolute() {
            return Err(ReadFileError::new(
                ErrorCode::InvalidArgument,
                path,
                "workspaceRoot must be an absolute path to a directory",
            ));
        }
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = rfs::open(given, flags, Mode::empty()).map_err(|e| root_error(path, e))?;
        let stat = rfs::fstat(&dir).map_err(|errno| root_error(path, errno))?;
        let identity = (stat.st_dev, stat.st_ino);
        let canonical = std::fs::canonicalize(given)
            .map_err(|err| root_error(path, Errno::from_io_error(&err).unwrap_or(Errno::IO)))?;
        let given =
            Some(normalize_absolute(given)).filter(|spelled| names_directory(spelled, identity));
        Ok(Root {
            dir,
            canonical,
            given,
            identity,
        })
    }

    /// `(st_dev, st_ino)` of the root directory, to tell whether a path still names it.
    pub fn identity(&self) -> (u64, u64) {
        self.identity
    }

    /// The requested path as a normalized workspace-relative path (`/`-separated, no `.`
    /// or `..`; empty for the root itself), or [`OpenError::Outside`] when it names a place
    /// outside the root. Absolute paths are accepted through the root's canonical spelling
    /// or the caller's.
    pub fn relative_path(&self, requested: &str) -> Result<String, OpenError> {
        let requested = Path::new(requested);
        let relative = if requested.is_absolute() {
            self.strip_root(requested).ok_or(OpenError::Outside)?
        } else {
            requested
        };
        let mut parts: Vec<&OsStr> = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => parts.push(name),
                Component::ParentDir => {
                    parts.pop().ok_or(OpenError::Outside)?;
                }
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
        let joined = parts.join(OsStr::new("/"));
        Ok(String::from_utf8_lossy(joined.as_bytes()).into_owned())
    }

    /// Opens a path from [`Root::relative_path`] for reading, confined to the root. Only a
    /// regular file is opened; anything else is [`OpenError::NotFile`] without being opened.
    pub fn open_file(&self, relative: &str) -> Result<OpenedFile, OpenError> {
        let relative = if relative.is_empty() { "." } else { relative };
        self.open_resolved(|| self.resolve(relative))
    }

    /// [`Root::open_file`] by the walker alone, whatever `openat2` would have said.
    #[doc(hidden)]
    pub fn open_by_walking(&self, relative: &Path) -> Result<OpenedFile, OpenError> {
        self.open_resolved(|| self.resolve_by_walking(relative))
    }

    /// Resolves, refuses what is not a regular file, and opens a regular file for reading.
    /// A name replaced between the lookup and the reopen is looked up once more.
    fn open_resolved<'r>(
        &self,
        resolve: impl Fn() -> Result<Resolved<'r>, OpenError>,
    ) -> Result<OpenedFile, OpenError> {
        for _ in 0..2 {
            let resolved = resolve()?;
            if let Some(kind) = non_regular_kind(resolved.stat.st_mode) {
                return Err(OpenError::NotFile(kind));
            }
            match reopen::for_reading(&self.dir, &resolved) {
                Reopened::File(file) => {
                    return Ok(OpenedFile {
                        file,
                        stat: resolved.stat,
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
    fn resolve<'r>(&self, relative: &'r str) -> Result<Resolved<'r>, OpenError> {
        if !OPENAT2_UNAVAILABLE.load(Ordering::Relaxed) {
            match self.resolve_beneath(relative) {
                Ok(resolved) => return Ok(resolved),
                Err(errno) if is_final_answer(errno) => return Err(OpenError::Os(errno)),
                Err(Errno::NOSYS) => OPENAT2_UNAVAILABLE.store(true, Ordering::Relaxed),
                Err(_) => {}
            }
        }
        self.resolve_by_walking(Path::new(relative))
    }

    /// One `openat2` with the kernel's beneath-the-handle resolution, for an `O_PATH` handle.
    fn resolve_beneath<'r>(&self, relative: &'r str) -> Result<Resolved<'r>, Errno> {
        let flags = OFlags::PATH | OFlags::CLOEXEC;
        let handle = rfs::openat2(&self.dir, relative, flags, Mode::empty(), BENEATH)?;
        let stat = rfs::fstat(&handle)?;
        Ok(Resolved {
            handle,
            stat,
            by_name: ByName::Beneath(relative),
        })
    }

    /// Resolves `relative` one component at a time beneath the root handle, each step an
    /// `O_PATH | O_NOFOLLOW` lookup of one name whose kind is read from its handle: symlinks
    /// are followed by reading them, never by the kernel. `..` returns to the directory
    /// handle the walk came through, so it cannot rise above the root even if directories
    /// are moved meanwhile.
    fn resolve_by_walking(&self, relative: &Path) -> Result<Resolved<'static>, OpenError> {
        let mut pending: Vec<OsString> = Vec::new();
        push_components(&mut pending, relative);
        let mut walk = Walk::new(&self.dir);
        let mut follows = 0;
        while let Some(name) = pending.pop() {
            if name == ".." {
                walk.leave()?;
                continue;
            }
            let step = rfs::openat(walk.here(), &name, STEP_FLAGS, Mode::empty())
                .map_err(OpenError::Os)?;
            let stat = rfs::fstat(&step).map_err(OpenError::Os)?;
            let target = match FileType::from_raw_mode(stat.st_mode) {
                FileType::Symlink => link_target(step.as_fd())?,
                FileType::Directory if !pending.is_empty() => {
                    walk.enter(name, step)?;
                    continue;
                }
                _ if pending.is_empty() => return Ok(walk.resolved(step, stat, name)),
                _ => return Err(OpenError::Os(Errno::NOTDIR)),
            };
            // `name` was a symlink: its target replaces it, relative to the walk's directory.
            follows += 1;
            if follows > MAX_SYMLINK_FOLLOWS {
                return Err(OpenError::Loop);
            }
            let target = Path::new(&target);
            if target.is_absolute() {
                let inside = self.strip_root(target).ok_or(OpenError::Outside)?;
                walk = Walk::new(&self.dir);
                push_components(&mut pending, inside);
            } else {
                push_components(&mut pending, target);
            }
        }
        // The path ended in `..` (or named the root): the directory reached.
        let handle =
            rfs::openat(walk.here(), ".", STEP_FLAGS, Mode::empty()).map_err(OpenError::Os)?;
        let stat = rfs::fstat(&handle).map_err(OpenError::Os)?;
        Ok(walk.resolved(handle, stat, OsString::from(".")))
    }

    /// `path` relative to the root, when it is the root or below it by either spelling.
    fn strip_root<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.canonical).ok().or_else(|| {
            let given = self.given.as_ref()?;
            path.strip_prefix(given).ok()
        })
    }
}

/// The last component of a path, looked up as an `O_PATH` handle: it can be inspected
/// (`fstat`) and reopened, but opening it opened nothing.
struct Resolved<'r> {
    handle: OwnedFd,
    /// The handle's status.
    stat: Stat,
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

/// What a file that is not a regular file is, in words; `None` for a regular file.
fn non_regular_kind(st_mode: u32) -> Option<&'static str> {
    Some(match FileType::from_raw_mode(st_mode) {
        FileType::RegularFile => return None,
        FileType::Directory => "a directory",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "not a regular file",
    })
}

/// Errors from the `openat2` fast path that are already the answer: the kernel reports
/// them at the component where they happen, after any escape before it would have been
/// reported instead. Anything else (an escape, an absolute symlink, a loop, a rename race,
/// no `openat2`) is decided by the walker; so is `ENAMETOOLONG`, which a whole path longer
/// than `PATH_MAX` gets before any component is looked at, even one that leads out.
fn is_final_answer(errno: Errno) -> bool {
    matches!(
        errno,
        Errno::NOENT | Errno::NOTDIR | Errno::ACCESS | Errno::NXIO
    )
}

/// The longest path the kernel accepts, with its NUL: a resolved directory path longer
/// than `PATH_MAX - 1` bytes is refused with `ENAMETOOLONG`, as `openat2` refuses it.
const PATH_MAX: usize = 4096;

/// Directory handles one walk holds at most (besides the root's): the deepest levels
/// entered. A `..` above them opens its directory again from the root.
const KEPT_LEVELS: usize = 16;

/// Where the walker is: the real names of the directories entered from the root, and
/// handles on the deepest [`KEPT_LEVELS`] of them.
struct Walk<'r> {
    root: &'r OwnedFd,
    names: Vec<OsString>,
    /// Bytes of `names` joined with `/`.
    path_len: usize,
    /// Handles of the deepest entered directories, shallowest first. Empty only at the root.
    kept: VecDeque<OwnedFd>,
}

impl<'r> Walk<'r> {
    fn new(root: &'r OwnedFd) -> Walk<'r> {
        Walk {
            root,
            names: Vec::new(),
            path_len: 0,
            kept: VecDeque::new(),
        }
    }

    /// The directory the walk is in.
    fn here(&self) -> BorrowedFd<'_> {
        self.kept.back().unwrap_or(self.root).as_fd()
    }

    /// Steps into the directory `name`, whose handle is `dir`; dropping the handle of the
    /// shallowest level kept when there are more than [`KEPT_LEVELS`].
    fn enter(&mut self, name: OsString, dir: OwnedFd) -> Result<(), OpenError> {
        let separator = usize::from(!self.names.is_empty());
        let path_len = self.path_len + separator + name.len();
        if path_len > PATH_MAX - 1 {
            return Err(OpenError::Os(Errno::NAMETOOLONG));
        }
        self.path_len = path_len;
        self.names.push(name);
        self.kept.push_back(dir);
        if self.kept.len() > KEPT_LEVELS {
            self.kept.pop_front();
        }
        Ok(())
    }

    /// Steps back to the parent directory, never above the root.
    fn leave(&mut self) -> Result<(), OpenError> {
        let name = self.names.pop().ok_or(OpenError::Outside)?;
        self.path_len -= name.len() + usize::from(!self.names.is_empty());
        self.kept.pop_back();
        if self.kept.is_empty() && !self.names.is_empty() {
            self.reopen_kept_levels()?;
        }
        Ok(())
    }

    /// Opens the deepest [`KEPT_LEVELS`] directories again from the root, by the names
    /// they were entered by, one name per step and never through a symlink. A failure means
    /// the tree was changed during the walk.
    fn reopen_kept_levels(&mut self) -> Result<(), OpenError> {
        let flags = STEP_FLAGS | OFlags::DIRECTORY;
        let keep_from = self.names.len().saturating_sub(KEPT_LEVELS);
        let mut passing: Option<OwnedFd> = None;
        for (level, name) in self.names.iter().enumerate() {
            let parent = self.kept.back().or(passing.as_ref()).unwrap_or(self.root);
            let dir = rfs::openat(parent, name, flags, Mode::empty())
                .map_err(|_| OpenError::Os(Errno::NOENT))?;
            if level >= keep_from {
                self.kept.push_back(dir);
            } else {
                passing = Some(dir);
            }
        }
        Ok(())
    }

    /// The walk's result: `handle` on `name` in the directory the walk is in.
    fn resolved(mut self, handle: OwnedFd, stat: Stat, name: OsString) -> Resolved<'static> {
        let by_name = ByName::InDir {
            dir: self.kept.pop_back(),
            name,
        };
        Resolved {
            handle,
            stat,
            by_name,
        }
    }
}

/// Pushes the components of `path` onto the stack of names still to resolve, so that
/// the first component is popped first. `.` and empty components are dropped.
fn push_components(pending: &mut Vec<OsString>, path: &Path) {
    let start = pending.len();
    for component in path.components() {
        match component {
            Component::Normal(name) => pending.push(name.to_owned()),
            Component::ParentDir => pending.push(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    pending[start..].reverse();
}

/// The target of the symlink an `O_PATH | O_NOFOLLOW` handle refers to.
fn link_target(link: BorrowedFd<'_>) -> Result<OsString, OpenError> {
    rfs::readlinkat(link, "", Vec::new())
        .map(|target| OsString::from_vec(target.into_bytes()))
        .map_err(OpenError::Os)
}

/// Whether `path` names the directory whose `(st_dev, st_ino)` is `identity`.
fn names_directory(path: &Path, identity: (u64, u64)) -> bool {
    rfs::stat(path).is_ok_and(|stat| (stat.st_dev, stat.st_ino) == identity)
}

/// Why a root that is an absolute path cannot be opened: `INVALID_ARGUMENT` when the
/// argument is at fault, `INTERNAL` when the process is (out of descriptors or memory).
fn root_error(path: &str, errno: Errno) -> ReadFileError {
    let invalid = |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, path, reason);
    match errno {
        Errno::NOENT => invalid("workspaceRoot does not exist".to_owned()),
        Errno::NOTDIR => invalid("workspaceRoot is not a directory".to_owned()),
        Errno::ACCESS | Errno::PERM | Errno::LOOP | Errno::NAMETOOLONG => {
            invalid(format!("workspaceRoot cannot be opened ({errno})"))
        }
        other => ReadFileError::new(
            ErrorCode::Internal,
            path,
            format!("workspaceRoot cannot be opened ({other})"),
        ),
    }
}

/// An absolute path with `.`, `..` and repeated separators removed lexically.
fn normalize_absolute(path: &Path) -> PathBuf {
    let mut normalized = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(name) => normalized.push(name),
            Component::ParentDir => {
                normalized.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    normalized
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::{Read, Write};
    use std::os::unix::fs::{OpenOptionsExt, symlink};

    struct Fixture {
        _tmp: tempfile::TempDir,
        base: PathBuf,
        root: Root,
    }

    /// `base/ws` is the workspace; `base/outside/secret.txt` and `base/ws-evil/x.txt` are not.
    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().to_path_buf();
        let ws = base.join("ws");
        fs::create_dir_all(ws.join("src/deep")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::create_dir_all(base.join("ws-evil")).unwrap();
        fs::write(ws.join("a.txt"), "inside\n").unwrap();
        fs::write(ws.join("src/deep/b.txt"), "deep\n").unwrap();
        fs::write(base.join("outside/secret.txt"), "SECRET\n").unwrap();
        fs::write(base.join("ws-evil/x.txt"), "EVIL\n").unwrap();
        symlink("a.txt", ws.join("rel-in")).unwrap();
        symlink(ws.join("a.txt"), ws.join("abs-in")).unwrap();
        symlink("../../a.txt", ws.join("src/deep/up-in")).unwrap();
        symlink("src/deep", ws.join("dir-in")).unwrap();
        symlink("../outside/secret.txt", ws.join("rel-out")).unwrap();
        symlink(base.join("outside/secret.txt"), ws.join("abs-out")).unwrap();
        symlink(base.join("outside"), ws.join("dir-out")).unwrap();
        symlink("../../../outside/secret.txt", ws.join("src/deep/climb-out")).unwrap();
        symlink("loop", ws.join("loop")).unwrap();
        symlink("missing-target", ws.join("dangling")).unwrap();
        symlink("/proc/self/root/etc/passwd", ws.join("proc-root")).unwrap();
        let root = Root::open(ws.to_str().unwrap()).unwrap();
        Fixture {
            _tmp: tmp,
            base,
            root,
        }
    }

    fn read_via(fx: &Fixture, requested: &str, walk: bool) -> Result<String, OpenError> {
        let relative = fx.root.relative_path(requested)?;
        let opened = if walk {
            fx.root.open_by_walking(Path::new(&relative))?
        } else {
            fx.root.open_file(&relative)?
        };
        let mut text = String::new();
        fs::File::from(opened.file)
            .read_to_string(&mut text)
            .unwrap();
        Ok(text)
    }

    /// Every decision must be the same on the `openat2` fast path and on the walker.
    fn read(fx: &Fixture, requested: &str) -> Result<String, OpenError> {
        let fast = read_via(fx, requested, false);
        let walked = read_via(fx, requested, true);
        assert_eq!(
            fast, walked,
            "fast path and walker disagree on {requested:?}"
        );
        fast
    }

    #[test]
    fn relative_paths_are_normalized_lexically() {
        let fx = fixture();
        let rel = |p| fx.root.relative_path(p);
        assert_eq!(
            rel("./src//deep/../deep/b.txt"),
            Ok("src/deep/b.txt".to_owned())
        );
        assert_eq!(rel("a.txt/"), Ok("a.txt".to_owned()));
        assert_eq!(rel("."), Ok(String::new()));
        assert_eq!(rel(".."), Err(OpenError::Outside));
        assert_eq!(rel("src/../../ws/a.txt"), Err(OpenError::Outside));
    }

    #[test]
    fn absolute_paths_inside_by_either_spelling_become_relative() {
        let fx = fixture();
        let ws = fx.base.join("ws");
        let inside = format!("{}/src/deep/b.txt", ws.display());
        assert_eq!(
            fx.root.relative_path(&inside),
            Ok("src/deep/b.txt".to_owned())
        );
        let spelled = format!("{}/../ws/./a.txt", ws.display());
        assert_eq!(fx.root.relative_path(&spelled), Err(OpenError::Outside));
        let canonical = format!("{}/a.txt", fs::canonicalize(&ws).unwrap().display());
        assert_eq!(fx.root.relative_path(&canonical), Ok("a.txt".to_owned()));
    }

    #[test]
    fn absolute_paths_outside_and_prefix_siblings_are_outside() {
        let fx = fixture();
        for outside in ["/", "//etc/passwd", "/etc/passwd"] {
            assert_eq!(fx.root.relative_path(outside), Err(OpenError::Outside));
        }
        let sibling = format!("{}/ws-evil/x.txt", fx.base.display());
        assert_eq!(fx.root.relative_path(&sibling), Err(OpenError::Outside));
        assert_eq!(
            fx.root.relative_path("../ws-evil/x.txt"),
            Err(OpenError::Outside)
        );
    }

    #[test]
    fn symlinks_that_stay_inside_work_whatever_their_spelling() {
        let fx = fixture();
        assert_eq!(read(&fx, "rel-in").unwrap(), "inside\n");
        assert_eq!(read(&fx, "abs-in").unwrap(), "inside\n");
        assert_eq!(read(&fx, "src/deep/up-in").unwrap(), "inside\n");
        assert_eq!(read(&fx, "dir-in/b.txt").unwrap(), "deep\n");
        assert_eq!(read(&fx, "dir-in/../a.txt").unwrap(), "inside\n");
    }

    #[test]
    fn symlinks_that_lead_out_are_outside() {
        let fx = fixture();
        for escape in [
            "rel-out",
            "abs-out",
            "dir-out/secret.txt",
            "src/deep/climb-out",
        ] {
            assert_eq!(read(&fx, escape), Err(OpenError::Outside), "{escape}");
        }
        assert_eq!(read(&fx, "proc-root"), Err(OpenError::Outside));
    }

    #[test]
    fn a_path_too_long_for_one_openat2_still_gets_the_escape_verdict() {
        // Found by the fuzzer: openat2 refuses the whole path (ENAMETOOLONG) before it
        // would have seen `rel-out` lead outside.
        let fx = fixture();
        let long = format!("rel-out/{}", "n/".repeat(2100));
        assert_eq!(read(&fx, &long), Err(OpenError::Outside));
        let missing = format!("missing/{}", "n/".repeat(2100));
        assert_eq!(read(&fx, &missing), Err(OpenError::Os(Errno::NOENT)));
    }

    #[test]
    fn loops_and_dangling_links_fail_without_escaping() {
        let fx = fixture();
        assert_eq!(read(&fx, "loop"), Err(OpenError::Loop));
        assert_eq!(read(&fx, "dangling"), Err(OpenError::Os(Errno::NOENT)));
        assert_eq!(read(&fx, "missing.txt"), Err(OpenError::Os(Errno::NOENT)));
        assert_eq!(read(&fx, "a.txt/x"), Err(OpenError::Os(Errno::NOTDIR)));
    }

    #[test]
    fn root_must_be_an_absolute_existing_directory() {
        let fx = fixture();
        for bad in ["relative/dir", "/definitely/not/here"] {
            let err = Root::open(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArgument, "{bad}");
        }
        let file = fx.base.join("ws/a.txt");
        let err = Root::open(file.to_str().unwrap()).unwrap_err();
        assert!(err.reason.contains("not a directory"), "{err}");
    }

    #[test]
    fn a_fifo_is_refused_without_releasing_its_blocked_writer() {
        let fx = fixture();
        let fifo = fx.base.join("ws/fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let writer_path = fifo.clone();
        // Blocks in open(2) until something opens the FIFO for reading.
        let writer =
            std::thread::spawn(move || fs::OpenOptions::new().write(true).open(writer_path));
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(read(&fx, "fifo"), Err(OpenError::NotFile("a FIFO")));
        std::thread::sleep(std::time::Duration::from_millis(200));
        let still_blocked = !writer.is_finished();
        // Release the writer whatever happened, so the test never leaves a thread behind.
        let reader = fs::OpenOptions::new()
            .read(true)
            .custom_flags(OFlags::NONBLOCK.bits() as i32)
            .open(&fifo)
            .unwrap();
        writer.join().unwrap().unwrap();
        drop(reader);
        assert!(still_blocked, "reading the FIFO's kind released its writer");
    }

    #[test]
    fn directories_and_sockets_are_not_files() {
        let fx = fixture();
        assert_eq!(read(&fx, "src"), Err(OpenError::NotFile("a directory")));
        assert_eq!(read(&fx, "."), Err(OpenError::NotFile("a directory")));
        let _listener = std::os::unix::net::UnixListener::bind(fx.base.join("ws/sock")).unwrap();
        assert_eq!(read(&fx, "sock"), Err(OpenError::NotFile("a socket")));
    }

    /// The regular file `relative` resolved to its `O_PATH` handle, as the fast path does.
    fn resolved<'r>(fx: &Fixture, relative: &'r str) -> Resolved<'r> {
        fx.root.resolve(relative).unwrap()
    }

    fn reopened_text(outcome: Reopened) -> String {
        let Reopened::File(file) = outcome else {
            panic!("not reopened");
        };
        let mut text = String::new();
        fs::File::from(file).read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn without_procfs_a_file_is_reopened_by_name_when_it_is_still_the_same_file() {
        let fx = fixture();
        let beneath = resolved(&fx, "src/deep/b.txt");
        let by_name = reopen::reopen(&fx.root.dir, &beneath, None);
        assert_eq!(reopened_text(by_name), "deep\n");
        let walked = fx
            .root
            .resolve_by_walking(Path::new("dir-in/b.txt"))
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
                fx.root.resolve_by_walking(Path::new("a.txt")).unwrap()
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

    /// Creates `levels` nested directories named `name` under `dir`, by relative steps (the
    /// whole path may be longer than the kernel accepts), and returns the deepest.
    fn nest(dir: &Path, name: &str, levels: usize) -> OwnedFd {
        let mut here = rfs::open(dir, OFlags::PATH | OFlags::DIRECTORY, Mode::empty()).unwrap();
        for _ in 0..levels {
            rfs::mkdirat(&here, name, Mode::from_raw_mode(0o755)).unwrap();
            here =
                rfs::openat(&here, name, OFlags::PATH | OFlags::DIRECTORY, Mode::empty()).unwrap();
        }
        here
    }

    fn write_at(dir: &OwnedFd, name: &str, text: &str) {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::CLOEXEC;
        let file = rfs::openat(dir, name, flags, Mode::from_raw_mode(0o644)).unwrap();
        fs::File::from(file).write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn a_deep_path_is_read_within_path_max_and_not_found_beyond() {
        let fx = fixture();
        let name = "d".repeat(20);
        // 190 levels of 20 bytes and their separators: 3,989 bytes of directories, and a
        // file name long enough that the whole path is too long for one openat2.
        let deep = nest(&fx.base.join("ws"), &name, 190);
        let file_name = "f".repeat(200);
        write_at(&deep, &file_name, "at the bottom\n");
        let within = format!("{}{file_name}", format!("{name}/").repeat(190));
        assert!(within.len() >= PATH_MAX);
        assert_eq!(read(&fx, &within).unwrap(), "at the bottom\n");
        // 300 levels: 6,300 bytes of directories.
        let deeper = nest(&fx.base.join("ws/src"), &name, 300);
        write_at(&deeper, "f.txt", "too deep\n");
        let beyond = format!("src/{}f.txt", format!("{name}/").repeat(300));
        assert_eq!(read(&fx, &beyond), Err(OpenError::Os(Errno::NAMETOOLONG)));
    }

    #[test]
    fn the_walker_holds_a_bounded_number_of_directory_handles() {
        let fx = fixture();
        let deep = nest(&fx.base.join("ws"), "d", 300);
        write_at(&deep, "f.txt", "deep\n");
        let path = format!("{}f.txt", "d/".repeat(300));
        let mut walk = Walk::new(&fx.root.dir);
        let mut most_held = 0;
        for _ in 0..300 {
            let dir = rfs::openat(walk.here(), "d", STEP_FLAGS, Mode::empty()).unwrap();
            walk.enter(OsString::from("d"), dir).unwrap();
            most_held = most_held.max(walk.kept.len());
        }
        assert_eq!(most_held, KEPT_LEVELS);
        drop(walk);
        assert_eq!(read(&fx, &path).unwrap(), "deep\n");
    }

    #[test]
    fn dot_dot_above_the_kept_handles_reopens_from_the_root() {
        let fx = fixture();
        // 40 levels, a file at level 10, and a symlink at the bottom climbing 30 levels to
        // it: more than the handles kept.
        drop(nest(&fx.base.join("ws"), "d", 40));
        let level = |n: usize| fx.base.join(format!("ws/{}", "d/".repeat(n)));
        fs::write(level(10).join("mid.txt"), "level 10\n").unwrap();
        symlink(format!("{}mid.txt", "../".repeat(30)), level(40).join("up")).unwrap();
        let up = format!("{}up", "d/".repeat(40));
        assert_eq!(read(&fx, &up).unwrap(), "level 10\n");
        // Climbing one level more than the path went down is out of the root.
        symlink(format!("{}x", "../".repeat(41)), level(40).join("out")).unwrap();
        let out = format!("{}out", "d/".repeat(40));
        assert_eq!(read(&fx, &out), Err(OpenError::Outside));
    }

    #[test]
    fn a_root_is_invalid_only_for_what_is_wrong_with_the_argument() {
        for errno in [
            Errno::NOENT,
            Errno::NOTDIR,
            Errno::ACCESS,
            Errno::LOOP,
            Errno::NAMETOOLONG,
        ] {
            let code = root_error("/r", errno).code;
            assert_eq!(code, ErrorCode::InvalidArgument, "{errno}");
        }
        for errno in [Errno::MFILE, Errno::NFILE, Errno::NOMEM, Errno::IO] {
            let err = root_error("/r", errno);
            assert_eq!(err.code, ErrorCode::Internal, "{errno}");
            assert!(err.reason.contains(&errno.to_string()), "{err}");
        }
    }

    #[test]
    fn a_root_spelled_through_symlink_dot_dot_accepts_only_its_canonical_spelling() {
        let fx = fixture();
        // `lnk/..` is `base` lexically, but the kernel opens `lnk` (ws/src), then its parent: ws.
        symlink(fx.base.join("ws/src"), fx.base.join("lnk")).unwrap();
        fs::write(fx.base.join("a.txt"), "base, not the root\n").unwrap();
        let spelled = format!("{}/lnk/..", fx.base.display());
        let root = Root::open(&spelled).unwrap();
        assert_eq!(root.identity(), fx.root.identity());
        let via_given = format!("{}/a.txt", fx.base.display());
        assert_eq!(root.relative_path(&via_given), Err(OpenError::Outside));
        let canonical = fs::canonicalize(fx.base.join("ws")).unwrap();
        let via_canonical = format!("{}/a.txt", canonical.display());
        assert_eq!(root.relative_path(&via_canonical), Ok("a.txt".to_owned()));
    }

    #[test]
    fn a_root_spelled_through_a_symlink_to_it_accepts_that_spelling() {
        let fx = fixture();
        symlink(fx.base.join("ws"), fx.base.join("ws-link")).unwrap();
        let spelled = fx.base.join("ws-link");
        let root = Root::open(spelled.to_str().unwrap()).unwrap();
        let via_given = format!("{}/src/deep/b.txt", spelled.display());
        assert_eq!(
            root.relative_path(&via_given),
            Ok("src/deep/b.txt".to_owned())
        );
    }
}
