// The attack corpus: paths and arguments a hostile file could steer a model into sending.
// Oracle for every case: the expected verdict; no output or error message ever holds the
// secret kept outside the workspace; every call settles within its bound; the process lives.
//
// File-system cases run in a child process (any hang would kill the child at its timeout
// instead of wedging the test runner), async with a per-case deadline, then sync.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import pkg from '../../index.js'
import { after, before, describe, test } from '../harness.mjs'
import { INDEX_PATH, makeFixture, runChild } from '../helpers.mjs'

const { readFile, readFileSync } = pkg
const SENTINEL = 'TOP SECRET: outside the workspace'
/** Every call must settle within this, whatever the input. */
const DEADLINE_MS = 2000

const fx = makeFixture()
const evil = `${fx.ws}-evil`
const inside = 'inside\n'
after(() => {
  fx.cleanup()
  fs.rmSync(evil, { recursive: true, force: true })
})

/** name, path (string, or function of the fixture), expected code or { content }. */
function corpus() {
  const long = 'a'.repeat(300)
  const abs = (p) => path.join(fx.ws, p)
  return [
    // Lexical.
    ['parent', '../outside/secret.txt', 'OUTSIDE_WORKSPACE'],
    ['parent in the middle', 'sub/../../outside/secret.txt', 'OUTSIDE_WORKSPACE'],
    ['dot then parent', './../outside/secret.txt', 'OUTSIDE_WORKSPACE'],
    ['deep climb', 'sub/deep/../../../outside/secret.txt', 'OUTSIDE_WORKSPACE'],
    ['bare ..', '..', 'OUTSIDE_WORKSPACE'],
    ['../ with slash', '../', 'OUTSIDE_WORKSPACE'],
    ['many parents', '../'.repeat(40) + 'etc/passwd', 'OUTSIDE_WORKSPACE'],
    ['absolute secret', fx.secret, 'OUTSIDE_WORKSPACE'],
    ['absolute root /', '/', 'OUTSIDE_WORKSPACE'],
    ['//etc/passwd', '//etc/passwd', 'OUTSIDE_WORKSPACE'],
    ['/etc/passwd', '/etc/passwd', 'OUTSIDE_WORKSPACE'],
    ['sibling with the root as prefix, absolute', `${evil}/secret.txt`, 'OUTSIDE_WORKSPACE'],
    ['sibling with the root as prefix, relative', `../${path.basename(evil)}/secret.txt`, 'OUTSIDE_WORKSPACE'],
    ['temporary escape that comes back', `../${path.basename(fx.ws)}/a.txt`, 'OUTSIDE_WORKSPACE'],
    ['absolute with a temporary escape', `${fx.ws}/../${path.basename(fx.ws)}/a.txt`, 'OUTSIDE_WORKSPACE'],
    ['dot segments that stay inside', './sub/./deep/../../a.txt', { content: inside }],
    ['absolute inside', abs('a.txt'), { content: inside }],
    ['NUL byte', 'a.txt\0../../outside/secret.txt', 'INVALID_ARGUMENT'],
    ['backslashes', '..\\outside\\secret.txt', 'NOT_FOUND'],
    ['URL-encoded dots', '%2e%2e/outside/secret.txt', 'NOT_FOUND'],
    ['URL-encoded slashes', '..%2foutside%2fsecret.txt', 'NOT_FOUND'],
    ['full-width dots', '．．/outside/secret.txt', 'NOT_FOUND'],
    ['full-width slash', '..／outside／secret.txt', 'NOT_FOUND'],
    ['one-dot leader look-alike', '\u2024\u2024/outside/secret.txt', 'NOT_FOUND'],
    ['tilde', '~', 'NOT_FOUND'],
    ['tilde path', '~/secret.txt', 'NOT_FOUND'],
    ['command substitution', '$(cat ../outside/secret.txt)', 'NOT_FOUND'],
    ['trailing space', 'a.txt ', 'NOT_FOUND'],
    ['trailing slash on a file (the OS says: not a directory)', 'a.txt/', 'NOT_FOUND'],
    ['300-byte component', long, 'NOT_FOUND'],
    ['5,000-byte path', 'sub/'.repeat(1250), 'NOT_FOUND'],
    ['1 MB path', 'x'.repeat(1 << 20), 'NOT_FOUND'],
    // Symlinks.
    ['absolute link out (file)', 'link-abs-out', 'OUTSIDE_WORKSPACE'],
    ['relative link out (file)', 'link-rel-out', 'OUTSIDE_WORKSPACE'],
    ['absolute link out (dir)', 'dir-abs-out/secret.txt', 'OUTSIDE_WORKSPACE'],
    ['relative link out (dir)', 'dir-rel-out/secret.txt', 'OUTSIDE_WORKSPACE'],
    ['link climbing out from a subdirectory', 'sub/deep/climb', 'OUTSIDE_WORKSPACE'],
    ['chain ending outside', 'chain-out-1', 'OUTSIDE_WORKSPACE'],
    ['chain staying inside', 'chain-in-1', { content: inside }],
    ['absolute link pointing inside', 'link-abs-in', { content: inside }],
    ['relative link inside', 'sub/link-up', { content: inside }],
    ['link to /proc/self/root/...', 'proc-root', 'OUTSIDE_WORKSPACE'],
    ['link to /proc/self/fd/0', 'proc-fd', 'OUTSIDE_WORKSPACE'],
    ['link to /proc/self/cwd/...', 'proc-cwd', 'OUTSIDE_WORKSPACE'],
    ['link to /dev/zero', 'dev-zero', 'OUTSIDE_WORKSPACE'],
    ['self loop', 'loop', 'NOT_FOUND'],
    ['chain longer than the kernel limit', 'long-chain-0', 'NOT_FOUND'],
    ['dangling link inside', 'dangling-in', 'NOT_FOUND'],
    ['dangling link outside', 'dangling-out', 'OUTSIDE_WORKSPACE'],
    ['directory link into a link out', 'dir-in/../link-abs-out', 'OUTSIDE_WORKSPACE'],
    ['link out, then more than PATH_MAX', `dir-rel-out/${'n/'.repeat(2100)}x`, 'OUTSIDE_WORKSPACE'],
    // Special files.
    ['FIFO', 'fifo', 'NOT_FILE'],
    ['link to a FIFO', 'link-fifo', 'NOT_FILE'],
    ['Unix socket', 'sock', 'NOT_FILE'],
    ['directory', 'sub', 'NOT_FILE'],
    ['the root itself', '.', 'NOT_FILE'],
    ['the root by absolute path', fx.ws, 'NOT_FILE'],
    // Sizes.
    ['100 GiB sparse file', 'sparse', 'SIZE_LIMIT_EXCEEDED'],
    ['3 MiB single line', 'one-line', 'SIZE_LIMIT_EXCEEDED'],
    // Content.
    ['invalid UTF-8', 'invalid.txt', { content: 'a\uFFFDb\uFFFD\n' }],
    ['UTF-8 BOM', 'bom.txt', { content: 'bom\n' }],
    ['UTF-16 with BOM', 'utf16.txt', 'BINARY_NOT_SUPPORTED'],
    ['NUL after the first 8 KiB', 'late-nul.txt', { content: 'x'.repeat(8192) + '\0\n' }],
  ]
}

function buildFixture() {
  fs.mkdirSync(evil)
  fs.writeFileSync(`${evil}/secret.txt`, `${SENTINEL}\n`)
  fx.write('a.txt', inside)
  fx.write('sub/deep/.keep', '')
  fx.link('link-abs-out', fx.secret)
  fx.link('link-rel-out', '../outside/secret.txt')
  fx.link('dir-abs-out', fx.outside)
  fx.link('dir-rel-out', '../outside')
  fx.link('sub/deep/climb', '../../../outside/secret.txt')
  fx.link('chain-out-1', 'chain-out-2')
  fx.link('chain-out-2', 'sub/chain-out-3')
  fx.link('sub/chain-out-3', '../../outside/secret.txt')
  fx.link('chain-in-1', 'sub/chain-in-2')
  fx.link('sub/chain-in-2', '../chain-in-3')
  fx.link('chain-in-3', path.join(fx.ws, 'a.txt'))
  fx.link('link-abs-in', path.join(fx.ws, 'a.txt'))
  fx.link('sub/link-up', '../a.txt')
  fx.link('dir-in', 'sub')
  fx.link('proc-root', `/proc/self/root${fx.secret}`)
  fx.link('proc-fd', '/proc/self/fd/0')
  fx.link('proc-cwd', `/proc/self/cwd/${path.relative(process.cwd(), fx.secret)}`)
  fx.link('dev-zero', '/dev/zero')
  fx.link('loop', 'loop')
  for (let i = 0; i < 45; i++) fx.link(`long-chain-${i}`, `long-chain-${i + 1}`)
  fx.link('long-chain-45', 'a.txt')
  fx.link('dangling-in', 'nowhere')
  fx.link('dangling-out', '../outside/nowhere')
  execFileSync('mkfifo', [path.join(fx.ws, 'fifo')])
  fx.link('link-fifo', 'fifo')
  const sparse = fs.openSync(path.join(fx.ws, 'sparse'), 'w')
  fs.ftruncateSync(sparse, 100 * 2 ** 30)
  fs.closeSync(sparse)
  fx.write('one-line', Buffer.alloc(3 * 2 ** 20, 'x'))
  fx.write('invalid.txt', Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82, 0x0a]))
  fx.write('bom.txt', Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('bom\n')]))
  fx.write('utf16.txt', Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00, 0x0a, 0x00]))
  fx.write('late-nul.txt', Buffer.concat([Buffer.alloc(8192, 'x'), Buffer.from([0, 0x0a])]))
}

/** Runs every case async (with a deadline) and then sync in a child process. */
function childSource(casesFile) {
  return `
const fs = require('node:fs')
const { readFile, readFileSync } = require(${JSON.stringify(INDEX_PATH)})
const cases = JSON.parse(fs.readFileSync(${JSON.stringify(casesFile)}, 'utf8'))
const describe = (err) => ({ ok: false, code: err && err.code, message: String(err && err.message), name: err && err.name })
;(async () => {
  const results = []
  for (const c of cases) {
    let started = performance.now()
    let timer
    const deadline = new Promise((resolve) => { timer = setTimeout(() => resolve({ ok: false, code: 'DEADLINE' }), ${DEADLINE_MS}) })
    const asyncResult = await Promise.race([
      readFile(c.root, { path: c.path }).then((value) => ({ ok: true, value }), describe),
      deadline,
    ])
    clearTimeout(timer)
    const asyncMs = performance.now() - started
    let syncResult
    started = performance.now()
    try { syncResult = { ok: true, value: readFileSync(c.root, { path: c.path }) } } catch (err) { syncResult = describe(err) }
    results.push({ async: asyncResult, asyncMs, sync: syncResult, syncMs: performance.now() - started })
  }
  const rss = process.memoryUsage().rss
  console.log(JSON.stringify({ results, rss }))
})()
`
}

describe('attack corpus', () => {
  const cases = corpus()
  let results

  before(async () => {
    buildFixture()
    const server = net.createServer()
    await new Promise((resolve) => server.listen(path.join(fx.ws, 'sock'), resolve))
    const casesFile = path.join(fx.base, 'cases.json')
    fs.writeFileSync(casesFile, JSON.stringify(cases.map(([, p]) => ({ root: fx.ws, path: p }))))
    try {
      ;({ results } = await runChild(fx.base, 'attack-child.cjs', childSource(casesFile), { timeout: 60_000 }))
    } finally {
      server.close()
    }
  })

  test('a character device (mknod, where permitted) is NOT_FILE at once', async () => {
    const device = path.join(fx.ws, 'chardev')
    try {
      execFileSync('mknod', [device, 'c', '1', '3'], { stdio: 'ignore' }) // same numbers as /dev/null
    } catch {
      return // not permitted here: nothing to test
    }
    const started = performance.now()
    await assert.rejects(readFile(fx.ws, { path: 'chardev' }), { code: 'NOT_FILE' })
    assert.throws(() => readFileSync(fx.ws, { path: 'chardev' }), { code: 'NOT_FILE' })
    assert.ok(performance.now() - started < 1000)
  })

  test('has at least 40 cases', () => {
    assert.ok(cases.length >= 40, `${cases.length} cases`)
  })

  cases.forEach(([name, requested, expected], i) => {
    test(name, () => {
      const { async: asyncResult, sync: syncResult, asyncMs, syncMs } = results[i]
      for (const [mode, result, ms] of [
        ['async', asyncResult, asyncMs],
        ['sync', syncResult, syncMs],
      ]) {
        assert.ok(!JSON.stringify(result).includes(SENTINEL), `${mode}: the secret leaked`)
        assert.ok(ms < 1000, `${mode}: took ${ms.toFixed(0)} ms`)
        if (typeof expected === 'string') {
          assert.equal(result.ok, false, `${mode}: expected ${expected}, got content`)
          assert.equal(result.code, expected, `${mode}: ${result.message}`)
          assert.ok(result.message.startsWith(`${expected}: `), result.message)
          assert.ok(result.message.length < 400, `${mode}: message of ${result.message.length} chars`)
        } else {
          assert.equal(result.ok, true, `${mode}: ${result.message}`)
          assert.equal(result.value.content, expected.content)
          assert.ok(!path.isAbsolute(result.value.path), result.value.path)
        }
      }
      assert.deepEqual(asyncResult, syncResult, 'sync and async agree')
      void requested
    })
  })
})

describe('hostile arguments', () => {
  const root = fx.ws
  const throwing = Object.defineProperty({}, 'path', {
    get() {
      throw new Error(SENTINEL)
    },
  })
  const proxy = new Proxy(
    {},
    {
      get() {
        throw new Error('trap')
      },
    },
  )
  let reads = 0
  const shifting = {
    get path() {
      reads += 1
      return reads === 1 ? 'a.txt' : '../outside/secret.txt'
    },
  }
  const args = [
    ['BigInt start_line', { path: 'a.txt', start_line: 1n }, 'INVALID_ARGUMENT'],
    ['BigInt max_lines', { path: 'a.txt', max_lines: 10n }, 'INVALID_ARGUMENT'],
    ['object with toString as path', { path: { toString: () => 'a.txt' } }, 'INVALID_ARGUMENT'],
    ['object with valueOf as start_line', { path: 'a.txt', start_line: { valueOf: () => 1 } }, 'INVALID_ARGUMENT'],
    ['String object as path', { path: new String('a.txt') }, 'INVALID_ARGUMENT'],
    ['Symbol as path', { path: Symbol('a.txt') }, 'INVALID_ARGUMENT'],
    ['throwing getter on path', throwing, 'INVALID_ARGUMENT'],
    ['Proxy whose get throws', proxy, 'INVALID_ARGUMENT'],
    ['2^53+2 start_line', { path: 'a.txt', start_line: 2 ** 53 + 2 }, { content: '' }],
    ['2^32+1 start_line', { path: 'a.txt', start_line: 2 ** 32 + 1 }, { content: '' }],
    ['2^32+1 max_lines', { path: 'a.txt', max_lines: 2 ** 32 + 1 }, 'INVALID_ARGUMENT'],
    ['-0 start_line', { path: 'a.txt', start_line: -0 }, 'INVALID_ARGUMENT'],
    ['Number.MAX_VALUE start_line', { path: 'a.txt', start_line: Number.MAX_VALUE }, { content: '' }],
    ['a function as input', () => 'a.txt', 'INVALID_ARGUMENT'],
  ]

  before(() => {
    if (!fs.existsSync(path.join(root, 'a.txt'))) fx.write('a.txt', inside)
  })

  for (const [name, input, expected] of args) {
    test(name, async () => {
      for (const call of [() => readFile(root, input), async () => readFileSync(root, input)]) {
        let timer
        const deadline = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('deadline')), DEADLINE_MS)
        })
        const result = await Promise.race([call(), deadline]).then(
          (value) => ({ ok: true, value }),
          (err) => ({ ok: false, err }),
        )
        clearTimeout(timer)
        if (typeof expected === 'string') {
          assert.equal(result.ok, false)
          assert.equal(result.err.code, expected, result.err.message)
          assert.ok(!result.err.message.includes(SENTINEL), 'a thrown message must not be echoed')
        } else {
          assert.equal(result.ok, true, result.err && result.err.message)
          assert.equal(result.value.content, expected.content)
        }
      }
    })
  }

  test('each property is read once, so a getter cannot swap the path after a check', async () => {
    reads = 0
    const out = await readFile(root, shifting)
    assert.equal(out.content, inside)
    assert.equal(reads, 1)
  })
})

describe('hostile arguments to the dialects', () => {
  const { dialects } = pkg
  const ctx = { workspaceRoot: fx.ws }
  const throwing = Object.defineProperty({}, 'path', {
    enumerable: true,
    get() {
      throw new Error(SENTINEL)
    },
  })
  const hostile = [
    throwing,
    new Proxy({}, { ownKeys: () => { throw new Error('trap') } }),
    { path: 1n, file_path: 1n },
    { path: 'a.txt', file_path: `${fx.ws}/a.txt`, offset: 2 ** 53 + 2, limit: 2 ** 53, start_line: 2 ** 53, head: 2 ** 60 },
    { path: 'link-abs-out', file_path: `${fx.ws}/link-abs-out` },
    { path: '../outside/secret.txt', file_path: fx.secret },
    { path: 'sub/deep/climb', file_path: `${fx.ws}/sub/deep/climb`, mode: 'indentation' },
    { path: 'proc-root', file_path: `${fx.ws}/proc-root`, tail: 5 },
    { path: 'a.txt\0x', file_path: `${fx.ws}/a.txt\0x` },
    { path: 'x'.repeat(1 << 20), file_path: `/${'x'.repeat(1 << 20)}` },
    { path: 'fifo', file_path: `${fx.ws}/fifo` },
    '{"path": "../outside/secret.txt", "file_path": "/etc/passwd"',
    JSON.stringify({ path: 'dir-abs-out/secret.txt', file_path: `${fx.outside}/secret.txt` }),
    null,
    42,
    [],
  ]

  for (const name of ['codex', 'forge', 'aintern']) {
    test(`${name}: every hostile call settles in time, never throws, never leaks`, async () => {
      for (const args of hostile) {
        let promise
        assert.doesNotThrow(() => {
          promise = dialects[name].execute(args, ctx)
        })
        let timer
        const deadline = new Promise((resolve) => {
          timer = setTimeout(() => resolve('DEADLINE'), DEADLINE_MS)
        })
        const settled = await Promise.race([
          promise.then(
            (value) => JSON.stringify(value),
            (err) => `${err.code}: ${err.message}`,
          ),
          deadline,
        ])
        clearTimeout(timer)
        assert.notEqual(settled, 'DEADLINE', `${name} hung`)
        assert.ok(!settled.includes(SENTINEL), `${name} leaked: ${settled.slice(0, 200)}`)
        if (name !== 'forge') assert.ok(settled.startsWith('{'), `${name} must answer, not reject: ${settled.slice(0, 200)}`)
      }
    })
  }
})
