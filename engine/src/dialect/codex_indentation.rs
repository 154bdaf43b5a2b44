//! Codex's indentation mode: the block of code around an anchor line, chosen by indentation.
//!
//! This reproduces the line selection of the `indentation` mode of OpenAI Codex CLI's
//! `read_file` tool (codex-rs, `core/src/tools/handlers/read_file.rs`):
//!
//! - A line's indent is its leading spaces and tabs in columns, a tab counting as
//!   [`TAB_WIDTH`] columns wherever it stands. A blank line (only whitespace) takes the
//!   indent of the nearest non-blank line above it, or 0 when there is none.
//! - The block may not go below a floor indent: the anchor's indent less `max_levels`
//!   steps of [`TAB_WIDTH`] columns (stopping at 0), or 0 when `max_levels` is 0.
//! - From the anchor the block grows one line up, then one line down, and so on, until it
//!   holds `min(limit, max_lines, line count)` lines or neither side can grow. A side stops
//!   at its first line below the floor.
//! - Without siblings, a side also stops at its second line that sits exactly on the floor;
//!   going up, comment lines (`#`, `//`, `--`) on the floor do not count against that when
//!   headers are wanted, so a comment block above the block's opening line is kept.
//! - Blank lines at either end of the result are dropped, except when the cap is 1, where
//!   the anchor alone is returned as it is.

/// Columns a tab counts for in an indent.
pub const TAB_WIDTH: usize = 4;

/// What a comment line starts with, after leading whitespace.
const COMMENT_PREFIXES: [&str; 3] = ["#", "//", "--"];

const LIMIT_ZERO: &str = "limit must be greater than zero";
const ANCHOR_ZERO: &str = "anchor_line must be a 1-indexed line number";
const MAX_LINES_ZERO: &str = "max_lines must be greater than zero";
const ANCHOR_PAST_END: &str = "anchor_line exceeds file length";

/// Options of Codex's indentation mode, already defaulted by the caller
/// (anchor_line defaults to the tool's offset; max_levels 0 = unlimited;
/// include_siblings and include_header default to true; max_lines None = use `limit`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndentationOptions {
    /// 1-based line the block is built around.
    pub anchor_line: usize,
    /// How many steps of 4 columns the block may rise above the anchor's indent; 0 = no bound.
    pub max_levels: usize,
    /// Whether other blocks on the floor indent are kept.
    pub include_siblings: bool,
    /// Whether comment lines directly above the block are kept when siblings are not.
    pub include_header: bool,
    /// Hard cap on the lines returned; `None` = the tool's `limit`.
    pub max_lines: Option<usize>,
}

/// The 1-based numbers of the lines Codex's indentation mode shows, ascending, for a file
/// whose lines (terminators and a trailing '\r' already removed) are `lines`; `limit` is the
/// tool's `limit` argument. `Err` carries Codex's message for the model.
pub fn indentation_block(
    lines: &[&str],
    options: &IndentationOptions,
    limit: usize,
) -> Result<Vec<usize>, String> {
    let cap = line_cap(lines.len(), options, limit)?;
    let anchor = options.anchor_line - 1;
    if cap == 1 {
        return Ok(vec![options.anchor_line]);
    }
    let indents = effective_indents(lines);
    let floor = floor_indent(indents[anchor], options.max_levels);
    let mut walk = Walk::new(lines, &indents, floor, options, anchor);
    walk.grow(cap);
    Ok(without_blank_edges(lines, walk.first, walk.last))
}

/// How many lines the block may hold, or Codex's message for arguments it rejects, checked
/// in Codex's order (the handler's `limit` check comes before the mode's own checks).
fn line_cap(
    line_count: usize,
    options: &IndentationOptions,
    limit: usize,
) -> Result<usize, String> {
    if limit == 0 {
        return Err(LIMIT_ZERO.to_string());
    }
    if options.anchor_line == 0 {
        return Err(ANCHOR_ZERO.to_string());
    }
    let max_lines = options.max_lines.unwrap_or(limit);
    if max_lines == 0 {
        return Err(MAX_LINES_ZERO.to_string());
    }
    if options.anchor_line > line_count {
        return Err(ANCHOR_PAST_END.to_string());
    }
    Ok(limit.min(max_lines).min(line_count))
}

/// Whether a line holds nothing but whitespace.
fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Whether a line, after leading whitespace, starts like a line comment.
fn is_comment(line: &str) -> bool {
    let text = line.trim_start();
    COMMENT_PREFIXES
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

/// The leading spaces and tabs of a line in columns, a tab counting as [`TAB_WIDTH`].
fn indent_columns(line: &str) -> usize {
    line.chars()
        .map_while(|c| match c {
            ' ' => Some(1),
            '\t' => Some(TAB_WIDTH),
            _ => None,
        })
        .fold(0, usize::saturating_add)
}

/// Each line's indent, a blank line taking that of the nearest non-blank line above it.
fn effective_indents(lines: &[&str]) -> Vec<usize> {
    let mut previous = 0;
    lines
        .iter()
        .map(|line| {
            if !is_blank(line) {
                previous = indent_columns(line);
            }
            previous
        })
        .collect()
}

/// The lowest indent the block may include.
fn floor_indent(anchor_indent: usize, max_levels: usize) -> usize {
    if max_levels == 0 {
        0
    } else {
        anchor_indent.saturating_sub(max_levels.saturating_mul(TAB_WIDTH))
    }
}

/// The block as it grows: the 0-based range `first..=last` and the next candidate each way.
struct Walk<'a> {
    lines: &'a [&'a str],
    indents: &'a [usize],
    floor: usize,
    include_siblings: bool,
    include_header: bool,
    first: usize,
    last: usize,
    up: Option<usize>,
    down: Option<usize>,
    floor_lines_above: usize,
    floor_lines_below: usize,
}

impl<'a> Walk<'a> {
    /// The block holding only the anchor (0-based); `indents` matches `lines`.
    fn new(
        lines: &'a [&'a str],
        indents: &'a [usize],
        floor: usize,
        options: &IndentationOptions,
        anchor: usize,
    ) -> Self {
        let below = anchor + 1;
        Walk {
            lines,
            indents,
            floor,
            include_siblings: options.include_siblings,
            include_header: options.include_header,
            first: anchor,
            last: anchor,
            up: anchor.checked_sub(1),
            down: (below < lines.len()).then_some(below),
            floor_lines_above: 0,
            floor_lines_below: 0,
        }
    }

    /// Lines in the block.
    fn len(&self) -> usize {
        self.last - self.first + 1
    }

    /// Alternates one line up and one line down until the block holds `cap` lines or
    /// neither side takes a line.
    fn grow(&mut self, cap: usize) {
        while self.len() < cap {
            let went_up = self.step_up();
            if self.len() >= cap {
                break;
            }
            let went_down = self.step_down();
            if !went_up && !went_down {
                break;
            }
        }
    }

    /// Takes the line above the block if it belongs, else stops the upward side for good.
    fn step_up(&mut self) -> bool {
        let Some(index) = self.up else {
            return false;
        };
        let indent = self.indents[index];
        if indent < self.floor || (indent == self.floor && !self.admit_floor_line_above(index)) {
            self.up = None;
            return false;
        }
        self.first = index;
        self.up = index.checked_sub(1);
        true
    }

    /// Takes the line below the block if it belongs, else stops the downward side for good.
    fn step_down(&mut self) -> bool {
        let Some(index) = self.down else {
            return false;
        };
        let indent = self.indents[index];
        if indent < self.floor || (indent == self.floor && !self.admit_floor_line_below()) {
            self.down = None;
            return false;
        }
        self.last = index;
        let next = index + 1;
        self.down = (next < self.lines.len()).then_some(next);
        true
    }

    /// Whether a line on the floor above the block may join it: always with siblings;
    /// otherwise the first such line, and header comments when headers are wanted.
    fn admit_floor_line_above(&mut self, index: usize) -> bool {
        if self.include_siblings {
            return true;
        }
        let header = self.include_header && is_comment(self.lines[index]);
        if header || self.floor_lines_above == 0 {
            self.floor_lines_above += 1;
            true
        } else {
            false
        }
    }

    /// Whether a line on the floor below the block may join it: always with siblings;
    /// otherwise only the first such line (comments get no exception below).
    fn admit_floor_line_below(&mut self) -> bool {
        if self.include_siblings {
            return true;
        }
        self.floor_lines_below += 1;
        self.floor_lines_below == 1
    }
}

/// The 1-based numbers of `first..=last` (0-based) without blank lines at either end.
fn without_blank_edges(lines: &[&str], first: usize, last: usize) -> Vec<usize> {
    let filled = |index: &usize| !is_blank(lines[*index]);
    let Some(start) = (first..=last).find(filled) else {
        return Vec::new();
    };
    let end = (start..=last).rev().find(filled).unwrap_or(start);
    (start + 1..=end + 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Options with every field given.
    fn opts(
        anchor_line: usize,
        max_levels: usize,
        include_siblings: bool,
        include_header: bool,
        max_lines: Option<usize>,
    ) -> IndentationOptions {
        IndentationOptions {
            anchor_line,
            max_levels,
            include_siblings,
            include_header,
            max_lines,
        }
    }

    /// Codex's `IndentationArgs::default()` with an anchor and `max_levels`: no siblings,
    /// headers, no `max_lines`.
    fn codex_default(anchor_line: usize, max_levels: usize) -> IndentationOptions {
        opts(anchor_line, max_levels, false, true, None)
    }

    /// The block for a text split into lines.
    fn block(text: &str, options: &IndentationOptions, limit: usize) -> Result<Vec<usize>, String> {
        let lines: Vec<&str> = text.lines().collect();
        indentation_block(&lines, options, limit)
    }

    /// `a..=b` as a vector.
    fn span(a: usize, b: usize) -> Vec<usize> {
        (a..=b).collect()
    }

    // ---- Codex's own unit tests (codex-rs/core/src/tools/handlers/read_file.rs) ----

    const CAPTURE: &str = "fn outer() {
    if cond {
        inner();
    }
    tail();
}
";

    #[test]
    fn codex_captures_block() {
        let options = opts(3, 1, false, true, None);
        assert_eq!(block(CAPTURE, &options, 10), Ok(span(2, 4)));
    }

    const PARENTS: &str = "mod root {
    fn outer() {
        if cond {
            inner();
        }
    }
}
";

    #[test]
    fn codex_expands_parents_with_max_levels() {
        assert_eq!(block(PARENTS, &codex_default(4, 2), 50), Ok(span(2, 6)));
        assert_eq!(block(PARENTS, &codex_default(4, 3), 50), Ok(span(1, 7)));
    }

    #[test]
    fn parents_do_not_depend_on_siblings_when_each_level_has_one_block() {
        assert_eq!(
            block(PARENTS, &opts(4, 2, true, true, None), 50),
            Ok(span(2, 6))
        );
        assert_eq!(
            block(PARENTS, &opts(4, 1, true, true, None), 50),
            Ok(span(3, 5))
        );
        assert_eq!(
            block(PARENTS, &opts(4, 0, true, true, None), 50),
            Ok(span(1, 7))
        );
    }

    const WRAPPER: &str = "fn wrapper() {
    if first {
        do_first();
    }
    if second {
        do_second();
    }
}
";

    #[test]
    fn codex_respects_sibling_flag() {
        assert_eq!(
            block(WRAPPER, &opts(3, 1, false, true, None), 50),
            Ok(span(2, 4))
        );
        assert_eq!(
            block(WRAPPER, &opts(3, 1, true, true, None), 50),
            Ok(span(2, 7))
        );
    }

    const PYTHON: &str = "class Foo:
    def __init__(self, size):
        self.size = size
    def double(self, value):
        if value is None:
            return 0
        result = value * self.size
        return result
class Bar:
    def compute(self):
        helper = Foo(2)
        return helper.double(5)
";

    #[test]
    fn codex_python_sample_with_siblings() {
        let options = opts(7, 1, true, true, None);
        assert_eq!(block(PYTHON, &options, 200), Ok(span(2, 8)));
    }

    #[test]
    fn python_without_siblings_keeps_deeper_lines_above_the_opening_line() {
        // Up: 6, 5, then `def double` (first floor line), then line 3 (deeper than the
        // floor, so not checked), then `def __init__` is a second floor line: stop.
        // Down: 8, then `class Bar` is below the floor.
        let options = codex_default(7, 1);
        assert_eq!(block(PYTHON, &options, 200), Ok(span(3, 8)));
    }

    const CODEX_JS: &str = r#"export function makeThing() {
    const cache = new Map();
    function ensure(key) {
        if (!cache.has(key)) {
            cache.set(key, []);
        }
        return cache.get(key);
    }
    const handlers = {
        init() {
            console.log("init");
        },
        run() {
            if (Math.random() > 0.5) {
                return "heads";
            }
            return "tails";
        },
    };
    return { cache, handlers };
}
export function other() {
    return makeThing();
}
"#;

    #[test]
    fn codex_javascript_sample_as_codex_computes_it() {
        // Codex's own test for this sample is #[ignore]d: its expected 10..=18 is not what
        // the code yields. With max_levels 1 the floor is 12: up takes line 14 (first floor
        // line) and stops at 13 (indent 8); down takes 16 (first floor line) and stops at 17.
        let options = codex_default(15, 1);
        assert_eq!(block(CODEX_JS, &options, 200), Ok(span(14, 16)));
    }

    #[test]
    fn codex_javascript_sample_two_levels_with_siblings() {
        // Floor 8: up to `init() {` (line 9 has indent 4), down to `},` (line 19 has 4).
        let options = opts(15, 2, true, true, None);
        assert_eq!(block(CODEX_JS, &options, 200), Ok(span(10, 18)));
    }

    const CPP: &str = "#include <vector>
#include <string>

namespace sample {
class Runner {
public:
    void setup() {
        if (enabled_) {
            init();
        }
    }

    // Run the code
    int run() const {
        switch (mode_) {
            case Mode::Fast:
                return fast();
            case Mode::Slow:
                return slow();
            default:
                return fallback();
        }
    }

private:
    bool enabled_ = false;
    Mode mode_ = Mode::Fast;

    int fast() const {
        return 1;
    }
};
}  // namespace sample
";

    #[test]
    fn codex_cpp_sample_shallow() {
        let options = opts(18, 1, false, true, None);
        assert_eq!(block(CPP, &options, 200), Ok(span(15, 22)));
    }

    #[test]
    fn codex_cpp_sample_keeps_header_comment() {
        let options = opts(18, 2, false, true, None);
        assert_eq!(block(CPP, &options, 200), Ok(span(13, 23)));
    }

    #[test]
    fn codex_cpp_sample_without_headers() {
        let options = opts(18, 2, false, false, None);
        assert_eq!(block(CPP, &options, 200), Ok(span(14, 23)));
    }

    #[test]
    fn codex_cpp_sample_with_siblings_keeps_inner_blank_line() {
        // Line 12 (blank, inside) stays; line 24 (blank, at the end) is trimmed.
        let options = opts(18, 2, true, false, None);
        assert_eq!(block(CPP, &options, 200), Ok(span(7, 23)));
    }

    // ---- Header comments: #, //, -- ----

    const SHELL: &str = "#!/bin/bash

# Greets the user.
greet() {
    echo \"hi $1\"
}

greet \"$@\"
";

    #[test]
    fn hash_header_comment_is_kept_and_blank_line_stops_it() {
        assert_eq!(
            block(SHELL, &opts(5, 1, false, true, None), 50),
            Ok(span(3, 6))
        );
        assert_eq!(
            block(SHELL, &opts(5, 1, false, false, None), 50),
            Ok(span(4, 6))
        );
    }

    #[test]
    fn headers_are_plain_lines_when_siblings_are_included() {
        assert_eq!(
            block(SHELL, &opts(5, 1, true, true, None), 50),
            Ok(span(1, 8))
        );
        assert_eq!(
            block(SHELL, &opts(5, 1, true, false, None), 50),
            Ok(span(1, 8))
        );
    }

    const LUA: &str = "local M = {}

-- Adds two numbers.
-- Returns the sum.
function M.add(a, b)
    local s = a + b
    return s
end

return M
";

    #[test]
    fn dash_dash_header_comments_are_kept() {
        assert_eq!(
            block(LUA, &opts(6, 1, false, true, None), 50),
            Ok(span(3, 8))
        );
        assert_eq!(
            block(LUA, &opts(6, 1, false, false, None), 50),
            Ok(span(5, 8))
        );
    }

    #[test]
    fn comments_below_the_block_get_no_header_exception() {
        let text = "fn a() {
    x();
}
// trailing note
fn b() {}
";
        // Down: `}` is the first floor line, the comment the second: stop.
        assert_eq!(
            block(text, &opts(2, 1, false, true, None), 50),
            Ok(span(1, 3))
        );
    }

    const RUST: &str = "struct Counter {
    n: u32,
}

impl Counter {
    /// Creates a counter.
    pub fn new() -> Self {
        Self { n: 0 }
    }

    // Bumps the count.
    pub fn bump(&mut self) {
        if self.n < 10 {
            self.n += 1;
        }
    }
}
";

    #[test]
    fn rust_method_in_impl_with_slash_header() {
        // Floor 4: up takes `pub fn bump` and the `//` comment, stops at the blank line 10
        // (it inherits indent 4 from line 9); down takes `    }` and stops at `}`.
        assert_eq!(
            block(RUST, &opts(14, 2, false, true, None), 50),
            Ok(span(11, 16))
        );
        assert_eq!(
            block(RUST, &opts(14, 2, false, false, None), 50),
            Ok(span(12, 16))
        );
    }

    #[test]
    fn rust_doc_comment_counts_as_header() {
        assert_eq!(
            block(RUST, &opts(8, 1, false, true, None), 50),
            Ok(span(6, 9))
        );
    }

    #[test]
    fn rust_unlimited_levels() {
        // Floor 0. Without siblings: up reaches `impl Counter {` (first floor line), then the
        // blank line 4 (indent 0 from line 3) is a second one; down ends at `}`.
        assert_eq!(
            block(RUST, &opts(14, 0, false, true, None), 50),
            Ok(span(5, 17))
        );
        assert_eq!(
            block(RUST, &opts(14, 0, true, true, None), 50),
            Ok(span(1, 17))
        );
    }

    #[test]
    fn rust_sibling_methods_with_siblings() {
        // Floor 4 with siblings: everything from `/// Creates` to the end of `bump`.
        assert_eq!(
            block(RUST, &opts(14, 2, true, true, None), 50),
            Ok(span(6, 16))
        );
    }

    // ---- More language samples ----

    const JS_CLASS: &str = "class Cart {
  constructor() {
    this.items = [];
  }

  total() {
    let sum = 0;
    for (const item of this.items) {
      if (item.price > 0) {
        sum += item.price;
      }
    }
    return sum;
  }
}
";

    #[test]
    fn javascript_method_in_class_two_space_indent() {
        // A level is 4 columns: with 2-space code, max_levels 1 sets the floor at 4.
        assert_eq!(
            block(JS_CLASS, &opts(10, 1, false, true, None), 50),
            Ok(span(8, 12))
        );
        assert_eq!(
            block(JS_CLASS, &opts(10, 1, true, true, None), 50),
            Ok(span(7, 13))
        );
        assert_eq!(
            block(JS_CLASS, &opts(10, 2, false, true, None), 50),
            Ok(span(1, 15))
        );
    }

    const PY_CLASS: &str = "class A:
    x = 1

    # helper docs
    # more docs
    def helper(self):
        return 1

    def other(self):
        pass
";

    #[test]
    fn python_method_with_header_and_next_def_below() {
        // Up: the `def`, both comments, then the blank line 3 (indent 4 from line 2) is a
        // second floor line. Down: blank line 8 inherits 8 from line 7; `def other` is the
        // first floor line below, so it and its body come along (Python has no closer).
        assert_eq!(
            block(PY_CLASS, &opts(7, 1, false, true, None), 50),
            Ok(span(4, 10))
        );
    }

    // ---- max_lines cap ----

    fn flat(count: usize) -> String {
        (1..=count).map(|n| format!("l{n}\n")).collect()
    }

    #[test]
    fn cap_keeps_block_centred_up_first() {
        let text = flat(11);
        assert_eq!(
            block(&text, &opts(6, 0, true, true, Some(5)), 100),
            Ok(span(4, 8))
        );
        assert_eq!(
            block(&text, &opts(6, 0, true, true, Some(4)), 100),
            Ok(span(4, 7))
        );
        assert_eq!(
            block(&text, &opts(6, 0, true, true, Some(2)), 100),
            Ok(span(5, 6))
        );
    }

    #[test]
    fn cap_near_an_edge_fills_from_the_other_side() {
        let text = flat(11);
        assert_eq!(
            block(&text, &opts(2, 0, true, true, Some(5)), 100),
            Ok(span(1, 5))
        );
        assert_eq!(
            block(&text, &opts(11, 0, true, true, Some(3)), 100),
            Ok(span(9, 11))
        );
    }

    #[test]
    fn cap_is_the_smaller_of_limit_and_max_lines() {
        let text = flat(11);
        assert_eq!(
            block(&text, &opts(6, 0, true, true, Some(10)), 3),
            Ok(span(5, 7))
        );
        assert_eq!(
            block(&text, &opts(6, 0, true, true, None), 3),
            Ok(span(5, 7))
        );
        assert_eq!(
            block(&text, &opts(6, 0, true, true, Some(3)), 2000),
            Ok(span(5, 7))
        );
    }

    #[test]
    fn cap_of_one_returns_the_anchor_even_blank() {
        let lines = ["a", "", "b"];
        assert_eq!(
            indentation_block(&lines, &opts(2, 0, true, true, None), 1),
            Ok(vec![2])
        );
        assert_eq!(
            indentation_block(&lines, &opts(2, 0, true, true, Some(1)), 9),
            Ok(vec![2])
        );
    }

    #[test]
    fn cap_then_trim_can_return_fewer_lines() {
        // Up first takes the blank line 2; the cap is reached; trimming drops it.
        let lines = ["a", "", "b", "c"];
        assert_eq!(
            indentation_block(&lines, &opts(3, 0, true, true, Some(2)), 9),
            Ok(vec![3])
        );
    }

    // ---- Blank lines ----

    #[test]
    fn blank_line_takes_the_indent_of_the_line_above() {
        // Line 3 inherits 4 from line 2 (not 0 from line 4), so it is not a floor line and
        // `def g():` is the first floor line below.
        let text = "def f():\n    x = 1\n\ndef g():\n    y = 2\n";
        assert_eq!(
            block(text, &opts(2, 1, false, true, None), 50),
            Ok(span(1, 5))
        );
    }

    #[test]
    fn trailing_blank_lines_are_trimmed() {
        let text = "fn f() {\n\n    if a {\n        b();\n    }\n\n}\n";
        assert_eq!(
            block(text, &opts(4, 1, false, true, None), 50),
            Ok(span(3, 5))
        );
        assert_eq!(
            block(text, &opts(4, 1, true, true, None), 50),
            Ok(span(3, 5))
        );
    }

    #[test]
    fn blank_floor_line_above_is_taken_then_trimmed() {
        // Floor 4: the blank line 2 (indent 4) is the first floor line above, line 1 the
        // second; the blank line is then trimmed off.
        let text = "    a();\n\n        b();\n";
        assert_eq!(block(text, &opts(3, 1, false, true, None), 50), Ok(vec![3]));
        assert_eq!(
            block(text, &opts(3, 1, true, true, None), 50),
            Ok(span(1, 3))
        );
    }

    #[test]
    fn top_level_anchor_without_siblings() {
        let text = "use x;\n\nfn a() {\n    b();\n}\n\nfn c() {}\n";
        assert_eq!(
            block(text, &opts(3, 0, false, true, None), 50),
            Ok(span(3, 5))
        );
    }

    #[test]
    fn leading_blank_lines_have_indent_zero() {
        let lines = ["", "  ", "    x", "    y"];
        // Floor 0; the blank lines are floor lines (indent 0). Up: line 2 first, line 1
        // second: stop. Trimmed: 3..=4.
        assert_eq!(
            indentation_block(&lines, &opts(3, 1, false, true, None), 9),
            Ok(span(3, 4))
        );
    }

    #[test]
    fn blank_anchor_at_an_edge_is_trimmed_away() {
        let lines = ["", "x"];
        assert_eq!(
            indentation_block(&lines, &opts(1, 0, true, true, None), 5),
            Ok(vec![2])
        );
        let blank = ["", " ", "\t"];
        assert_eq!(
            indentation_block(&blank, &opts(2, 0, true, true, None), 5),
            Ok(vec![])
        );
    }

    #[test]
    fn whitespace_only_lines_count_as_blank() {
        let lines = ["fn f() {", "    a();", " \t ", "    b();", "}"];
        assert_eq!(
            indentation_block(&lines, &opts(2, 1, true, true, None), 9),
            Ok(span(1, 5))
        );
        // The whitespace line inherits indent 4 from line 2, so it is no sibling boundary.
        assert_eq!(
            indentation_block(&lines, &opts(4, 1, false, true, None), 9),
            Ok(span(1, 5))
        );
    }

    // ---- Tabs ----

    #[test]
    fn tabs_count_four_columns() {
        let text = "fn main() {\n\tlet x = 1;\n\tif x > 0 {\n\t\tprintln!(\"pos\");\n\t}\n}\n";
        assert_eq!(
            block(text, &opts(4, 1, false, true, None), 50),
            Ok(span(3, 5))
        );
    }

    #[test]
    fn tab_is_four_columns_wherever_it_stands() {
        // "  \t" is 6 columns (not 4 as with tab stops), so the floor is 2 and line 1 is out.
        let lines = ["a", "    b", "  \tc", "    d"];
        assert_eq!(
            indentation_block(&lines, &opts(3, 1, false, true, None), 9),
            Ok(span(2, 4))
        );
    }

    #[test]
    fn tabs_and_spaces_mix_by_columns() {
        let lines = ["top", "\tmid", "    same", "\t    deep", "end"];
        // Line 4 is 8 columns; floor 4; lines 2 and 3 are both 4 columns.
        assert_eq!(
            indentation_block(&lines, &opts(4, 1, true, true, None), 9),
            Ok(span(2, 4))
        );
        assert_eq!(
            indentation_block(&lines, &opts(4, 1, false, true, None), 9),
            Ok(span(3, 4))
        );
    }

    // ---- max_levels ----

    #[test]
    fn max_levels_beyond_the_anchor_indent_saturates_at_zero() {
        assert_eq!(block(PARENTS, &codex_default(4, 9), 50), Ok(span(1, 7)));
        assert_eq!(
            block(PARENTS, &codex_default(4, usize::MAX), 50),
            Ok(span(1, 7))
        );
    }

    // ---- Errors ----

    #[test]
    fn errors_use_codex_messages() {
        let lines = ["a", "b"];
        let err = |o: IndentationOptions, limit| indentation_block(&lines, &o, limit);
        assert_eq!(
            err(opts(0, 0, true, true, None), 5),
            Err(ANCHOR_ZERO.to_string())
        );
        assert_eq!(
            err(opts(3, 0, true, true, None), 5),
            Err(ANCHOR_PAST_END.to_string())
        );
        assert_eq!(
            err(opts(1, 0, true, true, Some(0)), 5),
            Err(MAX_LINES_ZERO.to_string())
        );
        assert_eq!(
            err(opts(1, 0, true, true, None), 0),
            Err(LIMIT_ZERO.to_string())
        );
        assert_eq!(
            err(opts(1, 0, true, true, Some(3)), 0),
            Err(LIMIT_ZERO.to_string())
        );
        assert_eq!(
            indentation_block(&[], &opts(1, 0, true, true, None), 5),
            Err(ANCHOR_PAST_END.to_string())
        );
    }

    #[test]
    fn error_messages_are_codex_text() {
        assert_eq!(ANCHOR_ZERO, "anchor_line must be a 1-indexed line number");
        assert_eq!(MAX_LINES_ZERO, "max_lines must be greater than zero");
        assert_eq!(ANCHOR_PAST_END, "anchor_line exceeds file length");
        assert_eq!(LIMIT_ZERO, "limit must be greater than zero");
    }

    #[test]
    fn errors_come_in_codex_order() {
        let lines = ["a"];
        let err = |o: IndentationOptions| indentation_block(&lines, &o, 5);
        // anchor 0 before max_lines 0; max_lines 0 before the file length.
        assert_eq!(
            err(opts(0, 0, true, true, Some(0))),
            Err(ANCHOR_ZERO.to_string())
        );
        assert_eq!(
            err(opts(9, 0, true, true, Some(0))),
            Err(MAX_LINES_ZERO.to_string())
        );
        assert_eq!(
            indentation_block(&lines, &opts(0, 0, true, true, Some(0)), 0),
            Err(LIMIT_ZERO.to_string())
        );
    }

    // ---- Properties over generated inputs ----

    /// A small deterministic generator (64-bit LCG).
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn flip(&mut self) -> bool {
            self.next() & 1 == 1
        }
    }

    const INDENTS: [&str; 6] = ["", " ", "  ", "    ", "\t", "\t  "];
    const BODIES: [&str; 10] = [
        "", "x", "# c", "// c", "-- c", " ", "\t", "}", "fn f() {", "é",
    ];

    fn random_line(g: &mut Gen) -> String {
        let depth = g.below(4);
        let mut line = String::new();
        for _ in 0..depth {
            line.push_str(INDENTS[g.below(INDENTS.len())]);
        }
        line.push_str(BODIES[g.below(BODIES.len())]);
        line
    }

    fn random_options(g: &mut Gen, line_count: usize) -> IndentationOptions {
        let max_levels = [0, 1, 2, 3, usize::MAX][g.below(5)];
        let max_lines = if g.flip() { None } else { Some(g.below(8)) };
        opts(
            g.below(line_count + 2),
            max_levels,
            g.flip(),
            g.flip(),
            max_lines,
        )
    }

    /// Checks what must hold of any answer.
    fn check(lines: &[&str], options: &IndentationOptions, limit: usize) {
        let result = indentation_block(lines, options, limit);
        let guard = options.max_lines.unwrap_or(limit);
        let valid = limit > 0 && options.anchor_line >= 1 && guard > 0;
        let valid = valid && options.anchor_line <= lines.len();
        let Ok(numbers) = result else {
            assert!(!valid, "{lines:?} {options:?} {limit}: {result:?}");
            return;
        };
        assert!(valid, "{lines:?} {options:?} {limit}: {numbers:?}");
        let cap = limit.min(guard).min(lines.len());
        assert!(
            numbers.len() <= cap,
            "{lines:?} {options:?} {limit}: {numbers:?}"
        );
        assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{numbers:?}");
        assert!(numbers.iter().all(|&n| (1..=lines.len()).contains(&n)));
        let anchor_blank = is_blank(lines[options.anchor_line - 1]);
        if cap == 1 || !anchor_blank {
            assert!(
                numbers.contains(&options.anchor_line),
                "{lines:?} {options:?} {limit}: {numbers:?}"
            );
        }
        if cap > 1 {
            for end in [numbers.first(), numbers.last()].into_iter().flatten() {
                assert!(
                    !is_blank(lines[end - 1]),
                    "{lines:?} {options:?}: {numbers:?}"
                );
            }
        }
    }

    #[test]
    fn generated_inputs_keep_the_invariants() {
        let mut g = Gen(0x5eed);
        for _ in 0..20_000 {
            let owned: Vec<String> = (0..g.below(12)).map(|_| random_line(&mut g)).collect();
            let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
            let options = random_options(&mut g, lines.len());
            let limit = g.below(9);
            check(&lines, &options, limit);
        }
    }

    #[test]
    fn lines_in_the_block_never_sink_below_the_floor() {
        let mut g = Gen(42);
        for _ in 0..5_000 {
            let owned: Vec<String> = (1..=g.below(10) + 1).map(|_| random_line(&mut g)).collect();
            let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
            let options = opts(
                g.below(lines.len()) + 1,
                g.below(3),
                g.flip(),
                g.flip(),
                None,
            );
            let indents = effective_indents(&lines);
            let floor = floor_indent(indents[options.anchor_line - 1], options.max_levels);
            let numbers = indentation_block(&lines, &options, 50).unwrap_or_default();
            assert!(
                numbers.iter().all(|&n| indents[n - 1] >= floor),
                "{lines:?} {options:?}"
            );
        }
    }

    #[test]
    fn large_input_finishes() {
        let owned: Vec<String> = (0..200_000)
            .map(|n| format!("{}x", " ".repeat(n % 16)))
            .collect();
        let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
        let options = opts(100_000, 0, true, true, None);
        let numbers = indentation_block(&lines, &options, usize::MAX).unwrap_or_default();
        assert_eq!(numbers.len(), lines.len());
    }
}
