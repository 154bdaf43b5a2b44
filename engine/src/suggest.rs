//! What a toolkit's `NOT_FOUND` suggests: up to [`MAX_SUGGESTIONS`] readable files whose
//! paths are closest to the one asked for, so that a model that misspelt a name reads the
//! file on its next call instead of listing directories first.
//!
//! Only the error path runs this. A directory is listed through the root handle
//! ([`Root::open_directory`], confined as every open is), at most [`MAX_ENTRIES_EXAMINED`]
//! of its entries are looked at, and a name is suggested only once it has been opened as a
//! regular file beneath the root and the toolkit's policy admits the path it was opened by
//! ([`source::open`]): a suggestion never names a denied file, a directory, or anything a
//! symlink leads to outside the workspace.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{Dir, FileType};

use crate::policy::Policy;
use crate::sandbox::{OpenError, Root};
use crate::source;

/// The most paths one error suggests.
pub const MAX_SUGGESTIONS: usize = 3;

/// The most entries of one directory looked at: a directory of a million files costs what
/// one of a thousand does (and a close name past them goes unsuggested).
pub const MAX_ENTRIES_EXAMINED: usize = 1000;

/// The most close names opened to be checked, per directory listed.
const MAX_CANDIDATES_CHECKED: usize = 8;

/// The readable files closest to `relative` (a path from [`Root::relative_path`]), best
/// first: files of its own directory; when that directory does not exist, the same file in
/// the directory of the parent whose name is closest to the missing one. Empty when none is
/// close.
pub fn near_misses(root: &Root, relative: &str, policy: &Policy) -> Vec<String> {
    if relative.is_empty() || relative.ends_with('/') {
        return Vec::new();
    }
    let (directory, name) = split_last(relative);
    match close_names(root, directory, name, EntryKind::File) {
        Ok(names) => readable(
            root,
            policy,
            names.iter().map(|close| join(directory, close)),
        ),
        Err(OpenError::Os(rustix::io::Errno::NOENT)) if !directory.is_empty() => {
            in_corrected_directory(root, directory, name, policy)
        }
        Err(_) => Vec::new(),
    }
}

/// The file `name` in the directories beside the missing `directory` whose names are
/// closest to its own.
fn in_corrected_directory(
    root: &Root,
    directory: &str,
    name: &str,
    policy: &Policy,
) -> Vec<String> {
    let (parent, missing) = split_last(directory);
    let Ok(directories) = close_names(root, parent, missing, EntryKind::Directory) else {
        return Vec::new();
    };
    let paths = directories
        .iter()
        .map(|close| join(&join(parent, close), name));
    readable(root, policy, paths)
}

/// `(directory, last name)` of a relative path; the directory is empty at the root.
fn split_last(relative: &str) -> (&str, &str) {
    relative.rsplit_once('/').unwrap_or(("", relative))
}

fn join(directory: &str, name: &str) -> String {
    if directory.is_empty() {
        name.to_owned()
    } else {
        format!("{directory}/{name}")
    }
}

/// The first [`MAX_SUGGESTIONS`] of `paths` that open as regular files the policy admits.
fn readable(root: &Root, policy: &Policy, paths: impl Iterator<Item = String>) -> Vec<String> {
    paths
        .filter(|path| source::open(root, path, Some(policy)).is_ok())
        .take(MAX_SUGGESTIONS)
        .collect()
}

/// What an entry must be to be a candidate, as far as its directory entry tells.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    File,
    Directory,
}

/// The names in `directory` close to `wanted`, closest first, at most
/// [`MAX_CANDIDATES_CHECKED`] of them.
fn close_names(
    root: &Root,
    directory: &str,
    wanted: &str,
    kind: EntryKind,
) -> Result<Vec<String>, OpenError> {
    let dir = root.open_directory(directory)?;
    let entries = Dir::new(dir).map_err(OpenError::Os)?;
    let mut close: Vec<(usize, String)> = entries
        .take(MAX_ENTRIES_EXAMINED)
        .filter_map(Result::ok)
        .filter(|entry| may_be(kind, entry.file_type()))
        .filter_map(|entry| typable_name(OsStr::from_bytes(entry.file_name().to_bytes())))
        .filter_map(|name| closeness(wanted, &name).map(|distance| (distance, name)))
        .collect();
    close.sort();
    close.truncate(MAX_CANDIDATES_CHECKED);
    Ok(close.into_iter().map(|(_, name)| name).collect())
}

/// Whether an entry of type `found` (from the directory entry, which may not know) may be
/// of `kind`; a symlink may lead to either.
fn may_be(kind: EntryKind, found: FileType) -> bool {
    match found {
        FileType::Symlink | FileType::Unknown => true,
        FileType::RegularFile => kind == EntryKind::File,
        FileType::Directory => kind == EntryKind::Directory,
        _ => false,
    }
}

/// The entry's name when a model could send it back: UTF-8, no control characters, not
/// `.` or `..`.
fn typable_name(name: &OsStr) -> Option<String> {
    let name = name.to_str()?;
    let plain = name != "." && name != ".." && !name.chars().any(char::is_control);
    plain.then(|| name.to_owned())
}

/// How far `found` is from `wanted`, ignoring case (an edit distance counting a swap of
/// two neighbours as one edit, so `mian` is one from `main`), when it is close enough to
/// suggest: within a quarter of the longer name's characters (at least one edit), or the
/// same name before its first `.` (`README` and `README.md`, `config.yaml` and
/// `config.yml`). An exact match (the name asked for) is not a suggestion.
fn closeness(wanted: &str, found: &str) -> Option<usize> {
    if wanted == found {
        return None;
    }
    let (wanted, found) = (wanted.to_lowercase(), found.to_lowercase());
    let same_stem = stem(&wanted) == stem(&found) && !stem(&wanted).is_empty();
    let (wanted_len, found_len) = (wanted.chars().count(), found.chars().count());
    let most = (wanted_len.max(found_len) / 4).max(1);
    // The lengths' difference is never more than the distance: most names are ruled out
    // without computing it.
    if !same_stem && wanted_len.abs_diff(found_len) > most {
        return None;
    }
    let distance = strsim::osa_distance(&wanted, &found);
    (distance <= most || same_stem).then_some(distance)
}

/// The name before its first `.` (a leading `.` kept: `.env` is its own stem).
fn stem(name: &str) -> &str {
    let start = usize::from(name.starts_with('.'));
    name[start..]
        .find('.')
        .map_or(name, |dot| &name[..start + dot])
}

/// `reason` with the suggestions appended: `...; did you mean a?`, or `a, b or c?`.
pub fn with_suggestions(reason: &str, paths: &[String]) -> String {
    match paths {
        [] => reason.to_owned(),
        [only] => format!("{reason}; did you mean {only}?"),
        [first @ .., last] => format!("{reason}; did you mean {} or {last}?", first.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::Path;

    /// A workspace `ws` beside `outside/` (which holds `main.ts` and `config.ts.txt`).
    struct Fixture {
        _tmp: tempfile::TempDir,
        ws: std::path::PathBuf,
    }

    impl Fixture {
        fn new(files: &[&str]) -> Fixture {
            let tmp = tempfile::tempdir().unwrap();
            let ws = tmp.path().join("ws");
            let outside = tmp.path().join("outside");
            fs::create_dir_all(&outside).unwrap();
            fs::write(outside.join("main.ts"), "outside\n").unwrap();
            fs::write(outside.join("config.json"), "outside\n").unwrap();
            for file in files {
                let path = ws.join(file);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, "x\n").unwrap();
            }
            fs::create_dir_all(&ws).unwrap();
            Fixture { _tmp: tmp, ws }
        }

        fn link(&self, name: &str, target: &str) {
            symlink(target, self.ws.join(name)).unwrap();
        }

        fn dir(&self, name: &str) {
            fs::create_dir_all(self.ws.join(name)).unwrap();
        }

        fn near(&self, requested: &str, deny: &[&str]) -> Vec<String> {
            let root = Root::open(self.ws.to_str().unwrap()).unwrap();
            let deny: Vec<String> = deny.iter().map(|rule| (*rule).to_owned()).collect();
            let rules = crate::policy::PolicyRules {
                deny: &deny,
                ..Default::default()
            };
            let policy = Policy::new(rules).unwrap();
            let relative = root.relative_path(requested).unwrap();
            near_misses(&root, &relative, &policy)
        }
    }

    #[test]
    fn a_misspelt_name_gets_the_closest_files_of_its_directory_best_first() {
        let fx = Fixture::new(&[
            "src/mian.txt",
            "src/mian.md",
            "src/mains.ts",
            "src/main.ts",
            "src/lib.rs",
            "main.ts",
        ]);
        // main.ts: one swap; mains.ts, mian.md, mian.txt: two edits (names ordered), and
        // only three are named.
        assert_eq!(
            fx.near("src/mian.ts", &[]),
            ["src/main.ts", "src/mains.ts", "src/mian.md"]
        );
        assert_eq!(fx.near("./src/../src/lib.r", &[]), ["src/lib.rs"]);
        assert_eq!(fx.near("mian.ts", &[]), ["main.ts"]);
        assert!(fx.near("src/unrelated.py", &[]).is_empty());
    }

    #[test]
    fn never_a_denied_file_a_directory_or_a_file_outside() {
        let fx = Fixture::new(&["config.pem", "other/config.yaml"]);
        fx.dir("config.tsx");
        fx.link("config.js", "config.pem");
        fx.link("config.json", "../outside/config.json");
        fx.link("config.ts.d", "other");
        let deny = ["*.pem"];
        assert_eq!(fx.near("config.ts", &deny), Vec::<String>::new());
        // Without the rule, the one readable file that is close.
        assert_eq!(fx.near("config.ts", &[]), ["config.js", "config.pem"]);
        fs::write(fx.ws.join("config.yml"), "x\n").unwrap();
        assert_eq!(fx.near("config.ts", &deny), ["config.yml"]);
    }

    #[test]
    fn through_a_symlinked_directory_inside_but_never_one_leading_out() {
        let fx = Fixture::new(&["src/main.ts"]);
        fx.link("linked", "src");
        fx.link("out", "../outside");
        assert_eq!(fx.near("linked/mian.ts", &[]), ["linked/main.ts"]);
        assert!(fx.near("out/mian.ts", &[]).is_empty());
        // A link inside that leads out is not followed out either.
        fx.link("src/deep", "../../outside");
        assert!(fx.near("src/deep/mian.ts", &[]).is_empty());
    }

    #[test]
    fn a_missing_directory_is_corrected_from_its_parent() {
        let fx = Fixture::new(&["src/utils/main.ts", "src/util.rs"]);
        assert_eq!(fx.near("src/utlis/main.ts", &[]), ["src/utils/main.ts"]);
        assert_eq!(
            fx.near("src/utlis/main.ts", &["utils/"]),
            Vec::<String>::new()
        );
        // Only the file asked for, not its near misses, in the corrected directory.
        assert!(fx.near("src/utlis/mian.ts", &[]).is_empty());
    }

    #[test]
    fn a_directory_or_a_name_ending_in_slash_gets_nothing() {
        let fx = Fixture::new(&["src/main.ts"]);
        assert!(fx.near("src/mian.ts/", &[]).is_empty());
        assert!(fx.near(".", &[]).is_empty());
        assert!(fx.near("src/main.ts/x", &[]).is_empty());
    }

    #[test]
    fn closeness_is_an_edit_distance_within_a_quarter_of_the_name() {
        assert_eq!(closeness("mian.ts", "main.ts"), Some(1));
        assert_eq!(closeness("Main.ts", "main.ts"), Some(0));
        assert_eq!(closeness("main.ts", "main.ts"), None);
        assert_eq!(closeness("README", "README.md"), Some(3));
        assert_eq!(closeness("config.yaml", "config.yml"), Some(1));
        assert_eq!(closeness("missing.ts", "main.ts"), None);
        assert_eq!(closeness("a", "b"), Some(1));
        assert_eq!(closeness(".env", ".envrc"), None);
        assert_eq!(stem(".env.local"), ".env");
        assert_eq!(stem("a.b.c"), "a");
        assert!(Path::new(&stem("")).as_os_str().is_empty());
    }

    #[test]
    fn suggestions_end_the_reason() {
        let paths = |list: &[&str]| list.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>();
        assert_eq!(with_suggestions("gone", &[]), "gone");
        assert_eq!(
            with_suggestions("gone", &paths(&["a"])),
            "gone; did you mean a?"
        );
        assert_eq!(
            with_suggestions("gone", &paths(&["a", "b", "c"])),
            "gone; did you mean a, b or c?"
        );
    }
}
