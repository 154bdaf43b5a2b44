// An image read through every adapter, with the real SDKs (issue 22 §5): the MCP server's
// `image` content item (the SDK's Client checks structuredContent against the output schema),
// the AI SDK's tool-result content on each major, Anthropic's image blocks and OpenAI's
// input_image through each client's own request serialization (a fetch that answers like the
// service, no network).
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import * as ai5 from 'ai-v5'
import * as ai5Test from 'ai-v5/test'
import * as ai6 from 'ai-v6'
import * as ai6Test from 'ai-v6/test'
import * as ai7 from 'ai'
import * as ai7Test from 'ai/test'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import pkg from '../../index.js'
import core from '../../adapters/ai-core.js'
import { createMcpServer } from '../../adapters/mcp.mjs'
import openaiAdapter from '../../adapters/openai.js'
import anthropicAdapter from '../../adapters/anthropic.js'
import { after, before, describe, test } from '../harness.mjs'
import { v2Step, v3Step } from './ai-mock-steps.mjs'
import { makeFixture, runtimeEnvironment } from '../helpers.mjs'
import { image, pdf } from '../media.mjs'

const { createAgentToolkit, runToolCall } = pkg
const { openaiResponsesOutput, openaiChatMessages, openaiChatTurn } = openaiAdapter
const { anthropicTool, anthropicToolResult } = anthropicAdapter

const CLI = fileURLToPath(new URL('../../bin/agent-read-file.js', import.meta.url))

const fx = makeFixture()
after(() => fx.cleanup())
fx.write('notes.txt', 'one\n')
const pdfBytes = pdf(['Hello'])
fx.write('doc.pdf', pdfBytes)
const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
after(() => toolkit.close())

let png, header, data
before(async () => {
  png = await image(40, 30, 'png')
  fx.write('shot.png', png)
  header = `shot.png PNG image 40x30 (${png.length} bytes)\n`
  data = png.toString('base64')
})

/** A fetch that records each request's JSON body and answers with `replies` in turn. */
function fakeService(replies) {
  const requests = []
  const fetch = async (url, init) => {
    requests.push(JSON.parse(init.body))
    return new Response(JSON.stringify(replies[requests.length - 1]), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch, requests }
}

describe('MCP: an image is an image content item', () => {
  /** Checks a read of shot.png as an MCP client gets it. */
  function assertImageResult(result) {
    assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300))
    assert.deepEqual(result.content, [
      { type: 'text', text: header },
      { type: 'image', data, mimeType: 'image/png' },
    ])
    // Typed, and the image sent once: structuredContent leaves its data out.
    assert.equal(result.structuredContent.kind, 'image')
    assert.deepEqual(result.structuredContent.parts, [
      { type: 'image', mimeType: 'image/png', width: 40, height: 30, source: { mimeType: 'image/png', width: 40, height: 30, bytes: png.length } },
    ])
  }

  test('in process: the SDK Client validates structuredContent against the output schema', async () => {
    const server = createMcpServer({ workspaceRoot: fx.ws }, { structuredContent: true })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'media-test', version: '1.0.0' })
    await client.connect(clientSide)
    try {
      // listTools first: the Client checks later results against the schema it lists.
      await client.listTools()
      assertImageResult(await client.callTool({ name: 'read_file', arguments: { path: 'shot.png' } }))
      const text = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } })
      assert.equal(text.structuredContent.content, 'one\n')
      const doc = await client.callTool({ name: 'read_file', arguments: { path: 'doc.pdf' } })
      assert.equal(doc.structuredContent.kind, 'pdf')
      assert.deepEqual(doc.content, [{ type: 'text', text: `doc.pdf PDF page 1 of 1 (${pdfBytes.length} bytes)\n[page 1]\nHello\n` }])
    } finally {
      await client.close()
    }
  })

  test('over stdio, `agent-read-file mcp` run by this runtime', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', fx.ws, '--structured-content'], env: runtimeEnvironment() })
    const client = new Client({ name: 'media-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      await client.listTools()
      assertImageResult(await client.callTool({ name: 'read_file', arguments: { path: 'shot.png' } }))
    } finally {
      await client.close()
    }
  })

  test('over stdio with --no-structured-content: the header and the image, nothing else', async () => {
    const args = [CLI, 'mcp', '--root', fx.ws, '--no-structured-content']
    const transport = new StdioClientTransport({ command: process.execPath, args, env: runtimeEnvironment() })
    const client = new Client({ name: 'media-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const result = await client.callTool({ name: 'read_file', arguments: { path: 'shot.png' } })
      assert.deepEqual(result, {
        content: [
          { type: 'text', text: header },
          { type: 'image', data, mimeType: 'image/png' },
        ],
      })
    } finally {
      await client.close()
    }
  })
})

// What each major's prompt carries for the image, as its own types name it.
const AI_MAJORS = [
  { major: 'ai@5 (ai-v5)', sdk: ai5, Model: ai5Test.MockLanguageModelV2, step: v2Step, image: () => ({ type: 'media', data, mediaType: 'image/png' }) },
  { major: 'ai@6 (ai-v6)', sdk: ai6, Model: ai6Test.MockLanguageModelV3, step: v3Step, image: () => ({ type: 'image-data', data, mediaType: 'image/png' }) },
  {
    major: 'ai@7 (ai)',
    sdk: ai7,
    Model: ai7Test.MockLanguageModelV4,
    step: v3Step,
    image: () => ({ type: 'file', mediaType: 'image/png', data: { type: 'data', data } }),
  },
]

for (const { major, sdk, Model, step, image: imagePart } of AI_MAJORS) {
  describe(`AI SDK on ${major}: an image is a content part of the tool result`, () => {
    test('the next model call is given the header text and the image', async () => {
      const { readFileTool } = core.aiAdapter({ jsonSchema: sdk.jsonSchema, tool: sdk.tool, major: core.majorOf(sdk) })
      const call = { type: 'tool-call', toolCallId: 'call-1', toolName: 'read_file', input: JSON.stringify({ path: 'shot.png' }) }
      const model = new Model({ doGenerate: [step([call], 'tool-calls'), step([{ type: 'text', text: 'done' }], 'stop')] })
      const result = await sdk.generateText({ model, tools: { read_file: readFileTool(toolkit) }, prompt: 'look', stopWhen: sdk.stepCountIs(2) })
      assert.equal(result.text, 'done')
      const told = model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool').content[0].output
      // As the provider serializes it (ai@7 spells absent options as undefined keys).
      assert.deepEqual(JSON.parse(JSON.stringify(told)), { type: 'content', value: [{ type: 'text', text: header }, imagePart()] })
      // The application gets the typed output, image data included.
      const output = result.steps[0].content.find((part) => part.type === 'tool-result').output
      assert.equal(output.parts[0].data, data)
    })

    test("resultFormat 'json': the output as JSON without its image data, then the image", async () => {
      const json = createAgentToolkit({ workspaceRoot: fx.ws, resultFormat: 'json' })
      after(() => json.close())
      const { readFileTool } = core.aiAdapter({ jsonSchema: sdk.jsonSchema, tool: sdk.tool, major: core.majorOf(sdk) })
      const call = { type: 'tool-call', toolCallId: 'call-1', toolName: 'read_file', input: JSON.stringify({ path: 'shot.png' }) }
      const model = new Model({ doGenerate: [step([call], 'tool-calls'), step([{ type: 'text', text: 'done' }], 'stop')] })
      await sdk.generateText({ model, tools: { read_file: readFileTool(json) }, prompt: 'look', stopWhen: sdk.stepCountIs(2) })
      const told = JSON.parse(JSON.stringify(model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool').content[0].output))
      assert.equal(told.type, 'content')
      const [text, picture] = told.value
      assert.equal(text.type, 'text')
      const described = JSON.parse(text.text)
      assert.equal(described.kind, 'image')
      assert.equal(described.parts[0].data, undefined, 'no base64 inside the text')
      assert.deepEqual(picture, imagePart())
    })
  })
}

describe('Anthropic: an image is an image block of the tool_result', () => {
  test('the Messages request carries it as the API takes it', async () => {
    const use = { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'shot.png' } }
    const reply = (content, stop) => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
      content,
    })
    const service = fakeService([reply([use], 'tool_use'), reply([{ type: 'text', text: 'done' }], 'end_turn')])
    const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: service.fetch, maxRetries: 0 })
    const request = { model: 'claude-sonnet-4-5', max_tokens: 100, tools: [anthropicTool()] }
    const messages = [{ role: 'user', content: 'look' }]
    const first = await client.messages.create({ ...request, messages })
    const toolUse = first.content.find((block) => block.type === 'tool_use')
    const result = await runToolCall(toolkit, toolUse.input)
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [anthropicToolResult(toolUse.id, result)] })
    await client.messages.create({ ...request, messages })
    assert.deepEqual(service.requests[1].messages.at(-1).content[0], {
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'text', text: header },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
      ],
    })
  })

  test('a failure is its text with is_error', async () => {
    const result = await runToolCall(toolkit, { path: 'missing.png' })
    assert.deepEqual(anthropicToolResult('toolu_2', result), {
      type: 'tool_result',
      tool_use_id: 'toolu_2',
      content: 'NOT_FOUND: missing.png: no such file in the workspace',
      is_error: true,
    })
  })
})

describe('OpenAI: an image is an input_image (Responses), or a user message after the tool message (Chat)', () => {
  const client = (service) => new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: service.fetch, maxRetries: 0 })
  const done = { id: 'resp_2', object: 'response', created_at: 1, model: 'gpt-5', status: 'completed', output: [] }

  test('Responses: function_call_output with input_text and input_image, through the SDK', async () => {
    const service = fakeService([done])
    const result = await runToolCall(toolkit, '{"path":"shot.png"}')
    const item = openaiResponsesOutput('call_1', result)
    await client(service).responses.create({ model: 'gpt-5', input: [item] })
    assert.deepEqual(service.requests[0].input, [
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: header },
          { type: 'input_image', image_url: `data:image/png;base64,${data}`, detail: 'auto' },
        ],
      },
    ])
  })

  test('Responses: a text read stays a string output', async () => {
    const result = await runToolCall(toolkit, { path: 'notes.txt' })
    assert.deepEqual(openaiResponsesOutput('call_1', result), { type: 'function_call_output', call_id: 'call_1', output: result.content })
  })

  test('Chat Completions: the tool message names the image, a user message carries it', async () => {
    const reply = { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-5', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'done' } }] }
    const service = fakeService([reply])
    const result = await runToolCall(toolkit, { path: 'shot.png' })
    const messages = openaiChatMessages('call_1', result)
    await client(service).chat.completions.create({ model: 'gpt-5', messages })
    assert.deepEqual(service.requests[0].messages, [
      { role: 'tool', tool_call_id: 'call_1', content: `${header}[image 40x30 image/png]\n` },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The image of the read_file result above:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
        ],
      },
    ])
  })

  // Issue 36 §5: with parallel tool calls (the API's default), one openaiChatMessages a call
  // gave assistant → tool → user(image) → tool, which the API rejects with a 400.
  test('Chat Completions, parallel calls: every tool message, then one user message with the images', async () => {
    const reply = { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-5', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'done' } }] }
    const service = fakeService([reply])
    const calls = [
      { id: 'call_1', path: 'shot.png' },
      { id: 'call_2', path: 'notes.txt' },
      { id: 'call_3', path: 'shot.png' },
    ]
    const assistant = {
      role: 'assistant',
      content: null,
      tool_calls: calls.map(({ id, path }) => ({ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } })),
    }
    const answers = []
    for (const { id, path } of calls) answers.push({ toolCallId: id, result: await runToolCall(toolkit, { path }) })
    const messages = [{ role: 'user', content: 'Look.' }, assistant, ...openaiChatTurn(answers)]
    await client(service).chat.completions.create({ model: 'gpt-5', messages })
    const image = { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }
    assert.deepEqual(service.requests[0].messages.slice(2), [
      { role: 'tool', tool_call_id: 'call_1', content: `${header}[image 40x30 image/png]\n` },
      { role: 'tool', tool_call_id: 'call_2', content: answers[1].result.content },
      { role: 'tool', tool_call_id: 'call_3', content: `${header}[image 40x30 image/png]\n` },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The image of the read_file result of call call_1:' },
          image,
          { type: 'text', text: 'The image of the read_file result of call call_3:' },
          image,
        ],
      },
    ])
    // Text alone: the tool messages, and no user message.
    assert.deepEqual(openaiChatTurn([answers[1]]).map((message) => message.role), ['tool'])
  })
})
