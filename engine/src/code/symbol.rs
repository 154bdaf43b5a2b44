//! A definition found by its name: `parse_statement`, `Parser.parse_statement` or
//! `Parser::parse_statement`, and `#2` after it to pick the second of several; `impl Parser`
//! for a Rust `impl` block.

use std::collections::HashMap;

use super::outline::{Definition, Outline};

/// The most definitions a symbol read lists when several match.
pub const MAX_MATCHES: usize = 10;

/// How many names a symbol read with no match suggests.
pub const NEAREST_NAMES: usize = 3;

/// A symbol as asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolQuery {
    /// As given, for messages.
    pub text: String,
    /// Its names, outermost first.
    parts: Vec<String>,
    /// Which of several matches (1-based), when it says (`#2`).
    pick: Option<usize>,
    /// Whether it asks for an `impl` block (`impl Parser`).
    impl_block: bool,
}

/// How a symbol for an `impl` block starts.
const IMPL: &str = "impl ";

/// What a symbol matches in an outline.
#[derive(Debug, PartialEq, Eq)]
pub enum Matched<'a> {
    One(&'a Definition),
    /// Several: a page of them in file order (at most [`MAX_MATCHES`]; where they are in the
    /// outline's definitions), how many match in all, and the line the next page starts
    /// from, when there are more.
    Several {
        listed: Vec<usize>,
        total: usize,
        next_line: Option<u64>,
    },
    /// None: the nearest names, best first.
    None(Vec<String>),
}

impl SymbolQuery {
    /// `text` as a query; `None` when it names nothing (empty, or only separators).
    pub fn parse(text: &str) -> Option<SymbolQuery> {
        let trimmed = text.trim();
        let (impl_block, names) = match trimmed.strip_prefix(IMPL) {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let (names, pick) = match names.rsplit_once('#') {
            Some((names, number)) if number.parse::<usize>().is_ok_and(|n| n >= 1) => {
                (names, number.parse().ok())
            }
            _ => (names, None),
        };
        let parts: Vec<String> = names
            .split("::")
            .flat_map(|part| part.split('.'))
            .map(|part| part.trim().to_owned())
            .filter(|part| !part.is_empty())
            .collect();
        (!parts.is_empty()).then(|| SymbolQuery {
            text: trimmed.to_owned(),
            parts,
            pick,
            impl_block,
        })
    }

    /// What it matches in `outline`, whose names `names` indexes: definitions whose name path
    /// ends with its names (as written, else in any case; a heading or key is also matched by
    /// its whole name); an `impl` only when nothing else matches, or when asked for
    /// (`impl Parser`). Several are listed a page at a time, from those that start on line
    /// `from_line` or after it (a page's `next_line`); a number (`#2`) picks among them all.
    pub fn find<'a>(&self, outline: &'a Outline, names: &NameIndex, from_line: u64) -> Matched<'a> {
        let last = self.parts.last().map_or("", |last| unhashed(last));
        let definitions = &outline.definitions;
        let named = |index: &HashMap<String, Vec<usize>>, key: &str| -> Vec<usize> {
            index.get(key).cloned().unwrap_or_default()
        };
        let exact = |&at: &usize| ends_with(&definitions[at].name_path, &self.parts, false);
        let any_case = |&at: &usize| ends_with(&definitions[at].name_path, &self.parts, true);
        let is_impl = |at: &usize| definitions[*at].kind == "impl";
        let mut found = named(&names.written, last);
        found.retain(exact);
        if self.impl_block {
            found.retain(is_impl);
            return self.picked(found, outline, from_line);
        }
        if found.is_empty() {
            found = named(&names.lower, &last.to_lowercase());
            found.retain(any_case);
        }
        if found.is_empty() {
            let whole = |d: &Definition| d.name.eq_ignore_ascii_case(self.text_without_pick());
            found = (0..definitions.len())
                .filter(|&at| whole(&definitions[at]))
                .collect();
        }
        if !found.iter().all(is_impl) {
            found.retain(|at| !is_impl(at));
        }
        self.picked(found, outline, from_line)
    }

    /// The one of `found` (where they are in `outline`'s definitions) the query picks, or
    /// the page of them from `from_line`, or, when none, the nearest names.
    fn picked<'a>(&self, found: Vec<usize>, outline: &'a Outline, from_line: u64) -> Matched<'a> {
        let definitions = &outline.definitions;
        if let Some(pick) = self.pick {
            return match found.get(pick - 1) {
                Some(&one) => Matched::One(&definitions[one]),
                None if found.is_empty() => Matched::None(self.nearest(outline)),
                None => page_of(found, definitions, 1),
            };
        }
        match found[..] {
            [] => Matched::None(self.nearest(outline)),
            [one] => Matched::One(&definitions[one]),
            _ => page_of(found, definitions, from_line),
        }
    }

    fn text_without_pick(&self) -> &str {
        let text = self.text.strip_prefix(IMPL).unwrap_or(&self.text);
        match self.pick {
            Some(_) => text.rsplit_once('#').map_or(text, |(names, _)| names),
            None => text,
        }
    }

    /// The [`NEAREST_NAMES`] name paths of `outline` nearest to this one: by the edit
    /// distance of their last names (in any case), then of the whole paths.
    fn nearest(&self, outline: &Outline) -> Vec<String> {
        let wanted = self
            .parts
            .last()
            .map(|p| p.to_lowercase())
            .unwrap_or_default();
        let whole = self.parts.join(".").to_lowercase();
        let mut ranked: Vec<(usize, usize, &str)> = outline
            .definitions
            .iter()
            .filter(|d| d.kind != "impl")
            .map(|d| {
                let name = strsim::damerau_levenshtein(&wanted, &d.name.to_lowercase());
                let path = strsim::damerau_levenshtein(&whole, &d.name_path.to_lowercase());
                (name, path, d.name_path.as_str())
            })
            .collect();
        ranked.sort();
        ranked.dedup_by(|a, b| a.2 == b.2);
        ranked
            .into_iter()
            .take(NEAREST_NAMES)
            .map(|(_, _, path)| path.to_owned())
            .collect()
    }
}

/// The definitions of an outline by their last names, as written and in lower case (a
/// private name's without its `#`): a symbol's candidates, found without a pass over the
/// outline.
#[derive(Debug, Default)]
pub struct NameIndex {
    written: HashMap<String, Vec<usize>>,
    lower: HashMap<String, Vec<usize>>,
}

impl NameIndex {
    /// The index of `outline`'s names.
    pub fn of(outline: &Outline) -> NameIndex {
        let mut index = NameIndex::default();
        for (at, definition) in outline.definitions.iter().enumerate() {
            let last = definition.name_path.rsplit('.').next().unwrap_or_default();
            let last = unhashed(last);
            index.written.entry(last.to_owned()).or_default().push(at);
            index.lower.entry(last.to_lowercase()).or_default().push(at);
        }
        index
    }
}

/// The page of `found` (several of `definitions`, in file order) from those starting on
/// `from_line` or after it; the first page when none does (a line past the last match is no
/// page of its own).
fn page_of<'a>(found: Vec<usize>, definitions: &[Definition], from_line: u64) -> Matched<'a> {
    let start_line = |at: &usize| definitions[*at].start_line;
    let from = found
        .iter()
        .position(|at| start_line(at) >= from_line)
        .unwrap_or(0);
    let total = found.len();
    let next_line = found.get(from + MAX_MATCHES).map(start_line);
    let mut listed = found;
    listed.truncate(from + MAX_MATCHES);
    listed.drain(..from);
    Matched::Several {
        listed,
        total,
        next_line,
    }
}

/// `name` without the `#` of a private name.
fn unhashed(name: &str) -> &str {
    name.strip_prefix('#').unwrap_or(name)
}

/// Whether the `.`-separated `name_path` ends with `parts` (a private name's `#` may be
/// left out: `indexes` is `#indexes`).
fn ends_with(name_path: &str, parts: &[String], any_case: bool) -> bool {
    let mut names = name_path.rsplit('.');
    parts.iter().rev().all(|part| {
        names.next().is_some_and(|name| {
            let same = |name: &str| match any_case {
                true => name.eq_ignore_ascii_case(part),
                false => name == part,
            };
            same(name) || name.strip_prefix('#').is_some_and(same)
        })
    })
}

/// The symbol that reads each definition of `outline`, in its order: its name path (after
/// `impl ` for an `impl` block), and `#n` when other definitions of its kind have the same one.
pub fn symbols_of(outline: &Outline) -> Vec<String> {
    fn key(d: &Definition) -> (bool, &str) {
        (d.kind == "impl", d.name_path.as_str())
    }
    let mut counts: HashMap<(bool, &str), usize> = HashMap::new();
    for definition in &outline.definitions {
        *counts.entry(key(definition)).or_default() += 1;
    }
    let mut seen: HashMap<(bool, &str), usize> = HashMap::new();
    outline
        .definitions
        .iter()
        .map(|definition| {
            let prefix = if definition.kind == "impl" { IMPL } else { "" };
            let path = &definition.name_path;
            if counts.get(&key(definition)).is_none_or(|&n| n < 2) {
                return format!("{prefix}{path}");
            }
            let nth = seen.entry(key(definition)).or_default();
            *nth += 1;
            format!("{prefix}{path}#{nth}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::language::Language;
    use crate::code::outline::{ParseBounds, outline};

    const RUST: &str = "\
struct Parser;
impl Parser {
    fn parse(&self) {}
    fn parse_statement(&self) {}
}
mod other {
    fn parse() {}
}
fn parse_all() {}
";

    fn rust() -> Outline {
        outline(RUST, Language::Rust, ParseBounds::default(), None)
    }

    fn found(query: &str) -> Vec<String> {
        let outline = rust();
        let query = SymbolQuery::parse(query).unwrap();
        match query.find(&outline, &NameIndex::of(&outline), 1) {
            Matched::One(d) => vec![format!("{}@{}", d.name_path, d.start_line)],
            Matched::Several { listed, total, .. } => {
                let path = |at: &usize| outline.definitions[*at].name_path.clone();
                let mut listed: Vec<String> = listed.iter().map(path).collect();
                listed.push(format!("of {total}"));
                listed
            }
            Matched::None(near) => near.into_iter().map(|n| format!("near {n}")).collect(),
        }
    }

    #[test]
    fn a_name_path_with_dots_or_colons_finds_its_one_definition() {
        assert_eq!(found("Parser.parse"), ["Parser.parse@3"]);
        assert_eq!(
            found("Parser::parse_statement"),
            ["Parser.parse_statement@4"]
        );
        assert_eq!(found("other::parse"), ["other.parse@7"]);
        assert_eq!(found("parse_all"), ["parse_all@9"]);
        assert_eq!(
            found("PARSE_ALL"),
            ["parse_all@9"],
            "any case when none as written"
        );
        // The struct, not its impl block.
        assert_eq!(found("Parser"), ["Parser@1"]);
    }

    #[test]
    fn several_matches_are_listed_and_one_is_picked_by_its_number() {
        assert_eq!(found("parse"), ["Parser.parse", "other.parse", "of 2"]);
        assert_eq!(found("parse#2"), ["other.parse@7"]);
        assert_eq!(found("parse#3"), ["Parser.parse", "other.parse", "of 2"]);
    }

    #[test]
    fn many_matches_are_listed_a_page_at_a_time_from_a_line() {
        // 23 modules, each with its `run` on line 3k+2 (k from 0).
        let text: String = (0..23)
            .map(|k| format!("mod m{k} {{\n    fn run() {{}}\n}}\n"))
            .collect();
        let outline = outline(&text, Language::Rust, ParseBounds::default(), None);
        let names = NameIndex::of(&outline);
        let query = SymbolQuery::parse("run").unwrap();
        let page = |from_line: u64| match query.find(&outline, &names, from_line) {
            Matched::Several {
                listed,
                total,
                next_line,
            } => {
                let line = |at: &usize| outline.definitions[*at].start_line;
                let lines: Vec<u64> = listed.iter().map(line).collect();
                (lines, total, next_line)
            }
            other => panic!("{other:?}"),
        };
        let lines = |ks: std::ops::Range<u64>| ks.map(|k| 3 * k + 2).collect::<Vec<u64>>();
        assert_eq!(page(1), (lines(0..10), 23, Some(32)));
        assert_eq!(page(32), (lines(10..20), 23, Some(62)));
        // From a line between two matches: those after it.
        assert_eq!(page(31), (lines(10..20), 23, Some(62)));
        assert_eq!(page(62), (lines(20..23), 23, None));
        // Past the last match: the first page, not an empty one.
        assert_eq!(page(1000), (lines(0..10), 23, Some(32)));
        // A number picks among them all, whatever the line.
        let twelfth = SymbolQuery::parse("run#12").unwrap();
        assert!(
            matches!(twelfth.find(&outline, &names, 62), Matched::One(d) if d.start_line == 35)
        );
    }

    #[test]
    fn a_private_name_is_found_without_its_hash_and_an_impl_by_impl() {
        let js = "class Cache {\n  #indexes() {}\n}\n";
        let outline = outline(js, Language::JavaScript, ParseBounds::default(), None);
        let query = SymbolQuery::parse("indexes").unwrap();
        let names = NameIndex::of(&outline);
        assert!(
            matches!(query.find(&outline, &names, 1), Matched::One(d) if d.name_path == "Cache.#indexes")
        );
        let rust = rust();
        let query = SymbolQuery::parse("impl Parser").unwrap();
        assert!(
            matches!(query.find(&rust, &NameIndex::of(&rust), 1), Matched::One(d) if d.kind == "impl" && d.start_line == 2)
        );
    }

    #[test]
    fn a_cut_name_reads_its_definition_by_its_symbol() {
        let js = "class S {\n  [(a,\n  b)]() {\n    return 1\n  }\n}\n";
        let outline = outline(js, Language::JavaScript, ParseBounds::default(), None);
        let symbols = symbols_of(&outline);
        assert_eq!(symbols, ["S", "S.[(a,…"]);
        let query = SymbolQuery::parse(&symbols[1]).unwrap();
        let names = NameIndex::of(&outline);
        assert!(matches!(query.find(&outline, &names, 1), Matched::One(d) if d.start_line == 2));
    }

    #[test]
    fn a_name_with_a_dot_in_it_reads_its_own_definition_by_its_symbol() {
        let js = "class Bag {\n  [Symbol.iterator]() {}\n  iterator() {}\n}\n";
        let json = "{\"editor.fontSize\": 1, \"editor\": {\"fontSize\": 2}, \"a.b.c\": 3}\n";
        for (text, language) in [(js, Language::JavaScript), (json, Language::Json)] {
            let outline = outline(text, language, ParseBounds::default(), None);
            assert!(outline.definitions.len() >= 3, "{:?}", symbols_of(&outline));
            assert_each_symbol_reads_its_definition(&outline);
        }
    }

    #[test]
    fn no_match_names_the_three_nearest() {
        assert_eq!(
            found("Parser.parse_statment"),
            [
                "near Parser.parse_statement",
                "near parse_all",
                "near Parser.parse"
            ]
        );
        assert!(SymbolQuery::parse(" .:: ").is_none());
        assert!(SymbolQuery::parse("").is_none());
    }

    #[test]
    fn a_symbol_names_its_definition_with_a_number_only_when_it_must() {
        let outline = rust();
        assert_eq!(
            symbols_of(&outline),
            [
                "Parser",
                "impl Parser",
                "Parser.parse",
                "Parser.parse_statement",
                "other",
                "other.parse",
                "parse_all"
            ]
        );
        assert_each_symbol_reads_its_definition(&outline);
    }

    /// Each symbol [`symbols_of`] gives reads its own definition.
    fn assert_each_symbol_reads_its_definition(outline: &Outline) {
        let names = NameIndex::of(outline);
        let symbols = symbols_of(outline);
        for (definition, symbol) in outline.definitions.iter().zip(&symbols) {
            let query = SymbolQuery::parse(symbol).unwrap();
            assert_eq!(
                query.find(outline, &names, 1),
                Matched::One(definition),
                "{symbol} of {symbols:?}"
            );
        }
    }
}
