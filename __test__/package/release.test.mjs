// The newcomer's path, as a release makes it (issue 21 §7): the main package and this
// machine's platform package packed as `napi prepublish` would publish them (the main one
// listing the platform one in `optionalDependencies`), installed into a fresh app with npm
// (offline: neither has a dependency to fetch), and used the ways a harness author uses them:
// CommonJS, ES module, TypeScript (nodenext and bundler), Bun, the CLI, the MCP command over
// stdio with the SDK's own Client, and `--omit=optional`. The install's size and the time
// `require` takes are printed, and bounded.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { after, describe, slowTest } from '../harness.mjs'
import { INDEX_PATH } from '../helpers.mjs'

const ROOT = path.dirname(INDEX_PATH)
const MAIN = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
const IS_BUN = typeof Bun !== 'undefined'
const NODE = IS_BUN ? 'node' : process.execPath
const BUN = path.join(ROOT, 'node_modules', '.bin', 'bun')
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const SLOW_MS = 120_000

/** This machine's platform key, as the package names it (`linux-x64-gnu`, `darwin-arm64`). */
function platformKey() {
  if (process.platform !== 'linux') return `${process.platform}-${process.arch}`
  const libc = fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'gnu'
  return `${process.platform}-${process.arch}-${libc}`
}
const KEY = platformKey()
const PLATFORM_PACKAGE = `${MAIN.name}-${KEY}`

/** `npm` with `args` in `cwd`; its stdout. */
function npm(args, cwd) {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' })
}

/** Packs `dir`'s package into `into`; the tarball's path. */
function pack(dir, into) {
  const [{ filename }] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', into], dir))
  return path.join(into, filename)
}

/** The two tarballs a release publishes for this machine, made in `work`. */
function releaseTarballs(work) {
  // The main package: what `npm pack` takes from this checkout, with the platform package as
  // an optional dependency (which `napi prepublish` adds when it publishes).
  const main = path.join(work, 'main')
  const listed = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT))[0].files
  for (const { path: file } of listed) {
    fs.mkdirSync(path.dirname(path.join(main, file)), { recursive: true })
    fs.copyFileSync(path.join(ROOT, file), path.join(main, file))
  }
  const manifest = { ...MAIN, optionalDependencies: { [PLATFORM_PACKAGE]: MAIN.version } }
  fs.writeFileSync(path.join(main, 'package.json'), JSON.stringify(manifest, null, 2))
  // The platform package: its folder under npm/, with the binary this checkout built.
  const platform = path.join(work, 'platform')
  fs.mkdirSync(platform)
  fs.copyFileSync(path.join(ROOT, 'npm', KEY, 'package.json'), path.join(platform, 'package.json'))
  const binary = `${MAIN.napi.binaryName}.${KEY}.node`
  fs.copyFileSync(path.join(ROOT, binary), path.join(platform, binary))
  return { main: pack(main, work), platform: pack(platform, work) }
}

/** A fresh app in `dir` with `tarballs` installed by npm, offline, with `flags`. */
function app(dir, tarballs, flags = []) {
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }))
  npm(['install', '--offline', ...flags, ...tarballs], dir)
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n')
  return dir
}

/** Runs `command` with `args` in `cwd` (for at most `timeout` ms); status, stdout and stderr. */
function run(command, args, cwd, input = '', timeout = 60_000) {
  const { status, stdout, stderr } = spawnSync(command, args, { cwd, encoding: 'utf8', input, timeout })
  return { status, stdout, stderr }
}

/**
 * How long one `tsc` may take: about 3 s here, but over a minute for each of its two runs
 * under qemu (scripts/run-foreign.sh), where the compiler runs emulated.
 */
const TSC_MS = 300_000

/** Links `names` from this checkout's node_modules into the app's (as if installed). */
function linkFromCheckout(appDir, names) {
  for (const name of names) {
    const target = path.join(appDir, 'node_modules', name)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.symlinkSync(path.join(ROOT, 'node_modules', name), target)
  }
}

/** Packages and bytes under `dir`'s node_modules. */
function installSize(dir) {
  const modules = path.join(dir, 'node_modules')
  const packages = []
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue
      if (entry.name.startsWith('@')) walk(path.join(folder, entry.name))
      else packages.push(path.join(folder, entry.name))
    }
  }
  walk(modules)
  const bytes = (file) => {
    const stat = fs.lstatSync(file)
    return stat.isDirectory() ? fs.readdirSync(file).reduce((sum, name) => sum + bytes(path.join(file, name)), 0) : stat.size
  }
  return { packages: packages.length, bytes: bytes(modules) }
}

describe('a release, installed into a fresh app', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-read-file-release-'))
  after(() => fs.rmSync(work, { recursive: true, force: true }))
  // Made by the first test that needs them (packing and installing takes seconds).
  let made
  const apps = () => {
    if (made === undefined) {
      const { main, platform } = releaseTarballs(work)
      made = {
        full: app(path.join(work, 'app'), [main, platform]),
        lean: app(path.join(work, 'app-no-optional'), [main], ['--omit=optional']),
      }
    }
    return made
  }

  slowTest('the install is the package and its platform binary, nothing else', SLOW_MS, () => {
    const { full } = apps()
    const { packages, bytes } = installSize(full)
    console.log(`install: ${packages} packages, ${(bytes / 2 ** 20).toFixed(2)} MiB`)
    assert.equal(packages, 2)
    // 17.1 MB on Linux x64, 10.6 MB of it the tree-sitter grammars (README.md, Install).
    assert.ok(bytes < 20 * 2 ** 20, `${bytes} bytes`)
  })

  slowTest('CommonJS and ES module read a file; require takes little time', SLOW_MS, () => {
    const { full } = apps()
    const cjs = run(NODE, ['-e', `const started = performance.now()
const { createAgentToolkit } = require('agent-read-file')
const took = performance.now() - started
const toolkit = createAgentToolkit({ workspaceRoot: process.cwd() })
console.log(JSON.stringify({ content: toolkit.readFileSync({ path: 'notes.txt', max_lines: 2 }).content, took }))`], full)
    assert.equal(cjs.status, 0, cjs.stderr)
    const { content, took } = JSON.parse(cjs.stdout)
    assert.equal(content, 'one\ntwo\n')
    console.log(`require('agent-read-file'): ${took.toFixed(1)} ms`)
    assert.ok(took < 2000, `${took} ms`)
    const esm = run(NODE, ['--input-type=module', '-e', `import { readFile } from 'agent-read-file'
console.log((await readFile(process.cwd(), { path: 'notes.txt', start_line: 3 })).content)`], full)
    assert.deepEqual([esm.status, esm.stdout], [0, 'three\n\n'], esm.stderr)
  })

  slowTest('Bun reads a file', SLOW_MS, () => {
    const { full } = apps()
    const bun = run(BUN, ['-e', `import { readFileSync } from 'agent-read-file'
console.log(readFileSync(process.cwd(), { path: 'notes.txt' }).meta.line_count)`], full)
    assert.deepEqual([bun.status, bun.stdout], [0, '3\n'], bun.stderr)
  })

  slowTest('TypeScript type-checks the package under nodenext and bundler', 2 * TSC_MS + SLOW_MS, () => {
    const { full } = apps()
    linkFromCheckout(full, ['@types'])
    const source = `import { createAgentToolkit, type ReadFileOutput } from 'agent-read-file'
const toolkit = createAgentToolkit({ workspaceRoot: '/w' })
export const read = (): ReadFileOutput => toolkit.readFileSync({ path: 'a.ts' })
`
    fs.writeFileSync(path.join(full, 'check.ts'), source)
    fs.writeFileSync(path.join(full, 'check.mts'), source)
    for (const [resolution, module, file] of [['nodenext', 'nodenext', 'check.mts'], ['bundler', 'esnext', 'check.ts']]) {
      const args = [TSC, '--noEmit', '--strict', '--target', 'es2022', '--types', 'node']
      const checked = run(NODE, [...args, '--moduleResolution', resolution, '--module', module, file], full, '', TSC_MS)
      assert.equal(checked.status, 0, `${resolution}: ${checked.stdout}${checked.stderr}`)
    }
  })

  slowTest('the CLI reads a file', SLOW_MS, () => {
    const { full } = apps()
    const cli = run(NODE, [path.join(full, 'node_modules', '.bin', 'agent-read-file'), 'notes.txt', '--format', 'text'], full)
    assert.deepEqual([cli.status, cli.stdout], [0, 'notes.txt lines 1-3 of 3 (14 bytes)\n1\tone\n2\ttwo\n3\tthree\n'], cli.stderr)
  })

  slowTest('the MCP command: one line naming what to install, then, with the SDK, a server the SDK client reads through', SLOW_MS, async () => {
    const { full } = apps()
    const bin = path.join(full, 'node_modules', 'agent-read-file', 'bin', 'agent-read-file.js')
    const missing = run(NODE, [bin, 'mcp', '--root', full], full)
    assert.equal(missing.status, 1)
    assert.match(missing.stderr, /^agent-read-file mcp: agent-read-file\/mcp needs @modelcontextprotocol\/sdk\/server\/mcp\.js, an optional peer dependency: npm install @modelcontextprotocol\/sdk zod@4 [^\n]*\n$/)
    const esm = run(NODE, ['--input-type=module', '-e', "import('agent-read-file/mcp').catch((error) => console.log(error.code))"], full)
    assert.equal(esm.stdout, 'ERR_MCP_SDK_MISSING\n', esm.stderr)
    linkFromCheckout(full, ['@modelcontextprotocol', 'zod'])
    const timed = run(NODE, ['-e', `const started = performance.now()
require('agent-read-file/mcp')
console.log(performance.now() - started)`], full)
    assert.equal(timed.status, 0, timed.stderr)
    console.log(`require('agent-read-file/mcp'), the MCP SDK and zod: ${Number(timed.stdout).toFixed(1)} ms`)
    const env = { ...getDefaultEnvironment() }
    if (process.env.QEMU_LD_PREFIX) env.QEMU_LD_PREFIX = process.env.QEMU_LD_PREFIX
    const transport = new StdioClientTransport({ command: NODE, args: [bin, 'mcp', '--root', full], env })
    const client = new Client({ name: 'release-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt', max_lines: 1 } })
      assert.deepEqual(read.content, [{ type: 'text', text: 'notes.txt line 1 of 3 (14 bytes)\n1\tone\n[next: start_line=2]\n' }])
    } finally {
      await client.close()
    }
  })

  slowTest('--omit=optional: one paragraph with the install command, from require and from the CLI', SLOW_MS, () => {
    const { lean } = apps()
    const required = run(NODE, ['-e', "try { require('agent-read-file') } catch (error) { console.log(error.code); console.log(error.message) }"], lean)
    const [code, message] = required.stdout.split('\n')
    assert.equal(code, 'ERR_PLATFORM_PACKAGE_MISSING')
    assert.ok(message.includes(`npm install ${PLATFORM_PACKAGE}@${MAIN.version}`), message)
    const cli = run(NODE, [path.join(lean, 'node_modules', '.bin', 'agent-read-file'), 'notes.txt'], lean)
    assert.equal(cli.status, 1)
    assert.equal(cli.stderr, `agent-read-file: ${message}\n`)
  })
})
