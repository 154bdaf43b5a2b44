// The addon's life in a process: loaded and unloaded by worker after worker, loaded twice on
// one thread, settling promises under hostile prototypes, and rejecting an aborted read at
// once while the thread pool is stuck. Each case runs in a child process of the current
// runtime (node or bun), because the failures it guards against are crashes, hangs and
// polluted prototypes.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH, makeFixture, runChild } from '../helpers.mjs'

const fx = makeFixture()
after(() => fx.cleanup())
fx.write('a.txt', 'alpha\nbeta\n')
fx.write('big.txt', 'x'.repeat(100_000) + '\n')
// Long enough to be parsed in pieces on threads of their own, with tree-sitter's allocator.
const LONG_FUNCTIONS = 3_000
const body = '    let value = compute(alpha, beta, gamma);\n'.repeat(4)
fx.write('long.rs', Array.from({ length: LONG_FUNCTIONS }, (_, n) => `fn f${n}() {\n${body}}\n\n`).join(''))

/** The addon file `binding.js` loads, found the way Node's `process.dlopen` needs it. */
function addonFile() {
  const dir = path.dirname(INDEX_PATH)
  const name = fs.readdirSync(dir).find((file) => file.endsWith('.node'))
  assert.ok(name, `no .node file next to ${INDEX_PATH}`)
  return path.join(dir, name)
}

const preamble = `
const INDEX = ${JSON.stringify(INDEX_PATH)}
const WS = ${JSON.stringify(fx.ws)}
const ADDON = ${JSON.stringify(addonFile())}
`

describe('worker threads load and unload the addon', () => {
  test('4 workers one after another each load it, read and outline a long file, while the main thread never does', async () => {
    const result = await runChild(
      fx.base,
      'workers-reload.cjs',
      `${preamble}
const { Worker } = require('node:worker_threads')
const source = \`
const { parentPort } = require('node:worker_threads')
const { createAgentToolkit, readFile, readFileSync } = require(\${JSON.stringify(INDEX)})
const toolkit = createAgentToolkit({ workspaceRoot: \${JSON.stringify(WS)} })
Promise.all([readFile(\${JSON.stringify(WS)}, { path: 'a.txt' }), toolkit.view({ path: 'long.rs', outline: true })]).then(([output, outline]) => {
  toolkit.close()
  parentPort.postMessage([output.content, readFileSync(\${JSON.stringify(WS)}, { path: 'a.txt' }).content, outline.total_definitions])
})\`
async function runOne() {
  const worker = new Worker(source, { eval: true })
  // Listened for from the start: a worker can exit before its message is handled.
  const exited = new Promise((resolve) => worker.once('exit', resolve))
  const message = await new Promise((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  await exited
  return message
}
;(async () => {
  const contents = []
  for (let i = 0; i < 4; i++) contents.push(await runOne())
  console.log(JSON.stringify({ contents }))
})()
`,
      { timeout: 30_000 },
    )
    assert.deepEqual(result.contents, Array(4).fill(['alpha\nbeta\n', 'alpha\nbeta\n', LONG_FUNCTIONS]))
  })
})

describe('every promise settles exactly once, and readFile never throws', () => {
  test('a throwing Object.prototype.then getter on some results leaves no read unsettled', async () => {
    const result = await runChild(
      fx.base,
      'hostile-then.cjs',
      `${preamble}
const { readFile } = require(INDEX)
process.on('uncaughtException', () => {})
let throwsLeft = 0
Object.defineProperty(Object.prototype, 'then', {
  configurable: true,
  get() {
    if (throwsLeft > 0 && this && typeof this.content === 'string') {
      throwsLeft--
      throw new Error('hostile then')
    }
    return undefined
  },
})
;(async () => {
  const rounds = []
  for (let round = 0; round < 5; round++) {
    throwsLeft = 3
    let settled = 0, resolved = 0, hostile = 0
    const reads = Array.from({ length: 200 }, () =>
      readFile(WS, { path: 'a.txt' }).then(
        (output) => { settled++; if (output.content === 'alpha\\nbeta\\n') resolved++ },
        (error) => { settled++; if (error.message === 'hostile then') hostile++ },
      ))
    await Promise.race([Promise.all(reads), new Promise((resolve) => setTimeout(resolve, 3000).unref())])
    rounds.push({ settled, resolved, hostile })
  }
  delete Object.prototype.then
  console.log(JSON.stringify({ rounds }))
})()
`,
    )
    // Resolving with a thenable whose \`then\` getter throws rejects with what it threw.
    for (const round of result.rounds) {
      assert.deepEqual(round, { settled: 200, resolved: 197, hostile: 3 }, JSON.stringify(result.rounds))
    }
  })

  test('throwing Error.prototype name and code setters: aborts still reject, never throw', async () => {
    const result = await runChild(
      fx.base,
      'hostile-error.cjs',
      `${preamble}
const { readFile, readFileSync } = require(INDEX)
for (const key of ['name', 'code']) {
  Object.defineProperty(Error.prototype, key, {
    configurable: true,
    get() { return 'Inherited' },
    set() { throw new Error('hostile ' + key + ' setter') },
  })
}
const describe = (error) => ({ own: Object.keys(error).sort(), name: error.name, code: error.code, message: error.message })
;(async () => {
  const out = {}
  try {
    out.preAborted = await readFile(WS, { path: 'a.txt' }, AbortSignal.abort()).then(() => 'resolved', describe)
  } catch (error) {
    out.preAborted = 'threw: ' + error.message
  }
  const controller = new AbortController()
  const reads = Array.from({ length: 16 }, (_, i) =>
    readFile(WS, { path: i % 2 ? 'big.txt' : 'missing.txt' }, controller.signal).then(() => 'resolved', describe))
  controller.abort()
  out.inFlight = await Promise.race([Promise.all(reads), new Promise((resolve) => setTimeout(() => resolve('unsettled'), 3000).unref())])
  try { readFileSync(WS, { path: 'missing.txt' }); out.sync = 'returned' } catch (error) { out.sync = describe(error) }
  console.log(JSON.stringify(out))
})()
`,
    )
    // `message` is an own enumerable property too, so that JSON.stringify keeps it.
    const aborted = {
      own: ['code', 'message', 'name'],
      name: 'AbortError',
      code: 'ABORT_ERR',
    }
    const { message, ...preAborted } = result.preAborted
    assert.deepEqual(preAborted, aborted, JSON.stringify(result))
    assert.match(message, /^ABORT_ERR: a\.txt: /)
    assert.ok(Array.isArray(result.inFlight), JSON.stringify(result.inFlight))
    assert.equal(result.inFlight.length, 16)
    for (const error of result.inFlight) assert.equal(error.code, 'ABORT_ERR', JSON.stringify(error))
    assert.equal(result.sync.code, 'NOT_FOUND', JSON.stringify(result.sync))
    assert.deepEqual(result.sync.own, ['code', 'message'])
  })
})

describe('abort messages', () => {
  test('repeat at most 256 characters of the requested path, like every other message', async () => {
    const { readFile } = await import('../../index.js').then((module) => module.default)
    const long = `${'d/'.repeat(2000)}a.txt`
    const preAborted = await readFile(fx.ws, { path: long }, AbortSignal.abort()).catch((error) => error)
    const controller = new AbortController()
    const inFlight = readFile(fx.ws, { path: long }, controller.signal).catch((error) => error)
    controller.abort()
    for (const error of [preAborted, await inFlight]) {
      assert.equal(error.code, 'ABORT_ERR')
      assert.ok(error.message.length < 400, `${error.message.length} characters`)
      assert.ok(error.message.startsWith(`ABORT_ERR: ${long.slice(0, 256)}…: `), error.message.slice(0, 80))
    }
  })
})

describe('state belongs to each module instance (env), not to the thread', () => {
  test('two instances on one thread: interleaved calls get their own results and memory stays flat', async () => {
    const result = await runChild(
      fx.base,
      'two-instances.cjs',
      `${preamble}
const load = () => { const module = { exports: {} }; process.dlopen(module, ADDON); return module.exports }
const [first, second] = [load(), load()]
;(async () => {
  const burst = () => Promise.all(Array.from({ length: 64 }, (_, i) =>
    (i % 2 ? first : second).readFile(WS, { path: i % 3 ? 'a.txt' : 'missing.txt' }).then(
      (output) => output.content, (error) => error.code)))
  const bursts = []
  for (let i = 0; i < 20; i++) bursts.push(burst())
  const contents = (await Promise.all(bursts)).flat()
  const alternate = (count) => {
    for (let i = 0; i < count; i++) (i % 2 ? first : second).readFileSync(WS, { path: 'a.txt' })
  }
  alternate(20_000)
  global.gc?.()
  const before = process.memoryUsage().rss
  alternate(100_000)
  global.gc?.()
  const grownMiB = (process.memoryUsage().rss - before) / 2 ** 20
  console.log(JSON.stringify({ contents: [...new Set(contents)].sort(), count: contents.length, grownMiB }))
})()
`,
      { timeout: 60_000 },
    )
    assert.equal(result.count, 20 * 64)
    assert.deepEqual(result.contents, ['NOT_FOUND', 'alpha\nbeta\n'])
    // Before per-env state: +33 MiB (Node) and +180 MiB (Bun) over these 100,000 calls.
    assert.ok(result.grownMiB < 15, `RSS grew ${result.grownMiB.toFixed(1)} MiB over 100,000 alternating calls`)
  })
})

describe('an abort rejects at once', () => {
  test('while the thread pool is stuck, an aborted read rejects without waiting for it', async () => {
    const fifos = Array.from({ length: 4 }, (_, i) => path.join(fx.base, `stuck-${i}.fifo`))
    const result = await runChild(
      fx.base,
      'abort-stuck-pool.cjs',
      `${preamble}
const fs = require('node:fs')
const { execFileSync } = require('node:child_process')
const { readFile } = require(INDEX)
const fifos = ${JSON.stringify(fifos)}
for (const fifo of fifos) execFileSync('mkfifo', [fifo])
// Each open of a FIFO with no writer holds one pool thread until a writer comes.
const held = fifos.map((fifo) => fs.promises.open(fifo, 'r'))
// O_RDWR on a FIFO never blocks (Linux) and lets every open of it, made before or after, finish.
const release = () => fifos.map((fifo) => fs.openSync(fifo, fs.constants.O_RDWR))
;(async () => {
  await new Promise((resolve) => setTimeout(resolve, 100))
  const controller = new AbortController()
  let control = 'pending'
  readFile(WS, { path: 'a.txt' }).then(() => { control = 'settled' })
  const started = Date.now()
  const aborted = readFile(WS, { path: 'a.txt' }, controller.signal).then(() => 'resolved', (error) => error.code)
  setTimeout(() => controller.abort(), 50)
  const outcome = await Promise.race([aborted, new Promise((resolve) => setTimeout(() => resolve('still pending'), 2500).unref())])
  const elapsed = Date.now() - started
  const controlThen = control
  const writers = release()
  await Promise.all(held.map((opening) => opening.then((handle) => handle.close(), () => {})))
  for (const fd of writers) fs.closeSync(fd)
  console.log(JSON.stringify({ outcome, elapsed, controlThen }))
})()
`,
      { timeout: 20_000 },
    )
    if (result.controlThen === 'settled') {
      // This runtime does not run Node-API work on the pool that FIFO opens fill (Bun).
      assert.equal(result.outcome, 'ABORT_ERR')
      return
    }
    assert.equal(result.outcome, 'ABORT_ERR', JSON.stringify(result))
    assert.ok(result.elapsed < 2000, `rejected after ${result.elapsed} ms`)
  })
})
