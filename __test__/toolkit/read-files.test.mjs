// readFiles: many files in one native call, results in input order, failures isolated.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import {
  INDEX_PATH,
  assertRejectsCode,
  cutMarker,
  expectedOutput,
  makeFixture,
  rejection,
  runChild,
  storedLines,
} from '../helpers.mjs'

const { readFiles, createAgentToolkit, fileVersion, MAX_BATCH_FILES, MAX_BATCH_CONTENT_BYTES, MAX_FILE_BYTES } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
const files = Array.from({ length: 70 }, (_, i) => fx.write(`src/f${i}.ts`, `export const f${i} = ${i}\n`.repeat(i % 5 + 1)))
const NOTES = fx.write('notes.txt', 'one\ntwo\nthree\n')
fx.write('.env', 'SECRET=1\n')

/** `{ ok: false, error }` with `code`, its message naming `requested`. */
function assertFailed(result, code, requested) {
  assert.equal(result.ok, false, JSON.stringify(result))
  assert.deepEqual(Object.keys(result.error).sort(), ['code', 'message'])
  assert.equal(result.error.code, code)
  assert.ok(result.error.message.startsWith(`${code}: ${requested}: `), result.error.message)
}

describe('readFiles', () => {
  test('constants', () => {
    assert.equal(MAX_BATCH_FILES, 64)
    assert.equal(MAX_BATCH_CONTENT_BYTES, 4 * 1024 * 1024)
  })

  test('results come in input order, failures beside successes', async () => {
    const results = await readFiles(fx.ws, [
      { path: 'src/f3.ts' },
      { path: 'missing.txt' },
      { path: 'notes.txt', start_line: 2, max_lines: 1 },
      { path: '../outside/secret.txt' },
      { path: 'src' },
      { path: 'notes.txt', max_lines: 0 },
      null,
      { path: 'src/f1.ts' },
    ])
    assert.equal(results.length, 8)
    assert.deepEqual(results[0], { ok: true, output: expectedOutput(files[3], 'src/f3.ts') })
    assertFailed(results[1], 'NOT_FOUND', 'missing.txt')
    assert.deepEqual(results[2], { ok: true, output: expectedOutput(NOTES, 'notes.txt', 2, 1) })
    assertFailed(results[3], 'OUTSIDE_WORKSPACE', '../outside/secret.txt')
    assertFailed(results[4], 'NOT_FILE', 'src')
    assertFailed(results[5], 'INVALID_ARGUMENT', 'notes.txt')
    assert.equal(results[6].ok, false)
    assert.equal(results[6].error.code, 'INVALID_ARGUMENT')
    assert.deepEqual(results[7], { ok: true, output: expectedOutput(files[1], 'src/f1.ts') })
    // The bare function has no policy.
    const [env] = await readFiles(fx.ws, [{ path: '.env' }])
    assert.equal(env.output.content, 'SECRET=1\n')
  })

  test('MAX_BATCH_FILES inputs are read; one more is INVALID_ARGUMENT', async () => {
    const inputs = files.slice(0, 65).map((_, i) => ({ path: `src/f${i}.ts` }))
    const results = await readFiles(fx.ws, inputs.slice(0, 64))
    assert.equal(results.length, 64)
    results.forEach((result, i) => assert.deepEqual(result.output, expectedOutput(files[i], `src/f${i}.ts`)))
    const err = await assertRejectsCode(() => readFiles(fx.ws, inputs), 'INVALID_ARGUMENT', 'readFiles')
    assert.match(err.message, /65 entries, more than MAX_BATCH_FILES \(64\)/)
    assert.deepEqual(await readFiles(fx.ws, []), [])
  })

  test('bad arguments reject the call', async () => {
    await assertRejectsCode(() => readFiles(fx.ws, { path: 'notes.txt' }), 'INVALID_ARGUMENT', 'readFiles')
    await assertRejectsCode(() => readFiles(fx.ws), 'INVALID_ARGUMENT', 'readFiles')
    await assertRejectsCode(() => readFiles('relative', [{ path: 'notes.txt' }]), 'INVALID_ARGUMENT', 'readFiles')
    const err = await rejection(() => readFiles(fx.ws, [{ path: 'notes.txt' }], AbortSignal.abort()))
    assert.equal(err.name, 'AbortError')
  })

  test('the content of all results together is bounded; the rest answer SIZE_LIMIT_EXCEEDED', async () => {
    // Five one-line files of 1 MiB: four fill the 4 MiB exactly, the fifth does not fit,
    // an empty file after it still does.
    const big = 'x'.repeat(MAX_FILE_BYTES - 1) + '\n'
    for (let i = 0; i < 5; i++) fx.write(`big/b${i}.txt`, big)
    fx.write('big/empty.txt', '')
    const inputs = [0, 1, 2, 3, 4].map((i) => ({ path: `./big/b${i}.txt` }))
    const results = await readFiles(fx.ws, [...inputs, { path: 'big/empty.txt' }])
    for (const result of results.slice(0, 4)) assert.equal(result.output.content, big)
    assertFailed(results[4], 'SIZE_LIMIT_EXCEEDED', './big/b4.txt')
    assert.equal(results[5].ok, true)
  })
})

describe('toolkit.readFiles', () => {
  test('a batch budget is shared in input order: a file past it is narrowed, not refused', async () => {
    // 100 lines of 20 bytes each: 2,000 bytes a file.
    const text = Array.from({ length: 100 }, (_, i) => `line ${String(i + 1).padStart(3, '0')} ..........\n`).join('')
    assert.equal(Buffer.byteLength(text), 2000)
    for (const name of ['n1', 'n2', 'n3', 'n4']) fx.write(`narrow/${name}.txt`, text)
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxBatchContentBytes: 4500 })
    const results = await toolkit.readFiles(['n1', 'n2', 'n3', 'n4'].map((name) => ({ path: `narrow/${name}.txt` })))
    assert.equal(results[0].output.content, text)
    assert.equal(results[1].output.content, text)
    // 500 bytes left: the third file's first 25 lines, and where to go on.
    const third = results[2].output
    assert.equal(third.content, text.slice(0, 500))
    assert.deepEqual([third.truncated, third.next_start_line, third.meta.returned_line_count], [true, 26, 25])
    assert.equal(third.meta.line_count, 100)
    // Nothing left: the fourth says to read it on its own.
    assertFailed(results[3], 'SIZE_LIMIT_EXCEEDED', 'narrow/n4.txt')
    assert.match(results[3].error.message, /read it on its own$/)
    toolkit.close()
  })

  test('a first line longer than what is left is cut and marked within it', async () => {
    fx.write('narrow/long.txt', `${'y'.repeat(5000)}\nend\n`)
    fx.write('narrow/fill.txt', 'f'.repeat(3000))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxBatchContentBytes: 4000 })
    const [fill, long] = await toolkit.readFiles([{ path: 'narrow/fill.txt' }, { path: 'narrow/long.txt' }])
    assert.equal(fill.output.content.length, 3000)
    const cut = long.output
    assert.ok(Buffer.byteLength(cut.content) <= 1000, `${Buffer.byteLength(cut.content)} bytes`)
    const shown = cut.content.indexOf('\n')
    assert.equal(cut.content, `${'y'.repeat(shown)}\n${cutMarker(1, shown + 1, 5000)}`)
    assert.deepEqual([cut.truncated, cut.next_start_line], [true, 2])
    assert.deepEqual(cut.continuation, { start_line: 1, start_column: shown + 1 })
    toolkit.close()
  })

  test('maxBatchContentBytes is an integer from 128 to 4294967295', () => {
    for (const bad of [127, 0, -1, 1.5, 2 ** 32, '4096', null, Number.NaN]) {
      assert.throws(() => createAgentToolkit({ workspaceRoot: fx.ws, maxBatchContentBytes: bad }), (err) => {
        assert.equal(err.code, 'INVALID_ARGUMENT')
        assert.match(err.message, /^INVALID_ARGUMENT: maxBatchContentBytes: options\.maxBatchContentBytes must be an integer from 128 to 4294967295/)
        return true
      })
    }
  })

  test('only the results returned are recorded in the ledger', async () => {
    // Whole windows, so that the batch's 4 MiB runs out: no token budget.
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxReadTokens: Infinity })
    const inputs = [0, 1, 2, 3, 4].map((i) => ({ path: `big/b${i}.txt` }))
    const results = await toolkit.readFiles(inputs)
    assert.equal(results[4].error.code, 'SIZE_LIMIT_EXCEEDED')
    assert.equal(toolkit.lastRead('big/b4.txt'), undefined)
    assert.deepEqual(toolkit.lastRead('big/b3.txt'), await fileVersion(fx.ws, 'big/b3.txt'))
    toolkit.close()
  })

  test('follows the policy and records in the ledger', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const results = await toolkit.readFiles([{ path: 'notes.txt' }, { path: '.env' }, { path: './src/f2.ts' }])
    assert.equal(results[0].output.content, 'one\ntwo\nthree\n')
    assertFailed(results[1], 'POLICY_DENIED', '.env')
    assert.equal(results[2].output.path, 'src/f2.ts')
    assert.deepEqual(toolkit.lastRead('src/f2.ts'), await fileVersion(fx.ws, 'src/f2.ts'))
    assert.equal(toolkit.lastRead('.env'), undefined)
    const aborted = await rejection(() => toolkit.readFiles([{ path: 'notes.txt' }], { signal: AbortSignal.abort() }))
    assert.equal(aborted.name, 'AbortError')
    toolkit.close()
    const closed = await rejection(() => toolkit.readFiles([{ path: 'notes.txt' }]))
    assert.equal(closed.code, 'INVALID_ARGUMENT')
    assert.match(closed.message, /toolkit is closed/)
  })

  test('the budget applies to each file', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 128 })
    const [result] = await toolkit.readFiles([{ path: path.join('big', 'b0.txt') }])
    assert.ok(Buffer.byteLength(result.output.content) <= 128)
    const { start_column: column } = result.output.continuation
    const [line] = storedLines(fs.readFileSync(path.join(fx.ws, 'big', 'b0.txt')))
    assert.ok(result.output.content.endsWith(`\n${cutMarker(1, column, line.length)}`), result.output.content)
    toolkit.close()
  })

  test('64 files of 1 MiB: peak memory bounded by what the call returns, not by what it reads', async () => {
    // The call returns at most 4 MiB of content; before the bound, all 64 windows were read
    // and decoded at once (66 MiB of peak RSS here, Node and Bun; about 20 MiB after).
    const line = `${'é'.repeat(1300)}\n`
    const text = line.repeat(Math.floor(MAX_FILE_BYTES / Buffer.byteLength(line)))
    for (let i = 0; i < 64; i++) fx.write(`wide/w${i}.txt`, text)
    const result = await runChild(
      fx.base,
      'batch-memory.cjs',
      `const { readFiles } = require(${JSON.stringify(INDEX_PATH)})
const ws = ${JSON.stringify(fx.ws)}
const inputs = Array.from({ length: 64 }, (_, i) => ({ path: 'wide/w' + i + '.txt', max_lines: 500 }))
;(async () => {
  await readFiles(ws, [{ path: 'wide/w0.txt', max_lines: 1 }])
  const before = process.resourceUsage().maxRSS
  const results = await readFiles(ws, inputs)
  const after = process.resourceUsage().maxRSS
  const kept = results.filter((r) => r.ok).length
  console.log(JSON.stringify({ grownMiB: (after - before) / 1024, kept, codes: [...new Set(results.map((r) => r.ok ? 'ok' : r.error.code))] }))
})()`,
      { timeout: 60_000 },
    )
    // 4 MiB of content hold four of the ~1 MiB windows and, narrowed, part of a fifth when
    // at least 128 bytes are left; the rest get nothing (SIZE_LIMIT_EXCEEDED).
    const whole = Math.floor(MAX_BATCH_CONTENT_BYTES / Buffer.byteLength(text))
    const left = MAX_BATCH_CONTENT_BYTES - whole * Buffer.byteLength(text)
    assert.deepEqual(result.codes, ['ok', 'SIZE_LIMIT_EXCEEDED'])
    assert.equal(result.kept, whole + (left >= 128 ? 1 : 0))
    assert.ok(result.grownMiB < 40, `peak RSS grew ${result.grownMiB.toFixed(1)} MiB`)
  })
})
