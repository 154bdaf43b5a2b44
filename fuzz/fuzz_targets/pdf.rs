//! Fuzzes `media::pdf`: any bytes give text or an error, never a panic or a hang, and the
//! text kept to its promises. Byte 0 picks the first page; the rest is the file.
#![no_main]

use agent_read_file_engine::media::pdf::{self, MAX_PAGES_PER_CALL};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [first, bytes @ ..] = data else {
        return;
    };
    let first = u32::from(*first % 4) + 1;
    let _ = pdf::sniff(bytes);
    let Ok(text) = pdf::pdf_text(bytes, first, u32::MAX) else {
        return;
    };
    assert!(text.pages.len() <= MAX_PAGES_PER_CALL as usize);
    for (page, number) in text.pages.iter().zip(first..) {
        assert_eq!(page.number, number);
        assert!(page.number <= text.page_count);
        assert!(!page.text.contains('\0'));
        assert!(!page.text.contains("\n\n\n"));
        assert!(page.text.lines().all(|line| line.trim_end() == line));
    }
});
