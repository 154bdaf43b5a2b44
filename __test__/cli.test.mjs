// The `agent-read-file` CLI, run as a child process of the current runtime.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, describe, test } from './harness.mjs'
import { makeFixture } from './helpers.mjs'

const CLI = fileURLToPath(new URL('../bin/agent-read-file.js', import.meta.url))

function run(args, options = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 10_000, ...options })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('agent-read-file CLI', () => {
  const fx = makeFixture()
  after(() => fs.rmSync(fx.base, { recursive: true, force: true }))
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`)
  fx.write('src/ten.txt', lines.join(''))

  test('prints the output as JSON', () => {
    const { status, stdout } = run(['src/ten.txt', '--root', fx.ws, '--start-line', '3', '--max-lines', '2'])
    assert.equal(status, 0)
    const output = JSON.parse(stdout)
    assert.equal(output.path, 'src/ten.txt')
    assert.equal(output.content, lines.slice(2, 4).join(''))
    assert.equal(output.truncated, true)
    assert.equal(output.next_start_line, 5)
    assert.equal(output.meta.line_count, 10)
    assert.equal(output.meta.returned_line_count, 2)
  })

  test('the root defaults to the current directory', () => {
    const { status, stdout } = run(['ten.txt'], { cwd: path.join(fx.ws, 'src') })
    assert.equal(status, 0)
    assert.equal(JSON.parse(stdout).content, lines.join(''))
  })

  test('a failure is JSON on stderr with the code, and exit 1', () => {
    for (const [args, code] of [
      [['missing.txt', '--root', fx.ws], 'NOT_FOUND'],
      [['../outside/secret.txt', '--root', fx.ws], 'OUTSIDE_WORKSPACE'],
      [['src/ten.txt', '--root', fx.ws, '--max-lines', '501'], 'INVALID_ARGUMENT'],
      [['src/ten.txt', '--root', fx.ws, '--start-line', 'x'], 'INVALID_ARGUMENT'],
    ]) {
      const { status, stdout, stderr } = run(args)
      assert.equal(status, 1, args.join(' '))
      assert.equal(stdout, '')
      const { error } = JSON.parse(stderr)
      assert.equal(error.code, code)
      assert.ok(error.message.startsWith(`${code}: `), error.message)
    }
  })

  test('a malformed command line exits 2 with usage', () => {
    for (const args of [[], ['a', 'b'], ['a', '--bogus']]) {
      const { status, stderr } = run(args)
      assert.equal(status, 2, JSON.stringify(args))
      assert.equal(JSON.parse(stderr).error.code, 'INVALID_ARGUMENT')
    }
    assert.match(execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' }), /^usage: agent-read-file <path>/)
  })
})
