//! `read_file` from memory ([`Access::FromMemory`]), the read an event loop may do itself: the same answer as
//! `read_file` whenever it answers, and `WouldBlock` whenever the path or the bytes are not
//! in the kernel's memory (Linux; elsewhere it always says `WouldBlock`).
#![cfg(target_os = "linux")]

use std::fs;
use std::os::fd::AsFd;
use std::os::unix::fs::symlink;
use std::path::Path;

use agent_read_file_engine::error::ErrorCode;
use agent_read_file_engine::policy::{Policy, PolicyRules};
use agent_read_file_engine::request::{NumberArg, ReadRequest};
use agent_read_file_engine::root_cache;
use agent_read_file_engine::sandbox::{self, Root};
use agent_read_file_engine::{
    Access, MAX_FROM_MEMORY_BYTES, ReadOptions, Stop, TokenBudget, Tokenizer, answered, read_file,
    waited,
};
use rustix::fs::{Advice, fadvise};
use rustix::io::{Errno, IoSliceMut, ReadWriteFlags, preadv2};

fn request(path: &str, start: f64, max: f64) -> ReadRequest {
    ReadRequest::new(
        path.into(),
        NumberArg::Number(start),
        NumberArg::Number(max),
    )
    .unwrap()
}

/// One test at a time: one of them drops the kernel's dentry cache, which would make the
/// others' "just read, so cached" cases cold under them.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

struct Workspace {
    tmp: tempfile::TempDir,
    root: Root,
    _serial: std::sync::MutexGuard<'static, ()>,
}

fn workspace() -> Workspace {
    let serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (tmp, root) = fixture();
    Workspace {
        tmp,
        root,
        _serial: serial,
    }
}

fn fixture() -> (tempfile::TempDir, Root) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fs::create_dir_all(ws.join("src/deep")).unwrap();
    fs::write(ws.join("src/a.txt"), "one\ntwo\r\nthree").unwrap();
    fs::write(ws.join("src/deep/b.txt"), "x\n".repeat(300)).unwrap();
    fs::write(ws.join("bin.dat"), b"\x7fELF\0\x01").unwrap();
    fs::write(ws.join(".env"), "SECRET=1\n").unwrap();
    fs::write(tmp.path().join("outside.txt"), "outside\n").unwrap();
    symlink("src/a.txt", ws.join("alias.txt")).unwrap();
    symlink("../outside.txt", ws.join("out.txt")).unwrap();
    symlink(".env", ws.join("env-alias")).unwrap();
    let root = Root::open(ws.to_str().unwrap()).unwrap();
    (tmp, root)
}

/// ext2/3/4, XFS, Btrfs, tmpfs, F2FS, bcachefs, ZFS, overlayfs (`statfs` magic numbers).
const LOCAL_FILE_SYSTEMS: [i64; 8] = [
    0xEF53,
    0x5846_5342,
    0x9123_683E,
    0x0102_1994,
    0xF2F5_2010,
    0xCA45_1A4E,
    0x2FC1_2FC1,
    0x794C_7630,
];

/// Whether reads from memory are expected here, told without the code under test: Linux
/// 5.12+ (`RESOLVE_CACHED`) and a temp directory on a local file system.
fn from_memory_expected(dir: &Path) -> bool {
    let release = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut numbers = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let version = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    #[allow(clippy::unnecessary_cast)] // `f_type` is `i64` on x86_64, narrower elsewhere.
    let magic = rustix::fs::statfs(dir).map_or(0, |fs| fs.f_type as i64);
    version >= (5, 12) && LOCAL_FILE_SYSTEMS.contains(&magic)
}

/// Whether a read can be done from memory here; where it is expected, it must be (after a
/// full read has filled the caches). Elsewhere every attempt is `WouldBlock` and the
/// comparisons below have nothing to compare.
fn from_memory_possible(root: &Root) -> bool {
    let warm = request("src/a.txt", 1.0, 10.0);
    let _ = waited(read_file(root, &warm, ReadOptions::default()));
    let done = matches!(
        read_file(root, &warm, ReadOptions::default().from_memory()),
        Ok(_) | Err(Stop::Failed(_))
    );
    let expected = from_memory_expected(&std::env::temp_dir());
    assert!(
        done || !expected,
        "a warm read on a local file system would block"
    );
    if !done {
        eprintln!("skipped: reads from memory are not possible here");
    }
    done
}

#[test]
fn a_cached_read_answers_what_the_pool_read_answers() {
    let Workspace { root, .. } = &workspace();
    if !from_memory_possible(root) {
        eprintln!("skipped: the temp directory is not on a file system read from memory here");
        return;
    }
    let deny = [".env".to_owned()];
    let policy = Policy::new(PolicyRules {
        deny: &deny,
        ..PolicyRules::default()
    })
    .unwrap();
    let options = [
        ReadOptions {
            versioned: true,
            ..ReadOptions::default()
        },
        ReadOptions {
            policy: Some(&policy),
            max_content_bytes: Some(128),
            versioned: true,
            ..ReadOptions::default()
        },
        // A window over its token budget is narrowed from the same file, from memory too.
        ReadOptions {
            policy: Some(&policy),
            max_tokens: Some(TokenBudget {
                tokens: 200,
                tokenizer: Tokenizer::O200kBase,
                numbered: true,
            }),
            ..ReadOptions::default()
        },
    ];
    let cases = [
        ("src/a.txt", 1.0, 200.0),
        ("./src/../src/a.txt", 2.0, 1.0),
        ("src/deep/b.txt", 250.0, 100.0),
        ("src/missing.txt", 1.0, 1.0),
        ("src", 1.0, 1.0),
        ("bin.dat", 1.0, 1.0),
        (".env", 1.0, 1.0),
        ("src/a.txt/", 1.0, 1.0),
    ];
    // A path through a symlink is the walker's to resolve (it tells the path the file was
    // opened by), so the pool's.
    for path in ["alias.txt", "env-alias"] {
        let request = request(path, 1.0, 2.0);
        for &options in &options {
            let attempt = read_file(root, &request, options.from_memory());
            assert!(matches!(attempt, Err(Stop::WouldBlock)), "{path}");
        }
    }
    for &options in &options {
        for (path, start, max) in cases {
            let request = request(path, start, max);
            // The pool's read first: it fills the caches (a missing name's negative entry too).
            let pool = waited(read_file(root, &request, options));
            let attempt = read_file(root, &request, options.from_memory());
            if options.policy.is_some()
                && pool
                    .as_ref()
                    .is_err_and(|e| matches!(e.code, ErrorCode::NotFound | ErrorCode::NotFile))
            {
                // A toolkit's NOT_FOUND lists a directory for its near misses, and its
                // NOT_FILE of a directory lists that directory: either may wait.
                assert!(matches!(attempt, Err(Stop::WouldBlock)), "{path}");
                continue;
            }
            let Some(cached) = answered(attempt) else {
                panic!("{path}: would block, though the pool just read it");
            };
            assert_eq!(cached, pool, "{path} with {options:?}");
        }
    }
}

#[test]
fn what_the_walker_must_judge_and_large_files_are_left_to_the_pool() {
    let Workspace { tmp, root, .. } = &workspace();
    if !from_memory_possible(root) {
        return;
    }
    let big = tmp.path().join("ws/big.txt");
    let line = "0123456789abcdef\n";
    fs::write(
        &big,
        line.repeat(MAX_FROM_MEMORY_BYTES as usize / line.len() + 1),
    )
    .unwrap();
    fs::write(tmp.path().join("ws/fits.txt"), line.repeat(1000)).unwrap();
    for path in ["out.txt", "big.txt"] {
        let request = request(path, 1.0, 1.0);
        let _ = waited(read_file(root, &request, ReadOptions::default()));
        let attempt = read_file(root, &request, ReadOptions::default().from_memory());
        assert!(
            matches!(attempt, Err(Stop::WouldBlock)),
            "{path}: {attempt:?}"
        );
    }
    let fits = request("fits.txt", 1.0, 1.0);
    let _ = waited(read_file(root, &fits, ReadOptions::default()));
    let attempt = read_file(root, &fits, ReadOptions::default().from_memory());
    assert!(attempt.is_ok(), "{attempt:?}");
}

/// Drops `file`'s pages from the page cache; whether it worked is for the caller to check.
fn make_cold(file: &Path) {
    let handle = fs::File::open(file).unwrap();
    handle.sync_all().unwrap();
    fadvise(handle.as_fd(), 0, None, Advice::DontNeed).unwrap();
}

/// Whether the last page of `file` would have to be read from the disk. The check is made
/// at the end: `RWF_NOWAIT` starts readahead where it misses, and the start of the file,
/// which the read under test needs first, must stay cold.
fn is_cold(file: &Path) -> bool {
    let handle = fs::File::open(file).unwrap();
    let last = handle.metadata().unwrap().len().saturating_sub(1);
    let mut byte = [0u8; 1];
    let read = preadv2(
        &handle,
        &mut [IoSliceMut::new(&mut byte)],
        last,
        ReadWriteFlags::NOWAIT,
    );
    read == Err(Errno::AGAIN)
}

#[test]
fn a_file_whose_pages_are_not_in_memory_is_left_to_the_pool() {
    let Workspace { tmp, root, .. } = &workspace();
    if !from_memory_possible(root) {
        return;
    }
    let file = tmp.path().join("ws/cold.txt");
    fs::write(&file, "cold\n".repeat(20_000)).unwrap(); // 100 KB: the first and last pages far apart
    let request = request("cold.txt", 1.0, 5.0);
    let options = ReadOptions::default();
    let _ = waited(read_file(root, &request, options)); // the name is cached
    make_cold(&file);
    if !is_cold(&file) {
        eprintln!("skipped: the file system keeps the file's pages (tmpfs?)");
        return;
    }
    let attempt = read_file(root, &request, options.from_memory());
    assert!(matches!(attempt, Err(Stop::WouldBlock)), "{attempt:?}");
    // (`RWF_NOWAIT` may start readahead without waiting for it: the file can be warm now.)
    let pool = waited(read_file(root, &request, options));
    assert_eq!(
        answered(read_file(root, &request, options.from_memory())),
        Some(pool)
    );
}

#[test]
fn a_fifo_is_not_a_file_and_its_writer_stays_blocked() {
    let Workspace { tmp, root, .. } = &workspace();
    if !from_memory_possible(root) {
        return;
    }
    let fifo = tmp.path().join("ws/pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let request = request("pipe", 1.0, 1.0);
    let _ = waited(read_file(root, &request, ReadOptions::default()));
    let Err(Stop::Failed(error)) = read_file(root, &request, ReadOptions::default().from_memory())
    else {
        panic!("a FIFO must be refused from memory");
    };
    assert_eq!(error.code.as_str(), "NOT_FILE");
    // Had the FIFO been opened for reading, a non-blocking open for writing would succeed.
    let writer = rustix::fs::open(
        &fifo,
        rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::NONBLOCK,
        rustix::fs::Mode::empty(),
    );
    assert_eq!(writer.err(), Some(Errno::NXIO));
}

#[test]
fn a_root_path_is_told_from_the_dentry_cache_as_the_root_cache_tells_it() {
    let Workspace { tmp, root, .. } = &workspace();
    let ws = tmp.path().join("ws");
    let path = ws.to_str().unwrap();
    if let Some(identity) = sandbox::directory_identity_from_memory(path) {
        assert_eq!(identity, root.identity());
    }
    assert_eq!(
        sandbox::directory_identity_from_memory("relative/path"),
        None
    );
    assert_eq!(
        sandbox::directory_identity_from_memory(&format!("{path}/missing")),
        None
    );
    // Not in the root cache yet: the cached open leaves opening it to the pool.
    let fresh = tmp.path().join("fresh");
    fs::create_dir(&fresh).unwrap();
    assert!(root_cache::open_from_memory(fresh.to_str().unwrap()).is_none());
    let opened = root_cache::open(fresh.to_str().unwrap()).unwrap();
    if sandbox::directory_identity_from_memory(fresh.to_str().unwrap()).is_some() {
        let Some(cached) = root_cache::open_from_memory(fresh.to_str().unwrap()) else {
            panic!("a cached root whose path is in the dentry cache");
        };
        assert!(std::sync::Arc::ptr_eq(&cached, &opened));
    }
}

/// Whether `relative` beneath `root_dir` resolves from the dentry cache alone now.
fn path_is_cached(root_dir: &Path, relative: &str) -> bool {
    let root = fs::File::open(root_dir).unwrap();
    let flags = rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC;
    let resolve = rustix::fs::ResolveFlags::BENEATH | rustix::fs::ResolveFlags::CACHED;
    rustix::fs::openat2(root, relative, flags, rustix::fs::Mode::empty(), resolve).is_ok()
}

#[test]
fn a_path_whose_directories_are_not_in_the_dentry_cache_is_left_to_the_pool() {
    let Workspace { tmp, root, .. } = &workspace();
    if !from_memory_possible(root) {
        return;
    }
    let ws = tmp.path().join("ws");
    fs::create_dir_all(ws.join("cold-dir/sub")).unwrap();
    fs::write(ws.join("cold-dir/sub/f.txt"), "f\n").unwrap();
    let request = request("cold-dir/sub/f.txt", 1.0, 1.0);
    let pool = waited(read_file(root, &request, ReadOptions::default()));
    // Only root may drop the kernel's dentry cache (`vm.drop_caches`: 2 drops dentries and
    // inodes that nothing holds); elsewhere the case cannot be made.
    if fs::write("/proc/sys/vm/drop_caches", "2").is_err() || path_is_cached(&ws, "cold-dir/sub") {
        eprintln!("skipped: the dentry cache cannot be dropped here");
        return;
    }
    let attempt = read_file(root, &request, ReadOptions::default().from_memory());
    assert!(matches!(attempt, Err(Stop::WouldBlock)), "{attempt:?}");
    assert!(
        !path_is_cached(&ws, "cold-dir/sub"),
        "the attempt read the directory from the disk"
    );
    let again = waited(read_file(root, &request, ReadOptions::default()));
    assert_eq!(again, pool);
    assert_eq!(
        answered(read_file(
            root,
            &request,
            ReadOptions::default().from_memory()
        )),
        Some(pool)
    );
}

#[test]
fn a_reader_from_memory_reads_a_use_case_from_memory_or_says_it_would_wait() {
    use agent_read_file_engine::{Reader, Span};
    let Workspace { root, .. } = &workspace();
    if !from_memory_possible(root) {
        return;
    }
    let whole = Span::Whole { max: 1 << 20 };
    let full = Reader::new(Access::MayWait)
        .read(root, "src/a.txt", whole)
        .unwrap();
    let reader = Reader::new(Access::FromMemory);
    let read = reader.read(root, "src/a.txt", whole);
    let Some(Ok((path, bytes))) = reader.finish(read) else {
        panic!("a warm whole file must be read from memory");
    };
    assert_eq!((path, bytes.bytes), (full.0, full.1.bytes));
    // A part of a file is read only where waiting is allowed.
    let reader = Reader::new(Access::FromMemory);
    let head = reader
        .read(root, "src/a.txt", Span::Head { max: 4 })
        .map(drop);
    assert!(head.is_err());
    assert_eq!(reader.finish(head), None);
    // An error known from memory is an answer.
    let _ = Reader::new(Access::MayWait).read(root, "src/none.txt", whole);
    let reader = Reader::new(Access::FromMemory);
    let missing = reader.read(root, "src/none.txt", whole).map(drop);
    assert!(matches!(reader.finish(missing), Some(Err(ref e)) if e.code.as_str() == "NOT_FOUND"));
    // A waiting reader reads parts.
    assert!(
        Reader::new(Access::MayWait)
            .read(root, "src/a.txt", Span::Head { max: 4 })
            .is_ok()
    );
}
