//! The path sandbox: every file is opened *beneath* a directory handle of the workspace
//! root, so the kernel, not a string comparison, keeps the open inside the workspace.
//!
//! One contract, every OS family:
//! 1. [`Root::relative_path`] normalizes the requested path lexically (`.`/`..`, an absolute
//!    spelling of the root) into a workspace-relative path; climbing above the root is
//!    refused before any system call. A path that must name a directory (a trailing `/` or
//!    `/.`, or a last `..`) keeps a trailing `/`, so a regular file there is "not a
//!    directory", as the OS says.
//! 2. [`Root::open_file`] opens that path relative to the root handle, refusing without
//!    opening it whatever is not a regular file (opening a FIFO releases a blocked writer;
//!    opening a device runs its driver). Linux and macOS have a fast path where the kernel
//!    resolves beneath the handle, through no symlink, in one call (`linux`: `openat2`;
//!    `macos`: `O_NOFOLLOW_ANY` for the parent directory); a symlink (which the contract
//!    allows while it stays inside the workspace), or what the fast path cannot decide,
//!    goes to the shared walker ([`Root::walk`]), which resolves one component at a time
//!    relative to directory handles it holds, reading symlinks itself. No path ever hands
//!    the kernel a name that could resolve outside the handle it is relative to.
//! 3. The file opened comes with the path it was opened by ([`OpenedFile::path`]): the
//!    request itself on a fast path, the names the walker entered otherwise. A toolkit's
//!    policy judges that path.
//!
//! The walker's steps come in two kinds ([`Lookup`]): `linux` looks names up as `O_PATH`
//! handles; `portable` (macOS, FreeBSD, and Linux under
//! [`PORTABLE_SWITCH`](linux::PORTABLE_SWITCH)) opens directories only, decides the last
//! component's kind with `fstatat` and opens a regular file by name, keeping it only if it
//! is the file looked at.

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "freebsd")))]
compile_error!(
    "agent-read-file-engine confines paths with Unix directory handles; it supports Linux, \
     macOS and FreeBSD (Windows and other systems are not targets)"
);

#[cfg(target_os = "linux")]
pub(crate) mod linux;
mod macos;
mod portable;

/// The OS family this build runs on.
#[cfg(target_os = "linux")]
type Current = linux::Linux;
#[cfg(target_os = "macos")]
type Current = macos::MacOs;
/// FreeBSD takes the portable walker: its `O_RESOLVE_BENEATH` cannot refuse symlinks, so a
/// file it opened would not come with the path it was opened by.
#[cfg(target_os = "freebsd")]
type Current = portable::Portable;

/// What an OS family supplies to the sandbox. Every family but Linux (whose fast path is
/// Linux system calls through and through) compiles on every OS, its few system-call
/// leaves chosen by `cfg`, and runs in the Linux test suite: a change of this trait that a
/// family misses fails to compile on any machine.
trait OsFamily {
    /// How the root directory is opened.
    fn root_flags() -> OFlags;
    /// [`Root::open_file`].
    fn open_file(root: &Root, relative: &str) -> Result<OpenedFile, OpenError>;
    /// [`Root::open_by_walking`].
    fn open_by_walking(root: &Root, relative: &Path) -> Result<OpenedFile, OpenError>;
    /// The id of the mount of the root directory `dir` when files on it can be opened
    /// without waiting; `None` where nothing proves that.
    fn memory_mount(_dir: &OwnedFd) -> Option<u64> {
        None
    }
    /// [`Root::open_file_from_memory`] beneath a root on `mount` (from [`OsFamily::memory_mount`]).
    fn open_file_from_memory(
        _root: &Root,
        _relative: &str,
        _mount: u64,
        _max_len: u64,
    ) -> Attempt<OpenedFile, OpenError> {
        Err(Stop::WouldBlock)
    }
    /// [`directory_identity_from_memory`].
    fn directory_identity_from_memory(_path: &str) -> Option<(u64, u64)> {
        None
    }
}

/// `(st_dev, st_ino)` of the directory the absolute `path` names, told from the kernel's
/// dentry and inode caches alone; `None` when that cannot be told without waiting.
pub fn directory_identity_from_memory(path: &str) -> Option<(u64, u64)> {
    Current::directory_identity_from_memory(path)
}

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{self as rfs, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

use crate::attempt::{Attempt, Stop};
use crate::error::{ErrorCode, ReadFileError};

/// How many symlinks one resolution may follow; the kernel's own limit.
pub const MAX_SYMLINK_FOLLOWS: u32 = 40;

/// How a regular file is opened for reading: read-only, never waiting (on a lease, or on a
/// FIFO swapped in under a name opened by name), never becoming a controlling terminal.
const READ_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY);

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
    /// The id of the root's mount when files on it can be opened without waiting (see
    /// [`Root::open_file_from_memory`]); `None` where they cannot.
    memory_mount: Option<u64>,
    /// Readable descriptors of the files read lately, for reading them again unchanged.
    #[cfg(target_os = "linux")]
    open_files: linux::OpenFiles,
}

// The look-ups behind [`Root::status_beneath`] and [`Root::directory_status`]: Linux's, and
// elsewhere none.
#[cfg(target_os = "linux")]
use linux::{directory_status, status_beneath};
#[cfg(not(target_os = "linux"))]
use no_status::{directory_status, status_beneath};

#[cfg(not(target_os = "linux"))]
mod no_status {
    use super::{Root, Status};

    pub(super) fn status_beneath(_root: &Root, _relative: &str, _from_memory: bool) -> Status {
        Status::Unknown
    }

    pub(super) fn directory_status(_root: &Root, _relative: &str, _from_memory: bool) -> Status {
        Status::Unknown
    }
}

/// A regular file beneath the root, opened for reading.
#[derive(Debug)]
pub struct OpenedFile {
    /// The readable descriptor, perhaps shared with the root's kept descriptors and other
    /// reads of the same file (its offset is never used: every read is positional).
    pub file: Arc<OwnedFd>,
    /// The file's status, taken from a handle on the very file that was opened.
    pub stat: Stat,
    /// The workspace-relative path the file was opened by: the names the kernel looked up
    /// in turn, every symlink on the way replaced by what it led to (`/`-separated, never
    /// `.`, `..` or empty). It stays the path the file was reached by whatever happens to
    /// those names afterwards; a hard link is reached by its own name.
    pub path: PathBuf,
}

/// What [`Root::status_beneath`] found.
#[derive(Debug)]
pub enum Status {
    /// The status of what the path names (a symlink's own, for a last component that is one).
    Found(Box<Stat>),
    /// Nothing by that name.
    Absent,
    /// Not told this way: a symlink on the way, a name not in memory, or an OS without it.
    Unknown,
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
        let flags = Current::root_flags();
        let dir = rfs::open(given, flags, Mode::empty()).map_err(|e| root_error(path, e))?;
        let stat = rfs::fstat(&dir).map_err(|errno| root_error(path, errno))?;
        let identity = identity(&stat);
        let canonical = std::fs::canonicalize(given)
            .map_err(|err| root_error(path, Errno::from_io_error(&err).unwrap_or(Errno::IO)))?;
        let given =
            Some(normalize_absolute(given)).filter(|spelled| names_directory(spelled, identity));
        let memory_mount = Current::memory_mount(&dir);
        Ok(Root {
            dir,
            canonical,
            given,
            identity,
            memory_mount,
            #[cfg(target_os = "linux")]
            open_files: linux::OpenFiles::default(),
        })
    }

    /// `(st_dev, st_ino)` of the root directory, to tell whether a path still names it.
    pub fn identity(&self) -> (u64, u64) {
        self.identity
    }

    /// The requested path as a normalized workspace-relative path (`/`-separated, no `.`
    /// or `..`; empty for the root itself), or [`OpenError::Outside`] when it names a place
    /// outside the root. Absolute paths are accepted through the root's canonical spelling
    /// or the caller's. A path that must name a directory keeps one trailing `/`.
    pub fn relative_path(&self, requested: &str) -> Result<String, OpenError> {
        let requested = Path::new(requested);
        let relative = if requested.is_absolute() {
            self.strip_root(requested).ok_or(OpenError::Outside)?
        } else {
            requested
        };
        let parts = lexical_names(relative, AboveStart::Refuse).ok_or(OpenError::Outside)?;
        let mut joined = parts.join(OsStr::new("/"));
        if !parts.is_empty() && names_a_directory(requested.as_os_str().as_bytes()) {
            joined.push("/");
        }
        Ok(String::from_utf8_lossy(joined.as_bytes()).into_owned())
    }

    /// Opens a path from [`Root::relative_path`] for reading, confined to the root. Only a
    /// regular file is opened; anything else is [`OpenError::NotFile`] without being opened.
    pub fn open_file(&self, relative: &str) -> Result<OpenedFile, OpenError> {
        Current::open_file(self, relative)
    }

    /// [`Root::open_file`] for a thread that must not wait (an event loop): done only when
    /// the kernel can do it from memory, else [`Stop::WouldBlock`] and nothing opened but
    /// `O_PATH` handles. A regular file of more than `max_len` bytes is
    /// [`Stop::WouldBlock`] too, without being opened (it is not to be read here either).
    /// Linux with a root on a local file system only; elsewhere always
    /// [`Stop::WouldBlock`].
    pub fn open_file_from_memory(
        &self,
        relative: &str,
        max_len: u64,
    ) -> Attempt<OpenedFile, OpenError> {
        match self.memory_mount {
            Some(mount) => Current::open_file_from_memory(self, relative, mount, max_len),
            None => Err(Stop::WouldBlock),
        }
    }

    /// Opens the directory `relative` (from [`Root::relative_path`]; empty for the root)
    /// names, for listing its entries: by the shared walker on every OS, so confined as a
    /// file's open is (a symlink leading out is [`OpenError::Outside`]), and never opening
    /// anything but directories.
    pub fn open_directory(&self, relative: &str) -> Result<OwnedFd, OpenError> {
        self.walk(Path::new(relative), &DirectoryLookup)
    }

    /// The status of `relative` beneath the root, reached through no symlink, and nothing
    /// opened for reading: for telling whether something changed since it was last read
    /// (by [`Root::open_file`]), never for judging or reading it. With `from_memory`, only
    /// what the kernel has in memory. Linux only; elsewhere always [`Status::Unknown`].
    pub fn status_beneath(&self, relative: &Path, from_memory: bool) -> Status {
        relative.to_str().map_or(Status::Unknown, |relative| {
            status_beneath(self, relative, from_memory)
        })
    }

    /// The status of the directory `relative` names (from [`Root::relative_path`]; empty for
    /// the root), for telling whether entries were added to it or taken from it since its
    /// status was last taken: looked up by name, a symlink on the way followed. That is
    /// enough for that question, asked while a file beneath it is open: the status is only
    /// ever compared whole, identity (device and inode) included, with one taken before, so
    /// a status taken through a symlink matches only when it is the very same directory,
    /// unchanged; and the open file keeps the directories above it in the kernel's memory,
    /// so the look-up does not wait. Linux only; elsewhere always [`Status::Unknown`].
    pub fn directory_status(&self, relative: &Path, from_memory: bool) -> Status {
        relative.to_str().map_or(Status::Unknown, |relative| {
            directory_status(self, relative, from_memory)
        })
    }

    /// [`Root::open_file`] by this OS family's walker alone, whatever its fast path would
    /// have said.
    #[doc(hidden)]
    pub fn open_by_walking(&self, relative: &Path) -> Result<OpenedFile, OpenError> {
        Current::open_by_walking(self, relative)
    }

    /// [`Root::open_file`] by the portable code path (macOS's, without `O_NOFOLLOW_ANY`),
    /// so that every OS can check it against its own.
    #[doc(hidden)]
    pub fn open_portably(&self, relative: &str) -> Result<OpenedFile, OpenError> {
        portable::Portable::open_file(self, relative)
    }

    /// [`Root::open_file`] by macOS's code (its fast path, then the walker); on another OS,
    /// its one macOS system call done with what that OS has, so that every OS can check
    /// macOS's decisions against its own.
    #[doc(hidden)]
    pub fn open_like_macos(&self, relative: &str) -> Result<OpenedFile, OpenError> {
        macos::MacOs::open_file(self, relative)
    }

    /// Resolves `relative` one component at a time beneath the root handle, each step a
    /// lookup of one name by `lookup` that never follows a symlink: symlinks are followed
    /// by reading them, never by the kernel. `..` returns to the directory handle the walk
    /// came through, so it cannot rise above the root even if directories are moved
    /// meanwhile.
    fn walk<L: Lookup>(&self, relative: &Path, lookup: &L) -> Result<L::Found, OpenError> {
        let mut pending: Vec<OsString> = Vec::new();
        let text = relative.as_os_str().as_bytes();
        push_components(&mut pending, relative, names_a_directory(text));
        let mut walk = Walk::new(&self.dir, L::DIR_FLAGS);
        let mut follows = 0;
        while let Some(name) = pending.pop() {
            if name == ".." {
                walk.leave()?;
                continue;
            }
            let target = match lookup.step(&mut walk, &name, pending.is_empty())? {
                Step::Dir(dir) => {
                    walk.enter(name, dir)?;
                    continue;
                }
                Step::Found(found) => return Ok(found),
                Step::Link(target) => target,
            };
            // `name` was a symlink: its target replaces it, relative to the walk's directory.
            follows += 1;
            if follows > MAX_SYMLINK_FOLLOWS {
                return Err(OpenError::Loop);
            }
            let names_dir = names_a_directory(target.as_bytes());
            let target = Path::new(&target);
            if target.is_absolute() {
                let inside = self.strip_root(target).ok_or(OpenError::Outside)?;
                walk = Walk::new(&self.dir, L::DIR_FLAGS);
                push_components(&mut pending, inside, names_dir);
            } else {
                push_components(&mut pending, target, names_dir);
            }
        }
        // The path ended in `..` (or named the root): the directory reached.
        lookup.at_directory(walk)
    }

    /// `path` relative to the root, when it is the root or below it by either spelling.
    fn strip_root<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.canonical).ok().or_else(|| {
            let given = self.given.as_ref()?;
            path.strip_prefix(given).ok()
        })
    }
}

/// What one step of the walk found.
enum Step<F> {
    /// A directory to walk into (never the last component).
    Dir(OwnedFd),
    /// A symlink, by its target.
    Link(OsString),
    /// The last component, resolved.
    Found(F),
}

/// How one OS family looks one name up during a walk. A step never follows a symlink and
/// never opens anything but a directory or, as the last component, a regular file.
trait Lookup {
    /// What the walk resolves a path to.
    type Found;
    /// How a directory level is opened again by name (see [`Walk::reopen_kept_levels`]).
    const DIR_FLAGS: OFlags;
    /// Looks `name` up in the directory the walk is in; `last` when nothing follows it.
    fn step(
        &self,
        walk: &mut Walk<'_>,
        name: &OsStr,
        last: bool,
    ) -> Result<Step<Self::Found>, OpenError>;
    /// The answer when the path ends at the directory the walk is in (`..`, the root).
    fn at_directory(&self, walk: Walk<'_>) -> Result<Self::Found, OpenError>;
}

/// The walker's steps to a directory: each name opened as a readable directory without
/// following a symlink (the portable walker's steps), a symlink read and followed by the
/// walk, the last directory itself the answer.
struct DirectoryLookup;

impl Lookup for DirectoryLookup {
    type Found = OwnedFd;
    const DIR_FLAGS: OFlags = portable::DIR_FLAGS;

    fn step(
        &self,
        walk: &mut Walk<'_>,
        name: &OsStr,
        last: bool,
    ) -> Result<Step<OwnedFd>, OpenError> {
        match rfs::openat(walk.here(), name, portable::DIR_FLAGS, Mode::empty()) {
            Ok(dir) if last => Ok(Step::Found(dir)),
            Ok(dir) => Ok(Step::Dir(dir)),
            Err(Errno::LOOP | Errno::NOTDIR | Errno::MLINK) => {
                match rfs::readlinkat(walk.here(), name, Vec::new()) {
                    Ok(target) => Ok(Step::Link(OsString::from_vec(target.into_bytes()))),
                    Err(_) => Err(OpenError::Os(Errno::NOTDIR)),
                }
            }
            Err(errno) => Err(OpenError::Os(errno)),
        }
    }

    fn at_directory(&self, walk: Walk<'_>) -> Result<OwnedFd, OpenError> {
        rfs::openat(walk.here(), ".", portable::DIR_FLAGS, Mode::empty()).map_err(OpenError::Os)
    }
}

/// Whether a path text must name a directory: it ends in `/`, `/.` or `..`, as the OS
/// reads it (a trailing slash makes the kernel require a directory).
fn names_a_directory(text: &[u8]) -> bool {
    text.ends_with(b"/") || text.ends_with(b"/.") || text == b".." || text.ends_with(b"/..")
}

/// What a file that is not a regular file is, in words; `None` for a regular file.
fn non_regular_kind(stat: &Stat) -> Option<&'static str> {
    Some(match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => return None,
        FileType::Directory => "a directory",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "not a regular file",
    })
}

/// `(st_dev, st_ino)` of `stat`, the identity of a file.
#[allow(clippy::unnecessary_cast)] // `st_dev` is 32-bit on macOS, and on FreeBSD's old ABI.
pub(crate) fn identity(stat: &Stat) -> (u64, u64) {
    (stat.st_dev as u64, stat.st_ino as u64)
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
    /// How directory levels are opened again.
    dir_flags: OFlags,
    names: Vec<OsString>,
    /// Bytes of `names` joined with `/`.
    path_len: usize,
    /// Handles of the deepest entered directories, shallowest first. Empty only at the root.
    kept: VecDeque<OwnedFd>,
}

impl<'r> Walk<'r> {
    fn new(root: &'r OwnedFd, dir_flags: OFlags) -> Walk<'r> {
        Walk {
            root,
            dir_flags,
            names: Vec::new(),
            path_len: 0,
            kept: VecDeque::new(),
        }
    }

    /// The workspace-relative path of `name` in the directory the walk is in.
    fn path_to(&self, name: &OsStr) -> PathBuf {
        let mut path: PathBuf = self.names.iter().collect();
        path.push(name);
        path
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
        let flags = self.dir_flags | OFlags::DIRECTORY | OFlags::NOFOLLOW;
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
}

/// Pushes the components of `path` onto the stack of names still to resolve, so that
/// the first component is popped first. `.` and empty components are dropped; when
/// `names_dir`, a last `.` stays, so that what precedes it must be a directory.
fn push_components(pending: &mut Vec<OsString>, path: &Path, names_dir: bool) {
    let start = pending.len();
    pending.extend(steps(path).map(|step| match step {
        PathStep::Name(name) => name.to_owned(),
        PathStep::Up => OsString::from(".."),
    }));
    if names_dir && pending.len() > start {
        pending.push(OsString::from("."));
    }
    pending[start..].reverse();
}

/// Whether `path` names the directory whose `(st_dev, st_ino)` is `identity`.
fn names_directory(path: &Path, identity_of_root: (u64, u64)) -> bool {
    rfs::stat(path).is_ok_and(|stat| identity(&stat) == identity_of_root)
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
    let names = lexical_names(path, AboveStart::Stay).unwrap_or_default();
    let mut normalized = PathBuf::from("/");
    normalized.extend(names);
    normalized
}

/// A path's components that mean something to a walk: a name, or `..`. (`.`, the root and
/// repeated separators mean nothing.)
enum PathStep<'p> {
    Name(&'p OsStr),
    Up,
}

fn steps(path: &Path) -> impl Iterator<Item = PathStep<'_>> {
    path.components().filter_map(|component| match component {
        Component::Normal(name) => Some(PathStep::Name(name)),
        Component::ParentDir => Some(PathStep::Up),
        Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
    })
}

/// What a `..` with no name before it does in [`lexical_names`].
#[derive(Clone, Copy)]
enum AboveStart {
    /// Makes the whole path refused: it climbs above where it starts.
    Refuse,
    /// Is dropped, as `/..` is `/`.
    Stay,
}

/// The names of `path` once each `..` has taken away the name before it, lexically;
/// `None` when a `..` climbs above the start and `above` says to refuse that.
fn lexical_names(path: &Path, above: AboveStart) -> Option<Vec<&OsStr>> {
    let mut names = Vec::new();
    for step in steps(path) {
        match (step, above) {
            (PathStep::Name(name), _) => names.push(name),
            (PathStep::Up, AboveStart::Refuse) => {
                names.pop()?;
            }
            (PathStep::Up, AboveStart::Stay) => {
                names.pop();
            }
        }
    }
    Some(names)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, symlink};

    /// All the text of `file`, read positionally (its offset is shared with its other
    /// readers).
    pub(super) fn read_all(file: &OwnedFd) -> String {
        let len = rustix::fs::fstat(file).unwrap().st_size as u64;
        let bytes = crate::file_guard::read_range(file, 0, len, len + 1).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    pub(super) struct Fixture {
        _tmp: tempfile::TempDir,
        pub(super) base: PathBuf,
        pub(super) root: Root,
    }

    /// `base/ws` is the workspace; `base/outside/secret.txt` and `base/ws-evil/x.txt` are not.
    pub(super) fn fixture() -> Fixture {
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

    /// The three code paths of [`Root::open_file`].
    #[derive(Clone, Copy, Debug)]
    enum Via {
        /// The OS family's own, fast path first.
        Fast,
        /// The OS family's walker alone.
        Walk,
        /// The portable code path (FreeBSD's).
        Portable,
        /// macOS's code path.
        MacOs,
    }

    fn read_via(fx: &Fixture, requested: &str, via: Via) -> Result<String, OpenError> {
        let relative = fx.root.relative_path(requested)?;
        let opened = match via {
            Via::Fast => fx.root.open_file(&relative)?,
            Via::Walk => fx.root.open_by_walking(Path::new(&relative))?,
            Via::Portable => fx.root.open_portably(&relative)?,
            Via::MacOs => fx.root.open_like_macos(&relative)?,
        };
        Ok(read_all(&opened.file))
    }

    /// Every decision must be the same on the fast path, the walker, the portable path and
    /// macOS's.
    fn read(fx: &Fixture, requested: &str) -> Result<String, OpenError> {
        let fast = read_via(fx, requested, Via::Fast);
        for via in [Via::Walk, Via::Portable, Via::MacOs] {
            let other = read_via(fx, requested, via);
            assert_eq!(
                fast, other,
                "fast path and {via:?} disagree on {requested:?}"
            );
        }
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
        assert_eq!(rel("a.txt/"), Ok("a.txt/".to_owned()));
        assert_eq!(rel("a.txt/."), Ok("a.txt/".to_owned()));
        assert_eq!(rel("src/deep/.."), Ok("src/".to_owned()));
        assert_eq!(rel("./"), Ok(String::new()));
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
    fn a_file_named_with_a_trailing_slash_is_not_a_directory() {
        let fx = fixture();
        for path in [
            "a.txt/",
            "a.txt/.",
            "a.txt//",
            "a.txt/./",
            "src/deep/b.txt/",
        ] {
            assert_eq!(read(&fx, path), Err(OpenError::Os(Errno::NOTDIR)), "{path}");
        }
        for link in ["rel-in/", "abs-in/", "abs-in/."] {
            assert_eq!(read(&fx, link), Err(OpenError::Os(Errno::NOTDIR)), "{link}");
        }
        assert_eq!(read(&fx, "src/"), Err(OpenError::NotFile("a directory")));
        assert_eq!(read(&fx, "dir-in/"), Err(OpenError::NotFile("a directory")));
    }

    #[test]
    fn a_link_text_with_a_trailing_slash_must_lead_to_a_directory() {
        let fx = fixture();
        let ws = fx.base.join("ws");
        let abs = |rel: &str| format!("{}/{rel}", ws.display());
        let links = [
            ("rel-slash", "a.txt/".to_owned()),
            ("rel-slash-dot", "a.txt/.".to_owned()),
            ("abs-slash", abs("a.txt/")),
            ("abs-slash-dot", abs("src/deep/b.txt/.")),
        ];
        for (name, target) in &links {
            symlink(target, ws.join(name)).unwrap();
            assert_eq!(read(&fx, name), Err(OpenError::Os(Errno::NOTDIR)), "{name}");
        }
        symlink(abs("src/deep/"), ws.join("abs-dir-slash")).unwrap();
        symlink("src/deep/.", ws.join("rel-dir-slash")).unwrap();
        for name in ["abs-dir-slash", "rel-dir-slash"] {
            let file = format!("{name}/b.txt");
            assert_eq!(read(&fx, &file).unwrap(), "deep\n", "{file}");
            assert_eq!(read(&fx, name), Err(OpenError::NotFile("a directory")));
        }
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
        let mut walk = Walk::new(&fx.root.dir, portable::DIR_FLAGS);
        let mut most_held = 0;
        for _ in 0..300 {
            let dir = rfs::openat(walk.here(), "d", portable::DIR_FLAGS, Mode::empty()).unwrap();
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
