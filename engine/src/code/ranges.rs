//! Several line ranges of one file in one read: `["10-40", "120-160"]`, checked, sorted and
//! merged where they overlap or touch.

use crate::error::{ErrorCode, ReadFileError};

/// The most ranges one read takes.
pub const MAX_RANGES: usize = 16;

/// Lines `start..=end` (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineSpan {
    pub start: u64,
    pub end: u64,
}

impl LineSpan {
    /// How many lines it holds.
    pub fn len(&self) -> u64 {
        self.end - self.start + 1
    }

    /// Never: a span holds one line at least.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// As a range argument: `"10-40"`, or `"10"` for one line.
    pub fn argument(&self) -> String {
        match self.start == self.end {
            true => self.start.to_string(),
            false => format!("{}-{}", self.start, self.end),
        }
    }
}

/// The rule a range must follow, in words.
pub const RANGE_RULE: &str = "a line range like \"10-40\" or \"12\" (1-based, start <= end)";

/// `ranges` (each like `"10-40"` or `"12"`) checked, sorted and merged; `INVALID_ARGUMENT`
/// (naming `path`) for none, more than [`MAX_RANGES`], or one that is not a range.
pub fn parse_ranges(ranges: &[String], path: &str) -> Result<Vec<LineSpan>, ReadFileError> {
    let invalid = |reason: String| ReadFileError::new(ErrorCode::InvalidArgument, path, reason);
    if ranges.is_empty() {
        return Err(invalid(format!(
            "ranges must hold at least one range, each {RANGE_RULE}"
        )));
    }
    if ranges.len() > MAX_RANGES {
        return Err(invalid(format!(
            "ranges holds {} ranges, more than {MAX_RANGES}; read the rest in another call",
            ranges.len()
        )));
    }
    let mut spans = Vec::with_capacity(ranges.len());
    for (index, range) in ranges.iter().enumerate() {
        let span = parse_range(range).ok_or_else(|| {
            let shown: String = range.chars().take(40).collect();
            invalid(format!(
                "ranges[{index}] must be {RANGE_RULE} (got {})",
                serde_json::to_string(&shown).unwrap_or_default()
            ))
        })?;
        spans.push(span);
    }
    Ok(merged(spans))
}

/// One range, `"A-B"` or `"A"`, spaces around its numbers allowed.
fn parse_range(range: &str) -> Option<LineSpan> {
    let number = |text: &str| {
        let text = text.trim();
        (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| text.parse::<u64>().unwrap_or(u64::MAX))
    };
    let (start, end) = match range.split_once('-') {
        Some((start, end)) => (number(start)?, number(end)?),
        None => {
            let line = number(range)?;
            (line, line)
        }
    };
    (start >= 1 && start <= end).then_some(LineSpan { start, end })
}

/// `spans` sorted, those that overlap or touch made one.
fn merged(mut spans: Vec<LineSpan>) -> Vec<LineSpan> {
    spans.sort();
    let mut out: Vec<LineSpan> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last_mut() {
            Some(last) if span.start <= last.end.saturating_add(1) => {
                last.end = last.end.max(span.end);
            }
            _ => out.push(span),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(ranges: &[&str]) -> Result<Vec<(u64, u64)>, String> {
        let ranges: Vec<String> = ranges.iter().map(|r| r.to_string()).collect();
        parse_ranges(&ranges, "a.rs")
            .map(|spans| spans.into_iter().map(|s| (s.start, s.end)).collect())
            .map_err(|error| format!("{}: {}", error.code.as_str(), error.reason))
    }

    #[test]
    fn ranges_are_sorted_and_merged_where_they_overlap_or_touch() {
        assert_eq!(
            parsed(&["120-160", "10-40", "30-50", "51", "200"]),
            Ok(vec![(10, 51), (120, 160), (200, 200)])
        );
        assert_eq!(parsed(&[" 5 - 7 "]), Ok(vec![(5, 7)]));
        assert_eq!(
            parsed(&["1-99999999999999999999999"]),
            Ok(vec![(1, u64::MAX)])
        );
    }

    #[test]
    fn a_range_that_is_not_one_is_refused_with_its_index() {
        for bad in ["0-3", "5-4", "-3", "a-b", "1-2-3", "", "1.5", "+3", "3-"] {
            let error = parsed(&["1", bad]).unwrap_err();
            assert!(
                error.starts_with("INVALID_ARGUMENT: ranges[1] must be"),
                "{bad}: {error}"
            );
        }
        assert!(parsed(&[]).unwrap_err().contains("at least one"));
        let many: Vec<String> = (1..=17).map(|n| n.to_string()).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(parsed(&many).unwrap_err().contains("more than 16"));
        assert!(parsed(&many[..16]).is_ok());
    }

    #[test]
    fn a_span_names_itself_as_an_argument() {
        assert_eq!(LineSpan { start: 3, end: 3 }.argument(), "3");
        assert_eq!(LineSpan { start: 3, end: 9 }.argument(), "3-9");
    }
}
