//! A file's outline: its definitions, each with its name path, its lines and its first line
//! as written, in file order, nested by scope. Made by a grammar ([`grammar`]), from
//! Markdown's headings or a data file's keys ([`plain`]), or, for any other text, from the
//! indentation's blocks, marked approximate.

use super::language::Language;
use super::{grammar, plain};

pub use super::definition::{Definition, MAX_DEFINITIONS, MAX_DEPTH, MAX_SIGNATURE_BYTES};
pub use super::grammar::ParseBounds;

/// How an outline was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutlineSource {
    /// By the language's tree-sitter grammar.
    Grammar,
    /// From Markdown's headings.
    Headings,
    /// From a JSON, YAML or TOML file's keys.
    Keys,
    /// From the indentation's blocks: approximate (no grammar for the language, or its
    /// parse went past its bounds).
    Indentation,
}

impl OutlineSource {
    /// Its name as an answer gives it.
    pub const fn name(self) -> &'static str {
        match self {
            OutlineSource::Grammar => "grammar",
            OutlineSource::Headings => "headings",
            OutlineSource::Keys => "keys",
            OutlineSource::Indentation => "indentation",
        }
    }
}

/// A file's outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outline {
    pub language: Language,
    pub source: OutlineSource,
    pub definitions: Vec<Definition>,
    /// The file's lines.
    pub line_count: u64,
}

/// The outline of `text`, a file of `language`, its parse within `bounds`; `stop` (when set)
/// stops a parse as its caller gives up, and the outline is then the indentation's.
pub fn outline(
    text: &str,
    language: Language,
    bounds: ParseBounds,
    stop: Option<&std::sync::atomic::AtomicBool>,
) -> Outline {
    let line_count = line_count(text);
    let made = match language {
        Language::Markdown => Some((OutlineSource::Headings, plain::headings(text))),
        Language::Yaml => Some((OutlineSource::Keys, plain::yaml_keys(text))),
        Language::Toml => Some((OutlineSource::Keys, plain::toml_keys(text))),
        Language::Other => None,
        Language::Json => grammar::definitions(text, language, bounds, stop)
            .map(|definitions| (OutlineSource::Keys, definitions)),
        _ => grammar::definitions(text, language, bounds, stop)
            .map(|definitions| (OutlineSource::Grammar, definitions)),
    };
    let (source, definitions) =
        made.unwrap_or_else(|| (OutlineSource::Indentation, plain::indentation_blocks(text)));
    Outline {
        language,
        source,
        definitions,
        line_count,
    }
}

/// The lines of `text`: a last line without a line break counts; an empty text has none.
pub fn line_count(text: &str) -> u64 {
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
    breaks + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_the_window_counts_them() {
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("a"), 1);
        assert_eq!(line_count("a\n"), 1);
        assert_eq!(line_count("a\nb"), 2);
        assert_eq!(line_count("\n\n"), 2);
    }

    #[test]
    fn each_language_gets_its_kind_of_outline() {
        let made =
            |text: &str, language| outline(text, language, ParseBounds::default(), None).source;
        assert_eq!(made("fn f() {}\n", Language::Rust), OutlineSource::Grammar);
        assert_eq!(made("{\"a\": 1}\n", Language::Json), OutlineSource::Keys);
        assert_eq!(made("a: 1\n", Language::Yaml), OutlineSource::Keys);
        assert_eq!(made("a = 1\n", Language::Toml), OutlineSource::Keys);
        assert_eq!(made("# A\n", Language::Markdown), OutlineSource::Headings);
        assert_eq!(
            made("a {\n  b\n}\n", Language::Other),
            OutlineSource::Indentation
        );
        let bounded = ParseBounds {
            max_bytes: 4,
            ..ParseBounds::default()
        };
        let past = outline("fn f() {\n    g()\n}\n", Language::Rust, bounded, None);
        assert_eq!(
            past.source,
            OutlineSource::Indentation,
            "past its bounds, the indentation's"
        );
        assert_eq!(past.definitions[0].name, "f");
    }
}
