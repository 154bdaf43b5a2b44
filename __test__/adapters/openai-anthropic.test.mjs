// The OpenAI and Anthropic adapters and runToolCall, driven through the real SDKs: each client
// gets a fetch that answers like the service (no network), so the tool definitions go out in
// the SDK's own request and the model's tool call comes back through runToolCall.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import pkg from '../../index.js'
import openaiAdapter from '../../adapters/openai.js'
import anthropicAdapter from '../../adapters/anthropic.js'
import { after, describe, test } from '../harness.mjs'
import { INDEX_PATH, SPEC_DEFINITION, expectedOutput, makeFixture, runChild } from '../helpers.mjs'

const { createAgentToolkit, runToolCall, TOOL_DEFINITIONS } = pkg
const { openaiTool, openaiResponsesTool } = openaiAdapter
const { anthropicTool } = anthropicAdapter

const fx = makeFixture()
after(() => fx.cleanup())
const file = fx.write('src/a.txt', 'one\ntwo\nthree\n')
const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })

/** The strict-mode form of the spec's parameters, written out independently. */
const STRICT_PARAMETERS = {
  type: 'object',
  properties: {
    path: { type: 'string', description: SPEC_DEFINITION.parameters.properties.path.description },
    start_line: { type: ['integer', 'null'], description: SPEC_DEFINITION.parameters.properties.start_line.description },
    max_lines: { type: ['integer', 'null'], description: SPEC_DEFINITION.parameters.properties.max_lines.description },
  },
  required: ['path', 'start_line', 'max_lines'],
  additionalProperties: false,
}

/** A fetch that records each request's JSON body and answers with `replies` in turn. */
function fakeService(replies) {
  const requests = []
  const fetch = async (url, init) => {
    requests.push({ url: String(url), body: JSON.parse(init.body) })
    const reply = replies[requests.length - 1]
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch, requests }
}

describe('OpenAI', () => {
  test('openaiTool is the spec definition as a Chat Completions function tool', () => {
    const { name, description, parameters } = SPEC_DEFINITION
    assert.deepEqual(openaiTool(), { type: 'function', function: { name, description, parameters } })
    assert.deepEqual(openaiTool({ strict: true }), {
      type: 'function',
      function: { name, description, parameters: STRICT_PARAMETERS, strict: true },
    })
    assert.deepEqual(openaiResponsesTool({ strict: true }), {
      type: 'function',
      name,
      description,
      parameters: STRICT_PARAMETERS,
      strict: true,
    })
    assert.deepEqual(openaiResponsesTool(), { type: 'function', name, description, parameters, strict: false })
  })

  test('each call returns fresh, mutable objects, and TOOL_DEFINITIONS stays frozen and intact', () => {
    const tool = openaiTool()
    tool.function.parameters.required.push('start_line')
    assert.deepEqual(openaiTool().function.parameters.required, ['path'])
    assert.deepEqual(TOOL_DEFINITIONS.read_file, SPEC_DEFINITION)
    assert.ok(Object.isFrozen(TOOL_DEFINITIONS.read_file.parameters.required))
  })

  test('a Chat Completions round trip through the SDK: tools out, the tool call through runToolCall, the result back', async () => {
    const args = JSON.stringify({ path: 'src/a.txt', start_line: null, max_lines: 2 })
    const service = fakeService([
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-5',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: args } }],
            },
          },
        ],
      },
      {
        id: 'chatcmpl-2',
        object: 'chat.completion',
        created: 2,
        model: 'gpt-5',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'done' } }],
      },
    ])
    const client = new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: service.fetch, maxRetries: 0 })
    const messages = [{ role: 'user', content: 'read src/a.txt' }]
    const tools = [openaiTool({ strict: true })]
    const first = await client.chat.completions.create({ model: 'gpt-5', messages, tools })
    const call = first.choices[0].message.tool_calls[0]
    const result = await runToolCall(toolkit, call.function.arguments)
    assert.equal(result.isError, false)
    assert.deepEqual(result.output, expectedOutput(file, 'src/a.txt', 1, 2))
    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: result.content })
    await client.chat.completions.create({ model: 'gpt-5', messages, tools })
    assert.deepEqual(service.requests[0].body.tools, [openaiTool({ strict: true })])
    const sentBack = service.requests[1].body.messages.at(-1)
    assert.deepEqual(JSON.parse(sentBack.content), expectedOutput(file, 'src/a.txt', 1, 2))
  })
})

describe('Anthropic', () => {
  test('anthropicTool is the spec definition as a Messages API tool', () => {
    const { name, description, parameters } = SPEC_DEFINITION
    assert.deepEqual(anthropicTool(), { name, description, input_schema: parameters })
    assert.equal(Object.isFrozen(anthropicTool().input_schema.required), false)
  })

  test('a Messages round trip through the SDK, with an error result for an outside path', async () => {
    const service = fakeService([
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: '../outside/secret.txt' } }],
      },
    ])
    const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: service.fetch, maxRetries: 0 })
    const reply = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'read the secret' }],
      tools: [anthropicTool()],
    })
    assert.deepEqual(service.requests[0].body.tools, [anthropicTool()])
    const use = reply.content.find((block) => block.type === 'tool_use')
    const result = await runToolCall(toolkit, use.input)
    assert.equal(result.isError, true)
    assert.equal(result.code, 'OUTSIDE_WORKSPACE')
    assert.match(result.content, /^OUTSIDE_WORKSPACE: \.\.\/outside\/secret\.txt: /)
    assert.ok(!result.content.includes('TOP SECRET'))
  })
})

describe('runToolCall never throws', () => {
  for (const [what, args, code] of [
    ['a malformed JSON text', '{"path": "src/a.txt"', 'INVALID_ARGUMENT'],
    ['a JSON text that is not an object', '"src/a.txt"', 'INVALID_ARGUMENT'],
    ['a missing file', { path: 'nope.txt' }, 'NOT_FOUND'],
    ['a wrong type', { path: 'src/a.txt', max_lines: '2' }, 'INVALID_ARGUMENT'],
    ['no arguments at all', undefined, 'INVALID_ARGUMENT'],
  ]) {
    test(`${what} is an error result with its code`, async () => {
      const result = await runToolCall(toolkit, args)
      assert.equal(result.isError, true)
      assert.equal(result.code, code)
      assert.ok(result.content.startsWith(`${code}: `), result.content)
      assert.equal(result.output, undefined)
    })
  }

  test('something that is not a toolkit is an error result too', async () => {
    for (const notToolkit of [null, undefined, {}, 'toolkit']) {
      const result = await runToolCall(notToolkit, { path: 'src/a.txt' })
      assert.deepEqual([result.isError, result.code], [true, 'INVALID_ARGUMENT'])
    }
  })

  test("a toolkit's policy refusal is a POLICY_DENIED result", async () => {
    fx.write('.env', 'API_KEY=secret\n')
    const result = await runToolCall(toolkit, { path: '.env' })
    assert.deepEqual([result.isError, result.code], [true, 'POLICY_DENIED'])
    assert.ok(result.content.startsWith('POLICY_DENIED: '), result.content)
    assert.ok(!result.content.includes('API_KEY=secret'))
  })

  test('strict-mode nulls mean the defaults', async () => {
    const result = await runToolCall(toolkit, { path: 'src/a.txt', start_line: null, max_lines: null })
    assert.deepEqual(result.output, expectedOutput(file, 'src/a.txt'))
    assert.deepEqual(JSON.parse(result.content), result.output)
  })
})

test('loading the package and its adapters loads no SDK', async () => {
  const result = await runChild(
    fx.base,
    'no-sdk.cjs',
    `require(${JSON.stringify(INDEX_PATH)})
require(${JSON.stringify(INDEX_PATH.replace(/index\.js$/, 'adapters/openai.js'))})
require(${JSON.stringify(INDEX_PATH.replace(/index\.js$/, 'adapters/anthropic.js'))})
console.log(JSON.stringify(Object.keys(require.cache).filter((f) => /node_modules[\\\\/](openai|@anthropic-ai|ai|@modelcontextprotocol)[\\\\/]/.test(f))))`,
  )
  assert.deepEqual(result, [])
  assert.ok(fs.existsSync(INDEX_PATH))
})
