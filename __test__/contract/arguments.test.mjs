// Argument rules (table-driven), workspaceRoot rules, and sync/async equivalence.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import {
  assertRejectsCode,
  assertThrowsCode,
  expectedOutput,
  makeFixture,
  settle,
  thrown,
} from '../helpers.mjs'

const { readFile, readFileSync } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
const TEN_LINES = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('')
const TEN = fx.write('ten.txt', TEN_LINES)
fx.write('dir/inner.txt', 'inner\n')

/** Both entry points must reject `input` with INVALID_ARGUMENT naming `field`. */
async function assertInvalid(input, field, requestedPath) {
  const syncErr = assertThrowsCode(() => readFileSync(fx.ws, input), 'INVALID_ARGUMENT', requestedPath)
  assert.ok(syncErr.message.includes(field), `message ${JSON.stringify(syncErr.message)} should name ${field}`)
  const asyncErr = await assertRejectsCode(() => readFile(fx.ws, input), 'INVALID_ARGUMENT', requestedPath)
  assert.equal(asyncErr.message, syncErr.message)
}

describe('input must be an object', () => {
  const notObjects = [
    ['undefined', undefined],
    ['null', null],
    ['a string', 'ten.txt'],
    ['a number', 1],
    ['a boolean', true],
    ['a bigint', 1n],
    ['a symbol', Symbol('ten.txt')],
  ]
  for (const [name, input] of notObjects) {
    test(`${name} input is INVALID_ARGUMENT`, async () => {
      await assertInvalid(input, 'input')
    })
  }
})

describe('path must be a non-empty string without NUL', () => {
  const badPaths = [
    ['missing', {}],
    ['undefined', { path: undefined }],
    ['null', { path: null }],
    ['empty', { path: '' }],
    ['a number', { path: 42 }],
    ['a boolean', { path: true }],
    ['an array', { path: ['ten.txt'] }],
    ['an object', { path: { toString: () => 'ten.txt' } }],
    ['a bigint', { path: 10n }],
    ['a symbol', { path: Symbol('ten.txt') }],
    ['containing NUL', { path: 'ten.txt\0.png' }],
    ['only a NUL', { path: '\0' }],
  ]
  for (const [name, input] of badPaths) {
    test(`path ${name} is INVALID_ARGUMENT`, async () => {
      await assertInvalid(input, 'path')
    })
  }
})

describe('start_line must be an integer >= 1', () => {
  const badStarts = [
    ['0', 0],
    ['-0', -0],
    ['-1', -1],
    ['a fraction', 1.5],
    ['a tiny fraction', 1 + Number.EPSILON],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['a numeric string', '2'],
    ['an empty string', ''],
    ['true', true],
    ['false', false],
    ['an array', [2]],
    ['an object', {}],
    ['a boxed number', Object(2)],
    ['a bigint', 2n],
    ['a huge negative', -(2 ** 53)],
  ]
  for (const [name, value] of badStarts) {
    test(`start_line ${name} is INVALID_ARGUMENT naming start_line`, async () => {
      await assertInvalid({ path: 'ten.txt', start_line: value }, 'start_line', 'ten.txt')
    })
  }
})

describe('max_lines must be an integer in 1..500', () => {
  const badMaxes = [
    ['0', 0],
    ['-0', -0],
    ['-1', -1],
    ['501', 501],
    ['1000', 1000],
    ['2**32 + 1 (would wrap to 1)', 2 ** 32 + 1],
    ['2**53 + 2', 2 ** 53 + 2],
    ['a fraction', 2.5],
    ['500.5', 500.5],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['a numeric string', '10'],
    ['true', true],
    ['false', false],
    ['an array', [10]],
    ['an object', {}],
    ['a bigint', 10n],
  ]
  for (const [name, value] of badMaxes) {
    test(`max_lines ${name} is INVALID_ARGUMENT naming max_lines`, async () => {
      await assertInvalid({ path: 'ten.txt', max_lines: value }, 'max_lines', 'ten.txt')
    })
  }
})

describe('valid arguments', () => {
  const cases = [
    ['only path', { path: 'ten.txt' }, 1, 200],
    ['null start_line and max_lines take the defaults', { path: 'ten.txt', start_line: null, max_lines: null }, 1, 200],
    ['undefined start_line and max_lines take the defaults', { path: 'ten.txt', start_line: undefined, max_lines: undefined }, 1, 200],
    ['start_line 1, max_lines 1', { path: 'ten.txt', start_line: 1, max_lines: 1 }, 1, 1],
    ['max_lines 500', { path: 'ten.txt', max_lines: 500 }, 1, 500],
    ['max_lines 3', { path: 'ten.txt', max_lines: 3 }, 1, 3],
    ['start_line 4, max_lines 3', { path: 'ten.txt', start_line: 4, max_lines: 3 }, 4, 3],
    ['start_line 10 (the last line)', { path: 'ten.txt', start_line: 10 }, 10, 200],
    ['start_line 11 (past the end)', { path: 'ten.txt', start_line: 11 }, 11, 200],
    ['start_line 2.0 is an integer', { path: 'ten.txt', start_line: 2.0, max_lines: 2.0 }, 2, 2],
    ['unknown extra keys are ignored', { path: 'ten.txt', start_line: 2, max_lines: 2, encoding: 'latin1', foo: null, maxLines: 1, startLine: 9 }, 2, 2],
  ]
  for (const [name, input, start, max] of cases) {
    test(`${name}`, async () => {
      const expected = expectedOutput(TEN, 'ten.txt', start, max)
      assert.deepEqual(readFileSync(fx.ws, input), expected)
      assert.deepEqual(await readFile(fx.ws, input), expected)
    })
  }

  const hugeStarts = [
    ['2**53 + 2', 2 ** 53 + 2],
    ['2**32 + 1 (would wrap to 1)', 2 ** 32 + 1],
    ['2**32 + 3 (would wrap to 3)', 2 ** 32 + 3],
    ['2**64 + 2**12', 2 ** 64 + 2 ** 12],
    ['Number.MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER],
    ['1e300', 1e300],
    ['Number.MAX_VALUE', Number.MAX_VALUE],
  ]
  for (const [name, start] of hugeStarts) {
    test(`start_line ${name} is valid and means past the end`, async () => {
      const input = { path: 'ten.txt', start_line: start, max_lines: 5 }
      const expected = {
        path: 'ten.txt',
        content: '',
        truncated: false,
        next_start_line: null,
        meta: {
          byte_length: Buffer.byteLength(TEN_LINES),
          line_count: 10,
          returned_line_count: 0,
          mtime_ms: expectedOutput(TEN, 'ten.txt').meta.mtime_ms,
        },
      }
      assert.deepEqual(readFileSync(fx.ws, input), expected)
      assert.deepEqual(await readFile(fx.ws, input), expected)
    })
  }

  test('an input object with a prototype chain and getters is read', () => {
    const input = Object.create({ path: 'ten.txt' })
    Object.defineProperty(input, 'max_lines', { get: () => 2, enumerable: false })
    assert.deepEqual(readFileSync(fx.ws, input), expectedOutput(TEN, 'ten.txt', 1, 2))
  })

  test('the input object is not modified', () => {
    const input = { path: 'ten.txt' }
    readFileSync(fx.ws, input)
    assert.deepEqual(input, { path: 'ten.txt' })
  })
})

describe('workspaceRoot must be an absolute path to an existing directory', () => {
  const badRoots = [
    ['a relative path', () => 'ws'],
    ['a relative path that exists from the cwd', () => path.relative(process.cwd(), fx.ws)],
    ['"."', () => '.'],
    ['an empty string', () => ''],
    ['a missing directory', () => path.join(fx.base, 'missing')],
    ['a regular file', () => TEN],
    ['a path containing NUL', () => `${fx.ws}\0`],
    ['undefined', () => undefined],
    ['null', () => null],
    ['a number', () => 1],
    ['an object', () => ({ path: fx.ws })],
    ['a URL object', () => new URL(`file://${fx.ws}`)],
    ['a Buffer', () => Buffer.from(fx.ws)],
  ]
  for (const [name, root] of badRoots) {
    test(`${name} is INVALID_ARGUMENT`, async () => {
      const input = { path: 'ten.txt' }
      assertThrowsCode(() => readFileSync(root(), input), 'INVALID_ARGUMENT', 'ten.txt')
      await assertRejectsCode(() => readFile(root(), input), 'INVALID_ARGUMENT', 'ten.txt')
    })
  }

  test('a root written with a trailing slash, "." or ".." segments works', () => {
    for (const root of [`${fx.ws}/`, `${fx.ws}/.`, `${fx.ws}/dir/..`, `${fx.base}//ws`]) {
      assert.deepEqual(readFileSync(root, { path: 'ten.txt' }), expectedOutput(TEN, 'ten.txt'), root)
    }
  })

  test('a bad input is reported even when the root is also bad', () => {
    const err = thrown(() => readFileSync('relative', { path: 'ten.txt', max_lines: 0 }))
    assert.equal(err.code, 'INVALID_ARGUMENT')
  })
})

describe('readFileSync and readFile agree', () => {
  fs.writeFileSync(path.join(fx.ws, 'bin.dat'), Buffer.from([0x61, 0x00, 0x62]))
  fs.writeFileSync(
    path.join(fx.ws, 'crlf.txt'),
    Buffer.concat([Buffer.from('\uFEFFa\r\nb\rc\r\n'), Buffer.from([0xff, 0x0a, 0xe2, 0x82])]),
  )
  const table = [
    [fx.ws, { path: 'ten.txt' }],
    [fx.ws, { path: 'ten.txt', start_line: 3, max_lines: 4 }],
    [fx.ws, { path: './dir/../ten.txt', max_lines: 9 }],
    [fx.ws, { path: 'ten.txt', start_line: 2 ** 53 + 2 }],
    [fx.ws, { path: 'crlf.txt', max_lines: 1 }],
    [fx.ws, { path: 'crlf.txt', start_line: 2 }],
    [fx.ws, { path: path.join(fx.ws, 'dir/inner.txt') }],
    [fx.ws, { path: 'missing.txt' }],
    [fx.ws, { path: 'dir' }],
    [fx.ws, { path: '.' }],
    [fx.ws, { path: 'bin.dat' }],
    [fx.ws, { path: '../outside/secret.txt' }],
    [fx.ws, { path: fx.secret }],
    [fx.ws, { path: 'ten.txt', max_lines: 501 }],
    [fx.ws, { path: 'ten.txt', start_line: '1' }],
    [fx.ws, { path: '' }],
    [fx.ws, null],
    ['relative/root', { path: 'ten.txt' }],
    [path.join(fx.base, 'missing'), { path: 'ten.txt' }],
  ]
  for (const [root, input] of table) {
    const label = input === null ? 'null' : JSON.stringify(input).replaceAll(fx.base, '<tmp>')
    test(`same outcome for ${label}`, async () => {
      const sync = await settle(() => readFileSync(root, input))
      const async = await settle(() => readFile(root, input))
      assert.deepEqual(async, sync)
      if (!sync.ok) {
        assert.ok(sync.isError)
        assert.ok(sync.message.startsWith(`${sync.code}: `), sync.message)
      }
    })
  }
})
