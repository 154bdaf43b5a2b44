// Logs that are still being written (issue 35 §4): the end of a file asked for without knowing
// its line count (a negative start_line, a toolkit's; `--tail` on the command line), and a
// file that grows while it is read answered as it was when the read began, said to be growing,
// where every read of a log appended every few milliseconds was FILE_CHANGED. A writer in a
// child process appends the lines; what each read gives is checked against the lines written.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import pkg from '../../index.js'
import { after, describe, slowTest, test } from '../harness.mjs'
import { assertRejectsCode, makeFixture } from '../helpers.mjs'

const { createAgentToolkit, readFile, runToolCall } = pkg
const CLI = fileURLToPath(new URL('../../bin/agent-read-file.js', import.meta.url))

const fx = makeFixture()
after(() => fx.cleanup())

const GROWING_NOTE = 'the file is growing: this is how it was when the read began; read again for the rest'

/** Line `n` of the logs written here: its number, then padding to 64 bytes with its newline. */
const logLine = (n) => `${`${n} GET /api/items 200`.padEnd(63, '.')}\n`
const logLines = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => logLine(from + i)).join('')

describe('a negative start_line reads the end of a file', () => {
  fx.write('ten.txt', logLines(1, 10))
  fx.write('big.log', logLines(1, 60_000)) // 3.8 MB: found by a chunked scan
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxFileBytes: 1e9 })
  after(() => toolkit.close())

  test('-3 is the last three lines, of a small file and of a large one', async () => {
    const small = await toolkit.readFile({ path: 'ten.txt', start_line: -3 })
    assert.equal(small.content, logLines(8, 10))
    assert.deepEqual([small.truncated, small.next_start_line, small.meta.returned_line_count, small.meta.line_count], [false, null, 3, 10])
    const large = await toolkit.readFile({ path: 'big.log', start_line: -3 })
    assert.equal(large.content, logLines(59_998, 60_000))
    assert.deepEqual([large.truncated, large.next_start_line, large.meta.line_count], [false, null, 60_000])
  })

  test('max_lines still bounds the window, which then reads on towards the end', async () => {
    const out = await toolkit.readFile({ path: 'big.log', start_line: -50, max_lines: 20 })
    assert.equal(out.content, logLines(59_951, 59_970))
    assert.deepEqual([out.truncated, out.next_start_line], [true, 59_971])
  })

  test('more lines than the file has reads it from its first line', async () => {
    assert.equal((await toolkit.readFile({ path: 'ten.txt', start_line: -1000 })).content, logLines(1, 10))
  })

  test('the model is told which lines it was given', async () => {
    const result = await runToolCall(toolkit, { path: 'ten.txt', start_line: -2 })
    assert.equal(result.content, `ten.txt lines 9-10 of 10 (640 bytes)\n9\t${logLine(9)}10\t${logLine(10)}`)
  })

  test('0 and fractions are INVALID_ARGUMENT, saying what start_line takes; the specification takes no negative', async () => {
    for (const start_line of [0, -1.5]) {
      const error = await toolkit.readFile({ path: 'ten.txt', start_line }).catch((e) => e)
      assert.equal(error.code, 'INVALID_ARGUMENT')
      assert.match(error.message, /start_line must be an integer >= 1, or negative to count from the end \(-50: the last 50 lines\)/)
    }
    await assertRejectsCode(() => readFile(fx.ws, { path: 'ten.txt', start_line: -3 }), 'INVALID_ARGUMENT', 'ten.txt')
  })

  test('the command line reads the end with --tail', async () => {
    const stdout = await new Promise((resolve, reject) =>
      execFile(process.execPath, [CLI, 'ten.txt', '--root', fx.ws, '--tail', '2', '--format', 'text'], (err, out) => (err ? reject(err) : resolve(out))),
    )
    assert.equal(stdout, `ten.txt lines 9-10 of 10 (640 bytes)\n9\t${logLine(9)}10\t${logLine(10)}`)
  })
})

// A writer may stall for a second and more on a loaded or emulated machine (Bun under qemu
// wrote in bursts): the reads go on until it has written, up to this long.
const WRITER_GRACE_MS = 30_000

/**
 * A child that appends `logLine(n)` for n from `first` on, one line every `everyMs`, until it
 * is killed; resolves once it has started.
 */
function startWriter(file, first, everyMs) {
  const source = `const fs = require('fs')
const fd = fs.openSync(${JSON.stringify(file)}, 'a')
let n = ${first}
const line = (n) => \`\${\`\${n} GET /api/items 200\`.padEnd(63, '.')}\\n\`
setInterval(() => fs.writeSync(fd, line(n++)), ${everyMs})
console.log('writing')`
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve) => child.stdout.once('data', () => resolve(child)))
}

describe('a log being written', () => {
  // Issue 35 §4: the last 50 lines of a 3.3 MB log read 30 times while it was appended every
  // 2 ms: 0 of 30 answered (FILE_CHANGED), every 10 ms 0 of 30, every 50 ms 30 of 30.
  for (const everyMs of [2, 10]) {
    slowTest(`its last 50 lines are answered on every read while a line is appended every ${everyMs} ms`, 60_000, async () => {
      const rel = `app-${everyMs}.log`
      fx.write(rel, logLines(1, 52_000)) // 3.3 MB
      const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxFileBytes: 1e9 })
      const writer = await startWriter(path.join(fx.ws, rel), 52_001, everyMs)
      try {
        let lastCount = 0
        let firstCount = null
        const deadline = Date.now() + WRITER_GRACE_MS
        for (let read = 0; read < 30 || (lastCount === firstCount && Date.now() < deadline); read++) {
          const out = await toolkit.readFile({ path: rel, start_line: -50 })
          const count = out.meta.line_count
          // The window is the snapshot's last 50 lines, whole, as they were written.
          assert.equal(out.content, logLines(count - 49, count), `read ${read}`)
          assert.equal(out.meta.byte_length, count * 64)
          assert.ok(count >= lastCount, `line_count went back from ${lastCount} to ${count}`)
          assert.ok(out.note === undefined || out.note === null || out.note === GROWING_NOTE, out.note)
          lastCount = count
          firstCount ??= count
          // Reads a line's time apart, as an agent's are: the log grows between them.
          await new Promise((resolve) => setTimeout(resolve, everyMs))
        }
        assert.ok(lastCount > firstCount, 'the writer wrote while the reads went on')
      } finally {
        writer.kill()
        toolkit.close()
      }
    })
  }

  slowTest('a file that grew during its read is answered as it was, and says it is growing', 60_000, async () => {
    // Each read stops on a line that is not whole yet, half a line written by the writer.
    const rel = 'half.log'
    fx.write(rel, logLines(1, 40_000))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxFileBytes: 1e9 })
    after(() => toolkit.close())
    const writer = await startWriter(path.join(fx.ws, rel), 40_001, 1)
    try {
      let grown = 0
      const deadline = Date.now() + WRITER_GRACE_MS
      for (let read = 0; grown === 0 && (read < 20 || Date.now() < deadline); read++) {
        const result = await runToolCall(toolkit, { path: rel, start_line: -1 })
        if (result.content.includes(GROWING_NOTE)) grown++
      }
      assert.ok(grown > 0, 'no read saw the file grow')
    } finally {
      writer.kill()
    }
  })

  test('a log rewritten from its start is read anew, not extended from the old one', async () => {
    const rel = 'rotated.log'
    fx.write(rel, logLines(1, 30_000))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxFileBytes: 1e9 })
    after(() => toolkit.close())
    assert.equal((await toolkit.readFile({ path: rel, start_line: -1 })).content, logLine(30_000))
    // Cut and written again, longer, in place (the same inode), as `> app.log` then writes do.
    const fd = fs.openSync(path.join(fx.ws, rel), 'r+')
    fs.ftruncateSync(fd, 0)
    fs.writeSync(fd, `restarted\n${logLines(1, 31_000)}`, 0)
    fs.closeSync(fd)
    const out = await toolkit.readFile({ path: rel, start_line: 1, max_lines: 2 })
    assert.equal(out.content, `restarted\n${logLine(1)}`)
    assert.equal(out.meta.line_count, 31_001)
  })
})
