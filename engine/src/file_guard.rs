//! The file guard: decides from a regular file's status whether it may be read (size) and
//! reads the part asked for with a hard bound, whatever size the file claims. It also
//! tells whether the file looks binary; what to do about that is the caller's policy.
//! (The sandbox has already refused anything that is not a regular file.)

use std::io;
use std::os::fd::{AsFd, OwnedFd};

use rustix::fs::Stat;

use crate::attempt::{Access, Attempt, Stop};

/// How many leading bytes are searched for a NUL byte to call a file binary.
pub const BINARY_SCAN_BYTES: usize = 8192;

/// Which part of a file to read, and the most bytes to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// The whole file; a file larger than `max` bytes is [`GuardError::TooLarge`].
    Whole { max: u64 },
    /// At most the first `max` bytes.
    Head { max: u64 },
    /// At most the last `max` bytes.
    Tail { max: u64 },
}

/// The bytes read from a regular file.
#[derive(Debug)]
pub struct FileBytes {
    pub bytes: Vec<u8>,
    /// Where `bytes` start in the file.
    pub offset: u64,
    /// The file's length when it was measured (its size on disk).
    pub file_len: u64,
    /// A NUL byte among the file's first [`BINARY_SCAN_BYTES`].
    pub binary: bool,
    /// Last modification, whole milliseconds since the epoch, rounded down.
    pub mtime_ms: i64,
}

impl FileBytes {
    /// Whether `bytes` are the whole file.
    pub fn is_whole(&self) -> bool {
        self.offset == 0 && self.bytes.len() as u64 >= self.file_len
    }
}

/// Why the guard refused a file.
#[derive(Debug)]
pub enum GuardError {
    /// Larger than the [`Span::Whole`] limit: the size seen and the limit, in bytes.
    TooLarge {
        len: u64,
        max: u64,
    },
    Io(io::Error),
}

impl From<io::Error> for GuardError {
    fn from(err: io::Error) -> Self {
        GuardError::Io(err)
    }
}

/// Checks the size of the regular file `handle` (for [`Span::Whole`]) from its status
/// `stat`, and reads `span` of it.
pub fn read_guarded(file: &OwnedFd, stat: &Stat, span: Span) -> Result<FileBytes, GuardError> {
    let file_len = u64::try_from(stat.st_size).unwrap_or(0);
    let (bytes, offset) = match span {
        Span::Whole { max } => (read_whole(file, file_len, max)?, 0),
        Span::Head { max } => (read_range(file, 0, file_len.min(max), max)?, 0),
        Span::Tail { max } => {
            let offset = file_len.saturating_sub(max);
            let len = file_len - offset;
            (read_range(file, offset, len, len)?, offset)
        }
    };
    let binary = if offset == 0 {
        is_binary(&bytes)
    } else {
        let scan = BINARY_SCAN_BYTES as u64;
        is_binary(&read_range(file, 0, scan, scan)?)
    };
    Ok(FileBytes {
        bytes,
        offset,
        file_len,
        binary,
        mtime_ms: mtime_ms(stat),
    })
}

/// All of `file`, measured at `file_len` bytes, if it is at most `max` bytes: refused before
/// it is read when it measured more, or once a byte more than `max` was read when it grew.
pub fn read_whole(file: impl AsFd, file_len: u64, max: u64) -> Result<Vec<u8>, GuardError> {
    check_size(file_len, max)?;
    let bytes = read_range(file, 0, file_len, max.saturating_add(1))?;
    // The file may have grown since it was measured: the bytes read are what counts.
    check_size(bytes.len() as u64, max)?;
    Ok(bytes)
}

/// `span` of the regular file `handle` (its status `stat`) as `access` allows: where
/// waiting is allowed [`read_guarded`]; from memory a whole file only, by
/// [`read_whole_from_memory`], and any other span [`Stop::WouldBlock`].
pub fn read_span(
    handle: &OwnedFd,
    stat: &Stat,
    span: Span,
    access: Access,
) -> Attempt<FileBytes, GuardError> {
    match (access, span) {
        (Access::MayWait, span) => read_guarded(handle, stat, span).map_err(Stop::Failed),
        (Access::FromMemory, Span::Whole { max }) => read_whole_from_memory(handle, stat, max),
        (Access::FromMemory, Span::Head { .. } | Span::Tail { .. }) => Err(Stop::WouldBlock),
    }
}

/// The largest file read by [`read_whole_from_memory`]: a larger one is read where waiting is
/// allowed, so that no read holds an event loop for long (the benchmark README has what
/// reading this much from the page cache costs).
pub const MAX_FROM_MEMORY_BYTES: u64 = 256 * 1024;

/// [`read_guarded`] of [`Span::Whole`], for a thread that must not wait: only from the page
/// cache (`preadv2(RWF_NOWAIT)`), and only a file of at most [`MAX_FROM_MEMORY_BYTES`]
/// read whole in one call at the size measured. Anything else (a page not in memory, a
/// file that grew or shrank, a file system without `RWF_NOWAIT`) is
/// [`Stop::WouldBlock`], to be read by [`read_guarded`] where waiting is allowed.
pub fn read_whole_from_memory(
    handle: &OwnedFd,
    stat: &Stat,
    max: u64,
) -> Attempt<FileBytes, GuardError> {
    let file_len = u64::try_from(stat.st_size).unwrap_or(0);
    check_size(file_len, max)?;
    if file_len > MAX_FROM_MEMORY_BYTES {
        return Err(Stop::WouldBlock);
    }
    // One byte more than measured: reading it shows the file grew.
    let mut bytes = vec![0u8; file_len as usize + 1];
    let read = read_from_page_cache(handle, &mut bytes, 0).ok_or(Stop::WouldBlock)?;
    if read as u64 != file_len {
        return Err(Stop::WouldBlock);
    }
    bytes.truncate(read);
    Ok(FileBytes {
        binary: is_binary(&bytes),
        bytes,
        offset: 0,
        file_len,
        mtime_ms: mtime_ms(stat),
    })
}

/// Reads from `offset` in `file` into `buffer` what the page cache holds; `None` when
/// that would wait for the disk (or cannot be told: no `RWF_NOWAIT` here).
#[cfg(target_os = "linux")]
pub(crate) fn read_from_page_cache(
    file: &OwnedFd,
    buffer: &mut [u8],
    offset: u64,
) -> Option<usize> {
    use rustix::io::{Errno, IoSliceMut, ReadWriteFlags};
    loop {
        let mut buffers = [IoSliceMut::new(buffer)];
        match rustix::io::preadv2(file, &mut buffers, offset, ReadWriteFlags::NOWAIT) {
            Ok(read) => return Some(read),
            Err(Errno::INTR) => continue,
            Err(_) => return None,
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn read_from_page_cache(
    _file: &OwnedFd,
    _buffer: &mut [u8],
    _offset: u64,
) -> Option<usize> {
    None
}

fn check_size(len: u64, max: u64) -> Result<(), GuardError> {
    if len > max {
        Err(GuardError::TooLarge { len, max })
    } else {
        Ok(())
    }
}

/// The most bytes allocated before any is read: a read larger than this grows its buffer
/// as the bytes arrive, so a size that a configuration or a stale status claims is never
/// allocated up front. It covers a whole `read_file` (1 MiB) in one `pread`.
const FIRST_BUFFER_BYTES: u64 = 2 * 1024 * 1024;

/// Reads from `offset` to the end of the file, never more than `limit` bytes, so a file
/// that grew past a limit after it was measured is caught without being read whole.
///
/// The first read asks for one byte more than the `expected` length. When it returns
/// exactly `expected` bytes, that is the file as measured and no further read is needed to
/// find its end; any other outcome (grown, shrunk, a short read) reads on to EOF or the
/// limit, the buffer doubling as it fills.
pub(crate) fn read_range(
    file: impl AsFd,
    offset: u64,
    expected: u64,
    limit: u64,
) -> io::Result<Vec<u8>> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let first = expected.saturating_add(1).min(FIRST_BUFFER_BYTES);
    let mut bytes: Vec<u8> = Vec::with_capacity((first as usize).min(limit));
    while bytes.len() < limit {
        if bytes.len() == bytes.capacity() {
            bytes.reserve_exact(bytes.len().max(8192).min(limit - bytes.len()));
        }
        let room = (limit - bytes.len()).min(bytes.capacity() - bytes.len());
        let at = offset.saturating_add(bytes.len() as u64);
        let spare = &mut bytes.spare_capacity_mut()[..room];
        let read = match rustix::io::pread(&file, spare, at) {
            Ok((filled, _)) => filled.len(),
            Err(rustix::io::Errno::INTR) => continue,
            Err(errno) => return Err(errno.into()),
        };
        // SAFETY: `pread(2)` initialized the first `read` bytes of the spare capacity.
        unsafe { bytes.set_len(bytes.len() + read) };
        let as_measured = bytes.len() as u64 == expected && read < room;
        if read == 0 || as_measured {
            break;
        }
    }
    Ok(bytes)
}

/// The contract's binary test: a NUL byte among the first [`BINARY_SCAN_BYTES`] bytes.
pub fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(BINARY_SCAN_BYTES)];
    memchr::memchr(0, head).is_some()
}

#[allow(clippy::unnecessary_cast)] // `st_mtime_nsec` is `u32` on Linux, `i64` on macOS and FreeBSD.
pub(crate) fn mtime_ms(stat: &Stat) -> i64 {
    // `mtime_nsec` is always in 0..1e9, so this rounds down even before 1970.
    stat.st_mtime.saturating_mul(1000) + (stat.st_mtime_nsec / 1_000_000) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{self, File};

    const MIB: u64 = 1 << 20;

    /// `read_guarded` on the file at `path`, with its status taken as the sandbox takes it.
    fn guard_path(path: &std::path::Path, span: Span) -> Result<FileBytes, GuardError> {
        let file = File::open(path).unwrap();
        let stat = rustix::fs::fstat(&file).unwrap();
        read_guarded(&file.into(), &stat, span)
    }

    fn guard(bytes: &[u8], span: Span) -> Result<FileBytes, GuardError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, bytes).unwrap();
        guard_path(&path, span)
    }

    fn whole(bytes: &[u8]) -> Result<FileBytes, GuardError> {
        guard(bytes, Span::Whole { max: MIB })
    }

    #[test]
    fn exactly_the_limit_is_read_one_more_byte_is_refused() {
        let exact = vec![b'a'; MIB as usize];
        assert_eq!(whole(&exact).unwrap().bytes.len(), MIB as usize);
        let over = vec![b'a'; MIB as usize + 1];
        assert!(
            matches!(whole(&over), Err(GuardError::TooLarge { len, max }) if len == MIB + 1 && max == MIB)
        );
    }

    #[test]
    fn nul_in_the_first_8192_bytes_is_binary_later_is_not() {
        let mut early = vec![b'a'; 10_000];
        early[8191] = 0;
        assert!(whole(&early).unwrap().binary);
        let mut late = vec![b'a'; 10_000];
        late[8192] = 0;
        let read = whole(&late).unwrap();
        assert!(!read.binary);
        assert_eq!(read.bytes, late);
    }

    #[test]
    fn head_and_tail_read_their_end_only() {
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8 + 1).collect();
        let head = guard(&content, Span::Head { max: 1000 }).unwrap();
        assert_eq!((head.bytes.as_slice(), head.offset), (&content[..1000], 0));
        assert!(!head.is_whole());
        let tail = guard(&content, Span::Tail { max: 1000 }).unwrap();
        assert_eq!(
            (tail.bytes.as_slice(), tail.offset),
            (&content[99_000..], 99_000)
        );
        assert_eq!(tail.file_len, 100_000);
        let all = guard(&content, Span::Tail { max: 1 << 30 }).unwrap();
        assert!(all.is_whole());
        assert_eq!(guard(&content, Span::Head { max: 0 }).unwrap().bytes, b"");
    }

    #[test]
    fn a_tail_is_binary_when_the_head_of_the_file_is() {
        let mut content = vec![b'a'; 100_000];
        content[10] = 0;
        let tail = guard(&content, Span::Tail { max: 100 }).unwrap();
        assert!(tail.binary);
        assert!(
            !guard(&vec![b'a'; 100_000], Span::Tail { max: 100 })
                .unwrap()
                .binary
        );
    }

    #[test]
    fn a_sparse_huge_file_is_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse");
        File::create(&path).unwrap().set_len(100 << 30).unwrap();
        let started = std::time::Instant::now();
        let result = guard_path(&path, Span::Whole { max: MIB });
        assert!(matches!(result, Err(GuardError::TooLarge { len, .. }) if len == 100 << 30));
        let tail = guard_path(&path, Span::Tail { max: 10 });
        assert_eq!(tail.unwrap().bytes, vec![0; 10]);
        assert!(started.elapsed().as_millis() < 500);
    }

    #[test]
    fn a_length_measured_wrong_does_not_cut_or_overrun_the_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(&path, &content).unwrap();
        for measured in [0, 1, 50_000, 99_999, 100_000, 100_001, 5_000_000] {
            let bytes = read_range(File::open(&path).unwrap(), 0, measured, MIB + 1).unwrap();
            assert_eq!(bytes, content, "measured {measured}");
        }
        let big = dir.path().join("big");
        fs::write(&big, vec![b'x'; 3 * MIB as usize]).unwrap();
        let bytes = read_range(File::open(&big).unwrap(), 0, 10, MIB + 1).unwrap();
        assert_eq!(bytes.len() as u64, MIB + 1);
    }

    #[test]
    fn a_limit_near_u64_max_neither_overflows_nor_allocates_it() {
        let content = b"line one\nline two\n";
        let whole = guard(content, Span::Whole { max: u64::MAX }).unwrap();
        assert_eq!(whole.bytes, content);
        let head = guard(content, Span::Head { max: u64::MAX }).unwrap();
        assert_eq!(head.bytes, content);
        let tail = guard(content, Span::Tail { max: u64::MAX }).unwrap();
        assert_eq!(tail.bytes, content);
    }

    #[test]
    fn a_claimed_length_beyond_the_file_is_not_allocated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small");
        fs::write(&path, b"small\n").unwrap();
        // A stale status claiming 4 GiB: only what is there is read and kept.
        let bytes = read_range(File::open(&path).unwrap(), 0, 4 << 30, 4 << 30).unwrap();
        assert_eq!(bytes, b"small\n");
        assert!(
            bytes.capacity() as u64 <= FIRST_BUFFER_BYTES,
            "{}",
            bytes.capacity()
        );
    }

    #[test]
    fn mtime_is_whole_milliseconds_rounded_down() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        fs::write(&path, b"x").unwrap();
        let when = std::time::UNIX_EPOCH + std::time::Duration::new(1_700_000_000, 987_654_321);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
        let read_back = guard_path(&path, Span::Whole { max: MIB });
        assert_eq!(read_back.unwrap().mtime_ms, 1_700_000_000_987);
    }
}
