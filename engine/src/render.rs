//! Rendering a selection of lines for a model: line-number formats and per-line length
//! caps. The dialects differ only in which [`LineNumbers`] and cap they ask for.

use std::fmt::Write;

/// How each shown line is prefixed with its 1-based number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineNumbers {
    /// No numbers: the lines as they are.
    None,
    /// `L{n}: {text}` (Codex).
    Prefixed,
    /// `{n}` right-aligned to 6 columns, a tab, the text (Forge; as `cat -n`).
    Tabbed,
    /// `{n}` right-aligned to the width of the last shown number, ` | `, the text (AIntern).
    Piped,
}

/// How a selection of lines becomes one string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rendering {
    pub numbers: LineNumbers,
    /// Longest a line may be, in bytes; longer lines are cut on a UTF-8 boundary.
    pub max_line_bytes: Option<usize>,
}

/// `lines` (text without terminators) numbered from `first_line`, joined with `\n`.
pub fn render(lines: &[&str], first_line: usize, rendering: Rendering) -> String {
    let numbered: Vec<(usize, &str)> = (first_line..).zip(lines.iter().copied()).collect();
    render_numbered(&numbered, rendering)
}

/// Lines with their 1-based numbers (ascending), rendered and joined with `\n`.
pub fn render_numbered(lines: &[(usize, &str)], rendering: Rendering) -> String {
    let width = lines.last().map_or(1, |(last, _)| last.to_string().len());
    let mut out = String::with_capacity(lines.iter().map(|(_, l)| l.len() + 10).sum());
    for (index, &(number, line)) in lines.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let text = match rendering.max_line_bytes {
            Some(max) => cut_at_char_boundary(line, max),
            None => line,
        };
        // Writing to a String cannot fail.
        let _ = match rendering.numbers {
            LineNumbers::None => Ok(()),
            LineNumbers::Prefixed => write!(out, "L{number}: "),
            LineNumbers::Tabbed => write!(out, "{number:>6}\t"),
            LineNumbers::Piped => write!(out, "{number:>width$} | "),
        };
        out.push_str(text);
    }
    out
}

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on a char boundary.
pub fn cut_at_char_boundary(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(numbers: LineNumbers) -> Rendering {
        Rendering {
            numbers,
            max_line_bytes: None,
        }
    }

    #[test]
    fn each_format() {
        let lines = ["fn main() {", "}", ""];
        assert_eq!(
            render(&lines, 9, with(LineNumbers::None)),
            "fn main() {\n}\n"
        );
        assert_eq!(
            render(&lines, 9, with(LineNumbers::Prefixed)),
            "L9: fn main() {\nL10: }\nL11: "
        );
        assert_eq!(
            render(&lines, 9, with(LineNumbers::Tabbed)),
            "     9\tfn main() {\n    10\t}\n    11\t"
        );
        assert_eq!(
            render(&lines, 9, with(LineNumbers::Piped)),
            " 9 | fn main() {\n10 | }\n11 | "
        );
        assert_eq!(render(&[], 1, with(LineNumbers::Prefixed)), "");
    }

    #[test]
    fn long_lines_are_cut_on_a_char_boundary() {
        assert_eq!(cut_at_char_boundary("abc", 5), "abc");
        assert_eq!(cut_at_char_boundary("abcdef", 3), "abc");
        // "é" is two bytes: a cut through it backs off to before it.
        assert_eq!(cut_at_char_boundary("aé", 2), "a");
        assert_eq!(cut_at_char_boundary("😀x", 3), "");
        let rendering = Rendering {
            numbers: LineNumbers::Prefixed,
            max_line_bytes: Some(4),
        };
        assert_eq!(render(&["ααα"], 1, rendering), "L1: αα");
    }
}
