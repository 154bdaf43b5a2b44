// maxContentBytes: an output budget the model cannot blow.
import assert from 'node:assert/strict'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { assertRejectsCode, assertThrowsCode, makeFixture } from '../helpers.mjs'

const { createAgentToolkit, ToolCatalog, readFile, MAX_FILE_BYTES } = pkg

const fx = makeFixture()
after(() => fx.cleanup())

// A minified bundle: one line of exactly 1 MiB (the largest file read), with multi-byte
// characters so that a cut can fall inside one.
const unit = 'var é="€";' // 13 bytes in UTF-8
const bodyBytes = MAX_FILE_BYTES - 1
let minified = unit.repeat(Math.floor(bodyBytes / 13))
minified += 'x'.repeat(bodyBytes - Buffer.byteLength(minified)) + '\n'
fx.write('dist/bundle.min.js', minified)
assert.equal(Buffer.byteLength(minified), MAX_FILE_BYTES)

const lines = Array.from({ length: 50 }, (_, i) => `line ${String(i + 1).padStart(2, '0')} ${'-'.repeat(40)}\n`)
fx.write('lines.txt', lines.join('')) // 50 lines of 49 bytes

const bytes = (text) => Buffer.byteLength(text)

describe('maxContentBytes', () => {
  test('a 1 MiB one-line minified file is cut at a character boundary and marked', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 4096 })
    const out = await toolkit.readFile({ path: 'dist/bundle.min.js' })
    assert.ok(bytes(out.content) <= 4096, `${bytes(out.content)} bytes`)
    const [kept, marker, rest] = out.content.split('\n')
    assert.equal(rest, '')
    assert.ok(minified.startsWith(kept), 'the kept part is the start of the line')
    assert.ok(!kept.includes('\uFFFD'))
    const column = bytes(kept) + 1
    const lineLength = bytes(minified) - 1 // its \n not counted
    const call = `call read_file with start_line 1 and start_column ${column}`
    assert.equal(marker, `[line 1 continues at column ${column} of ${lineLength}: ${call}]`)
    assert.deepEqual(out.continuation, { start_line: 1, start_column: column })
    assert.ok(bytes(out.content) > 4096 - 4, 'the budget is used up to the last whole character')
    assert.equal(out.truncated, true)
    assert.equal(out.next_start_line, null)
    assert.equal(out.meta.returned_line_count, 1)
    assert.equal(out.meta.line_count, 1)
    assert.equal(out.meta.byte_length, MAX_FILE_BYTES)
    toolkit.close()
  })

  test('the window ends at the last whole line that fits', () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 49 * 3 })
    const exact = toolkit.readFileSync({ path: 'lines.txt' })
    assert.equal(exact.content, lines.slice(0, 3).join(''))
    assert.equal(exact.truncated, true)
    assert.equal(exact.next_start_line, 4)
    assert.equal(exact.meta.returned_line_count, 3)
    const next = toolkit.readFileSync({ path: 'lines.txt', start_line: 49 })
    assert.equal(next.content, lines.slice(48).join(''))
    assert.equal(next.truncated, false)
    assert.equal(next.next_start_line, null)
    toolkit.close()
    const short = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 49 * 3 - 1 })
    assert.equal(short.readFileSync({ path: 'lines.txt' }).content, lines.slice(0, 2).join(''))
    short.close()
  })

  test('ToolCatalog takes the budget from ctx; without one nothing changes', async () => {
    const out = await ToolCatalog.read_file.execute(
      { path: 'lines.txt', max_lines: 10 },
      { workspaceRoot: fx.ws, maxContentBytes: 200 },
    )
    assert.equal(out.content, lines.slice(0, 4).join(''))
    assert.equal(out.next_start_line, 5)
    const plain = await ToolCatalog.read_file.execute({ path: 'lines.txt', max_lines: 10 }, { workspaceRoot: fx.ws })
    assert.equal(plain.content, lines.slice(0, 10).join(''))
    const bare = await readFile(fx.ws, { path: 'dist/bundle.min.js' })
    assert.equal(bare.content, minified)
  })

  for (const bad of [0, 127, 1.5, -1, NaN, Infinity, 2 ** 32, '4096', null]) {
    test(`maxContentBytes ${String(bad)} is INVALID_ARGUMENT`, async () => {
      assertThrowsCode(
        () => createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: bad }),
        'INVALID_ARGUMENT',
        'maxContentBytes',
      )
      await assertRejectsCode(
        () => ToolCatalog.read_file.execute({ path: 'lines.txt' }, { workspaceRoot: fx.ws, maxContentBytes: bad }),
        'INVALID_ARGUMENT',
        'maxContentBytes',
      )
    })
  }
})
