// Policy before the sandbox: deny/allow rules judged on the file actually opened.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { assertRejectsCode, assertThrowsCode, checkError, makeFixture, rejection, thrown } from '../helpers.mjs'

const { createAgentToolkit, ToolCatalog, DEFAULT_DENY, isToolkitError, isReadFileError, readFile, readFileSync } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
fx.write('.env', 'API_KEY=top-secret\n')
fx.write('.env.local', 'LOCAL=secret\n')
fx.write('.env.example', 'API_KEY=\n')
fx.write('.env.sample', 'API_KEY=\n')
fx.write('config/.env', 'NESTED=secret\n')
fx.write('src/main.ts', 'export {}\n')
fx.write('keys/id_rsa', 'PRIVATE\n')
fx.write('keys/id_ed25519.pub', 'PUBLIC\n')
fx.write('certs/site.pem', 'PEM\n')
fx.write('certs/site.key', 'KEY\n')
fx.write('certs/site.p12', 'P12\n')
fx.write('home/.ssh/config', 'Host x\n')
fx.write('home/.aws/credentials', '[default]\n')
fx.write('.npmrc', '//registry/:_authToken=x\n')
fx.write('.netrc', 'machine x\n')
fx.write('.git/config', '[core]\n')
fx.write('docs/environment.md', 'about .env files\n')
fx.write('logs/app.log', 'started\n')
fx.link('notes.txt', '.env')
fx.link('linked-config', 'config')
fx.link('abs-link.txt', path.join(fx.ws, '.env'))

const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
after(() => toolkit.close())

/** Asserts the read of `requested` is POLICY_DENIED, through every entry point. */
async function assertDenied(requested, rule, reads = [toolkit]) {
  for (const reader of reads) {
    const err = await assertRejectsCode(() => reader.readFile({ path: requested }), 'POLICY_DENIED', requested)
    assert.ok(err.message.includes(JSON.stringify(rule)), `${err.message} should name the rule ${rule}`)
    assert.ok(isToolkitError(err))
    assert.ok(!isReadFileError(err))
    assertThrowsCode(() => reader.readFileSync({ path: requested }), 'POLICY_DENIED', requested)
  }
  const viaCatalog = await rejection(() => ToolCatalog.read_file.execute({ path: requested }, { workspaceRoot: fx.ws }))
  checkError(viaCatalog, 'POLICY_DENIED', requested)
}

describe('deny rules judge the file actually opened', () => {
  test('the denied file by its own name, with the path of the file and the rule in the message', async () => {
    await assertDenied('.env', '.env')
    const err = thrown(() => toolkit.readFileSync({ path: 'config/.env' }))
    assert.equal(err.message, 'POLICY_DENIED: config/.env: config/.env is denied by ".env" (DEFAULT_DENY)')
  })

  test('a symlink alias of a denied file', async () => {
    await assertDenied('notes.txt', '.env')
    await assertDenied('abs-link.txt', '.env')
  })

  test('a path through a symlinked directory', async () => {
    await assertDenied('linked-config/.env', '.env')
  })

  test('an absolute spelling', async () => {
    await assertDenied(path.join(fx.ws, '.env'), '.env')
    await assertDenied(path.join(fs.realpathSync(fx.ws), 'config', '.env'), '.env')
  })

  test('./ and .. tricks', async () => {
    for (const spelled of ['./.env', 'src/../.env', './/config/./.env', 'linked-config/../.env']) {
      await assertDenied(spelled, '.env')
    }
  })

  test('allow re-admits what deny covers, and nothing else', async () => {
    const custom = createAgentToolkit({ workspaceRoot: fx.ws, deny: ['.env', '.env.*'], allow: ['.env.local'] })
    assert.equal(custom.readFileSync({ path: '.env.local' }).content, 'LOCAL=secret\n')
    assertThrowsCode(() => custom.readFileSync({ path: '.env.example' }), 'POLICY_DENIED', '.env.example')
    assertThrowsCode(() => custom.readFileSync({ path: 'notes.txt' }), 'POLICY_DENIED', 'notes.txt')
    const viaCatalog = await ToolCatalog.read_file.execute(
      { path: '.env.local' },
      { workspaceRoot: fx.ws, deny: ['.env.*'], allow: ['.env.local'] },
    )
    assert.equal(viaCatalog.content, 'LOCAL=secret\n')
    custom.close()
  })
})

describe('DEFAULT_DENY', () => {
  test('is frozen and is the default of a toolkit and of ToolCatalog', () => {
    assert.ok(Object.isFrozen(DEFAULT_DENY))
    assert.ok(DEFAULT_DENY.every((rule) => typeof rule === 'string'))
  })

  const denied = [
    '.env',
    '.env.local',
    'config/.env',
    'keys/id_rsa',
    'keys/id_ed25519.pub',
    'certs/site.pem',
    'certs/site.key',
    'certs/site.p12',
    'home/.ssh/config',
    'home/.aws/credentials',
    '.npmrc',
    '.netrc',
    '.git/config',
  ]
  for (const file of denied) {
    test(`denies ${file}`, () => {
      assertThrowsCode(() => toolkit.readFileSync({ path: file }), 'POLICY_DENIED', file)
    })
  }

  for (const file of ['.env.example', '.env.sample', 'src/main.ts', 'docs/environment.md']) {
    test(`admits ${file}`, async () => {
      const expected = fs.readFileSync(path.join(fx.ws, file), 'utf8')
      assert.equal(toolkit.readFileSync({ path: file }).content, expected)
      assert.equal((await ToolCatalog.read_file.execute({ path: file }, { workspaceRoot: fx.ws })).content, expected)
    })
  }

  test('deny adds to the defaults: deny: [] and deny: [rules] keep refusing .env', async () => {
    for (const deny of [[], ['*.log']]) {
      const extra = createAgentToolkit({ workspaceRoot: fx.ws, deny })
      const err = thrown(() => extra.readFileSync({ path: '.env' }))
      assert.equal(err.message, 'POLICY_DENIED: .env: .env is denied by ".env" (DEFAULT_DENY)')
      assert.equal(extra.readFileSync({ path: '.env.example' }).content, 'API_KEY=\n')
      extra.close()
      const ctx = { workspaceRoot: fx.ws, deny }
      await assertRejectsCode(() => ToolCatalog.read_file.execute({ path: '.env' }, ctx), 'POLICY_DENIED', '.env')
    }
    const logs = createAgentToolkit({ workspaceRoot: fx.ws, deny: ['*.tmp', '*.log'] })
    const err = thrown(() => logs.readFileSync({ path: 'logs/app.log' }))
    assert.equal(err.message, 'POLICY_DENIED: logs/app.log: logs/app.log is denied by "*.log" (deny rule 2)')
    logs.close()
  })

  test("a deny list's !rule cannot re-admit a default; allow can", () => {
    const negated = createAgentToolkit({ workspaceRoot: fx.ws, deny: ['!.env'] })
    assertThrowsCode(() => negated.readFileSync({ path: '.env' }), 'POLICY_DENIED', '.env')
    negated.close()
    const allowed = createAgentToolkit({ workspaceRoot: fx.ws, allow: ['.env'] })
    assert.equal(allowed.readFileSync({ path: '.env' }).content, 'API_KEY=top-secret\n')
    allowed.close()
  })

  test('defaultDeny: false turns the defaults off; the bare functions have no policy', async () => {
    const open = createAgentToolkit({ workspaceRoot: fx.ws, defaultDeny: false })
    assert.equal(open.readFileSync({ path: 'notes.txt' }).content, 'API_KEY=top-secret\n')
    open.close()
    const ownOnly = createAgentToolkit({ workspaceRoot: fx.ws, defaultDeny: false, deny: ['*.log'] })
    assert.equal(ownOnly.readFileSync({ path: '.env' }).content, 'API_KEY=top-secret\n')
    assertThrowsCode(() => ownOnly.readFileSync({ path: 'logs/app.log' }), 'POLICY_DENIED', 'logs/app.log')
    ownOnly.close()
    assert.equal(readFileSync(fx.ws, { path: '.env' }).content, 'API_KEY=top-secret\n')
    assert.equal((await readFile(fx.ws, { path: 'notes.txt' })).content, 'API_KEY=top-secret\n')
    const ctx = { workspaceRoot: fx.ws, defaultDeny: false }
    const viaCatalog = await ToolCatalog.read_file.execute({ path: '.env' }, ctx)
    assert.equal(viaCatalog.content, 'API_KEY=top-secret\n')
  })
})

describe('bad rules', () => {
  const bad = [
    ['deny as a string', { deny: '.env' }, 'deny'],
    ['deny with a number', { deny: ['.env', 7] }, 'deny'],
    ['allow as null', { allow: null }, 'allow'],
    ['an invalid glob', { deny: ['[z-a]'] }, 'deny'],
    ['defaultDeny as a string', { defaultDeny: 'false' }, 'defaultDeny'],
    ['defaultDeny as null', { defaultDeny: null }, 'defaultDeny'],
    ['ignoreFiles as a string', { ignoreFiles: '.aiignore' }, 'ignoreFiles'],
    ['ignoreFiles as null', { ignoreFiles: null }, 'ignoreFiles'],
    ['ignoreFiles with a number', { ignoreFiles: ['.aiignore', 1] }, 'ignoreFiles'],
    ['ignoreFiles with a path', { ignoreFiles: ['sub/.aiignore'] }, 'ignoreFiles'],
    ['ignoreFiles with ..', { ignoreFiles: ['..'] }, 'ignoreFiles'],
    ['ignoreFiles with an empty name', { ignoreFiles: [''] }, 'ignoreFiles'],
    ['ignoreFiles with 65 names', { ignoreFiles: Array.from({ length: 65 }, (_, i) => `.i${i}`) }, 'ignoreFiles'],
  ]
  for (const [name, options, list] of bad) {
    test(`${name} is INVALID_ARGUMENT naming the list`, async () => {
      assertThrowsCode(() => createAgentToolkit({ workspaceRoot: fx.ws, ...options }), 'INVALID_ARGUMENT', list)
      await assertRejectsCode(
        () => ToolCatalog.read_file.execute({ path: 'src/main.ts' }, { workspaceRoot: fx.ws, ...options }),
        'INVALID_ARGUMENT',
        list,
      )
    })
  }

  test('options that are not an object are INVALID_ARGUMENT', () => {
    assertThrowsCode(() => createAgentToolkit('/'), 'INVALID_ARGUMENT')
    assertThrowsCode(() => createAgentToolkit(null), 'INVALID_ARGUMENT')
  })
})
