//! Which files a toolkit may read: gitignore-syntax rules relative to the workspace root.
//!
//! `deny` rules say what is refused, `allow` rules re-admit part of it (`.env.example`
//! under `.env.*`). A rule is a gitignore line: a name without `/` matches at any depth, a
//! leading `/` (or any inner `/`) anchors it to the root, a trailing `/` matches a directory
//! and everything in it, `!` re-admits within the same list, `**` crosses directories.
//!
//! The rules are matched against the path the file was actually opened by, beneath the root
//! ([`OpenedFile::path`]: the names the sandbox looked up, symlinks resolved), never
//! against the spelling asked for: a symlink to a denied file is denied. A file opened
//! under a denied name stays denied whatever happens to that name afterwards (unlinked,
//! renamed). Hard links cannot be told apart by path: a hard link to a denied file, under
//! an admitted name, is read.

use std::path::Path;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::error::{ErrorCode, ReadFileError};
use crate::sandbox::OpenedFile;

/// Compiled `deny` and `allow` rules.
#[derive(Debug)]
pub struct Policy {
    deny: Gitignore,
    allow: Gitignore,
}

/// Why a file is refused: the rule that denies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// The `deny` rule as written.
    pub rule: String,
}

impl Policy {
    /// Compiles the rules; a rule that is not valid gitignore syntax is `INVALID_ARGUMENT`,
    /// naming the list (`deny` or `allow`) and the rule.
    pub fn new(deny: &[String], allow: &[String]) -> Result<Policy, ReadFileError> {
        Ok(Policy {
            deny: compile("deny", deny, DENY_CASE_INSENSITIVE)?,
            allow: compile("allow", allow, ALLOW_CASE_INSENSITIVE)?,
        })
    }

    /// Whether no rule denies anything (then nothing needs checking).
    pub fn is_empty(&self) -> bool {
        self.deny.num_ignores() == 0
    }

    /// `Some` when `relative` (a file's workspace-relative path) is denied and not
    /// re-admitted by `allow`.
    pub fn denial(&self, relative: &Path) -> Option<Denial> {
        let Match::Ignore(rule) = self.deny.matched_path_or_any_parents(relative, false) else {
            return None;
        };
        if self
            .allow
            .matched_path_or_any_parents(relative, false)
            .is_ignore()
        {
            return None;
        }
        Some(Denial {
            rule: rule.original().to_owned(),
        })
    }
}

/// `Err(POLICY_DENIED)` when `policy` refuses the file `opened` (asked for as
/// `requested`), decided on the path it was opened by.
pub fn check(policy: &Policy, opened: &OpenedFile, requested: &str) -> Result<(), ReadFileError> {
    if policy.is_empty() {
        return Ok(());
    }
    match policy.denial(&opened.path) {
        None => Ok(()),
        Some(denial) => Err(ReadFileError::new(
            ErrorCode::PolicyDenied,
            requested,
            format!(
                "{} is denied by the rule {:?}",
                opened.path.display(),
                denial.rule
            ),
        )),
    }
}

/// Deny rules ignore case on every OS: a case-insensitive volume (macOS's default, a
/// mounted Windows or exFAT volume, an ext4 `casefold` directory) opens `.ENV` as `.env`,
/// and the path a file was opened by keeps the spelling asked for. On a case-sensitive
/// volume this denies more (`.ENV` is another file there), never less.
const DENY_CASE_INSENSITIVE: bool = true;

/// Allow rules re-admit by exact case, except on macOS, whose volumes ignore case by
/// default; elsewhere an allowed `.env.example` does not re-admit `.ENV.EXAMPLE`.
const ALLOW_CASE_INSENSITIVE: bool = cfg!(target_os = "macos");

fn compile(
    list: &str,
    rules: &[String],
    case_insensitive: bool,
) -> Result<Gitignore, ReadFileError> {
    let mut builder = GitignoreBuilder::new(".");
    builder
        .case_insensitive(case_insensitive)
        .map_err(|error| ReadFileError::new(ErrorCode::Internal, list, error.to_string()))?;
    for rule in rules {
        if let Err(error) = builder.add_line(None, rule) {
            return Err(ReadFileError::new(
                ErrorCode::InvalidArgument,
                list,
                format!("{list} rule {rule:?} is not a valid gitignore pattern ({error})"),
            ));
        }
    }
    builder.build().map_err(|error| {
        ReadFileError::new(
            ErrorCode::InvalidArgument,
            list,
            format!("{list} rules could not be compiled ({error})"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(list: &[&str]) -> Vec<String> {
        list.iter().map(|rule| (*rule).to_owned()).collect()
    }

    fn denied(deny: &[&str], allow: &[&str], path: &str) -> Option<String> {
        let policy = Policy::new(&rules(deny), &rules(allow)).unwrap();
        policy.denial(Path::new(path)).map(|denial| denial.rule)
    }

    #[test]
    fn gitignore_syntax_relative_to_the_root() {
        assert_eq!(denied(&[".env"], &[], ".env").as_deref(), Some(".env"));
        assert_eq!(
            denied(&[".env"], &[], "pkg/a/.env").as_deref(),
            Some(".env")
        );
        assert_eq!(denied(&[".env"], &[], ".env.local"), None);
        assert_eq!(denied(&["/top.txt"], &[], "sub/top.txt"), None);
        assert!(denied(&["/top.txt"], &[], "top.txt").is_some());
        assert!(denied(&["secrets/"], &[], "a/secrets/b/c.txt").is_some());
        assert_eq!(denied(&["secrets/"], &[], "secrets.txt"), None);
        assert!(denied(&["**/.aws/credentials"], &[], "x/.aws/credentials").is_some());
        assert!(denied(&["*.pem"], &[], "certs/site.pem").is_some());
    }

    #[test]
    fn deny_rules_ignore_case_and_allow_rules_keep_it_off_macos() {
        assert_eq!(denied(&[".env"], &[], ".ENV").as_deref(), Some(".env"));
        assert_eq!(
            denied(&["*.pem"], &[], "certs/CERT.PEM").as_deref(),
            Some("*.pem")
        );
        assert_eq!(
            denied(&["secrets/"], &[], "Secrets/a.txt").as_deref(),
            Some("secrets/")
        );
        let upper = denied(&[".env.*"], &[".env.example"], ".ENV.EXAMPLE");
        assert_eq!(upper.is_none(), cfg!(target_os = "macos"));
    }

    #[test]
    fn allow_and_negation_readmit() {
        assert_eq!(denied(&[".env.*"], &[".env.example"], ".env.example"), None);
        assert!(denied(&[".env.*"], &[".env.example"], ".env.local").is_some());
        assert_eq!(
            denied(&[".env.*", "!.env.sample"], &[], ".env.sample"),
            None
        );
        assert_eq!(
            denied(&["secrets/"], &["secrets/public.txt"], "secrets/public.txt"),
            None
        );
    }

    #[test]
    fn empty_rules_deny_nothing_and_bad_rules_are_invalid_arguments() {
        let policy = Policy::new(&[], &[]).unwrap();
        assert!(policy.is_empty());
        assert_eq!(policy.denial(Path::new(".env")), None);
        let err = Policy::new(&rules(&["[z-a]"]), &[]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(err.reason.contains("\"[z-a]\""), "{}", err.reason);
    }

    /// The code of reading `requested` beneath a workspace holding `.env`, a symlink alias
    /// of it, a symlinked directory and `.env.example`, with `deny: [".env", ".env.*"]`.
    fn read_code(requested: &str, allow: &[&str]) -> Result<String, ErrorCode> {
        use crate::read_file::{ReadOptions, read_file};
        use crate::request::ReadRequest;
        use crate::sandbox::Root;
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::write(ws.join(".env"), "SECRET=1\n").unwrap();
        std::fs::write(ws.join("sub/.env"), "SUB_SECRET=1\n").unwrap();
        std::fs::write(ws.join(".env.example"), "SECRET=\n").unwrap();
        std::fs::write(ws.join("readme.txt"), "hello\n").unwrap();
        symlink(".env", ws.join("notes.txt")).unwrap();
        symlink("sub", ws.join("linked")).unwrap();
        std::fs::hard_link(ws.join(".env"), ws.join("hard.txt")).unwrap();
        let root = Root::open(ws.to_str().unwrap()).unwrap();
        let policy = Policy::new(&rules(&[".env", ".env.*"]), &rules(allow)).unwrap();
        let options = ReadOptions {
            policy: Some(&policy),
            ..ReadOptions::default()
        };
        let requested = requested.replace("<ws>", ws.to_str().unwrap());
        let request = ReadRequest::for_path(requested).unwrap();
        read_file(&root, &request, options)
            .map(|(out, _)| out.content.as_str().to_owned())
            .map_err(|err| err.code)
    }

    #[test]
    fn the_file_opened_is_judged_not_its_spelling() {
        let denied = Err(ErrorCode::PolicyDenied);
        assert_eq!(read_code(".env", &[]), denied);
        assert_eq!(read_code("notes.txt", &[]), denied, "symlink alias");
        assert_eq!(read_code("linked/.env", &[]), denied, "symlinked directory");
        assert_eq!(read_code("<ws>/.env", &[]), denied, "absolute spelling");
        assert_eq!(read_code("./sub/../.env", &[]), denied, "./ and .. tricks");
        assert_eq!(read_code("sub//./.env", &[]), denied);
        assert_eq!(read_code("readme.txt", &[]), Ok("hello\n".into()));
        assert_eq!(read_code(".env.example", &[]), denied);
        assert_eq!(
            read_code(".env.example", &[".env.example"]),
            Ok("SECRET=\n".into())
        );
        // Hard links are the same file under another name: they cannot be told apart.
        assert_eq!(read_code("hard.txt", &[]), Ok("SECRET=1\n".into()));
    }
}
