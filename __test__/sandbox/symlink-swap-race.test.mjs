// The race the sandbox exists for: while reads of `d/file` run on the thread pool, another
// process swaps directory `d` for a symlink to the outside directory and back, as fast as
// it can. Zero reads may return the outside file's content.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { makeFixture } from '../helpers.mjs'

const { readFile, readFileSync } = pkg
const SWAP_MS = 3000
const SENTINEL = 'SENTINEL-race-outside'

const swapperSource = `
const fs = require('node:fs')
const [ws, outside, ms] = process.argv.slice(2)
const d = ws + '/d', held = ws + '/d.held'
const targets = [outside, '../' + require('node:path').basename(outside)]
let swaps = 0
const end = Date.now() + Number(ms)
while (Date.now() < end) {
  fs.renameSync(d, held)
  fs.symlinkSync(targets[swaps % 2], d)
  fs.unlinkSync(d)
  fs.renameSync(held, d)
  swaps++
}
console.log(JSON.stringify({ swaps }))
`

describe('directory swapped for a symlink out while reads run', () => {
  const fx = makeFixture()
  after(() => fx.cleanup())

  test(`${SWAP_MS} ms of swaps: tens of thousands of reads, zero leaks`, async () => {
    fs.writeFileSync(path.join(fx.outside, 'file'), `${SENTINEL}\n`)
    fx.write('d/file', 'INSIDE\n')
    const script = path.join(fx.base, 'swapper.cjs')
    fs.writeFileSync(script, swapperSource)
    const swapper = spawn(process.execPath, [script, fx.ws, fx.outside, String(SWAP_MS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let stdout = ''
    swapper.stdout.on('data', (chunk) => (stdout += chunk))
    const exited = new Promise((resolve) => swapper.on('exit', resolve))
    let running = true
    exited.then(() => (running = false))

    const outcomes = new Map()
    const count = (key) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
    const judge = (out) => {
      assert.ok(!out.content.includes(SENTINEL), 'read the outside file')
      assert.equal(out.content, 'INSIDE\n')
      count('ok')
    }
    const refused = (err) => {
      assert.ok(!String(err.message).includes(SENTINEL))
      assert.ok(['NOT_FOUND', 'OUTSIDE_WORKSPACE'].includes(err.code), `${err.code}: ${err.message}`)
      count(err.code)
    }
    while (running) {
      const wave = Array.from({ length: 64 }, () => readFile(fx.ws, { path: 'd/file' }).then(judge, refused))
      for (let i = 0; i < 8; i++) {
        try {
          judge(readFileSync(fx.ws, { path: 'd/file' }))
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err
          refused(err)
        }
      }
      await Promise.all(wave)
    }
    const code = await exited
    assert.equal(code, 0, 'the swapper failed')
    const { swaps } = JSON.parse(stdout)
    const reads = [...outcomes.values()].reduce((a, b) => a + b, 0)
    const summary = JSON.stringify({ swaps, reads, ...Object.fromEntries(outcomes) })
    assert.ok(swaps >= 1000, `too few swaps to race: ${summary}`)
    assert.ok(reads >= 10_000, `too few reads: ${summary}`)
    // The race must really have been run: reads saw the real directory and the symlink.
    assert.ok(outcomes.get('ok') > 0, summary)
    assert.ok(outcomes.get('OUTSIDE_WORKSPACE') > 0, summary)
    console.log(`race: ${summary}`)
  })
})
