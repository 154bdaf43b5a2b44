// What obeying the workspace's ignore files costs a read: a toolkit with `ignoreFiles: false`
// against the default names with no ignore file in the workspace, and with ignore files at
// the root and in the file's directory (unchanged between reads, so their rules come from
// the cache after the first read). `readFileSync` and `readFile` of a 100-line file three
// directories deep, once the directories have settled (see below).
//
//   node benchmark/ignore-files.mjs [--budget-ms=2000] [--json]

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createAgentToolkit } from '../index.js'

const budgetMs = Number(process.argv.find((arg) => arg.startsWith('--budget-ms='))?.split('=')[1] ?? 2000)
const json = process.argv.includes('--json')

function workspace(withIgnoreFiles) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'arf-ignore-bench-'))
  fs.mkdirSync(path.join(root, 'src/app/ui'), { recursive: true })
  const line = 'export const value = 1 // a line of about fifty bytes\n'
  fs.writeFileSync(path.join(root, 'src/app/ui/view.ts'), line.repeat(100))
  if (withIgnoreFiles) {
    fs.writeFileSync(path.join(root, '.aiignore'), 'secrets/\n*.log\n# build output\ndist/\n')
    fs.writeFileSync(path.join(root, '.cursorignore'), 'node_modules/\n.cache/\n')
    fs.writeFileSync(path.join(root, 'src/app/ui/.aiignore'), '*.snap\n!keep.snap\n')
  }
  return root
}

/** µs per call of `read` over one round of `ms` milliseconds. */
async function round(read, ms) {
  const start = performance.now()
  const end = start + ms
  let calls = 0
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await read()
    calls += 50
  }
  return ((performance.now() - start) * 1000) / calls
}

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]

const cases = [
  ['ignoreFiles: false', { ignoreFiles: false }, false],
  ['default names, no ignore file', {}, false],
  ['default names, 3 ignore files', {}, true],
]
// A directory's listing of ignore files is trusted once its last change is 3 s old: the
// fixtures are made first, and timed once settled (as a workspace is between edits).
const roots = cases.map(([, , withIgnoreFiles]) => workspace(withIgnoreFiles))
await new Promise((resolve) => setTimeout(resolve, 4000))
// The cases take turns, round after round, so that a neighbour's load falls on all alike;
// each is given as the median and the fastest of its rounds.
const toolkits = cases.map(([, options], index) => createAgentToolkit({ workspaceRoot: roots[index], ...options }))
const input = { path: 'src/app/ui/view.ts' }
const reads = toolkits.flatMap((toolkit) => [() => toolkit.readFileSync(input), () => toolkit.readFile(input)])
for (const read of reads) for (let i = 0; i < 200; i++) await read()
const ROUNDS = 21
const times = reads.map(() => [])
for (let r = 0; r < ROUNDS; r++) {
  for (const [index, read] of reads.entries()) times[index].push(await round(read, budgetMs / ROUNDS))
}
const us = (values) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)})`
const rows = cases.map(([name], index) => ({
  case: name,
  'sync µs, median (fastest)': us(times[2 * index]),
  'async µs, median (fastest)': us(times[2 * index + 1]),
}))
for (const toolkit of toolkits) toolkit.close()
for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
if (json) console.log(JSON.stringify(rows))
else console.table(rows)
