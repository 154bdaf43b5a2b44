//! What a toolkit's error tells a model to read next. `NOT_FOUND` suggests up to
//! [`MAX_SUGGESTIONS`] readable files whose paths are closest to the one asked for, so that a
//! model that misspelt a name reads the file on its next call instead of listing directories
//! first; `NOT_FILE` of a directory names up to [`MAX_ENTRIES_LISTED`] of its entries
//! ([`directory_entries`]), as a model that asks to read a directory wants to know what is in
//! it.
//!
//! Only the error path runs this. A directory is listed through the root handle
//! ([`Root::open_directory`], confined as every open is), at most [`MAX_ENTRIES_EXAMINED`]
//! of its entries are looked at, and a file is named only once it has been opened as a
//! regular file beneath the root and the toolkit's policy admits the path it was opened by
//! ([`source::open`]): never a denied file, or anything a symlink leads to outside the
//! workspace. A subdirectory is named (`lib/`) unless the toolkit's own rules deny it.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{Dir, FileType};

use crate::attempt::Access;
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

/// The most entries a `NOT_FILE` of a directory names.
pub const MAX_ENTRIES_LISTED: usize = 20;

/// The most files opened to list one directory (each is opened, and the policy asked, before
/// it is named): a directory of denied files costs 64 opens at most.
const MAX_FILES_CHECKED: usize = 64;

/// What a model could read next in the directory `relative`, by name, sorted: files that
/// open beneath the root and the policy admits, and subdirectories the toolkit's own rules
/// do not deny (`lib/`); at most [`MAX_ENTRIES_LISTED`], and whether more were left out.
/// `None` when `relative` is not a directory beneath the root.
pub fn directory_entries(
    root: &Root,
    relative: &str,
    policy: &Policy,
) -> Option<(Vec<String>, bool)> {
    let directory = relative.trim_end_matches('/');
    let entries = Dir::new(root.open_directory(directory).ok()?).ok()?;
    let mut names: Vec<(String, bool)> = entries
        .take(MAX_ENTRIES_EXAMINED)
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = typable_name(OsStr::from_bytes(entry.file_name().to_bytes()))?;
            Some((name, entry.file_type() == FileType::Directory))
        })
        .collect();
    let mut more = names.len() == MAX_ENTRIES_EXAMINED;
    names.sort();
    let (mut listed, mut opened) = (Vec::new(), 0);
    for (name, is_directory) in names {
        if listed.len() == MAX_ENTRIES_LISTED || opened == MAX_FILES_CHECKED {
            more = true;
            break;
        }
        let path = join(directory, &name);
        if is_directory {
            if !denies_whole(policy, &path) {
                listed.push(format!("{name}/"));
            }
        } else {
            opened += 1;
            if source::open(root, &path, Some(policy), Access::MayWait).is_ok() {
                listed.push(name);
            }
        }
    }
    Some((listed, more))
}

/// Whether the toolkit's own rules deny what the directory `path` holds. A rule of directories
/// (`.git/`) matches the files in one, so it is asked of a file in it, named as no file is.
fn denies_whole(policy: &Policy, path: &str) -> bool {
    policy.denial(&Path::new(path).join("\u{1}")).is_some()
}

/// `reason` with what the directory holds: `...; it holds a.ts, lib/ and more`.
pub fn with_entries(reason: &str, (names, more): &(Vec<String>, bool)) -> String {
    match (names.as_slice(), more) {
        ([], false) => format!("{reason}; it holds nothing read_file may read"),
        ([], true) => format!("{reason}; none of the first entries it holds may be read"),
        (names, true) => format!("{reason}; it holds {} and more", names.join(", ")),
        ([only], false) => format!("{reason}; it holds {only}"),
        ([first @ .., last], false) => {
            format!("{reason}; it holds {} and {last}", first.join(", "))
        }
    }
}

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
        .filter(|path| source::open(root, path, Some(policy), Access::MayWait).is_ok())
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

        /// `ask` of the root, the policy of the `deny` rules, and `requested` made relative.
        fn with<T>(
            &self,
            requested: &str,
            deny: &[&str],
            ask: impl Fn(&Root, &str, &Policy) -> T,
        ) -> T {
            let root = Root::open(self.ws.to_str().unwrap()).unwrap();
            let deny: Vec<String> = deny.iter().map(|rule| (*rule).to_owned()).collect();
            let rules = crate::policy::PolicyRules {
                deny: &deny,
                ..Default::default()
            };
            let policy = Policy::new(rules).unwrap();
            let relative = root.relative_path(requested).unwrap();
            ask(&root, &relative, &policy)
        }

        fn listed(&self, requested: &str, deny: &[&str]) -> Option<(Vec<String>, bool)> {
            self.with(requested, deny, directory_entries)
        }

        fn near(&self, requested: &str, deny: &[&str]) -> Vec<String> {
            self.with(requested, deny, near_misses)
        }
    }

    /// Issue 36 §5: a directory answered `NOT_FILE` with no next step.
    #[test]
    fn a_directory_names_what_may_be_read_in_it_sorted() {
        let fx = Fixture::new(&[
            "src/b.ts",
            "src/a.ts",
            "src/key.pem",
            "src/lib/x.rs",
            "src/.git/HEAD",
        ]);
        fx.link("src/out.ts", "../../outside/main.ts");
        fx.link("src/up.ts", "../src/a.ts");
        let listed = |requested: &str| fx.listed(requested, &["*.pem", ".git/"]);
        // Not key.pem nor .git/ (denied), nor out.ts (outside); up.ts opens a.ts, inside.
        let names = ["a.ts", "b.ts", "lib/", "up.ts"].map(String::from).to_vec();
        let expected = (names, false);
        assert_eq!(listed("src"), Some(expected.clone()));
        assert_eq!(listed("./src/"), Some(expected.clone()));
        assert_eq!(listed("src/a.ts"), None);
        assert_eq!(listed("missing"), None);
        assert_eq!(
            with_entries("a directory, not a regular file", &expected),
            "a directory, not a regular file; it holds a.ts, b.ts, lib/ and up.ts"
        );
    }

    #[test]
    fn a_large_directory_names_its_first_entries_and_says_there_are_more() {
        let names: Vec<String> = (0..30).map(|i| format!("big/f{i:02}.txt")).collect();
        let fx = Fixture::new(&names.iter().map(String::as_str).collect::<Vec<_>>());
        let (listed, more) = fx.listed("big", &[]).unwrap();
        assert_eq!(listed.len(), MAX_ENTRIES_LISTED);
        assert_eq!(
            (listed[0].as_str(), listed[19].as_str(), more),
            ("f00.txt", "f19.txt", true)
        );
        assert_eq!(
            with_entries("r", &(vec!["a".into(), "b/".into()], true)),
            "r; it holds a, b/ and more"
        );
        assert_eq!(
            with_entries("r", &(vec![], false)),
            "r; it holds nothing read_file may read"
        );
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
