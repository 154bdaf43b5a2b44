// The sandbox: path normalization, absolute paths, symlinks in and out, the sibling
// directory sharing the root's prefix, non-regular files (directory, FIFO, socket),
// missing files and loops, permissions, and the order in which checks apply.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import pkg from '../../index.js'
import { after, before, describe, test } from '../harness.mjs'
import {
  INDEX_PATH,
  assertRejectsCode,
  assertThrowsCode,
  checkError,
  expectedOutput,
  makeFixture,
  runChild,
  thrown,
  unreadableFileWorkspace,
} from '../helpers.mjs'

const { readFile, readFileSync, createAgentToolkit } = pkg

const fx = makeFixture()
const { base, ws, outside, secret } = fx
const SECRET_TEXT = fs.readFileSync(secret, 'utf8')

const A = fx.write('a.txt', 'inside a\n')
const B = fx.write('src/b.txt', 'inside b\n')
const C = fx.write('src/deep/c.txt', 'inside c\n')
fs.mkdirSync(path.join(ws, 'empty-dir'))
fs.mkdirSync(path.join(base, 'ws-evil'))
fs.writeFileSync(path.join(base, 'ws-evil', 'file.txt'), 'EVIL sibling\n')
fs.symlinkSync(ws, path.join(base, 'ws-link')) // the root reached through a symlink

// Symlinks that stay inside.
fx.link('rel-in', 'a.txt')
fx.link('abs-in', A)
fx.link('chain-in', 'rel-in')
fx.link('src/deep/up-in', '../../a.txt')
fx.link('dir-in', 'src/deep')
fx.link('abs-dir-in', path.join(ws, 'src'))
fx.link('src/sibling-in', './deep/c.txt')
// Symlinks that lead out.
fx.link('rel-out', '../outside/secret.txt')
fx.link('abs-out', secret)
fx.link('dir-out', '../outside')
fx.link('abs-dir-out', outside)
fx.link('src/deep/climb-out', '../../../outside/secret.txt')
fx.link('out-missing', '../outside/missing.txt')
fx.link('abs-out-missing', path.join(outside, 'missing.txt'))
fx.link('evil-link', path.join(base, 'ws-evil', 'file.txt'))
fx.link('evil-dir-link', path.join(base, 'ws-evil'))
fx.link('fs-root', '/')
fx.link('chain-out', 'rel-out')
fx.link('in-then-out', 'dir-out/secret.txt')
// Broken ones.
fx.link('loop', 'loop')
fx.link('loop-a', 'loop-b')
fx.link('loop-b', 'loop-a')
fx.link('dir-loop', 'dir-loop/x')
fx.link('dangling', 'nowhere.txt')

after(() => fx.cleanup())

/** Reads `requested` both ways and checks the success against the real file. */
async function assertReads(requested, file, returnedPath, root = ws) {
  const expected = expectedOutput(file, returnedPath)
  assert.deepEqual(readFileSync(root, { path: requested }), expected, `readFileSync ${requested}`)
  assert.deepEqual(await readFile(root, { path: requested }), expected, `readFile ${requested}`)
}

/** Both entry points fail on `requested` with `code`; returns the sync error. */
async function assertFails(requested, code, root = ws) {
  const syncErr = assertThrowsCode(() => readFileSync(root, { path: requested }), code, requested)
  const asyncErr = await assertRejectsCode(() => readFile(root, { path: requested }), code, requested)
  assert.equal(asyncErr.message, syncErr.message)
  return syncErr
}

describe('returned path is the requested path normalized lexically', () => {
  const cases = [
    ['a.txt', A, 'a.txt'],
    ['./a.txt', A, 'a.txt'],
    ['src/b.txt', B, 'src/b.txt'],
    ['./src//a/../b.txt', B, 'src/b.txt'],
    ['src/./deep/../b.txt', B, 'src/b.txt'],
    ['src///deep//c.txt', C, 'src/deep/c.txt'],
    ['src/deep/../../src/b.txt', B, 'src/b.txt'],
    ['nonexistent/../a.txt', A, 'a.txt'],
    [`${ws}/a.txt`, A, 'a.txt'],
    [`${ws}//src/./deep/c.txt`, C, 'src/deep/c.txt'],
    [`${ws}/src/../src/b.txt`, B, 'src/b.txt'],
  ]
  for (const [requested, file, returned] of cases) {
    const label = requested.replaceAll(base, '<tmp>')
    test(`${label} -> ${returned}`, async () => {
      await assertReads(requested, file, returned)
    })
  }

  test('a symlink is returned under the name it was requested by', async () => {
    await assertReads('rel-in', A, 'rel-in')
    await assertReads('./dir-in//c.txt', C, 'dir-in/c.txt')
  })
})

describe('absolute paths', () => {
  test('an absolute path inside the root is accepted with a root given via a symlink (given spelling)', async () => {
    const root = path.join(base, 'ws-link')
    await assertReads(`${root}/src/b.txt`, B, 'src/b.txt', root)
  })

  test('an absolute path inside the root is accepted with a root given via a symlink (realpath spelling)', async () => {
    const root = path.join(base, 'ws-link')
    await assertReads(`${fs.realpathSync(ws)}/src/b.txt`, B, 'src/b.txt', root)
    await assertReads(`${ws}/a.txt`, A, 'a.txt', root)
  })

  test('a root given with a trailing slash accepts absolute paths in its plain spelling', async () => {
    await assertReads(`${ws}/src/b.txt`, B, 'src/b.txt', `${ws}/`)
  })

  test('the toolkit accepts absolute paths inside and returns them relative', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: ws })
    assert.deepEqual(await toolkit.readFile({ path: `${ws}/src/deep/c.txt` }), expectedOutput(C, 'src/deep/c.txt'))
  })
})

describe('paths outside the workspace are OUTSIDE_WORKSPACE', () => {
  const outsidePaths = [
    // lexical climbing, existing or not
    '..',
    '../',
    '../outside/secret.txt',
    '../outside/missing.txt',
    '../ws/a.txt',
    'a/../../ws/a.txt',
    'src/../../outside/secret.txt',
    'src/deep/../../../outside/secret.txt',
    './../outside',
    '../../../../../../../../etc/passwd',
    // absolute paths
    '/',
    '/etc/passwd',
    '/nonexistent-dir/file.txt',
    `${secret}`,
    `${outside}/missing.txt`,
    `${outside}`,
    `${base}`,
    `${base}/ws-evil/file.txt`,
    `${base}/ws-evil`,
    `${base}/ws-evil/missing.txt`,
    '../ws-evil/file.txt',
    '../ws-evil/missing.txt',
    `${ws}/../outside/secret.txt`,
    // symlinks leading out
    'rel-out',
    'abs-out',
    'chain-out',
    'in-then-out',
    'dir-out',
    'dir-out/secret.txt',
    'dir-out/missing.txt',
    'abs-dir-out',
    'abs-dir-out/secret.txt',
    'src/deep/climb-out',
    'out-missing',
    'abs-out-missing',
    'evil-link',
    'evil-dir-link/file.txt',
    'fs-root',
    'fs-root/etc/passwd',
    'dir-in/../../outside/secret.txt',
  ]
  for (const requested of outsidePaths) {
    const label = requested.replaceAll(base, '<tmp>')
    test(`${label}`, async () => {
      const err = await assertFails(requested, 'OUTSIDE_WORKSPACE')
      assert.ok(!err.message.includes(SECRET_TEXT.trim()), 'the secret leaked')
      assert.ok(!err.message.includes('EVIL'), 'the sibling file leaked')
      if (!path.isAbsolute(requested)) {
        assert.ok(!err.message.includes(base), `absolute path in ${JSON.stringify(err.message)}`)
      }
    })
  }

  test('the toolkit refuses the same escapes', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: ws })
    for (const requested of ['rel-out', 'abs-out', 'dir-out/secret.txt', '../ws-evil/file.txt', secret]) {
      await assertRejectsCode(() => toolkit.readFile({ path: requested }), 'OUTSIDE_WORKSPACE', requested)
    }
  })
})

describe('symlinks that stay inside work', () => {
  const cases = [
    ['rel-in', A],
    ['abs-in', A],
    ['chain-in', A],
    ['src/deep/up-in', A],
    ['dir-in/c.txt', C],
    ['abs-dir-in/b.txt', B],
    ['abs-dir-in/deep/c.txt', C],
    ['src/sibling-in', C],
  ]
  for (const [requested, file] of cases) {
    test(`${requested}`, async () => {
      await assertReads(requested, file, requested)
    })
  }

  test('with the root given through a symlink', async () => {
    const root = path.join(base, 'ws-link')
    await assertReads('abs-in', A, 'abs-in', root)
    await assertReads('dir-in/c.txt', C, 'dir-in/c.txt', root)
  })
})

describe('not a regular file: NOT_FILE', () => {
  for (const requested of ['.', './', 'src', 'src/', 'src/deep/..', 'empty-dir', 'dir-in', 'abs-dir-in', ws, `${ws}/`]) {
    const label = requested.replaceAll(base, '<tmp>')
    test(`directory ${JSON.stringify(label)}`, async () => {
      await assertFails(requested, 'NOT_FILE')
    })
  }

  describe('FIFO and Unix socket (in a child process, bounded by a timeout)', () => {
    let server
    before(async () => {
      execFileSync('mkfifo', [path.join(ws, 'fifo')])
      fx.link('fifo-link', 'fifo')
      server = net.createServer()
      await new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(path.join(ws, 'sock'), resolve)
      })
    })
    after(async () => {
      await new Promise((resolve) => server.close(() => resolve()))
    })

    test('a FIFO, a symlink to it, a socket and a directory are NOT_FILE, quickly', async () => {
      assert.ok(fs.statSync(path.join(ws, 'fifo')).isFIFO())
      assert.ok(fs.statSync(path.join(ws, 'sock')).isSocket())
      const requests = ['fifo', 'fifo-link', 'sock', 'src', '.']
      const source = `
        const { readFile, readFileSync } = require(${JSON.stringify(INDEX_PATH)});
        const root = ${JSON.stringify(ws)};
        const requests = ${JSON.stringify(requests)};
        const outcome = (err) => err ? { code: err.code, message: err.message } : { code: 'OK' };
        (async () => {
          const results = {};
          for (const p of requests) {
            const started = Date.now();
            let sync, async;
            try { readFileSync(root, { path: p }); sync = outcome(null) } catch (e) { sync = outcome(e) }
            try { await readFile(root, { path: p }); async = outcome(null) } catch (e) { async = outcome(e) }
            results[p] = { sync, async, ms: Date.now() - started };
          }
          console.log(JSON.stringify(results));
        })();
      `
      const results = await runChild(base, 'not-file-child.cjs', source, { timeout: 10_000 })
      for (const p of requests) {
        const { sync, async, ms } = results[p]
        for (const [how, got] of [['sync', sync], ['async', async]]) {
          assert.equal(got.code, 'NOT_FILE', `${p} (${how}): ${got.message}`)
          assert.ok(got.message.startsWith(`NOT_FILE: ${p}: `), got.message)
        }
        assert.ok(ms < 3000, `${p} took ${ms} ms`)
      }
    })
  })
})

describe('missing files: NOT_FOUND', () => {
  const missing = [
    'missing.txt',
    'src/mian.ts',
    'no/such/dir/file.txt',
    'dangling',
    'loop',
    'loop-a',
    'dir-loop',
    'dir-loop/x',
    'a.txt/x',
    `${ws}/missing.txt`,
    'dir-in/missing.txt',
  ]
  for (const requested of missing) {
    const label = requested.replaceAll(base, '<tmp>')
    test(`${label}`, async () => {
      const err = await assertFails(requested, 'NOT_FOUND')
      if (!path.isAbsolute(requested)) assert.ok(!err.message.includes(base))
    })
  }

  test('the message format matches the contract example', () => {
    const err = thrown(() => readFileSync(ws, { path: 'src/mian.ts' }))
    checkError(err, 'NOT_FOUND', 'src/mian.ts')
    assert.equal(err.message, 'NOT_FOUND: src/mian.ts: no such file in the workspace')
  })

  test('a file deleted between reads is NOT_FOUND', async () => {
    const file = fx.write('short-lived.txt', 'here\n')
    await assertReads('short-lived.txt', file, 'short-lived.txt')
    fs.unlinkSync(file)
    await assertFails('short-lived.txt', 'NOT_FOUND')
  })
})

describe('unreadable files: PERMISSION_DENIED', () => {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0

  // As root, chmod does not deny reads; the brief says to skip this case there.
  ;(isRoot ? test.skip : test)('a chmod 000 file is PERMISSION_DENIED (non-root)', async () => {
    const file = fx.write('locked.txt', 'locked\n')
    fs.chmodSync(file, 0o000)
    try {
      await assertFails('locked.txt', 'PERMISSION_DENIED')
    } finally {
      fs.chmodSync(file, 0o644)
    }
  })

  // Running as root, the same case is still reachable from a child that drops to `nobody`.
  ;(isRoot ? test : test.skip)('a chmod 000 file is PERMISSION_DENIED (child dropped to uid nobody)', async () => {
    const { base: permBase, ws: permWs, cleanup } = unreadableFileWorkspace('read-file-perm-')
    try {
      // The package is loaded before the child drops to `nobody`, who may not be able to
      // read the checkout (one in a 0700 directory); only the reads run as `nobody`.
      const source = `
        const { readFile, readFileSync } = require(${JSON.stringify(INDEX_PATH)});
        process.setgid(65534);
        process.setuid(65534);
        const root = ${JSON.stringify(permWs)};
        const outcome = (err, out) => err ? { code: err.code, message: err.message } : { code: 'OK', content: out.content };
        (async () => {
          const results = {};
          for (const p of ['open.txt', 'locked.txt']) {
            let sync, async;
            try { sync = outcome(null, readFileSync(root, { path: p })) } catch (e) { sync = outcome(e) }
            try { async = outcome(null, await readFile(root, { path: p })) } catch (e) { async = outcome(e) }
            results[p] = { sync, async };
          }
          console.log(JSON.stringify(results));
        })();
      `
      const results = await runChild(permBase, 'perm-child.cjs', source)
      assert.deepEqual(results['open.txt'].sync, { code: 'OK', content: 'open\n' })
      assert.deepEqual(results['open.txt'].async, { code: 'OK', content: 'open\n' })
      for (const how of ['sync', 'async']) {
        const got = results['locked.txt'][how]
        assert.equal(got.code, 'PERMISSION_DENIED', `${how}: ${got.message}`)
        assert.ok(got.message.startsWith('PERMISSION_DENIED: locked.txt: '), got.message)
      }
    } finally {
      cleanup()
    }
  })
})

describe('the order of checks', () => {
  fx.write('bin.dat', Buffer.from([0x00, 0x01, 0x02]))

  test('argument check before the sandbox', async () => {
    for (const input of [
      { path: '../outside/secret.txt', max_lines: 0 },
      { path: 'rel-out', start_line: -1 },
      { path: secret, max_lines: 501 },
    ]) {
      assertThrowsCode(() => readFileSync(ws, input), 'INVALID_ARGUMENT', input.path)
      await assertRejectsCode(() => readFile(ws, input), 'INVALID_ARGUMENT', input.path)
    }
  })

  test('argument check before stat', () => {
    assertThrowsCode(() => readFileSync(ws, { path: 'missing.txt', start_line: 0 }), 'INVALID_ARGUMENT', 'missing.txt')
    assertThrowsCode(() => readFileSync(ws, { path: 'src', max_lines: 1.5 }), 'INVALID_ARGUMENT', 'src')
    assertThrowsCode(() => readFileSync(ws, { path: 'bin.dat', max_lines: '1' }), 'INVALID_ARGUMENT', 'bin.dat')
  })

  test('sandbox before stat and kind: outside wins whether or not the target exists or is a file', async () => {
    await assertFails('../outside/missing.txt', 'OUTSIDE_WORKSPACE')
    await assertFails('dir-out', 'OUTSIDE_WORKSPACE')
    await assertFails('abs-dir-out', 'OUTSIDE_WORKSPACE')
    await assertFails('../outside', 'OUTSIDE_WORKSPACE')
  })

  test('kind before binary and window', async () => {
    await assertFails('src', 'NOT_FILE')
    assertThrowsCode(() => readFileSync(ws, { path: 'src', start_line: 10 ** 9 }), 'NOT_FILE', 'src')
  })

  test('binary before window', () => {
    assertThrowsCode(() => readFileSync(ws, { path: 'bin.dat', start_line: 100 }), 'BINARY_NOT_SUPPORTED', 'bin.dat')
  })
})

describe('nothing is read from outside, even indirectly', () => {
  test('no successful read ever returns the secret', async () => {
    const attempts = [
      'rel-out',
      'abs-out',
      'dir-out/secret.txt',
      '../outside/secret.txt',
      secret,
      'src/deep/climb-out',
      'dir-in/../../outside/secret.txt',
      `${base}/ws-link/../outside/secret.txt`,
    ]
    for (const requested of attempts) {
      for (const read of [() => readFileSync(ws, { path: requested }), () => readFileSync(`${base}/ws-link`, { path: requested })]) {
        let out
        try {
          out = read()
        } catch (err) {
          assert.ok(err.code !== undefined, String(err))
          assert.ok(!err.message.includes('TOP SECRET'))
          continue
        }
        assert.ok(!out.content.includes('TOP SECRET'), `${requested} read the secret`)
      }
    }
  })
})
