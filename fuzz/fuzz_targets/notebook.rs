//! Fuzzes `media::notebook`: any bytes give a window or an error, never a panic, and the
//! window kept to its budget. Bytes 0-1 pick the first cell and the budget; the rest is the
//! file.
#![no_main]

use agent_read_file_engine::media::notebook::{self, NotebookBudget, NotebookPart};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [first, budget, bytes @ ..] = data else {
        return;
    };
    let first = u32::from(*first % 4) + 1;
    let budget = NotebookBudget {
        max_text_bytes: 64 + usize::from(*budget) * 16,
        max_output_bytes: usize::from(*budget % 64),
        max_images: u32::from(*budget % 3),
    };
    let _ = notebook::sniff(bytes);
    let Ok(window) = notebook::notebook_window(bytes, first, None, &budget) else {
        return;
    };
    assert_eq!(window.first, first);
    assert!(window.last <= window.cell_count);
    assert!(window.cell_count == 0 || window.last >= window.first);
    let mut text_bytes = 0;
    let mut images = 0;
    let mut after_text = false;
    for part in &window.parts {
        match part {
            NotebookPart::Text(text) => {
                assert!(!after_text, "adjacent text parts are merged");
                assert!(!text.contains('\u{1b}'));
                text_bytes += text.len();
                after_text = true;
            }
            NotebookPart::Image { .. } => {
                images += 1;
                after_text = false;
            }
        }
    }
    assert!(
        text_bytes <= budget.max_text_bytes,
        "{text_bytes} > {}",
        budget.max_text_bytes
    );
    assert!(images <= budget.max_images);
});
