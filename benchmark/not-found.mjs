// What a toolkit's NOT_FOUND suggestions cost, and that a successful read costs what it did.
//
//   node benchmark/not-found.mjs --baseline=/tmp/main.node
//
// Loads this build and another (`--baseline`, say main's `*.node` copied aside before
// rebuilding) into one process, each as a toolkit (`Workspace` under the default deny rules)
// on the same fixture, and times them in alternation, 25 rounds of 2,000 sync reads each:
// a successful read of a 100-line file, a NOT_FOUND with a close name in a directory of 20
// files (this build names it), one in a directory of 5,000 files (at most 1,000 examined),
// and one where nothing is close. Prints the median µs per read of each.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pkg from '../index.js'
import { defaultDenyPolicy, loadAddon } from './load-addon.mjs'

const baselineArg = process.argv.find((arg) => arg.startsWith('--baseline='))
if (!baselineArg) {
  console.error('usage: node benchmark/not-found.mjs --baseline=OTHER.node')
  process.exit(2)
}


const ROUNDS = 25
const READS = 2000

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'not-found-bench-'))
const ws = path.join(base, 'ws')
fs.mkdirSync(path.join(ws, 'src'), { recursive: true })
fs.mkdirSync(path.join(ws, 'huge'))
fs.writeFileSync(path.join(ws, 'src/main.ts'), 'export const line = 1\n'.repeat(100))
for (let i = 0; i < 19; i++) fs.writeFileSync(path.join(ws, `src/module-${i}.ts`), 'x\n')
for (let i = 0; i < 5000; i++) fs.writeFileSync(path.join(ws, `huge/file-${String(i).padStart(4, '0')}.ts`), 'x\n')

/** A toolkit of `addon` over the fixture, under the default deny rules. */
function workspaceOf(addon) {
  return new addon.Workspace(ws, defaultDenyPolicy(addon, pkg.DEFAULT_DENY))
}

/** This checkout's build of the addon (`npm run build` puts it at the package root). */
function thisBuild() {
  const root = path.dirname(path.dirname(new URL(import.meta.url).pathname))
  const [file] = fs.readdirSync(root).filter((name) => name.endsWith('.node'))
  return path.join(root, file)
}

const builds = {
  this: workspaceOf(loadAddon(thisBuild())),
  baseline: workspaceOf(loadAddon(path.resolve(baselineArg.slice('--baseline='.length)))),
}

const CASES = {
  'success, 100-line file': { path: 'src/main.ts' },
  'NOT_FOUND, a close name in 20 files': { path: 'src/mian.ts' },
  'NOT_FOUND, a close name in 5,000 files': { path: 'huge/file-00x1.ts' },
  'NOT_FOUND, nothing close': { path: 'src/zzzzzzzzzzzz.py' },
}

/** µs per read of `READS` sync reads of `input` through `workspace`. */
function time(workspace, input) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < READS; i++) {
    try {
      workspace.readFileSync(input)
    } catch {
      // The NOT_FOUND cases fail by design; the failure is what is timed.
    }
  }
  return Number(process.hrtime.bigint() - start) / 1000 / READS
}

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]

console.log(`${process.release.name} ${process.version}, ${os.cpus()[0].model}, ${ROUNDS} rounds of ${READS} reads`)
for (const [what, input] of Object.entries(CASES)) {
  for (const name of Object.keys(builds)) {
    try {
      builds[name].readFileSync(input)
    } catch (error) {
      if (name === 'this') console.log(`  ${what}: ${error.message}`)
    }
  }
  const samples = { this: [], baseline: [] }
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which build goes first, so neither always runs on a warmer cache.
    const order = round % 2 === 0 ? ['this', 'baseline'] : ['baseline', 'this']
    for (const name of order) samples[name].push(time(builds[name], input))
  }
  const [now, before] = [median(samples.this), median(samples.baseline)]
  console.log(`${what}: this ${now.toFixed(2)} µs, baseline ${before.toFixed(2)} µs (this/baseline ${(now / before).toFixed(3)})`)
}
fs.rmSync(base, { recursive: true, force: true })
