// The package as a user gets it: what `npm pack` puts in it, and what `require` says on a
// machine it has no native build for (a child process pretends to be that machine).
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH, runChild } from '../helpers.mjs'

const ROOT = path.dirname(INDEX_PATH)
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-read-file-package-'))
after(() => fs.rmSync(dir, { recursive: true, force: true }))

const PLATFORM_PACKAGES = [
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'darwin-x64',
  'darwin-arm64',
]

/** What `require(<the package>)` does in a child that pretends to be `platform`/`arch`. */
function requireAs(platform, arch, name) {
  return runChild(
    dir,
    name,
    `Object.defineProperty(process, 'platform', { value: ${JSON.stringify(platform)} })
Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} })
try {
  const { readFileSync } = require(${JSON.stringify(INDEX_PATH)})
  console.log(JSON.stringify({ loaded: typeof readFileSync }))
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message, cause: Boolean(error.cause), loaderError: Boolean(error.loaderError) }))
}`,
  )
}

describe('the loader says the truth', () => {
  for (const [platform, arch] of [
    ['win32', 'x64'],
    ['freebsd', 'x64'],
    ['linux', 'riscv64'],
    ['darwin', 'ia32'],
  ]) {
    test(`${platform} ${arch}: ERR_UNSUPPORTED_PLATFORM naming it and every supported platform`, async () => {
      const result = await requireAs(platform, arch, `unsupported-${platform}-${arch}.cjs`)
      assert.equal(result.code, 'ERR_UNSUPPORTED_PLATFORM', JSON.stringify(result))
      assert.match(result.message, new RegExp(`platform ${platform}, arch ${arch}\\b`))
      if (platform === 'linux') assert.match(result.message, /libc (gnu|musl)\)/)
      for (const supported of PLATFORM_PACKAGES) assert.ok(result.message.includes(supported), supported)
      if (platform === 'win32') assert.match(result.message, /WSL/)
    })
  }

  test('a supported platform whose package is missing: one paragraph with the version-pinned install command', async () => {
    const result = await requireAs('darwin', 'arm64', 'missing-darwin-arm64.cjs')
    assert.equal(result.code, 'ERR_PLATFORM_PACKAGE_MISSING', JSON.stringify(result))
    assert.ok(result.message.includes(`Install it with: npm install agent-read-file-darwin-arm64@${pkg.version} `), result.message)
    assert.ok(!result.message.includes('\n'), 'one paragraph')
    // The loader's report (dozens of lines, advice that does not apply) is kept off the
    // printed error, as `loaderError`.
    assert.deepEqual([result.cause, result.loaderError], [false, true])
  })

  test('an uncaught missing-package error prints one paragraph, not the loader\'s report', () => {
    const preload = path.join(dir, 'pretend-darwin-arm64.cjs')
    fs.writeFileSync(
      preload,
      `Object.defineProperty(process, 'platform', { value: 'darwin' })\nObject.defineProperty(process, 'arch', { value: 'arm64' })\n`,
    )
    const child = spawnSync(process.execPath, ['-r', preload, '-e', `require(${JSON.stringify(INDEX_PATH)})`], { encoding: 'utf8' })
    assert.notEqual(child.status, 0)
    assert.ok(child.stderr.includes('ERR_PLATFORM_PACKAGE_MISSING'), child.stderr)
    assert.ok(!child.stderr.includes('Cannot find native binding') && !child.stderr.includes('wasm32'), child.stderr)
    assert.ok(child.stderr.split('\n').length < 30, child.stderr)
  })

  test('the CLI and the MCP command say that paragraph alone and exit 1', () => {
    const preload = path.join(dir, 'pretend-darwin-arm64.cjs')
    const cli = path.join(ROOT, 'bin', 'agent-read-file.js')
    for (const args of [['package.json', '--root', ROOT], ['mcp', '--root', ROOT]]) {
      const child = spawnSync(process.execPath, ['-r', preload, cli, ...args], { encoding: 'utf8', input: '' })
      assert.equal(child.status, 1, `${args[0]}: ${child.stderr}`)
      assert.match(child.stderr, /^agent-read-file: agent-read-file [0-9.]+ has no native addon for darwin-arm64 here: [^\n]*npm install agent-read-file-darwin-arm64@[0-9.]+ [^\n]*\n$/)
    }
  })

  test('this machine loads its build', async () => {
    assert.deepEqual(await requireAs(process.platform, process.arch, 'this-machine.cjs'), { loaded: 'function' })
  })
})

describe('npm pack', () => {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
  )[0]
  const files = packed.files.map((file) => file.path).sort()

  test('the main package holds the README and the documents it links for users, LICENSE, JS, types, adapters and CLI, and nothing else', () => {
    assert.equal(packed.name, 'agent-read-file')
    assert.deepEqual(files, [
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'SECURITY.md',
      'adapters/ai-core.js',
      'adapters/ai.d.mts',
      'adapters/ai.d.ts',
      'adapters/ai.js',
      'adapters/ai.mjs',
      'adapters/anthropic.d.ts',
      'adapters/anthropic.js',
      'adapters/mcp-core.js',
      'adapters/mcp-sdk.js',
      'adapters/mcp.d.mts',
      'adapters/mcp.d.ts',
      'adapters/mcp.js',
      'adapters/mcp.mjs',
      'adapters/openai.d.ts',
      'adapters/openai.js',
      'adapters/schemas.js',
      'adapters/toolkit.js',
      'bin/agent-read-file.js',
      'bin/command-line.js',
      'bin/json-rpc-lines.js',
      'bin/mcp-revision.js',
      'bin/mcp.js',
      'bin/stdio-transport.js',
      'binding.d.ts',
      'binding.js',
      'docs/contract.md',
      'docs/dialects.md',
      'docs/guide.md',
      'docs/image-limits.md',
      'index.d.ts',
      'index.js',
      'lib/adapter-kit.js',
      'lib/dialects.js',
      'lib/errors.js',
      'lib/model-text.js',
      'lib/native.js',
      'lib/options.js',
      'lib/run-tool-call.js',
      'package.json',
    ])
  })

  test('every JS and JSON file the package requires at run time is in it, and every export', () => {
    const targets = (entry) => (typeof entry === 'string' ? [entry] : Object.values(entry).flatMap(targets))
    for (const target of targets(pkg.exports)) {
      assert.ok(files.includes(path.normalize(target)), `exports names ${target}, which is not packed`)
    }
    // `.node` files come from a development build or from the platform's package.
    for (const file of files.filter((file) => file.endsWith('.js'))) {
      const source = fs.readFileSync(path.join(ROOT, file), 'utf8')
      for (const [, required] of source.matchAll(/require\('(\.\.?\/[^']+\.js(?:on)?)'\)/g)) {
        const resolved = path.relative(ROOT, path.resolve(ROOT, path.dirname(file), required))
        assert.ok(files.includes(resolved), `${file} requires ${required}, which is not packed`)
      }
    }
  })

  test('one package per built target under npm/, each with its binary and its os, cpu and libc', () => {
    assert.deepEqual(fs.readdirSync(path.join(ROOT, 'npm')).sort(), [...PLATFORM_PACKAGES].sort())
    for (const platform of PLATFORM_PACKAGES) {
      const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'npm', platform, 'package.json'), 'utf8'))
      const [osName, cpu, libc] = platform.split('-')
      assert.equal(manifest.name, `agent-read-file-${platform}`)
      assert.equal(manifest.version, pkg.version)
      assert.deepEqual(manifest.os, [osName])
      assert.deepEqual(manifest.cpu, [cpu])
      // npm's own spelling of the libc field.
      assert.deepEqual(manifest.libc, libc ? [{ gnu: 'glibc', musl: 'musl' }[libc]] : undefined)
      assert.deepEqual(manifest.files, [`agent-read-file.${platform}.node`])
      assert.equal(manifest.main, `agent-read-file.${platform}.node`)
    }
  })
})

describe('test hooks', () => {
  /** The addon's export names, and its test hooks' names, in a child with `env`. */
  function exportsWith(env) {
    const source = `const addon = require(${JSON.stringify(path.join(ROOT, 'lib', 'native.js'))})
console.log(JSON.stringify({ names: Object.keys(addon), hooks: addon.testHooks && Object.keys(addon.testHooks) }))`
    const childEnv = { ...process.env, ...env }
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name]
    const out = execFileSync(process.execPath, ['-e', source], { env: childEnv, encoding: 'utf8' })
    return JSON.parse(out.trim().split('\n').pop())
  }

  test('are not among the addon a user loads', () => {
    const { names, hooks } = exportsWith({ AGENT_READ_FILE_TEST_HOOKS: undefined })
    assert.equal(hooks, undefined)
    for (const hidden of ['testHooks', 'readFloorNs', 'readPathCounts', 'bindingFloorRead']) assert.ok(!names.includes(hidden), hidden)
    assert.ok(names.includes('readFileSync'))
  })

  test('are added, and work, when the addon is loaded with AGENT_READ_FILE_TEST_HOOKS=1', () => {
    const { names, hooks } = exportsWith({ AGENT_READ_FILE_TEST_HOOKS: '1' })
    assert.ok(!names.includes('readFloorNs') && !names.includes('readPathCounts') && !names.includes('bindingFloorRead'))
    assert.deepEqual(hooks.sort(), ['bindingFloorRead', 'readFloorNs', 'readPathCounts'])
    const source = `process.env.AGENT_READ_FILE_TEST_HOOKS = '1'
const { testHooks, readFileSync } = require(${JSON.stringify(path.join(ROOT, 'lib', 'native.js'))})
const counts = testHooks.readPathCounts()
const input = { path: 'package.json' }
const floorRead = testHooks.bindingFloorRead(${JSON.stringify(ROOT)}, input)
let refused
try { testHooks.bindingFloorRead(${JSON.stringify(ROOT)}, { path: 7 }) } catch (error) { refused = error.message }
console.log(JSON.stringify({ counts, floor: testHooks.readFloorNs(${JSON.stringify(INDEX_PATH)}, 10), floorRead, read: readFileSync(${JSON.stringify(ROOT)}, { ...input, max_lines: 500 }), refused }))`
    const out = JSON.parse(execFileSync(process.execPath, ['-e', source], { encoding: 'utf8' }).trim())
    assert.deepEqual(out.counts, { fromMemory: 0, pool: 0 })
    assert.ok(out.floor > 0 && Number.isFinite(out.floor), JSON.stringify(out))
    // The binding's floor builds the output a read of every line builds, from memory.
    assert.deepEqual(out.floorRead, { ...out.read, meta: { ...out.read.meta, mtime_ms: 0 } })
    assert.match(out.refused, /path must be a non-empty string/)
  })
})
