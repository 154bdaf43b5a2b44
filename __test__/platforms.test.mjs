// What every OS family's sandbox must agree on, whichever code path runs: trailing slashes
// read as the OS reads them (a regular file named with a trailing `/` or `/.` is "not a
// directory", as with Go's os.Root, cap-std and Node's fs), in the path and in symlink
// texts. `npm run test:portable` runs this file (with the sandbox suites) under
// AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX=1, the portable (macOS) code path on Linux.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../index.js'
import { after, describe, test } from './harness.mjs'
import { assertRejectsCode, assertThrowsCode, expectedOutput, makeFixture } from './helpers.mjs'

const { readFile, readFileSync, createAgentToolkit } = pkg
const PORTABLE = process.env.AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX === '1'

const fx = makeFixture()
after(() => fx.cleanup())
const A = fx.write('a.txt', 'inside a\n')
fx.write('src/b.txt', 'inside b\n')
fx.link('abs-slash', `${A}/`)
fx.link('abs-slash-dot', `${A}/.`)
fx.link('rel-slash', 'a.txt/')
fx.link('rel-slash-dot', 'src/b.txt/.')
fx.link('abs-dir-slash', `${path.join(fx.ws, 'src')}/`)

/** The three ways to read: sync, async, and a toolkit holding the root open. */
async function expectCode(requested, code) {
  assertThrowsCode(() => readFileSync(fx.ws, { path: requested }), code, requested)
  await assertRejectsCode(() => readFile(fx.ws, { path: requested }), code, requested)
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
  await assertRejectsCode(() => toolkit.readFile({ path: requested }), code, requested)
}

describe('a trailing slash on a regular file is NOT_FOUND (not a directory), never a read', () => {
  for (const requested of ['a.txt/', 'a.txt/.', 'a.txt//', 'src/b.txt/', `${A}/`]) {
    test(JSON.stringify(requested), async () => {
      await expectCode(requested, 'NOT_FOUND')
      const err = assertThrowsCode(() => readFileSync(fx.ws, { path: requested }), 'NOT_FOUND')
      assert.match(err.message, /not a directory/)
    })
  }

  test('the same names without the slash are read', () => {
    assert.deepEqual(readFileSync(fx.ws, { path: 'a.txt' }), expectedOutput(A, 'a.txt'))
  })

  test('a directory with a trailing slash is NOT_FILE', async () => {
    await expectCode('src/', 'NOT_FILE')
  })
})

describe('a symlink text ending in / or /. must lead to a directory', () => {
  for (const link of ['abs-slash', 'abs-slash-dot', 'rel-slash', 'rel-slash-dot']) {
    test(`${link} -> ${fs.readlinkSync(path.join(fx.ws, link))} is NOT_FOUND`, async () => {
      await expectCode(link, 'NOT_FOUND')
    })
  }

  test('an absolute link to a directory with a trailing slash leads into it', () => {
    const out = readFileSync(fx.ws, { path: 'abs-dir-slash/b.txt' })
    assert.equal(out.content, 'inside b\n')
    assert.equal(out.path, 'abs-dir-slash/b.txt')
  })
})

describe('the sandbox code path is the one the environment asks for', () => {
  // The portable path holds the root open for reading; Linux's own holds an O_PATH handle.
  const onLinux = process.platform === 'linux'
  ;(onLinux ? test : test.skip)('the root handle is O_PATH exactly when not portable (Linux, via /proc)', () => {
    const O_PATH = 0o10000000
    readFileSync(fx.ws, { path: 'a.txt' }) // the root stays cached, open, for a few seconds
    const real = fs.realpathSync(fx.ws)
    const flags = fs
      .readdirSync('/proc/self/fd')
      .filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === real
        } catch {
          return false
        }
      })
      .map((fd) => parseInt(/flags:\s*([0-7]+)/.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))[1], 8))
    assert.ok(flags.length > 0, 'no open handle on the root')
    for (const flag of flags) assert.equal((flag & O_PATH) !== 0, !PORTABLE, `flags ${flag.toString(8)}`)
  })
})
