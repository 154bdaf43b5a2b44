// readFile calls made together share the thread pool in batches: every promise must still
// get its own result, and a workspace replaced between calls must be seen afresh.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import pkg from '../../index.js'
import { after, describe, slowTest, test } from '../harness.mjs'
import { INDEX_PATH, checkError, expectedOutput, makeFixture } from '../helpers.mjs'

const { readFile, createAgentToolkit } = pkg

/** `{ ok: true, value }` or `{ ok: false, error }`, keeping the error itself. */
function outcome(promise) {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error) => ({ ok: false, error }),
  )
}

describe('bursts of readFile calls', () => {
  const fx = makeFixture()
  after(() => fs.rmSync(fx.base, { recursive: true, force: true }))
  const files = Array.from({ length: 50 }, (_, i) =>
    fx.write(`f${i}.txt`, Array.from({ length: i + 1 }, (_, l) => `file ${i} line ${l + 1}\n`).join('')),
  )

  test('300 calls at once, mixing files, windows, errors and aborts, each settle with their own result', async () => {
    const controller = new AbortController()
    const calls = Array.from({ length: 300 }, (_, i) => {
      const n = i % 50
      switch (i % 6) {
        case 0:
          return { input: { path: `f${n}.txt` }, expect: expectedOutput(files[n], `f${n}.txt`) }
        case 1:
          return {
            input: { path: `./f${n}.txt`, start_line: 2, max_lines: 1 },
            expect: expectedOutput(files[n], `f${n}.txt`, 2, 1),
          }
        case 2:
          return { input: { path: `missing-${i}.txt` }, code: 'NOT_FOUND' }
        case 3:
          return { input: { path: `../outside/secret.txt` }, code: 'OUTSIDE_WORKSPACE' }
        case 4:
          return { input: { path: `f${n}.txt`, max_lines: 0 }, code: 'INVALID_ARGUMENT' }
        default:
          return { input: { path: `f${n}.txt` }, signal: controller.signal, aborted: true }
      }
    })
    const settled = Promise.all(calls.map((call) => outcome(readFile(fx.ws, call.input, call.signal))))
    controller.abort()
    const results = await settled
    results.forEach((result, i) => {
      const call = calls[i]
      if (call.expect) {
        assert.equal(result.ok, true, `call ${i}`)
        assert.deepEqual(result.value, call.expect, `call ${i}`)
      } else if (call.aborted) {
        assert.equal(result.ok, false, `call ${i}`)
        assert.equal(result.error.name, 'AbortError', `call ${i}`)
      } else {
        assert.equal(result.ok, false, `call ${i}`)
        checkError(result.error, call.code, call.input.path)
      }
    })
  })

  test('worker threads and the main thread read at the same time, each with its own results', async () => {
    // Every JS thread has its own env: its own scheduler and its own compiled result maker.
    const script = path.join(fx.base, 'reader-worker.cjs')
    fs.writeFileSync(
      script,
      `const { parentPort, workerData } = require('node:worker_threads')
const { readFile, readFileSync } = require(${JSON.stringify(INDEX_PATH)})
const { ws, names } = workerData
Promise.all(names.map((name) => readFile(ws, { path: name })))
  .then((outputs) => parentPort.postMessage({ outputs, sync: names.map((name) => readFileSync(ws, { path: name })) }))
  .catch((error) => parentPort.postMessage({ error: String(error) }))`,
    )
    const runWorker = (names) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(script, { workerData: { ws: fx.ws, names } })
        worker.once('message', (message) => worker.terminate().then(() => resolve(message)))
        worker.once('error', reject)
      })
    const namesFor = (offset) => Array.from({ length: 40 }, (_, i) => `f${(i + offset) % 50}.txt`)
    const expected = (names) => names.map((name) => expectedOutput(path.join(fx.ws, name), name))
    const [first, second, main] = await Promise.all([
      runWorker(namesFor(0)),
      runWorker(namesFor(17)),
      Promise.all(namesFor(33).map((name) => readFile(fx.ws, { path: name }))),
    ])
    assert.deepEqual(first, { outputs: expected(namesFor(0)), sync: expected(namesFor(0)) })
    assert.deepEqual(second, { outputs: expected(namesFor(17)), sync: expected(namesFor(17)) })
    assert.deepEqual(main, expected(namesFor(33)))
    // The workers' envs are gone; the main thread's reads are unaffected.
    assert.deepEqual(await readFile(fx.ws, { path: 'f3.txt' }), expectedOutput(files[3], 'f3.txt'))
  })

  test('a workspace deleted and created again at the same path is read afresh', async () => {
    const base = fs.mkdtempSync(`${fx.base}/again-`)
    const ws = `${base}/ws`
    fs.mkdirSync(ws)
    fs.writeFileSync(`${ws}/a.txt`, 'first\n')
    assert.equal((await readFile(ws, { path: 'a.txt' })).content, 'first\n')
    fs.rmSync(ws, { recursive: true })
    fs.mkdirSync(ws)
    fs.writeFileSync(`${ws}/a.txt`, 'second\n')
    assert.equal((await readFile(ws, { path: 'a.txt' })).content, 'second\n')
    fs.renameSync(ws, `${base}/old`)
    fs.mkdirSync(ws)
    fs.writeFileSync(`${ws}/a.txt`, 'third\n')
    assert.equal((await readFile(ws, { path: 'a.txt' })).content, 'third\n')
    assert.equal(pkg.readFileSync(ws, { path: 'a.txt' }).content, 'third\n')
  })

  test('a toolkit keeps reading the directory it opened, even after a rename', async () => {
    const base = fs.mkdtempSync(`${fx.base}/held-`)
    fs.mkdirSync(`${base}/ws`)
    fs.writeFileSync(`${base}/ws/a.txt`, 'held\n')
    const toolkit = createAgentToolkit({ workspaceRoot: `${base}/ws` })
    fs.renameSync(`${base}/ws`, `${base}/moved`)
    assert.equal((await toolkit.readFile({ path: 'a.txt' })).content, 'held\n')
  })
})

// Issue 35 §2: media decodes can hold a pool thread for seconds. Four of them in flight used
// to hold all four of libuv's threads, and a text read waited for the first to end.
describe('media decodes beside text reads', () => {
  const fx = makeFixture()
  after(() => fs.rmSync(fx.base, { recursive: true, force: true }))

  test('a text read sent after four slow decodes is answered before any of them', async () => {
    const { image } = await import('../media.mjs')
    // 6000x6000 (36 megapixels): its decode and downscale take hundreds of milliseconds.
    fx.write('big.png', await image(6000, 6000, 'png'))
    fx.write('notes.txt', 'one\ntwo\n')
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    const settled = []
    const views = []
    for (let i = 0; i < 4; i++) {
      views.push(toolkit.view({ path: 'big.png' }).then((output) => settled.push(`view ${i}`) && output))
      // Each view reads the file as text first, then decodes it, each call on its own (as a
      // model's calls come): let each decode start before the next view.
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    assert.deepEqual(settled, [], 'a decode was over before the text read was sent')
    // A batch is always read on the pool, never answered on the JS thread.
    const [read] = await toolkit.readFiles([{ path: 'notes.txt' }])
    // A decode that ended with it would be settled by the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(settled, [], 'a decode had ended when the text read was answered')
    assert.deepEqual(read, { ok: true, output: await toolkit.readFile({ path: 'notes.txt' }) })
    await Promise.all(views)
    assert.equal(settled.length, 4)
  })

  // Each env decoded one image at a time, but every worker is an env of its own: four workers
  // decoding held all four of libuv's threads and four decodes' memory. One decode now runs
  // in the whole process; the others wait off the pool, each worker kept alive until its turn.
  // Four decodes one after another, and four workers started: seconds, more on a loaded machine.
  slowTest('the decodes of four workers run one at a time, and a text read is answered before any', 120_000, async () => {
    const { decoded, image } = await import('../media.mjs')
    fx.write('wide.png', await image(6000, 6000, 'png'))
    fx.write('notes.txt', 'one\ntwo\n')
    const script = path.join(fx.base, 'view-worker.cjs')
    fs.writeFileSync(
      script,
      `const { parentPort, workerData } = require('node:worker_threads')
const { createAgentToolkit } = require(${JSON.stringify(INDEX_PATH)})
const toolkit = createAgentToolkit({ workspaceRoot: workerData.ws })
parentPort.once('message', () =>
  toolkit.view({ path: 'wide.png' }).then(
    (output) => parentPort.postMessage({ ended: Date.now(), data: output.parts[0].data }),
    (error) => parentPort.postMessage({ ended: Date.now(), error: String(error) }),
  ),
)
parentPort.postMessage('ready')`,
    )
    const workers = Array.from({ length: 4 }, () => new Worker(script, { workerData: { ws: fx.ws } }))
    after(() => Promise.all(workers.map((worker) => worker.terminate())))
    const answer = (worker) => new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    await Promise.all(workers.map(answer))
    const views = workers.map(answer)
    const go = Date.now()
    for (const worker of workers) worker.postMessage('go')
    // Let the workers' text reads pass and their decodes start.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    // A batch is always read on the pool, never answered on the JS thread.
    const sent = Date.now()
    const [read] = await toolkit.readFiles([{ path: 'notes.txt' }])
    const waited = Date.now() - sent
    assert.deepEqual(read, { ok: true, output: await toolkit.readFile({ path: 'notes.txt' }) })
    const ends = await Promise.all(views)
    for (const end of ends) {
      assert.equal(end.error, undefined)
      assert.deepEqual(await decoded(end.data), { format: 'png', width: 1072, height: 1072 })
    }
    // Behind decodes holding every thread, the read waits about as long as the first decode
    // takes; beside one decode, a few milliseconds.
    const times = ends.map((end) => end.ended - go).sort((a, b) => a - b)
    assert.ok(waited < times[0] / 2, `the text read waited ${waited} ms; the first view took ${times[0]} ms`)
    // One after another, the last ends three decodes after the first; side by side, with it.
    assert.ok(times[3] - times[0] >= times[0], `the views ended at ${times.join(', ')} ms`)
  })
})
