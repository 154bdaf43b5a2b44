// agent-read-file/ai with the real AI SDK: generateText drives the SDK's own mock model, which
// calls read_file; the tool's result (or error) flows into the next model call.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import pkg from '../../index.js'
import { readFileTool } from '../../adapters/ai.mjs'
import { after, describe, test } from '../harness.mjs'
import { SPEC_DEFINITION, expectedOutput, makeFixture } from '../helpers.mjs'

const fx = makeFixture()
after(() => fx.cleanup())
const file = fx.write('src/a.txt', 'one\ntwo\nthree\n')

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** A model that calls read_file with `input`, then answers "done". */
function modelCalling(input) {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'read_file', input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
    ],
  })
}

/** What the second model call was told about the tool call. */
function toolMessageOutput(model) {
  const tool = model.doGenerateCalls[1].prompt.find((message) => message.role === 'tool')
  return tool.content[0].output
}

async function run(input, tools) {
  const model = modelCalling(input)
  const result = await generateText({ model, tools, prompt: 'read it', stopWhen: stepCountIs(2) })
  return { model, result }
}

describe('agent-read-file/ai', () => {
  test('the tool has the spec description and input schema', () => {
    const tool = readFileTool({ workspaceRoot: fx.ws })
    assert.equal(tool.description, SPEC_DEFINITION.description)
    assert.deepEqual(tool.inputSchema.jsonSchema, SPEC_DEFINITION.parameters)
  })

  test('generateText: the model calls read_file, the result flows into the next call', async () => {
    for (const tools of [
      { read_file: readFileTool({ workspaceRoot: fx.ws }) },
      { read_file: readFileTool(pkg.createAgentToolkit({ workspaceRoot: fx.ws })) },
      // The CommonJS entry, which `require`s the SDK (an ES module: Node 20.19+, Bun).
      { read_file: createRequire(import.meta.url)('../../adapters/ai.js').readFileTool({ workspaceRoot: fx.ws }) },
    ]) {
      const { model, result } = await run({ path: 'src/a.txt', max_lines: 2 }, tools)
      const expected = expectedOutput(file, 'src/a.txt', 1, 2)
      const toolResult = result.steps[0].content.find((part) => part.type === 'tool-result')
      assert.deepEqual(toolResult.output, expected)
      assert.deepEqual(toolMessageOutput(model), { type: 'json', value: expected })
      assert.equal(result.text, 'done')
    }
  })

  test("the SDK's abort signal reaches the read", async () => {
    const tool = readFileTool({ workspaceRoot: fx.ws })
    const error = await tool.execute({ path: 'src/a.txt' }, { abortSignal: AbortSignal.abort() }).then(
      () => assert.fail('resolved'),
      (thrown) => thrown,
    )
    assert.equal(error.name, 'AbortError')
    assert.equal(error.code, 'ABORT_ERR')
  })

  for (const [what, input, code] of [
    ['an outside path', { path: '../outside/secret.txt' }, 'OUTSIDE_WORKSPACE'],
    ['a missing file', { path: 'missing.txt' }, 'NOT_FOUND'],
  ]) {
    test(`${what} comes back as a tool error carrying the code`, async () => {
      const { model, result } = await run(input, { read_file: readFileTool({ workspaceRoot: fx.ws }) })
      const toolError = result.steps[0].content.find((part) => part.type === 'tool-error')
      assert.ok(toolError, JSON.stringify(result.steps[0].content))
      assert.equal(toolError.error.code, code)
      // The model is told the code and the message as JSON, not `Error: …`.
      const sent = toolMessageOutput(model)
      assert.equal(sent.type, 'error-text')
      const told = JSON.parse(sent.value)
      assert.deepEqual(Object.keys(told), ['code', 'message'])
      assert.equal(told.code, code)
      assert.ok(told.message.startsWith(`${code}: ${input.path}: `), told.message)
      assert.ok(!sent.value.includes('TOP SECRET'))
    })
  }
})
