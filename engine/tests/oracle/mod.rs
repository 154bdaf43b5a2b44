//! The sandbox oracle, shared by the property tests (`engine/tests/sandbox_properties.rs`,
//! run by `cargo test`) and the fuzz target (`fuzz/fuzz_targets/resolve_and_window.rs`).
//!
//! A path is built from a token alphabet (`..`, `/`, `.`, names, NUL, a long name, symlinks
//! in and out of the workspace) and read through the engine. The oracle: either an error,
//! or a file whose real location is under the root, whose content never holds the secret
//! kept outside, and whose windows obey the invariants (at most `max_lines` lines; paging
//! through all windows gives back exactly the whole normalized text).

#![allow(dead_code)]

use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use agent_read_file_engine::request::ReadRequest;
use agent_read_file_engine::sandbox::{OpenError, Root};
use agent_read_file_engine::{ReadOptions, answered, open_error, read_file, waited};

/// Content of the one file outside the workspace; must never come back.
pub const SENTINEL: &str = "SENTINEL-7f3a-outside-the-workspace";

pub struct Fixture {
    _dir: tempfile::TempDir,
    pub root: Root,
    pub canonical_root: PathBuf,
}

/// The alphabet paths are built from.
pub const TOKENS: &[&str] = &[
    "..",
    "/",
    ".",
    "a.txt",
    "sub",
    "b.txt",
    "deep",
    "c.txt",
    "in-rel",
    "in-abs",
    "up",
    "dir-in",
    "dir-out",
    "out-rel",
    "out-abs",
    "climb",
    "loop",
    "chain",
    "dangling",
    "proc",
    "dev",
    "fifo",
    "\0",
    "missing",
    "secret.txt",
    "outside",
    "ws",
    "//",
    "crlf.txt",
    "a.txt/",
    "slash-rel",
    "slash-dot-rel",
    "slash-abs",
    "slash-dot-abs",
    "dir-slash-abs",
];

/// A long name (over the 255-byte component limit) as one more token.
const LONG_NAME_TOKEN: u8 = 255;

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path();
    let ws = base.join("ws");
    let outside = base.join("outside");
    fs::create_dir_all(ws.join("sub/deep")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.txt");
    fs::write(&secret, format!("{SENTINEL}\n")).unwrap();
    fs::write(
        ws.join("a.txt"),
        b"\xEF\xBB\xBFalpha\r\nbeta\n\xFF gamma\rdelta\n\n",
    )
    .unwrap();
    fs::write(ws.join("crlf.txt"), "1\r\n2\r\n3\r\n4\r\n5").unwrap();
    fs::write(ws.join("sub/b.txt"), "b1\nb2\nb3\n").unwrap();
    fs::write(ws.join("sub/deep/c.txt"), "").unwrap();
    let link = |target: &Path, at: &str| symlink(target, ws.join(at)).unwrap();
    link(Path::new("sub/b.txt"), "in-rel");
    link(&ws.join("a.txt"), "in-abs");
    link(Path::new("../a.txt"), "sub/up");
    link(Path::new("sub"), "dir-in");
    link(&outside, "dir-out");
    link(Path::new("../outside/secret.txt"), "out-rel");
    link(&secret, "out-abs");
    link(Path::new("../../../outside/secret.txt"), "sub/deep/climb");
    link(Path::new("loop"), "loop");
    link(Path::new("dir-in/../in-rel"), "chain");
    link(Path::new("missing"), "dangling");
    link(
        &Path::new("/proc/self/root").join(secret.strip_prefix("/").unwrap()),
        "proc",
    );
    link(Path::new("/dev/zero"), "dev");
    // Link texts that end in `/` or `/.` must lead to a directory, as the OS reads them.
    link(Path::new("a.txt/"), "slash-rel");
    link(Path::new("sub/b.txt/."), "slash-dot-rel");
    link(Path::new(&format!("{}/a.txt/", ws.display())), "slash-abs");
    link(
        Path::new(&format!("{}/sub/b.txt/.", ws.display())),
        "slash-dot-abs",
    );
    link(
        Path::new(&format!("{}/sub/", ws.display())),
        "dir-slash-abs",
    );
    // `mkfifo(1)`, not `mknodat`, which rustix lacks on macOS, where this must compile.
    let made = std::process::Command::new("mkfifo")
        .arg(ws.join("fifo"))
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo");
    let root = Root::open(ws.to_str().unwrap()).unwrap();
    let canonical_root = fs::canonicalize(&ws).unwrap();
    Fixture {
        _dir: dir,
        root,
        canonical_root,
    }
}

/// A path from token indices; an absolute prefix of the root when `absolute`.
pub fn path_from_tokens(fx: &Fixture, tokens: &[u8], absolute: bool) -> String {
    let mut path = String::new();
    if absolute {
        path.push_str(fx.canonical_root.to_str().unwrap());
        path.push('/');
    }
    for &token in tokens {
        if token == LONG_NAME_TOKEN {
            path.push_str(&"n".repeat(300));
        } else {
            path.push_str(TOKENS[token as usize % TOKENS.len()]);
        }
    }
    path
}

/// Checks every promise of the sandbox and the line window for one request.
pub fn check(fx: &Fixture, path: &str, start_line: u64, max_lines: u32) {
    check_confinement(fx, path);
    let Ok(request) = ReadRequest::new(
        path.to_owned(),
        agent_read_file_engine::request::NumberArg::Number(start_line as f64),
        agent_read_file_engine::request::NumberArg::Number(f64::from(max_lines)),
    ) else {
        return;
    };
    check_cached_read(fx, path, &request);
    let Ok((first, _)) = waited(read_file(&fx.root, &request, ReadOptions::default())) else {
        return;
    };
    assert!(
        !first.content.as_str().contains(SENTINEL),
        "{path:?} leaked the secret"
    );
    assert!(!first.path.starts_with('/') && !first.path.split('/').any(|c| c == ".." || c == "."));
    assert!(first.meta.returned_line_count <= max_lines);
    check_paging(fx, &request, first.meta.line_count);
}

/// A read done without waiting, when it answers, answers what the full read answers: the
/// same output, or the same error. (Right after the full read, whose lookups fill the
/// caches, so that it answers as often as it can.)
fn check_cached_read(fx: &Fixture, path: &str, request: &ReadRequest) {
    let options = ReadOptions {
        versioned: true,
        ..ReadOptions::default()
    };
    let full = waited(read_file(&fx.root, request, options));
    if let Some(cached) = answered(read_file(&fx.root, request, options.from_memory())) {
        assert_eq!(
            cached, full,
            "{path:?}: the cached read differs from the full read"
        );
    }
}

/// The opened file, on the fast path, the walker, the portable path and macOS's alike, is
/// really under the root, at the path the sandbox says it was opened by.
fn check_confinement(fx: &Fixture, path: &str) {
    let Ok(relative) = fx.root.relative_path(path) else {
        return;
    };
    let fast = fx.root.open_file(&relative);
    let walked =
        fx.root
            .open_by_walking(Path::new(if relative.is_empty() { "." } else { &relative }));
    let portable = fx.root.open_portably(&relative);
    let macos = fx.root.open_like_macos(&relative);
    // The same verdict, as the caller sees it: errnos that mean the same to the contract
    // (a name too long for one `openat2` but not for the walker, say) are the same verdict.
    let verdict = |opened: &Result<_, OpenError>| {
        opened
            .as_ref()
            .map(drop)
            .map_err(|e| open_error(*e, path).code)
    };
    assert_eq!(
        verdict(&fast),
        verdict(&walked),
        "fast path and walker disagree on {path:?}"
    );
    assert_eq!(
        verdict(&fast),
        verdict(&portable),
        "fast path and portable path disagree on {path:?}"
    );
    assert_eq!(
        verdict(&fast),
        verdict(&macos),
        "fast path and macOS's path disagree on {path:?}"
    );
    for opened in [fast, walked, portable, macos] {
        match opened {
            Ok(opened) => {
                let fd = opened.file.as_raw_fd();
                let location = fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
                assert!(
                    location.starts_with(&fx.canonical_root),
                    "{path:?} opened {location:?}, outside {:?}",
                    fx.canonical_root
                );
                assert_eq!(
                    location,
                    fx.canonical_root.join(&opened.path),
                    "{path:?}: the path it was opened by is not where it is"
                );
            }
            Err(
                OpenError::Outside | OpenError::Loop | OpenError::NotFile(_) | OpenError::Os(_),
            ) => {}
        }
    }
}

/// Paging through the file from line 1 gives back exactly its normalized text.
fn check_paging(fx: &Fixture, request: &ReadRequest, line_count: u64) {
    let mut page = ReadRequest {
        start_line: 1,
        ..request.clone()
    };
    let mut joined = String::new();
    let mut lines = 0u64;
    loop {
        let Ok((output, _)) = waited(read_file(&fx.root, &page, ReadOptions::default())) else {
            return; // the file changed kind between reads: nothing to compare
        };
        assert!(output.meta.returned_line_count <= page.max_lines);
        joined.push_str(output.content.as_str());
        lines += u64::from(output.meta.returned_line_count);
        match output.next_start_line {
            Some(next) => {
                assert_eq!(
                    next,
                    page.start_line + u64::from(output.meta.returned_line_count)
                );
                page.start_line = next;
            }
            None => break,
        }
    }
    assert_eq!(lines, line_count);
    let relative = fx.root.relative_path(&request.path).unwrap();
    let opened = fx.root.open_file(&relative).unwrap();
    let bytes = fs::read(format!("/proc/self/fd/{}", opened.file.as_raw_fd())).unwrap();
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let expected = String::from_utf8_lossy(text).replace("\r\n", "\n");
    assert_eq!(joined, expected, "paging {:?}", request.path);
}
