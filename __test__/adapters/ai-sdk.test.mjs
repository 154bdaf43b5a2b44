// agent-read-file/ai with the real AI SDK, every supported major (the devDependencies alias the
// older ones: ai-v5, ai-v6; `ai` is the current one): generateText drives the major's own mock
// model, which calls read_file; the tool's result (or error) flows into the next model call,
// and that call's prompt is what the model is told.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as ai5 from 'ai-v5'
import * as ai5Test from 'ai-v5/test'
import * as ai6 from 'ai-v6'
import * as ai6Test from 'ai-v6/test'
import * as ai7 from 'ai'
import * as ai7Test from 'ai/test'
import pkg from '../../index.js'
import core from '../../adapters/ai-core.js'
import { readFileTool as esmReadFileTool } from '../../adapters/ai.mjs'
import { after, describe, test } from '../harness.mjs'
import { v2Step, v3Step } from './ai-mock-steps.mjs'
import { TOOLKIT_DEFINITION, expectedCutText, expectedModelText, expectedOutput, makeFixture, withNote } from '../helpers.mjs'

const { createAgentToolkit, runToolCall } = pkg
const cjsReadFileTool = createRequire(import.meta.url)('../../adapters/ai.js').readFileTool

const fx = makeFixture()
after(() => fx.cleanup())
const file = fx.write('src/a.txt', 'one\ntwo\nthree\n')
fx.write('dist/app.min.js', `${'x'.repeat(300)}\n`)
const lines600 = fx.write('logs/600.txt', Array.from({ length: 600 }, (_, i) => `${i + 1}\n`).join(''))
const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
after(() => toolkit.close())
// A budget that cuts the 300-byte line of dist/app.min.js after 34 bytes (see long-lines).
const budgeted = createAgentToolkit({ workspaceRoot: fx.ws, maxContentBytes: 128 })
after(() => budgeted.close())

const MAJORS = [
  { major: 'ai@5 (ai-v5)', sdk: ai5, Model: ai5Test.MockLanguageModelV2, step: v2Step },
  { major: 'ai@6 (ai-v6)', sdk: ai6, Model: ai6Test.MockLanguageModelV3, step: v3Step },
  { major: 'ai@7 (ai)', sdk: ai7, Model: ai7Test.MockLanguageModelV4, step: v3Step },
]

for (const { major, sdk, Model, step } of MAJORS) {
  const { readFileTool } = core.aiAdapter({ jsonSchema: sdk.jsonSchema, tool: sdk.tool })

  /** A model that calls read_file with `input`, then answers "done". */
  function modelCalling(input) {
    const call = { type: 'tool-call', toolCallId: 'call-1', toolName: 'read_file', input: JSON.stringify(input) }
    return new Model({ doGenerate: [step([call], 'tool-calls'), step([{ type: 'text', text: 'done' }], 'stop')] })
  }

  /** generateText over a model calling read_file with `input`; `told` is what the model was told. */
  async function run(input, tool = readFileTool(toolkit)) {
    const model = modelCalling(input)
    const result = await sdk.generateText({
      model,
      tools: { read_file: tool },
      prompt: 'read it',
      stopWhen: sdk.stepCountIs(2),
    })
    const message = model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool')
    assert.equal(result.text, 'done')
    return { result, told: message.content[0].output, parts: result.steps[0].content }
  }

  describe(`agent-read-file/ai on ${major}`, () => {
    test("the tool has the toolkit definition's description and input schema, start_column included", () => {
      const tool = readFileTool({ workspaceRoot: fx.ws })
      assert.equal(tool.description, TOOLKIT_DEFINITION.description)
      assert.deepEqual(tool.inputSchema.jsonSchema, TOOLKIT_DEFINITION.parameters)
    })

    test('a cut line: the model is told the closing line naming start_column, and its call with it reads on', async () => {
      const { told, parts } = await run({ path: 'dist/app.min.js' }, readFileTool(budgeted))
      const part = 'x'.repeat(34)
      assert.deepEqual(told, {
        type: 'text',
        value: `dist/app.min.js line 1 of 1 (301 bytes)\n1\t${part}\n[line 1 continues at column 35 of 300; next: start_line=1 start_column=35]\n`,
      })
      assert.deepEqual(parts.find((part) => part.type === 'tool-result').output.continuation, { start_line: 1, start_column: 35 })
      const { told: next } = await run({ path: 'dist/app.min.js', start_line: 1, start_column: 35 }, readFileTool(budgeted))
      const expected = expectedCutText({ path: 'dist/app.min.js', size: 301, lineCount: 1, line: 1, part, column: 69, length: 300, from: 35 })
      assert.deepEqual(next, { type: 'text', value: expected })
    })

    for (const [what, input, text, expected] of [
      [
        'a whole file',
        { path: 'src/a.txt' },
        'src/a.txt lines 1-3 of 3 (14 bytes)\n1\tone\n2\ttwo\n3\tthree\n',
        () => expectedOutput(file, 'src/a.txt'),
      ],
      [
        'a cut window',
        { path: 'src/a.txt', max_lines: 2 },
        'src/a.txt lines 1-2 of 3 (14 bytes)\n1\tone\n2\ttwo\n[next: start_line=3]\n',
        () => expectedOutput(file, 'src/a.txt', 1, 2),
      ],
    ]) {
      test(`${what}: the model is told runToolCall's text, the application gets the output`, async () => {
        const { told, parts } = await run(input)
        assert.deepEqual(told, { type: 'text', value: text })
        assert.equal(told.value, expectedModelText(file, 'src/a.txt', 1, input.max_lines ?? 200))
        assert.equal(told.value, (await runToolCall(toolkit, input)).content)
        assert.deepEqual(parts.find((part) => part.type === 'tool-result').output, expected())
      })
    }

    test("resultFormat 'json': the model is told the output as JSON, as before", async () => {
      const json = createAgentToolkit({ workspaceRoot: fx.ws, resultFormat: 'json' })
      try {
        const { told } = await run({ path: 'src/a.txt', max_lines: 2 }, readFileTool(json))
        assert.deepEqual(told, { type: 'json', value: expectedOutput(file, 'src/a.txt', 1, 2) })
      } finally {
        json.close()
      }
    })

    test('dedupeReads: the same window again is told as a note; after forgetReads() the lines come back', async () => {
      const deduping = createAgentToolkit({ workspaceRoot: fx.ws, dedupeReads: true })
      try {
        const tool = readFileTool(deduping)
        const whole = 'src/a.txt lines 1-3 of 3 (14 bytes)\n1\tone\n2\ttwo\n3\tthree\n'
        assert.deepEqual((await run({ path: 'src/a.txt' }, tool)).told, { type: 'text', value: whole })
        const { told, parts } = await run({ path: 'src/a.txt' }, tool)
        assert.deepEqual(told, { type: 'text', value: 'src/a.txt lines 1-3 unchanged since your last read\n' })
        assert.deepEqual(parts.find((part) => part.type === 'tool-result').output, expectedOutput(file, 'src/a.txt'))
        deduping.forgetReads()
        assert.deepEqual((await run({ path: 'src/a.txt' }, tool)).told, { type: 'text', value: whole })
      } finally {
        deduping.close()
      }
    })

    test('lineNumbers: false, from the options the tool is made with', async () => {
      const { told } = await run({ path: 'src/a.txt' }, readFileTool({ workspaceRoot: fx.ws, lineNumbers: false }))
      assert.deepEqual(told, { type: 'text', value: 'src/a.txt lines 1-3 of 3 (14 bytes)\none\ntwo\nthree\n' })
    })

    test('an outside path: the model is told the error and what to do instead', async () => {
      const { told } = await run({ path: '../outside/secret.txt' })
      const text =
        'OUTSIDE_WORKSPACE: ../outside/secret.txt: path resolves outside the workspace\n' +
        'read_file reads only inside the workspace: give a path relative to its root.'
      assert.deepEqual(told, { type: 'error-text', value: text })
    })

    for (const [what, input, code] of [
      ['an outside path', { path: '../outside/secret.txt' }, 'OUTSIDE_WORKSPACE'],
      ['a missing file', { path: 'missing.ts' }, 'NOT_FOUND'],
      ['a bad argument', { path: 'src/a.txt', max_lines: 0 }, 'INVALID_ARGUMENT'],
    ]) {
      test(`${what}: the model is told \`CODE: path: reason\`, the application gets the error`, async () => {
        const { told, parts } = await run(input)
        const { content } = await runToolCall(toolkit, input)
        assert.deepEqual(told, { type: 'error-text', value: content })
        assert.ok(told.value.startsWith(`${code}: ${input.path}: `), told.value)
        assert.ok(!told.value.includes('TOP SECRET'))
        const toolError = parts.find((part) => part.type === 'tool-error')
        assert.ok(toolError, JSON.stringify(parts))
        assert.equal(toolError.error.code, code)
        assert.equal(toolError.error.message, content)
      })
    }

    test('a misspelt path: the model is told the closest file', async () => {
      const { told } = await run({ path: 'src/a.tx' })
      const text = 'NOT_FOUND: src/a.tx: no such file in the workspace; did you mean src/a.txt?'
      assert.deepEqual(told, { type: 'error-text', value: text })
    })

    test('max_lines over 500: the model is told 500 lines and a note', async () => {
      const { told } = await run({ path: 'logs/600.txt', max_lines: 1000 })
      const note = 'max_lines is at most 500: 500 lines returned; read on from next_start_line'
      const text = withNote(expectedModelText(lines600, 'logs/600.txt', 1, 500), note)
      assert.deepEqual(told, { type: 'text', value: text })
    })

    test("a caller's toolkit that throws without a code: the model is told INTERNAL, as runToolCall says", async () => {
      const broken = { readFile: async () => Promise.reject(new TypeError('disk on fire')) }
      const { told, parts } = await run({ path: 'src/a.txt' }, readFileTool(broken))
      assert.deepEqual(told, { type: 'error-text', value: 'INTERNAL: disk on fire' })
      assert.deepEqual(told.value, (await runToolCall(broken, { path: 'src/a.txt' })).content)
      const { error } = parts.find((part) => part.type === 'tool-error')
      assert.equal(error.code, 'INTERNAL')
      assert.equal(error.cause.message, 'disk on fire')
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
  })
}

describe('agent-read-file/ai, its entries (the installed `ai`)', () => {
  test('the ES module and the CommonJS entry make the same tool over options or a toolkit', async () => {
    const input = { path: 'src/a.txt', max_lines: 2 }
    for (const tool of [
      esmReadFileTool({ workspaceRoot: fx.ws }),
      esmReadFileTool(toolkit),
      // The CommonJS entry `require`s the SDK (an ES module: Node 20.19+, Bun).
      cjsReadFileTool({ workspaceRoot: fx.ws }),
    ]) {
      assert.equal(tool.description, TOOLKIT_DEFINITION.description)
      assert.deepEqual(await tool.execute(input, {}), expectedOutput(file, 'src/a.txt', 1, 2))
      const error = await tool.execute({ path: 'missing.ts' }, {}).catch((thrown) => thrown)
      assert.equal(String(error), (await runToolCall(toolkit, { path: 'missing.ts' })).content)
    }
  })
})
