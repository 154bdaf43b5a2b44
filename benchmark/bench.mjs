// Benchmark: the read_file addon against the same contract in plain Node (plain-node.mjs).
//
//   node benchmark/bench.mjs [--json] [--budget-ms=N] [--baseline=OTHER.node]
//   node_modules/.bin/bun benchmark/bench.mjs [--json] [--budget-ms=N] [--baseline=OTHER.node]
//
// Runs in one process under Node or Bun (only APIs both have). It first checks that both
// implementations give deep-equal outputs (or the same error code) on every scenario and
// aborts if they do not, then measures each case: warm-up, then alternating batches of the
// addon and of plain Node, each batch giving one per-call time; the table shows the median
// of those and the interquartile range of the batches as a % of the median. With
// `--baseline`, another build of the addon (say, main's) is loaded into the same process and
// timed in the same alternation, so a change is measured against it under the same load.

import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { readFilePlain, readFilePlainSync } from './plain-node.mjs'
import { loadAddon } from './load-addon.mjs'
import { BATCH_MS, floorUs, measure as measureSides, sink, timeAsync, timeSync } from './timing.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
// The floor row needs the addon's test hooks, which it adds only when loaded with this set.
process.env.AGENT_READ_FILE_TEST_HOOKS = '1'
const addon = require(path.join(here, '..', 'index.js'))
/** The binding's test hooks (`readFloorNs`), added only under AGENT_READ_FILE_TEST_HOOKS=1. */
const hooks = require(path.join(here, '..', 'lib', 'native.js')).testHooks
if (hooks === undefined) throw new Error('the addon was loaded before AGENT_READ_FILE_TEST_HOOKS was set')

// ---------------------------------------------------------------------------------------
// Options and environment

const argv = process.argv.slice(2)
const JSON_OUTPUT = argv.includes('--json')
const budgetArg = argv.find((a) => a.startsWith('--budget-ms='))
/** Measuring time per side of each case, after warm-up. */
const BUDGET_MS = budgetArg ? Number(budgetArg.split('=')[1]) : 700
const WARMUP_MS = Math.max(50, Math.round(BUDGET_MS / 3))
const baselineArg = argv.find((a) => a.startsWith('--baseline='))
/** Another build of the addon's binary, timed beside this one (its raw exports). */
const baseline = baselineArg ? loadAddon(path.resolve(baselineArg.slice('--baseline='.length))) : null

const CONCURRENCY = 64

const isBun = typeof globalThis.Bun !== 'undefined'
const runtime = isBun ? `Bun ${globalThis.Bun.version}` : `Node ${process.versions.node}`
const cpus = os.cpus()
const cpuModel = cpus.length > 0 ? cpus[0].model.trim() : 'unknown CPU'
const cores = cpus.length

/** Progress goes to stderr so `--json` leaves stdout machine-readable. */
function progress(message) {
  process.stderr.write(`${message}\n`)
}

// ---------------------------------------------------------------------------------------
// Fixtures

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'read-file-bench-'))
const root = path.join(tmp, 'ws')
const outside = path.join(tmp, 'outside')
let cleanedUp = false
function cleanUp() {
  if (cleanedUp) return
  cleanedUp = true
  fs.rmSync(tmp, { recursive: true, force: true })
}
process.on('exit', cleanUp)

/** `count` lines of code-like text, each `width` bytes including its `\n`. */
function codeLines(count, width) {
  let text = ''
  for (let i = 1; i <= count; i++) {
    const line = `  const value${i} = compute(${i}, "lorem ipsum dolor sit amet");`
    text += line.slice(0, width - 1).padEnd(width - 1, ' ') + '\n'
  }
  return text
}

/** Whole-second mtimes: `Math.floor(stat.mtimeMs)` is then exact whatever the runtime. */
const FIXED_MTIME = 1_700_000_000
function writeFixture(relative, data) {
  const file = path.join(root, relative)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, data)
  fs.utimesSync(file, FIXED_MTIME, FIXED_MTIME)
}

const LARGE_LINES = 20_000
const LARGE_WIDTH = 52 // 20,000 x 52 = 1,040,000 bytes, just under MAX_FILE_BYTES
fs.mkdirSync(root, { recursive: true })
fs.mkdirSync(outside, { recursive: true })
writeFixture('src/small.ts', codeLines(100, 52))
writeFixture('src/medium.ts', codeLines(2_500, 52))
writeFixture('src/large.ts', codeLines(LARGE_LINES, LARGE_WIDTH))
/** Small files read together: by one readFiles call, by concurrent readFile calls. */
const BATCH_FILES = 32
const BATCH_INPUTS = Array.from({ length: BATCH_FILES }, (_, i) => ({ path: `src/batch/f${i}.ts` }))
for (const [i, input] of BATCH_INPUTS.entries()) writeFixture(input.path, codeLines(40 + i, 52))
const largeBytes = fs.statSync(path.join(root, 'src/large.ts')).size
if (largeBytes > addon.MAX_FILE_BYTES) throw new Error(`large fixture is ${largeBytes} bytes, over the limit`)
const lastWindowStart = LARGE_LINES - 200 + 1

/** The measured scenarios. */
const SCENARIOS = [
  { id: 'small', label: '100-line file, whole', input: { path: 'src/small.ts' } },
  { id: 'medium', label: '2,500 lines, start 1000 +200', input: { path: 'src/medium.ts', start_line: 1000, max_lines: 200 } },
  {
    id: 'large',
    label: `1 MiB last window (${lastWindowStart}+200)`,
    input: { path: 'src/large.ts', start_line: lastWindowStart, max_lines: 200 },
  },
  { id: 'missing', label: 'missing file (NOT_FOUND)', input: { path: 'src/missing.ts' }, expectCode: 'NOT_FOUND' },
]

// Edge cases of the contract, checked (not timed) so the baseline is known to be the same
// contract. A disagreement here is reported; one on a timed scenario aborts the run.
writeFixture('edge/crlf.txt', 'one\r\ntwo\r\nthree')
writeFixture('edge/bom.txt', '\uFEFFhello\nworld\n')
writeFixture('edge/lone-cr.txt', 'a\rb\nc\r')
writeFixture('edge/invalid-utf8.txt', Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82, 0x0a, 0x63]))
writeFixture('edge/empty.txt', '')
writeFixture('edge/blank-lines.txt', '\n\n\n')
writeFixture('edge/binary.bin', Buffer.concat([Buffer.from('text'), Buffer.alloc(1), Buffer.from('more\n')]))
writeFixture('edge/late-nul.txt', Buffer.concat([Buffer.alloc(8192, 0x61), Buffer.alloc(1), Buffer.from('\n')]))
writeFixture('edge/exact-limit.txt', Buffer.alloc(addon.MAX_FILE_BYTES, 0x61))
writeFixture('edge/over-limit.txt', Buffer.alloc(addon.MAX_FILE_BYTES + 1, 0x61))
fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET\n')
fs.symlinkSync('../src/small.ts', path.join(root, 'edge/link-in'))
fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'edge/link-out'))
fs.symlinkSync(outside, path.join(root, 'edge/dir-out'))

const EDGE_CASES = [
  { path: 'edge/crlf.txt' },
  { path: 'edge/crlf.txt', start_line: 2, max_lines: 1 },
  { path: 'edge/bom.txt' },
  { path: 'edge/lone-cr.txt' },
  { path: 'edge/invalid-utf8.txt' },
  { path: 'edge/empty.txt' },
  { path: 'edge/blank-lines.txt', start_line: 2, max_lines: 1 },
  { path: 'edge/binary.bin' },
  { path: 'edge/late-nul.txt' },
  { path: 'edge/exact-limit.txt' },
  { path: 'edge/over-limit.txt' },
  { path: 'src/small.ts', start_line: 100, max_lines: 1 },
  { path: 'src/small.ts', start_line: 101 },
  { path: 'src/small.ts', start_line: 1e15 },
  { path: 'src/small.ts', max_lines: 500 },
  { path: './src//../src/small.ts' },
  { path: path.join(root, 'src/small.ts') },
  { path: 'edge/link-in' },
  { path: 'edge/link-out' },
  { path: 'edge/dir-out/secret.txt' },
  { path: '../outside/secret.txt' },
  { path: '/etc/passwd' },
  { path: 'src' },
  { path: 'src/small.ts/x' },
  { path: '' },
  { path: 'a\0b' },
  { path: 42 },
  { path: 'src/small.ts', start_line: 0 },
  { path: 'src/small.ts', max_lines: 501 },
  { path: 'src/small.ts', max_lines: 1.5 },
  { path: 'src/small.ts', start_line: '3' },
]

// ---------------------------------------------------------------------------------------
// Equivalence check

function deepEqual(a, b) {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  if (keysA.length !== keysB.length) return false
  return keysA.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]))
}

/** `{ ok: output }` or `{ code, message }` of one call. */
async function settle(call) {
  try {
    return { ok: await call() }
  } catch (err) {
    return { code: err && err.code, message: err && err.message }
  }
}

function describe(outcome) {
  if (!('ok' in outcome)) return `error ${outcome.code} (${outcome.message})`
  const { content, ...rest } = outcome.ok
  const shown = typeof content === 'string' && content.length > 40 ? `${content.slice(0, 40)}…` : content
  return `${JSON.stringify(rest)} content(${content?.length} chars)=${JSON.stringify(shown)}`
}

/** Where two outputs' contents first differ, when both are outputs with different contents. */
function contentDifference(a, b) {
  if (!('ok' in a) || !('ok' in b) || a.ok.content === b.ok.content) return ''
  const x = String(a.ok.content)
  const y = String(b.ok.content)
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  return `\n    contents first differ at char ${i}: ${JSON.stringify(y.slice(i, i + 20))} here, ${JSON.stringify(x.slice(i, i + 20))} from addon async`
}

function sameOutcome(a, b) {
  if ('ok' in a || 'ok' in b) return 'ok' in a && 'ok' in b && deepEqual(a.ok, b.ok)
  return typeof a.code === 'string' && a.code === b.code && a.message.startsWith(`${a.code}: `) && b.message.startsWith(`${b.code}: `)
}

/** Compares the four ways of reading `input`; returns the problems found. */
async function compare(input) {
  const outcomes = {
    'addon async': await settle(() => addon.readFile(root, input)),
    'addon sync': await settle(() => addon.readFileSync(root, input)),
    'plain async': await settle(() => readFilePlain(root, input)),
    'plain sync': await settle(() => readFilePlainSync(root, input)),
  }
  const reference = outcomes['addon async']
  const problems = []
  for (const [name, outcome] of Object.entries(outcomes)) {
    if (!sameOutcome(reference, outcome)) {
      problems.push(
        `  ${name}: ${describe(outcome)}\n  addon async: ${describe(reference)}${contentDifference(reference, outcome)}`,
      )
    }
  }
  return { reference, problems }
}

function inputLabel(input) {
  return JSON.stringify(input, (k, v) => (typeof v === 'string' && v.length > 50 ? `${v.slice(0, 50)}…` : v))
}

async function verify() {
  for (const scenario of SCENARIOS) {
    const { reference, problems } = await compare(scenario.input)
    if (scenario.expectCode ? reference.code !== scenario.expectCode : !('ok' in reference)) {
      problems.push(`  expected ${scenario.expectCode ?? 'a result'}, got ${describe(reference)}`)
    }
    if (scenario.id === 'large' && 'ok' in reference) {
      const m = reference.ok.meta
      if (m.returned_line_count !== 200 || reference.ok.truncated || m.line_count !== LARGE_LINES) {
        problems.push(`  not the last 200-line window: ${describe(reference)}`)
      }
    }
    if (problems.length > 0) {
      progress(`ABORT: the addon and plain Node disagree on scenario "${scenario.id}" ${inputLabel(scenario.input)}:`)
      progress(problems.join('\n'))
      process.exit(1)
    }
  }
  const edgeProblems = []
  for (const input of EDGE_CASES) {
    const { problems } = await compare(input)
    if (problems.length > 0) edgeProblems.push(`${inputLabel(input)}\n${problems.join('\n')}`)
  }
  return edgeProblems
}

// ---------------------------------------------------------------------------------------
// Measurement

/** `measureSides` with this run's budget. */
function measure(timer, sides) {
  return measureSides(timer, sides, { budgetMs: BUDGET_MS, warmupMs: WARMUP_MS })
}

/** The sides of one case: the addon, plain Node, and the baseline build when given. */
function sidesOf(addonSide, plainSide, baselineSide) {
  return baselineSide ? [addonSide, plainSide, baselineSide] : [addonSide, plainSide]
}

/** One result row; `baseline_ratio` > 1 means this build is faster than the baseline. */
function row(what, addonSummary, plainSummary, baselineSummary) {
  const result = { ...what, addon: addonSummary, plain: plainSummary, ratio: plainSummary.median_us / addonSummary.median_us }
  if (baselineSummary) {
    result.baseline = baselineSummary
    result.baseline_ratio = baselineSummary.median_us / addonSummary.median_us
  }
  return result
}

// ---------------------------------------------------------------------------------------
// Output

const fmtUs = (us) => (us >= 1000 ? us.toFixed(0) : us >= 100 ? us.toFixed(1) : us.toFixed(2))
const fmtPct = (pct) => `${pct.toFixed(1)}%`

function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.title.length, ...rows.map((r) => c.get(r).length)))
  const line = (cells) =>
    cells.map((cell, i) => (columns[i].left ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')
  return [line(columns.map((c) => c.title)), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(columns.map((c) => c.get(r))))].join('\n')
}

/** The targets, each for one runtime (the later issues' targets replace the earlier ones). */
const TARGETS = [
  { name: 'async, 100-line file', case: 'small', mode: 'async', min: 20 },
  { name: 'async, 2,500 lines at line 1000', case: 'medium', mode: 'async', min: 15 },
  { name: 'async, missing file', case: 'missing', mode: 'async', min: 6 },
  { name: `${CONCURRENCY} concurrent async reads`, case: 'concurrent', mode: 'async', min: 15 },
  { name: 'async, 1 MiB last window', case: 'large', mode: 'async', min: 14 },
  { name: 'sync, 100-line file', case: 'small', mode: 'sync', min: 5 },
  { name: 'sync, 1 MiB last window', case: 'large', mode: 'sync', min: 10 },
  { name: 'Bun: async, 100-line file', case: 'small', mode: 'async', min: 8, runtime: 'bun' },
].filter((target) => (target.runtime ?? 'node') === (isBun ? 'bun' : 'node'))


// ---------------------------------------------------------------------------------------
// Main

async function main() {
  progress(`read_file benchmark under ${runtime}: fixtures in ${tmp}`)
  const edgeProblems = await verify()
  progress(
    `equivalence: ${SCENARIOS.length} timed scenarios identical; ` +
      `${EDGE_CASES.length - edgeProblems.length}/${EDGE_CASES.length} contract edge cases identical`,
  )

  const results = []
  for (const scenario of SCENARIOS) {
    const { input } = scenario
    for (const mode of ['async', 'sync']) {
      progress(`measuring ${scenario.id} ${mode}…`)
      const read = (impl) =>
        mode === 'async' ? () => impl.readFile(root, input) : () => impl.readFileSync(root, input)
      const plain = mode === 'async' ? () => readFilePlain(root, input) : () => readFilePlainSync(root, input)
      const [a, p, b] = await measure(mode === 'async' ? timeAsync : timeSync, sidesOf(read(addon), plain, baseline && read(baseline)))
      results.push(row({ case: scenario.id, label: scenario.label, mode, unit: 'call' }, a, p, b))
    }
  }

  progress(`measuring ${CONCURRENCY} concurrent…`)
  const small = SCENARIOS[0].input
  const all = (read) => () => Promise.all(Array.from({ length: CONCURRENCY }, () => read(root, small)))
  const [ca, cp, cb] = await measure(
    timeAsync,
    sidesOf(all(addon.readFile), all(readFilePlain), baseline && all(baseline.readFile)),
  )
  const label = `${CONCURRENCY} concurrent reads of the 100-line file`
  results.push(row({ case: 'concurrent', label, mode: 'async', unit: 'batch' }, ca, cp, cb))

  // 32 small files: one readFiles call, 32 concurrent readFile calls, plain Node's
  // Promise.all; checked to give the same outputs first.
  progress(`measuring ${BATCH_FILES} files by readFiles…`)
  const batched = await addon.readFiles(root, BATCH_INPUTS)
  const plainBatch = await Promise.all(BATCH_INPUTS.map((input) => readFilePlain(root, input)))
  if (!batched.every((r, i) => r.ok && deepEqual(r.output, plainBatch[i]))) {
    progress('ABORT: readFiles and plain Node disagree on the batch files')
    process.exit(1)
  }
  const [bf, bc, bp] = await measure(timeAsync, [
    () => addon.readFiles(root, BATCH_INPUTS),
    () => Promise.all(BATCH_INPUTS.map((input) => addon.readFile(root, input))),
    () => Promise.all(BATCH_INPUTS.map((input) => readFilePlain(root, input))),
  ])
  const batch = {
    label: `${BATCH_FILES} small files (40-71 lines)`,
    read_files: bf,
    concurrent_read_file: bc,
    plain: bp,
    concurrent_ratio: bc.median_us / bf.median_us,
    plain_ratio: bp.median_us / bf.median_us,
  }

  // The addon settles invalid arguments without the pool, so the floor of an async call is
  // measured with the runtime's own single pool round trip.
  progress('measuring one thread-pool round trip…')
  const [floor] = await measure(timeAsync, [() => fs.promises.stat(root)])

  // The raw Rust floor of each case's file, and the sync and async rows as multiples of it.
  progress('measuring the raw floor…')
  const floors = SCENARIOS.map((scenario) => {
    const floorOf = floorUs(hooks.readFloorNs, path.join(root, scenario.input.path))
    const rowOf = (mode) => results.find((r) => r.case === scenario.id && r.mode === mode).addon.median_us
    return {
      case: scenario.id,
      label: scenario.label,
      floor: floorOf,
      sync_x: rowOf('sync') / floorOf.median_us,
      async_x: rowOf('async') / floorOf.median_us,
    }
  })

  // A toolkit's reads of the 100-line file: with DEFAULT_DENY (what every adapter and the
  // MCP server use; the ignore files' cost is `ignore-files.mjs`'s), with no rules, and the bare readFileSync, as multiples of its floor.
  progress('measuring toolkit reads…')
  const denying = addon.createAgentToolkit({ workspaceRoot: root, ignoreFiles: false })
  const open = addon.createAgentToolkit({ workspaceRoot: root, defaultDeny: false, ignoreFiles: false })
  const [tds, tos, bare, bindingFloor] = await measure(timeSync, [
    () => denying.readFileSync(small),
    () => open.readFileSync(small),
    () => addon.readFileSync(root, small),
    // Node-API alone: the arguments checked and the output built, from bytes in memory.
    () => hooks.bindingFloorRead(root, small),
  ])
  const [tda] = await measure(timeAsync, [() => denying.readFile(small)])
  denying.close()
  open.close()
  const smallFloor = floors[0].floor.median_us
  const toolkit = [
    { label: 'toolkit, DEFAULT_DENY', mode: 'sync', summary: tds },
    { label: 'toolkit, DEFAULT_DENY', mode: 'async', summary: tda },
    { label: 'toolkit, no rules', mode: 'sync', summary: tos },
    { label: 'bare readFileSync', mode: 'sync', summary: bare },
  ].map((r) => ({ ...r, floor_x: r.summary.median_us / smallFloor }))
  // No sync read can cost less than the kernel's floor and the binding's together.
  const lowerBound = {
    binding_floor: bindingFloor,
    floor_x: (smallFloor + bindingFloor.median_us) / smallFloor,
  }
  // Issue 18's targets, as multiples of the floor measured in the same run.
  const floorTargets = [
    { name: 'toolkit with DEFAULT_DENY, sync', max: 2.5, x: toolkit[0].floor_x },
    { name: 'bare readFileSync', max: 2.5, x: floors[0].sync_x },
    { name: 'async readFile, on the calling thread', max: 3, x: floors[0].async_x },
  ].map((t) => ({ ...t, pass: t.x <= t.max }))

  const targets = TARGETS.map((t) => {
    const row = results.find((r) => r.case === t.case && r.mode === t.mode)
    return { name: t.name, case: t.case, mode: t.mode, min_ratio: t.min, ratio: row.ratio, pass: row.ratio >= t.min }
  })
  const batchTarget = 1.5
  targets.push({
    name: `readFiles vs ${BATCH_FILES} concurrent readFile`,
    case: 'batch',
    mode: 'async',
    min_ratio: batchTarget,
    ratio: batch.concurrent_ratio,
    pass: batch.concurrent_ratio >= batchTarget,
  })

  if (JSON_OUTPUT) {
    const report = {
      runtime,
      runtime_name: isBun ? 'bun' : 'node',
      runtime_version: isBun ? globalThis.Bun.version : process.versions.node,
      platform: `${process.platform}-${process.arch}`,
      cpu: cpuModel,
      cores,
      uv_threadpool_size: process.env.UV_THREADPOOL_SIZE ?? null,
      budget_ms_per_side: BUDGET_MS,
      baseline: baselineArg ? baselineArg.slice('--baseline='.length) : null,
      pool_round_trip: floor,
      cases: results,
      floors,
      batch,
      toolkit,
      targets,
      floor_targets: floorTargets,
      lower_bound: lowerBound,
      edge_case_mismatches: edgeProblems,
    }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
    return
  }

  const out = []
  out.push(`read_file benchmark: addon vs plain Node (${runtime}, ${process.platform}-${process.arch})`)
  out.push(`CPU: ${cpuModel}, ${cores} cores; UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? 'default'}`)
  out.push(`median time per call (per batch for the concurrent row); ±: IQR of ${BATCH_MS}-ms batches as % of median`)
  if (baseline) out.push(`baseline: ${baselineArg.slice('--baseline='.length)}, timed in the same alternation`)
  out.push('')
  out.push(
    table(results, [
      { title: 'case', left: true, get: (r) => r.label },
      { title: 'mode', left: true, get: (r) => r.mode },
      { title: 'addon µs', get: (r) => fmtUs(r.addon.median_us) },
      { title: '±', get: (r) => fmtPct(r.addon.iqr_pct) },
      { title: 'plain µs', get: (r) => fmtUs(r.plain.median_us) },
      { title: '±', get: (r) => fmtPct(r.plain.iqr_pct) },
      { title: 'plain/addon', get: (r) => `${r.ratio.toFixed(1)}x` },
      ...(baseline
        ? [
            { title: 'baseline µs', get: (r) => fmtUs(r.baseline.median_us) },
            { title: '±', get: (r) => fmtPct(r.baseline.iqr_pct) },
            { title: 'baseline/addon', get: (r) => `${r.baseline_ratio.toFixed(2)}x` },
          ]
        : []),
    ]),
  )
  out.push('')
  out.push(`${batch.label}, median µs per batch, ±IQR:`)
  out.push(
    table(
      [
        ['readFiles (one native call)', batch.read_files, 1],
        [`${BATCH_FILES} concurrent readFile`, batch.concurrent_read_file, batch.concurrent_ratio],
        ['plain Node Promise.all', batch.plain, batch.plain_ratio],
      ],
      [
        { title: 'way', left: true, get: (r) => r[0] },
        { title: 'µs', get: (r) => fmtUs(r[1].median_us) },
        { title: '±', get: (r) => fmtPct(r[1].iqr_pct) },
        { title: 'vs readFiles', get: (r) => `${r[2].toFixed(2)}x` },
      ],
    ),
  )
  out.push('')
  out.push(
    `one thread-pool round trip (await fs.promises.stat(root), the floor of any async read): ` +
      `${fmtUs(floor.median_us)} µs ±${fmtPct(floor.iqr_pct)}`,
  )
  out.push('')
  out.push('the raw floor (open + fstat + read + close in a Rust loop, no Node-API), and the rows as multiples of it:')
  out.push(
    table(floors, [
      { title: 'case', left: true, get: (r) => r.label },
      { title: 'floor µs', get: (r) => fmtUs(r.floor.median_us) },
      { title: '±', get: (r) => fmtPct(r.floor.iqr_pct) },
      { title: 'sync/floor', get: (r) => `${r.sync_x.toFixed(1)}x` },
      { title: 'async/floor', get: (r) => `${r.async_x.toFixed(1)}x` },
    ]),
  )
  out.push('')
  out.push('toolkit reads of the 100-line file, and as multiples of its floor:')
  out.push(
    table(toolkit, [
      { title: 'way', left: true, get: (r) => r.label },
      { title: 'mode', left: true, get: (r) => r.mode },
      { title: 'µs', get: (r) => fmtUs(r.summary.median_us) },
      { title: '±', get: (r) => fmtPct(r.summary.iqr_pct) },
      { title: '/floor', get: (r) => `${r.floor_x.toFixed(1)}x` },
    ]),
  )
  out.push('')
  out.push(
    `the binding's floor (Node-API alone: readFileSync's arguments checked, its output built from bytes in memory): ${fmtUs(bindingFloor.median_us)} µs ±${fmtPct(bindingFloor.iqr_pct)};`,
  )
  out.push(`  with the raw floor, the least any sync read of the 100-line file can cost here: ${lowerBound.floor_x.toFixed(1)}x the floor`)
  out.push('')
  out.push('floor targets (multiples of the floor, lower is better):')
  const floorWidth = Math.max(...floorTargets.map((t) => t.name.length))
  for (const t of floorTargets) {
    out.push(`  ${t.name.padEnd(floorWidth)}  <= ${String(t.max).padStart(4)}x   measured ${t.x.toFixed(1).padStart(5)}x   ${t.pass ? 'PASS' : 'MISS'}`)
  }
  out.push('')
  out.push(`targets (${isBun ? 'Bun' : 'Node'}):`)
  const nameWidth = Math.max(...targets.map((t) => t.name.length))
  for (const t of targets) {
    out.push(`  ${t.name.padEnd(nameWidth)}  >= ${String(t.min_ratio).padStart(4)}x   measured ${t.ratio.toFixed(1).padStart(5)}x   ${t.pass ? 'PASS' : 'MISS'}`)
  }
  if (edgeProblems.length > 0) {
    out.push('')
    out.push(`contract edge cases where the addon and plain Node disagree (${edgeProblems.length}):`)
    out.push(edgeProblems.join('\n'))
  }
  process.stdout.write(`${out.join('\n')}\n`)
}

try {
  await main()
} finally {
  cleanUp()
}
if (sink === -1) console.log(sink)
