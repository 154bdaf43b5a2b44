//! Each read of code, from the file a view opened and under its options: an outline (a page
//! of it), a definition by its name (a window of its lines, or the list of those that match),
//! several ranges. A whole file is read for its outline at most once per version
//! ([`OutlineCache`]); a window or a range is read as any window is.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::answer::{
    DefinitionEntries, DefinitionEntry, OutlineMeta, OutlineOutput, RangeSegment, RangesOutput,
};
use super::language::Language;
use super::outline::{Definition, Outline, ParseBounds, outline};
use super::ranges::LineSpan;
use super::symbol::{Matched, NameIndex, SymbolQuery, symbols_of};
use super::text::{entry_tokens, outline_tokens};
use super::{CachedOutline, CodeAsk, MAX_CODE_BYTES, MAX_OUTLINE_SHARE};
use crate::attempt::{Access, Attempt, Stop};
use crate::encoding::detect_and_decode;
use crate::error::{ErrorCode, ReadFileError};
use crate::file_guard::Span;
use crate::file_status;
use crate::read_file::{
    Read, ReadFileOutput, ReadOptions, binary_error, read_opened_file, read_whole_file,
    window_of_whole_file,
};
use crate::request::{MAX_MAX_LINES, ReadRequest};
use crate::sandbox::{OpenedFile, Root};
use crate::source;
use crate::tokens::{self, Tokenizer};
use crate::version::FileVersion;
use crate::window::MIN_CONTENT_BUDGET;

/// What a read of code answers.
#[derive(Debug)]
pub enum CodeRead {
    /// A page of the file's outline, or the definitions a symbol matches, and the version read.
    Outline(OutlineOutput, FileVersion),
    /// A window: a definition's lines, or the file's when its outline would not serve.
    Window(Read),
    /// Several ranges of lines, and the version read.
    Ranges(RangesOutput, Option<FileVersion>),
}

/// What a symbol's window says when its outline is the indentation's.
pub const APPROXIMATE_NOTE: &str = "approximate: no grammar reads this language, so this is the indentation block of the line that names it";

/// What a window says when an outline was asked for and would cost more than its share.
pub const OUTLINE_TOO_LARGE_NOTE: &str =
    "its outline would cost more than a quarter of its text, so here are its lines";

/// `ask` of the file a view `opened` (by its workspace-relative path), under `options`.
pub fn read_code(
    root: &Root,
    request: &ReadRequest,
    ask: &CodeAsk,
    options: ReadOptions,
    opened: (&str, &OpenedFile),
) -> Attempt<CodeRead> {
    match ask {
        CodeAsk::Outline => {
            let cached = outline_of(request, options, opened)?;
            if !within_share(&cached) {
                let read = read_opened_file(root, request, options, opened)?;
                return Ok(CodeRead::Window(with_note(read, OUTLINE_TOO_LARGE_NOTE)));
            }
            Ok(CodeRead::Outline(
                page(request, options, &cached, false),
                cached.version,
            ))
        }
        CodeAsk::Symbol(query) => symbol(root, request, query, options, opened),
        CodeAsk::Ranges(spans) => read_ranges(root, request, spans, options, opened),
    }
}

/// A read with no range whose `window` of a long file is cut: the file's outline instead,
/// when its language is outlined unasked and the outline is within its share; else `window`.
pub fn unasked_outline(
    request: &ReadRequest,
    options: ReadOptions,
    opened: (&str, &OpenedFile),
    window: Read,
) -> Attempt<CodeRead> {
    let long = window.0.next_start_line.is_some() && window.0.first_line() == 1;
    let language = Language::of_path(opened.0);
    let size = u64::try_from(opened.1.stat.st_size).unwrap_or(u64::MAX);
    if !long || !language.outlined_unasked() || size > MAX_CODE_BYTES {
        return Ok(CodeRead::Window(window));
    }
    let cached = match outline_of(request, options, opened) {
        Ok(cached) => cached,
        Err(Stop::WouldBlock) => return Err(Stop::WouldBlock),
        Err(Stop::Failed(_)) => return Ok(CodeRead::Window(window)),
    };
    if !within_share(&cached) || !informative(&cached.outline) {
        return Ok(CodeRead::Window(window));
    }
    Ok(CodeRead::Outline(
        page(request, options, &cached, true),
        cached.version,
    ))
}

/// Whether an outline tells where things are, so that it may stand for a first window unasked:
/// two definitions or more, and none that holds none of its own spans more than half the
/// file (a file wrapped in one function is read by its lines).
fn informative(outline: &Outline) -> bool {
    let definitions = &outline.definitions;
    let half = outline.line_count / 2;
    let holds_some = |at: usize, definition: &Definition| {
        definitions.get(at + 1).is_some_and(|next| {
            next.depth > definition.depth && next.start_line <= definition.end_line
        })
    };
    definitions.len() >= 2
        && definitions.iter().enumerate().all(|(at, definition)| {
            holds_some(at, definition) || definition.end_line - definition.start_line < half
        })
}

/// Whether an outline costs at most its share of the file's tokens.
fn within_share(cached: &CachedOutline) -> bool {
    let (outline, file) = cached.tokens;
    outline as f32 <= file as f32 * MAX_OUTLINE_SHARE
}

/// `read` with `note`, unless its line was cut (its continuation is what it says then).
fn with_note((mut output, version): Read, note: &'static str) -> Read {
    if output.continuation.is_none() {
        output.note = Some(note);
    }
    (output, version)
}

/// The tokenizer a read's estimates are of.
fn tokenizer(options: &ReadOptions) -> Tokenizer {
    options
        .max_tokens
        .map_or_else(Tokenizer::default, |budget| budget.tokenizer)
}

/// The outline of the file `opened`, from the toolkit's cache when this version of it is
/// there. From memory, only a settled file's kept outline is answered: a parse waits.
fn outline_of(
    request: &ReadRequest,
    options: ReadOptions,
    (relative, opened): (&str, &OpenedFile),
) -> Attempt<CachedOutline> {
    let identity = file_status::identity(&opened.stat);
    let kept = options.outlines.and_then(|cache| cache.get(relative));
    if let Some(kept) = kept
        .as_ref()
        .filter(|kept| kept.settled_identity == Some(identity))
    {
        return Ok(kept.clone());
    }
    if options.access == Access::FromMemory {
        return Err(Stop::WouldBlock);
    }
    let bytes = source::read_opened(
        opened,
        &request.path,
        Span::Whole {
            max: MAX_CODE_BYTES,
        },
        Access::MayWait,
    )
    .map_err(|stop| stop.map(|error| code_size_error(error, relative)))?;
    if bytes.binary {
        return Err(Stop::Failed(binary_error(request)));
    }
    let version = FileVersion::of(relative.to_owned(), &bytes.bytes, bytes.mtime_ms);
    let settled_identity = file_status::settled(&opened.stat).then_some(identity);
    let made = match kept.filter(|kept| kept.version.hash == version.hash) {
        Some(kept) => CachedOutline {
            settled_identity,
            version,
            ..kept
        },
        None => {
            let text = detect_and_decode(&bytes.bytes).text;
            let language = Language::of_path(relative);
            let tokenizer = tokenizer(&options);
            let outline = outline(&text, language, ParseBounds::default(), options.stop);
            let entries = entries_of(&outline);
            let names = NameIndex::of(&outline);
            let lines = entry_tokens(&outline, tokenizer);
            let tokens = shares(outline_tokens(&lines), &text, tokenizer);
            CachedOutline {
                settled_identity,
                version,
                outline: Arc::new(outline),
                entries: Arc::new(entries),
                names: Arc::new(names),
                answer_tokens: Arc::new(AnswerTokens::new(lines, tokenizer)),
                tokens,
            }
        }
    };
    if let Some(cache) = options.outlines {
        cache.insert(relative, made.clone());
    }
    Ok(made)
}

/// An outline's `outline_tokens` and the tokens of `text`, its file's, counted only as far
/// as the 25% rule needs: a MiB of source takes about 15 ms to count whole, a quarter of
/// that when its outline is a tenth of it.
fn shares(outline_tokens: usize, text: &str, tokenizer: Tokenizer) -> (usize, usize) {
    let enough = (outline_tokens as f32 / MAX_OUTLINE_SHARE).ceil() as usize;
    (
        outline_tokens,
        tokens::estimate_up_to(text, tokenizer, enough),
    )
}

/// A size refusal of a read of code says what it reads whole.
fn code_size_error(mut error: ReadFileError, relative: &str) -> ReadFileError {
    if error.code == ErrorCode::SizeLimitExceeded {
        error.reason = format!(
            "{relative} is over {MAX_CODE_BYTES} bytes, the most an outline or a symbol reads; read it by start_line or ranges"
        );
        error.size_limit = None;
    }
    error
}

/// The file facts of an outline answer.
fn meta_of(cached: &CachedOutline) -> OutlineMeta {
    OutlineMeta {
        byte_length: cached.version.byte_length,
        line_count: cached.outline.line_count,
        mtime_ms: cached.version.mtime_ms,
    }
}

/// The file facts of a window read for ranges.
fn window_meta(output: &ReadFileOutput) -> OutlineMeta {
    OutlineMeta {
        byte_length: output.meta.byte_length,
        line_count: output.meta.line_count,
        mtime_ms: output.meta.mtime_ms,
    }
}

/// The page of `cached`'s outline that starts at the request's `start_line`: at most
/// `max_lines` definitions, and as many as fit the token budget (one at least).
fn page(
    request: &ReadRequest,
    options: ReadOptions,
    cached: &CachedOutline,
    unasked: bool,
) -> OutlineOutput {
    let outline = &cached.outline;
    let from = request.start_line;
    let first = outline
        .definitions
        .partition_point(|definition| definition.start_line < from);
    let room = options.max_tokens.map_or(f32::INFINITY, |budget| {
        budget.frame() - tokens::estimate(&request.path, budget.tokenizer) as f32
    });
    let mut spent = 0.0f32;
    let mut shown = 0;
    let most = request.max_lines as usize;
    for (at, entry) in cached.entries.iter().enumerate().skip(first).take(most) {
        let cost = cached.answer_tokens.of(at, entry) as f32;
        if shown > 0 && spent + cost > room {
            break;
        }
        spent += cost;
        shown += 1;
    }
    let rest = outline.definitions.get(first + shown);
    let next_start_line = rest.map(|next| {
        let page_start = match shown {
            0 => from,
            _ => outline.definitions[first].start_line,
        };
        next.start_line.max(page_start + 1)
    });
    let shown = DefinitionEntries::new(cached.entries.clone(), (first..first + shown).collect());
    OutlineOutput {
        path: cached.version.path.clone(),
        kind: "outline",
        language: outline.language.name(),
        source: outline.source.name(),
        definitions: shown,
        total_definitions: outline.definitions.len() as u64,
        truncated: next_start_line.is_some(),
        next_start_line,
        meta: meta_of(cached),
        unasked,
        symbol: None,
    }
}

/// Each definition of `outline` as an answer gives it, with the symbol that reads it.
fn entries_of(outline: &Outline) -> Vec<DefinitionEntry> {
    let symbols = symbols_of(outline);
    let entries = outline.definitions.iter().zip(symbols);
    entries
        .map(|(definition, symbol)| DefinitionEntry {
            name: definition.name.clone(),
            name_path: definition.name_path.clone(),
            symbol,
            kind: definition.kind,
            start_line: definition.start_line,
            end_line: definition.end_line,
            depth: definition.depth,
            signature: definition.signature.clone(),
        })
        .collect()
}

/// The estimated tokens each definition of an outline costs in an answer, as its line of
/// text or as its object in JSON (a model may be given either), whichever costs more: a page
/// is sized by them, so that it fits the read's budget in either. A definition's JSON is
/// estimated when a page first reaches it: all of a MiB's 1,700 took 4-9 ms of its first
/// outline, where its first page needs 200.
#[derive(Debug)]
pub(crate) struct AnswerTokens {
    /// Each definition's line of text ([`entry_tokens`], all counted for the outline's share).
    lines: Vec<u32>,
    /// Each definition's cost once estimated, 0 before (an object in JSON costs more).
    answers: Vec<AtomicU32>,
    tokenizer: Tokenizer,
}

impl AnswerTokens {
    fn new(lines: Vec<u32>, tokenizer: Tokenizer) -> AnswerTokens {
        let answers = lines.iter().map(|_| AtomicU32::new(0)).collect();
        AnswerTokens {
            lines,
            answers,
            tokenizer,
        }
    }

    /// What the definition at `at`, whose entry is `entry`, costs in an answer.
    fn of(&self, at: usize, entry: &DefinitionEntry) -> u32 {
        let known = self.answers[at].load(Ordering::Relaxed);
        if known > 0 {
            return known;
        }
        let json = serde_json::to_string(entry).unwrap_or_default();
        let cost = self.lines[at].max(tokens::estimate(&json, self.tokenizer) as u32);
        self.answers[at].store(cost, Ordering::Relaxed);
        cost
    }
}

/// A definition by its name: its window (doc comments and attributes included), the list
/// of those that match, or `NOT_FOUND` naming the nearest.
fn symbol(
    root: &Root,
    request: &ReadRequest,
    query: &SymbolQuery,
    options: ReadOptions,
    opened: (&str, &OpenedFile),
) -> Attempt<CodeRead> {
    let cached = outline_of(request, options, opened)?;
    let outline: &Outline = &cached.outline;
    match query.find(outline, &cached.names, request.start_line) {
        Matched::One(definition) => {
            let lines = definition.end_line - definition.doc_line + 1;
            let window = window_of(request, definition.doc_line, lines);
            let read = read_opened_file(root, &window, options, opened)?;
            Ok(CodeRead::Window(match outline.source {
                super::OutlineSource::Indentation => with_note(read, APPROXIMATE_NOTE),
                _ => read,
            }))
        }
        Matched::Several {
            listed,
            total,
            next_line,
        } => {
            let entries = DefinitionEntries::new(cached.entries.clone(), listed);
            let output = OutlineOutput {
                path: cached.version.path.clone(),
                kind: "matches",
                language: outline.language.name(),
                source: outline.source.name(),
                definitions: entries,
                total_definitions: total as u64,
                truncated: next_line.is_some(),
                next_start_line: next_line,
                meta: meta_of(&cached),
                unasked: false,
                symbol: Some(query.text.clone()),
            };
            Ok(CodeRead::Outline(output, cached.version))
        }
        Matched::None(nearest) => Err(Stop::Failed(no_such_symbol(
            &request.path,
            query,
            &nearest,
            outline.definitions.is_empty(),
        ))),
    }
}

/// The window of `lines` lines from `start` of the file `request` names (at most
/// [`MAX_MAX_LINES`]: a longer one is read on from its `next_start_line`).
fn window_of(request: &ReadRequest, start: u64, lines: u64) -> ReadRequest {
    ReadRequest {
        start_line: start,
        max_lines: lines.min(u64::from(MAX_MAX_LINES)) as u32,
        start_column: 1,
        max_lines_capped: false,
        lines_from_end: None,
        path: request.path.clone(),
    }
}

/// `NOT_FOUND` for a symbol no definition of `path` matches, naming the `nearest`.
fn no_such_symbol(
    path: &str,
    query: &SymbolQuery,
    nearest: &[String],
    no_definitions: bool,
) -> ReadFileError {
    let asked = serde_json::to_string(&query.text).unwrap_or_default();
    let reason = match (no_definitions, nearest) {
        (true, _) | (_, []) => {
            format!("no definition named {asked} in {path}: its outline has none; read it by lines")
        }
        (false, nearest) => {
            let names: Vec<String> = nearest
                .iter()
                .map(|name| serde_json::to_string(name).unwrap_or_default())
                .collect();
            format!(
                "no definition named {asked} in {path}; the nearest: {}",
                names.join(", ")
            )
        }
    };
    ReadFileError::new(ErrorCode::NotFound, path, reason)
}

/// The least a range read after another gets of what the budget has left: less, and the
/// ranges left are told to be read in another call.
const MIN_RANGE_TOKENS: usize = 200;

/// `spans` of the file `opened`, one window each, under one budget: each range gets what
/// the ranges before it left; a range cut short ends the read, and what is left is told as
/// the next call's `ranges`. A first range that is a cut line is answered as its window (the
/// model reads the line on from its column). A file whose windows are read from its whole
/// bytes is read once for all of them.
fn read_ranges(
    root: &Root,
    request: &ReadRequest,
    spans: &[LineSpan],
    options: ReadOptions,
    opened: (&str, &OpenedFile),
) -> Attempt<CodeRead> {
    let mut segments: Vec<RangeSegment> = Vec::new();
    let mut left: Vec<LineSpan> = Vec::new();
    let (mut spent_bytes, mut spent_tokens) = (0usize, 0usize);
    let mut version: Option<FileVersion> = None;
    let mut meta: Option<OutlineMeta> = None;
    let whole = read_whole_file(request, options, opened)?;
    for (at, span) in spans.iter().enumerate() {
        let past_end = meta.is_some_and(|meta| span.start > meta.line_count);
        let narrowed = narrowed(&options, spent_bytes, spent_tokens);
        let Some(narrowed) = narrowed.filter(|_| !past_end) else {
            if !past_end {
                left.extend_from_slice(&spans[at..]);
                break;
            }
            continue;
        };
        let window = window_of(request, span.start, span.len());
        let (output, read_version) = match &whole {
            Some(whole) => window_of_whole_file(&window, narrowed, whole)?,
            None => read_opened_file(root, &window, narrowed, opened)?,
        };
        if output.continuation.is_some() {
            if segments.is_empty() {
                return Ok(CodeRead::Window((output, read_version)));
            }
            left.extend_from_slice(&spans[at..]);
            break;
        }
        if let (Some(seen), Some(now)) = (&version, &read_version)
            && seen.hash != now.hash
        {
            return Err(Stop::Failed(ReadFileError::new(
                ErrorCode::FileChanged,
                &request.path,
                "the file changed while its ranges were read; read them again",
            )));
        }
        version = version.or(read_version);
        meta = Some(window_meta(&output));
        let returned = u64::from(output.meta.returned_line_count);
        if returned == 0 {
            continue;
        }
        let end = span.start + returned - 1;
        let content = output.content.as_str().to_owned();
        spent_bytes += content.len();
        spent_tokens += spent_on(&content, returned, &options, spent_tokens);
        segments.push(RangeSegment {
            start_line: span.start,
            end_line: end,
            content,
        });
        let line_count = output.meta.line_count;
        if end < span.end && end < line_count {
            left.push(LineSpan {
                start: end + 1,
                end: span.end,
            });
            left.extend_from_slice(&spans[at + 1..]);
            break;
        }
    }
    let next_ranges: Option<Vec<String>> =
        (!left.is_empty()).then(|| left.iter().map(LineSpan::argument).collect());
    let meta = match meta {
        Some(meta) => meta,
        // Nothing was read (every range past the end is found by reading the first).
        None => {
            let first = window_of(request, 1, 1);
            let (output, read_version) = read_opened_file(root, &first, options, opened)?;
            version = read_version;
            window_meta(&output)
        }
    };
    let path = opened.0.to_owned();
    let output = RangesOutput {
        path,
        kind: "ranges",
        ranges: segments,
        truncated: next_ranges.is_some(),
        next_ranges,
        meta,
    };
    Ok(CodeRead::Ranges(output, version))
}

/// The tokens a range's `content` of `lines` lines spends of the read's budget, its gutter
/// and gap line counted, `spent` being spent already. No token is shorter than a byte: while
/// its bytes fit what is left, they are the count, and the text is not looked at.
fn spent_on(content: &str, lines: u64, options: &ReadOptions, spent: usize) -> usize {
    let Some(budget) = options.max_tokens else {
        return 0;
    };
    let frame = lines as usize * 2 + 8;
    match spent + content.len() + frame <= budget.tokens {
        true => content.len() + frame,
        false => tokens::estimate(content, budget.tokenizer) + frame,
    }
}

/// `options` for a range read after ranges that spent `bytes` and `tokens` of its budgets;
/// `None` when too little is left.
fn narrowed<'p>(options: &ReadOptions<'p>, bytes: usize, tokens: usize) -> Option<ReadOptions<'p>> {
    let max_content_bytes = match options.max_content_bytes {
        Some(budget) => {
            let left = budget.saturating_sub(bytes);
            if left < MIN_CONTENT_BUDGET {
                return None;
            }
            Some(left)
        }
        None => None,
    };
    let max_tokens = match options.max_tokens {
        Some(mut budget) => {
            let left = budget.tokens.saturating_sub(tokens);
            if tokens > 0 && left < MIN_RANGE_TOKENS {
                return None;
            }
            budget.tokens = left.max(MIN_RANGE_TOKENS);
            Some(budget)
        }
        None => None,
    };
    Some(ReadOptions {
        max_content_bytes,
        max_tokens,
        ..*options
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::waited;
    use crate::code::OutlineCache;
    use crate::request::NumberArg;

    const SOURCE: &str = "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n";

    /// A workspace holding `name` with `text`, opened as a root.
    fn workspace(name: &str, text: &[u8]) -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        let root = Root::open(dir.path().to_str().unwrap()).unwrap();
        (dir, root)
    }

    /// The outline of `name` as a read with `options` finds it (the file opened afresh).
    fn outlined(root: &Root, name: &str, options: ReadOptions) -> Attempt<CachedOutline> {
        let request = ReadRequest::for_path(name.to_owned()).unwrap();
        let (relative, file) = source::open(root, name, None, Access::MayWait)?;
        outline_of(&request, options, (&relative, &file))
    }

    fn settled(dir: &tempfile::TempDir, name: &str) {
        let file = std::fs::File::open(dir.path().join(name)).unwrap();
        let stat = rustix::fs::fstat(&file).unwrap();
        file_status::wait_until_settled(&stat);
    }

    #[test]
    fn an_unchanged_file_s_outline_is_a_lookup_and_a_changed_one_is_made_anew() {
        let (dir, root) = workspace("a.rs", SOURCE.as_bytes());
        settled(&dir, "a.rs");
        let cache = OutlineCache::default();
        let options = ReadOptions {
            outlines: Some(&cache),
            ..ReadOptions::default()
        };
        let first = waited(outlined(&root, "a.rs", options)).unwrap();
        let again = waited(outlined(&root, "a.rs", options)).unwrap();
        assert!(Arc::ptr_eq(&first.outline, &again.outline));
        // Kept: from memory too, without a read.
        let from_memory = outlined(&root, "a.rs", options.from_memory());
        assert!(matches!(from_memory, Ok(kept) if Arc::ptr_eq(&kept.outline, &first.outline)));
        // The same bytes written again: a new status, the same hash, the same outline.
        std::fs::write(dir.path().join("a.rs"), SOURCE).unwrap();
        let rewritten = waited(outlined(&root, "a.rs", options)).unwrap();
        assert!(Arc::ptr_eq(&rewritten.outline, &first.outline));
        std::fs::write(dir.path().join("a.rs"), format!("{SOURCE}fn c() {{}}\n")).unwrap();
        let changed = waited(outlined(&root, "a.rs", options)).unwrap();
        assert!(!Arc::ptr_eq(&changed.outline, &first.outline));
        assert_eq!(changed.outline.definitions.len(), 3);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn an_outline_stands_for_the_first_window_only_when_it_tells_where_things_are() {
        let made = |text: &str| outline(text, Language::JavaScript, ParseBounds::default(), None);
        let body = "  x = x + 1\n".repeat(20);
        // One function that wraps the file.
        let wrapped = made(&format!("function all(x) {{\n{body}}}\n"));
        assert!(!informative(&wrapped));
        // One that wraps it, holding functions of its own.
        let holding = made(&format!(
            "function all(x) {{\n  function a() {{\n{body}  }}\n  function b() {{\n{body}  }}\n}}\n"
        ));
        assert!(informative(&holding));
        // A long function beside short ones: the outline does not tell where in it to read.
        let long = made(&format!(
            "function a(x) {{\n{body}{body}}}\nfunction b() {{}}\n"
        ));
        assert!(!informative(&long));
        let even = made(&format!(
            "function a(x) {{\n{body}}}\nfunction b(x) {{\n{body}}}\n"
        ));
        assert!(informative(&even));
    }

    #[test]
    fn a_definition_s_json_is_estimated_when_a_page_first_reaches_it() {
        let text: String = (0..300).map(|n| format!("fn f{n}() {{}}\n")).collect();
        let (_dir, root) = workspace("a.rs", text.as_bytes());
        let cached = waited(outlined(&root, "a.rs", ReadOptions::default())).unwrap();
        let estimated = || {
            let answers = &cached.answer_tokens.answers;
            answers
                .iter()
                .filter(|cost| cost.load(Ordering::Relaxed) > 0)
                .count()
        };
        assert_eq!(estimated(), 0);
        let request = ReadRequest::for_path("a.rs".into()).unwrap();
        let request = request.with_max_lines(NumberArg::Number(20.0)).unwrap();
        let shown = page(&request, ReadOptions::default(), &cached, false);
        assert_eq!(shown.definitions.len(), 20);
        assert_eq!(estimated(), 20);
        // As estimated all at once: the larger of the line's and the JSON's.
        for (at, entry) in cached.entries.iter().enumerate().take(20) {
            let json =
                tokens::estimate(&serde_json::to_string(entry).unwrap(), Tokenizer::O200kBase);
            let line = cached.answer_tokens.lines[at];
            assert_eq!(cached.answer_tokens.of(at, entry), line.max(json as u32));
        }
    }

    #[test]
    fn from_memory_an_outline_not_kept_would_wait() {
        let (_dir, root) = workspace("a.rs", SOURCE.as_bytes());
        let cache = OutlineCache::default();
        let options = ReadOptions {
            outlines: Some(&cache),
            ..ReadOptions::default()
        };
        assert!(matches!(
            outlined(&root, "a.rs", options.from_memory()),
            Err(Stop::WouldBlock)
        ));
        assert!(cache.is_empty());
    }

    #[test]
    fn a_file_over_what_is_read_whole_is_refused_by_name() {
        let big = vec![b'x'; MAX_CODE_BYTES as usize + 1];
        let (_dir, root) = workspace("big.rs", &big);
        let Err(Stop::Failed(error)) = outlined(&root, "big.rs", ReadOptions::default()) else {
            panic!("read");
        };
        assert_eq!(error.code, ErrorCode::SizeLimitExceeded);
        assert_eq!(
            error.reason,
            "big.rs is over 8388608 bytes, the most an outline or a symbol reads; read it by start_line or ranges"
        );
    }
}
