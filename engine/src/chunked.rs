//! The window of a file too large to read whole: found by scanning the file in fixed-size
//! chunks, so that a read holds one chunk and what it returns whatever the file's size.
//!
//! The scan applies the line model of [`window`] to a stream: the same window, line count
//! and text facts as [`window::line_window`] and [`crate::version`] give for the whole
//! bytes (the property tests below hold it to that), and it
//! keeps the window's bytes only until they surely decode to `keep` bytes of text, enough
//! for any content budget the caller applies after.
//!
//! A file that changes while it is scanned is noticed: the scan reads exactly the length
//! measured before it, sees the end where it was measured, and [`scan_unchanged`] compares
//! the file's status before and after.

use std::cell::Cell;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rustix::fs::Stat;

use crate::file_guard::{BINARY_SCAN_BYTES, is_binary};
use crate::file_status::{identity, same_version, wait_until_settled};
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
        pread_fully(self, buffer, offset)
    }
}

impl ReadAt for OwnedFd {
    fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        pread_fully(self, buffer, offset)
    }
}

/// Fills `buffer` from `offset` of `fd`, short only at the end of the file.
fn pread_fully(fd: impl AsFd, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        let at = offset.saturating_add(filled as u64);
        match rustix::io::pread(&fd, &mut buffer[filled..], at) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(rustix::io::Errno::INTR) => continue,
            Err(errno) => return Err(errno.into()),
        }
    }
    Ok(filled)
}

/// A file read from the kernel's page cache alone, for a thread that must not wait: at most
/// `allowance` bytes in all, each read answered whole from memory or failed with
/// [`io::ErrorKind::WouldBlock`] (then the work is done again where waiting is allowed).
pub struct FromMemoryReads<'f> {
    file: &'f OwnedFd,
    /// The file's length as measured: a read reaches no further.
    file_len: u64,
    allowance: Cell<u64>,
}

impl<'f> FromMemoryReads<'f> {
    /// Reads of `file`, `file_len` bytes long, at most `allowance` bytes in all.
    pub fn new(file: &'f OwnedFd, file_len: u64, allowance: u64) -> FromMemoryReads<'f> {
        FromMemoryReads {
            file,
            file_len,
            allowance: Cell::new(allowance),
        }
    }
}

impl ReadAt for FromMemoryReads<'_> {
    fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        let want = buffer
            .len()
            .min(usize::try_from(self.file_len.saturating_sub(offset)).unwrap_or(usize::MAX));
        let left = self.allowance.get();
        let would_block = || io::Error::from(io::ErrorKind::WouldBlock);
        if want as u64 > left {
            return Err(would_block());
        }
        self.allowance.set(left - want as u64);
        if want == 0 {
            return Ok(0);
        }
        // A short read is a page the cache does not hold (or a file that shrank): either
        // way, not an answer from memory.
        match crate::file_guard::read_from_page_cache(self.file, &mut buffer[..want], offset) {
            Some(read) if read == want => Ok(read),
            _ => Err(would_block()),
        }
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
    /// The window starts this many lines before the end instead, when given.
    pub lines_from_end: Option<u64>,
    /// The column (byte of the line as stored, from 1) of `start_line` the window starts at.
    pub start_column: u64,
    pub max_lines: u32,
    /// The bytes of text the window is kept for: [`Scanned::kept`] ends once it surely
    /// decodes to at least this many (a `\r\n` decodes to one byte, and nothing to fewer
    /// bytes than it has), so at most twice this many bytes; `usize::MAX`: all of it.
    pub keep: usize,
}

/// A window of a file too large to read whole, and the facts of the whole file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanned {
    /// The first bytes of the window (raw, BOM-less text), as many as [`WindowAsk::keep`]
    /// asks. When not all of the window, it was read no further, and the two fields below
    /// are only at least what they would be: a caller fits `kept` to a budget under `keep`.
    pub kept: Vec<u8>,
    pub returned_line_count: u32,
    pub next_start_line: Option<u64>,
    pub line_count: u64,
    /// The column of its first line the window starts at (1: the line's start).
    pub start_column: u64,
    /// The bytes of the window's first line from the window's start, its terminator not
    /// counted.
    pub first_line_len: u64,
    pub facts: TextFacts,
    /// The content hash of the whole file when its scan made it, unless it is binary.
    pub content_hash: Option<u128>,
    /// The file grew while it was read (a log being written): the window is of its first
    /// [`TextFacts::file_len`] bytes, as they were when the read began.
    pub growing: bool,
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
    /// Its caller set the stop flag.
    Stopped,
    Io(io::Error),
}

impl From<io::Error> for ScanError {
    fn from(err: io::Error) -> Self {
        ScanError::Io(err)
    }
}

/// How a scan reads a file: `chunk` bytes at a time, and, between two chunks, whether its
/// caller set `stop` (to give up on a long scan); and whether it hashes the bytes as they
/// pass (a caller that hashed them whole already does not).
#[derive(Clone, Copy, Debug, Default)]
pub struct ScanPace<'a> {
    pub chunk: usize,
    pub stop: Option<&'a AtomicBool>,
    pub hash: bool,
}

impl ScanPace<'_> {
    fn stopped(&self) -> bool {
        self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
    }
}

/// The [`LineIndex`] of the `file_len` bytes of `source`, read as `pace` says. A binary
/// file is told after its first [`BINARY_SCAN_BYTES`] only.
pub fn index_file(
    source: &(impl ReadAt + ?Sized),
    file_len: u64,
    pace: ScanPace,
) -> Result<LineIndex, ScanError> {
    let spacing = checkpoint_bytes(file_len, MIN_CHECKPOINT_BYTES, MAX_CHECKPOINTS);
    index_file_spaced(source, file_len, pace, spacing)
}

/// [`index_file`] with a checkpoint every `spacing` bytes of text.
fn index_file_spaced(
    source: &(impl ReadAt + ?Sized),
    file_len: u64,
    pace: ScanPace,
    spacing: u64,
) -> Result<LineIndex, ScanError> {
    let chunk = pace.chunk.max(1);
    let head_len = file_len.min(BINARY_SCAN_BYTES as u64) as usize;
    let mut head = vec![0u8; head_len];
    read_exactly(source, &mut head, 0)?;
    let bom = head.starts_with(UTF8_BOM);
    let binary = is_binary(&head);
    let head_len = head.len().min(END_BYTES);
    let head_hash = end_hash(&head[..head_len]);
    drop(head);
    let mut indexer = Indexer {
        spacing,
        ..Indexer::default()
    };
    let mut content_hash = None;
    if !binary {
        // The bytes are hashed as they stream past, as a file read whole is: the version of
        // a file too large for that is then of its content too, not only of its status.
        let text_start = if bom { UTF8_BOM.len() as u64 } else { 0 };
        let mut hasher = pace.hash.then(|| Hasher::for_len(file_len, chunk));
        if let Some(hasher) = &mut hasher {
            hasher.update(UTF8_BOM[..text_start as usize].to_vec());
        }
        let mut buffer = Vec::new();
        let mut offset = text_start;
        while offset < file_len {
            if pace.stopped() {
                return Err(ScanError::Stopped);
            }
            if let Some(hasher) = &mut hasher {
                buffer = hasher.spare();
            }
            buffer.resize(chunk.min((file_len - offset) as usize), 0);
            read_exactly(source, &mut buffer, offset)?;
            indexer.feed(&buffer, offset - text_start);
            offset += buffer.len() as u64;
            if let Some(hasher) = &mut hasher {
                hasher.update(std::mem::take(&mut buffer));
            }
        }
        // Bytes past `file_len` (a file that grew during the scan) are not read: the caller
        // compares the file's status before and after, and decides.
        content_hash = hasher.and_then(Hasher::finish);
    }
    let ends = Ends {
        head_len,
        head: head_hash,
        tail: end_hash(&indexer.tail),
    };
    Ok(indexer.finish(chunk, file_len, (binary, bom), ends, content_hash))
}

/// Files from this size on are hashed on a thread of their own while the scan reads on: the
/// hash (about 8 GB/s) would otherwise add a third to a first read of a large file.
const HASH_BESIDE_FROM_BYTES: u64 = 8 << 20;

/// Pieces on their way to the hashing thread at most.
const PIECES_BESIDE: usize = 3;

/// The content hash of the bytes a scan reads, made as they pass: on this thread, or on a
/// thread beside it for a file of [`HASH_BESIDE_FROM_BYTES`] or more.
enum Hasher {
    Here(Box<xxhash_rust::xxh3::Xxh3>, Vec<u8>),
    Beside {
        pieces: std::sync::mpsc::SyncSender<Vec<u8>>,
        spares: std::sync::mpsc::Receiver<Vec<u8>>,
        done: std::thread::JoinHandle<u128>,
    },
}

impl Hasher {
    /// A hasher for a file of `file_len` bytes read `chunk` bytes at a time.
    fn for_len(file_len: u64, chunk: usize) -> Hasher {
        let here = || Hasher::Here(Box::new(crate::keyed_hash::hasher()), Vec::new());
        if file_len < HASH_BESIDE_FROM_BYTES {
            return here();
        }
        let (pieces, to_hash) = std::sync::mpsc::sync_channel::<Vec<u8>>(PIECES_BESIDE);
        let (give_back, spares) = std::sync::mpsc::channel();
        // The pieces go round: the scan reads into one the hashing thread gave back, and a
        // fresh buffer (a mapping of its own, at this size) is never made per piece.
        for _ in 0..PIECES_BESIDE + 1 {
            let _ = give_back.send(Vec::with_capacity(chunk));
        }
        let hash = move || {
            let mut hasher = crate::keyed_hash::hasher();
            for piece in to_hash {
                hasher.update(&piece);
                let _ = give_back.send(piece);
            }
            hasher.digest128()
        };
        let spawned = std::thread::Builder::new()
            .name("agent-read-file hash".into())
            .stack_size(64 * 1024)
            .spawn(hash);
        match spawned {
            Ok(done) => Hasher::Beside {
                pieces,
                spares,
                done,
            },
            // No thread to be had: hashed here, a little slower.
            Err(_) => here(),
        }
    }

    /// A buffer to read the next piece into: one the hashing thread is done with (it hashes
    /// faster than a scan reads, so the wait is short).
    fn spare(&mut self) -> Vec<u8> {
        match self {
            Hasher::Here(_, spare) => std::mem::take(spare),
            Hasher::Beside { spares, .. } => spares.recv().unwrap_or_default(),
        }
    }

    /// Hashes `piece`, the bytes that follow those hashed before.
    fn update(&mut self, piece: Vec<u8>) {
        match self {
            Hasher::Here(hasher, spare) => {
                hasher.update(&piece);
                *spare = piece;
            }
            // The thread ends only when `pieces` is dropped: the send cannot fail.
            Hasher::Beside { pieces, .. } => {
                let _ = pieces.send(piece);
            }
        }
    }

    /// The hash of every byte given; `None` if the hashing thread could not give it.
    fn finish(self) -> Option<u128> {
        match self {
            Hasher::Here(hasher, _) => Some(hasher.digest128()),
            Hasher::Beside { pieces, done, .. } => {
                drop(pieces);
                done.join().ok()
            }
        }
    }
}

/// The text as it streams past, a checkpoint every `spacing` bytes of it, and its last
/// [`END_BYTES`] bytes.
#[derive(Default)]
struct Indexer {
    text: TextStream,
    spacing: u64,
    checkpoints: Vec<u64>,
    tail: Vec<u8>,
}

impl Indexer {
    /// `bytes` are the text from offset `at`, which follows what was fed before.
    fn feed(&mut self, bytes: &[u8], at: u64) {
        let keep = bytes.len().min(END_BYTES);
        let drop = (self.tail.len() + keep).saturating_sub(END_BYTES);
        self.tail.drain(..drop);
        self.tail.extend_from_slice(&bytes[bytes.len() - keep..]);
        self.feed_checkpoints(bytes, at);
    }

    fn feed_checkpoints(&mut self, mut bytes: &[u8], mut at: u64) {
        while !bytes.is_empty() {
            if at == self.checkpoints.len() as u64 * self.spacing {
                self.checkpoints.push(self.text.newlines);
            }
            let next = self.checkpoints.len() as u64 * self.spacing;
            let (part, rest) = bytes.split_at(bytes.len().min((next - at) as usize));
            self.text.feed(part);
            at += part.len() as u64;
            bytes = rest;
        }
    }

    /// The index of the `file_len` bytes fed (with a BOM and binary as said), read `chunk`
    /// bytes at a time when it is used.
    fn finish(
        mut self,
        chunk: usize,
        file_len: u64,
        (binary, bom): (bool, bool),
        ends: Ends,
        content_hash: Option<u128>,
    ) -> LineIndex {
        // A file grown past what its spacing was chosen for keeps every other checkpoint.
        while self.checkpoints.len() as u64 > MAX_CHECKPOINTS {
            self.checkpoints = self.checkpoints.iter().copied().step_by(2).collect();
            self.spacing = self.spacing.saturating_mul(2);
        }
        let text = self.text;
        LineIndex {
            piece: chunk.min(usize::try_from(self.spacing).unwrap_or(usize::MAX)),
            spacing: self.spacing,
            checkpoints: self.checkpoints,
            line_count: text.newlines + u64::from(text.ends_unterminated()),
            unterminated: text.ends_unterminated(),
            facts: TextFacts {
                file_len,
                binary,
                bom,
                line_ending: LineEnding::from_counts(text.newlines, text.crlfs),
                valid_utf8: text.utf8.valid(),
            },
            content_hash,
            ends,
            text,
        }
    }
}

/// The bytes at either end of what a scan read that [`Ends`] records.
const END_BYTES: usize = 4096;

/// What a scan read at either end of a file's bytes: its first [`END_BYTES`] (BOM and all)
/// and the last ones of its text, hashed. A file found longer later, with the same inode and
/// the same bytes at these two places, is taken to have grown from them, as a log being
/// written does: a file rewritten from its start shows at its head (a log's first line has
/// its time), one cut and written again at its tail. A write into the middle of a growing
/// file, which a log's writer does not make, is not seen until the file is scanned again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Ends {
    /// The bytes hashed at the head: fewer than [`END_BYTES`] in a shorter file.
    head_len: usize,
    head: u64,
    tail: u64,
}

fn end_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The fewest text bytes between checkpoints: a page of a file reads at most about two
/// spacings beside its window, so this keeps a page's cost near a small file's read.
const MIN_CHECKPOINT_BYTES: u64 = 16 * 1024;

/// The most checkpoints one [`LineIndex`] holds (512 KiB of them): a 1 GiB file has one
/// every 16 KiB; a larger file, one every power of two times that.
const MAX_CHECKPOINTS: u64 = 65_536;

/// The spacing of checkpoints for a text of `file_len` bytes: `least` doubled until at most
/// `max_checkpoints` checkpoints cover the text.
fn checkpoint_bytes(file_len: u64, least: u64, max_checkpoints: u64) -> u64 {
    let mut spacing = least.max(1);
    while file_len.div_ceil(spacing) > max_checkpoints.max(1) {
        spacing = spacing.saturating_mul(2);
    }
    spacing
}

/// Where a file's lines lie, as a full scan found them: the newlines before each
/// checkpoint, and the facts of the whole text. With it, any window is found by reading
/// about two checkpoint spacings beside the window itself ([`window_from_index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Bytes read at a time when the index is used.
    piece: usize,
    /// Text bytes from one checkpoint to the next.
    spacing: u64,
    /// Newlines before text offset `i * spacing`, for each checkpoint.
    checkpoints: Vec<u64>,
    line_count: u64,
    unterminated: bool,
    facts: TextFacts,
    /// The content hash of the file's bytes (as [`crate::FileVersion::of`] hashes them),
    /// unless it is binary, or the index was extended.
    content_hash: Option<u128>,
    /// What the scan read at either end of the bytes.
    ends: Ends,
    /// The text's state at its end, to extend the index from.
    text: TextStream,
}

impl LineIndex {
    /// The facts of the file's whole text.
    pub fn facts(&self) -> &TextFacts {
        &self.facts
    }

    /// The content hash of the bytes it was made from, if they were hashed.
    pub fn content_hash(&self) -> Option<u128> {
        self.content_hash
    }

    /// This index, for bytes whose content hash is `hash`.
    pub fn with_content_hash(self, hash: u128) -> LineIndex {
        LineIndex {
            content_hash: Some(hash),
            ..self
        }
    }

    /// Whether `source` holds, at either end of the bytes this index was made from, what the
    /// scan read there ([`Ends`]): then a longer file of the same inode grew from them.
    pub fn ends_match(&self, source: &(impl ReadAt + ?Sized)) -> Result<bool, ScanError> {
        if self.facts.binary {
            return Ok(false);
        }
        let mut head = vec![0u8; self.ends.head_len];
        read_exactly(source, &mut head, 0)?;
        let tail_len = self.text_len().min(END_BYTES as u64);
        let mut tail = vec![0u8; tail_len as usize];
        read_exactly(source, &mut tail, self.facts.file_len - tail_len)?;
        Ok(end_hash(&head) == self.ends.head && end_hash(&tail) == self.ends.tail)
    }

    /// This index extended to the first `file_len` bytes of `source`, which begin with the
    /// bytes it was made from (see [`LineIndex::ends_match`]): only the bytes past them are
    /// read, as `pace` says. An extended index has no content hash.
    pub fn extended(
        &self,
        source: &(impl ReadAt + ?Sized),
        file_len: u64,
        pace: ScanPace,
    ) -> Result<LineIndex, ScanError> {
        let chunk = pace.chunk.max(1);
        let text_start = self.text_start();
        let mut indexer = Indexer {
            text: self.text.clone(),
            spacing: self.spacing,
            checkpoints: self.checkpoints.clone(),
            tail: Vec::new(),
        };
        let mut buffer = Vec::new();
        let mut offset = self.facts.file_len;
        let mut tail_hash = self.ends.tail;
        while offset < file_len {
            if pace.stopped() {
                return Err(ScanError::Stopped);
            }
            buffer.resize(chunk.min((file_len - offset) as usize), 0);
            read_exactly(source, &mut buffer, offset)?;
            indexer.feed(&buffer, offset - text_start);
            offset += buffer.len() as u64;
        }
        if indexer.tail.len() < END_BYTES && file_len > self.facts.file_len {
            // Fewer new bytes than an end: the end is read whole, old bytes and new.
            let tail_len = (file_len - text_start).min(END_BYTES as u64);
            let mut tail = vec![0u8; tail_len as usize];
            read_exactly(source, &mut tail, file_len - tail_len)?;
            indexer.tail = tail;
        }
        if file_len > self.facts.file_len {
            tail_hash = end_hash(&indexer.tail);
        }
        let ends = Ends {
            tail: tail_hash,
            ..self.ends
        };
        let kind = (self.facts.binary, self.facts.bom);
        Ok(indexer.finish(chunk, file_len, kind, ends, None))
    }

    /// Bytes it holds, beside its own size.
    fn heap_bytes(&self) -> usize {
        self.checkpoints.len() * std::mem::size_of::<u64>()
    }

    fn text_start(&self) -> u64 {
        if self.facts.bom {
            UTF8_BOM.len() as u64
        } else {
            0
        }
    }

    fn text_len(&self) -> u64 {
        if self.facts.binary {
            0
        } else {
            self.facts.file_len - self.text_start()
        }
    }
}

/// The text of the file a [`LineIndex`] was made from, read a piece at a time; the last
/// piece read is kept, so that the lookups of one window mostly read it once.
struct IndexedText<'a, S: ReadAt + ?Sized> {
    source: &'a S,
    index: &'a LineIndex,
    buffer: Vec<u8>,
    /// The text offset and length of the piece in `buffer`.
    held: (u64, usize),
}

impl<S: ReadAt + ?Sized> IndexedText<'_, S> {
    /// The text from offset `at` to the end of a piece (at most the buffer's length).
    fn piece(&mut self, at: u64) -> Result<&[u8], ScanError> {
        let (held_at, held_len) = self.held;
        if !(held_at..held_at + held_len as u64).contains(&at) {
            let want = self.buffer.len().min((self.index.text_len() - at) as usize);
            read_exactly(
                self.source,
                &mut self.buffer[..want],
                self.index.text_start() + at,
            )?;
            self.held = (at, want);
        }
        let (held_at, held_len) = self.held;
        Ok(&self.buffer[(at - held_at) as usize..held_len])
    }

    /// The text offset of the `n`-th newline (from 1), found from the checkpoint before it;
    /// `None` when the text has fewer.
    fn newline(&mut self, n: u64) -> Result<Option<u64>, ScanError> {
        let newlines = self.index.line_count - u64::from(self.index.unterminated);
        if n == 0 || n > newlines {
            return Ok(None);
        }
        let checkpoints = &self.index.checkpoints;
        let before = checkpoints.partition_point(|&seen| seen < n) - 1;
        let mut seen = checkpoints[before];
        let mut at = before as u64 * self.index.spacing;
        loop {
            let bytes = self.piece(at)?;
            if bytes.is_empty() {
                return Err(ScanError::Changed);
            }
            match window::nth_newline(bytes, n - seen - 1) {
                Ok(newline) => return Ok(Some(at + newline as u64)),
                Err(in_piece) => seen += in_piece,
            }
            at += bytes.len() as u64;
        }
    }

    /// The text the piece held has from offset `at` to its end, if it holds `at` (or ends
    /// there: then empty).
    fn held_from(&self, at: u64) -> Option<&[u8]> {
        let (held_at, held_len) = self.held;
        let from = usize::try_from(at.checked_sub(held_at)?).ok()?;
        self.buffer[..held_len].get(from..)
    }

    /// The text offset of the first newline from offset `at` in the piece held, if it holds
    /// one there: the line that starts at `at` ends at it, found without counting again from
    /// a checkpoint.
    fn held_newline_from(&self, at: u64) -> Option<u64> {
        let newline = memchr::memchr(b'\n', self.held_from(at)?)?;
        Some(at + newline as u64)
    }

    /// The text from offset `from` to `to` (a few bytes): from the piece held when it holds
    /// them (a window's first line ends in it, but for a long line), else read.
    fn bytes(&mut self, from: u64, to: u64) -> Result<Vec<u8>, ScanError> {
        let len = usize::try_from(to - from).unwrap_or(usize::MAX);
        if let Some(held) = self.held_from(from).and_then(|held| held.get(..len)) {
            return Ok(held.to_vec());
        }
        let mut bytes = vec![0u8; len];
        read_exactly(self.source, &mut bytes, self.index.text_start() + from)?;
        Ok(bytes)
    }

    /// Where line `line` (from 1, at most the line count) starts, and where its text ends
    /// (at its `\n`, the `\r` before it, or the end of the text).
    fn line(&mut self, line: u64) -> Result<(u64, u64), ScanError> {
        let start = match self.newline(line - 1)? {
            Some(newline) => newline + 1,
            None => 0,
        };
        let newline = match self.held_newline_from(start) {
            Some(newline) => Some(newline),
            None => self.newline(line)?,
        };
        let end = match newline {
            Some(newline) if newline > start && self.bytes(newline - 1, newline)? == b"\r" => {
                newline - 1
            }
            Some(newline) => newline,
            None => self.index.text_len(),
        };
        Ok((start, end))
    }
}

/// The window `ask` of the file `index` was made from, read from where the window starts
/// (found from the checkpoints) to its end, or as far as `ask.keep` asks. The caller makes
/// sure the file is that one, unchanged.
pub fn window_from_index(
    source: &(impl ReadAt + ?Sized),
    index: &LineIndex,
    ask: WindowAsk,
) -> Result<Scanned, ScanError> {
    let ask = match ask.lines_from_end {
        Some(n) => WindowAsk {
            start_line: index.line_count.saturating_sub(n).saturating_add(1),
            lines_from_end: None,
            ..ask
        },
        None => ask,
    };
    let empty = Scanned {
        kept: Vec::new(),
        returned_line_count: 0,
        next_start_line: None,
        line_count: index.line_count,
        start_column: 1,
        first_line_len: 0,
        facts: index.facts,
        content_hash: index.content_hash,
        growing: false,
    };
    if index.facts.binary || ask.start_line > index.line_count {
        return Ok(empty);
    }
    let mut text = IndexedText {
        source,
        index,
        buffer: vec![0u8; index.piece],
        held: (0, 0),
    };
    let (line_start, line_end) = text.line(ask.start_line)?;
    let start = if ask.start_column <= 1 {
        line_start
    } else {
        let skip = (ask.start_column - 1).min(line_end - line_start);
        let at = line_start + skip;
        // A character holding `at` starts at most 3 bytes before it and ends 3 after; the
        // piece read from there is the one the window is then read from.
        let from = at.saturating_sub(3).max(line_start);
        let want = ((line_end - from) as usize).min(7);
        let piece = text.piece(from)?;
        let unit = match piece.get(..want) {
            Some(around) => window::unit_start(around, (at - from) as usize),
            None => {
                window::unit_start(&text.bytes(from, from + want as u64)?, (at - from) as usize)
            }
        };
        from + unit as u64
    };
    let mut scanned = Scanned {
        start_column: start - line_start + 1,
        first_line_len: line_end - start,
        ..empty
    };
    let text_len = index.text_len();
    let wanted = u64::from(ask.max_lines);
    let (mut at, mut newlines) = (start, 0u64);
    let mut kept = Kept::of(index.facts.line_ending);
    let end = loop {
        if at >= text_len || kept.enough(&scanned.kept, ask.keep) {
            break None;
        }
        let bytes = text.piece(at)?;
        let (part, end) = match window::nth_newline(bytes, wanted - newlines - 1) {
            Ok(last) => {
                newlines = wanted;
                (&bytes[..last + 1], Some(at + last as u64 + 1))
            }
            Err(in_piece) => {
                newlines += in_piece;
                (bytes, None)
            }
        };
        kept.take(&mut scanned.kept, part, ask.keep);
        at += part.len() as u64;
        if end.is_some() {
            break end;
        }
    };
    let (returned, next) = match end {
        Some(end) => (wanted, (end < text_len).then(|| ask.start_line + wanted)),
        None if at >= text_len => (newlines + u64::from(index.unterminated), None),
        // Read no further than `keep` asks: at least the lines begun.
        None => (newlines + 1, Some(ask.start_line + newlines + 1)),
    };
    scanned.returned_line_count = returned as u32;
    scanned.next_start_line = next;
    Ok(scanned)
}

/// What a window keeps of its bytes: enough to decode to `keep` bytes of text.
struct Kept {
    /// Whether the text has a `\r\n`, which decodes to one byte.
    has_crlf: bool,
    /// The `\r` bytes kept (counted in a text with a `\r\n`): each may begin one.
    carriage_returns: usize,
}

impl Kept {
    fn of(line_ending: LineEnding) -> Kept {
        Kept {
            has_crlf: matches!(line_ending, LineEnding::Crlf | LineEnding::Mixed),
            carriage_returns: 0,
        }
    }

    /// The bytes of text `kept` surely decodes to: its bytes less the `\r\n` pairs it may
    /// hold.
    fn surely_decoded(&self, kept: &[u8]) -> usize {
        kept.len() - self.carriage_returns.min(kept.len() / 2)
    }

    /// Whether `kept` surely decodes to at least `keep` bytes.
    fn enough(&self, kept: &[u8], keep: usize) -> bool {
        self.surely_decoded(kept) >= keep
    }

    /// Appends to `kept` the first bytes of `bytes` until it is [`Kept::enough`], a part
    /// at a time: as many as would do if no more `\r` came.
    fn take(&mut self, kept: &mut Vec<u8>, mut bytes: &[u8], keep: usize) {
        while !bytes.is_empty() && !self.enough(kept, keep) {
            let (part, rest) = bytes.split_at((keep - self.surely_decoded(kept)).min(bytes.len()));
            if self.has_crlf {
                self.carriage_returns += memchr::memchr_iter(b'\r', part).count();
            }
            kept.extend_from_slice(part);
            bytes = rest;
        }
    }
}

/// The line indexes of the files a toolkit read last, each keyed by the file's
/// [`identity`] when it was scanned: a file changed since has another key, so its index is
/// used again only to extend it (a file that grew, [`LineIndexCache::get_shorter`]), and is
/// replaced by the next index of that file, or forgotten as the least recently used.
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

    /// The index of an earlier, shorter state of the file whose status is `stat` (the same
    /// device and inode, fewer bytes), the latest remembered: a log being written, if its
    /// [`LineIndex::ends_match`].
    pub fn get_shorter(&self, stat: &Stat) -> Option<Arc<LineIndex>> {
        let key = identity(stat);
        let entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        entries
            .iter()
            .rev()
            .find(|(entry, index)| {
                entry[..2] == key[..2] && (index.facts.file_len as i128) < key[2]
            })
            .map(|(_, index)| index.clone())
    }

    /// Remembers `index` as the one of the file whose status is `stat`.
    pub fn insert(&self, stat: &Stat, index: LineIndex) {
        self.insert_shared(stat, Arc::new(index));
    }

    /// [`LineIndexCache::insert`] of an index already shared.
    pub fn insert_shared(&self, stat: &Stat, index: Arc<LineIndex>) {
        let key = identity(stat);
        let mut entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // One index a file: an older state of it (a log's, before it grew) is of no more use.
        entries.retain(|(entry, _)| entry[..2] != key[..2]);
        if entries.len() >= LINE_INDEX_CAPACITY {
            entries.remove(0);
        }
        entries.push((key, index));
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
    file: &OwnedFd,
    stat: &Stat,
    ask: WindowAsk,
    pace: ScanPace,
    max_len: u64,
    indexes: Option<&LineIndexCache>,
) -> Result<(Scanned, Stat), ScanUnchangedError> {
    let mut before = *stat;
    for _ in 0..2 {
        let len = u64::try_from(before.st_size).unwrap_or(0);
        if len > max_len {
            return Err(ScanUnchangedError::TooLarge(len));
        }
        let known = indexes.and_then(|indexes| indexes.get(&before));
        let shorter = match known {
            Some(_) => None,
            None => indexes.and_then(|indexes| indexes.get_shorter(&before)),
        };
        // A file that grew since it was last read is a log being written: it is read as it
        // is now, from its old index, and a write in the tick of the last one is seen by the
        // status after (its length), or by the next read.
        if shorter.is_none() {
            wait_until_settled(&before);
        }
        wait_for_writes_in_progress(file);
        let scanned = match (known, shorter) {
            (Some(index), _) => {
                window_from_index(file, &index, ask).map(|scanned| (scanned, index, false))
            }
            (None, shorter) => indexed(file, len, pace, shorter.as_deref()).and_then(|index| {
                let scanned = window_from_index(file, &index, ask)?;
                Ok((scanned, Arc::new(index), true))
            }),
        };
        let after = rustix::fs::fstat(file).map_err(io::Error::from)?;
        match scanned {
            Ok((scanned, index, new)) if same_version(&before, &after) => {
                if let (Some(indexes), true) = (indexes, new) {
                    indexes.insert_shared(&after, index);
                }
                return Ok((scanned, after));
            }
            // Grown while it was read: the window of the bytes it had when the read began.
            Ok((scanned, index, new))
                if grew(&before, &after) && index.ends_match(file).unwrap_or(false) =>
            {
                if let (Some(indexes), true) = (indexes, new) {
                    indexes.insert_shared(&before, index);
                }
                let growing = Scanned {
                    growing: true,
                    ..scanned
                };
                return Ok((growing, before));
            }
            Ok(_) | Err(ScanError::Changed) => before = after,
            Err(ScanError::Stopped) => return Err(ScanUnchangedError::Stopped),
            Err(ScanError::Io(err)) => return Err(err.into()),
        }
    }
    Err(ScanUnchangedError::Changed)
}

/// The index of the first `len` bytes of `file`: `shorter` extended when it is the index of
/// fewer of them that the file still begins with, else a new scan.
fn indexed(
    file: &OwnedFd,
    len: u64,
    pace: ScanPace,
    shorter: Option<&LineIndex>,
) -> Result<LineIndex, ScanError> {
    match shorter {
        Some(shorter) if shorter.ends_match(file)? => shorter.extended(file, len, pace),
        _ => index_file(file, len, pace),
    }
}

/// Whether the file whose status was `before` only grew by `after`, as far as its status
/// tells: the same device and inode, more bytes.
fn grew(before: &Stat, after: &Stat) -> bool {
    let (before, after) = (identity(before), identity(after));
    before[..2] == after[..2] && after[2] > before[2]
}

/// Waits for a write to `file` that is in progress to end, where the file system lets a
/// reader wait for it: a write stamps the file's times when it begins, so one that began
/// before `before` was taken and is still copying its bytes (a large write, its writer
/// descheduled) leaves the times as they were while the scan sees its bytes half-written.
/// Seeking for data takes the inode's lock, which the write holds to its end (Linux's
/// ext4, tmpfs and btrfs; other systems answer at once). Its answer does not matter.
pub fn wait_for_writes_in_progress(file: impl AsFd) {
    let _ = rustix::fs::seek(file, rustix::fs::SeekFrom::Data(0));
}

/// Why [`scan_unchanged`] gave no answer.
#[derive(Debug)]
pub enum ScanUnchangedError {
    /// The file changed during both scans.
    Changed,
    /// The file is this many bytes, over the limit.
    TooLarge(u64),
    /// Its caller set the stop flag.
    Stopped,
    Io(io::Error),
}

impl From<io::Error> for ScanUnchangedError {
    fn from(err: io::Error) -> Self {
        ScanUnchangedError::Io(err)
    }
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct TextStream {
    newlines: u64,
    crlfs: u64,
    last: Option<u8>,
    utf8: Utf8Check,
}

impl TextStream {
    fn feed(&mut self, bytes: &[u8]) {
        self.newlines += window::count_newlines(bytes);
        // Most text has no `\r` at all: one fast search tells, before any pair is counted.
        if memchr::memchr(b'\r', bytes).is_some() {
            self.crlfs += memchr::memmem::find_iter(bytes, b"\r\n").count() as u64;
        }
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

/// Whether a byte stream is valid UTF-8, fed in pieces that may split a character.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Utf8Check {
    invalid: bool,
    /// The start of a character the last piece ended inside (at most 3 bytes).
    carry: Vec<u8>,
}

impl Utf8Check {
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
        while let Err(error) = std::str::from_utf8(bytes) {
            let valid = error.valid_up_to();
            let Some(invalid) = error.error_len() else {
                self.carry = bytes[valid..].to_vec();
                return;
            };
            self.invalid = true;
            bytes = &bytes[valid + invalid..];
        }
    }

    /// Whether everything fed is valid: an unfinished character at the end is not.
    fn valid(&self) -> bool {
        !self.invalid && self.carry.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pace(chunk: usize) -> ScanPace<'static> {
        ScanPace {
            chunk,
            stop: None,
            hash: true,
        }
    }

    /// A file of [`HASH_BESIDE_FROM_BYTES`] or more is hashed on a thread beside the scan:
    /// the same hash, BOM and all, as the bytes hashed whole; none when not asked for.
    #[test]
    fn a_large_file_hashed_beside_the_scan_has_its_whole_bytes_hash() {
        let mut bytes = UTF8_BOM.to_vec();
        bytes.extend(b"line\n".repeat(HASH_BESIDE_FROM_BYTES as usize / 5 + 7));
        let whole = crate::FileVersion::of(String::new(), &bytes, 0).hash;
        for chunk in [4096, CHUNK_BYTES, 3 << 20] {
            let index = index_file(&bytes[..], bytes.len() as u64, pace(chunk)).unwrap();
            assert_eq!(index.content_hash(), Some(whole), "chunk {chunk}");
        }
        let unhashed = ScanPace {
            hash: false,
            ..pace(CHUNK_BYTES)
        };
        let index = index_file(&bytes[..], bytes.len() as u64, unhashed).unwrap();
        assert_eq!(index.content_hash(), None);
    }

    #[test]
    fn a_scan_stops_at_the_next_chunk_once_its_caller_says_so() {
        let stop = AtomicBool::new(false);
        let source = Counted::new(b"line\n".repeat(10_000));
        let pace = ScanPace {
            chunk: 4096,
            stop: Some(&stop),
            hash: true,
        };
        assert!(index_file(&source, 50_000, pace).is_ok());
        stop.store(true, Ordering::Relaxed);
        source.1.set(0);
        let stopped = index_file(&source, 50_000, pace);
        assert!(matches!(stopped, Err(ScanError::Stopped)), "{stopped:?}");
        // The head (for a binary file's NUL) is read before the first chunk.
        assert_eq!(source.1.get(), 8192);
    }

    /// The window from `(start_line, start_column)`, whole, found in an index of the text
    /// read `chunk` bytes at a time with a checkpoint every `spacing` bytes.
    fn scanned(text: &[u8], from: (u64, u64), max_lines: u32, chunk: usize) -> Scanned {
        let ask = WindowAsk {
            start_line: from.0,
            lines_from_end: None,
            start_column: from.1,
            max_lines,
            keep: usize::MAX,
        };
        let index = index_file_spaced(text, text.len() as u64, pace(chunk), 3).unwrap();
        window_from_index(text, &index, ask).unwrap()
    }

    #[test]
    fn a_window_found_across_chunks_is_the_whole_texts() {
        let text = b"one\r\ntwo\nthree\nfour";
        for chunk in 1..=text.len() + 1 {
            let s = scanned(text, (2, 1), 2, chunk);
            assert_eq!(s.kept, b"two\nthree\n", "chunk {chunk}");
            assert_eq!((s.returned_line_count, s.next_start_line), (2, Some(4)));
            assert_eq!(s.line_count, 4);
            assert_eq!(s.facts.line_ending, LineEnding::Mixed);
            let whole = crate::FileVersion::of(String::new(), text, 0);
            assert_eq!(s.content_hash, Some(whole.hash), "chunk {chunk}");
            assert_eq!(scanned(text, (4, 1), 9, chunk).kept, b"four");
            let from_column = scanned(text, (1, 3), 1, chunk);
            assert_eq!(from_column.kept, b"e\r\n");
            assert_eq!(
                (from_column.start_column, from_column.first_line_len),
                (3, 1)
            );
        }
    }

    #[test]
    fn a_first_line_is_measured_in_stored_bytes() {
        // "é" split across chunks, an invalid byte, then \r\n: 4 bytes of text.
        let bytes = b"a\xC3\xA9\xFF\r\nz";
        for chunk in 1..=8 {
            let s = scanned(bytes, (1, 1), 1, chunk);
            assert_eq!(s.first_line_len, 4, "chunk {chunk}");
            assert!(!s.facts.valid_utf8);
            // Column 3 is inside "é": the window starts at it, column 2.
            let s = scanned(bytes, (1, 3), 1, chunk);
            assert_eq!((s.start_column, s.first_line_len), (2, 3));
        }
    }

    #[test]
    fn an_index_is_of_the_bytes_asked_and_a_file_ending_sooner_is_a_change() {
        let text: &[u8] = b"abc\n";
        // A file longer than measured grew: the index is of what was measured.
        let first_three = index_file(text, 3, pace(2)).unwrap();
        assert_eq!((first_three.line_count, first_three.facts.file_len), (1, 3));
        assert!(first_three.unterminated);
        assert!(matches!(
            index_file(text, 5, pace(2)),
            Err(ScanError::Changed)
        ));
    }

    #[test]
    fn a_nul_in_the_head_stops_the_scan() {
        let s = scanned(b"ab\0\ncd\n", (1, 1), 5, 2);
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
        fn the_indexed_window_is_the_whole_texts(
            text in text_strategy(),
            start_line in 1u64..30,
            start_column in proptest::prop_oneof![proptest::strategy::Just(1u64), 1u64..12],
            max_lines in 1u32..8,
            chunk in 1usize..24,
            spacing in 1u64..40,
            keep in 0usize..40,
        ) {
            let whole_text = window::strip_bom(&text);
            let (whole, column) =
                window::line_window_from(whole_text, start_line, start_column, max_lines);
            let index = index_file_spaced(&text[..], text.len() as u64, pace(chunk), spacing).unwrap();
            let ask = WindowAsk { start_line, lines_from_end: None, start_column, max_lines, keep: usize::MAX };
            let s = window_from_index(&text[..], &index, ask).unwrap();
            proptest::prop_assert_eq!(&s.kept[..], &whole_text[whole.bytes.clone()]);
            proptest::prop_assert_eq!(s.returned_line_count, whole.returned_line_count);
            proptest::prop_assert_eq!(s.next_start_line, whole.next_start_line);
            proptest::prop_assert_eq!(s.line_count, whole.line_count);
            if !whole.bytes.is_empty() || s.returned_line_count > 0 {
                proptest::prop_assert_eq!(s.start_column, column);
                let line_end = window::line_text_end(whole_text, whole.bytes.start);
                proptest::prop_assert_eq!(s.first_line_len, (line_end - whole.bytes.start) as u64);
            }
            let version = crate::FileVersion::of(String::new(), &text, 0);
            proptest::prop_assert_eq!(s.facts.line_ending, version.line_ending);
            proptest::prop_assert_eq!(s.facts.bom, version.bom);
            proptest::prop_assert_eq!(s.facts.valid_utf8, version.valid_utf8);
            // Hashed as it streams past, in pieces of any size: the content hash of the bytes.
            let hash = (!s.facts.binary).then_some(version.hash);
            proptest::prop_assert_eq!(s.content_hash, hash);
            // Kept short, it is the window's first bytes: all of them, or enough to decode
            // to `keep` bytes, and at most twice that many.
            let ask = WindowAsk { keep, ..ask };
            let short = window_from_index(&text[..], &index, ask).unwrap();
            proptest::prop_assert_eq!(&short.kept[..], &s.kept[..short.kept.len()]);
            if short.kept.len() < s.kept.len() {
                proptest::prop_assert!(window::decode(&short.kept).len() >= keep);
                proptest::prop_assert!(short.kept.len() <= 2 * keep);
            }
        }
    }

    /// Bytes in memory that count what is read of them, and the reads.
    struct Counted(Vec<u8>, std::cell::Cell<u64>, std::cell::Cell<u32>);

    impl Counted {
        fn new(bytes: Vec<u8>) -> Counted {
            Counted(bytes, std::cell::Cell::new(0), std::cell::Cell::new(0))
        }
    }

    impl ReadAt for Counted {
        fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
            let read = self.0.read_at(buffer, offset)?;
            self.1.set(self.1.get() + read as u64);
            self.2.set(self.2.get() + 1);
            Ok(read)
        }
    }

    fn ask(start_line: u64, start_column: u64, keep: usize) -> WindowAsk {
        WindowAsk {
            start_line,
            lines_from_end: None,
            start_column,
            max_lines: 10,
            keep,
        }
    }

    #[test]
    fn with_its_index_a_page_reads_about_two_spacings_beside_its_window() {
        let text: String = (0..100_000).map(|i| format!("{i:07}\n")).collect();
        let source = Counted::new(text.into_bytes());
        let index = index_file_spaced(&source, 800_000, pace(4096), 1024).unwrap();
        assert_eq!(source.1.replace(0), 800_000 + 8192);
        assert_eq!(index.heap_bytes(), 782 * 8);
        let page = window_from_index(&source, &index, ask(77_777, 1, usize::MAX)).unwrap();
        assert_eq!(page.kept, &source.0[77_776 * 8..77_786 * 8]);
        assert_eq!(
            (page.line_count, page.next_start_line),
            (100_000, Some(77_787))
        );
        assert!(source.1.get() <= 2 * 1024, "read {}", source.1.get());
        // With the spacing a 800 KB file gets, and at most 10 checkpoints.
        assert_eq!(
            checkpoint_bytes(800_000, MIN_CHECKPOINT_BYTES, 65_536),
            16_384
        );
        assert_eq!(checkpoint_bytes(800_000, 1024, 10), 131_072);
    }

    #[test]
    fn a_window_of_short_lines_is_read_in_one_piece() {
        for ending in ["\n", "\r\n"] {
            let text: String = (0..10_000)
                .map(|i| format!("line {i:05}{ending}"))
                .collect();
            let source = Counted::new(text.into_bytes());
            let len = source.0.len() as u64;
            let index = index_file_spaced(&source, len, pace(4096), 1024).unwrap();
            source.2.set(0);
            for start_line in [1, 2, 5_000] {
                let page = window_from_index(&source, &index, ask(start_line, 1, usize::MAX));
                let kept = page.unwrap().kept;
                let lines: Vec<&str> = std::str::from_utf8(&kept).unwrap().lines().collect();
                assert_eq!(lines[0], format!("line {:05}", start_line - 1));
                assert_eq!(lines.len(), 10);
                // The first line's end, `\r` or not, is told from the piece read.
                assert_eq!(source.2.replace(0), 1, "{ending:?} from line {start_line}");
            }
        }
    }

    #[test]
    fn a_page_deep_inside_a_long_line_reads_about_two_spacings_beside_its_window() {
        // One 8 MB line, then a short one.
        let mut bytes = b"0123456789".repeat(800_000);
        bytes.extend_from_slice(b"\nend\n");
        let len = bytes.len() as u64;
        let source = Counted::new(bytes);
        let index = index_file_spaced(&source, len, pace(65_536), 16_384).unwrap();
        source.1.set(0);
        let page = window_from_index(&source, &index, ask(1, 7_000_001, 100)).unwrap();
        assert_eq!(page.kept, b"0123456789".repeat(10));
        assert_eq!(
            (page.start_column, page.first_line_len),
            (7_000_001, 1_000_000)
        );
        assert!(
            source.1.get() <= 2 * 16_384 + 200,
            "read {}",
            source.1.get()
        );
    }

    /// A same-size rewrite by one large write, under way when a read begins: its times were
    /// stamped when it began, so only waiting for it to end keeps its half-written bytes out
    /// of a scan. Where the file system lets a reader wait (ext4, tmpfs, btrfs), the end of
    /// the file is the new version's once the wait is over, though the write filling a
    /// 256 MiB hole had only just begun.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_scan_waits_for_a_write_in_progress_to_end() {
        use crate::file_status::TIMESTAMP_TICK;
        use std::time::Duration;

        const LEN: u64 = 256 << 20;
        const WAITING_FILE_SYSTEMS: [u64; 3] = [0xEF53, 0x0102_1994, 0x9123_683E];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rewritten.log");
        let old = File::create(&path).unwrap();
        old.set_len(LEN).unwrap();
        let file = File::open(&path).unwrap();
        let kind = rustix::fs::fstatfs(&file).unwrap().f_type as u64;
        if !WAITING_FILE_SYSTEMS.contains(&kind) {
            return; // a writer here cannot be waited for
        }
        // Past a clock tick, the write's stamp differs from the truncation's.
        std::thread::sleep(TIMESTAMP_TICK);
        let unwritten = identity(&rustix::fs::fstat(&file).unwrap());
        let new = b"bbb\n".repeat((LEN / 4) as usize);
        let writer = std::thread::spawn(move || rustix::io::pwrite(&old, &new, 0).unwrap());
        let started = std::time::Instant::now();
        while identity(&rustix::fs::fstat(&file).unwrap()) == unwritten {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the write never began"
            );
            std::thread::yield_now();
        }
        wait_for_writes_in_progress(&file);
        let mut tail = [0u8; 4];
        file.read_at(&mut tail, LEN - 4).unwrap();
        assert_eq!(writer.join().unwrap(), LEN as usize);
        assert_eq!(
            &tail, b"bbb\n",
            "the end was read before the write in progress ended"
        );
    }

    #[test]
    fn the_cache_keeps_the_most_recent_indexes_one_a_file() {
        let cache = LineIndexCache::default();
        let files: Vec<File> = (0..=LINE_INDEX_CAPACITY)
            .map(|_| tempfile::tempfile().unwrap())
            .collect();
        let stat = |file: &File, len: i64| {
            let mut stat = rustix::fs::fstat(file).unwrap();
            stat.st_size = len;
            stat
        };
        let index = |text: &[u8]| index_file(text, text.len() as u64, pace(4)).unwrap();
        cache.insert(&stat(&files[0], 2), index(b"a\n"));
        for (n, file) in files.iter().enumerate().skip(1) {
            cache.insert(&stat(file, 2), index(b"b\n"));
            if n == 5 {
                assert!(cache.get(&stat(&files[0], 2)).is_some()); // used: now the most recent
            }
        }
        assert!(cache.get(&stat(&files[0], 2)).is_some());
        assert!(
            cache.get(&stat(&files[1], 2)).is_none(),
            "the least recently used is forgotten"
        );
        // A later state of a file replaces the earlier one.
        cache.insert(&stat(&files[0], 4), index(b"a\nb\n"));
        assert!(cache.get(&stat(&files[0], 2)).is_none());
        assert_eq!(cache.get(&stat(&files[0], 4)).unwrap().facts().file_len, 4);
        assert_eq!(cache.0.lock().unwrap().len(), LINE_INDEX_CAPACITY);
    }

    /// An index extended with the bytes a file grew by is the index a scan of the whole
    /// makes (but for its content hash), however the bytes fall into chunks and ends.
    #[test]
    fn an_extended_index_is_the_index_of_the_whole() {
        let text = "first line\r\nsecond é line\nthird\n".repeat(400);
        let bytes = [UTF8_BOM, text.as_bytes()].concat();
        for split in [3, 4, 5, 17, 4099, 8200, bytes.len() - 1, bytes.len()] {
            let old = index_file_spaced(&bytes[..], split as u64, pace(64), 3).unwrap();
            // `é` split across the two scans is carried over.
            let extended = old
                .extended(&bytes[..], bytes.len() as u64, pace(64))
                .unwrap();
            let whole = index_file_spaced(&bytes[..], bytes.len() as u64, pace(64), 3).unwrap();
            assert_eq!(extended.content_hash(), None);
            // The same but for the head the first scan hashed, which was shorter.
            let same = extended.checkpoints == whole.checkpoints
                && (extended.line_count, extended.unterminated, extended.facts)
                    == (whole.line_count, whole.unterminated, whole.facts)
                && (&extended.text, extended.ends.tail) == (&whole.text, whole.ends.tail);
            assert!(same, "split at {split}");
        }
    }

    #[test]
    fn an_index_matches_its_file_while_the_file_only_grows() {
        let log = b"2026-11-28 started\n".repeat(500);
        let index = index_file(&log[..], log.len() as u64, pace(1024)).unwrap();
        let grown = [&log[..], b"2026-11-28 one more\n"].concat();
        assert!(index.ends_match(&grown[..]).unwrap());
        let mut rewritten_head = grown.clone();
        rewritten_head[3] = b'7';
        assert!(!index.ends_match(&rewritten_head[..]).unwrap());
        let mut rewritten_tail = grown.clone();
        rewritten_tail[log.len() - 2] = b'X';
        assert!(!index.ends_match(&rewritten_tail[..]).unwrap());
        assert!(matches!(
            index.ends_match(&log[..100]),
            Err(ScanError::Changed)
        ));
    }

    fn appended(file: &mut File, lines: usize) {
        use std::io::Write;
        file.write_all(&b"a line of a log being written\n".repeat(lines))
            .unwrap();
        file.flush().unwrap();
    }

    fn window_of(file: &File, stat: &Stat, cache: &LineIndexCache) -> (Scanned, Stat) {
        let ask = WindowAsk {
            start_line: 1,
            lines_from_end: None,
            start_column: 1,
            max_lines: 2,
            keep: usize::MAX,
        };
        let file = OwnedFd::from(file.try_clone().unwrap());
        scan_unchanged(&file, stat, ask, pace(4096), u64::MAX, Some(cache)).unwrap()
    }

    /// Issue 35 §4: a log appended every few milliseconds was `FILE_CHANGED` on every read.
    /// A file that grows while it is read is answered as it was when the read began, and
    /// said to be growing; the next read extends the index instead of scanning it all.
    #[test]
    fn a_file_that_grows_while_it_is_read_is_answered_as_it_was() {
        let mut file = tempfile::tempfile().unwrap();
        appended(&mut file, 10_000);
        let cache = LineIndexCache::default();
        let before = rustix::fs::fstat(&file).unwrap();
        // Grown after the status the read begins from was taken: during the read.
        appended(&mut file, 5);
        let (scanned, stat) = window_of(&file, &before, &cache);
        assert!(scanned.growing);
        assert_eq!(
            (scanned.line_count, scanned.facts.file_len),
            (10_000, 300_000)
        );
        assert_eq!(identity(&stat), identity(&before));
        assert!(
            scanned.content_hash.is_some(),
            "the first read scans the file"
        );

        let now = rustix::fs::fstat(&file).unwrap();
        let (scanned, stat) = window_of(&file, &now, &cache);
        assert!(!scanned.growing);
        assert_eq!(scanned.line_count, 10_005);
        assert_eq!(identity(&stat), identity(&now));
        assert!(scanned.content_hash.is_none(), "the next extends the index");
    }

    #[test]
    fn a_file_rewritten_longer_is_scanned_again_not_extended() {
        let mut file = tempfile::tempfile().unwrap();
        appended(&mut file, 10_000);
        let cache = LineIndexCache::default();
        window_of(&file, &rustix::fs::fstat(&file).unwrap(), &cache);
        file.set_len(0).unwrap();
        rustix::fs::seek(&file, rustix::fs::SeekFrom::Start(0)).unwrap();
        std::io::Write::write_all(&mut file, b"a new log\n").unwrap();
        appended(&mut file, 10_100);
        let (scanned, _) = window_of(&file, &rustix::fs::fstat(&file).unwrap(), &cache);
        assert_eq!(scanned.line_count, 10_101);
        assert!(scanned.content_hash.is_some(), "scanned again");
        assert!(!scanned.growing);
    }
}
