//! Indentation mode's own cases: header comments, blank lines, tabs, the line cap, errors,
//! and properties over generated inputs. The cases taken from Codex's suite are in
//! `ported_from_codex.rs`.

use super::ported_from_codex::{CODEX_JS, PARENTS, PYTHON};
use super::*;
use proptest::prelude::*;

/// Options with every field given.
pub(super) fn opts(
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
pub(super) fn codex_default(anchor_line: usize, max_levels: usize) -> IndentationOptions {
    opts(anchor_line, max_levels, false, true, None)
}

/// The block for a text split into lines.
pub(super) fn block(
    text: &str,
    options: &IndentationOptions,
    limit: usize,
) -> Result<Vec<usize>, String> {
    let lines: Vec<&str> = text.lines().collect();
    indentation_block(&lines, options, limit)
}

/// `a..=b` as a vector.
pub(super) fn span(a: usize, b: usize) -> Vec<usize> {
    (a..=b).collect()
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

#[test]
fn python_without_siblings_keeps_deeper_lines_above_the_opening_line() {
    // Up: 6, 5, then `def double` (first floor line), then line 3 (deeper than the
    // floor, so not checked), then `def __init__` is a second floor line: stop.
    // Down: 8, then `class Bar` is below the floor.
    let options = codex_default(7, 1);
    assert_eq!(block(PYTHON, &options, 200), Ok(span(3, 8)));
}

#[test]
fn codex_javascript_sample_two_levels_with_siblings() {
    // Floor 8: up to `init() {` (line 9 has indent 4), down to `},` (line 19 has 4).
    let options = opts(15, 2, true, true, None);
    assert_eq!(block(CODEX_JS, &options, 200), Ok(span(10, 18)));
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

// ---- Samples that the JavaScript suite checked through the tool, worked out by hand ----
// indent = spaces (1) + tabs (4); blank lines take the indent of the nearest non-blank
// line above; the block grows up, then down; a side stops below the floor; without
// siblings a side keeps the first line on the floor and stops at the next.

// Indents:  1:0  2:4  3:0  4:0(blank)  5:0  6:4  7:8  8:4  9:4(blank)  10:4  11:8  12:4  13:0
const COUNTER_RS: &str = "struct Counter {
    n: u32,
}

impl Counter {
    fn new() -> Self {
        Counter { n: 0 }
    }

    fn bump(&mut self) {
        self.n += 1;
    }
}
";

#[test]
fn counter_rs_method_in_impl() {
    // Floor 4. Up: L10 (first on the floor), L9 (blank, 4: second -> stop). Down: L12
    // (first), L13 (0 < 4: stop).
    assert_eq!(
        block(COUNTER_RS, &opts(11, 1, false, true, None), 2000),
        Ok(span(10, 12))
    );
    // With siblings: up through L10..L6, stop at L5 (0); down L12, stop at L13.
    assert_eq!(
        block(COUNTER_RS, &opts(11, 1, true, true, None), 2000),
        Ok(span(6, 12))
    );
    // max_levels 0: no floor, the whole file.
    assert_eq!(
        block(COUNTER_RS, &opts(11, 0, true, true, None), 2000),
        Ok(span(1, 13))
    );
}

#[test]
fn counter_rs_capped_grows_up_then_down_and_trims() {
    // Cap 5 from L11: +L10, +L12, +L9, +L13 -> L9..L13; the blank L9 on top is trimmed.
    assert_eq!(
        block(COUNTER_RS, &opts(11, 0, true, true, None), 5),
        Ok(span(10, 13))
    );
    // max_lines 3 under a limit of 2000: +L10, +L12.
    assert_eq!(
        block(COUNTER_RS, &opts(11, 0, true, true, Some(3)), 2000),
        Ok(span(10, 12))
    );
}

// Indents: 1:0 2:0(blank) 3:0(blank) 4:0 5:4 6:4 7:4(blank) 8:4(blank) 9:0 10:4 11:4 12:8 13:4
const APP_PY: &str = "import os


def first(a):
    x = a + 1
    return x


def second(b):
    y = b * 2
    if y > 10:
        y -= 10
    return y
";

#[test]
fn app_py_functions() {
    // Floor 0 with siblings: the whole file.
    assert_eq!(
        block(APP_PY, &opts(10, 1, true, true, None), 2000),
        Ok(span(1, 13))
    );
    // No siblings. Up from L10: L9 `def second` (first on the floor), L8, L7 (blank, 4
    // from L6), L6, L5, then L4 `def first` (second on the floor): stop. Down to EOF.
    assert_eq!(
        block(APP_PY, &opts(10, 1, false, true, None), 2000),
        Ok(span(5, 13))
    );
    // Anchor L12 (8), floor 4. Up: L11 (first), L10 (second: stop). Down: L13 (first).
    assert_eq!(
        block(APP_PY, &opts(12, 1, false, true, None), 2000),
        Ok(span(11, 13))
    );
}

// Tabs are 4 columns. Indents: 1:0 2:4 3:4 4:8 5:12 6:8 7:8 8:12 9:8 10:4 11:8 12:4 13:0
const POINT_HPP: &str = "namespace geo {
\tclass Point {
\tpublic:
\t\tint x() const {
\t\t\treturn x_;
\t\t}
\t\tint y() const {
\t\t\treturn y_;
\t\t}
\tprivate:
\t\tint x_;
\t};
}
";

#[test]
fn point_hpp_with_tabs() {
    // Anchor L8 (12), floor 8. Siblings: up L7..L4, stop at L3 (4); down L9, stop at L10.
    assert_eq!(
        block(POINT_HPP, &opts(8, 1, true, true, None), 2000),
        Ok(span(4, 9))
    );
    // No siblings: up L7 (first), L6 (second: stop); down L9 (first), L10 (4 < 8).
    assert_eq!(
        block(POINT_HPP, &opts(8, 1, false, true, None), 2000),
        Ok(span(7, 9))
    );
    // Floor 4. Siblings: up to L2, stop at L1 (0); down to L12, stop at L13.
    assert_eq!(
        block(POINT_HPP, &opts(8, 2, true, true, None), 2000),
        Ok(span(2, 12))
    );
    // No siblings: up L7..L4, L3 (first), L2 (second: stop); down L9, L10 (first), L11,
    // L12 (second: stop).
    assert_eq!(
        block(POINT_HPP, &opts(8, 2, false, true, None), 2000),
        Ok(span(3, 11))
    );
}

// Indents: 1:0 2:0 3:4 4:4 5:8 6:4 7:4(blank) 8:4 9:4 10:8 11:4 12:0
const SHAPES_JS: &str = "// geometry helpers
class Shapes {
    // area of a square
    square(s) {
        return s * s
    }

    // area of a circle
    circle(r) {
        return Math.PI * r * r
    }
}
";

#[test]
fn shapes_js_header_comment_above_a_method() {
    // Floor 4, no siblings. Up: L9 (first), L8 comment (a header), L7 blank (4: stop).
    // Down: L11 (first), L12 (0 < 4: stop).
    assert_eq!(
        block(SHAPES_JS, &opts(10, 1, false, true, None), 2000),
        Ok(span(8, 11))
    );
    // With siblings: up to L3, stop at L2 (0); down L11, stop at L12.
    assert_eq!(
        block(SHAPES_JS, &opts(10, 1, true, true, None), 2000),
        Ok(span(3, 11))
    );
}

// ---- Properties over generated inputs ----

const INDENTS: [&str; 6] = ["", " ", "  ", "    ", "\t", "\t  "];
const BODIES: [&str; 10] = [
    "", "x", "# c", "// c", "-- c", " ", "\t", "}", "fn f() {", "é",
];

/// A line of up to three indent pieces (spaces, tabs, mixed) and a short body: blank,
/// code, comment, closer or non-ASCII.
fn line() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(&INDENTS[..]), 0..4),
        prop::sample::select(&BODIES[..]),
    )
        .prop_map(|(indents, body)| indents.concat() + body)
}

/// Any options, valid or not (anchor 0 and anchors past the end included).
fn options() -> impl Strategy<Value = IndentationOptions> {
    (
        0..14usize,
        prop::sample::select(&[0, 1, 2, 3, usize::MAX][..]),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(0..8usize),
    )
        .prop_map(|(anchor, levels, siblings, header, max_lines)| {
            opts(anchor, levels, siblings, header, max_lines)
        })
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn generated_inputs_keep_the_invariants(
        owned in prop::collection::vec(line(), 0..12),
        options in options(),
        limit in 0..9usize,
    ) {
        let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
        check(&lines, &options, limit);
    }

    #[test]
    fn lines_in_the_block_never_sink_below_the_floor(
        (owned, anchor) in prop::collection::vec(line(), 1..=10)
            .prop_flat_map(|lines| { let len = lines.len(); (Just(lines), 1..=len) }),
        max_levels in 0..3usize,
        include_siblings in any::<bool>(),
        include_header in any::<bool>(),
    ) {
        let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
        let options = opts(anchor, max_levels, include_siblings, include_header, None);
        let indents = effective_indents(&lines);
        let floor = floor_indent(indents[anchor - 1], max_levels);
        let numbers = indentation_block(&lines, &options, 50).unwrap_or_default();
        prop_assert!(numbers.iter().all(|&n| indents[n - 1] >= floor), "{:?} {:?}", lines, options);
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
