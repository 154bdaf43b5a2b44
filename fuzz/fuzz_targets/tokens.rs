//! Fuzzes the token estimate and a budget's fit (`tokens`): any text is estimated in one pass
//! without a panic, at most two tokens a byte, and a fit keeps to the text it was given: whole lines ending at a line
//! break, or a cut first line at a char boundary, never over 16 bytes a token. Byte 0 picks the
//! tokenizer, whether lines are numbered and the budget (110 to 362 tokens: small, so that
//! short texts are cut; a toolkit's is at least 1,000), byte 1 the first line's number; the
//! rest is the text (lossily UTF-8).
#![no_main]

use agent_read_file_engine::tokens::{self, TokenBudget, TokenFit, Tokenizer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [pick, first, bytes @ ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(bytes);
    let tokenizer = match pick % 2 {
        0 => Tokenizer::O200kBase,
        _ => Tokenizer::Cl100kBase,
    };
    let estimate = tokens::estimate(&text, tokenizer);
    // It may price short runs of capitals over a token a byte ("ZL\nKO" is 7), never over two.
    assert!(estimate <= 2 * text.len() + 1, "{estimate} tokens for {} bytes", text.len());
    let budget = TokenBudget {
        tokens: 110 + usize::from(*pick / 4) * 4,
        tokenizer,
        numbered: pick & 2 != 0,
    };
    let lines = text.split_inclusive('\n').count() as u32;
    let first_line = u64::from(*first) * 1_000_003 + 1;
    match budget.fit("fuzz.txt", &text, first_line, lines) {
        TokenFit::Whole => {}
        TokenFit::Lines { bytes } => {
            assert!(bytes > 0 && bytes < text.len());
            assert!(text[..bytes].ends_with('\n'));
            assert!(bytes <= budget.tokens * 16);
        }
        TokenFit::FirstLine { bytes } => {
            let line = text.split('\n').next().unwrap_or_default();
            assert!(bytes <= line.len() && text.is_char_boundary(bytes));
            assert!(bytes <= budget.tokens * 16);
        }
    }
});
