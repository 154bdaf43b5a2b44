// The MCP SDK's floor for benchmark/mcp.mjs: a stdio server on the SDK's own McpServer and
// StdioServerTransport with one tool, `fixed_text`, that answers what it made once at start.
// Whatever a server answering the same costs beyond this is its own.
//
//   node benchmark/mcp-floor-server.mjs --root=ROOT NAME=FILE:LINES...
//   node benchmark/mcp-floor-server.mjs --root=ROOT --structured NAME=FILE:LINES...
//
// Each argument names an answer, made once at start: the tool result `agent-read-file mcp
// --no-structured-content` gives for the first LINES lines of FILE in the workspace ROOT (the
// model's text, with no output schema); or, with `--structured`, the one `agent-read-file mcp`
// gives (the text and `structuredContent`), under the read_file tool's output schema, which
// the SDK's server and `Client` then check as they check read_file's. `fixed_text({ name })`
// answers it.

import { createRequire } from 'node:module'
import path from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import * as z from 'zod'

const require = createRequire(import.meta.url)

/** `NAME=FILE:LINES` arguments as a list of `[name, file, lines]`. */
function windowsOf(args) {
  return args.map((arg) => {
    const [, name, file, lines] = /^([^=]+)=(.+):(\d+)$/.exec(arg) ?? []
    if (!name) throw new Error(`expected NAME=FILE:LINES, got ${arg}`)
    return [name, file, Number(lines)]
  })
}

/**
 * read_file's answers in the workspace `root`, with `structuredContent` or not, and then its
 * output schema as the SDK takes it.
 */
async function readFileAnswers(root, windows, structured) {
  const { createAgentToolkit } = require('../index.js')
  const { readFileCall } = require('../adapters/mcp-core.js')
  const { outputSchema } = require('../adapters/schemas.js')
  const toolkit = createAgentToolkit({ workspaceRoot: root })
  const call = readFileCall(toolkit, structured)
  const answers = new Map()
  for (const [name, file, lines] of windows) {
    answers.set(name, await call({ path: path.relative(root, file), max_lines: lines }))
  }
  toolkit.close()
  if (!structured) return { answers }
  // As adapters/mcp-core.js registers read_file: any object, listed as the JSON Schema.
  return { answers, outputSchema: z.looseObject({}).meta({ additionalProperties: undefined, ...outputSchema() }) }
}

const args = process.argv.slice(2)
const root = args.find((arg) => arg.startsWith('--root='))?.slice('--root='.length)
if (root === undefined) throw new Error('expected --root=ROOT')
const windows = windowsOf(args.filter((arg) => !arg.startsWith('--')))
const { answers, outputSchema } = await readFileAnswers(root, windows, args.includes('--structured'))
const server = new McpServer({ name: 'sdk-floor', version: '1.0.0' })
const config = { description: 'A fixed answer.', inputSchema: { name: z.string() }, ...(outputSchema && { outputSchema }) }
server.registerTool('fixed_text', config, async ({ name }) => answers.get(name))
await server.connect(new StdioServerTransport())
