'use strict'
// `agent-read-file mcp`: the read_file tool as an MCP server over stdio, for MCP clients
// that launch servers as commands. Loaded only for that command: it loads the MCP SDK.

const {
  UsageError,
  parseOptions,
  decimal,
  LIMIT_FLAG_OPTIONS,
  limitOptionsOf,
  withLimitFlags,
  workspaceRoot,
  parseOrExit,
  print,
  endQuietlyOnClosedStdout,
  loadPackage,
  requireOrExit,
  rootError,
} = require('./command-line.js')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { codedError } = require('../lib/errors.js')

const MCP_USAGE = `usage: agent-read-file mcp [--root DIR] [--deny GLOB]... [--allow GLOB]...
                           [--max-content-bytes N] [--max-file-bytes N|Infinity]
                           [--max-read-tokens N|Infinity] [--max-media-bytes N] [--no-default-deny]
                           [--ignore-file NAME]... [--no-ignore-files] [--structured-content]`

const MCP_HELP = `${MCP_USAGE}

Serves the read_file tool over stdio to an MCP client (Model Context Protocol): the
stateless revision 2026-07-28, and 2025-11-25 and 2025-06-18, whichever the client speaks.

options:
  --root DIR              the workspace root (default: the current directory, unless it
                          is / or holds your home directory: those only given as --root)
  --deny GLOB             refuse files matching this gitignore-style rule (POLICY_DENIED);
                          repeatable; added to the default rules
  --allow GLOB            re-admit files a deny rule covers; repeatable
  --no-default-deny       drop the default rules (.env, private keys, .ssh/, .git/, ...)
  --ignore-file NAME      obey the workspace's ignore files of this name (gitignore syntax,
                          nested like git's); repeatable; replaces the default names
                          (.aiignore, .cursorignore, .geminiignore, .clineignore, .rooignore,
                          .aiderignore, .codeiumignore, .agentreadfileignore)
  --no-ignore-files       obey no ignore file of the workspace
  --max-content-bytes N   the most bytes of content one result carries (128 to 4294967295)
  --max-file-bytes N      the largest file read, in bytes, or Infinity (default: Infinity);
                          a file over 1 MiB is scanned in chunks, never read whole
  --max-read-tokens N     the most tokens (o200k_base, estimated) of one result's text,
                          1000 or more, or Infinity (default: 25000)
  --max-media-bytes N     the largest image, notebook or PDF read, in bytes (default: 20971520)
  --structured-content    answer each read's output as structuredContent too, under an
                          output schema, for programs (a window's text only up to 16 KiB;
                          a longer one is in the text item alone); by default a read answers
                          the model's text only, as some clients (Claude Code, GitHub Copilot)
                          give the model structuredContent in its place
  --no-structured-content the default: the model's text only, no output schema
  -h, --help              this help

An MCP client's configuration (npx installs the MCP SDK beside the package):
  { "command": "npx", "args": ["-y", "-p", "agent-read-file", "-p", "@modelcontextprotocol/sdk",
    "-p", "zod@4", "agent-read-file", "mcp", "--root", "/path/to/project"] }

The server ends when the client closes its stdin.`

function parseMcpCommandLine(argv) {
  const { values, positionals } = parseOptions(argv, {
    root: { type: 'string' },
    deny: { type: 'string', multiple: true },
    allow: { type: 'string', multiple: true },
    'no-default-deny': { type: 'boolean' },
    'ignore-file': { type: 'string', multiple: true },
    'no-ignore-files': { type: 'boolean' },
    'max-content-bytes': { type: 'string' },
    ...LIMIT_FLAG_OPTIONS,
    'structured-content': { type: 'boolean' },
    'no-structured-content': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  })
  if (values.help) return { action: 'help' }
  if (positionals.length !== 0) throw new UsageError(`mcp takes no path (got ${JSON.stringify(positionals[0])})`)
  const budget = decimal('max-content-bytes', values['max-content-bytes'], 128, 0xffffffff)
  const limits = limitOptionsOf(values)
  if (values['no-ignore-files'] && values['ignore-file'] !== undefined) {
    throw new UsageError('--ignore-file and --no-ignore-files exclude each other')
  }
  if (values['structured-content'] && values['no-structured-content']) {
    throw new UsageError('--structured-content and --no-structured-content exclude each other')
  }
  // Loaded after the command line is checked: a usage error needs no native addon, and a
  // missing one is said in one paragraph.
  loadPackage()
  const options = {
    // Resolved when serving: an unusable root is `CODE: message`, exit 1, not a usage error.
    workspaceRoot: values.root,
    defaultDeny: !values['no-default-deny'],
    deny: values.deny ?? [],
    allow: values.allow ?? [],
    ignoreFiles: values['no-ignore-files'] ? false : (values['ignore-file'] ?? true),
    ...limits,
  }
  if (budget !== undefined) options.maxContentBytes = budget
  return { action: 'serve', options, structuredContent: values['structured-content'] === true }
}

/**
 * Serves the toolkit of `options` (its results with `structuredContent` or not) until stdin
 * ends; a root or rule that cannot be used is `CODE: message`, exit 1, and so is stdin or
 * stdout failing, other than by the client closing them (exit 0).
 */
async function serve(options, structuredContent) {
  const { createMcpServer } = loadMcpAdapter()
  const { readFileAnswer } = require('../adapters/mcp-core.js')
  const { DEFINITION } = require('../adapters/schemas.js')
  const { BoundedStdioTransport } = require('./stdio-transport.js')
  const { discoverResult } = require('./mcp-revision.js')
  const { claimsMedia } = require('../lib/native.js')
  const { version } = require('../package.json')
  let toolkit, root
  try {
    root = servedRoot(options.workspaceRoot)
    try {
      toolkit = loadPackage().createAgentToolkit({ ...options, workspaceRoot: root })
    } catch (err) {
      throw rootError(err, root)
    }
  } catch (err) {
    process.stderr.write(`agent-read-file mcp: ${err.message}\n`)
    process.exit(1)
  }
  // What the client's log shows: which directory the model may read.
  process.stderr.write(`agent-read-file mcp: serving ${root}\n`)
  const server = createMcpServer(toolkit, { structuredContent })
  server.server.onclose = () => toolkit.close()
  // The model's calls of read_file skip the SDK's layers; the same function answers them.
  const answer = readFileAnswer(toolkit, structuredContent)
  const transport = new BoundedStdioTransport({
    directCall: { tool: DEFINITION.name, answer },
    // The one tool never changes: no list_changed to listen for.
    discover: () => discoverResult({ name: 'agent-read-file', version }, { tools: {} }),
    isMediaCall: (request) => isMediaCall(request, DEFINITION.name, claimsMedia),
    // A size refusal names this command's flag, whoever answered the call.
    reviseAnswer: namingFlags,
  })
  transport.onerror = (err) => {
    process.stderr.write(`agent-read-file mcp: ${err.message}\n`)
    process.exitCode = 1
  }
  // When the client closes stdin (or stdout), nothing keeps the process alive once the calls
  // in flight are answered: it ends with status 0.
  await server.connect(transport)
}

/**
 * `message` (a JSON-RPC response) with a size refusal's text naming the server's flag that
 * lifts it (`--max-file-bytes`, `--max-media-bytes`), not the toolkit's option.
 */
function namingFlags(message) {
  const [item] = message?.result?.isError === true ? message.result.content : []
  if (item?.type !== 'text') return message
  const text = withLimitFlags(item.text)
  if (text === item.text) return message
  return { ...message, result: { ...message.result, content: [{ ...item, text }, ...message.result.content.slice(1)] } }
}

/**
 * The root to serve: `--root`, or the current directory. Clients start servers wherever they
 * please (Claude Desktop in `/`): a current directory that is the filesystem's root, the
 * home directory or one above it is served only when `--root` names it. Asked of the path as
 * spelt and as resolved, each against the home directory as spelt and as resolved: a symlink
 * on either side does not slip past.
 */
function servedRoot(root) {
  const served = workspaceRoot(root)
  if (root !== undefined) return served
  const real = (dir) => {
    try {
      return fs.realpathSync(dir)
    } catch {
      return path.resolve(dir)
    }
  }
  const home = os.homedir()
  for (const dir of new Set([path.resolve(served), real(served)])) {
    for (const own of new Set([path.resolve(home), real(home)])) {
      const what = notServedUnlessNamed(dir, own)
      if (what !== undefined) {
        throw codedError(
          'INVALID_ARGUMENT',
          '--root',
          `not given, and the current directory ${dir} is ${what}; name the project to serve (--root /path/to/project)`,
        )
      }
    }
  }
  return served
}

/** What `dir` is when it is the filesystem's root, `home` or above it; else `undefined`. */
function notServedUnlessNamed(dir, home) {
  if (dir === path.parse(dir).root) return "the filesystem's root"
  if (dir === home) return 'your home directory'
  return path.relative(dir, home).startsWith('..') ? undefined : 'above your home directory'
}

/**
 * Whether `request` calls `tool` on a path named like an image, a notebook or a PDF (the
 * engine's `claimsMedia`): a call that decodes, served in the transport's media lane. (A file
 * named otherwise is read as text first, and decoded only when it is not text.)
 */
function isMediaCall(request, tool, claimsMedia) {
  const { name, arguments: args } = request.params ?? {}
  const path = args?.path
  return request.method === 'tools/call' && name === tool && typeof path === 'string' && claimsMedia(path)
}

/**
 * `agent-read-file/mcp`; without the MCP SDK (an optional peer dependency), its one-line
 * error on stderr naming what to install, and exit 1.
 */
function loadMcpAdapter() {
  return requireOrExit('../adapters/mcp.js', /^ERR_MCP_SDK_MISSING$/, 'agent-read-file mcp')
}

/** `agent-read-file mcp …`. */
function mcpCommand(argv) {
  const command = parseOrExit(parseMcpCommandLine, argv, MCP_USAGE)
  if (command.action === 'help') {
    endQuietlyOnClosedStdout()
    return print(`${MCP_HELP}\n`)
  }
  return serve(command.options, command.structuredContent)
}

module.exports = { mcpCommand, MCP_USAGE }
