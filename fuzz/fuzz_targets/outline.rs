//! Fuzzes `code::outline::outline` on arbitrary bytes read as each language: byte 0 picks
//! the language, the rest is the file (decoded as a read decodes it, invalid UTF-8 replaced).
//! No panic; every definition's lines lie within the file, its doc line above its first, its
//! depth and signature within their bounds; the parse stops within its time bound. A symbol
//! made of the text's first bytes is looked up, and ranges made of them parsed.
#![no_main]

use std::time::{Duration, Instant};

use agent_read_file_engine::code::outline::{
    MAX_DEFINITIONS, MAX_DEPTH, MAX_SIGNATURE_BYTES, ParseBounds, outline,
};
use agent_read_file_engine::code::{Language, SymbolQuery, parse_ranges};
use libfuzzer_sys::fuzz_target;

const LANGUAGES: [Language; 14] = [
    Language::Rust,
    Language::TypeScript,
    Language::Tsx,
    Language::JavaScript,
    Language::Python,
    Language::Go,
    Language::Java,
    Language::C,
    Language::Cpp,
    Language::Json,
    Language::Markdown,
    Language::Yaml,
    Language::Toml,
    Language::Other,
];

fuzz_target!(|data: &[u8]| {
    let [pick, bytes @ ..] = data else {
        return;
    };
    let language = LANGUAGES[usize::from(*pick) % LANGUAGES.len()];
    let text = String::from_utf8_lossy(bytes);
    let bounds = ParseBounds {
        max_bytes: 1 << 20,
        max_time: Duration::from_millis(500),
    };
    let started = Instant::now();
    let made = outline(&text, language, bounds, None);
    // The parse's own bound, and the walk and the fallback after it.
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert!(made.definitions.len() <= MAX_DEFINITIONS);
    for definition in &made.definitions {
        assert!(definition.start_line >= 1, "{definition:?}");
        assert!(definition.start_line <= definition.end_line, "{definition:?}");
        assert!(definition.end_line <= made.line_count.max(1), "{definition:?} of {}", made.line_count);
        assert!(definition.doc_line <= definition.start_line, "{definition:?}");
        assert!(definition.depth < MAX_DEPTH);
        assert!(definition.signature.len() <= MAX_SIGNATURE_BYTES + '…'.len_utf8());
    }
    let head: String = text.chars().take(24).collect();
    if let Some(query) = SymbolQuery::parse(&head) {
        let _ = query.find(&made);
    }
    let ranges: Vec<String> = head.split(',').map(str::to_owned).collect();
    if let Ok(spans) = parse_ranges(&ranges, "fuzz") {
        assert!(spans.windows(2).all(|pair| pair[0].end + 1 < pair[1].start));
    }
});
