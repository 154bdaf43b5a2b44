// agent-read-file/mcp and `agent-read-file mcp`, driven by the MCP SDK's real Client: over
// stdio (StdioClientTransport spawning the command, as an MCP client application does) and
// in process (InMemoryTransport). Expected outputs come from helpers.mjs, not the addon.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'
import pkg from '../../index.js'
import { createMcpServer, registerReadFile } from '../../adapters/mcp.mjs'
import { after, before, describe, slowTest, test } from '../harness.mjs'
import {
  TOOLKIT_DEFINITION,
  cutMarker,
  expectedCutText,
  expectedModelText,
  expectedOutput,
  makeFixture,
  runtimeEnvironment,
  unreadableFileWorkspace,
  withNote,
} from '../helpers.mjs'

const CLI = fileURLToPath(new URL('../../bin/agent-read-file.js', import.meta.url))

const fx = makeFixture()
after(() => fx.cleanup())
const lines450 = Array.from({ length: 450 }, (_, i) => `line ${i + 1}\n`).join('')
const longFile = fx.write('src/long.txt', lines450)
const mainFile = fx.write('src/main.ts', 'export const a = 1\nexport const b = 2\n')
const lines600 = fx.write('logs/600.txt', Array.from({ length: 600 }, (_, i) => `${i + 1}\n`).join(''))
fx.write('.env', 'API_KEY=sk-secret\n')
fx.write('.env.example', 'API_KEY=\n')
fx.write('notes.txt', 'notes\n')
// 20,000 bytes in 160 lines: over the 16 KiB of text structuredContent repeats.
const wideLines = fx.write('src/wide.txt', `${'w'.repeat(124)}\n`.repeat(160))
// One 300-byte line: a budget of 128 cuts it after 34 bytes, the rest from column 35 (long-lines).
fx.write('dist/app.min.js', `${'x'.repeat(300)}\n`)
fx.write('keys/id_rsa', 'PRIVATE KEY\n')
fx.link('alias.txt', '.env')
fx.link('escape.txt', fx.secret)
fx.write('bin.dat', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]))
fs.mkdirSync(path.join(fx.ws, 'dir'))
// Over the 20 MiB media limit (a text file of any size is read): sparse, so it costs no disk.
fs.truncateSync(fx.write('huge.png', Buffer.from('89504e470d0a1a0a', 'hex')), 20 * 2 ** 20 + 1)

/** The text of a tool result's single text block. */
function textOf(result) {
  assert.equal(result.content.length, 1, JSON.stringify(result))
  assert.equal(result.content[0].type, 'text')
  return result.content[0].text
}

/**
 * Checks a successful read of `file` (as `path`, the window from `start` of `max` lines):
 * `structuredContent` is the output, the text is what a model is given for it.
 */
function assertRead(result, file, path, start = 1, max = 200) {
  assert.notEqual(result.isError, true, JSON.stringify(result))
  assert.deepEqual(result.structuredContent, expectedOutput(file, path, start, max))
  assert.equal(textOf(result), expectedModelText(file, path, start, max))
}

/** Checks a failed result: `isError`, a text starting with `code: `. */
function assertFailed(result, code) {
  assert.equal(result.isError, true, JSON.stringify(result))
  assert.equal(result.structuredContent, undefined)
  const text = textOf(result)
  assert.ok(text.startsWith(`${code}: `), `${code} expected: ${text}`)
  return text
}

/** A client connected to `agent-read-file mcp ARGS` run by this runtime (node or bun). */
async function stdioClient(args, { command = process.execPath, prefix = [CLI, 'mcp'] } = {}) {
  const transport = new StdioClientTransport({ command, args: [...prefix, ...args], env: runtimeEnvironment(), stderr: 'pipe' })
  let stderr = ''
  transport.stderr.on('data', (chunk) => (stderr += chunk))
  const client = new Client({ name: 'agent-read-file-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, transport, stderr: () => stderr }
}

/** Waits until `condition()` holds, failing after `ms`. */
async function until(condition, what, ms = 10_000) {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const call = (client, args) => client.callTool({ name: 'read_file', arguments: args })

describe('agent-read-file mcp, over stdio with the SDK Client', () => {
  let server
  before(async () => {
    server = await stdioClient(['--root', fx.ws, '--structured-content'])
  })
  after(() => server?.client.close())

  test("tools/list: read_file with the toolkit definition's description and input schema, and an output schema", async () => {
    const { tools } = await server.client.listTools()
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['read_file'],
    )
    const [tool] = tools
    assert.equal(tool.description, TOOLKIT_DEFINITION.description)
    const { $schema, ...inputSchema } = tool.inputSchema
    assert.equal($schema, 'http://json-schema.org/draft-07/schema#')
    assert.deepEqual(inputSchema, TOOLKIT_DEFINITION.parameters)
    // A text window or a media answer (an image, a notebook, a PDF).
    assert.equal(tool.outputSchema.type, 'object')
    const [text, media] = tool.outputSchema.anyOf
    assert.deepEqual(media.required, ['path', 'kind', 'parts', 'meta'])
    // `content` only for a window of at most 16 KiB: a longer one is sent once, as the text.
    assert.deepEqual(text.required, ['path', 'truncated', 'next_start_line', 'meta'])
    assert.deepEqual(Object.keys(text.properties), ['path', 'content', ...text.required.slice(1), 'continuation', 'cut_line_bytes', 'note'])
    assert.equal(text.properties.cut_line_bytes.type, 'integer')
    assert.equal(text.properties.note.type, 'string')
    assert.equal(text.additionalProperties, false)
    const { description, ...continuation } = text.properties.continuation
    assert.equal(typeof description, 'string')
    assert.deepEqual(continuation, {
      type: 'object',
      properties: { start_line: { type: 'integer', minimum: 1 }, start_column: { type: 'integer', minimum: 1 } },
      required: ['start_line', 'start_column'],
      additionalProperties: false,
    })
    assert.equal(tool.annotations.readOnlyHint, true)
  })

  test('a read: structuredContent is the ReadFileOutput, the text what a model is given', async () => {
    assertRead(await call(server.client, { path: 'src/main.ts' }), mainFile, 'src/main.ts')
    assertRead(await call(server.client, { path: './src/../src/main.ts', max_lines: 1 }), mainFile, 'src/main.ts', 1, 1)
  })

  test('paging with next_start_line reads the whole file, window by window', async () => {
    let text = ''
    let start = 1
    const starts = []
    while (start !== null) {
      starts.push(start)
      const result = await call(server.client, { path: 'src/long.txt', start_line: start })
      assertRead(result, longFile, 'src/long.txt', start)
      text += result.structuredContent.content
      start = result.structuredContent.next_start_line
    }
    assert.deepEqual(starts, [1, 201, 401])
    assert.equal(text, lines450)
  })

  test('a window over 16 KiB: its text once, structuredContent without it, checked by the client against the output schema', async () => {
    // listTools first (the 'tools/list' test may not have run): the client checks each
    // structuredContent against the schema it lists.
    await server.client.listTools()
    const result = await call(server.client, { path: 'src/wide.txt' })
    const { content, ...rest } = expectedOutput(wideLines, 'src/wide.txt')
    assert.equal(content.length, 20_000)
    assert.deepEqual(result.structuredContent, rest)
    assert.equal(textOf(result), expectedModelText(wideLines, 'src/wide.txt'))
  })

  test('every error code a model can reach is an isError result starting with the code', async () => {
    const cases = [
      [{ path: 5 }, 'INVALID_ARGUMENT'],
      [{}, 'INVALID_ARGUMENT'],
      [{ path: 'src/main.ts', max_lines: 0 }, 'INVALID_ARGUMENT'],
      [{ path: 'src/main.ts', start_line: 1.5 }, 'INVALID_ARGUMENT'],
      [{ path: 'src/nope.ts' }, 'NOT_FOUND'],
      [{ path: 'dir' }, 'NOT_FILE'],
      [{ path: 'bin.dat' }, 'BINARY_NOT_SUPPORTED'],
      [{ path: 'huge.png' }, 'SIZE_LIMIT_EXCEEDED'],
      [{ path: '../outside/secret.txt' }, 'OUTSIDE_WORKSPACE'],
      [{ path: fx.secret }, 'OUTSIDE_WORKSPACE'],
      [{ path: 'escape.txt' }, 'OUTSIDE_WORKSPACE'],
      [{ path: '.env' }, 'POLICY_DENIED'],
    ]
    for (const [args, code] of cases) assertFailed(await call(server.client, args), code)
    // PERMISSION_DENIED has its own test below (it needs a user chmod binds); INTERNAL is
    // what no input reaches by design.
  })

  test('the exact text of a failure: CODE: path: reason, and for some codes what to do instead', async () => {
    const denied = textOf(await call(server.client, { path: '.env' }))
    assert.equal(
      denied,
      'POLICY_DENIED: .env: .env is denied by ".env" (DEFAULT_DENY)\n' +
        "The workspace's rules keep this file from you; do not try to read it another way.",
    )
    assert.equal(textOf(await call(server.client, { path: 'src/nope.ts' })), 'NOT_FOUND: src/nope.ts: no such file in the workspace')
  })

  test('a misspelt path: the model is told the closest readable file, never a denied one', async () => {
    const misspelt = await call(server.client, { path: 'src/mian.ts' })
    assert.equal(
      assertFailed(misspelt, 'NOT_FOUND'),
      'NOT_FOUND: src/mian.ts: no such file in the workspace; did you mean src/main.ts?',
    )
    // `.env` and `keys/id_rsa` are one edit away, and denied.
    for (const near of ['.evn', 'keys/id_rsb']) {
      const text = assertFailed(await call(server.client, { path: near }), 'NOT_FOUND')
      assert.equal(text, `NOT_FOUND: ${near}: no such file in the workspace`)
    }
  })

  test('max_lines over 500: the model gets 500 lines and a note, not an error', async () => {
    const result = await call(server.client, { path: 'logs/600.txt', max_lines: 1000 })
    const note = 'max_lines is at most 500: 500 lines returned; read on from next_start_line'
    assert.notEqual(result.isError, true, JSON.stringify(result))
    assert.deepEqual(result.structuredContent, { ...expectedOutput(lines600, 'logs/600.txt', 1, 500), note })
    assert.equal(textOf(result), withNote(expectedModelText(lines600, 'logs/600.txt', 1, 500), note))
  })

  test('a denied secret stays denied under another spelling or a symlink; .env.example is read', async () => {
    for (const spelling of ['.env', './.env', 'src/../.env', path.join(fx.ws, '.env'), 'alias.txt']) {
      const text = assertFailed(await call(server.client, { path: spelling }), 'POLICY_DENIED')
      assert.ok(!text.includes('sk-secret'), text)
    }
    const example = path.join(fx.ws, '.env.example')
    assertRead(await call(server.client, { path: '.env.example' }), example, '.env.example')
  })

  test('50 concurrent calls each get their own window', async () => {
    const starts = Array.from({ length: 50 }, (_, i) => 1 + i * 9)
    const results = await Promise.all(starts.map((start) => call(server.client, { path: 'src/long.txt', start_line: start, max_lines: 3 })))
    results.forEach((result, i) => assertRead(result, longFile, 'src/long.txt', starts[i], 3))
  })
})

describe('agent-read-file mcp --no-structured-content: the model\'s text only', () => {
  let server
  before(async () => {
    server = await stdioClient(['--root', fx.ws, '--no-structured-content'])
  })
  after(() => server?.client.close())

  test('tools/list has no output schema; a read is its text alone, whole window or cut', async () => {
    const { tools } = await server.client.listTools()
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.outputSchema]),
      [['read_file', undefined]],
    )
    const read = await call(server.client, { path: 'src/long.txt', start_line: 449 })
    assert.deepEqual(Object.keys(read), ['content'])
    assert.equal(textOf(read), expectedModelText(longFile, 'src/long.txt', 449))
    const cut = await call(server.client, { path: 'dist/app.min.js', start_column: 200 })
    assert.deepEqual(Object.keys(cut), ['content'])
    assert.equal(textOf(cut), `dist/app.min.js line 1 of 1 from column 200 (301 bytes)\n1\t${'x'.repeat(101)}\n`)
    assert.equal(
      assertFailed(await call(server.client, { path: '.env' }), 'POLICY_DENIED').split('\n')[0],
      'POLICY_DENIED: .env: .env is denied by ".env" (DEFAULT_DENY)',
    )
  })
})

describe('agent-read-file mcp: options', () => {
  test('--deny adds to the default rules, --allow re-admits, --no-default-deny drops them', async () => {
    const denying = await stdioClient(['--root', fx.ws, '--structured-content', '--deny', 'src/*.ts', '--allow', '.env'])
    try {
      assertFailed(await call(denying.client, { path: 'src/main.ts' }), 'POLICY_DENIED')
      assertRead(await call(denying.client, { path: '.env' }), path.join(fx.ws, '.env'), '.env')
      assertFailed(await call(denying.client, { path: 'keys/id_rsa' }), 'POLICY_DENIED')
    } finally {
      await denying.client.close()
    }
    const open = await stdioClient(['--root', fx.ws, '--structured-content', '--no-default-deny'])
    try {
      assertRead(await call(open.client, { path: 'alias.txt' }), path.join(fx.ws, '.env'), 'alias.txt')
    } finally {
      await open.client.close()
    }
  })

  test('the ignore files are obeyed; --ignore-file names them, --no-ignore-files drops them', async () => {
    const draft = fx.write('drafts/draft.md', 'draft\n')
    fx.write('drafts/.cursorignore', 'draft.md\n')
    fx.write('.teamignore', 'notes.txt\n')
    const obeying = await stdioClient(['--root', fx.ws, '--structured-content'])
    try {
      const refused = await call(obeying.client, { path: 'drafts/draft.md' })
      assertFailed(refused, 'POLICY_DENIED')
      assert.match(refused.content[0].text, /denied by drafts\/\.cursorignore:1/)
    } finally {
      await obeying.client.close()
    }
    const own = await stdioClient(['--root', fx.ws, '--structured-content', '--ignore-file', '.teamignore'])
    try {
      assertRead(await call(own.client, { path: 'drafts/draft.md' }), draft, 'drafts/draft.md')
      assertFailed(await call(own.client, { path: 'notes.txt' }), 'POLICY_DENIED')
    } finally {
      await own.client.close()
    }
    const none = await stdioClient(['--root', fx.ws, '--structured-content', '--no-ignore-files'])
    try {
      assertRead(await call(none.client, { path: 'drafts/draft.md' }), draft, 'drafts/draft.md')
      assertFailed(await call(none.client, { path: '.env' }), 'POLICY_DENIED')
    } finally {
      await none.client.close()
    }
  })

  test('--max-content-bytes bounds content; the root defaults to the current directory', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--max-content-bytes', '128', '--structured-content'],
      cwd: fx.ws,
      env: runtimeEnvironment(),
      stderr: 'pipe',
    })
    const client = new Client({ name: 'agent-read-file-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const { structuredContent: out } = await call(client, { path: 'src/long.txt' })
      assert.ok(Buffer.byteLength(out.content) <= 128, out.content)
      assert.equal(out.content, lines450.slice(0, out.content.length))
      assert.equal(out.next_start_line, out.meta.returned_line_count + 1)
      assert.equal(out.truncated, true)
      // A cut line: the text the model reads holds the marker; start_column reads on.
      const cut = await call(client, { path: 'dist/app.min.js' })
      assert.equal(cut.structuredContent.content, `${'x'.repeat(34)}\n${cutMarker(1, 35, 300)}`)
      const part = 'x'.repeat(34)
      assert.equal(textOf(cut), expectedCutText({ path: 'dist/app.min.js', size: 301, lineCount: 1, line: 1, part, column: 35, length: 300 }))
      const next = await call(client, { path: 'dist/app.min.js', ...cut.structuredContent.continuation })
      assert.deepEqual(next.structuredContent.continuation, { start_line: 1, start_column: 69 })
    } finally {
      await client.close()
    }
  })

  test('files over 1 MiB are read by default; --max-file-bytes N refuses larger ones', async () => {
    fx.write('logs/big.log', 'x'.repeat(2 ** 20) + '\nend\n')
    const unbounded = await stdioClient(['--root', fx.ws, '--structured-content', '--max-file-bytes', 'Infinity'])
    const bounded = await stdioClient(['--root', fx.ws, '--structured-content', '--max-file-bytes', String(3 * 2 ** 20)])
    const plain = await stdioClient(['--root', fx.ws, '--structured-content'])
    const small = await stdioClient(['--root', fx.ws, '--structured-content', '--max-file-bytes', String(2 ** 20)])
    try {
      for (const { client } of [unbounded, bounded, plain]) {
        const { structuredContent: out } = await call(client, { path: 'logs/big.log', start_line: 2 })
        assert.deepEqual([out.content, out.meta.line_count], ['end\n', 2])
      }
      const refused = await call(small.client, { path: 'logs/big.log' })
      assertFailed(refused, 'SIZE_LIMIT_EXCEEDED')
      assert.match(refused.content[0].text, /over the limit of 1048576 bytes; --max-file-bytes lifts the limit$/)
    } finally {
      for (const { client } of [unbounded, bounded, plain, small]) await client.close()
    }
  })

  test('an image over the media limit names --max-media-bytes, answered directly or through the SDK; the flag sets it', async () => {
    const server = await stdioClient(['--root', fx.ws])
    const lifted = await stdioClient(['--root', fx.ws, '--max-media-bytes', String(64 * 2 ** 20)])
    try {
      // A plain call is answered by the server's own function; one with more in `_meta` by the SDK.
      for (const extra of [{}, { _meta: { trace: 'through the SDK' } }]) {
        const refused = await server.client.callTool({ name: 'read_file', arguments: { path: 'huge.png' }, ...extra })
        assertFailed(refused, 'SIZE_LIMIT_EXCEEDED')
        assert.match(refused.content[0].text, /over the 20971520-byte limit for images, notebooks and PDFs; --max-media-bytes lifts the limit$/)
      }
      // Within the limit it is decoded (and found no PNG it can read: only its signature).
      const read = await lifted.client.callTool({ name: 'read_file', arguments: { path: 'huge.png' } })
      assert.doesNotMatch(read.content[0].text, /SIZE_LIMIT_EXCEEDED/)
    } finally {
      await server.client.close()
      await lifted.client.close()
    }
  })

  test('a malformed command line (a number out of range too) exits 2 with the usage; a root that is no directory exits 1, named with --root', async () => {
    for (const [args, status, said] of [
      [['--max-file-bytes', '1e9'], 2, 'usage: agent-read-file mcp'],
      [['--max-file-bytes', '-1'], 2, 'usage: agent-read-file mcp'],
      [['--root', fx.ws, '--max-file-bytes', '0'], 2, '--max-file-bytes is from 1 to '],
      [['--max-content-bytes', '1e3'], 2, 'usage: agent-read-file mcp'],
      [['--root', fx.ws, 'extra'], 2, 'usage: agent-read-file mcp'],
      [['--bogus'], 2, 'usage: agent-read-file mcp'],
      [['--ignore-file', '.a', '--no-ignore-files'], 2, '--ignore-file and --no-ignore-files exclude each other'],
      [['--structured-content', '--no-structured-content'], 2, '--structured-content and --no-structured-content exclude each other'],
      [['--root', fx.ws, '--max-media-bytes', 'Infinity'], 2, 'usage: agent-read-file mcp'],
      [['--root', fx.ws, '--ignore-file', 'sub/.a'], 1, 'INVALID_ARGUMENT: ignoreFiles'],
      [['--root', path.join(fx.ws, 'missing')], 1, `INVALID_ARGUMENT: --root ${path.join(fx.ws, 'missing')}: does not exist`],
      // What `--root "$UNSET"` gives: an error, not the current directory served.
      [['--root', ''], 1, 'INVALID_ARGUMENT: --root'],
      [['--root='], 1, 'INVALID_ARGUMENT: --root'],
      [['--root', fx.ws, '--max-content-bytes', '10'], 2, '--max-content-bytes is from 128 to 4294967295 (got 10)'],
    ]) {
      const { code, stderr } = await runToExit([CLI, 'mcp', ...args], { cwd: fx.ws })
      assert.equal(code, status, `${args.join(' ')}: ${stderr}`)
      assert.ok(stderr.includes(said), stderr)
      // An unusable root or option is one line, `CODE: message`.
      if (status === 1) assert.match(stderr, /^agent-read-file mcp: [A-Z_]+: [^\n]+\n$/)
    }
  })
})

// Issue 36 §4: started without --root by a client whose working directory is / (Claude
// Desktop starts servers there), the server served the whole filesystem and said nothing.
describe('agent-read-file mcp without --root', () => {
  // Five servers started, one after another.
  slowTest('refuses the filesystem root, the home directory and above it; serves below, and says which', 60_000, async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-home-'))
    after(() => fs.rmSync(base, { recursive: true, force: true }))
    const home = path.join(fs.realpathSync(base), 'home', 'me')
    fs.mkdirSync(path.join(home, 'project'), { recursive: true })
    const env = { ...process.env, HOME: home }
    const cases = [
      ['/', "/ is the filesystem's root"],
      [path.dirname(home), `${path.dirname(home)} is above your home directory`],
      [home, `${home} is your home directory`],
    ]
    for (const [cwd, said] of cases) {
      const { code, stderr } = await runToExit([CLI, 'mcp'], { cwd, env })
      assert.equal(code, 1, stderr)
      assert.equal(
        stderr,
        `agent-read-file mcp: INVALID_ARGUMENT: --root: not given, and the current directory ${said}; name the project to serve (--root /path/to/project)\n`,
      )
    }
    // Below the home directory, or any directory named by --root (even /): served, and said.
    const project = path.join(home, 'project')
    assert.deepEqual(await runToExit([CLI, 'mcp'], { cwd: project, env }), {
      code: 0,
      signal: null,
      stderr: `agent-read-file mcp: serving ${project}\n`,
    })
    assert.deepEqual(await runToExit([CLI, 'mcp', '--root', '/'], { cwd: '/', env }), {
      code: 0,
      signal: null,
      stderr: 'agent-read-file mcp: serving /\n',
    })
  })
})

/** Runs this runtime with `args`, stdin closed; resolves with the status and stderr. */
function runToExit(args, { stdin = 'ignore', cwd, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: [stdin, 'ignore', 'pipe'], cwd, env })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stderr }))
  })
}

/**
 * A script that runs `agent-read-file mcp ARGS` as its child, with its stdio, and writes the
 * child's pid, then how it ended, into `statusFile`: so a test can tell a clean exit from one
 * the client's SIGTERM forced, and see that no process is left behind.
 */
function writeSupervisor(dir) {
  const script = path.join(dir, 'mcp-supervisor.cjs')
  fs.writeFileSync(
    script,
    `const { spawn } = require('node:child_process')
const fs = require('node:fs')
const [statusFile, ...args] = process.argv.slice(2)
const child = spawn(process.execPath, [${JSON.stringify(CLI)}, 'mcp', ...args], { stdio: 'inherit' })
fs.writeFileSync(statusFile + '.pid', String(child.pid))
let terminated = false
process.on('SIGTERM', () => { terminated = true; child.kill('SIGTERM') })
child.on('exit', (code, signal) => {
  fs.writeFileSync(statusFile, JSON.stringify({ code, signal, terminated }))
  process.exit(0)
})
`,
  )
  return script
}

const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('agent-read-file mcp: a client that goes away', () => {
  test('closing the client mid-call: the server exits by itself with status 0, nothing left', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-exit-'))
    try {
      const statusFile = path.join(dir, 'status.json')
      const server = await stdioClient([statusFile, '--root', fx.ws], { prefix: [writeSupervisor(dir)] })
      const pid = Number(fs.readFileSync(`${statusFile}.pid`, 'utf8'))
      assert.ok(alive(pid))
      const calls = Array.from({ length: 50 }, () => call(server.client, { path: 'src/long.txt' }).catch((err) => err))
      await server.client.close()
      const outcomes = await Promise.all(calls)
      assert.equal(outcomes.length, 50)
      const status = JSON.parse(fs.readFileSync(statusFile, 'utf8'))
      assert.deepEqual(status, { code: 0, signal: null, terminated: false }, server.stderr())
      assert.equal(alive(pid), false)
      assert.equal(server.stderr(), `agent-read-file mcp: serving ${fx.ws}\n`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a client that dies (both pipes cut mid-call): status 0, no stack trace', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--root', fx.ws], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const ended = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    send({
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'crash', version: '1' } },
    })
    // The first answer shows the server up; then calls, and the client is gone.
    await new Promise((resolve) => child.stdout.once('data', resolve))
    send({ method: 'notifications/initialized' })
    for (let id = 1; id <= 50; id++) {
      send({ id, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'src/long.txt' } } })
    }
    child.stdout.destroy()
    child.stdin.destroy()
    assert.deepEqual(await ended, { code: 0, signal: null }, stderr)
    assert.equal(stderr, `agent-read-file mcp: serving ${fx.ws}\n`)
  })
})

// Root reads anything, so as root the server runs as `nobody`, dropped after its modules are
// loaded (the checkout may be in a directory `nobody` cannot read).
describe('agent-read-file mcp: PERMISSION_DENIED', () => {
  test('a file the server may not read is PERMISSION_DENIED', async () => {
    const { base, ws, cleanup } = unreadableFileWorkspace('mcp-perm-')
    const script = path.join(base, 'as-nobody.cjs')
    const require = createRequire(import.meta.url)
    const modules = [
      require.resolve('../../bin/mcp.js'),
      require.resolve('../../adapters/mcp.js'),
      require.resolve('../../bin/stdio-transport.js'),
    ]
    fs.writeFileSync(
      script,
      `const modules = ${JSON.stringify(modules)}
const [mcp] = modules.map((m) => require(m))
if (process.getuid() === 0) { process.setgid(65534); process.setuid(65534) }
mcp.mcpCommand(process.argv.slice(2))
`,
    )
    const server = await stdioClient(['--root', ws, '--structured-content'], { prefix: [script] })
    try {
      assertRead(await call(server.client, { path: 'open.txt' }), path.join(ws, 'open.txt'), 'open.txt')
      const text = assertFailed(await call(server.client, { path: 'locked.txt' }), 'PERMISSION_DENIED')
      assert.ok(text.startsWith('PERMISSION_DENIED: locked.txt: '), text)
    } finally {
      await server.client.close()
      cleanup()
    }
  })
})

/** A client connected in process to `server`. */
async function inProcessClient(server) {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'agent-read-file-test', version: '1.0.0' })
  await client.connect(clientSide)
  return client
}

describe('agent-read-file/mcp in process', () => {
  test("a cut line: structuredContent carries continuation (the client checks it against the output schema), the text the marker", async () => {
    const client = await inProcessClient(createMcpServer({ workspaceRoot: fx.ws, maxContentBytes: 128 }, { structuredContent: true }))
    try {
      // listTools makes the client check every structuredContent against the output schema.
      await client.listTools()
      const first = await call(client, { path: 'dist/app.min.js' })
      assert.notEqual(first.isError, true, JSON.stringify(first))
      assert.deepEqual(first.structuredContent.continuation, { start_line: 1, start_column: 35 })
      assert.equal(first.structuredContent.cut_line_bytes, 300)
      assert.ok(first.structuredContent.content.endsWith(cutMarker(1, 35, 300)))
      assert.equal(
        textOf(first),
        `dist/app.min.js line 1 of 1 (301 bytes)\n1\t${'x'.repeat(34)}\n[line 1 continues at column 35 of 300; next: start_line=1 start_column=35]\n`,
      )
      let out = first.structuredContent
      let text = ''
      while (out.continuation !== undefined) {
        text += out.content.slice(0, out.content.indexOf('\n'))
        out = (await call(client, { path: 'dist/app.min.js', ...out.continuation })).structuredContent
      }
      assert.equal(text + out.content, `${'x'.repeat(300)}\n`)
      const invalid = assertFailed(await call(client, { path: 'dist/app.min.js', start_column: 0 }), 'INVALID_ARGUMENT')
      assert.match(invalid, /start_column must be an integer >= 1/)
    } finally {
      await client.close()
    }
  })

  test('createMcpServer: an McpServer of the SDK, read_file answering', async () => {
    const server = createMcpServer({ workspaceRoot: fx.ws }, { structuredContent: true })
    assert.ok(server instanceof McpServer)
    const client = await inProcessClient(server)
    assertRead(await call(client, { path: 'src/main.ts' }), mainFile, 'src/main.ts')
    assertFailed(await call(client, { path: '.env' }), 'POLICY_DENIED')
    // Checked against the output schema listed: a window over 16 KiB has no content there.
    await client.listTools()
    const wide = await call(client, { path: 'src/wide.txt' })
    const { content, ...rest } = expectedOutput(wideLines, 'src/wide.txt')
    assert.deepEqual(wide.structuredContent, rest)
    assert.equal(textOf(wide), expectedModelText(wideLines, 'src/wide.txt'))
    await client.close()
  })

  test('by default, or structuredContent: false: no output schema, the text alone, from createMcpServer and registerReadFile', async () => {
    const servers = []
    for (const options of [{ structuredContent: false }, {}, undefined, null]) {
      const mine = new McpServer({ name: 'mine', version: '1.0.0' })
      registerReadFile(mine, { workspaceRoot: fx.ws }, options)
      servers.push(createMcpServer({ workspaceRoot: fx.ws }, options), mine)
    }
    for (const server of servers) {
      const client = await inProcessClient(server)
      assert.equal((await client.listTools()).tools[0].outputSchema, undefined)
      const result = await call(client, { path: 'src/main.ts' })
      assert.deepEqual(result, { content: [{ type: 'text', text: expectedModelText(mainFile, 'src/main.ts') }] })
      await client.close()
    }
    // Asked for: structuredContent and its schema.
    for (const options of [{ structuredContent: true }]) {
      const client = await inProcessClient(createMcpServer({ workspaceRoot: fx.ws }, options))
      assert.equal((await client.listTools()).tools[0].outputSchema.type, 'object')
      assertRead(await call(client, { path: 'src/main.ts' }), mainFile, 'src/main.ts')
      await client.close()
    }
  })

  test('a structuredContent that is not a boolean is INVALID_ARGUMENT, thrown before any toolkit is made', () => {
    const invalid = (got) => ({
      code: 'INVALID_ARGUMENT',
      message: `INVALID_ARGUMENT: structuredContent: options.structuredContent must be a boolean (got ${got})`,
    })
    assert.throws(() => createMcpServer({ workspaceRoot: fx.ws }, { structuredContent: 'no' }), invalid('string'))
    assert.throws(() => createMcpServer({ workspaceRoot: fx.ws }, { structuredContent: null }), invalid('null'))
    assert.throws(() => registerReadFile(new McpServer({ name: 'm', version: '1' }), { workspaceRoot: fx.ws }, { structuredContent: 0 }), invalid('number'))
    const throwing = {
      get structuredContent() {
        throw new Error('trap')
      },
    }
    assert.throws(() => createMcpServer({ workspaceRoot: '/nonexistent/nowhere' }, throwing), { code: 'INVALID_ARGUMENT', message: /options\.structuredContent could not be read/ })
  })

  test('the CommonJS entry makes a server of the CommonJS SDK', () => {
    const require = createRequire(import.meta.url)
    const cjs = require('../../adapters/mcp.js')
    const { McpServer: CjsMcpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
    assert.ok(cjs.createMcpServer({ workspaceRoot: fx.ws }) instanceof CjsMcpServer)
  })

  test("registerReadFile takes a server of another copy of the SDK: here the CommonJS build's, handed to the ES module entry", async () => {
    const require = createRequire(import.meta.url)
    const { McpServer: CjsMcpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
    const { InMemoryTransport: CjsInMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js')
    const server = new CjsMcpServer({ name: 'mine', version: '1.0.0' })
    assert.ok(!(server instanceof McpServer), 'a class the ES module entry did not load')
    registerReadFile(server, { workspaceRoot: fx.ws }, { structuredContent: true })
    const [serverSide, clientSide] = CjsInMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'agent-read-file-test', version: '1.0.0' })
    await client.connect(clientSide)
    assertRead(await call(client, { path: 'src/main.ts' }), mainFile, 'src/main.ts')
    await client.close()
    for (const notAServer of [{}, null, 'server', { registerTool() {} }]) {
      assert.throws(() => registerReadFile(notAServer, { workspaceRoot: fx.ws }), TypeError)
    }
  })

  test('registerReadFile adds read_file beside a zod tool of your own', async () => {
    const server = new McpServer({ name: 'mine', version: '1.0.0' })
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }))
    const registered = registerReadFile(server, pkg.createAgentToolkit({ workspaceRoot: fx.ws, defaultDeny: false }), { structuredContent: true })
    const client = await inProcessClient(server)
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['echo', 'read_file'])
    assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content, [{ type: 'text', text: 'hi' }])
    assertRead(await call(client, { path: '.env' }), path.join(fx.ws, '.env'), '.env')
    registered.remove()
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['echo'],
    )
    await client.close()
    assert.throws(() => registerReadFile({}, { workspaceRoot: fx.ws }), TypeError)
  })

  test("the client's cancellation aborts the read", async () => {
    let seen
    const stalled = {
      readFile: (input, options) =>
        new Promise((resolve, reject) => {
          seen = options?.signal
          seen?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { code: 'ABORT_ERR' })))
        }),
    }
    const client = await inProcessClient(createMcpServer(stalled))
    const controller = new AbortController()
    const pending = client.callTool({ name: 'read_file', arguments: { path: 'a' } }, undefined, { signal: controller.signal })
    await until(() => seen !== undefined, 'readFile called with a signal')
    assert.equal(seen.aborted, false)
    controller.abort()
    await assert.rejects(pending)
    await until(() => seen.aborted, 'the signal aborted')
    await client.close()
  })

  test('a toolkit made from options closes with the server; a toolkit given stays open', async () => {
    const given = pkg.createAgentToolkit({ workspaceRoot: fx.ws })
    const fromOptions = createMcpServer({ workspaceRoot: fx.ws, defaultDeny: false })
    const fromToolkit = createMcpServer(given)
    for (const server of [fromOptions, fromToolkit]) await (await inProcessClient(server)).close()
    assert.equal(given.readFileSync({ path: 'notes.txt' }).content, 'notes\n')
    // The closed toolkit answers the spec's closed-toolkit error through the server's tool.
    const reopened = await inProcessClient(fromOptions)
    const text = assertFailed(await call(reopened, { path: 'notes.txt' }), 'INVALID_ARGUMENT')
    assert.match(text, /closed/)
    await reopened.close()
    given.close()
  })
})
