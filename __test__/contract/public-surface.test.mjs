// The public surface: exports, the tool definition, ToolCatalog, createAgentToolkit,
// the promise contract of readFile and AbortSignal handling.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import * as namespace from '../../index.js'
import {
  readFile as namedReadFile,
  TOOL_DEFINITIONS as namedDefinitions,
  TOOLKIT_DEFINITIONS as namedToolkitDefinitions,
} from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import {
  SPEC_DEFINITION,
  TOOLKIT_DEFINITION,
  assertRejectsCode,
  assertThrowsCode,
  expectedOutput,
  INDEX_PATH,
  makeFixture,
  objectsIn,
  rejection,
  runChild,
} from '../helpers.mjs'

const { readFile, readFileSync, MAX_FILE_BYTES, TOOL_DEFINITIONS, TOOLKIT_DEFINITIONS, ToolCatalog, createAgentToolkit } =
  pkg

const fx = makeFixture()
after(() => fx.cleanup())
const MAIN = fx.write('src/main.ts', 'export const answer = 42\nconsole.log(answer)\n')
fx.write('notes.txt', 'one\ntwo\nthree\n')

describe('exports', () => {
  test('the CommonJS default import exposes the whole API', () => {
    assert.equal(typeof readFile, 'function')
    assert.equal(typeof readFileSync, 'function')
    assert.equal(typeof createAgentToolkit, 'function')
    assert.equal(typeof TOOL_DEFINITIONS, 'object')
    assert.equal(typeof ToolCatalog, 'object')
    assert.equal(MAX_FILE_BYTES, 1048576)
  })

  test('the package exports exactly its public names', () => {
    const names = [
      'readFile',
      'readFileSync',
      'fileVersion',
      'readFiles',
      'MAX_FILE_BYTES',
      'MAX_BATCH_FILES',
      'MAX_BATCH_CONTENT_BYTES',
      'TOOL_DEFINITIONS',
      'TOOLKIT_DEFINITIONS',
      'ToolCatalog',
      'createAgentToolkit',
      'runToolCall',
      'estimateTokens',
      'maxReadTokensFor',
      'isReadFileError',
      'isToolkitError',
      'DEFAULT_DENY',
      'IGNORE_FILES',
      'dialects',
    ]
    assert.deepEqual(Object.keys(pkg).sort(), names.sort())
    for (const name of names) assert.equal(namespace[name], pkg[name], `named ESM export ${name}`)
  })

  test('named ESM imports work and are the same objects', async () => {
    assert.equal(typeof namedReadFile, 'function')
    assert.equal(namedReadFile, pkg.readFile)
    assert.equal(namedDefinitions, pkg.TOOL_DEFINITIONS)
    assert.equal(namedToolkitDefinitions, pkg.TOOLKIT_DEFINITIONS)
    assert.equal(namespace.readFileSync, pkg.readFileSync)
    assert.equal(namespace.MAX_FILE_BYTES, 1048576)
    assert.equal(namespace.ToolCatalog, pkg.ToolCatalog)
    assert.equal(namespace.createAgentToolkit, pkg.createAgentToolkit)
    assert.deepEqual(namedDefinitions.read_file, SPEC_DEFINITION)
    const out = await namedReadFile(fx.ws, { path: 'src/main.ts' })
    assert.deepEqual(out, expectedOutput(MAIN, 'src/main.ts'))
  })
})

describe('hostile or hardened runtimes', () => {
  test('outputs are built by definition, in a runtime that forbids eval', async () => {
    // The result objects come from code the addon compiles itself; a setter that page code
    // put on Object.prototype must not run, and eval being off must not matter.
    const flags = typeof Bun === 'undefined' ? ['--disallow-code-generation-from-strings'] : []
    const source = `
const { readFile, readFileSync } = require(${JSON.stringify(INDEX_PATH)})
let setterRan = false
for (const key of ['path', 'content', 'meta', 'byte_length']) {
  Object.defineProperty(Object.prototype, key, { set() { setterRan = true }, configurable: true })
}
let evalAllowed = true
try { eval('1') } catch { evalAllowed = false }
const input = { path: 'src/main.ts' }
readFile(${JSON.stringify(fx.ws)}, input).then((output) => {
  console.log(JSON.stringify({ output, sync: readFileSync(${JSON.stringify(fx.ws)}, input), setterRan, evalAllowed }))
})`
    const result = await runChild(fx.base, 'hardened.cjs', source, { flags })
    const expected = expectedOutput(MAIN, 'src/main.ts')
    assert.deepEqual(result, {
      output: expected,
      sync: expected,
      setterRan: false,
      evalAllowed: typeof Bun !== 'undefined',
    })
  })
})

describe('tool definition', () => {
  test('TOOL_DEFINITIONS registers read_file exactly as specified', () => {
    assert.deepEqual(Object.keys(TOOL_DEFINITIONS), ['read_file'])
    assert.deepEqual(TOOL_DEFINITIONS.read_file, SPEC_DEFINITION)
  })

  test('TOOL_DEFINITIONS is frozen all the way down', () => {
    for (const [where, object] of objectsIn(TOOL_DEFINITIONS)) {
      assert.ok(Object.isFrozen(object), `${where} should be frozen`)
    }
    // ESM is strict mode: writes to frozen objects throw.
    assert.throws(() => {
      TOOL_DEFINITIONS.read_file.name = 'write_file'
    }, TypeError)
    assert.throws(() => {
      TOOL_DEFINITIONS.read_file.parameters.required.push('start_line')
    }, TypeError)
    assert.throws(() => {
      TOOL_DEFINITIONS.read_file.parameters.properties.max_lines.default = 1000
    }, TypeError)
    assert.throws(() => {
      TOOL_DEFINITIONS.write_file = {}
    }, TypeError)
    assert.deepEqual(TOOL_DEFINITIONS.read_file, SPEC_DEFINITION)
  })

  test('ToolCatalog registers read_file with the same frozen definition', () => {
    assert.ok(Object.keys(ToolCatalog).includes('read_file'))
    const entry = ToolCatalog.read_file
    assert.deepEqual(entry.definition, SPEC_DEFINITION)
    assert.equal(typeof entry.execute, 'function')
    for (const [where, object] of objectsIn(entry.definition)) {
      assert.ok(Object.isFrozen(object), `ToolCatalog.read_file.definition ${where} should be frozen`)
    }
  })

  test("TOOLKIT_DEFINITIONS is the spec's definition with its bounds stated, one sentence more, a start_line from the end and start_column, frozen all the way down", () => {
    assert.deepEqual(Object.keys(TOOLKIT_DEFINITIONS), ['read_file'])
    assert.deepEqual(TOOLKIT_DEFINITIONS.read_file, TOOLKIT_DEFINITION)
    const { properties, required } = TOOLKIT_DEFINITIONS.read_file.parameters
    assert.deepEqual(Object.keys(properties), ['path', 'start_line', 'max_lines', 'start_column', 'pages', 'outline', 'symbol', 'ranges'])
    assert.deepEqual(properties.path, SPEC_DEFINITION.parameters.properties.path)
    // The spec's defaults and the bounds its ReadFileInput states (max_lines: 1 to 500); a
    // toolkit's start_line may also be negative, counting from the end.
    for (const name of ['start_line', 'max_lines']) {
      assert.equal(properties[name].default, SPEC_DEFINITION.parameters.properties[name].default, name)
      assert.deepEqual(properties[name].type, ['integer', 'null'], name)
    }
    assert.equal(properties.max_lines.minimum, 1)
    assert.equal('minimum' in properties.start_line, false)
    assert.ok(properties.start_line.description.startsWith(`${SPEC_DEFINITION.parameters.properties.start_line.description} `))
    assert.equal(properties.max_lines.maximum, 500)
    assert.deepEqual(required, ['path'])
    assert.ok(TOOLKIT_DEFINITIONS.read_file.description.startsWith(`${SPEC_DEFINITION.description} `))
    for (const [where, object] of objectsIn(TOOLKIT_DEFINITIONS)) {
      assert.ok(Object.isFrozen(object), `TOOLKIT_DEFINITIONS ${where} should be frozen`)
    }
    assert.throws(() => {
      TOOLKIT_DEFINITIONS.read_file.parameters.properties.start_column.default = 0
    }, TypeError)
    // The two definitions share nothing a write could reach, and the spec's stays the spec's.
    assert.deepEqual(TOOL_DEFINITIONS.read_file, SPEC_DEFINITION)
    assert.equal('start_column' in TOOL_DEFINITIONS.read_file.parameters.properties, false)
  })

  test("every toolkit's definition is TOOLKIT_DEFINITIONS.read_file; ToolCatalog keeps the spec's", () => {
    const toolkits = [createAgentToolkit({ workspaceRoot: fx.ws }), createAgentToolkit({ workspaceRoot: fx.ws, defaultDeny: false })]
    for (const toolkit of toolkits) {
      assert.equal(toolkit.definition, TOOLKIT_DEFINITIONS.read_file)
      toolkit.close()
    }
    assert.equal(ToolCatalog.read_file.definition, TOOL_DEFINITIONS.read_file)
  })

  test('the definition survives a JSON round trip unchanged', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(TOOL_DEFINITIONS.read_file)), SPEC_DEFINITION)
  })
})

describe('ToolCatalog.read_file.execute', () => {
  test('reads a file like readFile does', async () => {
    const promise = ToolCatalog.read_file.execute({ path: 'src/main.ts' }, { workspaceRoot: fx.ws })
    assert.ok(promise instanceof Promise || typeof promise.then === 'function')
    const out = await promise
    assert.deepEqual(out, expectedOutput(MAIN, 'src/main.ts'))
    assert.deepEqual(out, readFileSync(fx.ws, { path: 'src/main.ts' }))
  })

  test('honours start_line and max_lines', async () => {
    const out = await ToolCatalog.read_file.execute(
      { path: 'notes.txt', start_line: 2, max_lines: 1 },
      { workspaceRoot: fx.ws },
    )
    assert.equal(out.content, 'two\n')
    assert.equal(out.truncated, true)
    assert.equal(out.next_start_line, 3)
  })

  test('rejects with the contract codes', async () => {
    await assertRejectsCode(
      () => ToolCatalog.read_file.execute({ path: 'missing.txt' }, { workspaceRoot: fx.ws }),
      'NOT_FOUND',
      'missing.txt',
    )
    await assertRejectsCode(
      () => ToolCatalog.read_file.execute({ path: '../outside/secret.txt' }, { workspaceRoot: fx.ws }),
      'OUTSIDE_WORKSPACE',
      '../outside/secret.txt',
    )
    await assertRejectsCode(
      () => ToolCatalog.read_file.execute({ path: 'notes.txt', max_lines: 0 }, { workspaceRoot: fx.ws }),
      'INVALID_ARGUMENT',
      'notes.txt',
    )
    await assertRejectsCode(
      () => ToolCatalog.read_file.execute({ path: 'notes.txt' }, { workspaceRoot: 'relative/root' }),
      'INVALID_ARGUMENT',
    )
  })
})

describe('createAgentToolkit', () => {
  test('readFile reads beneath the bound root', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    assert.equal(typeof toolkit.readFile, 'function')
    const out = await toolkit.readFile({ path: 'src/main.ts' })
    assert.deepEqual(out, expectedOutput(MAIN, 'src/main.ts'))
    const window = await toolkit.readFile({ path: 'notes.txt', start_line: 3 })
    assert.equal(window.content, 'three\n')
    assert.equal(window.meta.returned_line_count, 1)
    assert.equal(window.meta.line_count, 3)
  })

  test('readFile rejects (never throws) with the contract codes', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    await assertRejectsCode(() => toolkit.readFile({ path: 'nope.txt' }), 'NOT_FOUND', 'nope.txt')
    await assertRejectsCode(() => toolkit.readFile({ path: 'src' }), 'NOT_FILE', 'src')
    await assertRejectsCode(
      () => toolkit.readFile({ path: '../outside/secret.txt' }),
      'OUTSIDE_WORKSPACE',
      '../outside/secret.txt',
    )
    await assertRejectsCode(
      () => toolkit.readFile({ path: 'notes.txt', start_line: 0 }),
      'INVALID_ARGUMENT',
      'notes.txt',
    )
    await assertRejectsCode(() => toolkit.readFile(null), 'INVALID_ARGUMENT')
    await assertRejectsCode(() => toolkit.readFile({ path: '' }), 'INVALID_ARGUMENT')
  })

  test('sees files created after it was made', async () => {
    const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
    const file = fx.write('later.txt', 'late\n')
    assert.deepEqual(await toolkit.readFile({ path: 'later.txt' }), expectedOutput(file, 'later.txt'))
  })

  const badRoots = [
    ['a relative path', () => 'ws'],
    ['"."', () => '.'],
    ['an empty string', () => ''],
    ['a missing directory', () => path.join(fx.base, 'no-such-dir')],
    ['a regular file', () => MAIN],
    ['a number', () => 42],
    ['undefined', () => undefined],
    ['null', () => null],
  ]
  for (const [name, root] of badRoots) {
    test(`throws INVALID_ARGUMENT synchronously for ${name} as root`, () => {
      assertThrowsCode(() => createAgentToolkit({ workspaceRoot: root() }), 'INVALID_ARGUMENT')
    })
  }

  test('throws INVALID_ARGUMENT synchronously when workspaceRoot is absent', () => {
    assertThrowsCode(() => createAgentToolkit({}), 'INVALID_ARGUMENT')
  })
})

describe('readFile returns a promise', () => {
  test('it resolves for a good read', async () => {
    const promise = readFile(fx.ws, { path: 'src/main.ts' })
    assert.ok(promise instanceof Promise)
    assert.deepEqual(await promise, expectedOutput(MAIN, 'src/main.ts'))
  })

  const badCalls = [
    ['no arguments at all', () => readFile()],
    ['a missing input', () => readFile(fx.ws)],
    ['a null input', () => readFile(fx.ws, null)],
    ['a string input', () => readFile(fx.ws, 'src/main.ts')],
    ['a number path', () => readFile(fx.ws, { path: 7 })],
    ['a symbol path', () => readFile(fx.ws, { path: Symbol('p') })],
    ['a bigint max_lines', () => readFile(fx.ws, { path: 'src/main.ts', max_lines: 5n })],
    ['a relative root', () => readFile('ws', { path: 'src/main.ts' })],
    ['a non-string root', () => readFile({}, { path: 'src/main.ts' })],
    [
      'an input whose getter throws',
      () =>
        readFile(fx.ws, {
          get path() {
            throw new Error('boom')
          },
        }),
    ],
  ]
  for (const [name, call] of badCalls) {
    test(`it rejects, and does not throw, for ${name}`, async () => {
      const err = await rejection(call)
      assert.ok(err instanceof Error, 'rejects with an Error')
      if (name !== 'an input whose getter throws') {
        assert.equal(err.code, 'INVALID_ARGUMENT', err.message)
        assert.ok(err.message.startsWith('INVALID_ARGUMENT: '), err.message)
      }
    })
  }

  test('runs many reads concurrently with the same results as readFileSync', async () => {
    const inputs = Array.from({ length: 64 }, (_, i) => ({
      path: i % 2 ? 'notes.txt' : 'src/main.ts',
      start_line: (i % 3) + 1,
      max_lines: (i % 2) + 1,
    }))
    const results = await Promise.all(inputs.map((input) => readFile(fx.ws, input)))
    results.forEach((out, i) => assert.deepEqual(out, readFileSync(fx.ws, inputs[i])))
  })
})

describe('AbortSignal', () => {
  test('an already-aborted signal rejects with AbortError / ABORT_ERR', async () => {
    const err = await rejection(() => readFile(fx.ws, { path: 'src/main.ts' }, AbortSignal.abort()))
    assert.ok(err instanceof Error, 'an Error')
    assert.equal(err.name, 'AbortError')
    assert.equal(err.code, 'ABORT_ERR')
  })

  test('an already-aborted signal with a custom reason still rejects with AbortError', async () => {
    const controller = new AbortController()
    controller.abort(new Error('user cancelled'))
    const err = await rejection(() => readFile(fx.ws, { path: 'src/main.ts' }, controller.signal))
    assert.ok(err instanceof Error)
    assert.equal(err.name, 'AbortError')
    assert.equal(err.code, 'ABORT_ERR')
  })

  test('an aborted signal wins even for a file that would fail', async () => {
    const err = await rejection(() => readFile(fx.ws, { path: 'missing.txt' }, AbortSignal.abort()))
    assert.equal(err.name, 'AbortError')
    assert.equal(err.code, 'ABORT_ERR')
  })

  test('a signal that is not aborted gives the normal result', async () => {
    const controller = new AbortController()
    const out = await readFile(fx.ws, { path: 'src/main.ts' }, controller.signal)
    assert.deepEqual(out, expectedOutput(MAIN, 'src/main.ts'))
    // Aborting after settlement changes nothing.
    controller.abort()
    assert.deepEqual(out, expectedOutput(MAIN, 'src/main.ts'))
  })

  test('a not-aborted signal does not hide errors', async () => {
    await assertRejectsCode(
      () => readFile(fx.ws, { path: 'missing.txt' }, new AbortController().signal),
      'NOT_FOUND',
      'missing.txt',
    )
  })

  test('an undefined signal is the same as none', async () => {
    assert.deepEqual(
      await readFile(fx.ws, { path: 'src/main.ts' }, undefined),
      expectedOutput(MAIN, 'src/main.ts'),
    )
  })

  test('AbortSignal.timeout that has not fired gives the normal result', async () => {
    const out = await readFile(fx.ws, { path: 'notes.txt' }, AbortSignal.timeout(60_000))
    assert.equal(out.content, fs.readFileSync(path.join(fx.ws, 'notes.txt'), 'utf8'))
  })
})
