//! Fuzzes path resolution and the line window with the oracle of `engine/tests/oracle`:
//! byte 0 picks absolute/relative, bytes 1-2 the window, the rest are path tokens.
#![no_main]

#[path = "../../engine/tests/oracle/mod.rs"]
mod oracle;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

static FIXTURE: OnceLock<oracle::Fixture> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let [flags, start, max, tokens @ ..] = data else {
        return;
    };
    let fx = FIXTURE.get_or_init(oracle::fixture);
    let path = oracle::path_from_tokens(fx, &tokens[..tokens.len().min(24)], flags & 1 == 1);
    oracle::check(fx, &path, u64::from(*start % 16) + 1, u32::from(*max % 6) + 1);
});
