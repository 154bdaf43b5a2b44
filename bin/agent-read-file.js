#!/usr/bin/env node
'use strict'
// agent-read-file <path> [--root DIR] [--start-line N] [--max-lines N]
// Prints the read_file output as JSON; on failure prints {"error":{"code","message"}} to
// stderr and exits 1 (2 for a malformed command line).

const path = require('node:path')
const { parseArgs } = require('node:util')
const { readFileSync } = require('../index.js')

const USAGE = 'usage: agent-read-file <path> [--root DIR] [--start-line N] [--max-lines N]'

function fail(code, message, exitCode) {
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`)
  process.exit(exitCode)
}

function parseCommandLine(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      root: { type: 'string' },
      'start-line': { type: 'string' },
      'max-lines': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    process.exit(0)
  }
  if (positionals.length !== 1) throw new Error(`expected exactly one path\n${USAGE}`)
  const input = { path: positionals[0] }
  // Numbers go to the addon as numbers; anything unparsable becomes NaN, which the addon
  // rejects with a message naming the option's field.
  if (values['start-line'] !== undefined) input.start_line = Number(values['start-line'])
  if (values['max-lines'] !== undefined) input.max_lines = Number(values['max-lines'])
  return { root: values.root ?? process.cwd(), input }
}

let command
try {
  command = parseCommandLine(process.argv.slice(2))
} catch (err) {
  fail('INVALID_ARGUMENT', err.message, 2)
}
try {
  const output = readFileSync(path.resolve(command.root), command.input)
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`)
} catch (err) {
  fail(err.code ?? 'INTERNAL', err.message, 1)
}
