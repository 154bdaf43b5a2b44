// Benchmark: a model's read through a toolkit (issue 37), the path every agent step takes.
//
//   node benchmark/model-read.mjs [--budget-ms=N] [--baseline-package=DIR]
//   node_modules/.bin/bun benchmark/model-read.mjs [--budget-ms=N] [--baseline-package=DIR]
//
// A 100-line file read by `toolkit.readFile`, by `toolkit.view` (which tells media from text)
// and by `toolkit.runToolCall` (view and the model's text), beside plain Node's read of the
// same contract (plain-node.mjs) and the floor (open, fstat, read, close in a Rust loop). With
// `--baseline-package`, another checkout of this package (built; say, the commit before) is
// loaded into the same process and its toolkit timed in the same alternation.

import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { readFilePlain } from './plain-node.mjs'
import { measure, floorUs, timeAsync, sink, BATCH_MS } from './timing.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
// The floor needs the addon's test hooks, which it adds only when loaded with this set.
process.env.AGENT_READ_FILE_TEST_HOOKS = '1'
const packageAt = (dir) => createRequire(path.join(dir, 'index.js'))(path.join(dir, 'index.js'))
const ours = packageAt(path.join(here, '..'))
const { testHooks: hooks } = createRequire(import.meta.url)('../lib/native.js')

const argv = process.argv.slice(2)
const budgetArg = argv.find((a) => a.startsWith('--budget-ms='))
const BUDGET_MS = budgetArg ? Number(budgetArg.split('=')[1]) : 700
const baselineArg = argv.find((a) => a.startsWith('--baseline-package='))
const baselineDir = baselineArg && path.resolve(baselineArg.slice('--baseline-package='.length))
const theirs = baselineDir && packageAt(baselineDir)

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'model-read-bench-'))
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }))
const lines = Array.from({ length: 100 }, (_, i) => `  const value${i + 1} = compute(${i + 1}, "lorem ipsum");\n`)
fs.mkdirSync(path.join(root, 'src'))
const file = path.join(root, 'src', 'small.ts')
fs.writeFileSync(file, lines.join(''))
const input = { path: 'src/small.ts' }

/** The three toolkit reads of `pkg`, each a function of no arguments. */
function toolkitReads(pkg) {
  const toolkit = pkg.createAgentToolkit({ workspaceRoot: root })
  return [
    ['toolkit.readFile', () => toolkit.readFile(input)],
    ['toolkit.view', () => toolkit.view(input)],
    ['toolkit.runToolCall', () => toolkit.runToolCall(input).then((result) => result.content)],
  ]
}


async function main() {
  const options = { budgetMs: BUDGET_MS, warmupMs: Math.max(50, Math.round(BUDGET_MS / 3)) }
  const runtime = typeof globalThis.Bun !== 'undefined' ? `Bun ${globalThis.Bun.version}` : `Node ${process.versions.node}`
  const floor = floorUs(hooks.readFloorNs, file)
  const [plain] = await measure(timeAsync, [() => readFilePlain(root, input)], options)
  console.log(`a 100-line file, ${runtime}; median µs per call (±IQR of ${BATCH_MS}-ms batches), x the floor`)
  const show = (label, summary, extra = '') =>
    console.log(`  ${label.padEnd(24)} ${summary.median_us.toFixed(2).padStart(7)} µs ±${summary.iqr_pct.toFixed(0).padStart(2)}%  ${(summary.median_us / floor.median_us).toFixed(2)}x${extra}`)
  show('floor (syscalls)', floor)
  show('plain Node readFile', plain)
  const baseline = theirs ? toolkitReads(theirs) : []
  for (const [index, [label, read]] of toolkitReads(ours).entries()) {
    const sides = baseline.length > 0 ? [read, baseline[index][1]] : [read]
    const [mine, before] = await measure(timeAsync, sides, options)
    show(label, mine, before ? `   baseline ${before.median_us.toFixed(2)} µs: ${(before.median_us / mine.median_us).toFixed(2)}x as fast` : '')
  }
  if (sink === -1) console.log(sink)
}

await main()
