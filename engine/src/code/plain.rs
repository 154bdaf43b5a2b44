//! Outlines read off the lines themselves: Markdown's headings, YAML's and TOML's keys,
//! and, for any other text, the blocks its indentation opens (approximate). Each is one pass
//! over the lines, in time and memory linear in the text.

use super::definition::{Definition, Found, Gathered, Lines};

/// A Markdown file's ATX headings (`## Title`), outside fenced code blocks, nested by level;
/// each holds the lines up to the next heading of its level or above.
pub(crate) fn headings(text: &str) -> Vec<Definition> {
    let lines = Lines::new(text);
    let mut found: Vec<(usize, usize, &str)> = Vec::new();
    let mut fence: Option<&str> = None;
    for index in 0..lines.len() {
        let line = lines.get(index);
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(open) = fence {
            if indent < 4 && trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if indent < 4 && (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
            fence = Some(&trimmed[..3]);
            continue;
        }
        if let Some((level, title)) = heading(trimmed).filter(|_| indent < 4) {
            found.push((index, level, title));
        }
    }
    let mut gathered = Gathered::default();
    for (at, &(index, level, title)) in found.iter().enumerate() {
        let end = found[at + 1..]
            .iter()
            .find(|(_, other, _)| *other <= level)
            .map_or(lines.len(), |(next, _, _)| *next);
        let start = index as u64 + 1;
        gathered.close_before(start);
        gathered.push(Found {
            name: title,
            qualifier: None,
            kind: ["h1", "h2", "h3", "h4", "h5", "h6"][level - 1],
            lines: (start, (end as u64).max(start)),
            doc_line: start,
            signature: lines.get(index),
            scope: true,
        });
    }
    gathered.definitions
}

/// The level and title of an ATX heading line.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let title = rest.trim().trim_end_matches('#').trim_end();
    Some((level, title)).filter(|(_, title)| !title.is_empty())
}

/// A YAML file's mapping keys (`key:` at the start of a line, or after a list's `- `),
/// nested by indentation, three levels deep; the lines of a block scalar (`|`, `>`) and of
/// comments are skipped.
pub(crate) fn yaml_keys(text: &str) -> Vec<Definition> {
    let lines = Lines::new(text);
    let mut keys: Vec<(usize, usize, &str)> = Vec::new();
    let mut scalar_under: Option<usize> = None;
    for index in 0..lines.len() {
        let line = lines.get(index);
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(parent) = scalar_under {
            if indent > parent {
                continue;
            }
            scalar_under = None;
        }
        let (indent, entry) = match trimmed.strip_prefix("- ") {
            Some(item) => (indent + 2, item.trim_start()),
            None => (indent, trimmed),
        };
        let Some(key) = yaml_key(entry) else {
            continue;
        };
        let value = entry[key.len()..].trim_start_matches(':').trim();
        if value.starts_with('|') || value.starts_with('>') {
            scalar_under = Some(indent);
        }
        keys.push((index, indent, key.trim_matches(['"', '\''])));
    }
    nest_by_indentation(&lines, &keys, "key", 3)
}

/// The key of a YAML line `key: value`, if it is one.
fn yaml_key(entry: &str) -> Option<&str> {
    if entry.starts_with(['-', '[', '{', '&', '*', '!', '|', '>', '%', '@', '`']) {
        return None;
    }
    let colon = entry
        .match_indices(':')
        .find(|(at, _)| entry[at + 1..].is_empty() || entry[at + 1..].starts_with([' ', '\t']))?
        .0;
    let key = &entry[..colon];
    Some(key).filter(|key| !key.is_empty() && !key.contains(" #"))
}

/// A TOML file's tables (`[server]`, `[[bin]]`) and their keys (`name = …`); keys inside
/// multi-line strings and arrays are not keys.
pub(crate) fn toml_keys(text: &str) -> Vec<Definition> {
    let lines = Lines::new(text);
    let mut keys: Vec<(usize, usize, &str)> = Vec::new();
    let mut in_string: Option<&str> = None;
    let mut open_brackets = 0usize;
    for index in 0..lines.len() {
        let line = lines.get(index);
        let trimmed = line.trim();
        if let Some(quote) = in_string {
            if trimmed.contains(quote) {
                in_string = None;
            }
            continue;
        }
        if open_brackets > 0 {
            open_brackets = bracket_depth(trimmed, open_brackets);
            continue;
        }
        if trimmed.starts_with('[') {
            let name = trimmed.trim_start_matches('[');
            let name = name.split(']').next().unwrap_or(name).trim();
            keys.push((index, 0, name));
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else {
            continue;
        };
        if key.trim().is_empty() || key.trim_start().starts_with('#') {
            continue;
        }
        let value = value.trim();
        for quote in ["\"\"\"", "'''"] {
            if value.starts_with(quote) && !value[3..].contains(quote) {
                in_string = Some(quote);
            }
        }
        if value.starts_with('[') {
            open_brackets = bracket_depth(value, 0);
        }
        let nested = usize::from(keys.iter().any(|(_, indent, _)| *indent == 0));
        keys.push((index, 1 + nested, key.trim().trim_matches(['"', '\''])));
    }
    // Tables are at 0 and their keys at 2; a key before any table is at 1, the top.
    let keys: Vec<(usize, usize, &str)> = keys
        .into_iter()
        .map(|(index, level, key)| (index, if level == 1 { 0 } else { level }, key))
        .collect();
    nest_by_indentation(&lines, &keys, "key", 2)
}

/// The brackets still open after `text`, `open` being open before it (strings not counted).
fn bracket_depth(text: &str, open: usize) -> usize {
    let mut depth = open as isize;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => break,
            (None, '[') => depth += 1,
            (None, ']') => depth -= 1,
            _ => {}
        }
    }
    depth.max(0) as usize
}

/// `entries` (line index, indentation, name), each holding the lines up to the next entry
/// indented as little or less, nested by indentation at most `levels` deep.
fn nest_by_indentation(
    lines: &Lines,
    entries: &[(usize, usize, &str)],
    kind: &'static str,
    levels: usize,
) -> Vec<Definition> {
    let mut gathered = Gathered::default();
    let mut open: Vec<usize> = Vec::new();
    for (at, &(index, indent, name)) in entries.iter().enumerate() {
        while open.last().is_some_and(|&outer| outer >= indent) {
            open.pop();
        }
        let start = index as u64 + 1;
        let end = entries[at + 1..]
            .iter()
            .find(|(_, other, _)| *other <= indent)
            .map_or(last_content_line(lines), |(next, _, _)| *next as u64)
            .max(start);
        if open.len() < levels {
            gathered.close_before(start);
            gathered.push(Found {
                name,
                qualifier: None,
                kind,
                lines: (start, end),
                doc_line: start,
                signature: lines.get(index),
                scope: true,
            });
        }
        open.push(indent);
        if gathered.full() {
            break;
        }
    }
    gathered.definitions
}

/// The last line that is not blank (1-based), or 0.
fn last_content_line(lines: &Lines) -> u64 {
    (0..lines.len())
        .rev()
        .find(|&index| !lines.get(index).trim().is_empty())
        .map_or(0, |index| index as u64 + 1)
}

/// Any text's blocks: a line whose next line (not blank) is indented further opens a block
/// that holds the lines up to the next one indented as little or less (and a closing line at
/// its own indentation, such as `}` or `end`), two levels deep. Named by the word after a
/// keyword such as `def` or `function`, else the word before the first `(`, else the first.
pub(crate) fn indentation_blocks(text: &str) -> Vec<Definition> {
    let lines = Lines::new(text);
    let widths: Vec<Option<usize>> = (0..lines.len())
        .map(|index| {
            let line = lines.get(index);
            let trimmed = line.trim_start();
            (!trimmed.is_empty()).then(|| indentation(line))
        })
        .collect();
    let mut next_content = vec![None; widths.len()];
    let mut after: Option<usize> = None;
    for index in (0..widths.len()).rev() {
        next_content[index] = after;
        if widths[index].is_some() {
            after = Some(index);
        }
    }
    let mut entries: Vec<(usize, usize, &str)> = Vec::new();
    for index in 0..widths.len() {
        let (Some(width), Some(next)) = (widths[index], next_content[index]) else {
            continue;
        };
        let line = lines.get(index).trim_start();
        if widths[next].is_some_and(|inner| inner > width) && !is_comment(line) {
            entries.push((index, width, block_name(line)));
        }
    }
    let mut gathered = Gathered::default();
    let mut open: Vec<usize> = Vec::new();
    for &(index, width, name) in &entries {
        while open.last().is_some_and(|&outer| outer >= width) {
            open.pop();
        }
        let start = index as u64 + 1;
        let end = block_end(&lines, &widths, index, width);
        if open.len() < 2 {
            gathered.close_before(start);
            gathered.push(Found {
                name,
                qualifier: None,
                kind: "block",
                lines: (start, end),
                doc_line: start,
                signature: lines.get(index),
                scope: true,
            });
        }
        open.push(width);
        if gathered.full() {
            break;
        }
    }
    gathered.definitions
}

/// The last line (1-based) of the block line `index` opens at `width`.
fn block_end(lines: &Lines, widths: &[Option<usize>], index: usize, width: usize) -> u64 {
    let mut last = index;
    for (at, inner) in widths.iter().enumerate().skip(index + 1) {
        match inner {
            None => {}
            Some(inner) if *inner > width => last = at,
            Some(_) => {
                let closing = lines.get(at).trim_start();
                if closing.starts_with(['}', ')', ']']) || closing.starts_with("end") {
                    last = at;
                }
                break;
            }
        }
    }
    last as u64 + 1
}

/// The width of a line's indentation, a tab counting as four.
fn indentation(line: &str) -> usize {
    line.bytes()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .map(|b| if b == b'\t' { 4 } else { 1 })
        .sum()
}

fn is_comment(line: &str) -> bool {
    ["#", "//", "/*", "*", "--", ";", "%", "<!--"]
        .iter()
        .any(|start| line.starts_with(start))
}

/// The name of the definition a block's first line makes, as well as it can be told.
fn block_name(line: &str) -> &str {
    const KEYWORDS: &[&str] = &[
        "def",
        "fn",
        "func",
        "function",
        "class",
        "struct",
        "enum",
        "trait",
        "interface",
        "module",
        "sub",
        "proc",
        "impl",
        "type",
        "namespace",
        "object",
        "record",
        "macro",
        "defmodule",
        "defp",
    ];
    let words: Vec<&str> = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'))
        .filter(|word| !word.is_empty())
        .collect();
    if let Some(at) = words.iter().position(|word| KEYWORDS.contains(word))
        && let Some(name) = words.get(at + 1)
    {
        return name;
    }
    if let Some(before) = line.split('(').next().filter(|_| line.contains('('))
        && let Some(name) = before
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'))
            .rfind(|word| !word.is_empty())
    {
        return name;
    }
    words.first().copied().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(definitions: Vec<Definition>) -> Vec<(String, u64, u64)> {
        definitions
            .into_iter()
            .map(|d| (d.name_path, d.start_line, d.end_line))
            .collect()
    }

    fn owned(items: &[(&str, u64, u64)]) -> Vec<(String, u64, u64)> {
        items
            .iter()
            .map(|&(p, s, e)| (p.to_owned(), s, e))
            .collect()
    }

    #[test]
    fn markdown_headings_nest_by_level_and_fences_hide_theirs() {
        let text = "# Guide\nintro\n## Install\n```sh\n# not a heading\n```\n## Use ##\n### Deep\nx\n# Next\n#nospace\n";
        assert_eq!(
            listed(headings(text)),
            owned(&[
                ("Guide", 1, 9),
                ("Guide.Install", 3, 6),
                ("Guide.Use", 7, 9),
                ("Guide.Use.Deep", 8, 9),
                ("Next", 10, 11),
            ])
        );
    }

    #[test]
    fn yaml_keys_nest_and_block_scalars_hide_theirs() {
        let text = "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    run: |\n      key: not\n    steps:\n      - uses: x\n";
        assert_eq!(
            listed(yaml_keys(text)),
            owned(&[
                ("name", 1, 1),
                ("on", 2, 4),
                ("on.push", 3, 4),
                ("on.push.branches", 4, 4),
                ("jobs", 5, 10),
                ("jobs.test", 6, 10),
                ("jobs.test.run", 7, 8),
                ("jobs.test.steps", 9, 10),
            ])
        );
    }

    #[test]
    fn toml_tables_hold_their_keys_and_multiline_values_hide_theirs() {
        let text = "name = \"x\"\n[package]\nversion = \"1\"\ndesc = \"\"\"\nnot = key\n\"\"\"\nlist = [\n  \"a = b\",\n]\n[[bin]]\npath = \"p\"\n";
        assert_eq!(
            listed(toml_keys(text)),
            owned(&[
                ("name", 1, 1),
                ("package", 2, 9),
                ("package.version", 3, 3),
                ("package.desc", 4, 6),
                ("package.list", 7, 9),
                ("bin", 10, 11),
                ("bin.path", 11, 11),
            ])
        );
    }

    #[test]
    fn indentation_blocks_are_named_after_their_keyword_or_call() {
        let text = "proc main {} {\n  puts hi\n}\n\n# a comment\n  indented\nlocal function step(x)\n  return x\nend\nother(a, b) {\n  x\n}\n";
        assert_eq!(
            listed(indentation_blocks(text)),
            owned(&[("main", 1, 3), ("step", 7, 9), ("other", 10, 12)])
        );
    }
}
