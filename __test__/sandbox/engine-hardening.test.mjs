// Hardening of the engine: non-regular files refused without being opened, the walker's
// bounded work, honest codes for a root that cannot be opened, the root's spelling,
// bounded dialect configurations, and idle cached roots closed.
import assert from 'node:assert/strict'
import { execFile, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH, assertRejectsCode, assertThrowsCode, makeFixture } from '../helpers.mjs'

const { readFile, readFileSync, dialects } = pkg

const fx = makeFixture()
after(() => fx.cleanup())

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `source` (CommonJS) in a child of this runtime under `ulimit -n <limit>`; its last JSON line. */
function runLimitedChild(name, source, limit) {
  const script = path.join(fx.base, name)
  fs.writeFileSync(script, source)
  return new Promise((resolve, reject) => {
    const command = `ulimit -n ${limit} && exec "$0" "$1"`
    execFile('sh', ['-c', command, process.execPath, script], { timeout: 30_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${name}: ${err.message}\nstdout: ${stdout}\nstderr: ${stderr}`))
      const lines = stdout.trim().split('\n')
      resolve(JSON.parse(lines[lines.length - 1]))
    })
  })
}

describe('a FIFO is refused without being opened', () => {
  test('a writer blocked in open() stays blocked after readFileSync and readFile answer NOT_FILE', async () => {
    const fifo = path.join(fx.ws, 'fifo')
    await new Promise((resolve, reject) =>
      execFile('mkfifo', [fifo], (err) => (err ? reject(err) : resolve())),
    )
    const writer = spawn('sh', ['-c', `printf x > "$0"`, fifo], { stdio: 'ignore' })
    let exited = false
    const exit = new Promise((resolve) => writer.on('exit', () => resolve((exited = true))))
    try {
      await sleep(200)
      assert.equal(exited, false, 'the writer should be blocked in open()')
      assertThrowsCode(() => readFileSync(fx.ws, { path: 'fifo' }), 'NOT_FILE', 'fifo')
      await assertRejectsCode(() => readFile(fx.ws, { path: 'fifo' }), 'NOT_FILE', 'fifo')
      await sleep(300)
      assert.equal(exited, false, 'reading the FIFO released its writer')
    } finally {
      // Release the writer by opening the read side ourselves, without waiting.
      const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
      await exit
      fs.closeSync(reader)
    }
  })
})

describe('the walker works within bounded descriptors', () => {
  test('under ulimit -n 256, a 300-level path is NOT_FOUND (not INTERNAL) and other opens still work', async () => {
    const name = 'd'.repeat(20)
    // Built (and removed) by relative steps: the whole path is longer than the kernel accepts.
    const build = 'cd -P "$0" && mkdir deep && cd -P deep && i=0 && while [ $i -lt 300 ]; do mkdir "$1" && cd -P "$1" || exit 1; i=$((i+1)); done && echo bottom > f.txt'
    execFileSync('sh', ['-c', build, fx.ws, name])
    fx.write('other.txt', 'other\n')
    const source = `
      const fs = require('fs');
      const { readFile, readFileSync } = require(${JSON.stringify(INDEX_PATH)});
      const ws = ${JSON.stringify(fx.ws)};
      const deep = 'deep/' + ${JSON.stringify(`${name}/`)}.repeat(300) + 'f.txt';
      const outcome = (err, out) => err ? { code: err.code, message: err.message.slice(0, 80) } : { code: 'OK', content: out.content };
      (async () => {
        const results = {};
        try { results.sync = outcome(null, readFileSync(ws, { path: deep })) } catch (e) { results.sync = outcome(e) }
        try { results.async = outcome(null, await readFile(ws, { path: deep })) } catch (e) { results.async = outcome(e) }
        try { results.other = outcome(null, await readFile(ws, { path: 'other.txt' })) } catch (e) { results.other = outcome(e) }
        const fd = fs.openSync(ws + '/other.txt', 'r'); fs.closeSync(fd);
        results.opened = true;
        console.log(JSON.stringify(results));
      })();
    `
    let results
    try {
      results = await runLimitedChild('deep-child.cjs', source, 256)
    } finally {
      execFileSync('rm', ['-rf', path.join(fx.ws, 'deep')])
    }
    assert.equal(results.sync.code, 'NOT_FOUND', results.sync.message)
    assert.equal(results.async.code, 'NOT_FOUND', results.async.message)
    assert.deepEqual(results.other, { code: 'OK', content: 'other\n' })
    assert.equal(results.opened, true)
  })
})

describe('a root that cannot be opened for lack of descriptors is INTERNAL', () => {
  test('EMFILE while opening a valid, uncached root', async () => {
    const root = path.join(fx.base, 'emfile-root')
    fs.mkdirSync(root)
    fs.writeFileSync(path.join(root, 'a.txt'), 'a\n')
    const source = `
      const fs = require('fs');
      const { readFileSync } = require(${JSON.stringify(INDEX_PATH)});
      const held = [];
      try { for (;;) held.push(fs.openSync(${JSON.stringify(root)}, 'r')) } catch (e) { if (e.code !== 'EMFILE') throw e }
      let result;
      try { readFileSync(${JSON.stringify(root)}, { path: 'a.txt' }); result = { code: 'OK' } } catch (e) { result = { code: e.code, message: e.message } }
      for (const fd of held) fs.closeSync(fd);
      console.log(JSON.stringify(result));
    `
    const result = await runLimitedChild('emfile-child.cjs', source, 64)
    assert.equal(result.code, 'INTERNAL', result.message)
    assert.match(result.message, /Too many open files/)
  })
})

describe('a root spelled <base>/lnk/.. (lnk -> real/sub)', () => {
  const base = path.join(fx.base, 'spelling')
  fs.mkdirSync(path.join(base, 'real', 'sub'), { recursive: true })
  fs.writeFileSync(path.join(base, 'secret.txt'), 'in base, outside the root\n')
  fs.writeFileSync(path.join(base, 'real', 'secret.txt'), 'in real, the root\n')
  fs.symlinkSync(path.join(base, 'real', 'sub'), path.join(base, 'lnk'))
  const root = `${base}/lnk/..`

  test('an absolute path through the lexical spelling is OUTSIDE_WORKSPACE, not another file', async () => {
    const requested = `${base}/secret.txt`
    assertThrowsCode(() => readFileSync(root, { path: requested }), 'OUTSIDE_WORKSPACE', requested)
    await assertRejectsCode(() => readFile(root, { path: requested }), 'OUTSIDE_WORKSPACE', requested)
  })

  test('the canonical spelling and relative paths read the root directory the kernel opened', async () => {
    const canonical = `${fs.realpathSync(path.join(base, 'real'))}/secret.txt`
    assert.equal(readFileSync(root, { path: canonical }).content, 'in real, the root\n')
    assert.equal((await readFile(root, { path: 'secret.txt' })).content, 'in real, the root\n')
  })
})

describe('dialect byte limits are bounded', () => {
  fx.write('cfg.txt', 'hello\n')
  const ctx = (config) => ({ workspaceRoot: fx.ws, config })

  test('codex: max_file_bytes 2^64-1 (a BigInt) or 2^64 (a double) is a clear error, not success', async () => {
    for (const max of [2n ** 64n - 1n, 2 ** 64, JSON.parse('{"n": 18446744073709551615}').n]) {
      const answer = await dialects.codex.execute({ file_path: path.join(fx.ws, 'cfg.txt') }, ctx({ max_file_bytes: max }))
      assert.equal(answer.success, false, `${max}: ${JSON.stringify(answer)}`)
      assert.match(answer.content, /^invalid configuration: /)
    }
    const bigint = await dialects.codex.execute({ file_path: path.join(fx.ws, 'cfg.txt') }, ctx({ max_file_bytes: 2n ** 64n - 1n }))
    assert.match(bigint.content, /max_file_bytes must be at most 536870912 bytes/)
  })

  test('forge: byte limits past 512 MiB are INVALID_ARGUMENT', async () => {
    for (const name of ['max_scan_bytes', 'max_file_read_bytes']) {
      const err = await assertRejectsCode(
        () => dialects.forge.execute({ path: 'cfg.txt' }, ctx({ [name]: 2n ** 64n - 1n })),
        'INVALID_ARGUMENT',
      )
      assert.match(err.message, new RegExp(`${name} must be at most 536870912 bytes`))
    }
  })

  test('a config that cannot be read as JSON is an invalid configuration, never the defaults', async () => {
    const throwing = Object.defineProperty({}, 'max_file_bytes', {
      enumerable: true,
      get() {
        throw new Error('hostile getter')
      },
    })
    const ctxThrowing = Object.defineProperty({ workspaceRoot: fx.ws }, 'config', {
      get() {
        throw new Error('hostile ctx.config')
      },
    })
    const file = path.join(fx.ws, 'cfg.txt')
    for (const [what, context] of [
      ['a throwing property', ctx(throwing)],
      ['a throwing ctx.config getter', ctxThrowing],
    ]) {
      const answer = await dialects.codex.execute({ file_path: file }, context)
      assert.equal(answer.success, false, `${what}: ${JSON.stringify(answer)}`)
      assert.match(answer.content, /^invalid configuration: ctx\.config could not be read/, what)
      const err = await assertRejectsCode(() => dialects.forge.execute({ path: 'cfg.txt' }, context), 'INVALID_ARGUMENT')
      assert.match(err.message, /invalid configuration: ctx\.config could not be read/, what)
    }
    // Absent and null configs still mean the defaults.
    for (const config of [undefined, null]) {
      assert.equal((await dialects.codex.execute({ file_path: file }, ctx(config))).success, true)
    }
  })

  test('forge: head and tail of a sparse 8 GiB file with a large allowed limit answer quickly and bounded', async () => {
    const sparse = path.join(fx.ws, 'sparse.bin')
    fs.closeSync(fs.openSync(sparse, 'w'))
    fs.truncateSync(sparse, 8 * 2 ** 30)
    const started = performance.now()
    for (const args of [{ path: 'sparse.bin', head: 1 }, { path: 'sparse.bin', tail: 1 }]) {
      const answer = await dialects.forge.execute(args, ctx({ max_scan_bytes: 32 * 2 ** 20, max_file_read_bytes: 3000 }))
      assert.equal(answer.binary, true)
      assert.equal(Buffer.from(answer.base64, 'base64').length, 3000)
      assert.equal(answer.byte_length, 8 * 2 ** 30)
    }
    const ms = performance.now() - started
    assert.ok(ms < 10_000, `took ${ms} ms`)
  })
})

describe('an idle cached root is closed', () => {
  test("the root directory's descriptor is gone within 15 s of the last read", async () => {
    const root = path.join(fx.base, 'idle-root')
    fs.mkdirSync(root)
    fs.writeFileSync(path.join(root, 'a.txt'), 'a\n')
    const real = fs.realpathSync(root)
    const rootHeld = () =>
      fs.readdirSync('/proc/self/fd').some((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === real
        } catch {
          return false
        }
      })
    assert.equal(rootHeld(), false)
    assert.equal((await readFile(root, { path: 'a.txt' })).content, 'a\n')
    assert.equal(rootHeld(), true, 'the root should be cached right after a read')
    const started = Date.now()
    while (rootHeld() && Date.now() - started < 15_000) await sleep(100)
    assert.equal(rootHeld(), false, 'the root is still open after 15 s')
  }, 30_000)
})

describe('descriptors kept for reading a file again', () => {
  /** The descriptors of this process open on files in the directory `real`. */
  const heldIn = (real) =>
    fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${real}/`)
      } catch {
        return false
      }
    }).length

  // Linux's own code path keeps them; the portable (macOS) one, which `npm run test:portable`
  // runs here, opens every file afresh.
  const keeps = process.env.AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX !== '1'

  test('a toolkit keeps at most 16 files open between reads, and none once closed', async () => {
    const root = path.join(fx.base, 'kept')
    fs.mkdirSync(root)
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`)
    await sleep(60) // past a timestamp tick: only a file whose last change is settled is kept
    const real = fs.realpathSync(root)
    const toolkit = pkg.createAgentToolkit({ workspaceRoot: root })
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 40; i++) {
        assert.equal(toolkit.readFileSync({ path: `f${i}.txt` }).content, `file ${i}\n`)
        assert.equal((await toolkit.readFile({ path: `f${i}.txt` })).content, `file ${i}\n`)
      }
    }
    const held = heldIn(real)
    assert.ok(held >= (keeps ? 1 : 0) && held <= (keeps ? 16 : 0), `${held} files held open`)
    toolkit.close()
    // A read that went to the pool may let go of the root just after its promise settled.
    const started = Date.now()
    while (heldIn(real) > 0 && Date.now() - started < 5_000) await sleep(20)
    assert.equal(heldIn(real), 0)
  })

  test('a file over 1 MiB, read by pages, is kept open between its pages too', async () => {
    const root = path.join(fx.base, 'kept-large')
    fs.mkdirSync(root)
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${String(i + 1).padStart(40, '.')}\n`)
    fs.writeFileSync(path.join(root, 'big.log'), lines.join(''))
    await sleep(60)
    const real = fs.realpathSync(root)
    const toolkit = pkg.createAgentToolkit({ workspaceRoot: root, maxFileBytes: Infinity })
    for (const start_line of [1, 30_000, 12_345]) {
      const out = toolkit.readFileSync({ path: 'big.log', start_line, max_lines: 3 })
      assert.equal(out.content, lines.slice(start_line - 1, start_line + 2).join(''))
    }
    assert.ok(fs.statSync(path.join(root, 'big.log')).size > 1024 * 1024)
    assert.equal(heldIn(real), keeps ? 1 : 0)
    toolkit.close()
  })

  test('a name given to another file, or a file rewritten, is read as it is now', async () => {
    const root = path.join(fx.base, 'kept-changed')
    fs.mkdirSync(root)
    const file = path.join(root, 'a.txt')
    fs.writeFileSync(file, 'first\n')
    await sleep(60)
    const toolkit = pkg.createAgentToolkit({ workspaceRoot: root })
    for (let i = 0; i < 3; i++) assert.equal(toolkit.readFileSync({ path: 'a.txt' }).content, 'first\n')
    fs.writeFileSync(path.join(root, 'b.txt'), 'other\n')
    fs.renameSync(path.join(root, 'b.txt'), file)
    assert.equal(toolkit.readFileSync({ path: 'a.txt' }).content, 'other\n')
    assert.equal((await toolkit.readFile({ path: 'a.txt' })).content, 'other\n')
    await sleep(60)
    assert.equal(toolkit.readFileSync({ path: 'a.txt' }).content, 'other\n')
    fs.writeFileSync(file, 'again\n') // the same inode, the same size
    assert.equal(toolkit.readFileSync({ path: 'a.txt' }).content, 'again\n')
    fs.unlinkSync(file)
    assertThrowsCode(() => toolkit.readFileSync({ path: 'a.txt' }), 'NOT_FOUND')
    toolkit.close()
  })
})
