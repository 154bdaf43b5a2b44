// Options and contexts from hostile callers: a throwing getter, a proxy whose traps throw, an
// array whose iterator, length, elements or species misbehave. Every entry point answers the
// way it answers any bad argument (a rejected promise, or INVALID_ARGUMENT thrown by the
// synchronous ones), names the option, and reads each option once.
import assert from 'node:assert/strict'

import pkg from '../../index.js'
import { readFileTool } from '../../adapters/ai.mjs'
import { createMcpServer } from '../../adapters/mcp.mjs'
import { after, describe, test } from '../harness.mjs'
import { assertRejectsCode, assertThrowsCode, makeFixture, rejection, thrown } from '../helpers.mjs'

const { createAgentToolkit, ToolCatalog, runToolCall, dialects } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
fx.write('a.txt', 'alpha\n')
fx.write('.env', 'API_KEY=secret\n')
fx.write('long.txt', `${'x'.repeat(300)}\n`)

const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
after(() => toolkit.close())

class HostileError extends Error {}

function boom() {
  throw new HostileError('a hostile getter')
}

/** A proxy all of whose traps throw. */
function throwingProxy(target = {}) {
  const traps = ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'apply', 'construct']
  return new Proxy(target, Object.fromEntries(traps.map((trap) => [trap, boom])))
}

/** A proxy revoked before use: every operation on it, `Array.isArray` too, throws a TypeError. */
function revokedProxy(target = {}) {
  const { proxy, revoke } = Proxy.revocable(target, {})
  revoke()
  return proxy
}

/** `base` plus a getter for `name` that throws. */
function withThrowingGetter(base, name) {
  return Object.defineProperty({ ...base }, name, { get: boom, enumerable: true })
}

/** An array of `rules` whose element `index` is `first` on the first read, `later` after. */
function flippingArray(rules, index, first, later) {
  let reads = 0
  return Object.defineProperty([...rules], index, { get: () => (reads++ === 0 ? first : later), enumerable: true })
}

/** Asserts `err` is INVALID_ARGUMENT, not a hostile error, and its message names `option`. */
function checkInvalid(err, option) {
  assert.ok(!(err instanceof HostileError), `the hostile error escaped: ${err && err.message}`)
  assert.ok(err instanceof Error, `expected an Error, got ${String(err)}`)
  assert.equal(err.code, 'INVALID_ARGUMENT', `wrong code; message was ${JSON.stringify(err.message)}`)
  assert.ok(err.message.startsWith('INVALID_ARGUMENT: '), err.message)
  assert.ok(err.message.includes(option), `${JSON.stringify(err.message)} should name ${option}`)
  return err
}

const throwSync = (call, option) => checkInvalid(thrown(call), option)
const rejectAsync = async (call, option) => checkInvalid(await rejection(call), option)

describe('createAgentToolkit: hostile options throw INVALID_ARGUMENT naming the option', () => {
  for (const name of ['workspaceRoot', 'defaultDeny', 'deny', 'allow', 'ignoreFiles', 'maxContentBytes', 'maxFileBytes']) {
    test(`a throwing ${name} getter, what it threw the error's cause`, () => {
      const err = throwSync(() => createAgentToolkit(withThrowingGetter({ workspaceRoot: fx.ws }, name)), `options.${name}`)
      assert.ok(err.cause instanceof HostileError, `${name}: cause ${err.cause}`)
      assert.ok(!Object.keys(err).includes('cause'), 'a cause is not enumerable, as Error defines it')
    })
  }

  test('a proxy whose traps throw, and a revoked proxy', () => {
    throwSync(() => createAgentToolkit(throwingProxy()), 'options.')
    throwSync(() => createAgentToolkit(revokedProxy()), 'options.')
  })

  for (const list of ['deny', 'allow', 'ignoreFiles']) {
    test(`${list}: a proxy array whose traps throw, a revoked one, a throwing element`, () => {
      const make = (rules) => () => createAgentToolkit({ workspaceRoot: fx.ws, [list]: rules })
      throwSync(make(throwingProxy(['.env'])), `options.${list}`)
      throwSync(make(revokedProxy(['.env'])), `options.${list}`)
      throwSync(make(Object.defineProperty(['.env', 'b'], 1, { get: boom })), `options.${list}[1]`)
    })

    test(`${list}: a proxy array with a length that is not an array length, or an absurd one`, () => {
      const make = (length) => () => {
        let reads = 0
        const get = (target, key) => {
          if (key === 'length') return length
          // Bounded so that copying element after element fails here rather than hanging.
          if (++reads > 10_000) throw new HostileError('read too many elements')
          return '.env'
        }
        return createAgentToolkit({ workspaceRoot: fx.ws, [list]: new Proxy([], { get }) })
      }
      for (const length of [2 ** 32 - 1, -1, 1.5, 'many', Number.NaN]) {
        throwSync(make(length), `options.${list}`)
      }
    })
  }

  test('deny: the elements count, not Symbol.iterator (one yielding 42, one throwing)', async () => {
    const yields42 = Object.assign(['.env'], {
      *[Symbol.iterator]() {
        yield 42
      },
    })
    const throwingIterator = Object.assign(['.env'], { [Symbol.iterator]: boom })
    for (const deny of [yields42, throwingIterator]) {
      const custom = createAgentToolkit({ workspaceRoot: fx.ws, deny })
      assertThrowsCode(() => custom.readFileSync({ path: '.env' }), 'POLICY_DENIED', '.env')
      assert.equal((await custom.readFile({ path: 'a.txt' })).content, 'alpha\n')
      custom.close()
    }
  })

  test('deny: a constructor[Symbol.species] that throws is never consulted', () => {
    const withSpecies = (rules) => Object.assign(rules, { constructor: { [Symbol.species]: boom } })
    const [deny, allow] = [withSpecies(['*.txt']), withSpecies(['a.txt'])]
    const custom = createAgentToolkit({ workspaceRoot: fx.ws, deny, allow })
    assertThrowsCode(() => custom.readFileSync({ path: 'long.txt' }), 'POLICY_DENIED', 'long.txt')
    assert.equal(custom.readFileSync({ path: 'a.txt' }).content, 'alpha\n')
    custom.close()
  })

  test('each element of a rule list is read once: what was checked is what is compiled', () => {
    const custom = createAgentToolkit({ workspaceRoot: fx.ws, deny: flippingArray(['a.txt', 'x'], 0, '.env', 42) })
    assertThrowsCode(() => custom.readFileSync({ path: '.env' }), 'POLICY_DENIED', '.env')
    assert.equal(custom.readFileSync({ path: 'a.txt' }).content, 'alpha\n')
    custom.close()
    const rejected = flippingArray(['.env'], 0, 42, '.env')
    throwSync(() => createAgentToolkit({ workspaceRoot: fx.ws, deny: rejected }), 'deny')
  })

  test('each option is read once', () => {
    const reads = {}
    const options = {}
    const values = { workspaceRoot: fx.ws, deny: ['.env'], allow: [], maxContentBytes: 200, maxFileBytes: Infinity }
    for (const [name, value] of Object.entries(values)) {
      Object.defineProperty(options, name, {
        get: () => {
          reads[name] = (reads[name] ?? 0) + 1
          return reads[name] === 1 ? value : 42
        },
        enumerable: true,
      })
    }
    const custom = createAgentToolkit(options)
    assert.deepEqual(reads, { workspaceRoot: 1, deny: 1, allow: 1, maxContentBytes: 1, maxFileBytes: 1 })
    const cut = custom.readFileSync({ path: 'long.txt' })
    assert.ok(Buffer.byteLength(cut.content) <= 200, `the budget of the first read applies: ${cut.content.length}`)
    custom.close()
  })
})

describe('toolkit calls: hostile call options reject INVALID_ARGUMENT naming the option', () => {
  const hostile = [
    ['a throwing signal getter', () => withThrowingGetter({}, 'signal'), 'options.signal'],
    ['a proxy whose traps throw', () => throwingProxy(), 'options.signal'],
    ['a revoked proxy', () => revokedProxy(), 'options.signal'],
  ]
  for (const [name, options, option] of hostile) {
    test(`readFile with ${name}`, async () => {
      const err = await rejectAsync(() => toolkit.readFile({ path: 'a.txt' }, options()), option)
      assert.ok(err.message.startsWith('INVALID_ARGUMENT: a.txt: '), err.message)
    })

    test(`readFiles with ${name}`, async () => {
      const err = await rejectAsync(() => toolkit.readFiles([{ path: 'a.txt' }], options()), option)
      assert.ok(err.message.startsWith('INVALID_ARGUMENT: readFiles: '), err.message)
    })
  }

  test('the signal is read once', async () => {
    let reads = 0
    const options = {
      get signal() {
        reads++
        return reads === 1 ? undefined : 'not a signal'
      },
    }
    assert.equal((await toolkit.readFile({ path: 'a.txt' }, options)).content, 'alpha\n')
    assert.equal(reads, 1)
  })

  test('readFileSync: a hostile input throws INVALID_ARGUMENT (its only argument)', () => {
    throwSync(() => toolkit.readFileSync(throwingProxy()), 'input')
    throwSync(() => toolkit.readFileSync(withThrowingGetter({}, 'path')), 'input.path')
  })
})

describe('ToolCatalog.read_file.execute: a hostile ctx rejects INVALID_ARGUMENT naming ctx.<option>', () => {
  const execute = (ctx) => ToolCatalog.read_file.execute({ path: 'a.txt' }, ctx)

  for (const name of ['workspaceRoot', 'defaultDeny', 'deny', 'allow', 'ignoreFiles', 'maxContentBytes', 'maxFileBytes', 'signal']) {
    test(`a throwing ${name} getter`, async () => {
      await rejectAsync(() => execute(withThrowingGetter({ workspaceRoot: fx.ws }, name)), `ctx.${name}`)
    })
  }

  test('a proxy ctx whose traps throw, and a revoked one', async () => {
    await rejectAsync(() => execute(throwingProxy()), 'ctx.')
    await rejectAsync(() => execute(revokedProxy()), 'ctx.')
  })

  test('ctx.deny: a throwing element, a proxy array, an element read once', async () => {
    const throwingElement = Object.defineProperty(['x'], 0, { get: boom })
    await rejectAsync(() => execute({ workspaceRoot: fx.ws, deny: throwingElement }), 'ctx.deny[0]')
    await rejectAsync(() => execute({ workspaceRoot: fx.ws, deny: throwingProxy(['.env']) }), 'ctx.deny')
    const deny = flippingArray(['x'], 0, 'a.txt', 42)
    await assertRejectsCode(() => execute({ workspaceRoot: fx.ws, deny }), 'POLICY_DENIED', 'a.txt')
  })

  test('each ctx property is read once', async () => {
    const reads = {}
    const ctx = {}
    const values = {
      workspaceRoot: fx.ws,
      defaultDeny: false,
      deny: [],
      allow: [],
      ignoreFiles: ['.aiignore'],
      maxContentBytes: 200,
      maxFileBytes: 10,
      signal: undefined,
    }
    for (const [name, value] of Object.entries(values)) {
      Object.defineProperty(ctx, name, {
        get: () => {
          reads[name] = (reads[name] ?? 0) + 1
          return reads[name] === 1 ? value : 42
        },
      })
    }
    assert.equal((await execute(ctx)).content, 'alpha\n')
    const once = { workspaceRoot: 1, defaultDeny: 1, deny: 1, allow: 1, ignoreFiles: 1, maxContentBytes: 1, maxFileBytes: 1 }
    assert.deepEqual(reads, { ...once, signal: 1 })
  })
})

describe('runToolCall: a hostile toolkit or options is an INVALID_ARGUMENT result, never a throw', () => {
  const args = { path: 'a.txt' }

  /** Asserts `result` is the INVALID_ARGUMENT result naming `option`. */
  function checkInvalidResult(result, option) {
    assert.equal(result.isError, true, JSON.stringify(result))
    assert.equal(result.code, 'INVALID_ARGUMENT', result.content)
    assert.ok(result.content.startsWith('INVALID_ARGUMENT: '), result.content)
    assert.ok(result.content.includes(option), `${result.content} should name ${option}`)
  }

  test('a toolkit that is a proxy whose traps throw, or whose readFile getter throws', async () => {
    for (const hostile of [throwingProxy(), revokedProxy(), withThrowingGetter({}, 'readFile')]) {
      checkInvalidResult(await runToolCall(hostile, args), 'toolkit')
    }
  })

  test("the toolkit's readFile is read once", async () => {
    let reads = 0
    const custom = {
      get readFile() {
        reads++
        return reads === 1 ? (input) => toolkit.readFile(input) : 'not a function'
      },
    }
    const result = await runToolCall(custom, args)
    assert.equal(result.isError, false, result.content)
    assert.equal(result.output.content, 'alpha\n')
    assert.equal(reads, 1)
  })

  test('hostile options with a toolkit of this package', async () => {
    for (const name of ['signal', 'resultFormat', 'lineNumbers']) {
      checkInvalidResult(await runToolCall(toolkit, args, withThrowingGetter({}, name)), `options.${name}`)
    }
    // The rendering options are read before the read starts: the first one names the proxy.
    checkInvalidResult(await runToolCall(toolkit, args, throwingProxy()), 'options.resultFormat')
  })
})

describe('the adapters: toolkit options or a toolkit, either hostile', () => {
  const makers = [
    ['readFileTool', readFileTool],
    ['createMcpServer', createMcpServer],
  ]
  for (const [name, make] of makers) {
    test(`${name} throws INVALID_ARGUMENT for a hostile readFile getter, a proxy, a hostile option`, () => {
      throwSync(() => make(withThrowingGetter({ workspaceRoot: fx.ws }, 'readFile')), 'readFile')
      throwSync(() => make(throwingProxy()), 'toolkitOrOptions')
      throwSync(() => make(revokedProxy()), 'toolkitOrOptions')
      throwSync(() => make(withThrowingGetter({ workspaceRoot: fx.ws }, 'deny')), 'options.deny')
    })
  }
})

describe('the dialects read ctx in the engine: a hostile ctx never throws synchronously', () => {
  for (const [name, dialect] of Object.entries(dialects)) {
    test(name, async () => {
      const args = { path: 'a.txt', file_path: 'a.txt' }
      for (const ctx of [throwingProxy(), revokedProxy(), withThrowingGetter({}, 'workspaceRoot')]) {
        let promise
        assert.doesNotThrow(() => {
          promise = dialect.execute(args, ctx)
        })
        assert.equal(typeof promise?.then, 'function')
        const settled = await promise.then(
          (value) => ({ value }),
          (error) => ({ error }),
        )
        assert.ok(!(settled.error instanceof HostileError), 'the hostile error escaped')
        // Whatever the dialect answers, it does not read the file without a root.
        assert.ok(!JSON.stringify(settled.value ?? {}).includes('alpha'), JSON.stringify(settled))
      }
    })
  }
})
