// The OpenAI and Anthropic adapters and runToolCall, driven through the real SDKs, every
// supported major (the devDependencies alias the older ones: openai-v5, openai-v6,
// anthropic-v0-60): each client gets a fetch that answers like the service (no network), so
// the tool definitions go out in the SDK's own request, the model's tool call comes back
// through runToolCall, and the next request carries exactly what the model is told.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import OpenAI7 from 'openai'
import OpenAI6 from 'openai-v6'
import OpenAI5 from 'openai-v5'
import Anthropic1 from '@anthropic-ai/sdk'
import Anthropic060 from 'anthropic-v0-60'
import pkg from '../../index.js'
import openaiAdapter from '../../adapters/openai.js'
import anthropicAdapter from '../../adapters/anthropic.js'
import { after, describe, test } from '../harness.mjs'
import {
  INDEX_PATH,
  SPEC_DEFINITION,
  TOOLKIT_DEFINITION,
  expectedCutText,
  expectedModelText,
  expectedOutput,
  makeFixture,
  runChild,
  withNote,
} from '../helpers.mjs'

const { createAgentToolkit, runToolCall, TOOL_DEFINITIONS, TOOLKIT_DEFINITIONS } = pkg
const { openaiTool, openaiResponsesTool } = openaiAdapter
const { anthropicTool } = anthropicAdapter

const fx = makeFixture()
after(() => fx.cleanup())
const file = fx.write('src/a.txt', 'one\ntwo\nthree\n')
fx.write('dist/app.min.js', `${'x'.repeat(300)}\n`)
const lines600 = fx.write('logs/600.txt', Array.from({ length: 600 }, (_, i) => `${i + 1}\n`).join(''))
const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
// A budget that cuts the 300-byte line of dist/app.min.js after 34 bytes (see long-lines).
const budgeted = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 128 })
after(() => budgeted.close())

const PROPERTIES = TOOLKIT_DEFINITION.parameters.properties

/** The strict-mode form of the toolkit definition's parameters, written out independently. */
const STRICT_PARAMETERS = {
  type: 'object',
  properties: {
    path: { type: 'string', description: PROPERTIES.path.description },
    start_line: { type: ['integer', 'null'], description: PROPERTIES.start_line.description },
    max_lines: { type: ['integer', 'null'], minimum: 1, maximum: 500, description: PROPERTIES.max_lines.description },
    start_column: { type: ['integer', 'null'], minimum: 1, description: PROPERTIES.start_column.description },
    pages: { type: ['string', 'null'], description: PROPERTIES.pages.description },
    outline: { type: ['boolean', 'null'], description: PROPERTIES.outline.description },
    symbol: { type: ['string', 'null'], description: PROPERTIES.symbol.description },
    ranges: { type: ['array', 'null'], items: { type: 'string' }, maxItems: 16, description: PROPERTIES.ranges.description },
  },
  required: ['path', 'start_line', 'max_lines', 'start_column', 'pages', 'outline', 'symbol', 'ranges'],
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
  test('openaiTool is the toolkit definition (start_column included) as a Chat Completions function tool', () => {
    const { name, description, parameters } = TOOLKIT_DEFINITION
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

  test('each call returns fresh, mutable objects, and the definitions stay frozen and intact', () => {
    const tool = openaiTool()
    tool.function.parameters.required.push('start_line')
    tool.function.parameters.properties.start_column.default = 7
    assert.deepEqual(openaiTool().function.parameters, TOOLKIT_DEFINITION.parameters)
    assert.deepEqual(TOOLKIT_DEFINITIONS.read_file, TOOLKIT_DEFINITION)
    assert.deepEqual(TOOL_DEFINITIONS.read_file, SPEC_DEFINITION)
    assert.ok(Object.isFrozen(TOOLKIT_DEFINITIONS.read_file.parameters.required))
  })
})

describe('Anthropic', () => {
  test('anthropicTool is the toolkit definition (start_column included) as a Messages API tool', () => {
    const { name, description, parameters } = TOOLKIT_DEFINITION
    assert.deepEqual(anthropicTool(), { name, description, input_schema: parameters })
    assert.equal(Object.isFrozen(anthropicTool().input_schema.required), false)
  })
})

/**
 * The model's calls to read_file, as strict mode sends them, a check of the text it is told,
 * and the toolkit that answers them.
 */
const CALLS = [
  [
    'a whole file',
    { path: 'src/a.txt', start_line: null, max_lines: null, start_column: null },
    (text) => assert.equal(text, 'src/a.txt lines 1-3 of 3 (14 bytes)\n1\tone\n2\ttwo\n3\tthree\n'),
  ],
  [
    'a cut window',
    { path: 'src/a.txt', start_line: null, max_lines: 2, start_column: null },
    (text) => {
      assert.equal(text, 'src/a.txt lines 1-2 of 3 (14 bytes)\n1\tone\n2\ttwo\n[next: start_line=3]\n')
      assert.equal(text, expectedModelText(file, 'src/a.txt', 1, 2))
    },
  ],
  [
    'a missing file',
    { path: 'missing.ts', start_line: null, max_lines: null, start_column: null },
    (text) => assert.equal(text, 'NOT_FOUND: missing.ts: no such file in the workspace'),
  ],
  [
    'a misspelt name',
    { path: 'src/a.tx', start_line: null, max_lines: null, start_column: null },
    (text) => assert.equal(text, 'NOT_FOUND: src/a.tx: no such file in the workspace; did you mean src/a.txt?'),
  ],
  [
    'max_lines over 500',
    { path: 'logs/600.txt', start_line: null, max_lines: 1000, start_column: null },
    (text) => {
      const note = 'max_lines is at most 500: 500 lines returned; read on from next_start_line'
      assert.equal(text, withNote(expectedModelText(lines600, 'logs/600.txt', 1, 500), note))
    },
  ],
  [
    'an outside path',
    { path: '../outside/secret.txt', start_line: null, max_lines: null, start_column: null },
    (text) => {
      assert.equal(
        text,
        'OUTSIDE_WORKSPACE: ../outside/secret.txt: path resolves outside the workspace\n' +
          'read_file reads only inside the workspace: give a path relative to its root.',
      )
      assert.ok(!text.includes('TOP SECRET'))
    },
  ],
  [
    'the rest of a cut line, from the column its marker named',
    { path: 'dist/app.min.js', start_line: 1, max_lines: null, start_column: 35 },
    (text) => {
      const part = 'x'.repeat(34)
      const expected = expectedCutText({ path: 'dist/app.min.js', size: 301, lineCount: 1, line: 1, part, column: 69, length: 300, from: 35 })
      assert.equal(text, expected)
      assert.equal(
        text,
        `dist/app.min.js line 1 of 1 from column 35 (301 bytes)\n1\t${part}\n[line 1 continues at column 69 of 300; next: start_line=1 start_column=69]\n`,
      )
    },
    budgeted,
  ],
]

/** A Chat Completions reply: a call of read_file with `args`, or, without, the answer "done". */
function chatReply(args) {
  const message = args
    ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: args } }] }
    : { role: 'assistant', content: 'done' }
  const choice = { index: 0, finish_reason: args ? 'tool_calls' : 'stop', message }
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-5', choices: [choice] }
}

/** A Responses API reply: a function call of read_file with `args`, or, without, the answer "done". */
function responsesReply(args) {
  const output = args
    ? [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_file', arguments: args, status: 'completed' }]
    : [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] }]
  return { id: 'resp_1', object: 'response', created_at: 1, model: 'gpt-5', status: 'completed', output }
}

/** A Messages API reply: a tool_use of read_file with `input`, or, without, the answer "done". */
function messagesReply(input) {
  const content = input ? [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input }] : [{ type: 'text', text: 'done' }]
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    stop_reason: input ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
    content,
  }
}

const OPENAI_MAJORS = [
  ['openai@5 (openai-v5)', OpenAI5],
  ['openai@6 (openai-v6)', OpenAI6],
  ['openai@7 (openai)', OpenAI7],
]

for (const [major, OpenAI] of OPENAI_MAJORS) {
  describe(`OpenAI round trips on ${major}`, () => {
    /** A client whose requests `service` records and answers. */
    const clientOf = (service) =>
      new OpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch: service.fetch, maxRetries: 0 })

    for (const [what, input, check, answering = toolkit] of CALLS) {
      test(`Chat Completions, ${what}: the tool message is runToolCall's content`, async () => {
        const service = fakeService([chatReply(JSON.stringify(input)), chatReply()])
        const client = clientOf(service)
        const messages = [{ role: 'user', content: 'read it' }]
        const tools = [openaiTool({ strict: true })]
        const first = await client.chat.completions.create({ model: 'gpt-5', messages, tools })
        const call = first.choices[0].message.tool_calls[0]
        const result = await runToolCall(answering, call.function.arguments)
        messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: result.content })
        const second = await client.chat.completions.create({ model: 'gpt-5', messages, tools })
        assert.equal(second.choices[0].message.content, 'done')
        assert.deepEqual(service.requests[0].body.tools, tools)
        const told = service.requests[1].body.messages.at(-1)
        assert.deepEqual(told, { role: 'tool', tool_call_id: 'call_1', content: result.content })
        check(told.content)
      })

      test(`Responses, ${what}: the function_call_output is runToolCall's content`, async () => {
        const service = fakeService([responsesReply(JSON.stringify(input)), responsesReply()])
        const client = clientOf(service)
        const tools = [openaiResponsesTool({ strict: true })]
        const first = await client.responses.create({ model: 'gpt-5', input: 'read it', tools })
        const call = first.output.find((item) => item.type === 'function_call')
        const result = await runToolCall(answering, call.arguments)
        const output = { type: 'function_call_output', call_id: call.call_id, output: result.content }
        const second = await client.responses.create({ model: 'gpt-5', input: [...first.output, output], tools })
        assert.equal(second.output_text, 'done')
        assert.deepEqual(service.requests[0].body.tools, tools)
        const told = service.requests[1].body.input.at(-1)
        assert.deepEqual(told, { type: 'function_call_output', call_id: 'call_1', output: result.content })
        check(told.output)
      })
    }
  })
}

const ANTHROPIC_MAJORS = [
  ['@anthropic-ai/sdk@0.60 (anthropic-v0-60)', Anthropic060],
  ['@anthropic-ai/sdk@1 (@anthropic-ai/sdk)', Anthropic1],
]

for (const [major, Anthropic] of ANTHROPIC_MAJORS) {
  describe(`Anthropic round trips on ${major}`, () => {
    for (const [what, input, check, answering = toolkit] of CALLS) {
      test(`Messages, ${what}: the tool_result is runToolCall's content, is_error on a failure`, async () => {
        const service = fakeService([messagesReply(input), messagesReply()])
        const client = new Anthropic({ apiKey: 'test', baseURL: 'http://127.0.0.1:9', fetch: service.fetch, maxRetries: 0 })
        const messages = [{ role: 'user', content: 'read it' }]
        const request = { model: 'claude-sonnet-4-5', max_tokens: 100, tools: [anthropicTool()] }
        const first = await client.messages.create({ ...request, messages })
        const use = first.content.find((block) => block.type === 'tool_use')
        const result = await runToolCall(answering, use.input)
        const toolResult = { type: 'tool_result', tool_use_id: use.id, content: result.content }
        if (result.isError) toolResult.is_error = true
        messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [toolResult] })
        const second = await client.messages.create({ ...request, messages })
        assert.equal(second.content[0].text, 'done')
        assert.deepEqual(service.requests[0].body.tools, [anthropicTool()])
        const told = service.requests[1].body.messages.at(-1).content[0]
        assert.deepEqual(told, toolResult)
        assert.equal(told.is_error, result.isError ? true : undefined)
        check(told.content)
      })
    }
  })
}

describe('runToolCall never throws', () => {
  for (const [what, args, code] of [
    ['a malformed JSON text', '{"path": "src/a.txt"', 'INVALID_ARGUMENT'],
    ['a JSON text that is not an object', '"src/a.txt"', 'INVALID_ARGUMENT'],
    ['a missing file', { path: 'nope.txt' }, 'NOT_FOUND'],
    ['a wrong type', { path: 'src/a.txt', max_lines: 'two' }, 'INVALID_ARGUMENT'],
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
    const result = await runToolCall(toolkit, { path: 'src/a.txt', start_line: null, max_lines: null, start_column: null })
    assert.deepEqual(result.output, expectedOutput(file, 'src/a.txt'))
    assert.equal(result.content, expectedModelText(file, 'src/a.txt'))
  })

  for (const [what, options, code] of [
    ['a resultFormat that is not text or json', { resultFormat: 'yaml' }, 'resultFormat'],
    ['a resultFormat of another type', { resultFormat: 1 }, 'resultFormat'],
    ['lineNumbers that is not a boolean', { lineNumbers: 'no' }, 'lineNumbers'],
    ['options whose getter throws', { get lineNumbers() { throw new Error('boom') } }, 'lineNumbers'],
  ]) {
    test(`${what} is an INVALID_ARGUMENT result naming the option`, async () => {
      const result = await runToolCall(toolkit, { path: 'src/a.txt' }, options)
      assert.deepEqual([result.isError, result.code], [true, 'INVALID_ARGUMENT'])
      assert.ok(result.content.startsWith(`INVALID_ARGUMENT: ${code}: options.${code} `), result.content)
    })
  }
})

describe('runToolCall: what the model is given', () => {
  test("resultFormat 'json' gives today's JSON of the output", async () => {
    const result = await runToolCall(toolkit, { path: 'src/a.txt', max_lines: 2 }, { resultFormat: 'json' })
    assert.deepEqual(JSON.parse(result.content), expectedOutput(file, 'src/a.txt', 1, 2))
    assert.equal(result.content, JSON.stringify(result.output))
  })

  test('lineNumbers: false gives the lines as they are, under the same header and closing line', async () => {
    const result = await runToolCall(toolkit, { path: 'src/a.txt', max_lines: 2 }, { lineNumbers: false })
    assert.equal(result.content, 'src/a.txt lines 1-2 of 3 (14 bytes)\none\ntwo\n[next: start_line=3]\n')
    assert.equal(result.content, expectedModelText(file, 'src/a.txt', 1, 2, { lineNumbers: false }))
  })

  test("a toolkit's resultFormat and lineNumbers are its calls' default; a call's options win", async () => {
    const plain = createAgentToolkit({ workspaceRoot: fx.ws, lineNumbers: false })
    const json = createAgentToolkit({ workspaceRoot: fx.ws, resultFormat: 'json' })
    try {
      assert.equal((await runToolCall(plain, { path: 'src/a.txt' })).content, 'src/a.txt lines 1-3 of 3 (14 bytes)\none\ntwo\nthree\n')
      assert.equal((await runToolCall(plain, { path: 'src/a.txt' }, { lineNumbers: true })).content, expectedModelText(file, 'src/a.txt'))
      assert.deepEqual(JSON.parse((await runToolCall(json, { path: 'src/a.txt' })).content), expectedOutput(file, 'src/a.txt'))
      assert.equal((await runToolCall(json, { path: 'src/a.txt' }, { resultFormat: 'text' })).content, expectedModelText(file, 'src/a.txt'))
    } finally {
      plain.close()
      json.close()
    }
  })

  test('a cut line: its marker is not shown, the closing line names the call that reads on', async () => {
    const result = await runToolCall(budgeted, { path: 'dist/app.min.js' })
    const part = 'x'.repeat(34)
    assert.equal(
      result.content,
      `dist/app.min.js line 1 of 1 (301 bytes)\n1\t${part}\n[line 1 continues at column 35 of 300; next: start_line=1 start_column=35]\n`,
    )
    assert.equal(result.output.content, `${part}\n[line 1 continues at column 35 of 300: call read_file with start_line 1 and start_column 35]\n`)
  })

  test('an empty file, and a start past the end, say so in the header alone', async () => {
    fx.write('empty.txt', '')
    assert.equal((await runToolCall(toolkit, { path: 'empty.txt' })).content, 'empty.txt has no lines (0 bytes)\n')
    assert.equal((await runToolCall(toolkit, { path: 'src/a.txt', start_line: 9 })).content, 'src/a.txt has 3 lines, none from line 9 on (14 bytes)\n')
  })

  test('a file without a final newline: its last line is shown and ended', async () => {
    fx.write('tail.txt', 'a\nb')
    assert.equal((await runToolCall(toolkit, { path: 'tail.txt' })).content, 'tail.txt lines 1-2 of 2 (3 bytes)\n1\ta\n2\tb\n')
  })

  test('a path with a control character is quoted in the header, so the header stays one line', async () => {
    fx.write('odd\nname.txt', 'x\n')
    assert.equal((await runToolCall(toolkit, { path: 'odd\nname.txt' })).content, '"odd\\nname.txt" line 1 of 1 (2 bytes)\n1\tx\n')
  })
})

describe('createAgentToolkit: the rendering options', () => {
  for (const [what, options, name] of [
    ['resultFormat', { resultFormat: 'xml' }, 'resultFormat'],
    ['lineNumbers', { lineNumbers: 0 }, 'lineNumbers'],
    ['dedupeReads', { dedupeReads: 'yes' }, 'dedupeReads'],
  ]) {
    test(`a malformed ${what} is INVALID_ARGUMENT naming it`, () => {
      assert.throws(
        () => createAgentToolkit({ workspaceRoot: fx.ws, ...options }),
        (error) => error.code === 'INVALID_ARGUMENT' && error.message.startsWith(`INVALID_ARGUMENT: ${name}: options.${name} `),
      )
    })
  }
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
