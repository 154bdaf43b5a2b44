#!/usr/bin/env node
'use strict'
// The command line: read a window of a file as a person or a script wants it. Exit 0 on a
// read, 1 when the read failed (the tool's error), 2 for a malformed command line; a closed
// pipe (`| head`) ends quietly with 0.

const path = require('node:path')
const { parseArgs } = require('node:util')
const { readFileSync } = require('../index.js')
const { version } = require('../package.json')

const USAGE = `usage: agent-read-file <path> [--root DIR] [--start-line N] [--max-lines N] [--format text|json]
       agent-read-file --help | --version`

const HELP = `${USAGE}

Reads a line window of a file inside a workspace, confined to it by the kernel.

options:
  --root DIR        the workspace root (default: the current directory)
  --start-line N    first line of the window, from 1 (default: 1)
  --max-lines N     lines in the window, 1 to 500 (default: 200)
  --format FORMAT   text: the lines as they are, and a footer on stderr saying where the
                    window is and how to read on; json: the tool's whole output object.
                    Default: text when stdout is a terminal (a person reading), json when it
                    is a pipe or a file (a script, which wants every field).
  -h, --help        this help
  -v, --version     the version

examples:
  agent-read-file src/main.ts                       the first 200 lines
  agent-read-file src/main.ts --start-line 201      the next window
  agent-read-file README.md --max-lines 20 --format text | less
  agent-read-file src/main.ts | jq .meta.line_count

exit status: 0 read, 1 the read failed (CODE: message on stderr), 2 a malformed command line.`

/** A malformed command line: said with the usage on stderr, exit 2. */
class UsageError extends Error {}

/** A whole decimal number, as typed: `12`, not `1e2`, `0x10`, `1.5`, `-1` or ``. */
function decimal(option, text) {
  if (text === undefined) return undefined
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`--${option} takes a whole decimal number (got ${JSON.stringify(text)})`)
  return Number(text)
}

function parseCommandLine(argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        root: { type: 'string' },
        'start-line': { type: 'string' },
        'max-lines': { type: 'string' },
        format: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    })
  } catch (err) {
    throw new UsageError(err.message)
  }
  const { values, positionals } = parsed
  if (values.help) return { action: 'help' }
  if (values.version) return { action: 'version' }
  if (positionals.length !== 1) throw new UsageError(`expected one path, got ${positionals.length}`)
  const format = values.format ?? (process.stdout.isTTY ? 'text' : 'json')
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format is text or json (got ${JSON.stringify(format)})`)
  const input = { path: positionals[0] }
  const startLine = decimal('start-line', values['start-line'])
  const maxLines = decimal('max-lines', values['max-lines'])
  if (startLine !== undefined) input.start_line = startLine
  if (maxLines !== undefined) input.max_lines = maxLines
  return { action: 'read', root: values.root ?? process.cwd(), input, format }
}

/** Where the window is and how to read on, for a person: `lines 1-200 of 1,234; next: …`. */
function footer(output) {
  const count = (n) => n.toLocaleString('en-US')
  const { line_count: total, returned_line_count: returned } = output.meta
  if (returned === 0) return `no lines there (the file has ${count(total)})`
  const first = output.next_start_line === null ? total - returned + 1 : output.next_start_line - returned
  const range = `lines ${count(first)}-${count(first + returned - 1)} of ${count(total)}`
  return output.next_start_line === null ? range : `${range}; next: --start-line ${output.next_start_line}`
}

/** Writes to stdout; a reader that went away (`| head`) ends the program quietly. */
function print(text) {
  try {
    process.stdout.write(text)
  } catch (err) {
    if (err.code === 'EPIPE') process.exit(0)
    throw err
  }
}
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})

function main() {
  let command
  try {
    command = parseCommandLine(process.argv.slice(2))
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`agent-read-file: ${err.message}\n${USAGE}\n`)
    process.exit(2)
  }
  if (command.action === 'help') return print(`${HELP}\n`)
  if (command.action === 'version') return print(`${version}\n`)
  let output
  try {
    output = readFileSync(path.resolve(command.root), command.input)
  } catch (err) {
    const code = err.code ?? 'INTERNAL'
    const said = command.format === 'json' ? JSON.stringify({ error: { code, message: err.message } }) : err.message
    process.stderr.write(`${said}\n`)
    process.exitCode = 1
    return
  }
  if (command.format === 'json') return print(`${JSON.stringify(output, null, 2)}\n`)
  print(output.content)
  process.stderr.write(`${footer(output)}\n`)
}

main()
