// The documents' examples, run as they are written. Every ```js block of README.md,
// SECURITY.md, CONTRIBUTING.md, benchmark/README.md and docs/*.md runs as an ES module in a
// child of the current runtime (node or bun), from an empty project where `agent-read-file`
// resolves to this package, as a user would paste it (issue 36 §6: a block that assumed files
// was a block that failed as pasted, and one that wrote them overwrote the user's); each
// `console.log(...) // → expected` line must print exactly `expected`, in order. So the
// examples cannot drift from the code, and no block touches the directory it is run from.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH, runtimeEnvironment } from '../helpers.mjs'

const ROOT = path.dirname(INDEX_PATH)
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')

/** The documents whose examples run, relative to the package root. */
const DOCUMENTS = [
  'README.md',
  'SECURITY.md',
  'CONTRIBUTING.md',
  'benchmark/README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
]

/** A document's ```js blocks, each with the line it starts on. */
function examples(document) {
  const text = fs.readFileSync(path.join(ROOT, document), 'utf8')
  const blocks = []
  const pattern = /^```js\n([\s\S]*?)^```$/gm
  for (const match of text.matchAll(pattern)) {
    const line = text.slice(0, match.index).split('\n').length
    blocks.push({ line, source: match[1] })
  }
  return blocks
}

/** What the block says its `console.log` calls print, in order. */
function expectedOutput(source) {
  return source
    .split('\n')
    .filter((line) => line.includes('console.log(') && line.includes('// → '))
    .map((line) => line.slice(line.indexOf('// → ') + '// → '.length))
}

/**
 * An empty project with this package installed (linked), and the MCP SDK the MCP recipe's
 * client comes from; the temporary directory its examples make theirs in, `tmp`.
 */
function emptyProject() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-read-file-readme-'))
  const ws = path.join(base, 'project')
  const tmp = path.join(base, 'tmp')
  fs.mkdirSync(path.join(ws, 'node_modules', '@modelcontextprotocol'), { recursive: true })
  fs.mkdirSync(tmp)
  fs.symlinkSync(ROOT, path.join(ws, 'node_modules', 'agent-read-file'), 'dir')
  const sdk = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk')
  fs.symlinkSync(sdk, path.join(ws, 'node_modules', '@modelcontextprotocol', 'sdk'), 'dir')
  return { base, ws, tmp }
}

/** The project's files, but `node_modules` and the examples the test wrote. */
function filesOf(ws) {
  return fs.readdirSync(ws).filter((name) => name !== 'node_modules' && !name.startsWith('example-'))
}

function run(file, cwd, tmp) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { cwd, timeout: 30_000, env: { ...process.env, TMPDIR: tmp } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} failed: ${error.message}\n${stderr}`))
      else resolve(stdout)
    })
  })
}
for (const document of DOCUMENTS) {
  describe(`${document} examples`, () => {
    const { base, ws, tmp } = emptyProject()
    after(() => fs.rmSync(base, { recursive: true, force: true }))

    test(`${document}: each example says what it prints`, () => {
      const blocks = examples(document)
      if (document === 'README.md') assert.ok(blocks.length >= 3, `${blocks.length} js blocks`)
      for (const block of blocks) {
        assert.ok(expectedOutput(block.source).length > 0, `${document}:${block.line} checks nothing`)
      }
    })

    for (const { line, source } of examples(document)) {
      test(`${document}:${line} runs and prints what its comments say`, async () => {
        const file = path.join(ws, `example-${line}.mjs`)
        fs.writeFileSync(file, source)
        const printed = (await run(file, ws, tmp)).trimEnd().split('\n')
        assert.deepEqual(printed, expectedOutput(source))
        assert.deepEqual(filesOf(ws), [], 'the example wrote into the directory it was run from')
      })
    }
  })
}

describe('README examples', () => {
  const { base, ws } = emptyProject()
  after(() => fs.rmSync(base, { recursive: true, force: true }))
  fs.mkdirSync(path.join(ws, 'src'))
  fs.writeFileSync(path.join(ws, 'src/lib.rs'), '// 1\n'.repeat(9) + 'fn main() {\n    run();\n}\n')

  test('the MCP client configuration starts a server that answers read_file', async () => {
    const [config] = [...README.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match) => JSON.parse(match[1]))
    const { command, args } = config.mcpServers.read_file
    // `npx -y -p agent-read-file -p <the MCP SDK> -p zod@4 agent-read-file` runs the package's
    // bin with its optional peers installed beside it: this checkout's bin and devDependencies,
    // here (no network).
    assert.equal(command, 'npx')
    const commandAt = args.indexOf('agent-read-file', 1 + args.lastIndexOf('-p'))
    const packages = args.slice(1, commandAt).filter((_, i) => i % 2 === 1)
    assert.deepEqual([args[0], ...args.slice(1, commandAt).filter((_, i) => i % 2 === 0)], ['-y', '-p', '-p', '-p'])
    assert.deepEqual(packages, ['agent-read-file', '@modelcontextprotocol/sdk', 'zod@4'])
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).bin, {
      'agent-read-file': 'bin/agent-read-file.js',
    })
    const serverArgs = args.slice(commandAt + 1).map((arg) => (arg === '/path/to/project' ? ws : arg))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin/agent-read-file.js'), ...serverArgs],
      env: runtimeEnvironment(), // qemu-user's variables, under emulation (the SDK passes few)
    })
    const client = new Client({ name: 'readme', version: '1.0.0' })
    await client.connect(transport)
    try {
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'src/lib.rs', start_line: 10, max_lines: 1 } })
      assert.deepEqual(read.content, [{ type: 'text', text: 'src/lib.rs line 10 of 12 (70 bytes)\n10\tfn main() {\n[next: start_line=11]\n' }])
    } finally {
      await client.close()
    }
  })
})
