//! File versions and the read ledger: what a read saw, to tell later whether the file
//! has changed since (the edit loop's "read, then edit only what you read").
//!
//! A version is a hash of the bytes on disk, not the mtime: a same-size rewrite within the
//! mtime's granularity, or one that puts the old mtime back, is still seen.
//!
//! A file's author may be hostile: with XXH3's public default secret, two texts that hash
//! alike can be crafted, and a rewrite from one to the other would pass for unchanged. So
//! the hash is XXH3-128 keyed with a secret drawn from the OS's random source once per
//! process, which no file's author knows. (BLAKE3 would also do, and would give hashes
//! comparable across processes, but it cost a quarter to a half of a small toolkit read
//! (the benchmark README has the figures), and its fast assembly cannot be cross-checked
//! without each target's C toolchain. A ledger lives in one process, so its hashes need
//! not outlive it.)

use std::sync::{Mutex, PoisonError};

use rustix::fs::Stat;

use crate::chunked::TextFacts;
use crate::file_guard;
use crate::file_status;
use crate::keyed_hash;
use crate::recent::Recent;
use crate::window::{self, LineEnding};

/// What one version of a file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileVersion {
    /// The normalized workspace-relative path, as `read_file` returns it.
    pub path: String,
    /// XXH3-128 of the bytes on disk, keyed with this process's secret.
    pub hash: u128,
    pub byte_length: u64,
    pub mtime_ms: i64,
    pub line_ending: LineEnding,
    /// Whether the bytes start with a UTF-8 BOM.
    pub bom: bool,
    /// Whether the text (after any BOM) is valid UTF-8: reading it replaces nothing.
    pub valid_utf8: bool,
}

impl FileVersion {
    /// The version of `bytes`, read from `path` with modification time `mtime_ms`.
    pub fn of(path: String, bytes: &[u8], mtime_ms: i64) -> FileVersion {
        let text = window::strip_bom(bytes);
        FileVersion {
            path,
            hash: keyed_hash::of(bytes),
            byte_length: bytes.len() as u64,
            mtime_ms,
            line_ending: LineEnding::of(text),
            bom: text.len() != bytes.len(),
            valid_utf8: std::str::from_utf8(text).is_ok(),
        }
    }

    /// The version of a file too large to read whole (over [`MAX_FILE_BYTES`](crate::request::MAX_FILE_BYTES)), from its
    /// scan: its hash is `content_hash`, the hash of the bytes the scan read (as [`Self::of`]
    /// hashes them), and the other facts are those the scan found. A page read from the
    /// scan's line index has the scan's hash: the index is trusted while the file's status
    /// is unchanged, so bytes changed without moving its times (through a shared memory
    /// mapping) are seen by the next scan, which [`file_version_within`](crate::file_version::file_version_within) always makes. A
    /// binary file (no content hash) has a hash of its identity and state as `stat` gives
    /// them (device, inode, length, modification and change times), keyed the same way.
    pub fn of_large_file(
        path: String,
        stat: &Stat,
        facts: &TextFacts,
        content_hash: Option<u128>,
    ) -> FileVersion {
        let hash = content_hash.unwrap_or_else(|| {
            let mut identity = Vec::with_capacity(IDENTITY_TAG.len() + 7 * 16);
            identity.extend_from_slice(IDENTITY_TAG);
            for field in file_status::identity(stat) {
                identity.extend_from_slice(&field.to_le_bytes());
            }
            keyed_hash::of(&identity)
        });
        FileVersion {
            path,
            hash,
            byte_length: facts.file_len,
            mtime_ms: file_guard::mtime_ms(stat),
            line_ending: facts.line_ending,
            bom: facts.bom,
            valid_utf8: facts.valid_utf8,
        }
    }

    /// The version of a file up to [`MAX_FILE_BYTES`](crate::request::MAX_FILE_BYTES) whose bytes were hashed when it was
    /// read whole before (`hash`), at the same identity and state as `stat` gives them, and
    /// the facts of that read: the version [`FileVersion::of`] gives for the same bytes.
    pub fn remembered(path: String, hash: u128, stat: &Stat, facts: &TextFacts) -> FileVersion {
        FileVersion {
            path,
            hash,
            byte_length: facts.file_len,
            mtime_ms: file_guard::mtime_ms(stat),
            line_ending: facts.line_ending,
            bom: facts.bom,
            valid_utf8: facts.valid_utf8,
        }
    }

    /// The hash with its algorithm: `xxh3-128-keyed:<32 hex digits>`. Comparable only with
    /// hashes made by the same process.
    pub fn hash_string(&self) -> String {
        format!("xxh3-128-keyed:{:032x}", self.hash)
    }
}

/// What an identity hash starts with, so that it is not the content hash of a small file
/// whose bytes happen to be an identity.
const IDENTITY_TAG: &[u8] = b"agent-read-file identity\0";

/// Files one ledger remembers at most; the least recently read is forgotten first.
pub const LEDGER_CAPACITY: usize = 4096;

/// The version each file had when last read, for the [`LEDGER_CAPACITY`] files read most
/// recently. Shared by the threads reads run on.
#[derive(Debug, Default)]
pub struct Ledger(Mutex<Recent<FileVersion, LEDGER_CAPACITY>>);

impl Ledger {
    /// Remembers `version` as the last read of its path.
    pub fn record(&self, version: FileVersion) {
        let mut versions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        versions.insert(version.path.clone(), version);
    }

    /// The version last read of `path` (normalized, as [`Root::relative_path`] gives it).
    pub fn get(&self, path: &str) -> Option<FileVersion> {
        let versions = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        versions.get(path).cloned()
    }

    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(bytes: &[u8]) -> FileVersion {
        FileVersion::of("f".into(), bytes, 0)
    }

    #[test]
    fn line_endings_bom_and_utf8() {
        assert_eq!(version(b"a\nb\n").line_ending, LineEnding::Lf);
        assert_eq!(version(b"a\r\nb\r\n").line_ending, LineEnding::Crlf);
        assert_eq!(version(b"a\r\nb\n").line_ending, LineEnding::Mixed);
        assert_eq!(version(b"a\rb").line_ending, LineEnding::None);
        assert_eq!(version(b"").line_ending, LineEnding::None);
        assert!(version(b"\xEF\xBB\xBFx").bom);
        assert!(!version(b"x\xEF\xBB\xBF").bom);
        assert!(version("é\n".as_bytes()).valid_utf8);
        assert!(!version(b"a\xFFb").valid_utf8);
        assert!(version(b"\xEF\xBB\xBFok").valid_utf8);
    }

    #[test]
    fn the_hash_is_the_keyed_hash_of_the_bytes() {
        assert_eq!(version(b"abcd").hash, keyed_hash::of(b"abcd"));
        assert_ne!(version(b"abcd").hash, version(b"abce").hash);
        let text = version(b"").hash_string();
        assert!(text.starts_with("xxh3-128-keyed:"), "{text}");
        assert_eq!(text.len(), "xxh3-128-keyed:".len() + 32);
    }

    #[test]
    fn the_ledger_keeps_the_most_recent_reads() {
        let ledger = Ledger::default();
        let at = |path: &str, byte: u8| FileVersion::of(path.into(), &[byte], 0);
        ledger.record(at("a", 1));
        ledger.record(at("a", 2));
        assert_eq!(ledger.len(), 1);
        assert_eq!(ledger.get("a").unwrap().hash, at("a", 2).hash);
        for i in 0..LEDGER_CAPACITY {
            ledger.record(at(&format!("f{i}"), 0));
            if i == 10 {
                ledger.record(at("a", 3)); // read again: now among the recent
            }
        }
        assert_eq!(ledger.len(), LEDGER_CAPACITY);
        assert!(ledger.get("a").is_some());
        assert!(
            ledger.get("f0").is_none(),
            "the least recently read is forgotten"
        );
        assert!(ledger.get("f11").is_some());
    }
}
