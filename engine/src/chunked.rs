//! The window of a file too large to read whole: found by scanning the file in fixed-size
//! chunks, so that a read holds one chunk and what it returns whatever the file's size.
//!
//! The scan applies the line model of [`window`] to a stream: the same window, line count
//! and text facts as [`window::line_window`] and [`crate::version`] give for the whole
//! bytes (the property tests below hold it to that), and it
//! keeps at most `keep` bytes of the window, enough for any content budget the caller
//! applies after.
//!
//! A file that changes while it is scanned is noticed: the scan reads exactly the length
//! measured before it, sees the end where it was measured, and [`scan_unchanged`] compares
//! the file's status before and after.

use std::fs::File;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::Stat;

use crate::file_guard::{BINARY_SCAN_BYTES, is_binary};
use crate::window::{self, LineEnding, UTF8_BOM};

/// Bytes read at a time by a scan: large enough that one `pread` and one pass of `memchr`
/// cost little per byte, small enough that a read of any file holds little memory.
pub const CHUNK_BYTES: usize = 256 * 1024;

/// What is read from, at an offset: a file (`pread`) or, in tests, bytes in memory.
pub trait ReadAt {
    /// Reads into `buffer` from `offset`; fewer bytes only at the end of the file.
    fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize>;
}

impl ReadAt for File {
    fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut filled = 0;
        while filled < buffer.len() {
            let at = offset.saturating_add(filled as u64);
            match rustix::io::pread(self, &mut buffer[filled..], at) {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(rustix::io::Errno::INTR) => continue,
                Err(errno) => return Err(errno.into()),
            }
        }
        Ok(filled)
    }
}

impl ReadAt for [u8] {
    fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len());
        let read = buffer.len().min(self.len() - start);
        buffer[..read].copy_from_slice(&self[start..start + read]);
        Ok(read)
    }
}

/// What a window of lines asks for, and how much of it to keep.
#[derive(Clone, Copy, Debug)]
pub struct WindowAsk {
    pub start_line: u64,
    pub max_lines: u32,
    /// The most bytes of the window kept in [`Scanned::kept`].
    pub keep: usize,
}

/// What a scan of a whole file found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanned {
    /// The first bytes of the window (raw, BOM-less text), at most [`WindowAsk::keep`].
    pub kept: Vec<u8>,
    /// Whether `kept` is the whole window.
    pub whole_window: bool,
    pub returned_line_count: u32,
    pub next_start_line: Option<u64>,
    pub line_count: u64,
    /// UTF-8 length of the window's first line once decoded, its terminator not counted.
    pub first_line_len: u64,
    pub facts: TextFacts,
}

/// Facts of a file's bytes that a [`FileVersion`](crate::FileVersion) records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextFacts {
    pub file_len: u64,
    /// A NUL among the first [`BINARY_SCAN_BYTES`]: nothing else was scanned.
    pub binary: bool,
    pub bom: bool,
    pub line_ending: LineEnding,
    pub valid_utf8: bool,
}

/// Why a scan stopped.
#[derive(Debug)]
pub enum ScanError {
    /// The file's length is not the one measured: it grew or shrank during the scan.
    Changed,
    Io(io::Error),
}

impl From<io::Error> for ScanError {
    fn from(err: io::Error) -> Self {
        ScanError::Io(err)
    }
}

/// Scans `file_len` bytes of `source` in chunks of `chunk` bytes for the window `ask`.
/// A binary file is told after its first [`BINARY_SCAN_BYTES`] only.
#[cfg(test)]
fn scan(
    source: &(impl ReadAt + ?Sized),
    file_len: u64,
    ask: WindowAsk,
    chunk: usize,
) -> Result<Scanned, ScanError> {
    scan_indexing(source, file_len, ask, chunk).map(|(scanned, _)| scanned)
}

/// [`scan`], and the [`LineIndex`] of the file it scanned.
pub fn scan_indexing(
    source: &(impl ReadAt + ?Sized),
    file_len: u64,
    ask: WindowAsk,
    chunk: usize,
) -> Result<(Scanned, LineIndex), ScanError> {
    scan_indexing_within(source, file_len, ask, chunk, MAX_CHECKPOINTS)
}

/// [`scan_indexing`] into an index of at most about `max_checkpoints` checkpoints.
fn scan_indexing_within(
    source: &(impl ReadAt + ?Sized),
    file_len: u64,
    ask: WindowAsk,
    chunk: usize,
    max_checkpoints: u64,
) -> Result<(Scanned, LineIndex), ScanError> {
    let chunk = chunk.max(1);
    let head_len = file_len.min(BINARY_SCAN_BYTES as u64) as usize;
    let mut head = vec![0u8; head_len];
    read_exactly(source, &mut head, 0)?;
    let bom = head.starts_with(UTF8_BOM);
    let binary = is_binary(&head);
    drop(head);
    let mut finder = WindowFinder::new(ask, 0);
    let mut text = TextStream::default();
    let stride = checkpoint_stride(file_len, chunk, max_checkpoints);
    let mut checkpoints = Vec::new();
    if !binary {
        let mut buffer = vec![0u8; chunk];
        let mut offset = if bom { UTF8_BOM.len() as u64 } else { 0 };
        let text_start = offset;
        while offset < file_len {
            if ((offset - text_start) / chunk as u64).is_multiple_of(stride) {
                checkpoints.push(text.newlines);
            }
            let want = buffer.len().min((file_len - offset) as usize);
            let bytes = &mut buffer[..want];
            read_exactly(source, bytes, offset)?;
            text.feed(bytes);
            finder.feed(bytes, offset - text_start);
            offset += want as u64;
        }
        if source.read_at(&mut [0u8; 1], file_len)? != 0 {
            return Err(ScanError::Changed);
        }
    }
    let index = LineIndex {
        chunk,
        checkpoint_bytes: chunk as u64 * stride,
        checkpoints,
        line_count: text.newlines + u64::from(text.ends_unterminated()),
        unterminated: text.ends_unterminated(),
        facts: TextFacts {
            file_len,
            binary,
            bom,
            line_ending: LineEnding::from_counts(text.newlines, text.crlfs),
            valid_utf8: text.utf8.valid(),
        },
    };
    Ok((finder.finish(&index), index))
}

/// The most checkpoints one [`LineIndex`] holds: past `MAX_CHECKPOINTS` chunks (16 GiB
/// of 256 KiB chunks), a checkpoint falls every few chunks, so an index stays within
/// 512 KiB whatever the file's size.
const MAX_CHECKPOINTS: u64 = 65_536;

/// Chunks from one checkpoint to the next, for a file of `file_len` bytes.
fn checkpoint_stride(file_len: u64, chunk: usize, max_checkpoints: u64) -> u64 {
    file_len
        .div_ceil(chunk as u64)
        .div_ceil(max_checkpoints.max(1))
        .max(1)
}

/// Where a file's lines lie, as a full scan found them: the newlines before each
/// checkpoint, and the facts of the whole text. With it, a window is found by reading from
/// the checkpoint before it to its end only ([`scan_with_index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    chunk: usize,
    /// Text bytes from one checkpoint to the next: a whole number of chunks.
    checkpoint_bytes: u64,
    /// Newlines before text offset `i * checkpoint_bytes`, for each checkpoint.
    checkpoints: Vec<u64>,
    line_count: u64,
    unterminated: bool,
    facts: TextFacts,
}

impl LineIndex {
    /// The facts of the file's whole text.
    pub fn facts(&self) -> &TextFacts {
        &self.facts
    }

    /// Bytes it holds, beside its own size.
    fn heap_bytes(&self) -> usize {
        self.checkpoints.len() * std::mem::size_of::<u64>()
    }
}

/// [`scan`] of the file `index` was made from, reading only from the checkpoint before the
/// window to the window's end. The caller makes sure the file is that one, unchanged.
pub fn scan_with_index(
    source: &(impl ReadAt + ?Sized),
    index: &LineIndex,
    ask: WindowAsk,
) -> Result<Scanned, ScanError> {
    let facts = index.facts;
    let checkpoints = &index.checkpoints;
    // The last checkpoint before which fewer newlines lie than precede the window: the
    // window starts after it.
    let newlines_before_window = ask.start_line.saturating_sub(1);
    let first = checkpoints
        .partition_point(|&newlines| newlines < newlines_before_window)
        .saturating_sub(1);
    let mut finder = WindowFinder::new(ask, checkpoints.get(first).copied().unwrap_or(0));
    if !facts.binary {
        let text_start = if facts.bom { UTF8_BOM.len() as u64 } else { 0 };
        let mut buffer = vec![0u8; index.chunk];
        let mut offset = text_start + first as u64 * index.checkpoint_bytes;
        while offset < facts.file_len && finder.end.is_none() {
            let want = buffer.len().min((facts.file_len - offset) as usize);
            let bytes = &mut buffer[..want];
            read_exactly(source, bytes, offset)?;
            finder.feed(bytes, offset - text_start);
            offset += want as u64;
        }
    }
    Ok(finder.finish(index))
}

/// The line indexes of the files a toolkit read last, each keyed by the file's
/// [`identity`] when it was scanned: a file changed since has another key, so its index is
/// never used again, and is forgotten as the least recently used.
#[derive(Debug, Default)]
pub struct LineIndexCache(Mutex<Vec<([i128; 7], Arc<LineIndex>)>>);

/// Files a [`LineIndexCache`] remembers at most.
pub const LINE_INDEX_CAPACITY: usize = 16;

impl LineIndexCache {
    /// The index of the file whose status is `stat`, if it is remembered.
    pub fn get(&self, stat: &Stat) -> Option<Arc<LineIndex>> {
        let key = identity(stat);
        let mut entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let at = entries.iter().position(|(entry, _)| *entry == key)?;
        let entry = entries.remove(at);
        let index = entry.1.clone();
        entries.push(entry);
        Some(index)
    }

    /// Remembers `index` as the one of the file whose status is `stat`.
    pub fn insert(&self, stat: &Stat, index: LineIndex) {
        let key = identity(stat);
        let mut entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|(entry, _)| *entry != key);
        if entries.len() >= LINE_INDEX_CAPACITY {
            entries.remove(0);
        }
        entries.push((key, Arc::new(index)));
    }

    /// Bytes its indexes hold.
    pub fn heap_bytes(&self) -> usize {
        let entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        entries.iter().map(|(_, index)| index.heap_bytes()).sum()
    }
}

/// [`scan`] of `file`, whose status was `stat` when it was opened, checked to be the
/// same file with the same length, modification and change times after the scan; if not,
/// scanned once more from a new status. `Err(ScanUnchangedError::Changed)` when it changed
/// during both scans. Gives the status the answer is of.
///
/// A scan starts only once the file's last change is older than [`TIMESTAMP_TICK`]: a file
/// system stamps changes with a clock that advances in ticks, so a write within the tick
/// of the one before leaves the times as they were; after that tick, any write moves them.
pub fn scan_unchanged(
    file: &File,
    stat: &Stat,
    ask: WindowAsk,
    chunk: usize,
    max_len: u64,
    indexes: Option<&LineIndexCache>,
) -> Result<(Scanned, Stat), ScanUnchangedError> {
    let mut before = *stat;
    for _ in 0..2 {
        let len = u64::try_from(before.st_size).unwrap_or(0);
        if len > max_len {
            return Err(ScanUnchangedError::TooLarge(len));
        }
        wait_until_settled(&before);
        let known = indexes.and_then(|indexes| indexes.get(&before));
        let scanned = match &known {
            Some(index) => scan_with_index(file, index, ask).map(|scanned| (scanned, None)),
            None => scan_indexing(file, len, ask, chunk).map(|(s, index)| (s, Some(index))),
        };
        let after = rustix::fs::fstat(file).map_err(io::Error::from)?;
        match scanned {
            Ok((scanned, index)) if same_version(&before, &after) => {
                if let (Some(indexes), Some(index)) = (indexes, index) {
                    indexes.insert(&after, index);
                }
                return Ok((scanned, after));
            }
            Ok(_) | Err(ScanError::Changed) => before = after,
            Err(ScanError::Io(err)) => return Err(err.into()),
        }
    }
    Err(ScanUnchangedError::Changed)
}

/// The longest tick of the clocks file systems stamp changes with (Linux's coarse clock
/// advances every 1 to 10 ms), with room to spare.
const TIMESTAMP_TICK: Duration = Duration::from_millis(20);

/// Sleeps until the change time of `stat` is more than [`TIMESTAMP_TICK`] old (at most
/// that long, even for a change time in the future).
fn wait_until_settled(stat: &Stat) {
    let changed = UNIX_EPOCH
        .checked_add(Duration::new(
            u64::try_from(stat.st_ctime).unwrap_or(0),
            u32::try_from(stat.st_ctime_nsec).unwrap_or(0),
        ))
        .unwrap_or(UNIX_EPOCH);
    let age = SystemTime::now()
        .duration_since(changed)
        .unwrap_or(Duration::ZERO);
    if age <= TIMESTAMP_TICK {
        std::thread::sleep(TIMESTAMP_TICK - age + Duration::from_millis(1));
    }
}

/// Why [`scan_unchanged`] gave no answer.
#[derive(Debug)]
pub enum ScanUnchangedError {
    /// The file changed during both scans.
    Changed,
    /// The file is this many bytes, over the limit.
    TooLarge(u64),
    Io(io::Error),
}

impl From<io::Error> for ScanUnchangedError {
    fn from(err: io::Error) -> Self {
        ScanUnchangedError::Io(err)
    }
}

/// Whether two statuses are of the same version of the same file, as far as a status
/// tells: same device, inode, length, modification and change times (to the nanosecond).
pub fn same_version(a: &Stat, b: &Stat) -> bool {
    identity(a) == identity(b)
}

/// Device, inode, length, modification and change times of a status.
#[allow(clippy::unnecessary_cast)] // The fields' types differ between platforms.
pub fn identity(stat: &Stat) -> [i128; 7] {
    [
        stat.st_dev as i128,
        stat.st_ino as i128,
        stat.st_size as i128,
        stat.st_mtime as i128,
        stat.st_mtime_nsec as i128,
        stat.st_ctime as i128,
        stat.st_ctime_nsec as i128,
    ]
}

/// Fills `buffer` from `offset`; a file that ends sooner has changed.
fn read_exactly(
    source: &(impl ReadAt + ?Sized),
    buffer: &mut [u8],
    offset: u64,
) -> Result<(), ScanError> {
    if source.read_at(buffer, offset)? < buffer.len() {
        return Err(ScanError::Changed);
    }
    Ok(())
}

/// The whole text as it streams past: newlines, `\r\n` pairs, its last byte and whether
/// it is valid UTF-8.
#[derive(Default)]
struct TextStream {
    newlines: u64,
    crlfs: u64,
    last: Option<u8>,
    utf8: Utf8Length,
}

impl TextStream {
    fn feed(&mut self, bytes: &[u8]) {
        self.newlines += window::count_newlines(bytes);
        self.crlfs += memchr::memmem::find_iter(bytes, b"\r\n").count() as u64;
        if self.last == Some(b'\r') && bytes.first() == Some(&b'\n') {
            self.crlfs += 1;
        }
        self.last = bytes.last().copied().or(self.last);
        self.utf8.feed(bytes);
    }

    fn ends_unterminated(&self) -> bool {
        self.last.is_some_and(|last| last != b'\n')
    }
}

/// The length of a byte stream decoded as `String::from_utf8_lossy` decodes it (one
/// U+FFFD for each maximal invalid sequence), fed in pieces that may split a character.
#[derive(Default)]
struct Utf8Length {
    decoded: u64,
    invalid: bool,
    /// The start of a character the last piece ended inside (at most 3 bytes).
    carry: Vec<u8>,
}

const REPLACEMENT_LEN: u64 = '\u{FFFD}'.len_utf8() as u64;

impl Utf8Length {
    fn feed(&mut self, mut bytes: &[u8]) {
        while !self.carry.is_empty() && !bytes.is_empty() {
            // A character is at most 4 bytes: these complete the carried one, or show it
            // invalid; whatever they leave unfinished is carried again.
            let take = bytes.len().min(4);
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            self.walk(&joined);
        }
        if self.carry.is_empty() {
            self.walk(bytes);
        }
    }

    fn walk(&mut self, mut bytes: &[u8]) {
        loop {
            match std::str::from_utf8(bytes) {
                Ok(valid) => {
                    self.decoded += valid.len() as u64;
                    return;
                }
                Err(error) => {
                    let valid = error.valid_up_to();
                    self.decoded += valid as u64;
                    let Some(invalid) = error.error_len() else {
                        self.carry = bytes[valid..].to_vec();
                        return;
                    };
                    self.decoded += REPLACEMENT_LEN;
                    self.invalid = true;
                    bytes = &bytes[valid + invalid..];
                }
            }
        }
    }

    /// The decoded length of everything fed: an unfinished character at the end is one
    /// U+FFFD.
    fn len(&self) -> u64 {
        self.decoded
            + if self.carry.is_empty() {
                0
            } else {
                REPLACEMENT_LEN
            }
    }

    fn valid(&self) -> bool {
        !self.invalid && self.carry.is_empty()
    }
}

/// Finds the window of lines in the text streaming past, keeping its first bytes.
struct WindowFinder {
    ask: WindowAsk,
    newlines_seen: u64,
    /// Text offset where the window starts, once found.
    start: Option<u64>,
    /// Newlines in the window so far.
    window_newlines: u64,
    /// Text offset just after the window's last newline, once found.
    end: Option<u64>,
    kept: Vec<u8>,
    first_line: FirstLine,
}

impl WindowFinder {
    /// A finder fed from a point with `newlines_seen` newlines before it, at most as many
    /// as precede the window.
    fn new(ask: WindowAsk, newlines_seen: u64) -> WindowFinder {
        WindowFinder {
            ask,
            newlines_seen,
            start: (ask.start_line <= 1).then_some(0),
            window_newlines: 0,
            end: None,
            kept: Vec::new(),
            first_line: FirstLine::default(),
        }
    }

    /// `bytes` are the text from offset `at`.
    fn feed(&mut self, mut bytes: &[u8], mut at: u64) {
        if self.start.is_none() {
            let before = self.ask.start_line - 1;
            let in_bytes = window::count_newlines(bytes);
            if self.newlines_seen + in_bytes < before {
                self.newlines_seen += in_bytes;
                return;
            }
            let nth = (before - self.newlines_seen - 1) as usize;
            let Some(newline) = memchr::memchr_iter(b'\n', bytes).nth(nth) else {
                return;
            };
            self.start = Some(at + newline as u64 + 1);
            bytes = &bytes[newline + 1..];
            at += newline as u64 + 1;
        }
        if self.end.is_some() {
            return;
        }
        let wanted = u64::from(self.ask.max_lines) - self.window_newlines;
        let in_bytes = window::count_newlines(bytes);
        let part = if wanted == 0 {
            self.end = Some(at);
            &bytes[..0]
        } else if in_bytes >= wanted {
            let last = memchr::memchr_iter(b'\n', bytes).nth(wanted as usize - 1);
            let end = last.map_or(bytes.len(), |last| last + 1);
            self.end = Some(at + end as u64);
            self.window_newlines += wanted;
            &bytes[..end]
        } else {
            self.window_newlines += in_bytes;
            bytes
        };
        let room = self.ask.keep.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&part[..part.len().min(room)]);
        self.first_line.feed(part);
    }

    /// The window in the whole text `index` describes, once the text went past to the
    /// window's end.
    fn finish(self, index: &LineIndex) -> Scanned {
        let facts = index.facts;
        let bom_len = if facts.bom { UTF8_BOM.len() as u64 } else { 0 };
        let text_len = if facts.binary {
            0
        } else {
            facts.file_len - bom_len
        };
        let unterminated = u64::from(index.unterminated);
        let line_count = index.line_count;
        let empty = |kept| Scanned {
            kept,
            whole_window: true,
            returned_line_count: 0,
            next_start_line: None,
            line_count,
            first_line_len: 0,
            facts,
        };
        let Some(start) = self.start.filter(|&start| start < text_len) else {
            return empty(Vec::new());
        };
        let (end, returned) = match self.end {
            Some(end) => (end, self.ask.max_lines),
            None => (text_len, (self.window_newlines + unterminated) as u32),
        };
        Scanned {
            whole_window: self.kept.len() as u64 == end - start,
            kept: self.kept,
            returned_line_count: returned,
            next_start_line: (end < text_len).then(|| self.ask.start_line + u64::from(returned)),
            line_count,
            first_line_len: self.first_line.decoded_len(),
            facts,
        }
    }
}

/// The decoded length of the window's first line, measured as it streams past.
#[derive(Default)]
struct FirstLine {
    length: Utf8Length,
    last: Option<u8>,
    ended: bool,
}

impl FirstLine {
    fn feed(&mut self, bytes: &[u8]) {
        if self.ended {
            return;
        }
        let line = match memchr::memchr(b'\n', bytes) {
            Some(newline) => {
                self.ended = true;
                &bytes[..newline]
            }
            None => bytes,
        };
        self.length.feed(line);
        self.last = line.last().copied().or(self.last);
    }

    /// Its length once decoded: a `\r` before its `\n` is dropped with it.
    fn decoded_len(&self) -> u64 {
        let dropped_cr = self.ended && self.last == Some(b'\r');
        self.length.len() - u64::from(dropped_cr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(text: &[u8], start_line: u64, max_lines: u32, chunk: usize) -> Scanned {
        let ask = WindowAsk {
            start_line,
            max_lines,
            keep: usize::MAX,
        };
        scan(text, text.len() as u64, ask, chunk).unwrap()
    }

    #[test]
    fn a_window_found_across_chunks_is_the_whole_texts() {
        let text = b"one\r\ntwo\nthree\nfour";
        for chunk in 1..=text.len() + 1 {
            let s = scanned(text, 2, 2, chunk);
            assert_eq!(s.kept, b"two\nthree\n", "chunk {chunk}");
            assert_eq!((s.returned_line_count, s.next_start_line), (2, Some(4)));
            assert_eq!(s.line_count, 4);
            assert_eq!(s.facts.line_ending, LineEnding::Mixed);
            assert!(scanned(text, 4, 9, chunk).whole_window);
            assert_eq!(scanned(text, 4, 9, chunk).kept, b"four");
        }
    }

    #[test]
    fn a_first_line_is_measured_decoded() {
        // "é" split across chunks, an invalid byte, then \r\n.
        let text = "aé\u{FFFD}".as_bytes();
        let mut bytes = text[..3].to_vec();
        bytes.extend_from_slice(b"\xFF\r\nz");
        for chunk in 1..=8 {
            let s = scanned(&bytes, 1, 1, chunk);
            assert_eq!(s.first_line_len, text.len() as u64, "chunk {chunk}");
            assert!(!s.facts.valid_utf8);
        }
    }

    #[test]
    fn a_length_that_is_not_the_files_is_a_change() {
        let ask = WindowAsk {
            start_line: 1,
            max_lines: 1,
            keep: 10,
        };
        let text: &[u8] = b"abc\n";
        assert!(matches!(scan(text, 3, ask, 2), Err(ScanError::Changed)));
        assert!(matches!(scan(text, 5, ask, 2), Err(ScanError::Changed)));
    }

    #[test]
    fn a_nul_in_the_head_stops_the_scan() {
        let s = scanned(b"ab\0\ncd\n", 1, 5, 2);
        assert!(s.facts.binary);
        assert_eq!(s.kept, b"");
    }

    /// Bytes that exercise the line model: newlines, `\r`, a BOM's bytes, a two-byte and a
    /// four-byte character, invalid bytes.
    fn text_strategy() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"abc".to_vec()),
            Just("é".as_bytes().to_vec()),
            Just("\u{1F600}".as_bytes().to_vec()),
            Just(b"\xFF".to_vec()),
            Just(b"\xE2\x82".to_vec()),
            Just(b"\xEF\xBB\xBF".to_vec()),
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #[test]
        fn the_scan_agrees_with_the_whole_text(
            text in text_strategy(),
            start_line in 1u64..30,
            max_lines in 1u32..8,
            chunk in 1usize..24,
        ) {
            let whole_text = window::strip_bom(&text);
            let whole = window::line_window(whole_text, start_line, max_lines);
            let s = scanned(&text, start_line, max_lines, chunk);
            proptest::prop_assert_eq!(&s.kept[..], &whole_text[whole.bytes.clone()]);
            proptest::prop_assert_eq!(s.returned_line_count, whole.returned_line_count);
            proptest::prop_assert_eq!(s.next_start_line, whole.next_start_line);
            proptest::prop_assert_eq!(s.line_count, whole.line_count);
            let version = crate::FileVersion::of(String::new(), &text, 0);
            proptest::prop_assert_eq!(s.facts.line_ending, version.line_ending);
            proptest::prop_assert_eq!(s.facts.bom, version.bom);
            proptest::prop_assert_eq!(s.facts.valid_utf8, version.valid_utf8);
            let window_text = window::decode(&whole_text[whole.bytes]);
            let first_line = window_text.split('\n').next().unwrap_or("");
            if !s.kept.is_empty() {
                proptest::prop_assert_eq!(s.first_line_len, first_line.len() as u64);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_indexed_scan_agrees_with_the_full_scan(
            text in text_strategy(),
            start_line in 1u64..30,
            max_lines in 1u32..8,
            chunk in 1usize..24,
            keep in 0usize..40,
            max_checkpoints in 1u64..8,
        ) {
            let len = text.len() as u64;
            let ask = WindowAsk { start_line, max_lines, keep };
            let other = WindowAsk { start_line: 1, max_lines: 1, keep: 0 };
            let (_, index) =
                scan_indexing_within(&text[..], len, other, chunk, max_checkpoints).unwrap();
            let indexed = scan_with_index(&text[..], &index, ask).unwrap();
            proptest::prop_assert_eq!(indexed, scan(&text[..], len, ask, chunk).unwrap());
        }
    }

    /// Bytes in memory that count what is read of them.
    struct Counted(Vec<u8>, std::cell::Cell<u64>);

    impl ReadAt for Counted {
        fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
            let read = self.0.read_at(buffer, offset)?;
            self.1.set(self.1.get() + read as u64);
            Ok(read)
        }
    }

    #[test]
    fn with_its_index_a_page_reads_from_its_chunk_to_its_end_only() {
        let text: String = (0..100_000).map(|i| format!("{i:07}\n")).collect();
        let source = Counted(text.into_bytes(), std::cell::Cell::new(0));
        let ask = |start_line| WindowAsk {
            start_line,
            max_lines: 10,
            keep: usize::MAX,
        };
        let (_, index) = scan_indexing(&source, 800_000, ask(1), 4096).unwrap();
        assert_eq!(source.1.replace(0), 800_000 + 8192);
        let page = scan_with_index(&source, &index, ask(77_777)).unwrap();
        assert_eq!(page.kept, &source.0[77_776 * 8..77_786 * 8]);
        assert_eq!(
            (page.line_count, page.next_start_line),
            (100_000, Some(77_787))
        );
        assert!(source.1.get() <= 2 * 4096, "read {}", source.1.get());
        let (_, coarse) = scan_indexing_within(&source, 800_000, ask(1), 4096, 10).unwrap();
        assert_eq!(coarse.heap_bytes(), 10 * 8);
        source.1.set(0);
        assert_eq!(
            scan_with_index(&source, &coarse, ask(77_777)).unwrap(),
            page
        );
        assert!(source.1.get() <= 21 * 4096, "read {}", source.1.get());
    }

    #[test]
    fn the_cache_keeps_the_most_recent_indexes() {
        let cache = LineIndexCache::default();
        let file = tempfile::tempfile().unwrap();
        let stat = |len: i64| {
            let mut stat = rustix::fs::fstat(&file).unwrap();
            stat.st_size = len;
            stat
        };
        let ask = WindowAsk {
            start_line: 1,
            max_lines: 1,
            keep: 0,
        };
        let index = |text: &[u8]| scan_indexing(text, text.len() as u64, ask, 4).unwrap().1;
        cache.insert(&stat(0), index(b"a\n"));
        for len in 1..=LINE_INDEX_CAPACITY as i64 {
            cache.insert(&stat(len), index(b"b\n"));
            if len == 5 {
                assert!(cache.get(&stat(0)).is_some()); // used: now the most recent
            }
        }
        assert!(cache.get(&stat(0)).is_some());
        assert!(
            cache.get(&stat(1)).is_none(),
            "the least recently used is forgotten"
        );
        assert_eq!(cache.get(&stat(0)).unwrap().facts().file_len, 2);
    }
}
