//! The workspace's own ignore files (`.aiignore`, `.cursorignore`, ...): deny rules in
//! gitignore syntax that the people working in a workspace keep for the agents they use.
//!
//! They nest like git's: a file rules the paths below its own directory, a deeper file
//! overrides the files above it (its `!rule` re-admits what they deny), and a directory
//! that is denied denies everything in it (nothing below it can re-admit). All the names a
//! toolkit obeys count alike; in one directory, a later name's rules come after an
//! earlier's.
//!
//! Every read looks the files up again on the directories from the root down to the file's
//! own, beneath the root handle (the sandbox's confined open: a symlink is followed only
//! while it stays inside the workspace), so a change is honoured by the next read. Only
//! statuses are taken then: each directory's, and each ignore file's. A directory whose
//! status is what it was is looked in only for the names found there before (adding,
//! removing or renaming an entry changes a directory's times); a file is read and compiled
//! again only when its device, inode, size, modification or change time differ. Both are
//! trusted only once what they describe is [`SETTLED_AFTER`] old: a change within the same
//! tick of a file system's clock leaves the times as they were.
//!
//! A file that exists but cannot be used (unreadable, a symlink out of the workspace or to a
//! file the toolkit's own rules deny, not a regular file, over [`MAX_IGNORE_FILE_BYTES`], a
//! rule that is not UTF-8 or not valid gitignore syntax) fails closed: everything below its
//! directory is refused, naming the file (and line). No refusal quotes a rule's text: an
//! ignore file is the workspace's content, and may be a link to a secret.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rustix::fs::{FileType, Stat};
use rustix::io::Errno;

use super::Denial;
use crate::attempt::{Access, Stop};
use crate::error::{ErrorCode, ReadFileError};
use crate::file_guard::{self, GuardError, Span};
use crate::sandbox::{OpenError, OpenedFile, Root, Status, identity};

/// The largest ignore file read: a larger one is refused as unusable.
pub const MAX_IGNORE_FILE_BYTES: u64 = 256 * 1024;

/// The most names a toolkit may obey.
pub const MAX_IGNORE_FILE_NAMES: usize = 64;

/// The most directories' compiled rules kept; past that the cache starts again.
const CACHED_DIRECTORIES: usize = 512;

/// A lookup that stopped because going on would wait (only with [`Access::FromMemory`]).
#[derive(Debug)]
pub(super) struct WouldWait;

/// The ignore files a toolkit obeys, and the rules compiled from them by directory.
#[derive(Debug)]
pub(super) struct IgnoreFiles {
    names: Vec<String>,
    compiled: Mutex<HashMap<DirectoryKey, Arc<DirectoryRules>>>,
    /// By directory: its status when it was looked in, and the indexes of the names found.
    listings: Mutex<HashMap<PathBuf, (DirectoryStamp, Vec<usize>)>>,
    /// [`SETTLED_AFTER`], but in tests.
    settled_after: Duration,
}

/// The names to look for in a directory, and its status to remember them by once looked
/// for (`None`: not to be remembered).
struct Listed {
    names: Vec<usize>,
    remember: Option<DirectoryStamp>,
}

/// A directory's identity and the times an entry was last added, removed or renamed in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DirectoryStamp {
    device: u64,
    inode: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

/// How long after its last change a directory's listing is trusted: file systems stamp
/// times by a coarse clock (a kernel tick; FAT's two seconds), so an entry added within
/// the same tick as the last change would leave the times as they were.
const SETTLED_AFTER: Duration = Duration::from_secs(3);

impl DirectoryStamp {
    fn of(stat: &Stat) -> DirectoryStamp {
        let (device, inode) = identity(stat);
        let (modified, changed) = times(stat);
        DirectoryStamp {
            device,
            inode,
            modified,
            changed,
        }
    }

    fn settled(&self, after: Duration) -> bool {
        settled(self.modified, self.changed, after)
    }
}

/// Whether the last change at `modified` or `changed` (seconds and nanoseconds since the
/// epoch) is more than `after` ago, so that a later change will show in the times.
fn settled(modified: (i64, i64), changed: (i64, i64), after: Duration) -> bool {
    let (seconds, nanoseconds) = modified.max(changed);
    let (Ok(seconds), Ok(nanoseconds)) = (u64::try_from(seconds), u32::try_from(nanoseconds))
    else {
        return false;
    };
    let latest = Duration::new(seconds, nanoseconds);
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .is_ok_and(|now| latest.saturating_add(after) < now)
}

/// One directory's ignore files as they are now: which exist, and which version of each.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct DirectoryKey {
    directory: PathBuf,
    files: Vec<FileStamp>,
}

/// An ignore file's identity and version: its index among the names, device, inode, size,
/// and modification and change times in nanoseconds.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct FileStamp {
    name: usize,
    device: u64,
    inode: u64,
    size: i64,
    modified: (i64, i64),
    changed: (i64, i64),
}

/// What one directory's ignore files say.
#[derive(Debug)]
enum DirectoryRules {
    /// Their rules, each tagged with its file and line ([`ignore::gitignore::Glob::from`]).
    Rules(Gitignore),
    /// One of them cannot be used: everything below the directory is refused.
    Unusable(Denial),
}

/// An ignore file looked up.
enum Found {
    Absent,
    Present(Box<OpenedFile>),
    /// Exists but cannot be read; why, in words.
    Unusable(String),
}

impl IgnoreFiles {
    /// Obeys the files called `names` (plain file names); `INVALID_ARGUMENT` for a name
    /// that is empty, `.` or `..`, holds a `/` or NUL, or for more than
    /// [`MAX_IGNORE_FILE_NAMES`] names.
    pub(super) fn new(names: &[String]) -> Result<IgnoreFiles, ReadFileError> {
        if names.len() > MAX_IGNORE_FILE_NAMES {
            return Err(invalid(format!(
                "ignoreFiles names at most {MAX_IGNORE_FILE_NAMES} files (got {})",
                names.len()
            )));
        }
        if let Some(bad) = names.iter().find(|name| !is_plain_file_name(name)) {
            return Err(invalid(format!(
                "ignoreFiles must name files, not paths: {bad:?} is empty, . or .., or holds / or NUL"
            )));
        }
        Ok(IgnoreFiles {
            names: names.to_vec(),
            compiled: Mutex::default(),
            listings: Mutex::default(),
            settled_after: SETTLED_AFTER,
        })
    }

    /// Whether no ignore file is obeyed.
    pub(super) fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The denial of the ignore files for the file opened by `path` (workspace-relative),
    /// judged like git: each directory on the way down, then the file. An ignore file is
    /// read only when `admits` the path it was opened by (the toolkit's own rules).
    pub(super) fn denial(
        &self,
        root: &Root,
        path: &Path,
        access: Access,
        admits: &dyn Fn(&Path) -> bool,
    ) -> Result<Option<Denial>, WouldWait> {
        let names: Vec<&Path> = path.iter().map(Path::new).collect();
        let mut chain: Vec<(PathBuf, Arc<DirectoryRules>)> = Vec::new();
        let mut directory = PathBuf::new();
        for (depth, name) in names.iter().enumerate() {
            if let Some(rules) = self.rules_of(root, &directory, access, admits)? {
                if let DirectoryRules::Unusable(denial) = &*rules {
                    return Ok(Some(denial.clone()));
                }
                chain.push((directory.clone(), rules));
            }
            let child = directory.join(name);
            let is_dir = depth + 1 < names.len();
            if let Some(denial) = decided(&chain, &child, is_dir) {
                return Ok(Some(denial));
            }
            directory = child;
        }
        Ok(None)
    }

    /// The rules of `directory`'s ignore files, `None` when it has none. Only their status
    /// is taken; they are opened and read only when no rules were compiled from these very
    /// versions yet.
    fn rules_of(
        &self,
        root: &Root,
        directory: &Path,
        access: Access,
        admits: &dyn Fn(&Path) -> bool,
    ) -> Result<Option<Arc<DirectoryRules>>, WouldWait> {
        let from_memory = access == Access::FromMemory;
        let listed = self.listed_names(root, directory, from_memory);
        let mut stamps = Vec::new();
        for index in listed.names {
            let relative = directory.join(&self.names[index]);
            match root.status_beneath(&relative, from_memory) {
                Status::Absent => {}
                Status::Found(stat)
                    if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile =>
                {
                    stamps.push(stamp(index, &stat));
                }
                // A symlink, or not told this way: opened to be judged (and then read).
                Status::Found(_) | Status::Unknown => {
                    return self.opened_and_compiled(root, directory, access, admits);
                }
            }
        }
        if let Some(status) = listed.remember {
            self.remember_listing(directory, status, &stamps);
        }
        if stamps.is_empty() {
            return Ok(None);
        }
        let key = DirectoryKey {
            directory: directory.to_owned(),
            files: stamps,
        };
        match self.cached(&key) {
            Some(rules) => Ok(Some(rules)),
            None => self.opened_and_compiled(root, directory, access, admits),
        }
    }

    /// The rules of `directory`'s ignore files, each opened (symlinks followed inside the
    /// workspace), read and compiled unless rules of these very versions are cached.
    fn opened_and_compiled(
        &self,
        root: &Root,
        directory: &Path,
        access: Access,
        admits: &dyn Fn(&Path) -> bool,
    ) -> Result<Option<Arc<DirectoryRules>>, WouldWait> {
        let mut present = Vec::new();
        let mut stamps = Vec::new();
        for (index, name) in self.names.iter().enumerate() {
            let relative = directory.join(name);
            match look_up(root, &relative, access)? {
                Found::Absent => {}
                Found::Unusable(why) => return Ok(Some(unusable(directory, &relative, &why))),
                // Judged on the file opened, as a read is: a link to `.env` is not read as rules.
                Found::Present(file) if !admits(&file.path) => {
                    let why = "leads to a file the toolkit's rules deny";
                    return Ok(Some(unusable(directory, &relative, why)));
                }
                Found::Present(file) => {
                    stamps.push(stamp(index, &file.stat));
                    present.push((relative, *file));
                }
            }
        }
        if present.is_empty() {
            return Ok(None);
        }
        let key = DirectoryKey {
            directory: directory.to_owned(),
            files: stamps,
        };
        if let Some(rules) = self.cached(&key) {
            return Ok(Some(rules));
        }
        let rules = Arc::new(read_and_compile(directory, present, access)?);
        // A file written again within its time stamps' tick, to the same size, would keep
        // its stamp: rules are kept only once their files have settled.
        let after = self.settled_after;
        if key
            .files
            .iter()
            .all(|file| settled(file.modified, file.changed, after))
        {
            self.remember(key, rules.clone());
        }
        Ok(Some(rules))
    }

    /// The names to look for in `directory`: those found there last time when the
    /// directory is unchanged since (no entry added, removed or renamed), else all.
    fn listed_names(&self, root: &Root, directory: &Path, from_memory: bool) -> Listed {
        let all = || (0..self.names.len()).collect();
        let Status::Found(status) = root.directory_status(directory, from_memory) else {
            return Listed {
                names: all(),
                remember: None,
            };
        };
        let status = DirectoryStamp::of(&status);
        let listings = self
            .listings
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        match listings.get(directory) {
            Some((seen, names)) if *seen == status => Listed {
                names: names.clone(),
                remember: None,
            },
            _ => Listed {
                names: all(),
                remember: status.settled(self.settled_after).then_some(status),
            },
        }
    }

    fn remember_listing(&self, directory: &Path, status: DirectoryStamp, stamps: &[FileStamp]) {
        let names = stamps.iter().map(|stamp| stamp.name).collect();
        let mut listings = self
            .listings
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if listings.len() >= CACHED_DIRECTORIES {
            listings.clear();
        }
        listings.insert(directory.to_owned(), (status, names));
    }

    fn cached(&self, key: &DirectoryKey) -> Option<Arc<DirectoryRules>> {
        let compiled = self
            .compiled
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        compiled.get(key).cloned()
    }

    fn remember(&self, key: DirectoryKey, rules: Arc<DirectoryRules>) {
        let mut compiled = self
            .compiled
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if compiled.len() >= CACHED_DIRECTORIES {
            compiled.clear();
        }
        compiled.insert(key, rules);
    }
}

/// What the ignore files of `chain` (the directories above `path` that have any, root
/// first) say about `path`: the deepest file with a matching rule decides.
fn decided(chain: &[(PathBuf, Arc<DirectoryRules>)], path: &Path, is_dir: bool) -> Option<Denial> {
    for (directory, rules) in chain.iter().rev() {
        let DirectoryRules::Rules(rules) = &**rules else {
            continue;
        };
        let Ok(below) = path.strip_prefix(directory) else {
            continue;
        };
        match rules.matched(below, is_dir) {
            Match::None => {}
            Match::Whitelist(_) => return None,
            Match::Ignore(glob) => {
                return Some(Denial::IgnoreFileRule {
                    source: glob
                        .from()
                        .map(|from| from.display().to_string())
                        .unwrap_or_default(),
                });
            }
        }
    }
    None
}

/// The ignore file at `relative`, opened beneath the root (symlinks followed only inside
/// the workspace); a name that does not exist there is [`Found::Absent`].
fn look_up(root: &Root, relative: &Path, access: Access) -> Result<Found, WouldWait> {
    let opened = match (access, relative.to_str()) {
        (Access::MayWait, Some(text)) => root.open_file(text).map_err(Stop::Failed),
        (Access::MayWait, None) => root.open_by_walking(relative).map_err(Stop::Failed),
        (Access::FromMemory, Some(text)) => root.open_file_from_memory(text, MAX_IGNORE_FILE_BYTES),
        (Access::FromMemory, None) => Err(Stop::WouldBlock),
    };
    match opened {
        Ok(file) => Ok(Found::Present(Box::new(file))),
        Err(Stop::WouldBlock) => Err(WouldWait),
        Err(Stop::Failed(OpenError::Os(Errno::NOENT | Errno::NOTDIR))) => Ok(Found::Absent),
        Err(Stop::Failed(error)) => Ok(Found::Unusable(open_failure(error))),
    }
}

fn open_failure(error: OpenError) -> String {
    match error {
        OpenError::Outside => "is a symlink that leads out of the workspace".to_owned(),
        OpenError::Loop => "is a symlink loop".to_owned(),
        OpenError::NotFile(kind) => format!("is {kind}, not a regular file"),
        OpenError::Os(errno) => format!("cannot be opened ({errno})"),
    }
}

/// Reads the ignore files `present` of `directory` and compiles their rules, in order.
fn read_and_compile(
    directory: &Path,
    present: Vec<(PathBuf, OpenedFile)>,
    access: Access,
) -> Result<DirectoryRules, WouldWait> {
    let mut builder = GitignoreBuilder::new(".");
    // Like the toolkit's deny rules: `.ENV` is `.env` on a case-insensitive volume.
    if let Err(error) = builder.case_insensitive(true) {
        return Ok(unusable_rules(directory, directory, &error.to_string()));
    }
    for (relative, file) in present {
        let bytes = match read_bytes(file, access)? {
            Ok(bytes) => bytes,
            Err(why) => return Ok(unusable_rules(directory, &relative, &why)),
        };
        if let Err(denial) = add_lines(&mut builder, &relative, &bytes) {
            return Ok(DirectoryRules::Unusable(denial));
        }
    }
    Ok(match builder.build() {
        Ok(rules) => DirectoryRules::Rules(rules),
        Err(error) => unusable_rules(directory, directory, &error.to_string()),
    })
}

/// Adds each line of `bytes` (the file `relative`), tagged `<file>:<line>`; the first line
/// that is not a valid rule is the denial of everything below the file's directory. A rule
/// that is not UTF-8 is not a valid one: it cannot be matched as written, and dropping it
/// would read the files it names. A comment is only skipped, whatever its bytes.
fn add_lines(builder: &mut GitignoreBuilder, relative: &Path, bytes: &[u8]) -> Result<(), Denial> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    for (index, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let source = format!("{}:{}", relative.display(), index + 1);
        let why = match std::str::from_utf8(line) {
            _ if line.starts_with(b"#") => continue,
            Ok(rule) => match builder.add_line(Some(PathBuf::from(&source)), rule) {
                Ok(_) => continue,
                // The parser's error quotes the rule: only the line is named.
                Err(_) => "is not a valid gitignore rule",
            },
            Err(_) => "is not a rule in UTF-8",
        };
        return Err(Denial::Unusable {
            source,
            why: why.to_owned(),
            below: parent_of(relative),
        });
    }
    Ok(())
}

/// The bytes of an ignore file, or why it cannot be read.
fn read_bytes(file: OpenedFile, access: Access) -> Result<Result<Vec<u8>, String>, WouldWait> {
    let span = Span::Whole {
        max: MAX_IGNORE_FILE_BYTES,
    };
    let bytes = match file_guard::read_span(&file.file, &file.stat, span, access) {
        Ok(bytes) => Ok(bytes),
        Err(Stop::WouldBlock) => return Err(WouldWait),
        Err(Stop::Failed(error)) => Err(error),
    };
    Ok(match bytes {
        Ok(bytes) => Ok(bytes.bytes),
        Err(GuardError::TooLarge { len, max }) => Err(format!(
            "is {len} bytes, over the {max} bytes an ignore file may have"
        )),
        Err(GuardError::Io(error)) => Err(format!("cannot be read ({error})")),
    })
}

fn unusable(directory: &Path, file: &Path, why: &str) -> Arc<DirectoryRules> {
    Arc::new(unusable_rules(directory, file, why))
}

fn unusable_rules(directory: &Path, file: &Path, why: &str) -> DirectoryRules {
    DirectoryRules::Unusable(Denial::Unusable {
        source: file.display().to_string(),
        why: why.to_owned(),
        below: directory.display().to_string(),
    })
}

fn parent_of(file: &Path) -> String {
    file.parent()
        .map(|parent| parent.display().to_string())
        .unwrap_or_default()
}

fn stamp(name: usize, stat: &Stat) -> FileStamp {
    let (device, inode) = identity(stat);
    let (modified, changed) = times(stat);
    FileStamp {
        name,
        device,
        inode,
        size: stat.st_size,
        modified,
        changed,
    }
}

/// The modification and change times of `stat`, in seconds and nanoseconds.
#[allow(clippy::unnecessary_cast)] // The nanoseconds are `u64` on Linux, `i64` on macOS and FreeBSD.
fn times(stat: &Stat) -> ((i64, i64), (i64, i64)) {
    (
        (stat.st_mtime, stat.st_mtime_nsec as i64),
        (stat.st_ctime, stat.st_ctime_nsec as i64),
    )
}

fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

fn invalid(reason: String) -> ReadFileError {
    ReadFileError::new(ErrorCode::InvalidArgument, "ignoreFiles", reason)
}

#[cfg(test)]
mod tests {
    use crate::attempt::waited;
    use std::fs;
    use std::os::unix::fs::symlink;

    use super::super::{Policy, PolicyRules};
    use crate::read_file::{ReadOptions, read_file};
    use crate::request::ReadRequest;
    use crate::sandbox::Root;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    /// A workspace `ws` beneath a temporary directory that also holds `outside.txt`.
    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        fs::create_dir(&ws).unwrap();
        fs::write(tmp.path().join("outside.txt"), "*\n").unwrap();
        for (path, text) in files {
            let path = ws.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        (tmp, ws)
    }

    /// The content read, or the error's reason, of `path` under `policy`.
    fn read(ws: &std::path::Path, policy: &Policy, path: &str) -> Result<String, String> {
        let root = Root::open(ws.to_str().unwrap()).unwrap();
        let options = ReadOptions {
            policy: Some(policy),
            ..ReadOptions::default()
        };
        let request = ReadRequest::for_path(path.to_owned()).unwrap();
        waited(read_file(&root, &request, options))
            .map(|(out, _)| out.content.as_str().to_owned())
            .map_err(|err| format!("{}: {}", err.code, err.reason))
    }

    fn obeying(files: &[&str], allow: &[&str], default_deny: &[&str]) -> Policy {
        let (files, allow, default_deny) = (names(files), names(allow), names(default_deny));
        Policy::new(PolicyRules {
            default_deny: &default_deny,
            allow: &allow,
            ignore_files: &files,
            ..PolicyRules::default()
        })
        .unwrap()
    }

    #[test]
    fn nested_files_rule_below_their_directory_and_name_file_and_line() {
        let (_tmp, ws) = workspace(&[
            (".aiignore", "# keys\n\nsecrets/\n*.md\n"),
            ("sub/.cursorignore", "*.txt\n!keep.txt\n!notes.md\n"),
            ("sub/keep.txt", "kept\n"),
            ("sub/no.txt", "no\n"),
            ("sub/notes.md", "notes\n"),
            ("no.txt", "top\n"),
            ("readme.md", "readme\n"),
            ("a/secrets/key.txt", "key\n"),
        ]);
        let policy = obeying(&[".aiignore", ".cursorignore"], &[], &[]);
        assert_eq!(read(&ws, &policy, "sub/keep.txt"), Ok("kept\n".into()));
        assert_eq!(read(&ws, &policy, "no.txt"), Ok("top\n".into()));
        assert_eq!(
            read(&ws, &policy, "sub/no.txt"),
            Err(r#"POLICY_DENIED: sub/no.txt is denied by sub/.cursorignore:1"#.into())
        );
        assert_eq!(
            read(&ws, &policy, "a/secrets/key.txt"),
            Err(r#"POLICY_DENIED: a/secrets/key.txt is denied by .aiignore:3"#.into())
        );
        assert_eq!(
            read(&ws, &policy, "readme.md"),
            Err(r#"POLICY_DENIED: readme.md is denied by .aiignore:4"#.into())
        );
        // A deeper file re-admits what a file above it denies...
        assert_eq!(read(&ws, &policy, "sub/notes.md"), Ok("notes\n".into()));
    }

    #[test]
    fn nothing_below_a_denied_directory_is_readmitted() {
        let (_tmp, ws) = workspace(&[
            (".aiignore", "sub/\n"),
            ("sub/.aiignore", "!x.txt\n"),
            ("sub/x.txt", "x\n"),
        ]);
        let policy = obeying(&[".aiignore"], &[], &[]);
        assert_eq!(
            read(&ws, &policy, "sub/x.txt"),
            Err(r#"POLICY_DENIED: sub/x.txt is denied by .aiignore:1"#.into())
        );
    }

    #[test]
    fn only_allow_readmits_a_default_and_it_readmits_ignore_file_rules_too() {
        let (_tmp, ws) = workspace(&[
            (".aiignore", "!.env\nlocal.txt\n"),
            (".env", "SECRET=1\n"),
            ("local.txt", "local\n"),
        ]);
        let policy = obeying(&[".aiignore"], &[], &[".env"]);
        assert_eq!(
            read(&ws, &policy, ".env"),
            Err(r#"POLICY_DENIED: .env is denied by ".env" (DEFAULT_DENY)"#.into())
        );
        let allowing = obeying(&[".aiignore"], &[".env", "local.txt"], &[".env"]);
        assert_eq!(read(&ws, &allowing, ".env"), Ok("SECRET=1\n".into()));
        assert_eq!(read(&ws, &allowing, "local.txt"), Ok("local\n".into()));
    }

    #[test]
    fn a_change_is_honoured_by_the_next_read() {
        let (_tmp, ws) = workspace(&[(".aiignore", "a.txt\n"), ("a.txt", "a\n"), ("b.txt", "b\n")]);
        let policy = obeying(&[".aiignore", ".cursorignore"], &[], &[]);
        assert!(read(&ws, &policy, "a.txt").is_err());
        assert_eq!(read(&ws, &policy, "b.txt"), Ok("b\n".into()));
        // Same size, same inode, at once: within the same tick of the file system's clock.
        fs::write(ws.join(".aiignore"), "b.txt\n").unwrap();
        assert_eq!(read(&ws, &policy, "a.txt"), Ok("a\n".into()));
        assert!(read(&ws, &policy, "b.txt").is_err());
        // A new file of another name, and a file removed.
        fs::write(ws.join(".cursorignore"), "a.txt\n").unwrap();
        assert!(read(&ws, &policy, "a.txt").is_err());
        fs::remove_file(ws.join(".cursorignore")).unwrap();
        fs::remove_file(ws.join(".aiignore")).unwrap();
        assert_eq!(read(&ws, &policy, "a.txt"), Ok("a\n".into()));
        assert_eq!(read(&ws, &policy, "b.txt"), Ok("b\n".into()));
    }

    #[test]
    fn an_unusable_file_denies_everything_below_its_directory() {
        let (tmp, ws) = workspace(&[
            ("bad/.aiignore", "ok.txt\n[z-a]\n"),
            ("bad/x.txt", "x\n"),
            ("out/x.txt", "x\n"),
            ("dir/.aiignore/inner", ""),
            ("dir/x.txt", "x\n"),
            ("fine.txt", "fine\n"),
        ]);
        symlink(tmp.path().join("outside.txt"), ws.join("out/.aiignore")).unwrap();
        let policy = obeying(&[".aiignore"], &[], &[]);
        assert_eq!(
            read(&ws, &policy, "bad/x.txt"),
            Err("POLICY_DENIED: bad/x.txt is denied because bad/.aiignore:2 is not a valid gitignore rule; nothing in bad/ is read until it is fixed".into())
        );
        assert_eq!(
            read(&ws, &policy, "out/x.txt"),
            Err("POLICY_DENIED: out/x.txt is denied because out/.aiignore is a symlink that leads out of the workspace; nothing in out/ is read until it is fixed".into())
        );
        assert_eq!(
            read(&ws, &policy, "dir/x.txt"),
            Err("POLICY_DENIED: dir/x.txt is denied because dir/.aiignore is a directory, not a regular file; nothing in dir/ is read until it is fixed".into())
        );
        assert_eq!(read(&ws, &policy, "fine.txt"), Ok("fine\n".into()));
    }

    /// Issue 35 §7: a hostile repository links its ignore file to the workspace's `.env`,
    /// whose lines are not valid rules; the secret must not reach the refusal.
    #[test]
    fn a_link_to_a_file_the_toolkit_denies_is_not_read_as_rules() {
        let (_tmp, ws) = workspace(&[
            (".env", "TOKEN=[z-a]s3cr3t\n"),
            ("sub/x.txt", "x\n"),
            ("other/.aiignore", "nothing.txt\n"),
            ("other/y.txt", "y\n"),
        ]);
        symlink("../.env", ws.join("sub/.aiignore")).unwrap();
        let policy = obeying(&[".aiignore"], &[], &[".env"]);
        assert_eq!(
            read(&ws, &policy, "sub/x.txt"),
            Err("POLICY_DENIED: sub/x.txt is denied because sub/.aiignore leads to a file the toolkit's rules deny; nothing in sub/ is read until it is fixed".into())
        );
        assert_eq!(read(&ws, &policy, "other/y.txt"), Ok("y\n".into()));
        // Re-admitted by `allow`, the same file is read as rules (and its bad line named).
        let allowing = obeying(&[".aiignore"], &[".env"], &[".env"]);
        assert_eq!(
            read(&ws, &allowing, "sub/x.txt"),
            Err("POLICY_DENIED: sub/x.txt is denied because sub/.aiignore:1 is not a valid gitignore rule; nothing in sub/ is read until it is fixed".into())
        );
    }

    /// Issue 35 §7: a rule that is not UTF-8 cannot be matched as written; it is not
    /// dropped (which would read what it names) but fails closed. A comment may hold any bytes.
    #[test]
    fn a_rule_not_in_utf8_fails_closed_and_a_comment_may_hold_any_bytes() {
        let (_tmp, ws) = workspace(&[
            ("sub/x.txt", "x\n"),
            ("ok/z.txt", "z\n"),
            ("ok/hidden.txt", "h\n"),
        ]);
        fs::write(ws.join("sub/.aiignore"), b"# caf\xe9\nsecret\xff.txt\n").unwrap();
        fs::write(ws.join("ok/.aiignore"), b"# caf\xe9 \xff\r\nhidden.txt\r\n").unwrap();
        let policy = obeying(&[".aiignore"], &[], &[]);
        assert_eq!(
            read(&ws, &policy, "sub/x.txt"),
            Err("POLICY_DENIED: sub/x.txt is denied because sub/.aiignore:2 is not a rule in UTF-8; nothing in sub/ is read until it is fixed".into())
        );
        assert_eq!(read(&ws, &policy, "ok/z.txt"), Ok("z\n".into()));
        assert_eq!(
            read(&ws, &policy, "ok/hidden.txt"),
            Err("POLICY_DENIED: ok/hidden.txt is denied by ok/.aiignore:2".into())
        );
    }

    #[test]
    fn a_symlink_inside_the_workspace_is_followed_and_files_are_judged_where_opened() {
        let (_tmp, ws) = workspace(&[
            ("shared-rules", "*.log\n"),
            ("sub/x.log", "log\n"),
            ("sub/.aiignore", "hidden.txt\n"),
            ("sub/hidden.txt", "hidden\n"),
        ]);
        symlink("shared-rules", ws.join(".cursorignore")).unwrap();
        symlink("sub", ws.join("linked")).unwrap();
        let policy = obeying(&[".aiignore", ".cursorignore"], &[], &[]);
        assert_eq!(
            read(&ws, &policy, "sub/x.log"),
            Err(r#"POLICY_DENIED: sub/x.log is denied by .cursorignore:1"#.into())
        );
        assert_eq!(
            read(&ws, &policy, "linked/hidden.txt"),
            Err(r#"POLICY_DENIED: sub/hidden.txt is denied by sub/.aiignore:1"#.into())
        );
    }

    /// With every file and directory settled at once, the statuses decide alone: the
    /// directories' listings and the compiled rules come from the caches.
    #[test]
    fn a_change_is_honoured_when_the_caches_are_trusted() {
        use super::{Access, IgnoreFiles};
        use std::path::Path;
        use std::time::Duration;
        let (_tmp, ws) = workspace(&[(".aiignore", "a.txt\n"), ("sub/a.txt", "a\n")]);
        let root = Root::open(ws.to_str().unwrap()).unwrap();
        let mut files = IgnoreFiles::new(&names(&[".aiignore", ".cursorignore"])).unwrap();
        files.settled_after = Duration::ZERO;
        let denied = |path: &str| {
            std::thread::sleep(Duration::from_millis(30)); // past the clock's tick
            let denial = files
                .denial(&root, Path::new(path), Access::MayWait, &|_| true)
                .unwrap();
            denial.map(|denial| denial.reason(Path::new(path)))
        };
        let by = |source: &str| Some(format!("sub/a.txt is denied by {source}"));
        assert_eq!(denied("sub/a.txt"), by(".aiignore:1"));
        assert_eq!(denied("sub/a.txt"), by(".aiignore:1"));
        fs::write(ws.join(".aiignore"), "b.txt\n# a.txt\n").unwrap();
        assert_eq!(denied("sub/a.txt"), None);
        fs::write(ws.join("sub/.cursorignore"), "\n*.txt\n").unwrap();
        assert_eq!(denied("sub/a.txt"), by("sub/.cursorignore:2"));
        fs::rename(ws.join("sub/.cursorignore"), ws.join(".cursorignore")).unwrap();
        assert_eq!(denied("sub/a.txt"), by(".cursorignore:2"));
        fs::remove_file(ws.join(".cursorignore")).unwrap();
        assert_eq!(denied("sub/a.txt"), None);
        assert_eq!(
            files.listings.lock().unwrap().len(),
            2,
            "root and sub, settled"
        );
    }

    /// Files and directories changed within the last [`SETTLED_AFTER`] are looked at again
    /// by every read: their times could still miss a change in the same tick.
    #[test]
    fn nothing_is_cached_until_it_settles() {
        use super::{Access, IgnoreFiles};
        use std::path::Path;
        let (_tmp, ws) = workspace(&[(".aiignore", "a.txt\n"), ("sub/a.txt", "a\n")]);
        let root = Root::open(ws.to_str().unwrap()).unwrap();
        let files = IgnoreFiles::new(&names(&[".aiignore"])).unwrap();
        let denial = files.denial(&root, Path::new("sub/a.txt"), Access::MayWait, &|_| true);
        assert!(denial.unwrap().is_some());
        assert_eq!(files.compiled.lock().unwrap().len(), 0);
        assert_eq!(files.listings.lock().unwrap().len(), 0);
    }

    #[test]
    fn names_must_be_plain_file_names() {
        for bad in ["", ".", "..", "a/b", "/abs", "nul\0"] {
            let list = names(&[bad]);
            let err = Policy::new(PolicyRules {
                ignore_files: &list,
                ..PolicyRules::default()
            })
            .unwrap_err();
            assert_eq!(
                err.code,
                crate::error::ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
        let many = names(&[".x"; 65]);
        assert!(
            Policy::new(PolicyRules {
                ignore_files: &many,
                ..PolicyRules::default()
            })
            .is_err()
        );
    }
}
