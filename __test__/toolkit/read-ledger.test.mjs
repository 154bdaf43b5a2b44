// The read ledger: fileVersion, toolkit.lastRead and toolkit.checkFreshness.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { assertRejectsCode, assertThrowsCode, expectedMtimeMs, makeFixture, rejection } from '../helpers.mjs'

const { createAgentToolkit, fileVersion } = pkg

const fx = makeFixture()
after(() => fx.cleanup())

const HASH = /^xxh3-128-keyed:[0-9a-f]{32}$/

/** The version the contract says `rel` has, all but the hash, from the bytes on disk. */
function expectedVersion(rel, facts) {
  const file = path.join(fx.ws, rel)
  return { path: rel, byte_length: fs.statSync(file).size, mtime_ms: expectedMtimeMs(file), ...facts }
}

function withoutHash({ hash, ...rest }) {
  assert.match(hash, HASH)
  return rest
}

describe('fileVersion', () => {
  const cases = [
    ['lf.txt', 'a\nb\n', { line_ending: 'lf', bom: false, valid_utf8: true }],
    ['crlf.txt', 'a\r\nb\r\n', { line_ending: 'crlf', bom: false, valid_utf8: true }],
    ['mixed.txt', 'a\r\nb\n', { line_ending: 'mixed', bom: false, valid_utf8: true }],
    ['none.txt', 'no newline', { line_ending: 'none', bom: false, valid_utf8: true }],
    ['bom.txt', Buffer.from('\uFEFFx\n'), { line_ending: 'lf', bom: true, valid_utf8: true }],
    ['latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), { line_ending: 'lf', bom: false, valid_utf8: false }],
  ]
  for (const [rel, data, facts] of cases) {
    test(`${rel}: ${JSON.stringify(facts)}`, async () => {
      fx.write(rel, data)
      assert.deepEqual(withoutHash(await fileVersion(fx.ws, rel)), expectedVersion(rel, facts))
    })
  }

  test('the hash follows the bytes, not the name or the time', async () => {
    fx.write('h1.txt', 'same bytes\n')
    fx.write('h2.txt', 'same bytes\n')
    fx.write('h3.txt', 'same bytez\n')
    const [a, b, c] = await Promise.all(['h1.txt', './h2.txt', 'h3.txt'].map((p) => fileVersion(fx.ws, p)))
    assert.equal(a.hash, b.hash)
    assert.notEqual(a.hash, c.hash)
    assert.equal(b.path, 'h2.txt')
  })

  test('fails as readFile does, with the contract codes, and honours its signal', async () => {
    await assertRejectsCode(() => fileVersion(fx.ws, 'missing.txt'), 'NOT_FOUND', 'missing.txt')
    await assertRejectsCode(
      () => fileVersion(fx.ws, '../outside/secret.txt'),
      'OUTSIDE_WORKSPACE',
      '../outside/secret.txt',
    )
    await assertRejectsCode(() => fileVersion(fx.ws, 42), 'INVALID_ARGUMENT')
    await assertRejectsCode(() => fileVersion('relative', 'lf.txt'), 'INVALID_ARGUMENT', 'lf.txt')
    const err = await rejection(() => fileVersion(fx.ws, 'h1.txt', AbortSignal.abort()))
    assert.equal(err.name, 'AbortError')
  })
})

describe('lastRead and checkFreshness', () => {
  test('lastRead is what the last successful read saw, under any spelling', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    fx.write('src/a.ts', 'export const a = 1\n')
    assert.equal(toolkit.lastRead('src/a.ts'), undefined)
    await toolkit.readFile({ path: './src/a.ts' })
    const seen = await fileVersion(fx.ws, 'src/a.ts')
    for (const spelling of ['src/a.ts', './src/a.ts', 'src//a.ts', path.join(fx.ws, 'src/a.ts')]) {
      assert.deepEqual(toolkit.lastRead(spelling), seen, spelling)
    }
    // A failed read records nothing; a sync read records too.
    await rejection(() => toolkit.readFile({ path: 'src/missing.ts' }))
    assert.equal(toolkit.lastRead('src/missing.ts'), undefined)
    toolkit.readFileSync({ path: 'lf.txt' })
    assert.deepEqual(toolkit.lastRead('lf.txt'), await fileVersion(fx.ws, 'lf.txt'))
    assert.equal(toolkit.lastRead('../outside/secret.txt'), undefined)
    assertThrowsCode(() => toolkit.lastRead(7), 'INVALID_ARGUMENT')
    toolkit.close()
    assert.match(assertThrowsCode(() => toolkit.lastRead('lf.txt'), 'INVALID_ARGUMENT').message, /toolkit is closed/)
  })

  test('a read whose signal fired first is not recorded, nor a readFiles call aborted', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const files = Array.from({ length: 8 }, (_, i) => fx.write(`aborted/f${i}.txt`, `${i}\n`))
    const names = files.map((file) => path.relative(fx.ws, file))
    const controller = new AbortController()
    // Eight calls in one run of JS go to the pool; once they are there, the signal fires.
    const reads = names.map((name) => toolkit.readFile({ path: name }, { signal: controller.signal }))
    const batch = toolkit.readFiles(names.map((name) => ({ path: name })), { signal: controller.signal })
    await null
    controller.abort()
    for (const read of [...reads, batch]) await assert.rejects(read, { code: 'ABORT_ERR' })
    // Let the pool finish those reads (their results are discarded), then look.
    await toolkit.readFile({ path: 'lf.txt' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    for (const name of names) assert.equal(toolkit.lastRead(name), undefined, name)
    assert.notEqual(toolkit.lastRead('lf.txt'), undefined)
    toolkit.close()
  })

  test('unread, unchanged, changed, deleted', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const file = fx.write('edit/me.txt', 'version 1\n')
    assert.equal(await toolkit.checkFreshness('edit/me.txt'), 'unread')
    await toolkit.readFile({ path: 'edit/me.txt' })
    assert.equal(await toolkit.checkFreshness('./edit/me.txt'), 'unchanged')
    fs.writeFileSync(file, 'version 2\n')
    assert.equal(await toolkit.checkFreshness('edit/me.txt'), 'changed')
    await toolkit.readFile({ path: 'edit/me.txt' })
    assert.equal(await toolkit.checkFreshness('edit/me.txt'), 'unchanged')
    fs.rmSync(file)
    assert.equal(await toolkit.checkFreshness('edit/me.txt'), 'deleted')
    toolkit.close()
  })

  test('1,000 rapid same-size rewrites: not one missed', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const file = fx.write('rapid.txt', 'value 0000\n')
    let missed = 0
    for (let i = 1; i <= 1000; i++) {
      await toolkit.readFile({ path: 'rapid.txt' })
      fs.writeFileSync(file, `value ${String(i).padStart(4, '0')}\n`)
      if ((await toolkit.checkFreshness('rapid.txt')) !== 'changed') missed++
    }
    assert.equal(missed, 0)
    toolkit.close()
  })

  test('a rewrite that restores the mtime is still changed', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const file = fx.write('sneaky.txt', 'original\n')
    const second = 1_700_000_000 // a whole second, restorable exactly
    fs.utimesSync(file, second, second)
    await toolkit.readFile({ path: 'sneaky.txt' })
    fs.writeFileSync(file, 'modified\n')
    fs.utimesSync(file, second, second)
    assert.equal(toolkit.lastRead('sneaky.txt').mtime_ms, expectedMtimeMs(file))
    assert.equal(await toolkit.checkFreshness('sneaky.txt'), 'changed')
    toolkit.close()
  })

  test('a rewrite crafted to collide a non-cryptographic hash is still changed', async () => {
    // XXH3 multiplies each 8-byte lane of a stripe by itself XOR its secret as two 32-bit
    // halves; bytes equal to the secret's make a half zero, so the product ignores the
    // other half, and a +1 in one lane is undone by a -1 in the lane that the next stripe
    // adds to the same accumulator. The bytes are the public XXH3 default secret's 4-7 and
    // 12-15 (the second stripe reads the secret from byte 8 on).
    const bytes = Buffer.alloc(2048, 'a')
    Buffer.from([0x23, 0xa4, 0x4b, 0xbe]).copy(bytes, 4)
    Buffer.from([0xf7, 0x21, 0xad, 0x1c]).copy(bytes, 68)
    for (let i = 127; i < bytes.length; i += 128) bytes[i] = 0x0a
    const rewritten = Buffer.from(bytes)
    rewritten[0] += 1
    rewritten[64] -= 1
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const file = fx.write('crafted.txt', bytes)
    const seen = (await toolkit.readFile({ path: 'crafted.txt' })).content
    fs.writeFileSync(file, rewritten)
    assert.notEqual((await toolkit.readFileSync({ path: 'crafted.txt' })).content, seen)
    fs.writeFileSync(file, bytes)
    await toolkit.readFile({ path: 'crafted.txt' })
    fs.writeFileSync(file, rewritten)
    assert.equal(await toolkit.checkFreshness('crafted.txt'), 'changed')
    fx.write('crafted-2.txt', bytes)
    assert.notEqual((await fileVersion(fx.ws, 'crafted.txt')).hash, (await fileVersion(fx.ws, 'crafted-2.txt')).hash)
    toolkit.close()
  })
})
