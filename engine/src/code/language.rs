//! Which language a file is, told by its name: the outline a file gets follows from it.

/// A language the outline knows how to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    Rust,
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Go,
    Java,
    C,
    Cpp,
    Json,
    Markdown,
    Yaml,
    Toml,
    /// Any other text: its outline is the indentation's blocks, marked approximate.
    Other,
}

impl Language {
    /// The language of the file at `path`, by its extension.
    pub fn of_path(path: &str) -> Language {
        let name = path.rsplit('/').next().unwrap_or(path);
        let Some((_, extension)) = name.rsplit_once('.') else {
            return Language::Other;
        };
        match extension.to_ascii_lowercase().as_str() {
            "rs" => Language::Rust,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "py" | "pyi" => Language::Python,
            "go" => Language::Go,
            "java" => Language::Java,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tcc" => {
                Language::Cpp
            }
            "json" | "jsonc" | "json5" | "geojson" => Language::Json,
            "md" | "markdown" | "mdx" => Language::Markdown,
            "yaml" | "yml" => Language::Yaml,
            "toml" => Language::Toml,
            _ => Language::Other,
        }
    }

    /// Its name as an answer gives it.
    pub const fn name(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::JavaScript => "javascript",
            Language::Python => "python",
            Language::Go => "go",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Json => "json",
            Language::Markdown => "markdown",
            Language::Yaml => "yaml",
            Language::Toml => "toml",
            Language::Other => "text",
        }
    }

    /// Whether a read with no range of a long file of this language is answered with its
    /// outline: every language the outline reads exactly (never the indentation's guess).
    pub const fn outlined_unasked(self) -> bool {
        !matches!(self, Language::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_told_by_its_extension_in_any_case_and_anything_else_is_other() {
        for (path, language) in [
            ("src/parser.rs", Language::Rust),
            ("a/b.d.ts", Language::TypeScript),
            ("App.TSX", Language::Tsx),
            ("index.mjs", Language::JavaScript),
            ("lib/os.py", Language::Python),
            ("main.go", Language::Go),
            ("A.java", Language::Java),
            ("stdio.h", Language::C),
            ("vector.hpp", Language::Cpp),
            ("package.json", Language::Json),
            ("README.md", Language::Markdown),
            ("ci.yml", Language::Yaml),
            ("Cargo.toml", Language::Toml),
            ("Makefile", Language::Other),
            ("notes.txt", Language::Other),
            (".rs", Language::Rust),
            ("dir.rs/file", Language::Other),
        ] {
            assert_eq!(Language::of_path(path), language, "{path}");
        }
    }
}
