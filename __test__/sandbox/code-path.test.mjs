// The sandbox code path is the one the environment asks for: under
// AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX=1 (`npm run test:portable`) the portable (macOS)
// code path, otherwise the OS's own. Without this check the portable run could pass while
// testing Linux's code path again.
import assert from 'node:assert/strict'
import fs from 'node:fs'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { makeFixture } from '../helpers.mjs'

const { readFileSync } = pkg
const PORTABLE = process.env.AGENT_READ_FILE_TEST_ONLY_PORTABLE_SANDBOX === '1'

const fx = makeFixture()
after(() => fx.cleanup())
fx.write('a.txt', 'inside a\n')

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
