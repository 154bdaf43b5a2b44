// Every byte of a file is reachable (issue 19 §2): a toolkit cuts a line longer than its
// content budget, ends the answer with a marker naming the column the rest starts at, and
// gives the same as `continuation`; `start_column` reads on from there. Expected values come
// from the bytes written here (helpers.mjs), never from the addon.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, slowTest, test } from '../harness.mjs'
import {
  assertRejectsCode,
  assertThrowsCode,
  checkCutAnswer,
  cutMarker,
  expectedColumnWindow,
  expectedOutput,
  expectedText,
  makeFixture,
  shortCutMarker,
  storedLines,
} from '../helpers.mjs'

const { createAgentToolkit, readFile, readFileSync, readFiles, runToolCall, ToolCatalog } = pkg

const fx = makeFixture()
after(() => fx.cleanup())

const toolkits = []
after(() => toolkits.forEach((toolkit) => toolkit.close()))

/** A toolkit of the fixture workspace with `options`, closed after the suite. */
function toolkitWith(options) {
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, ...options })
  toolkits.push(toolkit)
  return toolkit
}

/** Writes `text` at `rel` and returns its bytes. */
function write(rel, text) {
  fx.write(rel, text)
  return Buffer.from(text)
}

/** `length` bytes of ASCII that never repeat within 26 bytes, so a misplaced cut shows. */
const ascii = (length) => Array.from({ length }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')

/** Characters of 1 to 4 bytes, repeated to at least `length` bytes, so cuts fall inside them. */
function multibyte(length) {
  const unit = 'aé€😀bß中😀' // 1+2+3+4+1+2+3+4 = 20 bytes
  return unit.repeat(Math.ceil(length / Buffer.byteLength(unit)))
}

const SMALL = write('small.txt', 'abcdef\nghi\n')
const CRLF = write('crlf.txt', 'abc\r\ndef\r\n')
const MIXED = write('mixed.txt', 'aé😀b\nend')
// One line of 729 KB (a minified bundle), terminated.
const BUNDLE = write('dist/bundle.min.js', `${ascii(729 * 1024)}\n`)
// A line of characters of every width, not terminated.
const WIDE = write('wide.txt', multibyte(20_000))
// A long line between two short ones.
const MIDDLE = write('middle.txt', `first\n${ascii(5000)}\nthird\n`)
// 300 bytes of ASCII, alone (the marker worked out by hand below), then beside a second line.
const HAND = write('hand.txt', `${ascii(300)}\n`)
write('hand-2.txt', `${ascii(300)}\nend\n`)

describe('start_column: the arguments', () => {
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 4096 })
  after(() => toolkit.close())

  const label = (value) => (typeof value === 'bigint' ? `${value}n` : typeof value === 'number' ? String(value) : JSON.stringify(value))
  for (const bad of [0, -1, 1.5, NaN, Infinity, -Infinity, '3', true, [3], { column: 3 }, 3n]) {
    test(`start_column ${label(bad)} is INVALID_ARGUMENT in every toolkit read`, async () => {
      const input = { path: 'small.txt', start_column: bad }
      const reason = /^INVALID_ARGUMENT: small\.txt: start_column must be an integer >= 1 \(got [^)]+\)$/
      assert.match(assertThrowsCode(() => toolkit.readFileSync(input), 'INVALID_ARGUMENT', 'small.txt').message, reason)
      assert.match((await assertRejectsCode(() => toolkit.readFile(input), 'INVALID_ARGUMENT', 'small.txt')).message, reason)
      const [result] = await toolkit.readFiles([input])
      assert.equal(result.ok, false)
      assert.equal(result.error.code, 'INVALID_ARGUMENT')
      assert.match(result.error.message, reason)
      const ctx = { workspaceRoot: fx.ws }
      assert.match((await assertRejectsCode(() => ToolCatalog.read_file.execute(input, ctx), 'INVALID_ARGUMENT')).message, reason)
    })
  }

  test('null, undefined and 1 are the line start: the same answer as without start_column', async () => {
    const plain = toolkit.readFileSync({ path: 'small.txt' })
    assert.deepEqual(plain, expectedOutput(path.join(fx.ws, 'small.txt'), 'small.txt'))
    for (const start_column of [null, undefined, 1]) {
      assert.deepEqual(toolkit.readFileSync({ path: 'small.txt', start_column }), plain)
      assert.deepEqual(await toolkit.readFile({ path: 'small.txt', start_column }), plain)
    }
  })

  test("the bare readFile, readFileSync and readFiles ignore start_column, as any key the specification does not name", async () => {
    const bundle = path.join(fx.ws, 'dist/bundle.min.js')
    for (const start_column of [5, 0, 'x']) {
      assert.deepEqual(readFileSync(fx.ws, { path: 'small.txt', start_column }), readFileSync(fx.ws, { path: 'small.txt' }))
      const whole = await readFile(fx.ws, { path: 'dist/bundle.min.js', start_column })
      assert.deepEqual(whole, expectedOutput(bundle, 'dist/bundle.min.js'))
      assert.equal(Object.hasOwn(whole, 'continuation'), false)
      const [result] = await readFiles(fx.ws, [{ path: 'small.txt', start_column }])
      assert.deepEqual(result, { ok: true, output: expectedOutput(path.join(fx.ws, 'small.txt'), 'small.txt') })
    }
  })
})

describe('start_column: where the window starts', () => {
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
  after(() => toolkit.close())

  /** Checks a toolkit read from (line, column) against the window the bytes say. */
  function checkWindow(bytes, rel, start_line, start_column, max_lines) {
    const out = toolkit.readFileSync({ path: rel, start_line, start_column, max_lines })
    const expected = expectedColumnWindow(bytes, start_line, start_column, max_lines)
    const what = `${rel} from ${start_line}:${start_column}`
    assert.equal(out.content, expected.content, what)
    assert.equal(out.truncated, expected.truncated, what)
    assert.equal(out.next_start_line, expected.next_start_line, what)
    assert.equal(out.meta.returned_line_count, expected.returned_line_count, what)
    assert.equal(out.meta.line_count, storedLines(bytes).length, what)
    assert.equal(out.meta.byte_length, bytes.length, what)
    assert.equal(Object.hasOwn(out, 'continuation'), false, `${what}: a window not cut has no continuation`)
    return out
  }

  test('a column counts bytes from 1; the rest of the line and the lines after it follow', () => {
    assert.equal(checkWindow(SMALL, 'small.txt', 1, 3).content, 'cdef\nghi\n')
    assert.equal(checkWindow(SMALL, 'small.txt', 1, 3, 1).content, 'cdef\n')
    assert.equal(checkWindow(SMALL, 'small.txt', 2, 2).content, 'hi\n')
    for (let column = 1; column <= 9; column++) checkWindow(SMALL, 'small.txt', 1, column)
  })

  test("a column past the line's end starts at its end: its terminator, then the next lines", () => {
    assert.equal(checkWindow(SMALL, 'small.txt', 1, 7).content, '\nghi\n')
    assert.equal(checkWindow(SMALL, 'small.txt', 1, 2 ** 53 + 2).content, '\nghi\n')
    assert.equal(checkWindow(MIXED, 'mixed.txt', 2, 100).content, '')
    assert.equal(checkWindow(SMALL, 'small.txt', 3, 2).content, '')
  })

  test('a column inside a multi-byte character starts at that character', () => {
    // `aé😀b`: a is column 1, é columns 2-3, 😀 columns 4-7, b column 8.
    const starts = ['aé😀b\nend', 'é😀b\nend', 'é😀b\nend', '😀b\nend', '😀b\nend', '😀b\nend', '😀b\nend', 'b\nend', '\nend']
    starts.forEach((content, i) => assert.equal(checkWindow(MIXED, 'mixed.txt', 1, i + 1).content, content, `column ${i + 1}`))
  })

  test("a leading BOM is no column of line 1, as it is no content: column 1 is the text's first byte", () => {
    write('bom.txt', `\uFEFF${ascii(300)}\n`)
    assert.equal(toolkit.readFileSync({ path: 'bom.txt', start_column: 3 }).content, `${ascii(300).slice(2)}\n`)
    const cut = toolkitWith({ maxContentBytes: 128 }).readFileSync({ path: 'bom.txt' })
    assert.equal(cut.content, `${ascii(34)}\n${cutMarker(1, 35, 300)}`)
  })

  test('a CRLF line: its columns are its bytes before the terminator', () => {
    assert.equal(checkWindow(CRLF, 'crlf.txt', 1, 3).content, 'c\ndef\n')
    assert.equal(checkWindow(CRLF, 'crlf.txt', 1, 4).content, '\ndef\n')
    assert.equal(checkWindow(CRLF, 'crlf.txt', 1, 5).content, '\ndef\n')
  })
})

describe('a cut line: the marker and continuation', () => {
  test('the exact marker, worked out by hand: budget 128, a 300-byte line', () => {
    // 89 bytes of marker text around two 2-digit columns: 93 bytes with its `\n`. 128 - 93 - 1
    // (the `\n` ending the part) leaves 34 bytes of the line: the rest starts at column 35.
    const toolkit = toolkitWith({ maxContentBytes: 128 })
    const first = toolkit.readFileSync({ path: 'hand.txt' })
    assert.equal(
      first.content,
      'abcdefghijklmnopqrstuvwxyzabcdefgh\n' +
        '[line 1 continues at column 35 of 300: call read_file with start_line 1 and start_column 35]\n',
    )
    assert.equal(Buffer.byteLength(first.content), 128)
    assert.deepEqual(first.continuation, { start_line: 1, start_column: 35 })
    assert.deepEqual([first.truncated, first.next_start_line, first.meta.returned_line_count], [true, null, 1])
    assert.deepEqual(first.meta, { ...first.meta, byte_length: 301, line_count: 1 })
    // From column 35, 34 bytes more: the rest starts at column 69.
    const second = toolkit.readFileSync({ path: 'hand.txt', start_line: 1, start_column: 35 })
    assert.equal(
      second.content,
      'ijklmnopqrstuvwxyzabcdefghijklmnop\n' +
        '[line 1 continues at column 69 of 300: call read_file with start_line 1 and start_column 69]\n',
    )
    assert.deepEqual(second.continuation, { start_line: 1, start_column: 69 })
    // Beside a second line, the cut line's answer names it as next_start_line.
    const beside = toolkit.readFileSync({ path: 'hand-2.txt' })
    assert.equal(beside.content, first.content)
    assert.deepEqual([beside.next_start_line, beside.continuation], [2, { start_line: 1, start_column: 35 }])
    assert.equal(beside.meta.line_count, 2)
  })

  test("a CRLF line: the marker's length leaves out its terminator, and the pieces are its text", () => {
    const bytes = write('crlf-long.txt', `${ascii(300)}\r\nend\r\n`)
    const toolkit = toolkitWith({ maxContentBytes: 128 })
    const first = toolkit.readFileSync({ path: 'crlf-long.txt' })
    checkCutAnswer(first, { line: storedLines(bytes)[0], lineNumber: 1, from: 0, budget: 128, lineCount: 2 })
    assert.equal(first.content, `${ascii(34)}\n${cutMarker(1, 35, 300)}`)
    const last = toolkit.readFileSync({ path: 'crlf-long.txt', start_line: 1, start_column: 250 })
    assert.equal(last.content, `${ascii(300).slice(249)}\nend\n`)
  })

  test('a 729 KB one-line file, followed by continuation under a 16 KiB budget, is all of its text', async () => {
    const toolkit = toolkitWith({ maxContentBytes: 16384 })
    const text = await followContinuation((input) => toolkit.readFile(input), BUNDLE, 'dist/bundle.min.js', 16384)
    assert.equal(text, expectedText(BUNDLE))
  })

  test('a line of 1- to 4-byte characters reassembles without a split character, at the smallest budget', async () => {
    const toolkit = toolkitWith({ maxContentBytes: 128 })
    const text = await followContinuation((input) => toolkit.readFileSync(input), WIDE, 'wide.txt', 128)
    assert.equal(text, expectedText(WIDE))
    assert.ok(!text.includes('\uFFFD'))
  })

  test('a cut line in the middle of a file: continuation reads on in it, then next_start_line moves on', () => {
    const toolkit = toolkitWith({ maxContentBytes: 256 })
    const lines = storedLines(MIDDLE)
    const first = toolkit.readFileSync({ path: 'middle.txt' })
    assert.deepEqual([first.content, first.next_start_line, Object.hasOwn(first, 'continuation')], ['first\n', 2, false])
    let out = toolkit.readFileSync({ path: 'middle.txt', start_line: 2, max_lines: 1 })
    let from = 0
    let line = ''
    while (Object.hasOwn(out, 'continuation')) {
      const cut = checkCutAnswer(out, { line: lines[1], lineNumber: 2, from, budget: 256, lineCount: 3 })
      assert.equal(out.next_start_line, 3)
      line += cut.part
      from = cut.rest
      out = toolkit.readFileSync({ path: 'middle.txt', max_lines: 1, ...out.continuation })
    }
    // The last piece: the rest of line 2, and line 3 is next.
    assert.equal(line + out.content, `${lines[1]}\n`)
    assert.deepEqual([out.truncated, out.next_start_line, out.meta.returned_line_count], [true, 3, 1])
    const last = toolkit.readFileSync({ path: 'middle.txt', start_line: out.next_start_line })
    assert.deepEqual([last.content, last.truncated, last.next_start_line], ['third\n', false, null])
  })

  test('readFiles takes start_column and gives continuation, input by input', async () => {
    const toolkit = toolkitWith({ maxContentBytes: 128 })
    const results = await toolkit.readFiles([
      { path: 'small.txt', start_column: 3 },
      { path: 'hand.txt' },
      { path: 'hand.txt', start_line: 1, start_column: 35 },
      { path: 'hand.txt', start_line: 1, start_column: 290 },
      { path: 'small.txt', start_column: 0 },
    ])
    assert.deepEqual(results[0], { ok: true, output: { ...results[0].output, content: 'cdef\nghi\n' } })
    assert.equal(Object.hasOwn(results[0].output, 'continuation'), false)
    const [line] = storedLines(HAND)
    const cut = { line, lineNumber: 1, budget: 128, lineCount: 1 }
    assert.deepEqual(checkCutAnswer(results[1].output, { ...cut, from: 0 }).rest, 34)
    assert.deepEqual(checkCutAnswer(results[2].output, { ...cut, from: 34 }).rest, 68)
    assert.equal(results[3].output.content, `${ascii(300).slice(289)}\n`)
    assert.equal(Object.hasOwn(results[3].output, 'continuation'), false)
    assert.deepEqual([results[4].ok, results[4].error.code], [false, 'INVALID_ARGUMENT'])
  })

  test("a line cut by readFiles' shared budget carries its continuation too", async () => {
    const toolkit = toolkitWith({ maxBatchContentBytes: 300 })
    const [small, hand] = await toolkit.readFiles([{ path: 'small.txt' }, { path: 'hand.txt' }])
    assert.equal(small.output.content, 'abcdef\nghi\n')
    const budget = 300 - Buffer.byteLength(small.output.content)
    const [line] = storedLines(HAND)
    const { rest } = checkCutAnswer(hand.output, { line, lineNumber: 1, from: 0, budget, lineCount: 1 })
    const [next] = await toolkit.readFiles([{ path: 'hand.txt', ...hand.output.continuation }])
    assert.equal(next.output.content, `${ascii(300).slice(rest)}\n`)
  })

  slowTest('a line of 100,000,000 bytes under the smallest budget: the marker may be short, the line still reads on', 30_000, async () => {
    // 10,000 bytes of text, then a hole of NUL bytes (sparse: no disk) to 10^8 bytes, no `\n`.
    const file = fx.write('sparse.log', ascii(10_000))
    const length = 100_000_000
    try {
      fs.truncateSync(file, length)
    } catch (error) {
      if (error.code === 'EFBIG' || error.code === 'ENOSPC') return
      throw error
    }
    const toolkit = toolkitWith({ maxContentBytes: 128, maxFileBytes: Infinity })
    const first = await toolkit.readFile({ path: 'sparse.log' })
    const shown = first.content.indexOf('\n')
    assert.ok(shown > 0 && ascii(10_000).startsWith(first.content.slice(0, shown)))
    // 9-digit numbers leave under 16 bytes of 128 beside the full marker: either form is the contract's.
    const marker = first.content.slice(shown + 1)
    assert.ok([cutMarker(1, shown + 1, length), shortCutMarker(1, shown + 1)].includes(marker), marker)
    assert.ok(Buffer.byteLength(first.content) <= 128)
    assert.deepEqual(first.continuation, { start_line: 1, start_column: shown + 1 })
    assert.deepEqual([first.truncated, first.next_start_line], [true, null])
    const second = await toolkit.readFile({ path: 'sparse.log', ...first.continuation })
    assert.equal(second.content.slice(0, second.content.indexOf('\n')), ascii(10_000).slice(shown, second.continuation.start_column - 1))
    // Deep in the hole: the last 51 bytes fit, and nothing follows.
    const end = await toolkit.readFile({ path: 'sparse.log', start_line: 1, start_column: length - 50 })
    assert.equal(end.content, '\0'.repeat(51))
    assert.deepEqual([end.truncated, end.next_start_line, Object.hasOwn(end, 'continuation')], [false, null, false])
    fs.rmSync(file)
  })

  test('ToolCatalog with a ctx honours start_column and gives continuation', async () => {
    const ctx = { workspaceRoot: fx.ws, maxContentBytes: 128 }
    const first = await ToolCatalog.read_file.execute({ path: 'hand.txt' }, ctx)
    assert.deepEqual(first.continuation, { start_line: 1, start_column: 35 })
    const second = await ToolCatalog.read_file.execute(JSON.stringify({ path: 'hand.txt', ...first.continuation }), ctx)
    assert.deepEqual(second.continuation, { start_line: 1, start_column: 69 })
  })

  test('continuation is absent from every answer that is not a cut line', async () => {
    const toolkit = toolkitWith({ maxContentBytes: 256 })
    const answers = [
      toolkit.readFileSync({ path: 'small.txt' }),
      toolkit.readFileSync({ path: 'middle.txt' }), // a window ended before the long line
      toolkit.readFileSync({ path: 'middle.txt', start_line: 3 }),
      toolkit.readFileSync({ path: 'middle.txt', start_line: 9 }), // past the end
      toolkit.readFileSync({ path: 'hand.txt', start_line: 1, start_column: 200 }), // the rest fits
      await toolkit.readFile({ path: 'small.txt', start_column: 2 }),
      ...(await toolkit.readFiles([{ path: 'small.txt' }])).map((result) => result.output),
    ]
    for (const out of answers) {
      assert.equal(Object.hasOwn(out, 'continuation'), false, JSON.stringify(out))
      assert.equal('continuation' in out, false)
      assert.ok(!JSON.stringify(out).includes('continuation'))
    }
  })

  test("continuation is an own enumerable property: the JSON a model is told carries it", () => {
    const toolkit = toolkitWith({ maxContentBytes: 128 })
    const out = toolkit.readFileSync({ path: 'hand.txt' })
    assert.deepEqual(Object.keys(out.continuation), ['start_line', 'start_column'])
    assert.deepEqual(JSON.parse(JSON.stringify(out)).continuation, { start_line: 1, start_column: 35 })
  })
})

describe('a harness that follows next_start_line alone', () => {
  test('never loops, and every line is in some answer', async () => {
    // Short, cut, short, and a cut last line: the last answer must end the paging.
    const text = `one\n${ascii(3000)}\nthree\n${multibyte(3000)}`
    const bytes = write('paging.txt', text)
    const toolkit = toolkitWith({ maxContentBytes: 512 })
    const seen = new Set()
    const starts = []
    let start = 1
    while (start !== null) {
      assert.ok(starts.length < 10, `looping: ${starts}`)
      starts.push(start)
      const out = await toolkit.readFile({ path: 'paging.txt', start_line: start })
      for (let line = start; line < start + out.meta.returned_line_count; line++) seen.add(line)
      start = out.next_start_line
    }
    assert.deepEqual(starts, [1, 2, 3, 4])
    assert.deepEqual([...seen], [1, 2, 3, 4])
    assert.equal(storedLines(bytes).length, 4)
  })
})

describe("what a model is told about a cut line", () => {
  test("runToolCall's text closes with the call that reads on, once; as JSON the marker is in content", async () => {
    const toolkit = toolkitWith({ maxContentBytes: 128 })
    const result = await runToolCall(toolkit, '{"path":"hand.txt"}')
    assert.equal(result.isError, false)
    const part = HAND.subarray(0, 34).toString()
    assert.equal(
      result.content,
      `hand.txt line 1 of 1 (301 bytes)\n1\t${part}\n[line 1 continues at column 35 of 300; next: start_line=1 start_column=35]\n`,
    )
    const json = await runToolCall(toolkit, '{"path":"hand.txt"}', { resultFormat: 'json' })
    assert.ok(json.content.includes(JSON.stringify(cutMarker(1, 35, 300)).slice(1, -1)), json.content)
    assert.deepEqual(JSON.parse(json.content).continuation, { start_line: 1, start_column: 35 })
    // The model's next call, as the marker says.
    const next = await runToolCall(toolkit, { path: 'hand.txt', start_line: 1, start_column: 35 })
    assert.ok(next.output.content.endsWith(cutMarker(1, 69, 300)))
  })
})

/**
 * Reads `rel` (one line, its bytes `bytes`) with `read` under `budget`, following
 * `continuation` until an answer has none; checks every cut answer and returns the text
 * the answers add up to.
 */
async function followContinuation(read, bytes, rel, budget) {
  const [line] = storedLines(bytes)
  let out = await read({ path: rel })
  let from = 0
  let text = ''
  let calls = 1
  while (Object.hasOwn(out, 'continuation')) {
    const cut = checkCutAnswer(out, { line, lineNumber: 1, from, budget, lineCount: 1 })
    text += cut.part
    from = cut.rest
    out = await read({ path: rel, ...out.continuation })
    calls++
  }
  assert.ok(Buffer.byteLength(out.content) <= budget)
  assert.deepEqual([out.truncated, out.next_start_line, out.meta.returned_line_count], [false, null, 1])
  // Each cut answer fills the budget but for the longest marker of this line, its `\n`, and
  // at most 3 bytes of a character that did not fit.
  const room = budget - 1 - cutMarker(1, line.length, line.length).length - 3
  assert.ok(calls <= Math.ceil(line.length / room) + 1, `${calls} calls`)
  return text + out.content
}
