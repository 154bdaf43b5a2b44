//! Which files a toolkit may read: gitignore-syntax rules relative to the workspace root.
//!
//! Three kinds of rules deny, each on its own: the toolkit's default list
//! (`DEFAULT_DENY`, unless turned off), its own `deny` rules, and the workspace's ignore
//! files ([`ignore_files`]). A file is refused when any of them denies it; a `!rule`
//! re-admits only within its own kind (a `deny` list's `!.env` does not re-admit what the
//! defaults deny). `allow` rules re-admit whatever any of them denies (`.env.example` under
//! `.env.*`): only the toolkit's own options can re-admit a default. A rule is a gitignore
//! line: a name without `/` matches at any depth, a leading `/` (or any inner `/`) anchors
//! it, a trailing `/` matches a directory and everything in it, `**` crosses directories.
//!
//! The rules are matched against the path the file was actually opened by, beneath the root
//! ([`OpenedFile::path`]: the names the sandbox looked up, symlinks resolved), never
//! against the spelling asked for: a symlink to a denied file is denied. A file opened
//! under a denied name stays denied whatever happens to that name afterwards (unlinked,
//! renamed). Hard links cannot be told apart by path: a hard link to a denied file, under
//! an admitted name, is read.

pub mod defaults;
mod ignore_files;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use self::ignore_files::{IgnoreFiles, WouldWait};
pub use self::ignore_files::{MAX_IGNORE_FILE_BYTES, MAX_IGNORE_FILE_NAMES};
use crate::attempt::{Access, Attempt, Stop};
use crate::error::{ErrorCode, ReadFileError};
use crate::sandbox::{OpenedFile, Root};

/// The rules of a toolkit, as given.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolicyRules<'a> {
    /// The default list (`DEFAULT_DENY`), or none when the defaults are turned off.
    pub default_deny: &'a [String],
    /// The toolkit's own deny rules, added to the defaults.
    pub deny: &'a [String],
    /// Rules that re-admit what any deny rule or ignore file denies.
    pub allow: &'a [String],
    /// The names of the ignore files obeyed in every directory of the workspace.
    pub ignore_files: &'a [String],
}

/// Compiled rules: the defaults, `deny`, `allow` and the ignore files obeyed.
#[derive(Debug)]
pub struct Policy {
    default_deny: Gitignore,
    deny: Gitignore,
    allow: Gitignore,
    ignore_files: IgnoreFiles,
    /// What the toolkit's own rules said of the paths judged lately.
    verdicts: Mutex<HashMap<OsString, RulesVerdict>>,
}

/// What the toolkit's own rules (the defaults, `deny` and `allow`) say of one path. It
/// depends on the path alone, and matching a path against the default list cost more than
/// the rest of a cached read's check: it is worked out once per path.
#[derive(Clone, Debug)]
struct RulesVerdict {
    /// The denial, unless `allow` re-admits the path.
    denial: Option<Denial>,
    /// Whether `allow` re-admits the path (then no ignore file is asked either).
    allowed: bool,
}

/// The most paths whose verdict is kept; then they are all let go.
const REMEMBERED_VERDICTS: usize = 1024;

/// Why a file is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Denial {
    /// A rule of the toolkit's own denies it.
    Rule {
        /// The rule as written.
        rule: String,
        /// Where the rule is: `DEFAULT_DENY` or `deny rule N` (from 1).
        source: String,
    },
    /// A rule of one of the workspace's ignore files denies it. The rule's text is not
    /// kept: an ignore file is the workspace's content, and a refusal names only where the
    /// rule is.
    IgnoreFileRule {
        /// The ignore file's workspace-relative path and the rule's line (`sub/.aiignore:3`).
        source: String,
    },
    /// An ignore file above it cannot be used, so nothing below that file's directory is
    /// read.
    Unusable {
        /// The ignore file (and line, for a rule that is not valid).
        source: String,
        /// What is wrong with it, in words.
        why: String,
        /// The directory it rules (empty for the root).
        below: String,
    },
}

impl Denial {
    /// The reason of the `POLICY_DENIED` of the file opened by `path`.
    pub fn reason(&self, path: &Path) -> String {
        let path = path.display();
        match self {
            Denial::Rule { rule, source } => format!("{path} is denied by {rule:?} ({source})"),
            Denial::IgnoreFileRule { source } => format!("{path} is denied by {source}"),
            Denial::Unusable { source, why, below } => {
                let below = if below.is_empty() {
                    "the workspace".to_owned()
                } else {
                    format!("{below}/")
                };
                format!(
                    "{path} is denied because {source} {why}; nothing in {below} is read until it is fixed"
                )
            }
        }
    }
}

/// Where the default list's rules come from, in a denial.
const DEFAULT_DENY_SOURCE: &str = "DEFAULT_DENY";

impl Policy {
    /// Compiles the rules; a rule that is not valid gitignore syntax is `INVALID_ARGUMENT`,
    /// naming the list and the rule, and so is an ignore file's name that is not a plain
    /// file name.
    pub fn new(rules: PolicyRules<'_>) -> Result<Policy, ReadFileError> {
        let default_source = |_| PathBuf::from(DEFAULT_DENY_SOURCE);
        let deny_source = |index: usize| PathBuf::from(format!("deny rule {}", index + 1));
        let allow_source = |index: usize| PathBuf::from(format!("allow rule {}", index + 1));
        Ok(Policy {
            default_deny: compile(
                "defaultDeny",
                rules.default_deny,
                DENY_CASE_INSENSITIVE,
                default_source,
            )?,
            deny: compile("deny", rules.deny, DENY_CASE_INSENSITIVE, deny_source)?,
            allow: compile("allow", rules.allow, ALLOW_CASE_INSENSITIVE, allow_source)?,
            ignore_files: IgnoreFiles::new(rules.ignore_files)?,
            verdicts: Mutex::default(),
        })
    }

    /// Whether nothing can be denied (then nothing needs checking).
    pub fn is_empty(&self) -> bool {
        self.default_deny.num_ignores() == 0
            && self.deny.num_ignores() == 0
            && self.ignore_files.is_empty()
    }

    /// `Some` when the toolkit's own rules (the defaults and `deny`) refuse `relative` (a
    /// file's workspace-relative path) and `allow` does not re-admit it. The ignore files
    /// are not asked: see [`check`].
    pub fn denial(&self, relative: &Path) -> Option<Denial> {
        self.verdict(relative).denial
    }

    /// What the toolkit's own rules say of `relative`, from the remembered verdicts when
    /// it was judged lately.
    fn verdict(&self, relative: &Path) -> RulesVerdict {
        if let Some(verdict) = self.remembered().get(relative.as_os_str()) {
            return verdict.clone();
        }
        let allowed = self
            .allow
            .matched_path_or_any_parents(relative, false)
            .is_ignore();
        let denial = listed_denial(&self.default_deny, relative)
            .or_else(|| listed_denial(&self.deny, relative))
            .filter(|_| !allowed);
        let verdict = RulesVerdict { denial, allowed };
        let mut verdicts = self.remembered();
        if verdicts.len() >= REMEMBERED_VERDICTS {
            verdicts.clear();
        }
        verdicts.insert(relative.as_os_str().to_owned(), verdict.clone());
        verdict
    }

    fn remembered(&self) -> std::sync::MutexGuard<'_, HashMap<OsString, RulesVerdict>> {
        self.verdicts
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The denial of the file opened by `relative`, the workspace's ignore files read
    /// beneath `root` as `access` allows.
    fn judge(
        &self,
        root: &Root,
        relative: &Path,
        access: Access,
    ) -> Result<Option<Denial>, WouldWait> {
        let verdict = self.verdict(relative);
        if let Some(denial) = verdict.denial {
            return Ok(Some(denial));
        }
        if self.ignore_files.is_empty() || verdict.allowed {
            return Ok(None);
        }
        let admits = |opened: &Path| self.verdict(opened).denial.is_none();
        self.ignore_files.denial(root, relative, access, &admits)
    }
}

/// The denial of one list (last matching rule wins, a `!rule` re-admits within the list).
fn listed_denial(rules: &Gitignore, relative: &Path) -> Option<Denial> {
    let Match::Ignore(glob) = rules.matched_path_or_any_parents(relative, false) else {
        return None;
    };
    Some(Denial::Rule {
        rule: glob.original().to_owned(),
        source: glob
            .from()
            .map(|from| from.display().to_string())
            .unwrap_or_default(),
    })
}

/// `Err(POLICY_DENIED)` when `policy` refuses the file `opened` beneath `root` (asked for
/// as `requested`), decided on the path it was opened by. The workspace's ignore files are
/// read as `access` allows: from memory, [`Stop::WouldBlock`] when one is not all there.
pub fn check(
    policy: &Policy,
    root: &Root,
    opened: &OpenedFile,
    requested: &str,
    access: Access,
) -> Attempt<()> {
    if policy.is_empty() {
        return Ok(());
    }
    match policy.judge(root, &opened.path, access) {
        Ok(denial) => Ok(refused(denial, opened, requested)?),
        Err(WouldWait) if access == Access::FromMemory => Err(Stop::WouldBlock),
        // Reads that may wait never stop for it; refuse rather than read unjudged.
        Err(WouldWait) => Err(Stop::Failed(ReadFileError::new(
            ErrorCode::Internal,
            requested,
            "the policy could not be checked",
        ))),
    }
}

fn refused(
    denial: Option<Denial>,
    opened: &OpenedFile,
    requested: &str,
) -> Result<(), ReadFileError> {
    match denial {
        None => Ok(()),
        Some(denial) => Err(ReadFileError::new(
            ErrorCode::PolicyDenied,
            requested,
            denial.reason(&opened.path),
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

/// Compiles the list `list`, each rule tagged with `source(index)`.
fn compile(
    list: &str,
    rules: &[String],
    case_insensitive: bool,
    source: impl Fn(usize) -> PathBuf,
) -> Result<Gitignore, ReadFileError> {
    let mut builder = GitignoreBuilder::new(".");
    builder
        .case_insensitive(case_insensitive)
        .map_err(|error| ReadFileError::new(ErrorCode::Internal, list, error.to_string()))?;
    for (index, rule) in rules.iter().enumerate() {
        if let Err(error) = builder.add_line(Some(source(index)), rule) {
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
    use crate::attempt::waited;

    fn rules(list: &[&str]) -> Vec<String> {
        list.iter().map(|rule| (*rule).to_owned()).collect()
    }

    fn policy(deny: &[&str], allow: &[&str]) -> Policy {
        let (deny, allow) = (rules(deny), rules(allow));
        Policy::new(PolicyRules {
            deny: &deny,
            allow: &allow,
            ..PolicyRules::default()
        })
        .unwrap()
    }

    fn denied(deny: &[&str], allow: &[&str], path: &str) -> Option<String> {
        match policy(deny, allow).denial(Path::new(path))? {
            Denial::Rule { rule, .. } => Some(rule),
            Denial::IgnoreFileRule { source } | Denial::Unusable { source, .. } => Some(source),
        }
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
        let policy = policy(&[], &[]);
        assert!(policy.is_empty());
        assert_eq!(policy.denial(Path::new(".env")), None);
        let bad = rules(&["[z-a]"]);
        let err = Policy::new(PolicyRules {
            deny: &bad,
            ..PolicyRules::default()
        })
        .unwrap_err();
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
        let policy = policy(&[".env", ".env.*"], allow);
        let options = ReadOptions {
            policy: Some(&policy),
            ..ReadOptions::default()
        };
        let requested = requested.replace("<ws>", ws.to_str().unwrap());
        let request = ReadRequest::for_path(requested).unwrap();
        waited(read_file(&root, &request, options))
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
