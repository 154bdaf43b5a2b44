// Code read as code (issue 38): what a toolkit's outline, symbol and ranges reads cost the
// model (o200k_base tokens, as tokens.mjs counts them) and the machine, on real source files
// gathered from this machine at run time (nothing is committed): Rust from the cargo
// registry, TypeScript and JavaScript from node_modules, the Python standard library, C and
// C++ headers from /usr/include, Java from a JDK's src.zip, Go where any is found. Each file
// is copied into a temporary workspace (a workspace refuses symlinks leading out of it).
//
//   1. the corpus, per language
//   2. an outline's tokens against the whole file's
//   3. the time of a first outline (a parse) and of a cached one
//   4. a symbol read against the window of the same lines; ranges against one window
//   5. "find and read the function": scripted readers (this product, Zed-like, Claude-Code-like,
//      grep-then-read, and this product's symbol read alone) on 40 tasks
//   6. how many of ctags' definitions a symbol read finds, by name alone
//
//   node benchmark/code-reads.mjs [--json]

import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { measure, timeAsync } from './timing.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const { createAgentToolkit } = createRequire(import.meta.url)(path.join(here, '..', 'index.js'))
const JSON_OUTPUT = process.argv.includes('--json')
const progress = (line) => process.stderr.write(`${line}\n`)

const MIN_LINES = 1_000
const MAX_LINES = 50_000
/** Files taken per language, evenly spaced over its candidates sorted by path. */
const PER_LANGUAGE = 8
/** A candidate smaller than this cannot have 1,000 lines of code worth the name; not read. */
const MIN_CANDIDATE_BYTES = 8 * 1024
/** Minified text: more than this many bytes a line on average. */
const MINIFIED_BYTES_PER_LINE = 500
const TASKS = 40
const TASK_MIN_LINES = 2_000
const FUNCTION_KINDS = new Set(['fn', 'def', 'function', 'method', 'func'])
const MAX_SYMBOL_CALLS = 3_000
const MIB = 1024 * 1024
/** Zed's `read_file` gives a file over this many bytes as its outline first. */
const ZED_OUTLINE_BYTES = 16 * 1024
/** Claude Code's `Read` gives 2,000 lines a call, each cut at 2,000 characters. */
const CLAUDE_PAGE_LINES = 2_000
const CLAUDE_LINE_CHARS = 2_000
const GREP_WINDOW = 200

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'code-reads-'))
const workspace = path.join(tmp, 'ws')
fs.mkdirSync(workspace)
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))

/** What looked wrong in the feature's answers (a possible bug), said once each. */
const anomalies = []
const anomaly = (text) => {
  if (!anomalies.includes(text)) anomalies.push(text)
}

// ---------------------------------------------------------------------------------------
// 1. The corpus

const CARGO_SRC = path.join(os.homedir(), '.cargo', 'registry', 'src')
/**
 * The crates the Rust sample is drawn from: well-known hand-written code (the registry also
 * holds generated bindings and tables, and grows whenever a build fetches a crate, which
 * would move an evenly spaced sample).
 */
const RUST_CRATES = /^(tree-sitter|serde|serde_json|serde_derive|regex|regex-automata|regex-syntax|aho-corasick|memchr|hashbrown|indexmap|syn|proc-macro2|napi|napi-derive-backend|tinyvec|toml_edit|toml_parser|rayon|rayon-core|crossbeam-[a-z]+|ignore|globset|encoding_rs|image-webp|png|lopdf)-\d/
/** Generated files within them: tables, data, `src/gen/`. */
const GENERATED_FILES = /(^|\/)(tables|data|generated|consts)\.rs$|\/(unicode_tables|gen)\//

/** Every regular file under `dir` whose path `accept` takes, not entering `skipDir`s; sorted. */
function walk(dir, accept, skipDir = () => false, found = []) {
  let entries
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return found
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory() && !skipDir(entry.name, full)) walk(full, accept, skipDir, found)
    else if (entry.isFile() && accept(full)) found.push(full)
  }
  return found.sort()
}

/** The cargo registry's source directories (one per index). */
function cargoIndexes() {
  return fs.existsSync(CARGO_SRC) ? fs.readdirSync(CARGO_SRC).sort().map((index) => path.join(CARGO_SRC, index)) : []
}

/** Crates of the registry whose directory name passes `accept`. */
function crates(accept) {
  return cargoIndexes().flatMap((index) => fs.readdirSync(index).filter(accept).sort().map((crate) => path.join(index, crate)))
}

function rustCandidates() {
  return crates((crate) => RUST_CRATES.test(crate)).flatMap((crate) =>
    walk(crate, (file) => file.endsWith('.rs') && !GENERATED_FILES.test(file), (name) => name === 'target'),
  )
}

const NODE_MODULES = path.join(here, '..', 'node_modules')
const skipDotDirs = (name) => name.startsWith('.')
const DECLARATION = /\.d\.[mc]?ts$/

function typeScriptCandidates() {
  return walk(NODE_MODULES, (file) => /\.[mc]?ts$/.test(file) && !DECLARATION.test(file), skipDotDirs)
}

function declarationCandidates() {
  return walk(NODE_MODULES, (file) => file.endsWith('.d.ts'), skipDotDirs)
}

function javaScriptCandidates() {
  return walk(NODE_MODULES, (file) => /\.[mc]?js$/.test(file) && !/\.min\.[mc]?js$/.test(file), skipDotDirs)
}

function pythonCandidates() {
  const stdlib = execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim()
  return walk(stdlib, (file) => file.endsWith('.py'), (name) => name === 'site-packages' || name === '__pycache__')
}

/** A header that is C++ (`namespace x {`, `template <`, `class X {`), though named `.h`. */
const CPP_TEXT = /^\s*(namespace\s+[\w:]+\s*\{|template\s*<|class\s+\w+[^;()]*\{)/m

function cCandidates() {
  return walk('/usr/include', (file) => file.endsWith('.h'), (name) => name === 'c++')
}

function cppCandidates() {
  const root = '/usr/include/c++'
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort() : []
  return versions.flatMap((version) => walk(path.join(root, version, 'bits'), (file) => file.endsWith('.h')))
}

/** Go sources: the tree-sitter-go crate (its tests or examples, if it ships any) and Go's own trees. */
function goCandidates() {
  const trees = [...crates((crate) => crate.startsWith('tree-sitter-go')), '/usr/local/go/src', '/usr/lib/go/src', '/usr/share/doc', path.join(os.homedir(), 'go')]
  return trees.flatMap((tree) => walk(tree, (file) => file.endsWith('.go')))
}

/** A JDK's src.zip (the first that exists, symlinks followed), or null. */
function jdkSources() {
  const jvm = '/usr/lib/jvm'
  const zips = (fs.existsSync(jvm) ? fs.readdirSync(jvm).sort() : [])
    .flatMap((jdk) => [path.join(jvm, jdk, 'lib', 'src.zip'), path.join(jvm, jdk, 'src.zip')])
    .filter((zip) => fs.existsSync(zip))
    .map((zip) => fs.realpathSync(zip))
  return [...new Set(zips)].sort()[0] ?? null
}

/**
 * Java sources: the tree-sitter-java crate's, and the JDK's core packages from its src.zip
 * (`java.base/java/{util,lang,io,...}`, entries of 20 KB or more, extracted into the temp
 * folder).
 */
function javaCandidates() {
  const found = crates((crate) => crate.startsWith('tree-sitter-java')).flatMap((crate) => walk(crate, (file) => file.endsWith('.java')))
  const zip = jdkSources()
  if (zip === null) return found
  const entry = /^\s*(\d+)\s+\S+\s+\S+\s+(java\.base\/java\/(util|lang|io|net|time|text|math|nio)\/[A-Za-z0-9_]+\.java)$/
  const names = execFileSync('unzip', ['-l', zip], { encoding: 'utf8', maxBuffer: 64 * MIB })
    .split('\n')
    .map((line) => entry.exec(line))
    .filter((match) => match !== null && Number(match[1]) >= 20_000)
    .map((match) => match[2])
  const dest = path.join(tmp, 'jdk-src')
  execFileSync('unzip', ['-q', '-o', zip, ...names, '-d', dest])
  return [...found, ...names.map((name) => path.join(dest, name))].sort()
}

/**
 * The corpus's languages: how to find candidates, the language ctags knows them as, and the
 * extension the copy gets (libstdc++'s `bits/*.h` are C++, so they are copied as `.hpp`).
 */
const LANGUAGES = [
  { name: 'rust', ctags: 'Rust', candidates: rustCandidates },
  { name: 'typescript', ctags: 'TypeScript', candidates: typeScriptCandidates },
  { name: 'ts-declarations', ctags: 'TypeScript', candidates: declarationCandidates },
  { name: 'javascript', ctags: 'JavaScript', candidates: javaScriptCandidates },
  { name: 'python', ctags: 'Python', candidates: pythonCandidates },
  { name: 'c', ctags: 'C', candidates: cCandidates, reject: (text) => CPP_TEXT.test(text) },
  { name: 'cpp', ctags: 'C++', candidates: cppCandidates, rename: (name) => name.replace(/\.h$/, '.hpp') },
  { name: 'go', ctags: 'Go', candidates: goCandidates },
  { name: 'java', ctags: 'Java', candidates: javaCandidates },
]

/** How a source is named in the report: its crate, package or folder path, not the whole path. */
function label(file) {
  for (const [prefix, shown] of [
    [`${fs.realpathSync(NODE_MODULES)}/`, 'node_modules/'],
    [`${path.resolve(NODE_MODULES)}/`, 'node_modules/'],
    [path.join(tmp, 'jdk-src') + '/', 'src.zip:'],
    ...cargoIndexes().map((index) => [`${index}/`, 'cargo:']),
  ]) {
    if (file.startsWith(prefix)) return shown + file.slice(prefix.length)
  }
  return file.replace(/^.*\/lib\/python3\.\d+\//, 'stdlib:')
}

/** The file's text when it is UTF-8 and neither too short, too long nor minified; else null. */
function readCandidate(file) {
  let bytes
  try {
    if (fs.statSync(file).size < MIN_CANDIDATE_BYTES) return null
    bytes = fs.readFileSync(file)
  } catch {
    return null
  }
  let text
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return null
  }
  text = text.replace(/\r\n/g, '\n')
  const lines = lineCount(text)
  if (lines < MIN_LINES || lines > MAX_LINES || bytes.length / lines > MINIFIED_BYTES_PER_LINE) return null
  return { text, lines, bytes: bytes.length }
}

function lineCount(text) {
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
  return text.length === 0 || text.endsWith('\n') ? count : count + 1
}

/** `count` items evenly spaced over `list` (all of it when shorter): a deterministic sample. */
function evenly(list, count) {
  if (list.length <= count) return [...list]
  return Array.from({ length: count }, (_, i) => list[Math.floor((i * list.length) / count)])
}

/**
 * Each language's sample: of its candidates (sorted by path) with 1,000-50,000 lines, UTF-8,
 * not minified, PER_LANGUAGE evenly spaced, copied into the workspace as
 * `<language>/<NN>-<name>`. A language with none is kept, with a note of what was found.
 */
function gatherCorpus() {
  const corpus = []
  for (const language of LANGUAGES) {
    const candidates = language.candidates()
    const fitting = []
    const seen = new Set()
    for (const file of candidates) {
      const read = readCandidate(file)
      if (read === null || language.reject?.(read.text)) continue
      // The same text at several paths (a package's copies, headers per architecture): once.
      const hash = createHash('sha256').update(read.text).digest('hex')
      if (seen.has(hash)) continue
      seen.add(hash)
      fitting.push({ origin: file, ...read })
    }
    const chosen = evenly(fitting, PER_LANGUAGE)
    fs.mkdirSync(path.join(workspace, language.name))
    const files = chosen.map((file, i) => {
      const name = (language.rename ?? ((n) => n))(path.basename(file.origin))
      const rel = `${language.name}/${String(i + 1).padStart(2, '0')}-${name}`
      fs.writeFileSync(path.join(workspace, rel), file.text)
      return { language: language.name, ctags: language.ctags, rel, abs: path.join(workspace, rel), label: label(file.origin), ...file }
    })
    const note =
      files.length > 0
        ? `${fitting.length} of ${candidates.length} candidates fit, duplicates removed`
        : `none: ${candidates.length} candidate files found, the longest ${Math.max(0, ...candidates.map((file) => lineCount(fs.readFileSync(file, 'utf8'))))} lines`
    corpus.push({ language: language.name, files, candidates: candidates.length, fitting: fitting.length, note, allFitting: fitting })
  }
  return corpus
}

// ---------------------------------------------------------------------------------------
// Helpers: lines seen, windows, ctags

/** The lines a reader has seen, as spans; whether they cover a span. */
class Seen {
  spans = []
  add(start, end) {
    if (end >= start) this.spans.push([start, end])
  }
  covers(start, end) {
    let next = start
    for (const [s, e] of [...this.spans].sort((a, b) => a[0] - b[0])) {
      if (s > next) break
      next = Math.max(next, e + 1)
    }
    return next > end
  }
}

/**
 * The lines a window answer of `runToolCall` holds, from its header (what the model sees),
 * checked against its output (`next_start_line` less the lines returned).
 */
function windowSpan(result) {
  const output = result.output
  const returned = output.meta.returned_line_count
  const start = output.next_start_line !== null ? output.next_start_line - returned : output.meta.line_count - returned + 1
  const header = /^\S+ (?:lines (\d+)-(\d+)|line (\d+)) of \d+/.exec(result.content)
  if (header !== null) {
    const first = Number(header[1] ?? header[3])
    if (first !== start) anomaly(`${output.path}: a window's header says line ${first}, its output's next_start_line and returned_line_count say ${start}`)
    return [first, Number(header[2] ?? header[3])]
  }
  return [start, start + returned - 1]
}

/** The lines a `view` window output holds (no header there). */
function viewSpan(output) {
  const returned = output.meta.returned_line_count
  const start = output.next_start_line !== null ? output.next_start_line - returned : output.meta.line_count - returned + 1
  return [start, start + returned - 1]
}

/** The ctags kinds that are definitions a symbol should find: functions, methods, classes. */
const CTAGS_KINDS = new Set(['function', 'func', 'method', 'class', 'struct', 'union', 'interface', 'enum', 'trait', 'prototype'])
const ANONYMOUS = /^(__anon|Anonymous|AnonymousFunction)|[^\w$~]/

let ctagsFlavour = null
/** `ctags --version`'s first line; Universal Ctags writes JSON, Exuberant only the `-x` table. */
function ctagsVersion() {
  ctagsFlavour ??= execFileSync('ctags', ['--version'], { encoding: 'utf8' }).split('\n')[0]
  return ctagsFlavour
}

/**
 * ctags' tags of `file`: `all` of them, and `definitions`, `{ name, kind, line, end, scope }`
 * of the kinds a symbol should find (a Python `member` is a method; a C or C++ `member` is a
 * field, left out), prototypes included for C and C++ (a header is mostly them), anonymous
 * ones left out.
 */
function ctagsOf(file) {
  const universal = ctagsVersion().startsWith('Universal')
  const cLike = file.ctags === 'C' || file.ctags === 'C++'
  const args = universal
    ? ['--output-format=json', '--fields=+neKsZ', `--language-force=${file.ctags}`, ...(cLike ? [`--kinds-${file.ctags}=+p`] : []), '-f', '-', file.abs]
    : ['-x', '--sort=no', `--language-force=${file.ctags}`, ...(cLike ? [`--${file.ctags === 'C' ? 'c' : 'c++'}-kinds=+p`] : []), file.abs]
  const out = execFileSync('ctags', args, { encoding: 'utf8', maxBuffer: 256 * MIB, stdio: ['ignore', 'pipe', 'ignore'] })
  const tags = universal
    ? out.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((tag) => tag._type === 'tag')
    : out.split('\n').filter(Boolean).map((line) => {
        const [name, kind, lineNumber] = line.split(/\s+/)
        return { name, kind, line: Number(lineNumber) }
      })
  const definitions = tags
    .filter((tag) => CTAGS_KINDS.has(tag.kind) || (tag.kind === 'member' && file.ctags === 'Python'))
    .filter((tag) => !ANONYMOUS.test(tag.name))
    .map((tag) => ({ name: tag.name, kind: tag.kind, line: tag.line, end: tag.end, scope: tag.scope, scopeKind: tag.scopeKind }))
  return { all: tags, definitions }
}

/** ctags' kinds of functions, whose bodies the outline does not enter. */
const FUNCTION_TAGS = new Set(['function', 'func', 'method', 'member', 'getter', 'setter', 'generator'])

const isFunctionTag = (file, t) => FUNCTION_TAGS.has(t.kind) && !(t.kind === 'member' && file.ctags !== 'Python')

/**
 * Whether ctags puts `tag` inside the body of a function: a function's lines hold its line,
 * or one of its scopes (`Map::deserialize` of `Map::deserialize::Visitor`) is a function.
 */
function localToFunction(file, tag) {
  if (file.allTags.some((t) => isFunctionTag(file, t) && t.line < tag.line && t.end !== undefined && t.end >= tag.line)) return true
  if (!tag.scope) return false
  if (FUNCTION_TAGS.has(tag.scopeKind) && !(tag.scopeKind === 'member' && file.ctags !== 'Python')) return true
  const separator = tag.scope.includes('::') ? '::' : '.'
  const parts = tag.scope.split(separator)
  file.tagsByScope ??= new Map(file.allTags.map((t) => [`${t.scope ?? ''}|${t.name}`, t]))
  for (let i = 1; i < parts.length; i++) {
    const scope = file.tagsByScope.get(`${parts.slice(0, i - 1).join(separator)}|${parts[i - 1]}`)
    if (scope !== undefined && isFunctionTag(file, scope)) return true
  }
  return false
}

const median = (list) => {
  if (list.length === 0) return NaN
  const sorted = [...list].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const percent = (value) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)}%` : '>25%')
const count = (n) => n.toLocaleString('en-US')

/** A plain-text table: `rows` of cells under `header`, the first column left-aligned. */
function table(header, rows) {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => String(row[i]).length)))
  const line = (row) => row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ')
  return [line(header), ...rows.map(line)].map((text) => `  ${text}`).join('\n')
}

// ---------------------------------------------------------------------------------------
// 2. Outline tokens

/**
 * Every page of `file`'s outline as the model reads it (`max_lines: 500`, following
 * `next_start_line`): its tokens and calls, its definitions (each once), or that the answer
 * was the file's window instead (the outline over a quarter of the file's tokens).
 */
async function outlineOf(toolkit, file) {
  const definitions = new Map()
  let tokens = 0
  let calls = 0
  let first = null
  for (let start = null; ; ) {
    const result = await toolkit.runToolCall({ path: file.rel, outline: true, max_lines: 500, ...(start === null ? {} : { start_line: start }) })
    calls++
    tokens += countTokens(result.content)
    if (result.isError) throw new Error(`${file.rel}: ${result.content}`)
    if (result.output.kind !== 'outline') return { windowed: true, tokens, calls, definitions: [] }
    first ??= result.output
    let repeated = 0
    for (const definition of result.output.definitions) {
      // Not by `symbol`: a Rust `impl` has its type's symbol (a symbol reads an impl only
      // when nothing else matches).
      const key = `${definition.start_line}-${definition.end_line} ${definition.kind} ${definition.name_path}`
      if (definitions.has(key)) repeated++
      else definitions.set(key, definition)
    }
    if (repeated > 0) anomaly(`${file.rel}: the outline page from line ${start} repeats ${repeated} definition(s) of the page before`)
    if (result.output.next_start_line === null) break
    start = result.output.next_start_line
  }
  const list = [...definitions.values()]
  if (list.length !== first.total_definitions) anomaly(`${file.rel}: outline pages hold ${list.length} definitions, total_definitions says ${first.total_definitions}`)
  for (const d of list) {
    if (d.end_line < d.start_line || d.end_line > file.lines) anomaly(`${file.rel}: ${d.symbol} spans ${d.start_line}-${d.end_line} of ${file.lines} lines`)
  }
  return { windowed: false, tokens, calls, definitions: list, language: first.language, source: first.source }
}

async function outlineTokens(toolkit, corpus) {
  const rows = []
  for (const { language, files } of corpus) {
    for (const file of files) {
      file.tokens = countTokens(file.text)
      file.outline = await outlineOf(toolkit, file)
      const ratio = file.outline.windowed ? Infinity : file.outline.tokens / file.tokens
      rows.push({ language, file: file.rel, lines: file.lines, file_tokens: file.tokens, outline_tokens: file.outline.windowed ? null : file.outline.tokens, ratio: Number.isFinite(ratio) ? ratio : null, windowed: file.outline.windowed, pages: file.outline.calls, definitions: file.outline.definitions.length })
    }
  }
  return rows
}

/** Per language and overall: files, median outline/file ratio (a window counts as over 25%), windows given. */
function summarizeOutlineTokens(rows) {
  const groups = [...new Set(rows.map((row) => row.language)), 'all']
  return groups
    .map((language) => {
      const mine = rows.filter((row) => language === 'all' || row.language === language)
      const ratios = mine.map((row) => row.ratio ?? Infinity)
      const outlined = mine.filter((row) => !row.windowed)
      return {
        language,
        files: mine.length,
        median_ratio: median(ratios),
        min_ratio: Math.min(...ratios),
        max_outlined_ratio: outlined.length ? Math.max(...outlined.map((row) => row.ratio)) : null,
        windowed: mine.length - outlined.length,
        outline_tokens: outlined.reduce((a, row) => a + row.outline_tokens, 0),
        file_tokens_outlined: outlined.reduce((a, row) => a + row.file_tokens, 0),
      }
    })
    .filter((row) => row.files > 0)
}

// ---------------------------------------------------------------------------------------
// 3. Parse time

/** Median (and extremes) of `runs` first outlines of `rel`, each by a fresh toolkit, after one untimed. */
async function firstOutlineMs(rel, runs = 5) {
  const once = async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: workspace })
    const started = performance.now()
    const output = await toolkit.view({ path: rel, outline: true })
    const ms = performance.now() - started
    toolkit.close()
    return { ms, output }
  }
  const { output } = await once()
  const times = []
  for (let i = 0; i < runs; i++) times.push((await once()).ms)
  return { median_ms: median(times), min_ms: Math.min(...times), max_ms: Math.max(...times), kind: output.kind ?? 'window', definitions: output.total_definitions ?? null }
}

/** The language the single-file measures use: Rust, else the first the machine has. */
function mainLanguage(corpus) {
  return corpus.find((l) => l.language === 'rust' && l.files.length > 0) ?? corpus.find((l) => l.files.length > 0)
}

/**
 * A file of about 1 MiB: a corpus file within 10% of it, else sources of the main language
 * (Rust) concatenated: the sample's files first, then the other candidates in path order,
 * whole files while the total stays at most 1 MiB.
 */
function mebibyteFile(corpus) {
  const near = corpus.flatMap((l) => l.files).filter((f) => Math.abs(f.bytes - MIB) <= MIB / 10)
  if (near.length > 0) return { rel: near[0].rel, bytes: near[0].bytes, lines: near[0].lines, what: `${near[0].label} (a corpus file)` }
  const main = mainLanguage(corpus)
  const sampled = new Set(main.files.map((f) => f.origin))
  const pool = [...main.files, ...main.allFitting.filter((f) => !sampled.has(f.origin))]
  let text = ''
  let files = 0
  for (const file of pool) {
    if (Buffer.byteLength(text) + file.bytes > MIB) continue
    text += file.text.endsWith('\n') ? file.text : `${file.text}\n`
    files++
  }
  fs.mkdirSync(path.join(workspace, 'mib'), { recursive: true })
  const rel = `mib/${main.language}-concatenated${path.extname(main.files[0].rel)}`
  fs.writeFileSync(path.join(workspace, rel), text)
  return { rel, bytes: Buffer.byteLength(text), lines: lineCount(text), what: `${files} ${main.language} files concatenated (no corpus file is within 10% of 1 MiB)` }
}

async function parseTimes(corpus, mib) {
  const rows = []
  for (const { language, files } of corpus) {
    if (files.length === 0) continue
    const largest = files.reduce((a, b) => (b.bytes > a.bytes ? b : a))
    progress(`  first outline: ${largest.rel}`)
    rows.push({ what: `largest ${language}`, file: largest.rel, bytes: largest.bytes, lines: largest.lines, ...(await firstOutlineMs(largest.rel)) })
  }
  progress(`  first outline: ${mib.rel}`)
  rows.push({ what: '~1 MiB', file: mib.rel, bytes: mib.bytes, lines: mib.lines, ...(await firstOutlineMs(mib.rel)) })
  return rows
}

/** Cached outlines: the same toolkit's `view` (and `runToolCall`) of an outline it has, µs a call. */
async function cachedOutlines(targets) {
  const rows = []
  for (const { what, rel } of targets) {
    const toolkit = createAgentToolkit({ workspaceRoot: workspace })
    await toolkit.view({ path: rel, outline: true })
    const view = () => toolkit.view({ path: rel, outline: true })
    const call = () => toolkit.runToolCall({ path: rel, outline: true })
    const one = () => toolkit.view({ path: rel, outline: true, max_lines: 1 })
    const [viewed, called, single] = await measure(timeAsync, [view, call, one], { budgetMs: 400, warmupMs: 150 })
    const page = await toolkit.view({ path: rel, outline: true })
    rows.push({ what, file: rel, page_definitions: page.definitions?.length ?? null, view_us: viewed.median_us, view_iqr_pct: viewed.iqr_pct, run_tool_call_us: called.median_us, run_tool_call_iqr_pct: called.iqr_pct, one_definition_us: single.median_us, one_definition_iqr_pct: single.iqr_pct })
    toolkit.close()
  }
  return rows
}

// ---------------------------------------------------------------------------------------
// 4. Symbol against window, ranges against one window

/**
 * On a cached file: `view({ symbol })` of a definition whose window is about 40 lines against
 * `view({ start_line, max_lines })` of the same lines (checked to give the same content);
 * `view({ ranges: [two of 40 lines] })` against one window of 80 lines. Alternating batches.
 */
async function symbolAgainstWindow(file) {
  const toolkit = createAgentToolkit({ workspaceRoot: workspace })
  const rel = file.rel
  const unique = file.outline.definitions
    .filter((d) => FUNCTION_KINDS.has(d.kind) && !d.symbol.includes('#'))
    .sort((a, b) => Math.abs(a.end_line - a.start_line + 1 - 40) - Math.abs(b.end_line - b.start_line + 1 - 40) || a.start_line - b.start_line)
  let chosen = null
  for (const definition of unique.slice(0, 20)) {
    const output = await toolkit.view({ path: rel, symbol: definition.symbol })
    if (output.kind !== undefined) continue
    const [start, end] = viewSpan(output)
    if (chosen === null || Math.abs(end - start + 1 - 40) < Math.abs(chosen.end - chosen.start + 1 - 40)) chosen = { definition, start, end, content: output.content }
  }
  const lines = chosen.end - chosen.start + 1
  const symbolInput = { path: rel, symbol: chosen.definition.symbol }
  const windowInput = { path: rel, start_line: chosen.start, max_lines: lines }
  const window = await toolkit.view(windowInput)
  if (window.content !== chosen.content) anomaly(`${rel}: symbol ${chosen.definition.symbol} gives other text than the window of lines ${chosen.start}-${chosen.end}`)
  const [symbolSide, windowSide] = await measure(timeAsync, [() => toolkit.view(symbolInput), () => toolkit.view(windowInput)], { budgetMs: 700, warmupMs: 200 })
  const a = Math.min(100, Math.floor(file.lines / 4))
  const c = Math.floor(file.lines / 2)
  const rangesInput = { path: rel, ranges: [`${a}-${a + 39}`, `${c}-${c + 39}`] }
  const oneWindow = { path: rel, start_line: a, max_lines: 80 }
  const ranges = await toolkit.view(rangesInput)
  if (ranges.kind !== 'ranges' || ranges.ranges.length !== 2 || ranges.ranges.some((r) => r.end_line - r.start_line + 1 !== 40)) {
    anomaly(`${rel}: ranges ${JSON.stringify(rangesInput.ranges)} gave ${JSON.stringify(ranges.ranges?.map((r) => [r.start_line, r.end_line]))}`)
  }
  const [rangesSide, oneWindowSide] = await measure(timeAsync, [() => toolkit.view(rangesInput), () => toolkit.view(oneWindow)], { budgetMs: 700, warmupMs: 200 })
  // What a reader without `ranges` does: a window a range, one call each.
  const windowsOfRanges = [{ path: rel, start_line: a, max_lines: 40 }, { path: rel, start_line: c, max_lines: 40 }]
  const twoCalls = async () => {
    for (const input of windowsOfRanges) await toolkit.view(input)
  }
  const [rangesAgain, twoCallsSide] = await measure(timeAsync, [() => toolkit.view(rangesInput), twoCalls], { budgetMs: 700, warmupMs: 200 })
  toolkit.close()
  return {
    file: rel,
    symbol: chosen.definition.symbol,
    lines: `${chosen.start}-${chosen.end}`,
    symbol_us: symbolSide.median_us,
    symbol_iqr_pct: symbolSide.iqr_pct,
    window_us: windowSide.median_us,
    window_iqr_pct: windowSide.iqr_pct,
    symbol_over_window: symbolSide.median_us / windowSide.median_us,
    ranges: rangesInput.ranges,
    ranges_us: rangesSide.median_us,
    ranges_iqr_pct: rangesSide.iqr_pct,
    one_window_us: oneWindowSide.median_us,
    one_window_iqr_pct: oneWindowSide.iqr_pct,
    ranges_over_window: rangesSide.median_us / oneWindowSide.median_us,
    two_calls_us: twoCallsSide.median_us,
    two_calls_iqr_pct: twoCallsSide.iqr_pct,
    ranges_over_two_calls: rangesAgain.median_us / twoCallsSide.median_us,
  }
}

// ---------------------------------------------------------------------------------------
// 5. Find and read the function

/**
 * The tasks: in files of 2,000-50,000 lines whose outline was given, definitions of a
 * function kind with 10-200 lines that ctags finds too (same name, its line within the
 * definition, its end the same when it gives one), spread evenly over each language's list;
 * 40 in all, shared between languages as evenly as they allow. A task's body is from ctags'
 * line (the one naming it) to the definition's end.
 */
function chooseTasks(corpus) {
  const eligible = []
  const pool = []
  for (const { language, files } of corpus) {
    const list = []
    const counted = { language, files: 0, functions: 0, verified: 0 }
    for (const file of files) {
      if (file.lines < TASK_MIN_LINES || file.outline.windowed) continue
      counted.files++
      for (const definition of file.outline.definitions) {
        const length = definition.end_line - definition.start_line + 1
        if (!FUNCTION_KINDS.has(definition.kind) || length < 10 || length > 200) continue
        counted.functions++
        const tag = file.tags.find((t) => t.name === definition.name && t.line >= definition.start_line && t.line <= definition.end_line && (t.end === undefined || t.end === definition.end_line))
        if (tag !== undefined) list.push({ language, file, definition, bodyStart: tag.line, bodyEnd: definition.end_line })
      }
    }
    counted.verified = list.length
    pool.push(counted)
    if (list.length > 0) eligible.push(list)
  }
  const quotas = eligible.map(() => 0)
  for (let left = TASKS, progressed = true; left > 0 && progressed; ) {
    progressed = false
    for (let i = 0; i < eligible.length && left > 0; i++) {
      if (quotas[i] < eligible[i].length) {
        quotas[i]++
        left--
        progressed = true
      }
    }
  }
  return { tasks: eligible.flatMap((list, i) => evenly(list, quotas[i])), pool }
}

/** A reader's tally. */
const tally = () => ({ calls: 0, tokens: 0, seen: new Seen() })

/** One call through `runToolCall`, counted; its result. */
async function call(toolkit, reader, args) {
  const result = await toolkit.runToolCall(args)
  reader.calls++
  reader.tokens += countTokens(result.content)
  return result
}

/**
 * (a) This product: the file with no range (its outline, unasked, or its first window), then
 * the definition by its name path. With `direct`, (e): the symbol read alone, as a model that
 * knows the name already (from a stack trace, a grep, an earlier outline) reads it.
 */
async function productReader(toolkit, task, direct = false) {
  const reader = tally()
  const { file, definition, bodyStart, bodyEnd } = task
  if (!direct) {
    const first = await call(toolkit, reader, { path: file.rel })
    if (first.output.kind === undefined) reader.seen.add(...windowSpan(first))
    if (reader.seen.covers(bodyStart, bodyEnd)) return reader
  }
  let result = await call(toolkit, reader, { path: file.rel, symbol: definition.name_path })
  if (!result.isError && result.output.kind === 'matches') {
    const entry = result.output.definitions.find((d) => d.start_line === definition.start_line)
    result = await call(toolkit, reader, { path: file.rel, symbol: entry?.symbol ?? definition.symbol })
  }
  if (result.isError || result.output.kind !== undefined) {
    anomaly(`${file.rel}: symbol ${definition.name_path} (outline ${definition.start_line}-${definition.end_line}) answered ${result.isError ? result.content.slice(0, 120) : result.output.kind}`)
    return reader
  }
  let [start, end] = windowSpan(result)
  reader.seen.add(start, end)
  if (start > definition.start_line || (end < definition.end_line && end - start + 1 < 500)) {
    anomaly(`${file.rel}: symbol ${definition.symbol} read lines ${start}-${end}, its outline says ${definition.start_line}-${definition.end_line}`)
  }
  for (let next = result.output.next_start_line; !reader.seen.covers(bodyStart, bodyEnd) && next !== null && next <= bodyEnd; next = result.output.next_start_line) {
    result = await call(toolkit, reader, { path: file.rel, start_line: next, max_lines: Math.min(500, bodyEnd - next + 1) })
    ;[start, end] = windowSpan(result)
    reader.seen.add(start, end)
  }
  return reader
}

/** `cat -n` of lines `from`..`to` (1-based) of `file`, each cut at 2,000 characters: a Claude Code page. */
function catN(file, from, to) {
  file.lineList ??= file.text.endsWith('\n') ? file.text.slice(0, -1).split('\n') : file.text.split('\n')
  const out = []
  for (let n = from; n <= Math.min(to, file.lineList.length); n++) out.push(`${String(n).padStart(6)}\t${file.lineList[n - 1].slice(0, CLAUDE_LINE_CHARS)}`)
  return out.join('\n')
}

/** The tokens of `file`'s `page`-th page of 2,000 lines (0-based), counted once. */
function pageTokens(file, page) {
  file.pageTokens ??= new Map()
  if (!file.pageTokens.has(page)) file.pageTokens.set(page, countTokens(catN(file, page * CLAUDE_PAGE_LINES + 1, (page + 1) * CLAUDE_PAGE_LINES)))
  return file.pageTokens.get(page)
}

/** (c) Claude-Code-like: pages of 2,000 lines from line 1 until the page holding the body's end. */
function claudeReader(task) {
  const reader = tally()
  for (let page = 0; page * CLAUDE_PAGE_LINES < task.bodyEnd; page++) {
    reader.calls++
    reader.tokens += pageTokens(task.file, page)
    reader.seen.add(page * CLAUDE_PAGE_LINES + 1, (page + 1) * CLAUDE_PAGE_LINES)
  }
  return reader
}

/**
 * (b) Zed-like: a file over 16 KiB gives its outline first (this product's outline text
 * stands in for Zed's: every page, counted as one call), then exactly the definition's lines
 * (`ranges`); a smaller file is read whole, in pages of 2,000 lines.
 */
async function zedReader(toolkit, task) {
  const { file, definition } = task
  if (file.bytes <= ZED_OUTLINE_BYTES) {
    const reader = claudeReader({ ...task, bodyEnd: file.lines })
    return reader
  }
  const reader = tally()
  reader.calls++
  reader.tokens += file.outline.tokens
  let ranges = [`${definition.start_line}-${definition.end_line}`]
  while (ranges !== null) {
    const result = await call(toolkit, reader, { path: file.rel, ranges })
    if (result.isError) break
    if (result.output.kind === 'ranges') {
      for (const range of result.output.ranges) reader.seen.add(range.start_line, range.end_line)
      ranges = result.output.next_ranges
    } else {
      reader.seen.add(...windowSpan(result))
      ranges = null
    }
  }
  return reader
}

/**
 * (d) grep-then-read: `grep -n NAME` over the file (its output read: one call), then windows
 * of 200 lines from the match on the definition's own line (else the first match) until the
 * body's end is seen.
 */
async function grepReader(toolkit, task) {
  const reader = tally()
  const { file, definition, bodyStart, bodyEnd } = task
  let out = ''
  try {
    out = execFileSync('grep', ['-n', '-F', '--', definition.name, file.abs], { encoding: 'utf8', maxBuffer: 64 * MIB })
  } catch (error) {
    out = error.stdout ?? ''
  }
  reader.calls++
  reader.tokens += countTokens(out)
  const matches = out.split('\n').filter(Boolean).map((line) => Number(line.slice(0, line.indexOf(':'))))
  if (matches.length === 0) return reader
  let next = matches.includes(bodyStart) ? bodyStart : matches[0]
  while (next !== null) {
    const result = await call(toolkit, reader, { path: file.rel, start_line: next, max_lines: GREP_WINDOW })
    if (result.isError) break
    const [start, end] = windowSpan(result)
    reader.seen.add(start, end)
    if (end >= bodyEnd) break
    next = result.output.next_start_line
  }
  return reader
}

const STRATEGIES = [
  ['a. this product (no range, then symbol)', productReader],
  ['b. Zed-like (outline, then the lines)', zedReader],
  ['c. Claude-Code-like (2,000-line pages)', async (_, task) => claudeReader(task)],
  ['d. grep, then 200-line windows', grepReader],
  ['e. this product, the symbol alone', (toolkit, task) => productReader(toolkit, task, true)],
]

async function findAndRead(corpus) {
  const { tasks, pool } = chooseTasks(corpus)
  const toolkit = createAgentToolkit({ workspaceRoot: workspace })
  const results = []
  for (const task of tasks) {
    const row = { language: task.language, file: task.file.rel, symbol: task.definition.symbol, lines: `${task.bodyStart}-${task.bodyEnd}`, strategies: [] }
    for (const [, reader] of STRATEGIES) {
      const tallied = await reader(toolkit, task)
      row.strategies.push({ calls: tallied.calls, tokens: tallied.tokens, whole: tallied.seen.covers(task.bodyStart, task.bodyEnd) })
    }
    results.push(row)
  }
  toolkit.close()
  return { results, pool }
}

function summarizeTasks(results) {
  const claude = (row) => row.strategies[2].tokens
  const overall = STRATEGIES.map(([name], s) => ({
    strategy: name,
    median_calls: median(results.map((row) => row.strategies[s].calls)),
    median_tokens: median(results.map((row) => row.strategies[s].tokens)),
    median_share_of_c: median(results.map((row) => row.strategies[s].tokens / claude(row))),
    whole: results.filter((row) => row.strategies[s].whole).length / results.length,
  }))
  const languages = [...new Set(results.map((row) => row.language))]
  const perLanguage = languages.map((language) => {
    const mine = results.filter((row) => row.language === language)
    return {
      language,
      tasks: mine.length,
      median_tokens: STRATEGIES.map((_, s) => median(mine.map((row) => row.strategies[s].tokens))),
      median_calls: STRATEGIES.map((_, s) => median(mine.map((row) => row.strategies[s].calls))),
      median_share_of_c: median(mine.map((row) => row.strategies[0].tokens / claude(row))),
    }
  })
  return { overall, perLanguage }
}

// ---------------------------------------------------------------------------------------
// 6. ctags resolution

/**
 * For ctags' definitions (at most 3,000, shared evenly between languages, spread evenly over
 * each language's list): `view({ symbol: name })`, resolved when its window holds ctags' line
 * or its list of matches has an entry whose lines hold it. The failures, with their cause.
 */
async function ctagsResolution(corpus) {
  const perLanguage = corpus.map(({ language, files }) => ({ language, tags: files.flatMap((file) => file.tags.map((tag) => ({ file, tag }))) })).filter((l) => l.tags.length > 0)
  const cap = Math.floor(MAX_SYMBOL_CALLS / perLanguage.length)
  const toolkit = createAgentToolkit({ workspaceRoot: workspace })
  const rows = []
  const failures = []
  for (const { language, tags } of perLanguage) {
    const sample = evenly(tags, cap)
    let resolved = 0
    let scoped = 0
    let paged = 0
    for (const { file, tag } of sample) {
      const pages = { count: 0 }
      const outcome = await resolve(toolkit, file, tag, tag.name, pages)
      if (outcome === null) {
        resolved++
        if (pages.count > 0) paged++
        continue
      }
      // The same name after ctags' scope (`Parser.parse`), as a model would ask next.
      const withScope = tag.scope ? (await resolve(toolkit, file, tag, `${tag.scope}.${tag.name}`)) === null : false
      if (withScope) scoped++
      const text = file.text.split('\n', tag.line)[tag.line - 1].trim().slice(0, 100)
      outcome.within = within(file, tag.line)
      failures.push({ language, file: file.rel, name: tag.name, kind: tag.kind, line: tag.line, text, scope: tag.scope ?? null, scope_kind: tag.scopeKind ?? null, with_scope: withScope, ...outcome, cause: causeOf(file, tag, text, outcome) })
    }
    rows.push({ language, ctags_definitions: tags.length, tried: sample.length, resolved, paged, rate: resolved / sample.length, with_scope: (resolved + scoped) / sample.length })
  }
  toolkit.close()
  const tried = rows.reduce((a, r) => a + r.tried, 0)
  const resolved = rows.reduce((a, r) => a + r.resolved, 0)
  const scoped = rows.reduce((a, r) => a + r.with_scope * r.tried, 0)
  const paged = rows.reduce((a, r) => a + r.paged, 0)
  rows.push({ language: 'all', ctags_definitions: rows.reduce((a, r) => a + r.ctags_definitions, 0), tried, resolved, paged, rate: resolved / tried, with_scope: scoped / tried })
  const causes = {}
  for (const failure of failures) {
    const cause = (causes[failure.cause] ??= { count: 0, with_scope: 0, languages: {} })
    cause.count++
    if (failure.with_scope) cause.with_scope++
    cause.languages[failure.language] = (cause.languages[failure.language] ?? 0) + 1
  }
  return { rows, failures, causes }
}

/**
 * Why a symbol read missed ctags' definition: a definition inside a function's body (the
 * outline does not enter bodies), what ctags takes for a definition and is not one (in C,
 * a macro call such as `DECLARE_ASN1_FUNCTIONS(X509)` or `STACK_OF(X509) *f(...)` tagged as
 * a prototype named in capitals; in JavaScript, an object literal tagged as a class: a
 * variable's outside functions is in the outline as an `object`, so those left are a
 * function's locals or an object's keys), or what the read answered.
 */
function causeOf(file, tag, text, outcome) {
  if (outcome.cause.startsWith('NOT_FOUND') && localToFunction(file, tag)) return 'ctags: inside a function body, not in the outline'
  if (tag.kind === 'prototype' && /^[A-Z0-9_]+$/.test(tag.name)) return 'ctags: a macro call taken for a prototype'
  if (file.ctags === 'JavaScript' && tag.kind === 'class' && !/\bclass\b/.test(text)) return 'ctags: a local or nested object literal taken for a class'
  return outcome.cause
}

/** The innermost definition of `file`'s outline whose lines hold `line`, as `name_path kind A-B`; '' when none or no outline was given. */
function within(file, line) {
  if (file.outline.windowed) return '(outline not given: over 25%)'
  const holding = file.outline.definitions.filter((d) => d.start_line <= line && d.end_line >= line)
  const innermost = holding.reduce((a, d) => (a === null || d.depth >= a.depth ? d : a), null)
  // JSON, so that a name holding a line break shows as one.
  return innermost === null ? '' : `${JSON.stringify(innermost.name_path)} ${innermost.kind} ${innermost.start_line}-${innermost.end_line}`
}

/**
 * null when `view({ symbol })` finds ctags' line (in the list of matches, following its pages
 * by `next_start_line` as the closing line says, up to the line); else `{ cause, detail }`.
 * `pagesFollowed` counts the pages read past the first.
 */
async function resolve(toolkit, file, tag, symbol, pagesFollowed = { count: 0 }) {
  let output
  try {
    output = await toolkit.view({ path: file.rel, symbol })
  } catch (error) {
    const detail = error.message.replace(/^NOT_FOUND: \S+: /, '').slice(0, 200)
    if (error.code !== 'NOT_FOUND') return { cause: `error ${error.code}`, detail }
    return { cause: 'NOT_FOUND: not in the outline', detail }
  }
  const holds = (start, end) => tag.line >= start && tag.line <= end
  if (output.kind === 'matches') {
    const listed = []
    for (;;) {
      if (output.definitions.some((d) => holds(d.start_line, d.end_line))) return null
      listed.push(...output.definitions.map((d) => `${d.start_line}-${d.end_line}`))
      // The pages are in file order: past the line, no later page holds it.
      if (output.next_start_line === null || output.next_start_line > tag.line) break
      pagesFollowed.count++
      output = await toolkit.view({ path: file.rel, symbol, start_line: output.next_start_line })
    }
    return { cause: 'matches elsewhere only', detail: `${output.total_definitions} matches; listed ${listed.join(', ')}` }
  }
  if (output.kind !== undefined) return { cause: `answered ${output.kind}`, detail: '' }
  const [start, end] = viewSpan(output)
  if (holds(start, end)) return null
  return { cause: 'one match, elsewhere', detail: `window ${start}-${end}` }
}

// ---------------------------------------------------------------------------------------
// Report

async function main() {
  const started = performance.now()
  progress('1. gathering the corpus')
  const corpus = gatherCorpus()
  const files = corpus.flatMap((language) => language.files)
  progress(`   ${files.length} files; ctags`)
  for (const file of files) ({ all: file.allTags, definitions: file.tags } = ctagsOf(file))

  progress('2. outline tokens')
  const toolkit = createAgentToolkit({ workspaceRoot: workspace })
  const outlineRows = await outlineTokens(toolkit, corpus)
  toolkit.close()
  const outlineSummary = summarizeOutlineTokens(outlineRows)

  progress('3. parse time')
  const mib = mebibyteFile(corpus)
  const parse = await parseTimes(corpus, mib)
  const main = mainLanguage(corpus)
  const rust = main.files
  const typical = [...rust].sort((a, b) => a.bytes - b.bytes)[rust.length >> 1]
  const cached = await cachedOutlines([
    { what: '~1 MiB', rel: mib.rel },
    { what: `median ${main.language} file (${count(typical.lines)} lines)`, rel: typical.rel },
  ])

  progress('4. symbol against window')
  const symbolFile = rust.find((f) => f.lines >= TASK_MIN_LINES && !f.outline.windowed) ?? rust.find((f) => !f.outline.windowed)
  const symbolTiming = await symbolAgainstWindow(symbolFile)

  progress('5. find and read the function')
  const { results: taskResults, pool: taskPool } = await findAndRead(corpus)
  const taskSummary = summarizeTasks(taskResults)

  progress('6. ctags resolution')
  const resolution = await ctagsResolution(corpus)

  const results = {
    machine: { cpu: os.cpus()[0]?.model.trim(), cores: os.cpus().length, node: process.versions.node, ctags: ctagsVersion() },
    corpus: corpus.map(({ language, files: list, candidates, fitting, note }) => ({ language, candidates, fitting, note, files: list.map((f) => ({ file: f.rel, source: f.label, lines: f.lines, bytes: f.bytes })) })),
    outline_tokens: { files: outlineRows, summary: outlineSummary },
    parse: { mib, first: parse, cached },
    symbol_and_ranges: symbolTiming,
    find_and_read: { pool: taskPool, tasks: taskResults, ...taskSummary },
    ctags: resolution,
    anomalies,
    seconds: (performance.now() - started) / 1000,
  }
  if (JSON_OUTPUT) console.log(JSON.stringify(results, null, 2))
  else console.log(report(results))
}

function report(r) {
  const out = []
  out.push(`Code read as code: ${r.machine.node ? `Node ${r.machine.node}` : ''}, ${r.machine.cores} x ${r.machine.cpu}; ${r.machine.ctags}`)
  out.push('', '1. Corpus (files of 1,000-50,000 lines, up to 8 a language, evenly spaced over the candidates sorted by path)')
  for (const language of r.corpus) {
    out.push(`  ${language.language}: ${language.files.length} files (${language.note})`)
    for (const f of language.files) out.push(`    ${f.file.padEnd(44)} ${String(f.lines).padStart(6)} lines  ${f.source}`)
  }

  out.push('', '2. Outline tokens (every page at max_lines 500) / the whole file\'s tokens (o200k_base); a window given instead counts as over 25%')
  out.push(
    table(
      ['language', 'files', 'median', 'min', 'max outlined', 'windows instead', 'outline tokens', 'of file tokens'],
      r.outline_tokens.summary.map((s) => [s.language, s.files, percent(s.median_ratio), percent(s.min_ratio), s.max_outlined_ratio === null ? '-' : percent(s.max_outlined_ratio), s.windowed, count(s.outline_tokens), count(s.file_tokens_outlined)]),
    ),
  )
  const windowed = r.outline_tokens.files.filter((row) => row.windowed).map((row) => row.file)
  out.push(`  given a window instead: ${windowed.length === 0 ? 'none' : windowed.join(', ')}`)
  const all = r.outline_tokens.summary.find((s) => s.language === 'all')
  out.push(`  target: median <= 15%: ${percent(all.median_ratio)} ${all.median_ratio <= 0.15 ? 'MET' : 'MISSED'}`)

  out.push('', `3. First outline (a fresh toolkit each run), median of 5 runs; ~1 MiB file: ${r.parse.mib.what}`)
  out.push(
    table(
      ['file', 'bytes', 'lines', 'answer', 'definitions', 'median ms', 'min-max ms'],
      r.parse.first.map((p) => [`${p.what}: ${p.file}`, count(p.bytes), count(p.lines), p.kind, p.definitions ?? '-', p.median_ms.toFixed(1), `${p.min_ms.toFixed(1)}-${p.max_ms.toFixed(1)}`]),
    ),
  )
  const mibRow = r.parse.first.find((p) => p.what === '~1 MiB')
  out.push(`  target: first outline of ~1 MiB <= 150 ms: ${mibRow.median_ms.toFixed(1)} ms ${mibRow.median_ms <= 150 ? 'MET' : 'MISSED'}`)
  out.push('  Cached outline (same toolkit, first page of 200 definitions), median µs a call (batch IQR)')
  out.push(
    table(
      ['file', 'page', 'view µs', 'runToolCall µs', 'view, page of 1 µs'],
      r.parse.cached.map((c) => [`${c.what}: ${c.file}`, c.page_definitions ?? '-', `${c.view_us.toFixed(1)} (${c.view_iqr_pct.toFixed(0)}%)`, `${c.run_tool_call_us.toFixed(1)} (${c.run_tool_call_iqr_pct.toFixed(0)}%)`, `${c.one_definition_us.toFixed(1)} (${c.one_definition_iqr_pct.toFixed(0)}%)`]),
    ),
  )
  const worstCached = Math.max(...r.parse.cached.map((c) => c.view_us))
  out.push(`  target: cached outline view <= 50 µs: ${worstCached.toFixed(1)} µs at most ${worstCached <= 50 ? 'MET' : 'MISSED'}`)

  const s = r.symbol_and_ranges
  out.push('', `4. Symbol against window (${s.file}), alternating batches, median µs (batch IQR)`)
  out.push(
    table(
      ['read', 'µs', 'IQR', 'ratio', 'target'],
      [
        [`view symbol ${s.symbol} (lines ${s.lines})`, s.symbol_us.toFixed(1), `${s.symbol_iqr_pct.toFixed(0)}%`, `${s.symbol_over_window.toFixed(2)}x`, `<= 1.2x ${s.symbol_over_window <= 1.2 ? 'MET' : 'MISSED'}`],
        ['view window of the same lines', s.window_us.toFixed(1), `${s.window_iqr_pct.toFixed(0)}%`, '', ''],
        [`view ranges ${JSON.stringify(s.ranges)}`, s.ranges_us.toFixed(1), `${s.ranges_iqr_pct.toFixed(0)}%`, `${s.ranges_over_window.toFixed(2)}x`, `<= 1.1x ${s.ranges_over_window <= 1.1 ? 'MET' : 'MISSED'}`],
        ['view one window of 80 lines', s.one_window_us.toFixed(1), `${s.one_window_iqr_pct.toFixed(0)}%`, '', ''],
        ['the ranges as two windows, a call each', s.two_calls_us.toFixed(1), `${s.two_calls_iqr_pct.toFixed(0)}%`, `${s.ranges_over_two_calls.toFixed(2)}x`, '(ranges / two calls)'],
      ],
    ),
  )

  const f = r.find_and_read
  out.push('', `5. Find and read the function: ${f.tasks.length} tasks in ${f.perLanguage.length} languages (${f.perLanguage.map((l) => `${l.language} ${l.tasks}`).join(', ')})`)
  out.push(`  drawn from (files of 2,000+ lines with an outline / functions of 10-200 lines / also found by ctags): ${f.pool.map((p) => `${p.language} ${p.files}/${p.functions}/${p.verified}`).join(', ')}`)
  out.push(
    table(
      ['strategy', 'median calls', 'median tokens', 'median share of c', 'body seen whole'],
      f.overall.map((o) => [o.strategy, o.median_calls, count(Math.round(o.median_tokens)), percent(o.median_share_of_c), percent(o.whole)]),
    ),
  )
  out.push('  Per language, median tokens of each strategy, and this product\'s (a) median calls and share of c')
  out.push(
    table(
      ['language', 'tasks', 'a', 'b', 'c', 'd', 'e', 'a calls', 'a/c'],
      f.perLanguage.map((l) => [l.language, l.tasks, ...l.median_tokens.map((t) => count(Math.round(t))), l.median_calls[0], percent(l.median_share_of_c)]),
    ),
  )
  const a = f.overall[0]
  out.push(`  target: this product <= 2 calls and <= 25% of c's tokens at the median: ${a.median_calls} calls, ${percent(a.median_share_of_c)} ${a.median_calls <= 2 && a.median_share_of_c <= 0.25 ? 'MET' : 'MISSED'}`)

  const c = r.ctags
  out.push('', '6. ctags definitions found by `view({ symbol: name })` (its window holds the line, or a listed match does, the list read on by its pages)')
  out.push(
    table(
      ['language', 'ctags definitions', 'tried', 'resolved', 'of them on a later page', 'rate', 'rate, name or Scope.name'],
      c.rows.map((row) => [row.language, count(row.ctags_definitions), count(row.tried), count(row.resolved), count(row.paged), percent(row.rate), percent(row.with_scope)]),
    ),
  )
  const total = c.rows.find((row) => row.language === 'all')
  out.push(`  target: >= 98% (by name alone): ${percent(total.rate)} ${total.rate >= 0.98 ? 'MET' : 'MISSED'}`)
  out.push('  failures by cause (how many, of them found as Scope.name, by language), and the first three of each:')
  const shown = (failure) =>
    `${failure.file}:${failure.line} ${failure.kind} ${failure.scope ? `${failure.scope}.` : ''}${failure.name} \`${failure.text}\`${failure.detail ? `: ${failure.detail}` : ''}${failure.within ? `; in the outline within: ${failure.within}` : ''}`
  for (const [cause, n] of Object.entries(c.causes).sort((x, y) => y[1].count - x[1].count)) {
    out.push(`    ${String(n.count).padStart(4)} (${n.with_scope})  ${cause}  [${Object.entries(n.languages).map(([l, k]) => `${l} ${k}`).join(', ')}]`)
    for (const failure of c.failures.filter((f) => f.cause === cause).slice(0, 3)) out.push(`           ${shown(failure)}`)
  }
  out.push('  first failures:')
  for (const failure of c.failures.slice(0, 10)) out.push(`    ${shown(failure)} [${failure.cause}]`)

  out.push('', anomalies.length === 0 ? 'No anomalies in the answers.' : `Anomalies (${anomalies.length}):`)
  for (const text of r.anomalies.slice(0, 30)) out.push(`  ${text}`)
  out.push('', `${r.seconds.toFixed(0)} s`)
  return out.join('\n')
}

await main()
