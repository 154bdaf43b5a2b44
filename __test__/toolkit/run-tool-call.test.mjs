// Issue 36 §1: the README said to pass the model's arguments for `toolkit.definition` to
// `toolkit.readFile`, which answers BINARY_NOT_SUPPORTED for the PNG and the PDF the
// definition offers to read, and a notebook's raw JSON. The toolkit's one method for the
// model's calls reads everything its definition offers.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { makeFixture, testHooks } from '../helpers.mjs'
import { image, pdf } from '../media.mjs'

const { createAgentToolkit, runToolCall } = pkg

describe('toolkit.runToolCall: the model’s call of toolkit.definition', () => {
  const fx = makeFixture()
  after(() => fs.rmSync(fx.base, { recursive: true, force: true }))

  test('reads every kind the definition offers, as runToolCall(toolkit, args) does', async () => {
    fx.write('notes.txt', 'one\ntwo\n')
    fx.write('shot.png', await image(40, 30, 'png'))
    fx.write('doc.pdf', pdf(['Hello PDF']))
    const notebook = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ cell_type: 'markdown', metadata: {}, source: 'A cell.' }],
    }
    fx.write('analysis.ipynb', JSON.stringify(notebook))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    assert.match(toolkit.definition.description, /images \(PNG, JPEG, GIF, WebP\), Jupyter notebooks and PDFs/)

    const text = await toolkit.runToolCall('{"path":"notes.txt"}')
    assert.equal(text.isError, false)
    assert.equal(text.content, 'notes.txt lines 1-2 of 2 (8 bytes)\n1\tone\n2\ttwo\n')
    const shot = await toolkit.runToolCall({ path: 'shot.png' })
    assert.equal(shot.isError, false)
    assert.deepEqual(shot.parts.map((part) => part.type), ['text', 'image'])
    assert.equal(shot.output.kind, 'image')
    const doc = await toolkit.runToolCall({ path: 'doc.pdf', pages: '1' })
    assert.equal(doc.output.kind, 'pdf')
    assert.ok(doc.content.includes('Hello PDF'), doc.content)
    const cells = await toolkit.runToolCall({ path: 'analysis.ipynb' })
    assert.equal(cells.output.kind, 'notebook')
    assert.ok(cells.content.includes('[cell 1 markdown]\nA cell.\n'), cells.content)
    for (const args of [{ path: 'notes.txt' }, { path: 'shot.png' }, { path: 'doc.pdf', pages: '1' }, { path: 'analysis.ipynb' }]) {
      assert.deepEqual(await toolkit.runToolCall(args), await runToolCall(toolkit, args))
    }
    // The typed text read keeps the specification's shape: the PNG is not text.
    await assert.rejects(toolkit.readFile({ path: 'shot.png' }), { code: 'BINARY_NOT_SUPPORTED' })
  })

  test('never rejects: a malformed call, a missing file and an aborted one are results', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    const malformed = await toolkit.runToolCall('{"path":')
    assert.deepEqual([malformed.isError, malformed.code], [true, 'INVALID_ARGUMENT'])
    const missing = await toolkit.runToolCall({ path: 'missing.txt' })
    assert.deepEqual([missing.isError, missing.code], [true, 'NOT_FOUND'])
    const aborted = await toolkit.runToolCall({ path: 'notes.txt' }, { signal: AbortSignal.abort() })
    assert.deepEqual([aborted.isError, aborted.code], [true, 'ABORT_ERR'])
  })

  // Issue 36 §4: the MCP Inspector's CLI sends `--tool-arg start_line=10` as "10" (it converts
  // only an "integer" type, and ours is nullable), and models send numbers so at times.
  test("a window's numbers written as decimal strings are those numbers; nothing else is", async () => {
    fx.write('ten.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    const asNumbers = await toolkit.runToolCall({ path: 'ten.txt', start_line: 3, max_lines: 2 })
    assert.equal(asNumbers.content, 'ten.txt lines 3-4 of 10 (71 bytes)\n3\tline 3\n4\tline 4\n[next: start_line=5]\n')
    assert.deepEqual(await toolkit.runToolCall({ path: 'ten.txt', start_line: '3', max_lines: '2' }), asNumbers)
    assert.deepEqual(await toolkit.runToolCall('{"path":"ten.txt","start_line":"3","max_lines":"2"}'), asNumbers)
    const last = await toolkit.runToolCall({ path: 'ten.txt', start_line: '-1' })
    assert.equal(last.content, 'ten.txt line 10 of 10 (71 bytes)\n10\tline 10\n')
    for (const bad of ['1e1', ' 3', '3 ', '+3', '3.0', '', '0x3', '٣', '9007199254740993']) {
      const result = await toolkit.runToolCall({ path: 'ten.txt', max_lines: bad })
      assert.deepEqual([result.isError, result.code], [true, 'INVALID_ARGUMENT'], JSON.stringify(bad))
    }
    // The specification's functions keep their letter: a string is not a number.
    await assert.rejects(pkg.readFile(fx.ws, { path: 'ten.txt', max_lines: '2' }), { code: 'INVALID_ARGUMENT' })
    await assert.rejects(toolkit.readFile({ path: 'ten.txt', max_lines: '2' }), { code: 'INVALID_ARGUMENT' })
  })
})

// Issue 37 §1: the engine is the one renderer. A toolkit of this package's reads and renders a
// text window in one call into the engine; any other output (a caller's toolkit's, one restored
// from a stored conversation) is rendered by the same engine, from the object.
describe('runToolCall: one renderer, the engine', () => {
  const fx = makeFixture()
  after(() => fs.rmSync(fx.base, { recursive: true, force: true }))
  fx.write('notes.txt', 'one\ntwo\n')
  fx.write('app.min.js', `${'x'.repeat(300)}\n`)
  const native = createRequire(import.meta.url)('../../lib/native.js')

  /** `run()` with the binding's `name` (a render) counted: its result and how many times it was called. */
  async function counted(run, name = 'renderRead') {
    const render = native[name]
    let renders = 0
    native[name] = (...args) => {
      renders++
      return render(...args)
    }
    try {
      return { result: await run(), renders }
    } finally {
      native[name] = render
    }
  }

  test("a toolkit of this package's: one native call, no render after it", async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    const calls = () => Object.values(testHooks().readPathCounts()).reduce((a, b) => a + b)
    const before = calls()
    const { result, renders } = await counted(() => runToolCall(toolkit, { path: 'notes.txt' }))
    assert.equal(result.content, 'notes.txt lines 1-2 of 2 (8 bytes)\n1\tone\n2\ttwo\n')
    assert.equal(renders, 0)
    assert.equal(calls() - before, 1)
  })

  test("a caller's toolkit and a restored output are told the same text, cut lines too", async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 128 })
    after(() => toolkit.close())
    const own = await runToolCall(toolkit, { path: 'app.min.js' })
    const expected = `app.min.js line 1 of 1 (301 bytes)\n1\t${'x'.repeat(34)}\n[line 1 continues at column 35 of 300; next: start_line=1 start_column=35]\n`
    assert.equal(own.content, expected)
    assert.equal(own.output.cut_line_bytes, 300)
    const caller = { readFile: (input) => toolkit.readFile(input) }
    const { result, renders } = await counted(() => runToolCall(caller, { path: 'app.min.js' }))
    assert.equal(result.content, expected)
    assert.equal(renders, 1)
    const restored = JSON.parse(JSON.stringify(own.output))
    assert.equal(native.renderRead(restored), expected)
    // Without the line's length (an output made before it was given) the text says less.
    const { cut_line_bytes: _bytes, ...older } = restored
    assert.equal(native.renderRead(older), expected.replace(' of 300;', ';'))
  })

  test("a media answer's header and closing lines: made by the read, or by the engine from the object", async () => {
    fx.write('doc.pdf', pdf(['one', 'two', 'three']))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    const expected = 'doc.pdf PDF page 2 of 3 ('
    const own = await counted(() => runToolCall(toolkit, { path: 'doc.pdf', pages: '2' }), 'renderMediaFrame')
    assert.ok(own.result.content.startsWith(expected), own.result.content)
    assert.ok(own.result.content.endsWith('[next: pages="3-3"]\n'), own.result.content)
    assert.equal(own.renders, 0)
    const caller = { view: (input) => toolkit.view(input) }
    const theirs = await counted(() => runToolCall(caller, { path: 'doc.pdf', pages: '2' }), 'renderMediaFrame')
    assert.equal(theirs.result.content, own.result.content)
    assert.equal(theirs.renders, 1)
    const restored = JSON.parse(JSON.stringify(own.result.output))
    const frame = native.renderMediaFrame(restored)
    assert.equal(frame.head + restored.parts[0].text + frame.tail, own.result.content)
  })
})
