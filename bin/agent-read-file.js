#!/usr/bin/env node
'use strict'
// The command line: read a window of a file as a person or a script wants it (`mcp`: serve
// the tool to an MCP client, in mcp.js). Exit 0 on a read, 1 when the read failed (the
// tool's error), 2 for a malformed command line; a closed pipe (`| head`) ends quietly with 0.

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
  rootError,
} = require('./command-line.js')
const { mcpCommand, MCP_USAGE } = require('./mcp.js')
const { version } = require('../package.json')

const USAGE = `usage: agent-read-file <path> [--root DIR] [--start-line N | --tail N] [--start-column N]
                       [--max-lines N] [--pages P] [--outline | --symbol NAME | --ranges R]
                       [--format text|json] [--no-line-numbers]
                       [--max-file-bytes N|Infinity] [--max-read-tokens N|Infinity]
                       [--max-media-bytes N]
${MCP_USAGE.replace('usage: ', '       ')}
       agent-read-file --help | --version`

const HELP = `${USAGE}

Reads a line window of a file inside a workspace, confined to it by the kernel; an image, a
Jupyter notebook or a PDF as a model is given it (told by its content). With \`mcp\`,
serves the read_file tool to an MCP client over stdio (\`agent-read-file mcp --help\`).

options:
  --root DIR        the workspace root (default: the current directory)
  --start-line N    first line of the window, from 1 (default: 1)
  --tail N          the last N lines instead (start_line -N; at most --max-lines of them)
  --start-column N  the byte of the first line to start at, from 1 (default: 1): reads
                    the rest of a line cut at 1 MiB, as the closing \`[next: …]\` line says
  --max-lines N     lines in the window, 1 to 500 (default: 200)
  --pages P         a PDF's pages ("3", "3-7", "21-"; at most 20) or a notebook's cells
  --outline         the file's outline: each definition's lines and first line (a page of
                    --max-lines definitions from --start-line)
  --symbol NAME     a definition by its name ("parse", "Parser.parse", "Parser::parse";
                    "parse#2" the second of several), its doc comment included
  --ranges R        several line ranges in one read, comma-separated ("10-40,120-160";
                    at most 16)
  --format FORMAT   text: what a model is given (a header line, the lines numbered, and a
                    closing \`[next: start_line=N]\` line when lines are left; an image
                    named where it stands); json: the tool's whole output object (images
                    in base64). Default: text when stdout is a terminal (a
                    person reading), json when it is a pipe or a file (a script, which wants
                    every field).
  --no-line-numbers the text's lines without their numbers
  --max-file-bytes N
                    the largest file read, in bytes, or Infinity (default: Infinity); a
                    file over 1 MiB is scanned in chunks, never read whole
  --max-read-tokens N
                    the most tokens (o200k_base, estimated) of one read's text, 1000 or
                    more, or Infinity (default: 25000); a longer window ends at its last
                    whole line within it, or its line is cut, and the closing line says
                    where to read on
  --max-media-bytes N
                    the largest image, notebook or PDF read, in bytes (default: 20971520)
  -h, --help        this help
  -v, --version     the version

examples:
  agent-read-file src/main.ts                       the first 200 lines
  agent-read-file src/main.ts --start-line 201      the next window
  agent-read-file logs/dev.log --tail 50            the end of a log, while it is written
  agent-read-file README.md --max-lines 20 --format text | less
  agent-read-file src/main.ts | jq .meta.line_count
  agent-read-file spec.pdf --pages 21-40 --format text
  agent-read-file src/parser.rs --outline           what it defines, and where
  agent-read-file src/parser.rs --symbol Parser.parse_statement
  agent-read-file src/parser.rs --ranges 10-40,120-160
  agent-read-file ./mcp                             a file named mcp
  agent-read-file mcp --root ~/project              an MCP server for that project

exit status: 0 read, 1 the read failed (CODE: message on stderr; with --format json,
{"error":{"code","message"}}), 2 a malformed command line
(a number out of its range included).`

function parseCommandLine(argv) {
  const { values, positionals } = parseOptions(argv, {
    root: { type: 'string' },
    'start-line': { type: 'string' },
    tail: { type: 'string' },
    'start-column': { type: 'string' },
    'max-lines': { type: 'string' },
    pages: { type: 'string' },
    outline: { type: 'boolean' },
    symbol: { type: 'string' },
    ranges: { type: 'string' },
    format: { type: 'string' },
    'no-line-numbers': { type: 'boolean' },
    ...LIMIT_FLAG_OPTIONS,
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  })
  if (values.help) return { action: 'help' }
  if (values.version) return { action: 'version' }
  if (positionals.length !== 1) throw new UsageError(`expected one path, got ${positionals.length}`)
  const format = values.format ?? (process.stdout.isTTY ? 'text' : 'json')
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format is text or json (got ${JSON.stringify(format)})`)
  const input = { path: positionals[0] }
  if (values['start-line'] !== undefined && values.tail !== undefined) throw new UsageError('--start-line and --tail exclude each other')
  const tail = decimal('tail', values.tail, 1, Number.MAX_SAFE_INTEGER)
  const startLine = tail === undefined ? decimal('start-line', values['start-line'], 1, Number.MAX_SAFE_INTEGER) : -tail
  const startColumn = decimal('start-column', values['start-column'], 1, Number.MAX_SAFE_INTEGER)
  const maxLines = decimal('max-lines', values['max-lines'], 1, 500)
  if (startLine !== undefined) input.start_line = startLine
  if (startColumn !== undefined) input.start_column = startColumn
  if (maxLines !== undefined) input.max_lines = maxLines
  if (values.pages !== undefined) input.pages = values.pages
  const code = ['outline', 'symbol', 'ranges'].filter((name) => values[name] !== undefined)
  if (code.length > 1) throw new UsageError(`--${code[0]} and --${code[1]} exclude each other`)
  if (values.outline) input.outline = true
  if (values.symbol !== undefined) input.symbol = values.symbol
  if (values.ranges !== undefined) input.ranges = values.ranges.split(',')
  const lineNumbers = !values['no-line-numbers']
  const limits = limitOptionsOf(values)
  return { action: 'read', root: values.root, input, format, lineNumbers, limits }
}

/**
 * The command's input read beneath `root` by a toolkit's `view` (text, or an image, notebook
 * or PDF), with no deny rules of its own: so that an unusable root is told as such, by the flag
 * that named it, and the limit flags apply (and are named by a size refusal). The toolkit's
 * lines are numbered unless `--no-line-numbers`. Answers `{ output, content }`: `content` the
 * text a model is given (none for `--format json`).
 */
async function readWith(createAgentToolkit, root, { input, lineNumbers, limits, format }) {
  let toolkit
  try {
    // A person asked for a window gets it: an outline only with --outline.
    toolkit = createAgentToolkit({ workspaceRoot: root, deny: [], lineNumbers, outlines: false, ...limits })
  } catch (err) {
    throw rootError(err, root)
  }
  try {
    if (format === 'json') return { output: await toolkit.view(input) }
    const { readForModel } = require('../lib/run-tool-call.js')
    return await readForModel(toolkit, toolkit.view, input)
  } catch (err) {
    if (err?.code === 'SIZE_LIMIT_EXCEEDED') err.message = withLimitFlags(err.message)
    throw err
  } finally {
    toolkit.close()
  }
}

async function main() {
  const argv = process.argv.slice(2)
  // The MCP server owns stdout's errors: its transport tells a client gone from a failure.
  if (argv[0] === 'mcp') return mcpCommand(argv.slice(1))
  endQuietlyOnClosedStdout()
  const command = parseOrExit(parseCommandLine, argv, USAGE)
  if (command.action === 'help') return print(`${HELP}\n`)
  if (command.action === 'version') return print(`${version}\n`)
  const { createAgentToolkit } = loadPackage()
  const { renderFailure } = require('../lib/model-text.js')
  let answer
  try {
    const root = workspaceRoot(command.root)
    answer = await readWith(createAgentToolkit, root, command)
  } catch (err) {
    const code = err.code ?? 'INTERNAL'
    const said = command.format === 'json' ? JSON.stringify({ error: { code, message: err.message } }) : renderFailure(code, err.message)
    process.stderr.write(`${said}\n`)
    process.exitCode = 1
    return
  }
  if (command.format === 'json') return print(`${JSON.stringify(answer.output, null, 2)}\n`)
  print(answer.content)
}

main()
