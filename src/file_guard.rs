//! The file guard: decides from an opened handle whether its file may be read (kind,
//! size, binary) and reads it with a hard bound, whatever size the file claims.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use crate::request::MAX_FILE_BYTES;

/// How many leading bytes are searched for a NUL byte to call a file binary.
pub const BINARY_SCAN_BYTES: usize = 8192;

/// A regular file's bytes, read in full (at most [`MAX_FILE_BYTES`]).
#[derive(Debug)]
pub struct FileBytes {
    pub bytes: Vec<u8>,
    /// Last modification, whole milliseconds since the epoch, rounded down.
    pub mtime_ms: i64,
}

/// Why the guard refused a file.
#[derive(Debug)]
pub enum GuardError {
    /// Not a regular file; the kind in words ("a directory", "a FIFO", ...).
    NotFile(&'static str),
    /// Larger than [`MAX_FILE_BYTES`]: the size seen, in bytes.
    TooLarge(u64),
    /// A NUL byte in the first [`BINARY_SCAN_BYTES`].
    Binary,
    Io(io::Error),
}

impl From<io::Error> for GuardError {
    fn from(err: io::Error) -> Self {
        GuardError::Io(err)
    }
}

/// Checks the opened file in the contract's order (kind, size, binary) and reads it.
pub fn read_guarded(handle: OwnedFd) -> Result<FileBytes, GuardError> {
    let file = File::from(handle);
    let metadata = file.metadata()?;
    check_kind(&metadata)?;
    check_size(metadata.len())?;
    let bytes = read_bounded(&file, metadata.len())?;
    // The file may have grown since it was measured: the bytes read are what counts.
    check_size(bytes.len() as u64)?;
    if is_binary(&bytes) {
        return Err(GuardError::Binary);
    }
    Ok(FileBytes {
        bytes,
        mtime_ms: mtime_ms(&metadata),
    })
}

fn check_kind(metadata: &Metadata) -> Result<(), GuardError> {
    let kind = metadata.file_type();
    let described = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    };
    Err(GuardError::NotFile(described))
}

fn check_size(len: u64) -> Result<(), GuardError> {
    if len > MAX_FILE_BYTES {
        Err(GuardError::TooLarge(len))
    } else {
        Ok(())
    }
}

/// Reads the file, never more than `MAX_FILE_BYTES + 1` bytes, so a file that grew past
/// the limit after it was measured is caught without being read whole.
///
/// The first read asks for one byte more than the measured length. When it returns exactly
/// the measured length, that is the file as measured and no further read is needed to find
/// its end; any other outcome (grown, shrunk, a short read) reads on to EOF or the limit.
fn read_bounded(file: &File, measured_len: u64) -> io::Result<Vec<u8>> {
    let limit = MAX_FILE_BYTES as usize + 1;
    let measured = measured_len.min(MAX_FILE_BYTES) as usize;
    let mut bytes = vec![0u8; measured + 1];
    let mut filled = 0;
    loop {
        if filled == bytes.len() {
            if filled == limit {
                break;
            }
            let grow = filled.max(8192).min(limit - filled);
            bytes.resize(filled + grow, 0);
        }
        let wanted = bytes.len() - filled;
        match Read::read(&mut &*file, &mut bytes[filled..]) {
            Ok(0) => break,
            Ok(read) => {
                filled += read;
                if filled == measured && read < wanted {
                    break;
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// The contract's binary test: a NUL byte among the first [`BINARY_SCAN_BYTES`] bytes.
pub fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(BINARY_SCAN_BYTES)];
    memchr::memchr(0, head).is_some()
}

fn mtime_ms(metadata: &Metadata) -> i64 {
    // `mtime_nsec` is always in 0..1e9, so this rounds down even before 1970.
    metadata.mtime() * 1000 + metadata.mtime_nsec() / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn guard(bytes: &[u8]) -> Result<FileBytes, GuardError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, bytes).unwrap();
        read_guarded(File::open(&path).unwrap().into())
    }

    #[test]
    fn exactly_the_limit_is_read_one_more_byte_is_refused() {
        let exact = vec![b'a'; MAX_FILE_BYTES as usize];
        assert_eq!(guard(&exact).unwrap().bytes.len(), MAX_FILE_BYTES as usize);
        let over = vec![b'a'; MAX_FILE_BYTES as usize + 1];
        assert!(matches!(guard(&over), Err(GuardError::TooLarge(n)) if n == MAX_FILE_BYTES + 1));
    }

    #[test]
    fn nul_in_the_first_8192_bytes_is_binary_later_is_not() {
        let mut early = vec![b'a'; 10_000];
        early[8191] = 0;
        assert!(matches!(guard(&early), Err(GuardError::Binary)));
        let mut late = vec![b'a'; 10_000];
        late[8192] = 0;
        assert_eq!(guard(&late).unwrap().bytes, late);
    }

    #[test]
    fn a_sparse_huge_file_is_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse");
        File::create(&path).unwrap().set_len(100 << 30).unwrap();
        let started = std::time::Instant::now();
        let result = read_guarded(File::open(&path).unwrap().into());
        assert!(matches!(result, Err(GuardError::TooLarge(n)) if n == 100 << 30));
        assert!(started.elapsed().as_millis() < 500);
    }

    #[test]
    fn a_length_measured_wrong_does_not_cut_or_overrun_the_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(&path, &content).unwrap();
        for measured in [0, 1, 50_000, 99_999, 100_000, 100_001, 5_000_000] {
            let bytes = read_bounded(&File::open(&path).unwrap(), measured).unwrap();
            assert_eq!(bytes, content, "measured {measured}");
        }
        let big = dir.path().join("big");
        fs::write(&big, vec![b'x'; 3 * MAX_FILE_BYTES as usize]).unwrap();
        let bytes = read_bounded(&File::open(&big).unwrap(), 10).unwrap();
        assert_eq!(bytes.len() as u64, MAX_FILE_BYTES + 1);
    }

    #[test]
    fn directories_are_not_files() {
        let dir = tempfile::tempdir().unwrap();
        let handle = File::open(dir.path()).unwrap().into();
        assert!(matches!(
            read_guarded(handle),
            Err(GuardError::NotFile("a directory"))
        ));
    }

    #[test]
    fn mtime_is_whole_milliseconds_rounded_down() {
        let read = guard(b"x").unwrap();
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
        let read_back = read_guarded(File::open(&path).unwrap().into()).unwrap();
        assert_eq!(read_back.mtime_ms, 1_700_000_000_987);
        assert!(read.mtime_ms > 1_600_000_000_000);
    }
}
