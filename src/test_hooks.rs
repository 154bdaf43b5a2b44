//! What the tests and the benchmark need from the addon and a user must not stumble on:
//! which path calls took, and the benchmark's floors (the kernel's, the binding's). Not exported: added to the addon's
//! exports, as `testHooks`, only when `process.env.AGENT_READ_FILE_TEST_HOOKS` is `'1'` as
//! it loads (the test scripts set it; the benchmark sets it for itself). It is read through
//! `process.env`, not the C environment, which Bun does not update when a script assigns to
//! `process.env`. The binary is the same either way, and neither hook is in the generated
//! types.

use std::sync::{Mutex, PoisonError};

use napi::bindgen_prelude::{FnArgs, Function, FunctionCallContext, JsObjectValue, Object};
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::convert::{self, Fields};
use crate::output::literal::Literal;
use crate::schedule;
use agent_read_file_engine::{Content, ReadFileMeta, ReadFileOutput};

/// The environment variable that, `'1'` when the addon is loaded, adds `testHooks`.
const SWITCH: &str = "AGENT_READ_FILE_TEST_HOOKS";

/// How many `readFile` calls of this process were answered on the calling thread, from
/// memory (the kernel proved they could not wait), and how many went to the thread pool.
#[napi(object, object_to_js = false, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadPathCounts {
    pub from_memory: f64,
    pub pool: f64,
}

/// Adds `testHooks` to `exports` when [`SWITCH`] is on.
#[napi(module_exports)]
pub fn add_test_hooks(mut exports: Object, env: Env) -> napi::Result<()> {
    if !switch_is_on(&env) {
        return Ok(());
    }
    let mut hooks = Object::new(&env)?;
    let floor: Function<FnArgs<(String, u32)>, f64> =
        env.create_function_from_closure("readFloorNs", |call: FunctionCallContext| {
            let (path, iterations): (String, u32) = call.args()?;
            Ok(read_floor_ns(&path, iterations))
        })?;
    hooks.set_named_property("readFloorNs", floor)?;
    let counts: Function<(), Literal<ReadPathCounts>> =
        env.create_function_from_closure("readPathCounts", |_: FunctionCallContext| {
            let (from_memory, pool) = schedule::path_counts();
            Ok(Literal(ReadPathCounts {
                from_memory: from_memory as f64,
                pool: pool as f64,
            }))
        })?;
    hooks.set_named_property("readPathCounts", counts)?;
    let binding_floor: Function<FnArgs<(String, Unknown)>, Literal<ReadFileOutput>> = env
        .create_function_from_closure("bindingFloorRead", |call: FunctionCallContext| {
            let root: String = call.get(0)?;
            let input: Unknown = call.get(1)?;
            binding_floor_read(&root, &input)
        })?;
    hooks.set_named_property("bindingFloorRead", binding_floor)?;
    exports.set_named_property("testHooks", hooks)
}

/// Whether `process.env[SWITCH]` is `'1'`; anything that cannot be read is off.
fn switch_is_on(env: &Env) -> bool {
    let value = (|| {
        let process: Object = env.get_global()?.get_named_property("process")?;
        let variables: Object = process.get_named_property("env")?;
        variables.get_named_property::<Option<String>>(SWITCH)
    })();
    value.ok().flatten().as_deref() == Some("1")
}

/// For the benchmark's floor row: the raw cost, in nanoseconds per iteration, of opening
/// `path`, `fstat`, one `read` of the whole file and closing it, `iterations` times in a
/// loop in Rust (no Node-API per iteration, no sandbox, no line model). A failed open
/// counts as an iteration (the floor of a missing file).
fn read_floor_ns(path: &str, iterations: u32) -> f64 {
    use std::io::Read;
    let started = std::time::Instant::now();
    let mut buffer = Vec::new();
    for _ in 0..iterations {
        if let Ok(mut file) = std::fs::File::open(path) {
            let len = file.metadata().map_or(0, |status| status.len() as usize);
            buffer.resize(len + 1, 0);
            let _ = file.read(&mut buffer);
        }
    }
    started.elapsed().as_nanos() as f64 / f64::from(iterations.max(1))
}

/// For the benchmark's binding floor: `readFileSync(root, input)` with no file system, what
/// Node-API alone costs a read. The arguments are taken and checked as `readFileSync` takes
/// them, and the output, of a window of every line, built as its output is, from the bytes
/// of the file kept in memory (read, and its lines counted, on the first call for that
/// file).
fn binding_floor_read(root: &str, input: &Unknown) -> napi::Result<Literal<ReadFileOutput>> {
    static KEPT: Mutex<Option<(String, String, u64)>> = Mutex::new(None);
    let request = convert::request_from_js(input, Fields::Spec)
        .map_err(|error| napi::Error::from_reason(error.to_string()))?;
    let file = format!("{root}/{}", request.path);
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.as_ref().is_none_or(|(path, ..)| *path != file) {
        let text = std::fs::read_to_string(&file)?;
        let line_count = text.lines().count() as u64;
        *kept = Some((file, text, line_count));
    }
    let (text, line_count) = kept
        .as_ref()
        .map(|(_, text, line_count)| (text.clone(), *line_count))
        .unwrap_or_default();
    Ok(Literal(ReadFileOutput {
        meta: ReadFileMeta {
            byte_length: text.len() as u64,
            line_count,
            returned_line_count: line_count as u32,
            mtime_ms: 0,
        },
        path: request.path,
        content: Content::from(text),
        truncated: false,
        next_start_line: None,
        continuation: None,
        note: None,
    }))
}
