// What the read ledger costs a toolkit's small-file read: this build's toolkit (which
// records every read) against another build's (say, one without the ledger), in one
// process, alternating batches so that both run under the same load.
//
//   node benchmark/ledger-cost.mjs --baseline=OTHER.node [--budget-ms=N]
//
// Both sides are the native Workspace with the same DEFAULT_DENY policy, so the only
// difference is what the builds do per read. Prints the median per-call time of each side
// and the ratio, for readFileSync and for 32 concurrent readFile calls.

import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { defaultDenyPolicy, loadAddon } from './load-addon.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const current = require(path.join(here, '..', 'lib', 'native.js'))
const { DEFAULT_DENY } = require(path.join(here, '..', 'index.js'))

const argv = process.argv.slice(2)
const baselineArg = argv.find((a) => a.startsWith('--baseline='))
if (!baselineArg) throw new Error('usage: ledger-cost.mjs --baseline=OTHER.node')
const baseline = loadAddon(path.resolve(baselineArg.slice('--baseline='.length)))
const budgetArg = argv.find((a) => a.startsWith('--budget-ms='))
const BUDGET_MS = budgetArg ? Number(budgetArg.split('=')[1]) : 1500

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-cost-'))
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))
const text = Array.from({ length: 60 }, (_, i) => `  const value${i} = compute(${i}, "lorem ipsum");\n`).join('')
fs.mkdirSync(path.join(tmp, 'src'))
fs.writeFileSync(path.join(tmp, 'src', 'small.ts'), text) // ~2.8 KB

function workspace(addon) {
  return new addon.Workspace(tmp, defaultDenyPolicy(addon, DEFAULT_DENY))
}
const sides = { ledger: workspace(current), baseline: workspace(baseline) }
const input = { path: 'src/small.ts' }

const cases = {
  readFileSync: (ws) => () => {
    for (let i = 0; i < 200; i++) ws.readFileSync(input)
    return 200
  },
  'readFile x32': (ws) => async () => {
    const all = []
    for (let i = 0; i < 32; i++) all.push(ws.readFile(input))
    await Promise.all(all)
    return 32
  },
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

for (const [name, make] of Object.entries(cases)) {
  const runs = Object.fromEntries(Object.entries(sides).map(([side, ws]) => [side, make(ws)]))
  const samples = { ledger: [], baseline: [] }
  const end = performance.now() + BUDGET_MS * 2
  let warm = 20
  while (performance.now() < end || samples.ledger.length < 15) {
    for (const side of warm % 2 ? ['ledger', 'baseline'] : ['baseline', 'ledger']) {
      const start = performance.now()
      const calls = await runs[side]()
      const perCall = ((performance.now() - start) * 1000) / calls
      if (warm <= 0) samples[side].push(perCall)
    }
    warm--
  }
  const ledger = median(samples.ledger)
  const base = median(samples.baseline)
  const ratio = ledger / base
  console.log(
    `${name}: ledger ${ledger.toFixed(2)} µs/call, baseline ${base.toFixed(2)} µs/call, ` +
      `ratio ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)}%), ${samples.ledger.length} samples each`,
  )
}
