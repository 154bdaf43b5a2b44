//! What a model is given for an outline, the definitions a symbol matches, and several
//! ranges: one header line, a line a definition (its lines and its first line, indented by
//! its depth) or the numbered lines with one line for each gap, and the call that reads on.
//! The words were chosen by counting tokens (benchmark/tokens.mjs).

use super::answer::{DefinitionEntry, OutlineOutput, RangesOutput};
use super::outline::{Definition, Outline};
use crate::model_text::{TextOptions, TextSink, shown_path};
use crate::tokens::{self, Tokenizer};

/// A definition's line: `start-end signature`, indented two spaces a scope.
pub(crate) fn entry_line(definition: &Definition) -> String {
    line_of(
        definition.depth,
        definition.start_line,
        definition.end_line,
        &definition.signature,
    )
}

fn line_of(depth: u32, start: u64, end: u64, signature: &str) -> String {
    let indent = "  ".repeat(depth as usize);
    match start == end {
        true => format!("{indent}{start} {signature}"),
        false => format!("{indent}{start}-{end} {signature}"),
    }
}

/// The estimated tokens of each of `outline`'s lines.
pub(crate) fn entry_tokens(outline: &Outline, tokenizer: Tokenizer) -> Vec<u32> {
    outline
        .definitions
        .iter()
        .map(|definition| tokens::estimate(&entry_line(definition), tokenizer) as u32)
        .collect()
}

/// The estimated tokens of a whole outline's text, its lines' being `entry_tokens`: the
/// lines, their breaks, and a header's and closing lines' worth.
pub(crate) fn outline_tokens(entry_tokens: &[u32]) -> usize {
    let lines: usize = entry_tokens.iter().map(|&tokens| tokens as usize + 1).sum();
    lines + 40
}

/// The model's text for an outline page or a symbol's matches.
pub fn render_outline(output: &OutlineOutput) -> String {
    let mut text = String::new();
    let path = shown_path(&output.path);
    let meta = &output.meta;
    let count = output.total_definitions;
    let approximate = match output.source {
        "indentation" => ", approximate",
        _ => "",
    };
    if output.kind == "matches" {
        let symbol =
            serde_json::to_string(output.symbol.as_deref().unwrap_or_default()).unwrap_or_default();
        text.push_str(&format!(
            "{path}: {count} definitions match {symbol}; read one by its symbol:"
        ));
        for entry in output.definitions.iter() {
            text.push('\n');
            text.push_str(&format!(
                "{}-{} symbol={} {}",
                entry.start_line,
                entry.end_line,
                serde_json::to_string(&entry.symbol).unwrap_or_default(),
                entry.signature
            ));
        }
        if let Some(next) = output.next_start_line {
            text.push_str(&format!(
                "\n[more: symbol={symbol} start_line={next}; or name one more fully]"
            ));
        }
        text.push('\n');
        return text;
    }
    let instead = match output.unasked {
        true => " (its outline instead of its first lines)",
        false => "",
    };
    text.push_str(&format!(
        "{path} outline{instead}: {count} definitions, {} lines ({}{approximate})",
        meta.line_count, output.language
    ));
    let base = output
        .definitions
        .iter()
        .map(|e| e.depth)
        .min()
        .unwrap_or(0);
    for entry in output.definitions.iter() {
        text.push('\n');
        text.push_str(&line_of(
            entry.depth - base,
            entry.start_line,
            entry.end_line,
            &entry.signature,
        ));
    }
    if let Some(next) = output.next_start_line {
        text.push_str(&format!("\n[next: outline=true start_line={next}]"));
    }
    if let Some(example) = example_symbol(output.definitions.iter()) {
        text.push_str(&format!(
            "\n[read one: symbol={}; or start_line, or ranges=[\"a-b\",…]]",
            serde_json::to_string(example).unwrap_or_default()
        ));
    }
    text.push('\n');
    text
}

/// The symbol an outline's closing line shows as an example: its first nested definition's,
/// else its first.
fn example_symbol<'a>(
    mut entries: impl Iterator<Item = &'a DefinitionEntry> + Clone,
) -> Option<&'a str> {
    let nested = entries
        .clone()
        .find(|entry| entry.depth > 0 && entry.kind != "impl");
    nested
        .or_else(|| entries.find(|entry| entry.kind != "impl"))
        .map(|entry| entry.symbol.as_str())
}

/// The model's text for several ranges: the header (`path lines 10-40, 120-160 of T (S
/// bytes)`), each range's lines (numbered as `options` says), one line for each gap between
/// them (`[… 79 lines …]`), and the call that reads the ranges left.
pub fn render_ranges(output: &RangesOutput, options: TextOptions) -> String {
    let mut text = String::new();
    let path = shown_path(&output.path);
    let meta = &output.meta;
    let spans: Vec<String> = output
        .ranges
        .iter()
        .map(|segment| match segment.start_line == segment.end_line {
            true => segment.start_line.to_string(),
            false => format!("{}-{}", segment.start_line, segment.end_line),
        })
        .collect();
    let lines = match output.ranges.as_slice() {
        [one] if one.start_line == one.end_line => "line",
        _ => "lines",
    };
    if spans.is_empty() {
        text.push_str(&format!(
            "{path} has {} lines, none in these ranges ({} bytes)",
            meta.line_count, meta.byte_length
        ));
    } else {
        text.push_str(&format!(
            "{path} {lines} {} of {} ({} bytes)",
            spans.join(", "),
            meta.line_count,
            meta.byte_length
        ));
    }
    let mut last_end: Option<u64> = None;
    for segment in &output.ranges {
        if let Some(end) = last_end {
            let gap = segment.start_line - end - 1;
            let lines = if gap == 1 { "line" } else { "lines" };
            text.push_str(&format!("\n[… {gap} {lines} …]"));
        }
        let body = segment
            .content
            .strip_suffix('\n')
            .unwrap_or(&segment.content);
        text.push_lines(body, segment.start_line, options.line_numbers);
        last_end = Some(segment.end_line);
    }
    if let Some(next) = &output.next_ranges {
        text.push_str(&format!(
            "\n[next: ranges={}]",
            serde_json::to_string(next).unwrap_or_default()
        ));
    }
    text.push('\n');
    text
}
