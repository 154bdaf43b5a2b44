// `agent-read-file mcp`'s answer to a plain read_file call, made in Rust (adapters/mcp-core.js
// `readFileAnswer`, engine/src/model_text.rs): for every kind of window, byte for byte the
// line the SDK's server writes for the registered tool's answer (`readFileCall`, whose text
// the engine renders too, for the toolkit's `view`). Failures and toolkits whose answers are
// not the default text are answered by the registered tool's function.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { after, describe, test } from '../harness.mjs'
import { makeFixture, testHooks } from '../helpers.mjs'
import { image, pdf } from '../media.mjs'

const require = createRequire(import.meta.url)
const { createAgentToolkit } = require('../../index.js')
const { readFileAnswer, readFileCall } = require('../../adapters/mcp-core.js')
const { statelessResponse } = require('../../bin/mcp-revision.js')

const fx = makeFixture()
after(() => fx.cleanup())
const numbered = (count) => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('')
const files = {
  'lines.txt': numbered(120),
  'long.txt': numbered(900),
  'empty.txt': '',
  'no-newline.txt': 'first\nlast',
  'crlf.txt': 'one\r\ntwo\r\n',
  'wide.txt': `short\n${'é'.repeat(400)}\nend\n`,
  'escapes.txt': 'tab\there "quoted" back\\slash \u001b[0m \u2028 \u{1F600}\n',
  'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'pdf-like.txt': '%PDF-1.7\nnot really\n',
  'notebook-like.json': '{\n "cells": [],\n "nbformat": 4\n}\n',
  'a "quoted" name.txt': 'q\n',
  'sub/deep/file.rs': 'fn main() {}\n',
  'new\nline.txt': 'odd name\n',
  'sep\u2028arator.txt': 'odd name\n',
  // 16,384 bytes (8,320 chars), and 2 bytes more: structuredContent repeats a window's text up
  // to 16 KiB of UTF-8.
  'at-16k.txt': `${'é'.repeat(63)}x\n`.repeat(128),
  'over-16k.txt': `${`${'é'.repeat(63)}x\n`.repeat(128)}é`,
}
for (const [name, data] of Object.entries(files)) fx.write(name, data)

const ARGUMENTS = [
  {},
  { start_line: 2, max_lines: 3 },
  { start_line: 51, max_lines: 3 },
  { start_line: 999 },
  { start_line: null, max_lines: null, start_column: null },
  { start_column: 3 },
  { start_line: 2, start_column: 5, max_lines: 2 },
  { start_line: 2, start_column: 300 },
  { max_lines: 1000 },
  { max_lines: 1 },
]
const IDS = [7, 0, -3, Number.MAX_SAFE_INTEGER, 'abc', 'a "quoted" \\ \u2028 id', '', 'a lone \ud800 surrogate']

/** The line the SDK's server writes for the registered tool's answer to `args`. */
async function registeredAnswer(toolkit, args, id, structured = true) {
  return `${JSON.stringify({ result: await readFileCall(toolkit, structured)(args), jsonrpc: '2.0', id })}\n`
}

/** `readFileAnswer`'s answer as the line written: a line as it is, a message serialised. */
async function directLine(toolkit, args, id, structured = true) {
  const request = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_file', arguments: args } }
  const answer = await readFileAnswer(toolkit, structured)(request)
  return { made: typeof answer === 'string', line: typeof answer === 'string' ? answer : `${JSON.stringify(answer)}\n` }
}

describe("agent-read-file mcp's answers made in Rust", () => {
  for (const [label, options, structured = true] of [
    ['default', {}],
    ['a content budget that cuts lines', { maxContentBytes: 200 }],
    ['no line numbers', { lineNumbers: false }],
    ['no structuredContent', {}, false],
    ['no structuredContent, a content budget that cuts lines', { maxContentBytes: 200 }, false],
  ]) {
    test(`are the registered tool's answers byte for byte (${label})`, async () => {
      const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, ...options })
      let made = 0
      let compared = 0
      let lonelyIds = 0
      try {
        for (const path of Object.keys(files)) {
          for (const args of ARGUMENTS) {
            const id = IDS[compared % IDS.length]
            const input = { path, ...args }
            const direct = await directLine(toolkit, input, id, structured)
            const registered = await registeredAnswer(toolkit, input, id, structured)
            assert.equal(direct.line, registered, JSON.stringify(input))
            assert.equal('structuredContent' in JSON.parse(registered).result, structured, JSON.stringify(input))
            // The engine's view tries the decode of what starts like a PDF or a notebook: a text
            // that is no PDF is answered in Rust like any other, an empty notebook as media.
            const spelt = typeof id !== 'string' || id.isWellFormed()
            if (path === 'pdf-like.txt') assert.equal(direct.made, spelt, JSON.stringify(input))
            if (path === 'notebook-like.json' && Object.keys(args).length === 0) assert.equal(direct.made, false, path)
            // An id with a lone surrogate is left to JSON.stringify, which escapes it.
            if (typeof id === 'string' && !id.isWellFormed()) {
              assert.equal(direct.made, false, JSON.stringify(id))
              lonelyIds++
            }
            made += direct.made ? 1 : 0
            compared++
          }
        }
      } finally {
        toolkit.close()
      }
      assert.equal(compared, Object.keys(files).length * ARGUMENTS.length)
      // Every window but those with such an id and some of the two files that may be media.
      const least = compared - lonelyIds - 2 * ARGUMENTS.length
      assert.ok(lonelyIds > 0 && made >= least, `${made} of ${compared} made in Rust`)
    })
  }

  test('structuredContent repeats a window of up to 16 KiB of UTF-8; a longer one is in the text alone', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    try {
      for (const answer of [directLine, async (...args) => ({ line: await registeredAnswer(...args) })]) {
        const at = JSON.parse((await answer(toolkit, { path: 'at-16k.txt' }, 1, true)).line).result
        assert.equal(at.structuredContent.content, files['at-16k.txt'])
        const over = JSON.parse((await answer(toolkit, { path: 'over-16k.txt' }, 1, true)).line).result
        assert.deepEqual(Object.keys(over.structuredContent), ['path', 'truncated', 'next_start_line', 'meta'])
        assert.deepEqual(over.structuredContent.meta, { byte_length: 16_386, line_count: 129, returned_line_count: 129, mtime_ms: over.structuredContent.meta.mtime_ms })
        const text = over.content[0].text
        assert.ok(text.startsWith('over-16k.txt lines 1-129 of 129 (16386 bytes)\n1\té') && text.endsWith('\n129\té\n'), text.slice(-40))
      }
    } finally {
      toolkit.close()
    }
  })

  test("a stateless (2026-07-28) request's answer made in Rust is the registered tool's with resultType", async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    let made = 0
    try {
      for (const structured of [false, true]) {
        for (const path of ['lines.txt', 'escapes.txt', 'over-16k.txt', 'missing.txt']) {
          const request = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'read_file', arguments: { path } } }
          const answer = await readFileAnswer(toolkit, structured)(request, undefined, true)
          const registered = { result: await readFileCall(toolkit, structured)({ path }), jsonrpc: '2.0', id: 9 }
          if (typeof answer !== 'string') continue // answered as a message: the transport adds resultType
          assert.equal(answer, `${JSON.stringify(statelessResponse(registered, 'tools/call'))}\n`, path)
          assert.equal(JSON.parse(answer).result.resultType, 'complete')
          made++
        }
      }
    } finally {
      toolkit.close()
    }
    assert.equal(made, 6)
  })

  test('a failure, a name that claims media and a deduplicating or JSON toolkit are answered as the registered tool', async () => {
    fx.write('image.png', 'not an image\n')
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    for (const args of [{ path: 'missing.txt' }, { path: '../outside/secret.txt' }, { path: 5 }, { path: 'image.png' }]) {
      const direct = await directLine(toolkit, args, 1)
      assert.equal(direct.made, false, JSON.stringify(args))
      assert.equal(direct.line, await registeredAnswer(toolkit, args, 1))
    }
    toolkit.close()
    for (const options of [{ dedupeReads: true }, { resultFormat: 'json' }]) {
      const other = createAgentToolkit({ workspaceRoot: fx.ws, ...options })
      const first = await directLine(other, { path: 'lines.txt' }, 1)
      const again = await directLine(other, { path: 'lines.txt' }, 1)
      assert.equal(first.made || again.made, false, JSON.stringify(options))
      if (options.dedupeReads) assert.match(JSON.parse(again.line).result.content[0].text, /unchanged since your last read/)
      other.close()
    }
  })

  test('an image, a PDF and a notebook, under any name, are answered from one read as the registered tool answers them', async () => {
    const png = await image(40, 30)
    const media = {
      'shot.png': png,
      'shot.dat': png,
      'doc.pdf': pdf(['Hello from a PDF']),
      'doc.bin': pdf(['Hello from a PDF']),
      'nb.ipynb': JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: 'markdown', metadata: {}, source: ['# Title'] }] }),
    }
    for (const [name, data] of Object.entries(media)) fx.write(`media/${name}`, data)
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const reads = () => Object.values(testHooks().readPathCounts()).reduce((a, b) => a + b)
    for (const [name, expected] of [
      ['shot.png', /^media\/shot\.png PNG image 40x30 /],
      ['shot.dat', /^media\/shot\.dat PNG image 40x30 /],
      ['doc.pdf', /^media\/doc\.pdf PDF page 1 of 1 [^]*Hello from a PDF/],
      ['doc.bin', /^media\/doc\.bin PDF page 1 of 1 [^]*Hello from a PDF/],
      ['nb.ipynb', /^media\/nb\.ipynb notebook cell 1 of 1 [^]*# Title/],
      ['../pdf-like.txt', /^pdf-like\.txt lines 1-2 of 2 /],
    ]) {
      const args = { path: `media/${name}` }
      const before = reads()
      const direct = await directLine(toolkit, args, 1)
      assert.equal(reads() - before, 1, name)
      assert.equal(direct.line, await registeredAnswer(toolkit, args, 1), name)
      assert.match(JSON.parse(direct.line).result.content[0].text, expected)
    }
    toolkit.close()
  })

  test('a failure is answered from its one read, not read again', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const reads = () => Object.values(testHooks().readPathCounts()).reduce((a, b) => a + b)
    for (const path of ['missing.txt', 'sub/deep/missing.rs']) {
      const before = reads()
      const direct = await directLine(toolkit, { path }, 1)
      assert.equal(reads() - before, 1, path)
      assert.match(JSON.parse(direct.line).result.content[0].text, /^NOT_FOUND: /)
    }
    toolkit.close()
  })

  test('an answer made in Rust is recorded in the ledger, as a read', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    assert.equal(toolkit.lastRead('lines.txt'), undefined)
    const direct = await directLine(toolkit, { path: 'lines.txt', max_lines: 2 }, 1)
    assert.equal(direct.made, true)
    assert.equal(toolkit.lastRead('lines.txt').byte_length, Buffer.byteLength(files['lines.txt']))
    toolkit.close()
  })
})
