// The deny rules under concurrent changes of names (issue 17, items 1-3): a file is judged
// by the path it was opened by, whatever happens to that name afterwards, and an admitted
// file is never refused because its name moved meanwhile or its path is deep.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { makeFixture } from '../helpers.mjs'

const { createAgentToolkit, readFileSync } = pkg
const LOOP_MS = 2500
const SECRET = 'SECRET-policy-race-4d1f'

/** Starts `source` (CommonJS) in a child process with `args`; resolves to its JSON output. */
function loopInChild(fx, name, source, args) {
  const script = path.join(fx.base, name)
  fs.writeFileSync(script, source)
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  const state = { running: true }
  const done = new Promise((resolve) => child.on('exit', resolve)).then((code) => {
    state.running = false
    assert.equal(code, 0, `${name} failed`)
    return JSON.parse(stdout)
  })
  return { state, done }
}

/**
 * Reads `requested` through `toolkit`, synchronously and asynchronously, until the child
 * loop ends; every outcome goes through `judge` (which throws on a bad one) and is counted.
 */
async function readWhileLooping(toolkit, requested, loop, judge) {
  const outcomes = {}
  const count = (key) => (outcomes[key] = (outcomes[key] ?? 0) + 1)
  const settle = (result) => count(judge(result))
  while (loop.state.running) {
    const wave = Array.from({ length: 16 }, () =>
      toolkit.readFile({ path: requested }).then(
        (output) => settle({ output }),
        (error) => settle({ error }),
      ),
    )
    for (let i = 0; i < 16; i++) {
      try {
        settle({ output: toolkit.readFileSync({ path: requested }) })
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error
        settle({ error })
      }
    }
    await Promise.all(wave)
  }
  return { outcomes, loop: await loop.done }
}

describe('a denied name being unlinked', () => {
  const fx = makeFixture()
  after(() => fx.cleanup())

  test(`${LOOP_MS} ms of link(.env.bak, .env) + unlink(.env): the secret is never read`, async () => {
    fx.write('.env.bak', `${SECRET}\n`)
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws, defaultDeny: false, deny: ['.env'] })
    after(() => toolkit.close())
    const loop = loopInChild(
      fx,
      'relinker.cjs',
      `const fs = require('node:fs')
const [ws, ms] = process.argv.slice(2)
let loops = 0
const end = Date.now() + Number(ms)
while (Date.now() < end) {
  fs.linkSync(ws + '/.env.bak', ws + '/.env')
  fs.unlinkSync(ws + '/.env')
  loops++
}
console.log(JSON.stringify({ loops }))`,
      [fx.ws, String(LOOP_MS)],
    )
    const { outcomes, loop: relinks } = await readWhileLooping(toolkit, '.env', loop, ({ output, error }) => {
      assert.equal(output, undefined, `the secret was read: ${JSON.stringify(output)}`)
      assert.ok(!String(error.message).includes(SECRET))
      assert.ok(!error.message.includes('(deleted)'), error.message)
      if (error.code === 'POLICY_DENIED') {
        assert.equal(error.message, 'POLICY_DENIED: .env: .env is denied by ".env" (deny rule 1)')
      } else {
        assert.equal(error.code, 'NOT_FOUND', error.message)
      }
      return error.code
    })
    const summary = JSON.stringify({ ...relinks, ...outcomes })
    assert.ok(relinks.loops >= 100, `too few relinks to race: ${summary}`)
    // The race was really run: some reads found the name, some did not.
    assert.ok(outcomes.POLICY_DENIED > 0 && outcomes.NOT_FOUND > 0, summary)
    console.log(`unlink race: ${summary}`)
  })
})

describe('an admitted file saved by rename-over', () => {
  const fx = makeFixture()
  after(() => fx.cleanup())

  test(`${LOOP_MS} ms of an editor's saves: never POLICY_DENIED`, async () => {
    fx.write('notes.txt', 'version 0\n')
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    const loop = loopInChild(
      fx,
      'saver.cjs',
      `const fs = require('node:fs')
const [ws, ms] = process.argv.slice(2)
let saves = 0
const end = Date.now() + Number(ms)
while (Date.now() < end) {
  fs.writeFileSync(ws + '/.notes.txt.swp', 'version ' + (++saves) + '\\n')
  fs.renameSync(ws + '/.notes.txt.swp', ws + '/notes.txt')
}
console.log(JSON.stringify({ saves }))`,
      [fx.ws, String(LOOP_MS)],
    )
    const { outcomes, loop: saves } = await readWhileLooping(toolkit, 'notes.txt', loop, ({ output, error }) => {
      assert.equal(error, undefined, `an admitted file was refused: ${error?.message}`)
      assert.match(output.content, /^version \d+\n$/)
      return 'ok'
    })
    const summary = JSON.stringify({ ...saves, ...outcomes })
    assert.ok(saves.saves >= 100, `too few saves to race: ${summary}`)
    assert.ok(outcomes.ok >= 100, summary)
    console.log(`rename-over race: ${summary}`)
  })
})

describe('a deep path', () => {
  const fx = makeFixture()
  // 16 directories of 254 bytes: the relative path is within PATH_MAX (4,096 with its NUL),
  // the absolute one is not, so /proc/self/fd could not give it back.
  const names = Array.from({ length: 16 }, (_, i) => String(i).padStart(254, 'd'))
  const relative = [...names, 'deep.txt'].join('/')
  // Made one directory at a time relative to the last one's handle, and removed by `rm`
  // (which walks by handles too): an absolute path this long is refused by mkdir and rmdir.
  const made = spawnSync('python3', [
    '-c',
    `import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for name in sys.argv[2:]:
    os.mkdir(name, dir_fd=fd)
    fd = os.open(name, os.O_RDONLY, dir_fd=fd)
file = os.open('deep.txt', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
os.write(file, b'DEEP\\n')`,
    fx.ws,
    ...names,
  ])
  assert.equal(made.status, 0, String(made.stderr))
  after(() => {
    spawnSync('rm', ['-rf', path.join(fx.ws, names[0])])
    fx.cleanup()
  })

  test('is read by a toolkit with deny rules, as by the bare readFileSync', async () => {
    assert.ok(relative.length < 4095 && fx.ws.length + 1 + relative.length > 4096)
    assert.equal(readFileSync(fx.ws, { path: relative }).content, 'DEEP\n')
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    after(() => toolkit.close())
    assert.equal(toolkit.readFileSync({ path: relative }).content, 'DEEP\n')
    assert.equal((await toolkit.readFile({ path: relative })).content, 'DEEP\n')
    const denying = createAgentToolkit({ workspaceRoot: fx.ws, defaultDeny: false, deny: ['deep.txt'] })
    after(() => denying.close())
    assert.throws(() => denying.readFileSync({ path: relative }), (err) => {
      assert.equal(err.code, 'POLICY_DENIED')
      // (The requested path at the front of a message is shortened past a length.)
      assert.ok(err.message.endsWith(`: ${relative} is denied by "deep.txt" (deny rule 1)`), 'the rule and the path')
      return true
    })
  })
})
