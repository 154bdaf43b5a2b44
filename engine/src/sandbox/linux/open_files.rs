//! Readable descriptors of the regular files a root read lately, kept so that reading the
//! same file again, unchanged, takes a duplicate instead of a reopen through procfs (the
//! dearest system call of a read: `perf` of `agent-read-file mcp` put it at twice the
//! `openat2` that resolves the path).
//!
//! A kept descriptor is only ever handed out for the file that a read's own `O_PATH`
//! resolution reached beneath the root, and only while that file is the version it was
//! opened on: the same device and inode (which the descriptor keeps from being reused), size,
//! modification and change times, its last change over a timestamp tick old. A write, a
//! `chmod` or a rename since moves its change time, and the file is reopened as before; what
//! is read is always the file its path names at the read, as a fresh open would read it.
//!
//! At most [`CAPACITY`] files are kept, of any size (a page of a large file is read through
//! its kept descriptor as a small file is), and all are closed with the root. A file that
//! another file replaced under the path it was read by (a log rotated by a rename over it,
//! an editor's save) is closed by the read that opens its successor, so that rotating a log
//! never piles up descriptors of deleted files. A janitor thread closes a file unused for
//! [`IDLE`] without waiting for another read (started with the first file kept, ending when
//! none is), so that a deleted file's space is not held for long; where it cannot be
//! started, nothing is kept.
//! A read is handed the kept descriptor itself (shared, no duplicate made: that would cost a
//! `fcntl` and a `close` a read), which shares its file offset with every other reader:
//! every read of a file opened beneath a root is positional (`pread`).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use rustix::fs::Stat;

use crate::file_status;

/// Files kept at most; the least recently used is closed first.
const CAPACITY: usize = 16;

/// How long a file unused stays kept.
const IDLE: Duration = Duration::from_secs(10);

/// The kept descriptors of a root.
#[derive(Debug)]
pub(in crate::sandbox) struct OpenFiles(Arc<Kept>);

/// What a root keeps, shared with the janitor.
#[derive(Debug)]
struct Kept {
    /// Most recently used last.
    files: Mutex<Vec<KeptFile>>,
    idle: Duration,
}

#[derive(Debug)]
struct KeptFile {
    version: [i128; 7],
    /// The workspace-relative path it was read by.
    path: PathBuf,
    file: Arc<OwnedFd>,
    used: Instant,
}

impl Default for OpenFiles {
    fn default() -> OpenFiles {
        OpenFiles::closing_after(IDLE)
    }
}

impl OpenFiles {
    fn closing_after(idle: Duration) -> OpenFiles {
        let files = Mutex::new(Vec::new());
        OpenFiles(Arc::new(Kept { files, idle }))
    }

    /// A readable descriptor of the regular file whose status, from the read's own
    /// resolution, is `stat`, when one of this very version is kept.
    pub(in crate::sandbox) fn reopen(&self, stat: &Stat) -> Option<Arc<OwnedFd>> {
        if !file_status::settled(stat) {
            return None;
        }
        let version = file_status::identity(stat);
        let mut files = self.0.files();
        let at = files.iter().position(|kept| kept.version == version)?;
        let mut kept = files.remove(at);
        kept.used = Instant::now();
        let file = kept.file.clone();
        files.push(kept);
        Some(file)
    }

    /// Keeps `file`, just opened for reading the regular file whose status is `stat` by the
    /// workspace-relative `path`, when its last change is settled.
    pub(in crate::sandbox) fn remember(&self, path: &Path, stat: &Stat, file: &Arc<OwnedFd>) {
        if !file_status::settled(stat) {
            return;
        }
        let copy = file.clone();
        let version = file_status::identity(stat);
        {
            let mut files = self.0.files();
            // An older version of the same file is of no more use, nor is a file this one
            // replaced under its path (it may be deleted, its space held by the descriptor).
            files.retain(|kept| kept.version[..2] != version[..2] && kept.path != path);
            if files.len() >= CAPACITY {
                files.remove(0);
            }
            let used = Instant::now();
            files.push(KeptFile {
                version,
                path: path.to_owned(),
                file: copy,
                used,
            });
        }
        // Not while holding the files: the janitor takes the watch list, then each root's.
        if !janitor::watch(&self.0) {
            self.0.files().clear();
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.files().len()
    }
}

impl Kept {
    fn files(&self) -> MutexGuard<'_, Vec<KeptFile>> {
        // Nothing that holds the lock can panic half-way: a poisoned list is still whole.
        self.files.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes the files unused for `idle`; when the next of the others will be, if any.
    fn close_idle(&self, now: Instant) -> Option<Instant> {
        let mut files = self.files();
        files.retain(|kept| now.duration_since(kept.used) < self.idle);
        files.iter().map(|kept| kept.used + self.idle).min()
    }
}

/// The thread that closes idle files, for every root of the process.
mod janitor {
    use std::sync::Condvar;

    use super::*;

    /// The roots' kept files it watches, and whether it runs.
    struct Watched {
        roots: Vec<Weak<Kept>>,
        running: bool,
    }

    static WATCHED: Mutex<Watched> = Mutex::new(Watched {
        roots: Vec::new(),
        running: false,
    });

    /// Wakes the thread when a root is added, whose files may be due before it would wake.
    static ADDED: Condvar = Condvar::new();

    fn watched() -> MutexGuard<'static, Watched> {
        WATCHED.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Has `kept` watched, starting the thread if it does not run; `false` when it cannot be
    /// started.
    pub(super) fn watch(kept: &Arc<Kept>) -> bool {
        let mut watched = watched();
        if !watched.running {
            let spawned = std::thread::Builder::new()
                .name("agent-read-file kept files".into())
                .spawn(close_idle_files);
            if spawned.is_err() {
                return false;
            }
            watched.running = true;
        }
        let weak = Arc::downgrade(kept);
        if !watched.roots.iter().any(|root| root.ptr_eq(&weak)) {
            watched.roots.push(weak);
            ADDED.notify_one();
        }
        true
    }

    /// Closes idle files, waiting until the next one may be, and returns once no root keeps
    /// any.
    fn close_idle_files() {
        let mut watched = watched();
        loop {
            let now = Instant::now();
            let mut next: Option<Instant> = None;
            watched.roots.retain(|root| {
                let Some(due) = root.upgrade().and_then(|root| root.close_idle(now)) else {
                    return false;
                };
                next = Some(next.map_or(due, |next| next.min(due)));
                true
            });
            let Some(next) = next else {
                watched.running = false;
                return;
            };
            let wait = next.saturating_duration_since(now);
            watched = match ADDED.wait_timeout(watched, wait) {
                Ok((watched, _)) => watched,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;

    /// `count` files of `text` in a temporary directory, each opened for reading, with its
    /// status, once their last change is settled.
    fn settled_files(count: usize, text: &str) -> (tempfile::TempDir, Vec<(Arc<OwnedFd>, Stat)>) {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<_> = (0..count)
            .map(|i| dir.path().join(format!("f{i}")))
            .collect();
        for path in &paths {
            std::fs::write(path, text).unwrap();
        }
        std::thread::sleep(Duration::from_millis(50)); // past a timestamp tick
        let files = paths
            .iter()
            .map(|path| {
                let file = Arc::new(OwnedFd::from(std::fs::File::open(path).unwrap()));
                let stat = rustix::fs::fstat(&file).unwrap();
                (file, stat)
            })
            .collect();
        (dir, files)
    }

    fn same_file(a: &OwnedFd, b: &OwnedFd) -> bool {
        let (a, b) = (rustix::fs::fstat(a.as_fd()), rustix::fs::fstat(b.as_fd()));
        let (a, b) = (a.unwrap(), b.unwrap());
        (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
    }

    #[test]
    fn a_kept_file_is_handed_out_for_its_own_version_only() {
        let (dir, files) = settled_files(2, "text\n");
        let open = OpenFiles::default();
        let (file, stat) = &files[0];
        assert!(open.reopen(stat).is_none(), "nothing kept yet");
        open.remember(Path::new("f"), stat, file);
        let copy = open.reopen(stat).expect("kept");
        assert!(same_file(&copy, file));
        // Another file's status never gets it.
        assert!(open.reopen(&files[1].1).is_none());
        // Written since (a new size and times): not this version any more.
        let mut writer = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("f0"))
            .unwrap();
        writer.write_all(b"more\n").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let now = rustix::fs::fstat(&**file).unwrap();
        assert!(open.reopen(&now).is_none());
    }

    #[test]
    fn a_file_changed_within_a_tick_is_neither_kept_nor_handed_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fresh");
        std::fs::write(&path, "text\n").unwrap();
        let file = Arc::new(OwnedFd::from(std::fs::File::open(&path).unwrap()));
        let stat = rustix::fs::fstat(&file).unwrap();
        let open = OpenFiles::default();
        open.remember(Path::new("fresh"), &stat, &file);
        assert_eq!(open.len(), 0);
    }

    #[test]
    fn at_most_capacity_files_are_kept_the_least_recently_used_closed_first() {
        let (_dir, files) = settled_files(CAPACITY + 2, "text\n");
        let open = OpenFiles::default();
        for (index, (file, stat)) in files[..CAPACITY].iter().enumerate() {
            open.remember(Path::new(&format!("f{index}")), stat, file);
        }
        assert!(open.reopen(&files[0].1).is_some()); // now the most recently used
        for (index, (file, stat)) in files.iter().enumerate().skip(CAPACITY) {
            open.remember(Path::new(&format!("f{index}")), stat, file);
        }
        assert_eq!(open.len(), CAPACITY);
        assert!(open.reopen(&files[0].1).is_some());
        assert!(open.reopen(&files[1].1).is_none());
        assert!(open.reopen(&files[2].1).is_none());
        assert!(open.reopen(&files[3].1).is_some());
    }

    #[test]
    fn a_file_unused_for_idle_is_closed_without_another_read() {
        let (_dir, files) = settled_files(2, "text\n");
        let open = OpenFiles::closing_after(Duration::from_millis(100));
        let (file, stat) = &files[0];
        open.remember(Path::new("f"), stat, file);
        assert_eq!(open.len(), 1);
        let started = Instant::now();
        while open.len() > 0 && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(open.len(), 0, "still kept after {:?}", started.elapsed());
        // A file used meanwhile stays: the janitor goes on for it.
        let keeping = OpenFiles::closing_after(Duration::from_millis(500));
        keeping.remember(Path::new("f1"), &files[1].1, &files[1].0);
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(50));
            assert!(keeping.reopen(&files[1].1).is_some());
        }
    }

    #[test]
    fn a_file_too_large_to_read_whole_is_kept_too() {
        let over = crate::request::MAX_FILE_BYTES as usize + 1;
        let (_dir, files) = settled_files(1, &"x".repeat(over));
        let open = OpenFiles::default();
        open.remember(Path::new("f0"), &files[0].1, &files[0].0);
        assert!(open.reopen(&files[0].1).is_some());
    }

    /// Issue 35 §5: a log rotated by a rename over it, read after each rotation, keeps one
    /// descriptor, of the file its path names now, not one of each deleted version.
    #[test]
    fn a_file_replaced_under_its_path_is_let_go_by_the_read_of_its_successor() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("churn.log");
        let open = OpenFiles::default();
        let mut kept = Vec::new();
        for round in 0..CAPACITY + 4 {
            let next = dir.path().join("churn.log.tmp");
            std::fs::write(&next, format!("round {round}\n")).unwrap();
            std::fs::rename(&next, &log).unwrap();
            std::thread::sleep(Duration::from_millis(30)); // past a timestamp tick
            let file = Arc::new(OwnedFd::from(std::fs::File::open(&log).unwrap()));
            let stat = rustix::fs::fstat(&file).unwrap();
            open.remember(Path::new("churn.log"), &stat, &file);
            kept.push(stat);
        }
        assert_eq!(open.len(), 1);
        assert!(open.reopen(kept.last().unwrap()).is_some());
        assert!(open.reopen(&kept[0]).is_none());
    }
}
