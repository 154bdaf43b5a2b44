// readFile answered on the JS thread when the kernel proves the read cannot wait, and on
// the pool otherwise: which path a call took is read from the binding's own counters
// (`testHooks.readPathCounts`, see `testHooks()` in helpers.mjs). Files and directories are made cold with the kernel's own tools
// (fsync + posix_fadvise(DONTNEED); vm.drop_caches as root), and checked cold with
// RWF_NOWAIT before the read, by Python's os module, independently of the addon.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { getEventListeners } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pkg from '../../index.js'
import { readFileAnswer } from '../../adapters/mcp-core.js'
import { settingsOf } from '../../lib/run-tool-call.js'
import { after, describe, test } from '../harness.mjs'
import { expectedOutput, makeFixture, testHooks } from '../helpers.mjs'

const { readPathCounts } = testHooks()
const { readFile, createAgentToolkit } = pkg

const PORTABLE = process.env.AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX === '1'

const fx = makeFixture()
after(() => fx.cleanup())

/** ext2/3/4, XFS, Btrfs, tmpfs, F2FS, bcachefs, ZFS, overlayfs (`statfs` magic numbers). */
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0xf2f52010, 0xca451a4e, 0x2fc12fc1, 0x794c7630])

/**
 * Whether reads can be answered on the JS thread here: `openat2` with `RESOLVE_CACHED` offered
 * to this process, the openat2 path (not the portable switch), and a workspace on a local
 * file system (coreutils' `stat -f`). The capability is probed, not inferred from the kernel's
 * version: a seccomp profile may refuse openat2 (older Docker defaults do), and qemu-user may
 * not pass it through (Debian 12's qemu 7.2 answers ENOSYS). The probe is Python's, through
 * ctypes, independently of the addon. It answers for this runtime only when this runtime is
 * not emulated: Python, a child of it, reads which program the kernel runs as its parent
 * (`/proc/<ppid>/exe`): under qemu-user (through binfmt_misc or by hand) that is qemu, not
 * `process.execPath`, and the machines differ too. Then the answer is `null`, and
 * `expectPath` decides from the first read. Without python3, the kernel's version decides
 * (5.12+: `RESOLVE_CACHED`).
 */
function fromMemoryExpectedHere() {
  if (process.platform !== 'linux' || PORTABLE) return false
  const magic = Number.parseInt(execFileSync('stat', ['-f', '-c', '%t', fx.ws], { encoding: 'utf8' }).trim(), 16)
  if (!LOCAL_FILE_SYSTEMS.has(magic)) return false
  const said = python(
    `import ctypes, errno, os, platform, sys
class OpenHow(ctypes.Structure):
    _fields_ = [('flags', ctypes.c_uint64), ('mode', ctypes.c_uint64), ('resolve', ctypes.c_uint64)]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
root = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
os.stat(sys.argv[2], dir_fd=root)  # in the dentry cache now
RESOLVE_NO_SYMLINKS, RESOLVE_BENEATH, RESOLVE_CACHED = 0x04, 0x08, 0x20
how = OpenHow(os.O_PATH | os.O_CLOEXEC, 0, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_CACHED)
fd = libc.syscall(437, root, sys.argv[2].encode(), ctypes.byref(how), ctypes.sizeof(how))  # openat2
code = ctypes.get_errno()
try:
    runs = os.path.realpath('/proc/%d/exe' % os.getppid())  # who runs the runtime: it or qemu
    runs = 'native' if runs == os.path.realpath(sys.argv[3]) else 'emulated'
except OSError:
    runs = 'unknown'
print(platform.machine(), runs, 'yes' if fd >= 0 or code == errno.EAGAIN else 'no:' + errno.errorcode.get(code, str(code)))`,
    fx.ws,
    PROBED,
    process.execPath,
  )
  if (said === null) {
    const [major, minor] = os.release().split('.').map(Number)
    return major > 5 || (major === 5 && minor >= 12)
  }
  const [machine, runs, offered] = said.split(' ')
  if (runs === 'emulated') return null
  const named = (name) => ({ arm64: 'aarch64', amd64: 'x86_64' })[name] ?? name // Bun says arm64
  if (named(machine) !== named(os.machine())) return null
  return offered === 'yes'
}
const PROBED = 'src/small.ts'
fx.write(PROBED, 'export const a = 1\n'.repeat(100))
let FROM_MEMORY_HERE = fromMemoryExpectedHere()
if (FROM_MEMORY_HERE === false) console.log('# reads are expected on the pool here (no openat2 with RESOLVE_CACHED, or not a local file system)')
if (FROM_MEMORY_HERE === null) console.log(`# this runtime (${os.machine()}) is emulated: which path reads take here is told by the first one`)

/**
 * Checks that `read` (from `counted`) took `n` calls to the path expected here: `n` from memory
 * where reads can be answered on the JS thread, else `n` on the pool. Where that could not be
 * probed (`FROM_MEMORY_HERE` null), the first such read decides for the whole file, and must have
 * sent all its calls one way.
 */
function expectPath(read, n) {
  if (FROM_MEMORY_HERE === null) {
    assert.ok(
      [read.fromMemory, read.pool].join() === `${n},0` || [read.fromMemory, read.pool].join() === `0,${n}`,
      `${n} calls split between paths: ${read.fromMemory} from memory, ${read.pool} on the pool`,
    )
    FROM_MEMORY_HERE = read.fromMemory === n
    console.log(`# reads here: ${FROM_MEMORY_HERE ? 'on the JS thread' : 'on the pool'} (observed)`)
  }
  assert.deepEqual([read.fromMemory, read.pool], FROM_MEMORY_HERE ? [n, 0] : [0, n])
}
const small = path.join(fx.ws, PROBED)
const big = fx.write('big.txt', 'x'.repeat(100) + '\n'.repeat(1) + 'y\n'.repeat(150_000))

/**
 * What `call` did: its value, and how many calls it sent to each path. It starts after a
 * pause longer than the JS thread's streak gap (1 ms), so a read before it that a loaded
 * machine made slow cannot send it to the pool.
 */
async function counted(call) {
  await new Promise((resolve) => setTimeout(resolve, 5))
  const before = readPathCounts()
  const value = await call()
  const after = readPathCounts()
  return { value, fromMemory: after.fromMemory - before.fromMemory, pool: after.pool - before.pool }
}

/** Runs Python (for fadvise and RWF_NOWAIT, which Node lacks); `null` without python3. */
function python(source, ...args) {
  try {
    return execFileSync('python3', ['-c', source, ...args], { encoding: 'utf8' }).trim()
  } catch (error) {
    if (error.code === 'ENOENT') return null
    throw error
  }
}

/**
 * Drops `file`'s pages from the page cache; `true` if it is cold now (`RWF_NOWAIT`: EAGAIN).
 * The check reads the last byte: a miss starts readahead there, and the start of the file,
 * which the read under test needs first, must stay cold.
 */
function makeCold(file) {
  const said = python(
    `import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
try:
    os.preadv(fd, [bytearray(1)], os.fstat(fd).st_size - 1, os.RWF_NOWAIT)
    print('warm')
except BlockingIOError:
    print('cold')`,
    file,
  )
  return said === 'cold'
}

describe('readFile answers cached reads on the JS thread', () => {
  test('a warm small file: read here, the same output as the pool gives', async () => {
    const first = await counted(() => readFile(fx.ws, { path: 'src/small.ts' }))
    assert.deepEqual(first.value, expectedOutput(small, 'src/small.ts'))
    const second = await counted(() => readFile(fx.ws, { path: 'src/small.ts', start_line: 50, max_lines: 3 }))
    assert.deepEqual(second.value, expectedOutput(small, 'src/small.ts', 50, 3))
    expectPath(second, 1)
  })

  test('errors known from memory are answered here too, with the same codes', async () => {
    await readFile(fx.ws, { path: 'src/missing.ts' }).catch(() => {}) // caches the absence
    const missing = await counted(() => readFile(fx.ws, { path: 'src/missing.ts' }).catch((error) => error))
    assert.equal(missing.value.code, 'NOT_FOUND')
    assert.equal(missing.value.message, 'NOT_FOUND: src/missing.ts: no such file in the workspace')
    const directory = await counted(() => readFile(fx.ws, { path: 'src' }).catch((error) => error))
    assert.equal(directory.value.code, 'NOT_FILE')
    expectPath({ fromMemory: missing.fromMemory + directory.fromMemory, pool: missing.pool + directory.pool }, 2)
  })

  test('a file of more than 256 KiB is read on the pool', async () => {
    await readFile(fx.ws, { path: 'big.txt' })
    const read = await counted(() => readFile(fx.ws, { path: 'big.txt', start_line: 150_000 }))
    assert.deepEqual(read.value, expectedOutput(big, 'big.txt', 150_000))
    assert.deepEqual([read.fromMemory, read.pool], [0, 1])
  })

  test("a parse is never made here; a toolkit's read of an outline it keeps is read here (issue 38)", async () => {
    const functions = Array.from({ length: 20 }, (_, n) => `def step_${n}(x):\n${'    x = x + 1\n'.repeat(8)}    return x\n`)
    fx.write('steps.py', functions.join('\n'))
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    // The file's last change must be a clock tick old for its outline to be known unchanged.
    await new Promise((resolve) => setTimeout(resolve, 30))
    const parsed = await counted(() => toolkit.view({ path: 'steps.py', outline: true }))
    assert.equal(parsed.value.kind, 'outline')
    assert.deepEqual([parsed.fromMemory, parsed.pool], [0, 1])
    const symbol = await counted(() => toolkit.view({ path: 'steps.py', symbol: 'step_3' }))
    assert.equal(symbol.value.content, functions[3])
    expectPath(symbol, 1)
    const outline = await counted(() => toolkit.view({ path: 'steps.py', outline: true }))
    assert.deepEqual(outline.value, parsed.value)
    expectPath(outline, 1)
  })

  test("a toolkit's later read of a large file it remembers is read here, by its window alone", async () => {
    const wide = fx.write('wide.txt', `${'w'.repeat(999)}\n`.repeat(300)) // 300 KB
    // Whole windows, as the specification's functions give them: no token budget.
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, maxReadTokens: Infinity })
    after(() => toolkit.close())
    // The file's last change must be a clock tick old to be remembered.
    await new Promise((resolve) => setTimeout(resolve, 30))
    await toolkit.readFile({ path: 'wide.txt', max_lines: 1 })
    const read = await counted(() => toolkit.readFile({ path: 'wide.txt', start_line: 150, max_lines: 3 }))
    assert.deepEqual(read.value, expectedOutput(wide, 'wide.txt', 150, 3))
    expectPath(read, 1)
    // A window of more than 256 KiB is still read on the pool.
    const whole = await counted(() => toolkit.readFile({ path: 'wide.txt', max_lines: 300 }))
    assert.deepEqual(whole.value, expectedOutput(wide, 'wide.txt', 1, 300))
    assert.deepEqual([whole.fromMemory, whole.pool], [0, 1])
  })

  test('a file whose pages are not in memory is read on the pool, never here', async () => {
    const cold = fx.write('cold.txt', 'cold line\n'.repeat(10_000)) // 100 KB: first and last pages far apart
    await readFile(fx.ws, { path: 'cold.txt' }) // the path is cached; only the pages go
    if (!makeCold(cold)) {
      console.log('# not run: the file could not be made cold here (tmpfs, or no python3)')
      return
    }
    // On a loaded machine the pages may come back between the probe that found them gone
    // and the read (a CI run saw it once): the file is made cold again, at most twice more.
    // A read done here from pages that are not in memory would do so every time.
    let read
    for (let attempt = 1; attempt <= 3; attempt++) {
      if (attempt > 1 && !makeCold(cold)) break
      read = await counted(() => readFile(fx.ws, { path: 'cold.txt', max_lines: 2 }))
      assert.deepEqual(read.value, expectedOutput(cold, 'cold.txt', 1, 2))
      if (read.pool === 1) break
      console.log(`# attempt ${attempt}: the pages were back in memory before the read`)
    }
    assert.deepEqual([read.fromMemory, read.pool], [0, 1])
  })

  test('a path whose directories are not in the dentry cache is read on the pool', async () => {
    const file = fx.write('deep/er/f.txt', 'f\n')
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, defaultDeny: false, ignoreFiles: false })
    after(() => toolkit.close())
    await toolkit.readFile({ path: 'deep/er/f.txt' })
    // Only root may drop the dentry cache (2: dentries and inodes nothing holds).
    const dropped = python(
      `import os, sys
try:
    open('/proc/sys/vm/drop_caches', 'w').write('2')
except OSError:
    print('no'); sys.exit()
print('dropped')`,
    )
    if (dropped !== 'dropped') {
      console.log('# not run: the dentry cache cannot be dropped here (not root, or no python3)')
      return
    }
    const read = await counted(() => toolkit.readFile({ path: 'deep/er/f.txt' }))
    assert.deepEqual(read.value, expectedOutput(file, 'deep/er/f.txt'))
    assert.deepEqual([read.fromMemory, read.pool], [0, 1])
  })

  test('a burst of concurrent calls goes to the pool whole; a few are read here', async () => {
    const inputs = Array.from({ length: 64 }, (_, i) => ({ path: 'src/small.ts', start_line: i + 1, max_lines: 2 }))
    const burst = await counted(() => Promise.all(inputs.map((input) => readFile(fx.ws, input))))
    burst.value.forEach((output, i) => assert.deepEqual(output, expectedOutput(small, 'src/small.ts', i + 1, 2)))
    assert.deepEqual([burst.fromMemory, burst.pool], [0, 64])
    const few = await counted(() => Promise.all(inputs.slice(0, 3).map((input) => readFile(fx.ws, input))))
    expectPath(few, 3)
  })

  test('reads awaited one after another still let the event loop turn', async () => {
    // Reads here hold the loop for 0.5 ms in a row at most (some 35 small reads), then one
    // goes to the pool and the loop turns: immediates, timers and I/O callbacks all run
    // well before 2,000 reads.
    for (const kind of ['an immediate', 'a timer', 'an I/O callback']) {
      let turned = false
      if (kind === 'an immediate') setImmediate(() => (turned = true))
      if (kind === 'a timer') setTimeout(() => (turned = true), 0)
      if (kind === 'an I/O callback') fs.stat(fx.ws, () => (turned = true))
      let reads = 0
      while (!turned && reads < 2000) {
        await readFile(fx.ws, { path: 'src/small.ts', max_lines: 1 })
        reads++
      }
      assert.ok(turned, `${kind} queued before 2,000 awaited reads never ran among them`)
    }
  })

  test('reads settle under fake timers: nothing here waits for setImmediate or queueMicrotask', async () => {
    const saved = ['setImmediate', 'setTimeout', 'queueMicrotask'].map((name) => [name, globalThis[name]])
    for (const [name] of saved) globalThis[name] = () => {} // a fake timer nobody advances
    try {
      const outputs = []
      for (let i = 1; i <= 100; i++) outputs.push(await readFile(fx.ws, { path: 'src/small.ts', start_line: i, max_lines: 1 }))
      outputs.forEach((output, i) => assert.equal(output.next_start_line, i + 2 > 100 ? null : i + 2))
    } finally {
      for (const [name, original] of saved) globalThis[name] = original
    }
  })

  test('an abort in the same run of JS rejects, and the read is not done', async () => {
    const controller = new AbortController()
    const before = readPathCounts()
    const pending = readFile(fx.ws, { path: 'src/small.ts' }, controller.signal)
    controller.abort()
    await assert.rejects(pending, (error) => error.code === 'ABORT_ERR' && error.name === 'AbortError')
    const after = readPathCounts()
    assert.deepEqual([after.fromMemory - before.fromMemory, after.pool - before.pool], [0, 0])
    // An already-aborted signal rejects as before.
    await assert.rejects(readFile(fx.ws, { path: 'src/small.ts' }, AbortSignal.abort()), { code: 'ABORT_ERR' })
  })

  test("agent-read-file mcp's answer is read at the call when it can be, else as readFile is", async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const answer = readFileAnswer(toolkit, false)
    const request = (id, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_file', arguments: args } })
    await answer(request(1, { path: PROBED })) // the root and the path are cached now
    await new Promise((resolve) => setTimeout(resolve, 5)) // past the streak gap
    const before = readPathCounts()
    const pending = answer(request(2, { path: PROBED }))
    const atTheCall = readPathCounts()
    expectPath({ fromMemory: atTheCall.fromMemory - before.fromMemory, pool: atTheCall.pool - before.pool }, 1)
    assert.match(await pending, /^\{"result":\{"content":\[\{"type":"text","text":"src\/small.ts lines 1-100 of 100 /)
    // A signal that fired, or is not one, is answered as readFile answers it.
    const { mcpAnswer } = settingsOf(toolkit)
    const options = { lineNumbers: true, structuredContent: false }
    await assert.rejects(mcpAnswer({ path: PROBED }, 3, options, AbortSignal.abort()), { code: 'ABORT_ERR' })
    await assert.rejects(mcpAnswer({ path: PROBED }, 4, options, 'stop'), { code: 'INVALID_ARGUMENT', message: /signal must be an AbortSignal/ })
    // A window of a file over 256 KiB that the toolkit does not know yet is the pool's.
    const first = await counted(() => answer(request(5, { path: 'big.txt', max_lines: 2 })))
    assert.deepEqual([first.fromMemory, first.pool], [0, 1])
    assert.match(first.value, /"text":"big.txt lines 1-2 of 150001 \(/)
    toolkit.close()
  })

  test('no abort listener is left on a signal once its calls settle, on either path', async () => {
    // `agent-read-file mcp` hands a settled call's signal to the next call (stdio-transport.js).
    const { signal } = new AbortController()
    const before = readPathCounts()
    await readFile(fx.ws, { path: 'src/small.ts' }, signal)
    // More calls in one run of JS than are read here: the pool reads them all.
    await Promise.all(Array.from({ length: 6 }, () => readFile(fx.ws, { path: 'src/small.ts' }, signal)))
    const after = readPathCounts()
    assert.ok(after.pool - before.pool >= 6, `${after.pool - before.pool} calls on the pool`)
    assert.deepEqual(getEventListeners(signal, 'abort'), [])
  })

  test("a dialect's call is answered here when its whole file is in memory", async () => {
    const { codex, forge } = pkg.dialects
    const ctx = { workspaceRoot: fx.ws }
    fx.write('dialect/five.txt', 'alpha\nbeta\ngamma\ndelta\nepsilon\n')
    const file = path.join(fx.ws, 'dialect/five.txt')
    await codex.execute({ file_path: file }, ctx) // the root and the path are cached now
    const window = await counted(() => codex.execute({ file_path: file, offset: 2, limit: 2 }, ctx))
    assert.deepEqual(window.value, { success: true, content: 'L2: beta\nL3: gamma' })
    expectPath(window, 1)
    const missing = await counted(() => codex.execute({ file_path: path.join(fx.ws, 'dialect/none.txt') }, ctx))
    assert.equal(missing.value.success, false)
    // Forge's head read takes a part of the file, which only the pool reads.
    const head = await counted(() => forge.execute({ path: 'dialect/five.txt', head: 2 }, ctx))
    assert.equal(head.value.content, '     1\talpha\n     2\tbeta') // cat -n lines, joined (dialects/forge.test.mjs)
    assert.deepEqual([head.fromMemory, head.pool], [0, 1])
  })

  test('a toolkit read here is recorded in its ledger', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    await toolkit.readFile({ path: 'src/small.ts' })
    const read = await counted(() => toolkit.readFile({ path: './src/small.ts', max_lines: 1 }))
    expectPath(read, 1)
    assert.equal(toolkit.lastRead('src/small.ts').byte_length, fs.statSync(small).size)
    assert.equal(await toolkit.checkFreshness('src/small.ts'), 'unchanged')
  })
})
