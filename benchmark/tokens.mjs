// What a read costs the model, in o200k_base tokens (gpt-tokenizer): today's JSON, this
// package's text (the engine's renderer) with and without line numbers, and the same text with other
// gutters in place of its `N<tab>`: a bare `N|`, and the line numbers of Claude Code, Codex,
// OpenCode and Cline (header and closing line kept, so columns differ by the gutter alone).
// Every file of the corpus is read page by page through a toolkit, in windows of 3, 50 and
// 200 lines; a cell is the tokens of all those reads, and its change from JSON's.
//
//   node benchmark/tokens.mjs            the table, as in benchmark/README.md
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import pkg from '../index.js'
import { ROOT, repositoryCorpus, corpusKinds } from './token-corpus.mjs'
import native from '../lib/native.js'

const { createAgentToolkit, estimateTokens } = pkg
const { renderRead } = native

const WINDOWS = [3, 50, 200]

/** The tracked sources of this repository: Rust, TypeScript and JavaScript. */
function repositorySources() {
  const listed = execFileSync('git', ['ls-files', '*.rs', '*.ts', '*.mts', '*.js', '*.mjs', '*.cjs'], { cwd: ROOT, encoding: 'utf8' })
  return listed.split('\n').filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)))
}

/** The corpus by kind: each kind a list of workspace-relative paths, and whether it is source code. */
function corpus() {
  return [
    ['this repository (Rust, TS, JS)', repositorySources(), true],
    ['lib.es5.d.ts (TypeScript)', ['node_modules/typescript/lib/lib.es5.d.ts'], true],
    ['minified bundle (js-yaml.umd.min.js)', ['node_modules/js-yaml/dist/browser/js-yaml.umd.min.js'], true],
    ['JSON (mime-db/db.json)', ['node_modules/mime-db/db.json'], false],
    ['Markdown (@modelcontextprotocol/sdk README.md)', ['node_modules/@modelcontextprotocol/sdk/README.md'], false],
  ]
}

/**
 * This package's text with another gutter in place of its `N<tab>`: the header and closing
 * line kept, so formats differ by the gutter alone.
 */
function withGutter(prefix) {
  return (output) => renderRead(output).replace(/^(\d+)\t/gm, (_, n) => prefix(Number(n)))
}

/** Each format: what the model is given for `output`. */
const FORMATS = [
  ['JSON (today)', (output) => JSON.stringify(output)],
  ['text `12<tab>` (chosen)', (output) => renderRead(output)],
  ['text, no numbers', (output) => renderRead(output, { lineNumbers: false })],
  ['`12|`', withGutter((n) => `${n}|`)],
  ['Claude Code `cat -n`', withGutter((n) => `${String(n).padStart(6)}\t`)],
  ['Codex `L12: `', withGutter((n) => `L${n}: `)],
  ['OpenCode `00012| `', withGutter((n) => `${String(n).padStart(5, '0')}| `)],
  ['Cline `12 | `', withGutter((n) => `${n} | `)],
]

/** Every page of `file` in windows of `window` lines, read through `toolkit`. */
function* pages(toolkit, file, window) {
  let start = 1
  while (start !== null) {
    const output = toolkit.readFileSync({ path: file, start_line: start, max_lines: window })
    yield output
    start = output.next_start_line
  }
}

/** Tokens per format, and the number of reads, over every page of `files`. */
function measure(toolkit, files, window) {
  const totals = FORMATS.map(() => 0)
  let reads = 0
  for (const file of files) {
    for (const output of pages(toolkit, file, window)) {
      reads++
      FORMATS.forEach(([, format], i) => (totals[i] += countTokens(format(output))))
    }
  }
  return { totals, reads }
}

/** A cell: tokens, and how they compare with JSON's. */
function cell(tokens, json) {
  const change = Math.round(((tokens - json) / json) * 100)
  return `${tokens.toLocaleString('en-US')} (${change > 0 ? '+' : ''}${change}%)`
}

/** The README's quick-start read: lines 51-53 of 120 lines `line N`, in each format. */
function quickStart() {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(ROOT), 'benchmark', '.tokens-'))
  try {
    fs.mkdirSync(path.join(dir, 'src'))
    fs.writeFileSync(path.join(dir, 'src/main.ts'), Array.from({ length: 120 }, (_, i) => `line ${i + 1}\n`).join(''))
    const toolkit = createAgentToolkit({ workspaceRoot: dir, deny: [] })
    const output = toolkit.readFileSync({ path: 'src/main.ts', start_line: 51, max_lines: 3 })
    toolkit.close()
    return FORMATS.map(([, format]) => countTokens(format(output)))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

function main() {
  const toolkit = createAgentToolkit({ workspaceRoot: ROOT, deny: [], maxFileBytes: Infinity })
  const header = `| files | window | reads | ${FORMATS.map(([name]) => name).join(' | ')} |`
  const rule = `| --- | --- | ---: | ${FORMATS.map(() => '---:').join(' | ')} |`
  const rows = []
  const fixture = quickStart()
  rows.push(`| quick-start \`src/main.ts\`, lines 51-53 | 3 | 1 | ${fixture.map((t) => cell(t, fixture[0])).join(' | ')} |`)
  const row = (kind, window, { totals, reads }) =>
    `| ${kind} | ${window} | ${reads.toLocaleString('en-US')} | ${totals.map((t) => cell(t, totals[0])).join(' | ')} |`
  const sources = WINDOWS.map(() => ({ totals: FORMATS.map(() => 0), reads: 0 }))
  for (const [kind, files, isSource] of corpus()) {
    WINDOWS.forEach((window, w) => {
      const measured = measure(toolkit, files, window)
      rows.push(row(kind, window, measured))
      if (!isSource) return
      sources[w].reads += measured.reads
      measured.totals.forEach((t, i) => (sources[w].totals[i] += t))
    })
  }
  WINDOWS.forEach((window, w) => rows.push(row('**all sources** (the rows above but JSON and Markdown)', window, sources[w])))
  toolkit.close()
  console.log([header, rule, ...rows].join('\n'))
}

/**
 * Every read of `files` through `toolkit` as a model makes them: pages of up to 200 lines, a
 * long line's pieces one after another.
 */
function* reads(toolkit, files) {
  for (const file of files) {
    for (let next = { start_line: 1 }; next !== null; ) {
      const output = toolkit.readFileSync({ path: file, max_lines: 200, ...next })
      yield output
      next = output.continuation ?? (output.next_start_line === null ? null : { start_line: output.next_start_line })
    }
  }
}

/** `value` as a signed percentage. */
const percent = (value) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`

/**
 * The estimator against exact counts, by kind of text: each read of the corpus under a
 * 4,000-token budget, its text as the model gets it; the 95th percentile of the error, its
 * mean and its extremes, for o200k_base and cl100k_base. Then what the default budget does to
 * whole files read at once.
 */
function estimatorTable() {
  const { kinds, remove } = corpusKinds()
  const rows = ['| kind | reads | o200k_base tokens | p95 error | mean | min / max | cl100k_base p95 | mean | min / max |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
  for (const [kind, root, files] of kinds) {
    const toolkit = createAgentToolkit({ workspaceRoot: root, deny: [], maxReadTokens: 4000 })
    const errors = { o200k_base: [], cl100k_base: [] }
    let total = 0
    for (const output of reads(toolkit, files)) {
      const text = renderRead(output)
      for (const [name, exact] of [['o200k_base', countTokens], ['cl100k_base', cl100k]]) {
        const tokens = exact(text)
        if (name === 'o200k_base') total += tokens
        if (tokens >= 100) errors[name].push((estimateTokens(text, name) - tokens) / tokens)
      }
    }
    toolkit.close()
    const stats = (list) => {
      const sorted = list.map(Math.abs).sort((a, b) => a - b)
      const mean = list.reduce((a, b) => a + b, 0) / list.length
      return `${(sorted[Math.floor(sorted.length * 0.95)] * 100).toFixed(1)}% | ${percent(mean)} | ${percent(Math.min(...list))} / ${percent(Math.max(...list))}`
    }
    rows.push(`| ${kind} | ${errors.o200k_base.length} | ${total.toLocaleString('en-US')} | ${stats(errors.o200k_base)} | ${stats(errors.cl100k_base)} |`)
  }
  remove()
  return rows.join('\n')
}

/**
 * What the default budget (25,000 tokens) does to the corpus: each file's first window of 500
 * lines (the most a model may ask for), as the model gets it, with the budget and without
 * (`maxReadTokens: Infinity`), counted exactly (o200k_base): the reads it cuts, the tokens
 * given, the largest read, and how much of the budget a cut read fills.
 */
function budgetTable() {
  const { kinds, remove } = corpusKinds()
  const rows = [
    '| kind | files | tokens, no budget | largest | reads cut | tokens, 25,000 budget | largest | a cut read fills |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  const count = (n) => n.toLocaleString('en-US')
  for (const [kind, root, files] of kinds) {
    const budgeted = createAgentToolkit({ workspaceRoot: root, deny: [] })
    const unbudgeted = createAgentToolkit({ workspaceRoot: root, deny: [], maxReadTokens: Infinity })
    const tokensOf = (toolkit, file) => countTokens(renderRead(toolkit.readFileSync({ path: file, max_lines: 500 })))
    const whole = files.map((file) => tokensOf(unbudgeted, file))
    const within = files.map((file) => tokensOf(budgeted, file))
    budgeted.close()
    unbudgeted.close()
    const fills = within.filter((tokens, i) => tokens < whole[i]).map((tokens) => tokens / 25_000)
    const sum = (list) => list.reduce((a, b) => a + b, 0)
    const fill = fills.length === 0 ? '-' : `${(Math.min(...fills) * 100).toFixed(0)}-${(Math.max(...fills) * 100).toFixed(0)}%`
    rows.push(`| ${kind} | ${files.length} | ${count(sum(whole))} | ${count(Math.max(...whole))} | ${fills.length} | ${count(sum(within))} | ${count(Math.max(...within))} | ${fill} |`)
  }
  remove()
  return rows.join('\n')
}

/** The estimate's cost: its speed on this repository's Rust, and beside a small read. */
function estimatorCost() {
  const text = repositoryCorpus()[0][1].filter((file) => file.endsWith('.rs')).map((file) => fs.readFileSync(path.join(ROOT, file), 'utf8')).join('\n')
  const time = (fn, rounds) => {
    const start = process.hrtime.bigint()
    for (let i = 0; i < rounds; i++) fn()
    return Number(process.hrtime.bigint() - start) / rounds
  }
  time(() => estimateTokens(text), 3)
  const perByte = time(() => estimateTokens(text), 10) / Buffer.byteLength(text)
  return `estimateTokens: ${perByte.toFixed(1)} ns a byte (${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB of Rust). A read whose content has fewer bytes than its budget has tokens left is never estimated (no token is shorter than a byte): a small read pays one comparison.`
}

/**
 * What code read as code costs the model (issue 38), over this repository's sources of 300
 * lines or more: the first window and the file's whole outline (every page); a definition
 * read by `symbol` against the window of the same lines; two ranges in one read against two
 * windows; and what the tool's definition costs every request, before and after its three
 * parameters.
 */
function codeTable() {
  const toolkit = createAgentToolkit({ workspaceRoot: ROOT, deny: [], maxFileBytes: Infinity })
  const text = (args) => native.renderRead(toolkit.readFileSync(args))
  const files = repositorySources().filter((file) => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length > 300)
  return { toolkit, files, text }
}

/** `codeTable`'s rows, read through `runToolCall` (what every adapter hands over). */
async function codeRows() {
  const { toolkit, files, text } = codeTable()
  const sum = { first: 0, outline: 0, outlines: 0, symbol: 0, symbolWindow: 0, symbols: 0, ranges: 0, rangesWindows: 0 }
  for (const file of files) {
    sum.first += countTokens(text({ path: file }))
    let start = 1
    const pages = []
    while (start !== null) {
      const page = await toolkit.runToolCall({ path: file, outline: true, start_line: start, max_lines: 500 })
      if (page.output.kind !== 'outline') break
      pages.push(page.content)
      start = page.output.next_start_line
    }
    if (pages.length > 0) {
      sum.outline += countTokens(pages.join(''))
      sum.outlines++
    }
    const outline = await toolkit.view({ path: file, outline: true, max_lines: 500 })
    const definition = outline.definitions?.find((d) => d.end_line - d.start_line >= 5 && !d.symbol.includes('#') && d.kind !== 'impl')
    if (definition !== undefined) {
      const read = await toolkit.runToolCall({ path: file, symbol: definition.symbol })
      const { start_line, max_lines } = { start_line: read.output.next_start_line ?? read.output.meta.line_count + 1, max_lines: read.output.meta.returned_line_count }
      sum.symbol += countTokens(read.content)
      sum.symbolWindow += countTokens(text({ path: file, start_line: start_line - max_lines, max_lines }))
      sum.symbols++
    }
    const ranges = await toolkit.runToolCall({ path: file, ranges: ['21-40', '221-240'] })
    sum.ranges += countTokens(ranges.content)
    sum.rangesWindows += countTokens(text({ path: file, start_line: 21, max_lines: 20 })) + countTokens(text({ path: file, start_line: 221, max_lines: 20 }))
  }
  toolkit.close()
  const pct = (part, whole) => `${Math.round((part / whole) * 100)}%`
  const definition = (properties) => countTokens(JSON.stringify({ ...pkg.TOOLKIT_DEFINITIONS.read_file, parameters: { ...pkg.TOOLKIT_DEFINITIONS.read_file.parameters, properties } }))
  const { outline, symbol, ranges, ...before } = pkg.TOOLKIT_DEFINITIONS.read_file.parameters.properties
  return [
    '| code read as code (this repository, files over 300 lines) | files | tokens | against |',
    '| --- | ---: | ---: | --- |',
    `| the first window (200 lines) | ${files.length} | ${sum.first.toLocaleString('en-US')} | |`,
    `| the whole outline (every page) | ${sum.outlines} | ${sum.outline.toLocaleString('en-US')} | ${pct(sum.outline, sum.first)} of the first windows |`,
    `| a definition by \`symbol\` | ${sum.symbols} | ${sum.symbol.toLocaleString('en-US')} | ${pct(sum.symbol, sum.symbolWindow)} of the same lines as a window |`,
    `| \`ranges: ["21-40", "221-240"]\` | ${files.length} | ${sum.ranges.toLocaleString('en-US')} | ${pct(sum.ranges, sum.rangesWindows)} of two windows |`,
    `| the tool's definition (JSON) | | ${definition(pkg.TOOLKIT_DEFINITIONS.read_file.parameters.properties)} | ${definition(before)} without outline, symbol and ranges |`,
  ].join('\n')
}

main()
console.log()
console.log(await codeRows())
console.log()
console.log(estimatorTable())
console.log()
console.log(budgetTable())
console.log()
console.log(estimatorCost())
