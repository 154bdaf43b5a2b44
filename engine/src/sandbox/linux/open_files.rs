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
//! At most [`CAPACITY`] files of at most [`MAX_KEPT_BYTES`] each are kept, none unused for
//! more than [`IDLE`] past the next read, and all are closed with the root, so that a deleted
//! file's space is not held for long. A duplicate shares its file offset with the kept
//! descriptor: every read of a file opened beneath a root is positional (`pread`).

use std::os::fd::OwnedFd;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rustix::fs::Stat;

use crate::chunked;

/// Files kept at most; the least recently used is closed first.
const CAPACITY: usize = 16;

/// The largest file kept: one that a read reads whole (`MAX_FILE_BYTES`). A larger one, read
/// by pages, would hold more of a deleted file's space for a few microseconds a page.
const MAX_KEPT_BYTES: u64 = crate::request::MAX_FILE_BYTES;

/// How long a file unused stays kept, at most until the next read after that.
const IDLE: Duration = Duration::from_secs(10);

/// The kept descriptors of a root, most recently used last.
#[derive(Debug, Default)]
pub(in crate::sandbox) struct OpenFiles(Mutex<Vec<Kept>>);

#[derive(Debug)]
struct Kept {
    version: [i128; 7],
    file: OwnedFd,
    used: Instant,
}

impl OpenFiles {
    /// A readable descriptor of the regular file whose status, from the read's own
    /// resolution, is `stat`, when one of this very version is kept.
    pub(in crate::sandbox) fn reopen(&self, stat: &Stat) -> Option<OwnedFd> {
        self.reopen_at(stat, Instant::now())
    }

    fn reopen_at(&self, stat: &Stat, now: Instant) -> Option<OwnedFd> {
        if !chunked::settled(stat) {
            return None;
        }
        let version = chunked::identity(stat);
        let mut kept = self.kept();
        kept.retain(|entry| now.duration_since(entry.used) < IDLE);
        let at = kept.iter().position(|entry| entry.version == version)?;
        let mut entry = kept.remove(at);
        entry.used = now;
        let copy = rustix::io::fcntl_dupfd_cloexec(&entry.file, 0).ok();
        kept.push(entry);
        copy
    }

    /// Keeps a duplicate of `file`, just opened for reading the regular file whose status
    /// is `stat`, when it is small enough and its last change is settled.
    pub(in crate::sandbox) fn remember(&self, stat: &Stat, file: &OwnedFd) {
        let small = u64::try_from(stat.st_size).is_ok_and(|len| len <= MAX_KEPT_BYTES);
        if !small || !chunked::settled(stat) {
            return;
        }
        let Ok(copy) = rustix::io::fcntl_dupfd_cloexec(file, 0) else {
            return;
        };
        let version = chunked::identity(stat);
        let mut kept = self.kept();
        // An older version of the same file is of no more use.
        kept.retain(|entry| entry.version[..2] != version[..2]);
        if kept.len() >= CAPACITY {
            kept.remove(0);
        }
        kept.push(Kept {
            version,
            file: copy,
            used: Instant::now(),
        });
    }

    fn kept(&self) -> MutexGuard<'_, Vec<Kept>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.kept().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;

    /// `count` files of `text` in a temporary directory, each opened for reading, with its
    /// status, once their last change is settled.
    fn settled_files(count: usize, text: &str) -> (tempfile::TempDir, Vec<(OwnedFd, Stat)>) {
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
                let file = OwnedFd::from(std::fs::File::open(path).unwrap());
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
        open.remember(stat, file);
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
        let now = rustix::fs::fstat(file).unwrap();
        assert!(open.reopen(&now).is_none());
    }

    #[test]
    fn a_file_changed_within_a_tick_is_neither_kept_nor_handed_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fresh");
        std::fs::write(&path, "text\n").unwrap();
        let file = OwnedFd::from(std::fs::File::open(&path).unwrap());
        let stat = rustix::fs::fstat(&file).unwrap();
        let open = OpenFiles::default();
        open.remember(&stat, &file);
        assert_eq!(open.len(), 0);
    }

    #[test]
    fn at_most_capacity_files_are_kept_the_least_recently_used_closed_first() {
        let (_dir, files) = settled_files(CAPACITY + 2, "text\n");
        let open = OpenFiles::default();
        for (file, stat) in &files[..CAPACITY] {
            open.remember(stat, file);
        }
        assert!(open.reopen(&files[0].1).is_some()); // now the most recently used
        for (file, stat) in &files[CAPACITY..] {
            open.remember(stat, file);
        }
        assert_eq!(open.len(), CAPACITY);
        assert!(open.reopen(&files[0].1).is_some());
        assert!(open.reopen(&files[1].1).is_none());
        assert!(open.reopen(&files[2].1).is_none());
        assert!(open.reopen(&files[3].1).is_some());
    }

    #[test]
    fn a_file_unused_for_idle_is_closed_at_the_next_read() {
        let (_dir, files) = settled_files(2, "text\n");
        let open = OpenFiles::default();
        for (file, stat) in &files {
            open.remember(stat, file);
        }
        let later = Instant::now() + IDLE;
        assert!(open.reopen_at(&files[0].1, later).is_none());
        assert_eq!(open.len(), 0);
    }

    #[test]
    fn a_large_file_is_not_kept() {
        let (_dir, files) = settled_files(1, &"x".repeat(MAX_KEPT_BYTES as usize + 1));
        let open = OpenFiles::default();
        open.remember(&files[0].1, &files[0].0);
        assert_eq!(open.len(), 0);
    }
}
