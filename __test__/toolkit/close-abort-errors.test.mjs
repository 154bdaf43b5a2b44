// The toolkit as an object with a life: close and dispose, the signal of a toolkit call
// and of ToolCatalog.execute, isReadFileError and errors that survive JSON.stringify.
import assert from 'node:assert/strict'
import fs from 'node:fs'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import {
  ERROR_CODES,
  assertRejectsCode,
  assertThrowsCode,
  expectedOutput,
  makeFixture,
  rejection,
  thrown,
} from '../helpers.mjs'

const { createAgentToolkit, ToolCatalog, isReadFileError, readFile, readFileSync, runToolCall } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
const NOTES = fx.write('notes.txt', 'one\ntwo\nthree\n')

/** Descriptors this process holds open now. */
function openDescriptors() {
  return fs.readdirSync('/proc/self/fd').length
}

describe('toolkit life', () => {
  test('readFileSync reads beneath the bound root', () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    assert.deepEqual(toolkit.readFileSync({ path: 'notes.txt' }), expectedOutput(NOTES, 'notes.txt'))
    assertThrowsCode(() => toolkit.readFileSync({ path: 'missing.txt' }), 'NOT_FOUND', 'missing.txt')
    toolkit.close()
  })

  test('after close every call fails with INVALID_ARGUMENT "toolkit is closed"; close is idempotent', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    assert.equal((await toolkit.readFile({ path: 'notes.txt' })).content, 'one\ntwo\nthree\n')
    toolkit.close()
    toolkit.close()
    const rejected = await assertRejectsCode(() => toolkit.readFile({ path: 'notes.txt' }), 'INVALID_ARGUMENT', 'notes.txt')
    assert.match(rejected.message, /toolkit is closed/)
    const threw = assertThrowsCode(() => toolkit.readFileSync({ path: 'notes.txt' }), 'INVALID_ARGUMENT', 'notes.txt')
    assert.match(threw.message, /toolkit is closed/)
    // Closed wins over a bad input.
    assert.match((await rejection(() => toolkit.readFile(null))).message, /toolkit is closed/)
  })

  test('[Symbol.dispose] closes it', () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    assert.equal(typeof toolkit[Symbol.dispose], 'function')
    toolkit[Symbol.dispose]()
    assert.match(thrown(() => toolkit.readFileSync({ path: 'notes.txt' })).message, /toolkit is closed/)
  })

  test('2,000 toolkits closed explicitly hold no descriptors', async () => {
    const before = openDescriptors()
    for (let i = 0; i < 2000; i++) {
      const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
      if (i % 100 === 0) await toolkit.readFile({ path: 'notes.txt' })
      toolkit.close()
    }
    // Without close, 2,000 root handles stay open until the garbage collector runs.
    assert.ok(openDescriptors() - before < 10, `${openDescriptors() - before} descriptors more than before`)
  })

  // Issue 35 §5: the toolkit keeps descriptors of files it read; a log rotated by a rename
  // over it must not leave one open per deleted version (their disk space stays held).
  test('a log rotated 100 times while it is read holds no descriptor of a deleted version', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    const log = fx.write('churn.log', '')
    const deleted = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === `${log} (deleted)`
        } catch {
          return false // closed since it was listed
        }
      }).length
    for (let round = 0; round < 100; round++) {
      fs.writeFileSync(`${log}.tmp`, `round ${round}\n`)
      fs.renameSync(`${log}.tmp`, log)
      // Only a file whose last change is a timestamp tick (20 ms) old is kept: let it settle.
      await new Promise((resolve) => setTimeout(resolve, 30))
      assert.equal((await toolkit.readFile({ path: 'churn.log' })).content, `round ${round}\n`)
    }
    assert.equal(deleted(), 0)
  })

  test('a read already running when the toolkit closes still finishes', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const pending = toolkit.readFile({ path: 'notes.txt' })
    toolkit.close()
    assert.equal((await pending).content, 'one\ntwo\nthree\n')
  })

  test('options of a call that are not an object are INVALID_ARGUMENT', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    await assertRejectsCode(() => toolkit.readFile({ path: 'notes.txt' }, 'x'), 'INVALID_ARGUMENT', 'notes.txt')
    await assertRejectsCode(
      () => toolkit.readFile({ path: 'notes.txt' }, { signal: 'x' }),
      'INVALID_ARGUMENT',
      'notes.txt',
    )
    toolkit.close()
  })
})

describe('abort', () => {
  test('a toolkit read rejects with AbortError when its signal fires', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const err = await rejection(() => toolkit.readFile({ path: 'notes.txt' }, { signal: AbortSignal.abort() }))
    assert.equal(err.name, 'AbortError')
    assert.equal(err.code, 'ABORT_ERR')
    const controller = new AbortController()
    const pending = toolkit.readFile({ path: 'notes.txt' }, { signal: controller.signal })
    controller.abort()
    assert.equal((await rejection(() => pending)).name, 'AbortError')
    toolkit.close()
  })

  test('ToolCatalog.read_file.execute honours ctx.signal', async () => {
    const execute = ToolCatalog.read_file.execute
    const err = await rejection(() =>
      execute({ path: 'notes.txt' }, { workspaceRoot: fx.ws, signal: AbortSignal.abort() }),
    )
    assert.equal(err.name, 'AbortError')
    const controller = new AbortController()
    const pending = execute({ path: 'notes.txt' }, { workspaceRoot: fx.ws, signal: controller.signal })
    controller.abort()
    assert.equal((await rejection(() => pending)).name, 'AbortError')
    assert.equal((await execute({ path: 'notes.txt' }, { workspaceRoot: fx.ws })).content, 'one\ntwo\nthree\n')
  })

  test('ToolCatalog.read_file.execute takes the JSON text a model sent, as runToolCall does', async () => {
    const execute = ToolCatalog.read_file.execute
    const ctx = { workspaceRoot: fx.ws }
    const text = await execute('{"path":"notes.txt","start_line":2,"max_lines":1}', ctx)
    assert.deepEqual([text.content, text.next_start_line], ['two\n', 3])
    assert.deepEqual(text, await execute({ path: 'notes.txt', start_line: 2, max_lines: 1 }, ctx))
    const notJson = await rejection(() => execute('{"path":', ctx))
    assert.equal(notJson.code, 'INVALID_ARGUMENT')
    assert.match(notJson.message, /^INVALID_ARGUMENT: arguments: not a JSON text \(/)
    const ran = await runToolCall(createAgentToolkit({ workspaceRoot: fx.ws }), '{"path":')
    assert.deepEqual([ran.code, ran.content], [notJson.code, notJson.message], 'one rule for both')
    // A JSON text that is not an object is the read's own INVALID_ARGUMENT.
    assert.equal((await rejection(() => execute('42', ctx))).code, 'INVALID_ARGUMENT')
  })
})

describe('errors', () => {
  test('isReadFileError recognises the package errors and nothing else', async () => {
    const err = await rejection(() => readFile(fx.ws, { path: 'missing.txt' }))
    assert.equal(isReadFileError(err), true)
    assert.equal(isReadFileError(thrown(() => readFileSync(fx.ws, { path: '' }))), true)
    for (const code of ERROR_CODES) assert.equal(isReadFileError(Object.assign(new Error('x'), { code })), true)
    assert.equal(isReadFileError(Object.assign(new Error('x'), { code: 'ENOENT' })), false)
    assert.equal(isReadFileError({ code: 'NOT_FOUND', message: 'not an Error' }), false)
    assert.equal(isReadFileError(new Error('no code')), false)
    assert.equal(isReadFileError(null), false)
    assert.equal(isReadFileError('NOT_FOUND'), false)
  })

  test('JSON.stringify of every kind of error keeps the message and the code', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const closed = createAgentToolkit({ workspaceRoot: fx.ws })
    closed.close()
    const errors = [
      await rejection(() => readFile(fx.ws, { path: 'missing.txt' })),
      thrown(() => readFileSync(fx.ws, { path: 'notes.txt', max_lines: 0 })),
      thrown(() => createAgentToolkit({ workspaceRoot: 'relative' })),
      await rejection(() => toolkit.readFile({ path: 'notes.txt' }, { signal: AbortSignal.abort() })),
      await rejection(() => toolkit.readFile({ path: 'notes.txt' }, 7)),
      await rejection(() => closed.readFile({ path: 'notes.txt' })),
      thrown(() => closed.readFileSync({ path: 'notes.txt' })),
    ]
    toolkit.close()
    for (const err of errors) {
      const json = JSON.parse(JSON.stringify(err))
      assert.equal(json.message, err.message)
      assert.equal(json.code, err.code)
      assert.ok(json.message.startsWith(`${err.code}: `), json.message)
    }
  })
})
