// Large files (issue 19 §4): a toolkit with `maxFileBytes: Infinity` against the floor of a
// line count (`wc -l`) and against the way a TypeScript toolkit pages a big file (`readline`
// over a stream, counting lines), in one process. The files are made here, in a temporary
// folder, and removed after: a 1 GiB log of 100-byte lines and a 64 MiB one-line bundle. Then
// the log is written on (issue 35 §4): its end read after 1 MB more, and while a child
// appends a line every millisecond.
//
//   node benchmark/large-files.mjs [--json]

import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const { createAgentToolkit, readFileSync } = createRequire(import.meta.url)(path.join(here, '..', 'index.js'))
const JSON_OUTPUT = process.argv.includes('--json')
const progress = (line) => process.stderr.write(`${line}\n`)

const LINE_BYTES = 100
const LOG_LINES = Math.floor(2 ** 30 / LINE_BYTES)
const LOG_BYTES = LOG_LINES * LINE_BYTES
const BUNDLE_BYTES = 64 * 2 ** 20
const PAGE_START = 5_000_000
const BUNDLE_COLUMN = 60_000_000
/**
 * Untimed calls before a read timed 200 times, so that the runtime's compilers have settled
 * (Bun's take a few hundred calls: after 50, a page still cost twice what it does after 500).
 */
const WARMUP = 500

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'read-file-large-'))
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))

/** Writes `bytes` of text to `name`, `block(i)` bytes at a time; its path. */
function write(name, bytes, block) {
  const file = path.join(tmp, name)
  const fd = fs.openSync(file, 'w')
  for (let written = 0, i = 0; written < bytes; i++) written += fs.writeSync(fd, block(i))
  fs.closeSync(fd)
  return file
}

/** One 100-byte log line for line number `n` (1-based). */
function logLine(n) {
  const head = `2026-11-26T08:00:00.000Z INFO request ${String(n).padStart(9, '0')} served in ${n % 97} ms`
  return `${head.padEnd(LINE_BYTES - 1, '.')}\n`
}

/** Median of `runs` timings of `fn`, in ms, after `warmup` calls untimed. */
function medianMs(runs, fn, warmup = 0) {
  for (let i = 0; i < warmup; i++) fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    fn()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[times.length >> 1]
}

/** Plain Node's page: lines `start` to `start + count - 1`, and the line count, by readline. */
async function plainPage(file, start, count) {
  const lines = []
  let n = 0
  const reader = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })
  for await (const line of reader) {
    n++
    if (n >= start && n < start + count) lines.push(line)
  }
  return { content: lines.join('\n'), lineCount: n }
}

async function timedOnce(fn) {
  const started = performance.now()
  await fn()
  return performance.now() - started
}

progress('writing a 1 GiB log of 100-byte lines and a 64 MiB one-line bundle…')
const linesPerBlock = 10_000
const log = write('app.log', LOG_BYTES, (i) => {
  let text = ''
  for (let k = 0; k < linesPerBlock && i * linesPerBlock + k < LOG_LINES; k++) text += logLine(i * linesPerBlock + k + 1)
  return text
})
write('bundle.min.js', BUNDLE_BYTES, () => 'var a=1;'.repeat(2 ** 20 / 8))
fs.writeFileSync(path.join(tmp, 'small.ts'), Array.from({ length: 100 }, (_, i) => `const v${i} = ${i};\n`).join(''))
// The largest file read whole (1 MiB of lines): what reading 1 MB costs without an index.
fs.writeFileSync(path.join(tmp, 'whole.log'), logLine(1).repeat(2 ** 20 / LINE_BYTES))

const rssBefore = process.resourceUsage().maxRSS
progress('wc -l…')
const wcMs = medianMs(3, () => spawnSync('wc', ['-l', log]))

const fresh = () => createAgentToolkit({ workspaceRoot: tmp, maxFileBytes: Infinity, defaultDeny: false, ignoreFiles: false })
progress('first reads of the log (a new toolkit each, so no index yet)…')
const lastLines = { path: 'app.log', start_line: LOG_LINES - 9 }
const firstMs = medianMs(3, () => {
  const toolkit = fresh()
  const out = toolkit.readFileSync(lastLines)
  if (out.meta.line_count !== LOG_LINES || !out.content.startsWith(logLine(LOG_LINES - 9))) throw new Error('wrong window')
  toolkit.close()
})
progress('later pages of the log…')
const toolkit = fresh()
toolkit.readFileSync(lastLines)
const page = { path: 'app.log', start_line: PAGE_START, max_lines: 200 }
// A page and the small read it is held against are timed alike.
const pageMs = medianMs(200, () => toolkit.readFileSync(page), WARMUP)
const smallMs = medianMs(200, () => toolkit.readFileSync({ path: 'small.ts' }), WARMUP)
progress('the bundle…')
const bundleFirstMs = medianMs(3, () => {
  const own = fresh()
  own.readFileSync({ path: 'bundle.min.js' })
  own.close()
})
toolkit.readFileSync({ path: 'bundle.min.js' })
const bundleAgainMs = medianMs(20, () => toolkit.readFileSync({ path: 'bundle.min.js' }))
// A model's toolkit has a content budget: 16 KiB of the line from column 60,000,000.
const budgeted = createAgentToolkit({ workspaceRoot: tmp, maxFileBytes: Infinity, maxContentBytes: 16384, defaultDeny: false, ignoreFiles: false })
const deep = { path: 'bundle.min.js', start_column: BUNDLE_COLUMN }
budgeted.readFileSync(deep)
const bundleColumnMs = medianMs(
  200,
  () => {
    const out = budgeted.readFileSync(deep)
    if (!out.content.startsWith(';var a=1;') || out.continuation.start_column <= BUNDLE_COLUMN) throw new Error('wrong window')
  },
  WARMUP,
)
const budgetedSmallMs = medianMs(200, () => budgeted.readFileSync({ path: 'small.ts' }), WARMUP)
budgeted.close()
const rssPeakMiB = process.resourceUsage().maxRSS / 1024
const rssGrowthMiB = rssPeakMiB - rssBefore / 1024
// checkFreshness hashes every byte of the file again, whatever its status says (issue 35 §6).
progress('checkFreshness of the log (its bytes hashed again)…')
const freshnessRuns = []
for (let i = 0; i < 3; i++) {
  freshnessRuns.push(
    await timedOnce(async () => {
      if ((await toolkit.checkFreshness('app.log')) !== 'unchanged') throw new Error('the log changed')
    }),
  )
}
const freshnessMs = freshnessRuns.sort((a, b) => a - b)[1]

// The log written on: 1 MB appended before each timed read of its last 50 lines, which
// extends the line index by that 1 MB instead of scanning the log again.
progress('the end of the log after 1 MB more, 20 times…')
const tail = { path: 'app.log', start_line: -50 }
let written = LOG_LINES
const appendMiB = () => {
  let text = ''
  for (let k = 0; k < 10_000; k++) text += logLine(++written)
  fs.appendFileSync(log, text)
}
const tailRuns = []
for (let i = 0; i < 20; i++) {
  appendMiB()
  tailRuns.push(
    await timedOnce(() => {
      const out = toolkit.readFileSync(tail)
      if (out.meta.line_count !== written || !out.content.endsWith(logLine(written))) throw new Error('wrong tail')
    }),
  )
}
const tailAfterMiBMs = tailRuns.sort((a, b) => a - b)[10]
// The specification's readFileSync keeps no index: it reads the 1 MiB file whole each time.
const wholeMiBMs = medianMs(200, () => readFileSync(tmp, { path: 'whole.log', max_lines: 50 }), WARMUP)

progress('the end of the log while a line is appended every millisecond, 200 reads…')
const writer = spawn(process.execPath, ['-e', `const fs = require('fs'); const fd = fs.openSync(${JSON.stringify(log)}, 'a')
let n = ${written}
setInterval(() => fs.writeSync(fd, \`\${String(++n).padStart(9, '0')} appended\`.padEnd(${LINE_BYTES - 1}, '.') + '\\n'), 1)
console.log('writing')`], { stdio: ['ignore', 'pipe', 'inherit'] })
await new Promise((resolve) => writer.stdout.once('data', resolve))
let answered = 0
const liveRuns = []
for (let i = 0; i < 200; i++) {
  liveRuns.push(
    await timedOnce(async () => {
      const out = await toolkit.readFile(tail).catch((error) => error)
      if (typeof out.content === 'string' && out.meta.returned_line_count === 50) answered++
    }),
  )
  await new Promise((resolve) => setTimeout(resolve, 2))
}
writer.kill()
const liveTailMs = liveRuns.sort((a, b) => a - b)[100]
toolkit.close()

progress('plain Node: readline over the log (once each: seconds a read)…')
const plainFirstMs = await timedOnce(() => plainPage(log, LOG_LINES - 9, 10))
const plainPageMs = await timedOnce(() => plainPage(log, PAGE_START, 200))

const rows = [
  { what: 'first read of the 1 GiB log (its last lines)', ms: firstMs, against: 'wc -l', other: wcMs, target: 'within 1.5x of wc -l', pass: firstMs <= 1.5 * wcMs },
  { what: `a later page (line ${PAGE_START.toLocaleString('en-US')}, 200 lines)`, ms: pageMs, against: '100-line file', other: smallMs, target: 'under 2x the small-file read', pass: pageMs < 2 * smallMs },
  { what: 'first read vs plain Node readline', ms: firstMs, against: 'plain', other: plainFirstMs, target: '>= 20x faster', pass: plainFirstMs / firstMs >= 20 },
  { what: 'later page vs plain Node readline', ms: pageMs, against: 'plain', other: plainPageMs, target: '>= 1,000x faster', pass: plainPageMs / pageMs >= 1000 },
  { what: 'checkFreshness of the 1 GiB log', ms: freshnessMs, against: 'wc -l', other: wcMs, target: '(for scale)', pass: true },
  { what: '64 MiB one-line bundle, first read', ms: bundleFirstMs, against: 'wc -l of the log', other: wcMs, target: '(for scale)', pass: true },
  { what: '64 MiB one-line bundle, read again (1 MiB)', ms: bundleAgainMs, against: '100-line file', other: smallMs, target: '(for scale)', pass: true },
  { what: 'the bundle at column 60,000,000 (16 KiB)', ms: bundleColumnMs, against: '100-line file', other: budgetedSmallMs, target: 'under 2x the small-file read', pass: bundleColumnMs < 2 * budgetedSmallMs },
  { what: 'the log\'s last 50 lines after 1 MB more', ms: tailAfterMiBMs, against: '1 MiB file read whole', other: wholeMiBMs, target: 'under 2x reading 1 MiB whole', pass: tailAfterMiBMs < 2 * wholeMiBMs },
  { what: 'the same, against the 100-line file', ms: tailAfterMiBMs, against: '100-line file', other: smallMs, target: '(for scale)', pass: true },
  { what: `its last 50 lines, appended every ms (${answered}/200 answered)`, ms: liveTailMs, against: '100-line file', other: smallMs, target: 'every read answered', pass: answered === 200 },
]
const report = { wc_ms: wcMs, rss_growth_mib: rssGrowthMiB, rss_peak_mib: rssPeakMiB, rows }
if (JSON_OUTPUT) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
} else {
  const out = [`large files (${typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.versions.node}`}): median ms`]
  for (const r of rows) {
    const ratio = r.against === 'plain' ? `${(r.other / r.ms).toFixed(0)}x faster` : `${(r.ms / r.other).toFixed(2)}x ${r.against}`
    out.push(`  ${r.what.padEnd(50)} ${r.ms.toFixed(3).padStart(10)} ms  (${r.against} ${r.other.toFixed(3)} ms: ${ratio})  ${r.target}  ${r.pass ? 'PASS' : 'MISS'}`)
  }
  out.push(`  peak RSS growth of the addon's part: ${rssGrowthMiB.toFixed(1)} MiB (the process's peak: ${rssPeakMiB.toFixed(0)} MiB; target: at most 64)  ${rssGrowthMiB <= 64 ? 'PASS' : 'MISS'}`)
  process.stdout.write(`${out.join('\n')}\n`)
}
