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
mod ported_from_codex;
#[cfg(test)]
mod tests;
