//! Property tests: random token paths through the engine, judged by the shared oracle.
//! The same oracle drives the fuzz target in `fuzz/`.

mod oracle;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn token_paths_stay_confined_and_windows_hold(
        tokens in proptest::collection::vec(any::<u8>(), 0..12),
        absolute in any::<bool>(),
        start_line in 1u64..12,
        max_lines in 1u32..5,
    ) {
        let fx = fixture();
        let path = oracle::path_from_tokens(fx, &tokens, absolute);
        oracle::check(fx, &path, start_line, max_lines);
    }
}

/// One fixture for all cases: building it per case would dominate the run.
fn fixture() -> &'static oracle::Fixture {
    static FIXTURE: std::sync::OnceLock<oracle::Fixture> = std::sync::OnceLock::new();
    FIXTURE.get_or_init(oracle::fixture)
}

#[test]
fn the_oracle_fails_on_a_file_outside_the_root_it_was_given() {
    // Tell the oracle the root is `ws/sub`: a successful read of `ws/a.txt` is then a file
    // outside the root, which it must reject.
    let mut fx = oracle::fixture();
    fx.canonical_root.push("sub");
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        oracle::check(&fx, "a.txt", 1, 2);
    }));
    assert!(caught.is_err());
}

#[test]
fn the_alphabet_reaches_every_outcome() {
    use agent_read_file_engine::sandbox::OpenError;
    let fx = fixture();
    let open = |path: &str| {
        let relative = fx.root.relative_path(path)?;
        fx.root.open_file(&relative).map(drop)
    };
    assert_eq!(open("chain"), Ok(()));
    assert_eq!(open("in-abs"), Ok(()));
    assert_eq!(open("out-abs"), Err(OpenError::Outside));
    assert_eq!(open("sub/deep/climb"), Err(OpenError::Outside));
    assert_eq!(open("loop"), Err(OpenError::Loop));
    assert!(matches!(open("dangling"), Err(OpenError::Os(_))));
    for slash in [
        "a.txt/",
        "slash-rel",
        "slash-dot-rel",
        "slash-abs",
        "slash-dot-abs",
    ] {
        assert_eq!(
            open(slash),
            Err(OpenError::Os(rustix::io::Errno::NOTDIR)),
            "{slash}"
        );
    }
    assert_eq!(open("dir-slash-abs/b.txt"), Ok(()));
}
