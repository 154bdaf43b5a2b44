// What every OS family's sandbox must agree on, whichever code path runs: trailing slashes
// read as the OS reads them (a regular file named with a trailing `/` or `/.` is "not a
// directory", as with Go's os.Root, cap-std and Node's fs), in the path and in symlink
// texts. `npm run test:portable` runs this file (with the sandbox suites) under
// AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX=1, the portable (macOS) code path on Linux;
// code-path.test.mjs checks that the run really takes that path.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { assertRejectsCode, assertThrowsCode, expectedOutput, makeFixture } from '../helpers.mjs'

const { readFile, readFileSync, createAgentToolkit } = pkg

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
