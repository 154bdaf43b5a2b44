// The workspace's own ignore files: deny rules read beneath the root, nested like git's,
// honoured by the next read, named by file and line in a refusal.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import pkg from '../../index.js'
import { after, describe, test } from '../harness.mjs'
import { assertRejectsCode, makeFixture, rejection, thrown } from '../helpers.mjs'

const { createAgentToolkit, ToolCatalog, IGNORE_FILES } = pkg

const fx = makeFixture()
after(() => fx.cleanup())
fx.write('src/main.ts', 'export {}\n')
fx.write('src/gen/out.ts', 'generated\n')
fx.write('src/gen/keep.ts', 'kept\n')
fx.write('notes/plan.md', 'plan\n')
fx.write('notes/todo.md', 'todo\n')

/** The message of the refusal of `file` by `toolkit`, sync and async alike. */
async function refusal(toolkit, file) {
  const sync = thrown(() => toolkit.readFileSync({ path: file }))
  const async = await rejection(() => toolkit.readFile({ path: file }))
  assert.equal(async.message, sync.message)
  assert.equal(sync.code, 'POLICY_DENIED', sync.message)
  return sync.message
}

/** Writes the ignore file `rel` and returns a function that removes it. */
function ignoreFile(rel, text) {
  const file = fx.write(rel, text)
  return () => fs.rmSync(file)
}

describe('IGNORE_FILES', () => {
  test('is frozen and names the vendor files and this package own', () => {
    assert.ok(Object.isFrozen(IGNORE_FILES))
    const expected = [
      '.aiignore',
      '.cursorignore',
      '.geminiignore',
      '.clineignore',
      '.rooignore',
      '.aiderignore',
      '.codeiumignore',
      '.agentreadfileignore',
    ]
    assert.deepEqual([...IGNORE_FILES], expected)
  })
})

describe('ignore files are obeyed by default', () => {
  const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
  after(() => toolkit.close())

  for (const name of IGNORE_FILES) {
    test(`${name} at the root, named with its line`, async () => {
      const remove = ignoreFile(name, '# what the agent must not read\n\nnotes/\n')
      try {
        const message = await refusal(toolkit, 'notes/plan.md')
        assert.equal(message, `POLICY_DENIED: notes/plan.md: notes/plan.md is denied by ${name}:3`)
        const ctx = { workspaceRoot: fx.ws }
        const viaCatalog = await rejection(() => ToolCatalog.read_file.execute({ path: 'notes/plan.md' }, ctx))
        assert.equal(viaCatalog.message, message)
        assert.equal(toolkit.readFileSync({ path: 'src/main.ts' }).content, 'export {}\n')
      } finally {
        remove()
      }
    })
  }

  test('a file in a subdirectory rules below it; its !rule re-admits what it denies', async () => {
    const remove = ignoreFile('src/gen/.cursorignore', '*.ts\n!keep.ts\n')
    try {
      const message = await refusal(toolkit, 'src/gen/out.ts')
      assert.equal(message, 'POLICY_DENIED: src/gen/out.ts: src/gen/out.ts is denied by src/gen/.cursorignore:1')
      assert.equal(toolkit.readFileSync({ path: 'src/gen/keep.ts' }).content, 'kept\n')
      assert.equal(toolkit.readFileSync({ path: 'src/main.ts' }).content, 'export {}\n')
    } finally {
      remove()
    }
  })

  test('a deeper file re-admits a file that one above denies, not a directory', async () => {
    const removeTop = ignoreFile('.aiignore', '*.md\nsrc/gen/\n')
    const removeNotes = ignoreFile('notes/.aiignore', '!todo.md\n')
    const removeGen = ignoreFile('src/gen/.aiignore', '!keep.ts\n')
    try {
      assert.equal(toolkit.readFileSync({ path: 'notes/todo.md' }).content, 'todo\n')
      assert.match(await refusal(toolkit, 'notes/plan.md'), /denied by \.aiignore:1$/)
      assert.match(await refusal(toolkit, 'src/gen/keep.ts'), /denied by \.aiignore:2$/)
    } finally {
      removeTop()
      removeNotes()
      removeGen()
    }
  })

  test('a change to an ignore file is honoured by the next read', async () => {
    const rules = path.join(fx.ws, '.aiignore')
    for (const read of [(file) => toolkit.readFileSync({ path: file }), (file) => toolkit.readFile({ path: file })]) {
      fs.writeFileSync(rules, 'plan.md\n')
      await assert.rejects(async () => read('notes/plan.md'), { code: 'POLICY_DENIED' })
      assert.equal((await read('notes/todo.md')).content, 'todo\n')
      fs.writeFileSync(rules, 'todo.md\n') // the same size, at once
      assert.equal((await read('notes/plan.md')).content, 'plan\n')
      await assert.rejects(async () => read('notes/todo.md'), { code: 'POLICY_DENIED' })
      fs.rmSync(rules)
      assert.equal((await read('notes/todo.md')).content, 'todo\n')
    }
  })

  test('an ignore file with an invalid line refuses everything in its directory, naming the line', async () => {
    const remove = ignoreFile('notes/.aiignore', 'plan.md\n[z-a]\n')
    try {
      assert.equal(
        await refusal(toolkit, 'notes/todo.md'),
        'POLICY_DENIED: notes/todo.md: notes/todo.md is denied because notes/.aiignore:2 is not a valid gitignore rule; nothing in notes/ is read until it is fixed',
      )
      assert.equal(toolkit.readFileSync({ path: 'src/main.ts' }).content, 'export {}\n')
    } finally {
      remove()
    }
  })

  test('an ignore file that is a symlink out of the workspace is never read, and refuses', async () => {
    fs.writeFileSync(fx.secret, '!*\n')
    const link = fx.link('notes/.aiignore', fx.secret)
    try {
      const message = await refusal(toolkit, 'notes/todo.md')
      assert.equal(
        message,
        'POLICY_DENIED: notes/todo.md: notes/todo.md is denied because notes/.aiignore is a symlink that leads out of the workspace; nothing in notes/ is read until it is fixed',
      )
    } finally {
      fs.rmSync(link)
    }
  })

  // Issue 35 §7: a hostile repository links its ignore file to the workspace's `.env`, whose
  // lines are not valid rules: the file is not read as rules, and no secret is quoted.
  test('an ignore file that links to a file the toolkit denies is not read, and refuses without quoting it', async () => {
    fx.write('.env', 'TOKEN=[z-a]s3cr3t\n')
    const link = fx.link('notes/.aiignore', '../.env')
    try {
      const message = await refusal(toolkit, 'notes/todo.md')
      assert.equal(
        message,
        "POLICY_DENIED: notes/todo.md: notes/todo.md is denied because notes/.aiignore leads to a file the toolkit's rules deny; nothing in notes/ is read until it is fixed",
      )
      assert.equal(toolkit.readFileSync({ path: 'src/main.ts' }).content, 'export {}\n')
    } finally {
      fs.rmSync(link)
      fs.rmSync(path.join(fx.ws, '.env'))
    }
  })

  test('a rule that is not UTF-8 refuses everything in its directory; a comment may hold any bytes', async () => {
    const remove = ignoreFile('notes/.aiignore', Buffer.from('# caf\xe9\nplan\xff.md\n', 'latin1'))
    try {
      assert.equal(
        await refusal(toolkit, 'notes/todo.md'),
        'POLICY_DENIED: notes/todo.md: notes/todo.md is denied because notes/.aiignore:2 is not a rule in UTF-8; nothing in notes/ is read until it is fixed',
      )
    } finally {
      remove()
    }
  })

  test('an ignore file that is a symlink inside the workspace is followed', async () => {
    fx.write('shared/agent-rules', 'plan.md\n')
    const link = fx.link('.cursorignore', 'shared/agent-rules')
    try {
      const message = await refusal(toolkit, 'notes/plan.md')
      assert.equal(message, 'POLICY_DENIED: notes/plan.md: notes/plan.md is denied by .cursorignore:1')
    } finally {
      fs.rmSync(link)
    }
  })
})

describe('ignoreFiles chooses which files are obeyed', () => {
  test('false obeys none; a list obeys exactly its names; allow re-admits', async () => {
    const removeAi = ignoreFile('.aiignore', 'plan.md\n')
    const removeOwn = ignoreFile('.myignore', 'todo.md\n')
    try {
      const none = createAgentToolkit({ workspaceRoot: fx.ws, ignoreFiles: false })
      assert.equal(none.readFileSync({ path: 'notes/plan.md' }).content, 'plan\n')
      none.close()
      const own = createAgentToolkit({ workspaceRoot: fx.ws, ignoreFiles: ['.myignore'] })
      assert.equal(own.readFileSync({ path: 'notes/plan.md' }).content, 'plan\n')
      assert.match(await refusal(own, 'notes/todo.md'), /denied by \.myignore:1$/)
      own.close()
      const allowing = createAgentToolkit({ workspaceRoot: fx.ws, allow: ['notes/plan.md'] })
      assert.equal(allowing.readFileSync({ path: 'notes/plan.md' }).content, 'plan\n')
      allowing.close()
      const ctx = { workspaceRoot: fx.ws, ignoreFiles: ['.myignore'] }
      await assertRejectsCode(() => ToolCatalog.read_file.execute({ path: 'notes/todo.md' }, ctx), 'POLICY_DENIED')
      const plan = await ToolCatalog.read_file.execute({ path: 'notes/plan.md' }, ctx)
      assert.equal(plan.content, 'plan\n')
    } finally {
      removeAi()
      removeOwn()
    }
  })

  test('an ignore file cannot re-admit a default secret', async () => {
    fx.write('.env', 'SECRET=1\n')
    const remove = ignoreFile('.aiignore', '!.env\n')
    try {
      const toolkit = createAgentToolkit({ workspaceRoot: fx.ws })
      assert.equal(await refusal(toolkit, '.env'), 'POLICY_DENIED: .env: .env is denied by ".env" (DEFAULT_DENY)')
      toolkit.close()
    } finally {
      remove()
    }
  })
})
