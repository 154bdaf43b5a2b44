// `dedupeReads`: lines the model was already given, unchanged since by the ledger's content
// hash, come back as a one-line note; `forgetReads()` (the harness compacted its history)
// makes them come back whole.
import assert from 'node:assert/strict'
import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { expectedModelText, expectedOutput, makeFixture } from '../helpers.mjs'

const { createAgentToolkit, runToolCall } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('')

/** A fresh file of ten lines and a toolkit with `dedupeReads`, closed after the test. */
function setUp(name, options = {}) {
  const file = fx.write(name, TEN)
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, dedupeReads: true, ...options })
  after(() => toolkit.close())
  return { file, toolkit }
}

describe('dedupeReads', () => {
  test('the same window again is a note, with the call that reads on; the output stays whole', async () => {
    const { file, toolkit } = setUp('same.txt')
    const first = await runToolCall(toolkit, { path: 'same.txt', max_lines: 3 })
    assert.equal(first.content, expectedModelText(file, 'same.txt', 1, 3))
    const again = await runToolCall(toolkit, { path: 'same.txt', max_lines: 3 })
    assert.equal(again.content, 'same.txt lines 1-3 unchanged since your last read\n[next: start_line=4]\n')
    assert.deepEqual(again.output, expectedOutput(file, 'same.txt', 1, 3))
  })

  test('reads of one file at once: each is told by the version it read itself, in the order they are answered', async () => {
    // The engine remembers the lines with the content hash of the bytes that very read saw,
    // as its reply is delivered: the first of two reads at once sends the lines, the second
    // is the note (it could not be, across a rewrite between them: its hash would differ).
    const { file, toolkit } = setUp('racing.txt')
    const other = fx.write('other.txt', TEN)
    const note = (name) => `${name} lines 1-3 unchanged since your last read\n[next: start_line=4]\n`
    const [a, b, c] = await Promise.all([
      runToolCall(toolkit, { path: 'racing.txt', max_lines: 3 }),
      runToolCall(toolkit, { path: './racing.txt', max_lines: 3 }),
      runToolCall(toolkit, { path: 'other.txt', max_lines: 3 }),
    ])
    assert.equal(a.content, expectedModelText(file, 'racing.txt', 1, 3))
    assert.equal(b.content, note('racing.txt'))
    assert.equal(c.content, expectedModelText(other, 'other.txt', 1, 3))
    // A batch beside a read changes nothing, and its entries are answered.
    const [beside, batch] = await Promise.all([
      runToolCall(toolkit, { path: 'other.txt', max_lines: 3 }),
      toolkit.readFiles([{ path: 'missing.txt' }, { path: 'racing.txt', max_lines: 1 }]),
    ])
    assert.equal(beside.content, note('other.txt'))
    assert.deepEqual(
      batch.map((result) => (result.ok ? result.output.content : result.error.code)),
      ['NOT_FOUND', 'line 1\n'],
    )
  })

  test('lines inside what was given are a note; a window reaching past it is sent whole', async () => {
    const { file, toolkit } = setUp('spans.txt')
    await runToolCall(toolkit, { path: 'spans.txt', max_lines: 4 })
    await runToolCall(toolkit, { path: 'spans.txt', start_line: 5, max_lines: 2 })
    const inside = await runToolCall(toolkit, { path: 'spans.txt', start_line: 3, max_lines: 4 })
    assert.equal(inside.content, 'spans.txt lines 3-6 unchanged since your last read\n[next: start_line=7]\n')
    const past = await runToolCall(toolkit, { path: 'spans.txt', start_line: 6, max_lines: 5 })
    assert.equal(past.content, expectedModelText(file, 'spans.txt', 6, 5))
    const last = await runToolCall(toolkit, { path: 'spans.txt', start_line: 9 })
    assert.equal(last.content, 'spans.txt lines 9-10 unchanged since your last read\n')
  })

  test('a file changed since (same size, other bytes) is sent whole again', async () => {
    const { toolkit } = setUp('changed.txt')
    await runToolCall(toolkit, { path: 'changed.txt', max_lines: 2 })
    const file = fx.write('changed.txt', TEN.replace('line 1\n', 'LINE 1\n'))
    const reread = await runToolCall(toolkit, { path: 'changed.txt', max_lines: 2 })
    assert.equal(reread.content, 'changed.txt lines 1-2 of 10 (71 bytes)\n1\tLINE 1\n2\tline 2\n[next: start_line=3]\n')
    assert.equal(reread.content, expectedModelText(file, 'changed.txt', 1, 2))
  })

  test('after forgetReads() the content comes back, and is remembered again', async () => {
    const { file, toolkit } = setUp('forget.txt')
    await runToolCall(toolkit, { path: 'forget.txt' })
    toolkit.forgetReads()
    const back = await runToolCall(toolkit, { path: 'forget.txt' })
    assert.equal(back.content, expectedModelText(file, 'forget.txt'))
    const again = await runToolCall(toolkit, { path: 'forget.txt' })
    assert.equal(again.content, 'forget.txt lines 1-10 unchanged since your last read\n')
  })

  test('off by default: a toolkit without it, or another toolkit, sends the lines again', async () => {
    const { file, toolkit } = setUp('off.txt')
    const plain = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => plain.close())
    for (const reader of [plain, plain, toolkit]) {
      assert.equal((await runToolCall(reader, { path: 'off.txt' })).content, expectedModelText(file, 'off.txt'))
    }
    assert.equal(typeof plain.forgetReads, 'function')
  })

  test('a cut line is never a note: its parts are sent each time', async () => {
    fx.write('cut.min.js', `${'x'.repeat(300)}\n`)
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, dedupeReads: true, maxContentBytes: 128 })
    after(() => toolkit.close())
    const first = await runToolCall(toolkit, { path: 'cut.min.js' })
    const again = await runToolCall(toolkit, { path: 'cut.min.js' })
    assert.equal(again.content, first.content)
    assert.ok(again.content.startsWith(`cut.min.js line 1 of 1 (301 bytes)\n1\t${'x'.repeat(34)}\n`), again.content)
  })

  test("resultFormat 'json' is never a note: a harness parsing results gets the output", async () => {
    const { file, toolkit } = setUp('json.txt', { resultFormat: 'json' })
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(JSON.parse((await runToolCall(toolkit, { path: 'json.txt' })).content), expectedOutput(file, 'json.txt'))
    }
  })
})
