// `agent-read-file mcp` and the MCP revisions clients speak, each client a real SDK over stdio:
// the v1 SDK's `Client` (initialize, 2025-11-25), and the v2 SDK's
// (`@modelcontextprotocol/client`): by default it initializes as v1 does; asked to negotiate
// (`versionNegotiation: { mode: 'auto' }`) or pinned to 2026-07-28, it sends `server/discover`
// and then stateless requests, and pinned it fails with `ERA_NEGOTIATION_FAILED` on a server
// that has no `server/discover`.
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Client as ClientV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio'
import { after, describe, test } from '../harness.mjs'
import { TOOLKIT_DEFINITION, expectedModelText, expectedOutput, makeFixture, runtimeEnvironment } from '../helpers.mjs'
import { image } from '../media.mjs'

const CLI = fileURLToPath(new URL('../../bin/agent-read-file.js', import.meta.url))
const fx = makeFixture()
after(() => fx.cleanup())
const notes = fx.write('notes.txt', 'one\ntwo\nthree\n')
fx.write('shot.png', await image(4, 3))

const CLIENTS = [
  { name: 'v1 Client', revision: '2025-11-25', make: () => new ClientV1({ name: 'v1', version: '1.0.0' }), Transport: StdioTransportV1 },
  { name: 'v2 Client, by default', revision: '2025-11-25', make: () => new ClientV2({ name: 'v2', version: '1.0.0' }), Transport: StdioTransportV2 },
  {
    name: "v2 Client, versionNegotiation: { mode: 'auto' }",
    revision: '2026-07-28',
    make: () => new ClientV2({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } }),
    Transport: StdioTransportV2,
  },
  {
    name: 'v2 Client pinned to 2026-07-28',
    revision: '2026-07-28',
    make: () => new ClientV2({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    Transport: StdioTransportV2,
  },
]

/** `client` connected to `agent-read-file mcp --root <fixture> ...args`, run by this runtime. */
async function connected({ make, Transport }, args = []) {
  const client = make()
  const transport = new Transport({ command: process.execPath, args: [CLI, 'mcp', '--root', fx.ws, ...args], env: runtimeEnvironment(), stderr: 'ignore' })
  await client.connect(transport)
  return client
}

describe('agent-read-file mcp, to each SDK client and revision', () => {
  for (const kind of CLIENTS) {
    test(`${kind.name}: ${kind.revision}; the tool listed, a text read, an image, a failure`, async () => {
      const client = await connected(kind)
      try {
        // The v1 Client asks for 2025-11-25 and says no more.
        if (client instanceof ClientV2) assert.equal(client.getNegotiatedProtocolVersion(), kind.revision)
        const { tools } = await client.listTools()
        assert.deepEqual(
          tools.map((tool) => tool.name),
          ['read_file'],
        )
        const { $schema, ...inputSchema } = tools[0].inputSchema
        assert.deepEqual(inputSchema, TOOLKIT_DEFINITION.parameters)
        const dialect = kind.revision === '2026-07-28' ? 'https://json-schema.org/draft/2020-12/schema' : 'http://json-schema.org/draft-07/schema#'
        assert.equal($schema, dialect)
        const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt', max_lines: 2 } })
        assert.deepEqual(read.content, [{ type: 'text', text: expectedModelText(notes, 'notes.txt', 1, 2) }])
        const shot = await client.callTool({ name: 'read_file', arguments: { path: 'shot.png' } })
        assert.deepEqual(
          shot.content.map((item) => item.type),
          ['text', 'image'],
        )
        const failed = await client.callTool({ name: 'read_file', arguments: { path: '../outside.txt' } })
        assert.equal(failed.isError, true)
        assert.match(failed.content[0].text, /^OUTSIDE_WORKSPACE: /)
      } finally {
        await client.close()
      }
    })
  }

  for (const kind of [CLIENTS[0], CLIENTS[3]]) {
    test(`${kind.name}, --structured-content: structuredContent checked against the output schema`, async () => {
      const client = await connected(kind, ['--structured-content'])
      try {
        await client.listTools()
        const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt', max_lines: 2 } })
        assert.deepEqual(read.structuredContent, expectedOutput(notes, 'notes.txt', 1, 2))
        const shot = await client.callTool({ name: 'read_file', arguments: { path: 'shot.png' } })
        assert.equal(shot.structuredContent.kind, 'image')
      } finally {
        await client.close()
      }
    })
  }
})
