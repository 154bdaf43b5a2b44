//! Per-call cost of `read_file` on a 100-line (about 5 KB) file, in a loop.
//! Not a test: run `cargo run --release -p agent-read-file-engine --example read_bench [iterations]`.

use std::time::Instant;

use agent_read_file_engine::request::{NumberArg, ReadRequest};
use agent_read_file_engine::sandbox::Root;
use agent_read_file_engine::{ReadOptions, read_file};

fn main() {
    let iterations: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let line = format!("{}\n", "x".repeat(49));
    std::fs::write(dir.path().join("f.txt"), line.repeat(100)).expect("fixture");
    let root = Root::open(dir.path().to_str().expect("utf-8 temp path")).expect("root");
    let request =
        ReadRequest::new("f.txt".into(), NumberArg::Missing, NumberArg::Missing).expect("request");
    let options = ReadOptions::default();
    for _ in 0..iterations / 10 {
        read_file(&root, &request, options).expect("warm-up read");
    }
    let started = Instant::now();
    for _ in 0..iterations {
        read_file(&root, &request, options).expect("read");
    }
    let per_call = started.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
    println!("{iterations} reads: {per_call:.3} µs/call");
}
