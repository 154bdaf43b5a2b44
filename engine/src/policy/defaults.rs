//! What a toolkit refuses and which ignore files it obeys unless told otherwise: the one
//! place these lists are written (the package exports them as `DEFAULT_DENY` and
//! `IGNORE_FILES`).

/// Files whose names say they hold secrets: credentials, private keys, tokens. Gitignore
/// syntax, relative to the workspace root; a name without `/` matches at any depth, and
/// deny rules ignore case. Of two rules that match, the later is the one a refusal names,
/// so a general rule comes before a specific one. Borderline entries say why they are here.
const SECRET_FILES: [&str; 56] = [
    // dotenv files. `*.env`: dotenv files under other names (Compose's `env_file`); no
    // language keeps source in `.env` files. `.envrc` (direnv) exports secrets to the shell;
    // `.dev.vars` is Cloudflare Wrangler's local secrets.
    "*.env",
    ".env",
    ".env.*",
    ".envrc",
    ".dev.vars",
    ".dev.vars.*",
    // Private keys under their usual names and suffixes (public keys `*.pub` go with them:
    // nothing a model needs), PKCS#8 (`*.p8`), PuTTY, Java and Android key stores.
    "*_rsa",
    "*_dsa",
    "*_ecdsa",
    "*_ed25519",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.p8",
    "*.ppk",
    "*.jks",
    "*.keystore",
    // Tools' credential files, by the names the tools give them.
    "**/.aws/credentials",
    "**/.docker/config.json",
    "**/.kube/config",
    "kubeconfig",
    "*.kubeconfig",
    "**/.cargo/credentials",
    "**/.cargo/credentials.toml",
    "**/.gem/credentials",
    "**/.config/gh/hosts.yml",
    "application_default_credentials.json",
    "client_secret*.json",
    // Google's OAuth quickstarts download the client secret as `credentials.json`; a test
    // fixture of that name is refused too, and `allow` re-admits it.
    "credentials.json",
    ".npmrc",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".my.cnf",
    ".htpasswd",
    ".vault-token",
    ".s3cfg",
    ".boto",
    ".terraformrc",
    "terraform.rc",
    // Applications' secrets as data (Rails' config/secrets.yml, Streamlit's secrets.toml,
    // Kubernetes Secret manifests); code named `secrets.ts` or `secrets.py` stays readable.
    "secrets.yml",
    "secrets.yaml",
    "secrets.json",
    "secrets.toml",
    // Terraform state holds every resource's secrets in plain text; `.tfvars` files hold the
    // variables' values, passwords among them (Terraform's own .gitignore keeps both out of
    // git). The variables themselves are declared in `.tf` files, which stay readable.
    "*.tfvars",
    "*.tfvars.json",
    "*.tfstate",
    "*.tfstate.*",
    // OpenVPN profiles usually embed the client's private key.
    "*.ovpn",
    // Shell and REPL histories keep the tokens typed on command lines.
    ".*_history",
];

/// Directories that hold secrets, or that a model has no business reading file by file.
const SECRET_DIRECTORIES: [&str; 4] = [
    ".ssh/",
    ".gnupg/",
    "**/.config/gcloud/",
    // Remote URLs with tokens in `config`, and objects a model should reach through git.
    ".git/",
];

/// The suffixes of the copies people and editors leave beside a file: `~` (Emacs, Vim, nano
/// -B, gedit), `.bak`, `.old`, `.orig` (patch and merge tools). Vim's swap files are left
/// out: their NUL bytes make them binary, which no read returns.
const COPY_SUFFIXES: [&str; 4] = ["~", ".bak", ".old", ".orig"];

/// `rule` and the rules for its copies: each suffix (unless the rule ends in `*`, which
/// covers them), and Emacs's auto-save `#name#` (escaped at the start of a rule, where `#`
/// would begin a comment).
fn with_copies(rule: &str) -> impl Iterator<Item = String> + '_ {
    let slash = rule.rfind('/').map_or(0, |at| at + 1);
    let (directory, name) = rule.split_at(slash);
    let suffixed = match name.ends_with('*') {
        true => &[][..],
        false => &COPY_SUFFIXES[..],
    };
    let auto_save = match directory {
        "" => format!("\\#{name}#"),
        directory => format!("{directory}#{name}#"),
    };
    std::iter::once(rule.to_owned())
        .chain(suffixed.iter().map(move |suffix| format!("{rule}{suffix}")))
        .chain(std::iter::once(auto_save))
}

/// What a toolkit refuses unless told otherwise: secrets an agent has no business sending
/// to a model, and their copies. The examples `.env.example` and `.env.sample` are read;
/// their copies are not (an edit in progress may hold real values).
pub fn default_deny() -> Vec<String> {
    let files = SECRET_FILES.iter().flat_map(|rule| with_copies(rule));
    let directories = SECRET_DIRECTORIES.iter().map(|rule| (*rule).to_owned());
    let examples = ["!.env.example", "!.env.sample"].map(str::to_owned);
    files.chain(directories).chain(examples).collect()
}

/// The ignore files a toolkit obeys unless told otherwise: the files in which agents' users
/// keep what their tools must not read (JetBrains AI Assistant's `.aiignore`, Cursor's,
/// Gemini CLI's, Cline's, Roo Code's, Aider's, Windsurf's), and this package's own.
pub const IGNORE_FILES: [&str; 8] = [
    ".aiignore",
    ".cursorignore",
    ".geminiignore",
    ".clineignore",
    ".rooignore",
    ".aiderignore",
    ".codeiumignore",
    ".agentreadfileignore",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_comes_with_its_copies_and_a_wildcard_name_with_its_auto_save_alone() {
        let copies = |rule| with_copies(rule).collect::<Vec<_>>();
        assert_eq!(
            copies(".env"),
            [
                ".env",
                ".env~",
                ".env.bak",
                ".env.old",
                ".env.orig",
                "\\#.env#"
            ]
        );
        assert_eq!(copies("**/.kube/config")[5], "**/.kube/#config#");
        assert_eq!(
            copies("*.pem"),
            [
                "*.pem",
                "*.pem~",
                "*.pem.bak",
                "*.pem.old",
                "*.pem.orig",
                "\\#*.pem#"
            ]
        );
        assert_eq!(copies("id_rsa*"), ["id_rsa*", "\\#id_rsa*#"]);
    }
}
