// The MCP SDK's floor for benchmark/mcp.mjs: a stdio server on the SDK's own McpServer and
// StdioServerTransport with one tool, `fixed_text`, that answers what it made once at start.
// Whatever a server answering the same costs beyond this is its own.
//
//   node benchmark/mcp-floor-server.mjs NAME=FILE:LINES...
//   node benchmark/mcp-floor-server.mjs --answer=ROOT NAME=FILE:LINES...
//
// Each argument names an answer: the first LINES lines of FILE as a text, with no output
// schema; or, with `--answer`, the tool result `agent-read-file mcp` gives for that window
// of FILE in the workspace ROOT (the model's text and `structuredContent`), under the read_file
// tool's output schema, which the SDK's server and `Client` then check as they check
// read_file's. `fixed_text({ name })` answers it.

import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import * as z from 'zod'

const require = createRequire(import.meta.url)

/** The first `count` lines of `file`, each with its `\n`. */
function firstLines(file, count) {
  const text = fs.readFileSync(file, 'utf8')
  let end = 0
  for (let i = 0; i < count && end !== -1; i++) end = text.indexOf('\n', end) + 1 || -1
  return end === -1 ? text : text.slice(0, end)
}

/** `NAME=FILE:LINES` arguments as a list of `[name, file, lines]`. */
function windowsOf(args) {
  return args.map((arg) => {
    const [, name, file, lines] = /^([^=]+)=(.+):(\d+)$/.exec(arg) ?? []
    if (!name) throw new Error(`expected NAME=FILE:LINES, got ${arg}`)
    return [name, file, Number(lines)]
  })
}

/** The text answers: a Map from name to tool result. */
function textAnswers(windows) {
  const answer = (file, lines) => ({ content: [{ type: 'text', text: firstLines(file, lines) }] })
  return new Map(windows.map(([name, file, lines]) => [name, answer(file, lines)]))
}

/** read_file's answers in the workspace `root`, and its output schema as the SDK takes it. */
async function readFileAnswers(root, windows) {
  const { createAgentToolkit } = require('../index.js')
  const { readFileCall } = require('../adapters/mcp-core.js')
  const { outputSchema } = require('../adapters/schemas.js')
  const toolkit = createAgentToolkit({ workspaceRoot: root })
  const call = readFileCall(toolkit)
  const answers = new Map()
  for (const [name, file, lines] of windows) {
    answers.set(name, await call({ path: path.relative(root, file), max_lines: lines }))
  }
  toolkit.close()
  // As adapters/mcp-core.js registers read_file: any object, listed as the JSON Schema.
  return { answers, outputSchema: z.looseObject({}).meta({ additionalProperties: undefined, ...outputSchema() }) }
}

const args = process.argv.slice(2)
const root = args.find((arg) => arg.startsWith('--answer='))?.slice('--answer='.length)
const windows = windowsOf(args.filter((arg) => !arg.startsWith('--answer=')))
const { answers, outputSchema } = root === undefined ? { answers: textAnswers(windows) } : await readFileAnswers(root, windows)
const server = new McpServer({ name: 'sdk-floor', version: '1.0.0' })
const config = { description: 'A fixed answer.', inputSchema: { name: z.string() }, ...(outputSchema && { outputSchema }) }
server.registerTool('fixed_text', config, async ({ name }) => answers.get(name))
await server.connect(new StdioServerTransport())
