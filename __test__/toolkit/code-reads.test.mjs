// Issue 38: code read as code. A model asked to change one function of a long file reads its
// outline, then the function by its name, or several ranges in one call; each answer is
// checked here against the file as the test wrote it (the line of every definition known
// from how it was written, never from the answer).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import pkg from '../../index.js'
import { after, describe, slowTest, test } from '../harness.mjs'
import { INDEX_PATH, makeFixture, runChild } from '../helpers.mjs'

const { createAgentToolkit } = pkg

/**
 * A Rust file of `functions` free functions of `bodyLines` lines each after a documented
 * struct and its impl, written line by line; `at` records where each definition starts and
 * ends (1-based), and `docAt` where its doc comment starts.
 */
function rustFile(functions = 30, bodyLines = 8) {
  const lines = []
  const at = {}
  const docAt = {}
  const add = (line) => lines.push(line)
  add('use std::fmt;')
  add('')
  docAt.Parser = lines.length + 1
  add('/// Parses statements.')
  add('#[derive(Debug)]')
  const structStart = lines.length + 1
  add('pub struct Parser {')
  add('    pos: usize,')
  add('}')
  at.Parser = [structStart, lines.length]
  add('')
  const implStart = lines.length + 1
  add('impl Parser {')
  docAt['Parser.parse_statement'] = lines.length + 1
  add('    /// Reads one statement.')
  const methodStart = lines.length + 1
  add('    pub fn parse_statement(&mut self) -> usize {')
  add('        self.pos += 1;')
  add('        self.pos')
  add('    }')
  at['Parser.parse_statement'] = [methodStart, lines.length]
  add('')
  const newStart = lines.length + 1
  add('    pub fn new() -> Self {')
  add('        Parser { pos: 0 }')
  add('    }')
  at['Parser.new'] = [newStart, lines.length]
  add('}')
  at.impl = [implStart, lines.length]
  for (let n = 0; n < functions; n++) {
    add('')
    const start = lines.length + 1
    add(`fn step_${n}(x: u32) -> u32 {`)
    for (let b = 0; b < bodyLines; b++) add(`    let v${b} = x + ${b}; // a body line that is long enough to cost tokens`)
    add('    x')
    add('}')
    at[`step_${n}`] = [start, lines.length]
  }
  return { text: `${lines.join('\n')}\n`, lines, at, docAt }
}

/** The model's text of lines `from..to` of `lines`, numbered as a window numbers them. */
function numbered(lines, from, to) {
  return lines
    .slice(from - 1, to)
    .map((line, index) => `${from + index}\t${line}`)
    .join('\n')
}

describe('toolkit: code read as code (issue 38)', () => {
  const fx = makeFixture()
  after(() => fs.rmSync(fx.base, { recursive: true, force: true }))
  const file = rustFile()
  fx.write('src/parser.rs', file.text)
  const total = file.lines.length
  const size = Buffer.byteLength(file.text)
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
  after(() => toolkit.close())

  /** The outline lines of the file, as the test wrote it: `start-end first line`, indented by scope. */
  function outlineLines() {
    const { at } = file
    const rows = [
      `${at.Parser[0]}-${at.Parser[1]} pub struct Parser {`,
      `${at.impl[0]}-${at.impl[1]} impl Parser {`,
      `  ${at['Parser.parse_statement'][0]}-${at['Parser.parse_statement'][1]} pub fn parse_statement(&mut self) -> usize {`,
      `  ${at['Parser.new'][0]}-${at['Parser.new'][1]} pub fn new() -> Self {`,
    ]
    for (let n = 0; n < 30; n++) rows.push(`${at[`step_${n}`][0]}-${at[`step_${n}`][1]} fn step_${n}(x: u32) -> u32 {`)
    return rows
  }

  test('a read with no range of a long source file is answered with its outline, unasked', async () => {
    assert.ok(total > 200, 'the first window would be cut')
    const result = await toolkit.runToolCall({ path: 'src/parser.rs' })
    assert.equal(result.isError, false)
    assert.equal(result.output.kind, 'outline')
    assert.equal(result.output.unasked, true)
    assert.equal(result.output.total_definitions, 34)
    const expected = [
      `src/parser.rs outline (its outline instead of its first lines): 34 definitions, ${total} lines (rust)`,
      ...outlineLines(),
      '[read one: symbol="Parser.parse_statement"; or start_line, or ranges=["a-b",…]]',
      '',
    ].join('\n')
    assert.equal(result.content, expected)
    const method = result.output.definitions[2]
    assert.deepEqual(method, {
      name: 'parse_statement',
      name_path: 'Parser.parse_statement',
      symbol: 'Parser.parse_statement',
      kind: 'fn',
      start_line: file.at['Parser.parse_statement'][0],
      end_line: file.at['Parser.parse_statement'][1],
      depth: 1,
      signature: 'pub fn parse_statement(&mut self) -> usize {',
    })
    assert.deepEqual(result.output.meta.line_count, total)
    assert.equal(result.output.meta.byte_length, size)
    // The read is recorded as any read is.
    assert.equal(toolkit.lastRead('src/parser.rs').byte_length, size)
    // `null` is "not given" (OpenAI's strict mode sends every argument).
    const strict = await toolkit.runToolCall({ path: 'src/parser.rs', start_line: null, max_lines: null, start_column: null, pages: null })
    assert.equal(strict.content, expected)
  })

  test('a read that places a window, a short file, and a toolkit with outlines: false get lines', async () => {
    for (const args of [{ path: 'src/parser.rs', start_line: 1 }, { path: 'src/parser.rs', max_lines: 200 }]) {
      const result = await toolkit.runToolCall(args)
      assert.equal(result.output.kind, undefined, JSON.stringify(args))
      assert.equal(result.output.meta.returned_line_count, 200)
    }
    fx.write('src/short.rs', 'fn main() {}\n')
    assert.equal((await toolkit.runToolCall({ path: 'src/short.rs' })).content, 'src/short.rs line 1 of 1 (13 bytes)\n1\tfn main() {}\n')
    const plain = createAgentToolkit({ workspaceRoot: fx.ws, outlines: false })
    after(() => plain.close())
    const window = await plain.runToolCall({ path: 'src/parser.rs' })
    assert.equal(window.output.kind, undefined)
    assert.ok(window.content.startsWith(`src/parser.rs lines 1-200 of ${total} (${size} bytes)\n1\tuse std::fmt;\n`))
    // Asked for, an outline is answered whatever the toolkit's default.
    assert.equal((await plain.runToolCall({ path: 'src/parser.rs', outline: true })).output.kind, 'outline')
    assert.throws(() => createAgentToolkit({ workspaceRoot: fx.ws, outlines: 'no' }), { code: 'INVALID_ARGUMENT' })
  })

  test('a long outline is paged by max_lines from start_line', async () => {
    const first = await toolkit.runToolCall({ path: 'src/parser.rs', outline: true, max_lines: 3 })
    const rows = outlineLines()
    const next = file.at['Parser.new'][0]
    assert.equal(first.output.unasked, false)
    assert.equal(
      first.content,
      [
        `src/parser.rs outline: 34 definitions, ${total} lines (rust)`,
        ...rows.slice(0, 3).map((row) => row),
        `[next: outline=true start_line=${next}]`,
        '[read one: symbol="Parser.parse_statement"; or start_line, or ranges=["a-b",…]]',
        '',
      ].join('\n'),
    )
    const second = await toolkit.view({ path: 'src/parser.rs', outline: true, start_line: next, max_lines: 3 })
    assert.deepEqual(
      second.definitions.map((d) => d.name_path),
      ['Parser.new', 'step_0', 'step_1'],
    )
    assert.equal(second.next_start_line, file.at.step_2[0])
    const last = await toolkit.view({ path: 'src/parser.rs', outline: true, start_line: file.at.step_29[0] })
    assert.deepEqual([last.definitions.length, last.truncated, last.next_start_line], [1, false, null])
  })

  test('an outline that would cost more than a quarter of the file is not given: the lines are', async () => {
    const constants = Array.from({ length: 400 }, (_, n) => `const C${n}: u32 = ${n};`).join('\n')
    fx.write('src/consts.rs', `${constants}\n`)
    const unasked = await toolkit.runToolCall({ path: 'src/consts.rs' })
    assert.equal(unasked.output.kind, undefined)
    assert.equal(unasked.output.note, undefined)
    const asked = await toolkit.runToolCall({ path: 'src/consts.rs', outline: true })
    assert.equal(asked.output.kind, undefined)
    assert.equal(asked.output.note, 'its outline would cost more than a quarter of its text, so here are its lines')
    assert.ok(asked.content.includes('\n[its outline would cost more than a quarter of its text, so here are its lines]\n'))
  })

  test('symbol: one definition, its doc comment included, as a window', async () => {
    const [start, end] = file.at['Parser.parse_statement']
    const doc = file.docAt['Parser.parse_statement']
    for (const symbol of ['Parser.parse_statement', 'Parser::parse_statement', 'parse_statement', ' PARSER.PARSE_STATEMENT ']) {
      const result = await toolkit.runToolCall({ path: 'src/parser.rs', symbol })
      assert.equal(result.isError, false, symbol)
      assert.equal(
        result.content,
        `src/parser.rs lines ${doc}-${end} of ${total} (${size} bytes)\n${numbered(file.lines, doc, end)}\n[next: start_line=${end + 1}]\n`,
        symbol,
      )
    }
    assert.ok(doc < start)
    // The struct's doc comment and attribute come with it; its impl block is not what `Parser` names.
    const parser = await toolkit.view({ path: 'src/parser.rs', symbol: 'Parser' })
    assert.equal(parser.content, `${file.lines.slice(file.docAt.Parser - 1, file.at.Parser[1]).join('\n')}\n`)
  })

  test('symbol: several are listed with the symbol that reads each; none names the nearest', async () => {
    fx.write(
      'src/two.rs',
      'mod a {\n    pub fn run() {}\n}\nmod b {\n    pub fn run() {}\n}\nfn running() {}\n',
    )
    const several = await toolkit.runToolCall({ path: 'src/two.rs', symbol: 'run' })
    assert.equal(several.output.kind, 'matches')
    assert.equal(
      several.content,
      'src/two.rs: 2 definitions match "run"; read one by its symbol:\n2-2 symbol="a.run" pub fn run() {}\n5-5 symbol="b.run" pub fn run() {}\n',
    )
    const second = await toolkit.view({ path: 'src/two.rs', symbol: 'run#2' })
    assert.equal(second.content, '    pub fn run() {}\n')
    assert.equal(second.next_start_line, 6)
    const none = await toolkit.runToolCall({ path: 'src/two.rs', symbol: 'runn' })
    assert.deepEqual([none.isError, none.code], [true, 'NOT_FOUND'])
    assert.equal(none.content.split('\n')[0], 'NOT_FOUND: src/two.rs: no definition named "runn" in src/two.rs; the nearest: "a.run", "b.run", "running"')
    await assert.rejects(toolkit.view({ path: 'src/two.rs', symbol: 'x' }), { code: 'NOT_FOUND' })
  })

  test('an outline page crosses to JavaScript exact: names and lines past ASCII, in order', async () => {
    // Names and first lines with two-byte, three-byte and four-byte (two UTF-16 units) characters,
    // beside ASCII ones: the page's strings are cut from one string by their UTF-16 lengths.
    // A long comment after them keeps the outline within a quarter of the file.
    const comment = '# words enough to make the outline a small part of the file\n'.repeat(40)
    fx.write('src/wide.py', `def naïve():\n    pass\ndef 日本(x="😀"):\n    pass\ndef plain():\n    pass\nclass Ünï:\n    def m(self, s="𝄞é"):\n        pass\n${comment}`)
    const page = await toolkit.view({ path: 'src/wide.py', outline: true })
    assert.deepEqual(
      page.definitions.map((d) => [d.name, d.name_path, d.symbol, d.kind, d.start_line, d.end_line, d.depth, d.signature]),
      [
        ['naïve', 'naïve', 'naïve', 'def', 1, 2, 0, 'def naïve():'],
        ['日本', '日本', '日本', 'def', 3, 4, 0, 'def 日本(x="😀"):'],
        ['plain', 'plain', 'plain', 'def', 5, 6, 0, 'def plain():'],
        ['Ünï', 'Ünï', 'Ünï', 'class', 7, 9, 0, 'class Ünï:'],
        ['m', 'Ünï.m', 'Ünï.m', 'def', 8, 9, 1, 'def m(self, s="𝄞é"):'],
      ],
    )
    assert.deepEqual(Object.keys(page.definitions[0]), ['name', 'name_path', 'symbol', 'kind', 'start_line', 'end_line', 'depth', 'signature'])
  })

  test('symbol: more than 10 matches are paged, the next page from its start_line', async () => {
    // 23 modules, each with its `run` on line 3k+2 (k from 0).
    fx.write('src/many.rs', Array.from({ length: 23 }, (_, k) => `mod m${k} {\n    fn run() {}\n}\n`).join(''))
    const listed = (output) => output.definitions.map((d) => `${d.start_line} ${d.symbol}`)
    const rows = (from, to) => Array.from({ length: to - from }, (_, i) => `${3 * (from + i) + 2} m${from + i}.run`)
    const first = await toolkit.runToolCall({ path: 'src/many.rs', symbol: 'run' })
    assert.deepEqual(listed(first.output), rows(0, 10))
    assert.deepEqual([first.output.total_definitions, first.output.truncated, first.output.next_start_line], [23, true, 32])
    assert.equal(first.content.split('\n').at(-2), '[more: symbol="run" start_line=32; or name one more fully]')
    const second = await toolkit.view({ path: 'src/many.rs', symbol: 'run', start_line: 32 })
    assert.deepEqual(listed(second), rows(10, 20))
    assert.equal(second.next_start_line, 62)
    const last = await toolkit.runToolCall({ path: 'src/many.rs', symbol: 'run', start_line: 62 })
    assert.deepEqual(listed(last.output), rows(20, 23))
    assert.deepEqual([last.output.truncated, last.output.next_start_line], [false, null])
    assert.equal(last.content.split('\n').at(-2), '68-68 symbol="m22.run" fn run() {}')
    assert.ok(!last.content.includes('[more'), last.content)
  })

  test('without a grammar, the indentation block of the line that names it, marked approximate', async () => {
    fx.write('tool.lua', 'local x = 1\n\nfunction greet(name)\n  print(name)\nend\n')
    const result = await toolkit.runToolCall({ path: 'tool.lua', symbol: 'greet' })
    assert.equal(
      result.content,
      'tool.lua lines 3-5 of 5 (52 bytes)\n3\tfunction greet(name)\n4\t  print(name)\n5\tend\n[approximate: no grammar reads this language, so this is the indentation block of the line that names it]\n',
    )
    const steps = Array.from({ length: 8 }, (_, n) => `function step${n}(x)\n${'  x = x + 1 -- a line of the body\n'.repeat(12)}end\n`)
    fx.write('steps.lua', steps.join('\n'))
    const outline = await toolkit.view({ path: 'steps.lua', outline: true })
    assert.deepEqual([outline.language, outline.source, outline.total_definitions], ['text', 'indentation', 8])
    assert.deepEqual([outline.definitions[1].name, outline.definitions[1].start_line, outline.definitions[1].end_line], ['step1', 16, 29])
  })

  test('Markdown headings, JSON, YAML and TOML keys', async () => {
    const prose = 'A paragraph of prose that the outline does not repeat, long enough to weigh. '.repeat(20)
    fx.write('doc.md', `# Guide\n\n${prose}\n\n## Install\n\n\`\`\`sh\n# not a heading\n\`\`\`\n\n${prose}\n\n## Use\n\n${prose}\n`)
    const doc = await toolkit.runToolCall({ path: 'doc.md', outline: true })
    assert.equal(doc.content, 'doc.md outline: 3 definitions, 15 lines (markdown)\n1-15 # Guide\n  5-12 ## Install\n  13-15 ## Use\n[read one: symbol="Guide.Install"; or start_line, or ranges=["a-b",…]]\n')
    const use = await toolkit.view({ path: 'doc.md', symbol: 'Use' })
    assert.equal(use.content, `## Use\n\n${prose}\n`)
    fx.write('package.json', '{\n  "name": "x",\n  "scripts": {\n    "test": "node t"\n  }\n}\n')
    // Data files are small: their keys are read by name (the outline of a small file is not
    // worth its share; Rust's tests hold their outlines).
    const json = await toolkit.view({ path: 'package.json', symbol: 'scripts' })
    assert.equal(json.content, '  "scripts": {\n    "test": "node t"\n  }\n')
    assert.equal((await toolkit.view({ path: 'package.json', symbol: 'scripts.test' })).content, '    "test": "node t"\n')
    fx.write('ci.yml', 'on:\n  push: {}\njobs:\n  test:\n    runs-on: x\n')
    const yaml = await toolkit.view({ path: 'ci.yml', symbol: 'jobs.test' })
    assert.equal(yaml.content, '  test:\n    runs-on: x\n')
    fx.write('Cargo.toml', '[package]\nname = "x"\n\n[dependencies]\nserde = "1"\n')
    const toml = await toolkit.view({ path: 'Cargo.toml', symbol: 'dependencies.serde' })
    assert.equal(toml.content, 'serde = "1"\n')
  })

  test('ranges: merged, one header, each gap one line, numbering true', async () => {
    const result = await toolkit.runToolCall({ path: 'src/parser.rs', ranges: ['40-41', '10-12', '11-13', '100'] })
    assert.equal(result.output.kind, 'ranges')
    assert.deepEqual(
      result.output.ranges.map((r) => [r.start_line, r.end_line]),
      [[10, 13], [40, 41], [100, 100]],
    )
    assert.equal(
      result.content,
      [
        `src/parser.rs lines 10-13, 40-41, 100 of ${total} (${size} bytes)`,
        numbered(file.lines, 10, 13),
        '[… 26 lines …]',
        numbered(file.lines, 40, 41),
        '[… 58 lines …]',
        numbered(file.lines, 100, 100),
        '',
      ].join('\n'),
    )
    assert.equal(result.output.ranges[0].content, `${file.lines.slice(9, 13).join('\n')}\n`)
    const past = await toolkit.view({ path: 'src/parser.rs', ranges: [`${total + 5}-${total + 9}`] })
    assert.deepEqual([past.ranges, past.truncated, past.meta.line_count], [[], false, total])
    const gapOfOne = await toolkit.runToolCall({ path: 'src/parser.rs', ranges: ['1', '3'] }, { lineNumbers: false })
    assert.equal(gapOfOne.content, `src/parser.rs lines 1, 3 of ${total} (${size} bytes)\nuse std::fmt;\n[… 1 line …]\n${file.lines[2]}\n`)
  })

  test('ranges share one budget: what is left is the next call', async () => {
    const tight = createAgentToolkit({ workspaceRoot: fx.ws, maxReadTokens: 1000 })
    after(() => tight.close())
    const result = await tight.view({ path: 'src/parser.rs', ranges: ['30-120', '200-210'] })
    assert.equal(result.truncated, true)
    const read = result.ranges.at(-1)
    assert.ok(read.end_line < 120, `cut within the first range (ended at ${read.end_line})`)
    assert.deepEqual(result.next_ranges, [`${read.end_line + 1}-120`, '200-210'])
    const rest = await tight.view({ path: 'src/parser.rs', ranges: result.next_ranges })
    assert.equal(rest.ranges[0].start_line, read.end_line + 1)
  })

  test('malformed arguments are INVALID_ARGUMENT with what was wrong', async () => {
    const cases = [
      [{ outline: 'yes' }, 'outline must be true or false (got string)'],
      [{ symbol: 3 }, 'symbol must name a definition, like "Parser.parse" or "parse" (got number)'],
      [{ symbol: ' :: ' }, 'symbol must name a definition, like "Parser.parse" or "parse" (got " :: ")'],
      [{ ranges: '10-40' }, 'ranges must be an array of at most 16 line ranges like ["10-40", "120-160"] (got string)'],
      [{ ranges: ['10-40', 7] }, 'ranges[1] must be a string like "10-40" (got number)'],
      [{ ranges: ['40-10'] }, 'ranges[0] must be a line range like "10-40" or "12" (1-based, start <= end) (got "40-10")'],
      [{ ranges: [] }, 'ranges must hold at least one range, each a line range like "10-40" or "12" (1-based, start <= end)'],
      [{ ranges: Array.from({ length: 17 }, (_, n) => `${n + 1}`) }, 'ranges must be an array of at most 16 line ranges like ["10-40", "120-160"] (got 17)'],
      [{ outline: true, symbol: 'a' }, 'outline, symbol and ranges ask for different reads: give one of them'],
    ]
    for (const [args, reason] of cases) {
      const result = await toolkit.runToolCall({ path: 'src/parser.rs', ...args })
      assert.equal(result.code, 'INVALID_ARGUMENT', JSON.stringify(args))
      assert.equal(result.content.split('\n')[0], `INVALID_ARGUMENT: src/parser.rs: ${reason}`)
    }
    // `null` and `false` are "not given".
    const given = await toolkit.view({ path: 'src/short.rs', outline: false, symbol: null, ranges: null })
    assert.equal(given.content, 'fn main() {}\n')
  })

  test('the sandbox and the policy apply to the file opened, as for any read', async () => {
    fx.write('.env', 'SECRET=1\n')
    fx.link('leak.rs', fx.secret)
    for (const args of [{ outline: true }, { symbol: 'x' }, { ranges: ['1'] }]) {
      assert.equal((await toolkit.runToolCall({ path: '.env', ...args })).code, 'POLICY_DENIED')
      assert.equal((await toolkit.runToolCall({ path: 'leak.rs', ...args })).code, 'OUTSIDE_WORKSPACE')
      assert.equal((await toolkit.runToolCall({ path: '../outside/secret.txt', ...args })).code, 'OUTSIDE_WORKSPACE')
    }
    fx.write('blob.rs', Buffer.from([0x66, 0x6e, 0, 1, 2]))
    assert.equal((await toolkit.runToolCall({ path: 'blob.rs', outline: true })).code, 'BINARY_NOT_SUPPORTED')
  })

  test('an outline is of the file as it is now: a change is seen by the next read', async () => {
    const body = `    """A function whose body is long enough that its outline is small beside it."""\n${'    x = 1\n'.repeat(20)}`
    fx.write('src/grow.py', `def a():\n${body}`)
    const before = await toolkit.runToolCall({ path: 'src/grow.py', symbol: 'b' })
    assert.equal(before.content.split('\n')[0], 'NOT_FOUND: src/grow.py: no definition named "b" in src/grow.py; the nearest: "a"')
    fx.write('src/grow.py', `def a():\n${body}\ndef b():\n${body}`)
    const now = await toolkit.view({ path: 'src/grow.py', symbol: 'b' })
    assert.equal(now.content, `def b():\n${body}`)
    assert.equal(now.next_start_line, null)
  })

  slowTest('hostile sources are outlined in a child within 256 MiB of growth each, or answered by lines', 180_000, async () => {
    // 13 lines a function: its outline is well within a quarter of its text.
    const fn = (n) => `fn f${n}(a: u32) -> u32 {\n${`    let a = a + ${n};\n`.repeat(10)}    a\n}\n`
    let big = ''
    for (let n = 0; big.length + fn(n).length <= 2 * 1024 * 1024; n++) big += fn(n)
    fx.write('hostile/deep.rs', `fn f() { ${'('.repeat(300_000)} }\n`)
    fx.write('hostile/deep.json', `${'['.repeat(200_000)}${']'.repeat(200_000)}\n`)
    fx.write('hostile/braces.c', `${'{'.repeat(400_000)}\n`)
    fx.write('hostile/big.rs', big)
    fx.write('hostile/many.py', Array.from({ length: 30_000 }, (_, n) => `def f${n}(): pass\n`).join(''))
    // Cut in pieces (an empty line before each function), its last piece with a parse error:
    // parsed in pieces, then whole, within the same bounds.
    const spaced = big.replaceAll('}\nfn ', '}\n\nfn ').slice(0, 2 * 1024 * 1024 - 40)
    const broken = `${spaced.slice(0, spaced.lastIndexOf('\n\nfn ') + 2)}fn broken(a: u32 -> u32 {\n}\n`
    fx.write('hostile/pieces.rs', broken)
    // A child each: a peak of one file's read does not hide the next one's.
    const results = []
    for (const path of ['hostile/deep.rs', 'hostile/deep.json', 'hostile/braces.c', 'hostile/big.rs', 'hostile/many.py', 'hostile/pieces.rs']) {
      const script = `const { createAgentToolkit } = require(${JSON.stringify(INDEX_PATH)})
const toolkit = createAgentToolkit({ workspaceRoot: ${JSON.stringify(fx.ws)} })
;(async () => {
  const path = ${JSON.stringify(path)}
  const before = process.resourceUsage().maxRSS
  const started = performance.now()
  const outline = await toolkit.view({ path, outline: true })
  const outlineMs = performance.now() - started
  const symbol = await toolkit.runToolCall({ path, symbol: 'f7' })
  const grownMiB = (process.resourceUsage().maxRSS - before) / 1024
  console.log(JSON.stringify({ path, kind: outline.kind ?? 'window', source: outline.source, outlineMs, total: outline.total_definitions, symbol: symbol.content.split('\\n')[0], grownMiB }))
  toolkit.close()
})()`
      results.push(await runChild(fx.base, 'code-memory.cjs', script, { timeout: 60_000 }))
    }
    const byPath = Object.fromEntries(results.map((r) => [r.path, r]))
    assert.deepEqual(Object.keys(byPath).length, 6, JSON.stringify(results))
    for (const { path, grownMiB } of results) assert.ok(grownMiB < 256, `${path}: peak RSS grew ${grownMiB.toFixed(1)} MiB`)
    // At the parse's byte bound: parsed by its grammar, unless the parse ran past its 2 s
    // bound (under emulation), and every function found either way.
    for (const path of ['hostile/big.rs', 'hostile/pieces.rs']) {
      const { source, outlineMs } = byPath[path]
      assert.ok(source === 'grammar' || (source === 'indentation' && outlineMs >= 2000), `${path}: ${source} after ${outlineMs.toFixed(0)} ms`)
    }
    // Parsed in pieces, then whole: the memory of one parse at a time (Bun's children report
    // no growth of their peak, 0 against 0).
    const pieces = byPath['hostile/pieces.rs']
    assert.ok(pieces.grownMiB <= byPath['hostile/big.rs'].grownMiB * 1.5, JSON.stringify(results))
    assert.equal(byPath['hostile/big.rs'].total, big.split('\n').length / 13 | 0)
    assert.match(byPath['hostile/big.rs'].symbol, /^hostile\/big\.rs lines 92-104 of /)
    // 30,000 definitions (an outline keeps 20,000) cost more than a quarter of the text:
    // lines; unless the parse ran past its 2 s bound (under emulation): then the outline is
    // the indentation's, which these one-line functions open no block of.
    const many = byPath['hostile/many.py']
    const pastBound = many.source === 'indentation' && many.outlineMs >= 2000
    assert.ok(many.kind === 'window' || (pastBound && many.kind === 'outline'), JSON.stringify(many))
    for (const path of ['hostile/deep.rs', 'hostile/deep.json', 'hostile/braces.c']) {
      assert.ok(['outline', 'window'].includes(byPath[path].kind), `${path}: ${byPath[path].kind}`)
    }
  })
})
