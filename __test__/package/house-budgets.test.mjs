// Two budgets of the Rust source that hold themselves (issue 37 §7): no import circles among
// the module files of the engine (`engine/src`) and of the binding (`src`), and the binding's
// `unsafe` blocks no more than they are, each with the SAFETY note that says why it holds.
// The circles are counted as ../shared/tools/rust-import-circles.py counts them: `crate::` and
// `super::` paths between module files, a module's paths to its ancestors and descendants not
// counted, nor unit tests (`#[cfg(test)]` items, `tests/` files).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from '../harness.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The binding's `unsafe` blocks today: a new one raises this number, in review. */
const BINDING_UNSAFE_BLOCKS = 12

/** Every `.rs` file under `dir`, as paths relative to it. */
function rustFiles(dir) {
  return fs
    .readdirSync(dir, { recursive: true })
    .filter((file) => file.endsWith('.rs'))
    .map((file) => file.split(path.sep).join('/'))
}

/** The module a file under a crate's `src` is: its path's names (`a/mod.rs` and `a/a.rs` are `a`). */
function moduleOf(file) {
  const names = file.slice(0, -'.rs'.length).split('/')
  const last = names.at(-1)
  if (last === 'mod' || last === 'lib' || last === 'main') return names.slice(0, -1)
  if (names.length >= 2 && last === names.at(-2)) return names.slice(0, -1)
  return names
}

/** `text` without its `#[cfg(test)]` items (a braced block, or an item ending in `;`). */
function withoutTests(text) {
  let out = ''
  let at = 0
  for (;;) {
    const attribute = text.indexOf('#[cfg(test)]', at)
    if (attribute < 0) return out + text.slice(at)
    out += text.slice(at, attribute)
    const after = attribute + '#[cfg(test)]'.length
    const brace = text.indexOf('{', after)
    const semicolon = text.indexOf(';', after)
    if (semicolon >= 0 && (brace < 0 || semicolon < brace)) {
      at = semicolon + 1
      continue
    }
    if (brace < 0) return out
    let depth = 0
    let end = brace
    do {
      if (text[end] === '{') depth++
      else if (text[end] === '}') depth--
      end++
    } while (depth > 0 && end < text.length)
    at = end
  }
}

/** `use crate::{a, b::{c, d}}` spelt out (`crate::a crate::b::c crate::b::d`), so that groups count. */
function withGroupsSpelt(text) {
  const group = /\b((?:crate|super)(?:::\w+)*)::\{([^{}]*)\}/
  for (let match = group.exec(text); match !== null; match = group.exec(text)) {
    const [whole, head, items] = match
    const paths = items
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
      .map((item) => (item === 'self' ? head : `${head}::${item.split(' as ')[0].trim()}`))
    text = text.slice(0, match.index) + paths.join(' ') + text.slice(match.index + whole.length)
  }
  return text
}

/** The module paths a module's text names (`crate::a::b`, `super::c`), as arrays of names. */
function pathsNamed(text, me) {
  const code = withGroupsSpelt(withoutTests(text.replace(/\/\/.*/g, '')))
  const named = []
  for (const [, tail] of code.matchAll(/\bcrate((?:::\w+)+)/g)) named.push(tail.split('::').slice(1))
  for (const [, ups, tail] of code.matchAll(/\b((?:super::)+)((?:\w+::)*\w+)/g)) {
    const up = ups.split('super::').length - 1
    named.push([...(up <= me.length ? me.slice(0, me.length - up) : []), ...tail.split('::')])
  }
  return named
}

/** The import circles among the module files under `src`: each a list of files. */
function importCircles(src) {
  const modules = new Map()
  for (const file of rustFiles(src)) {
    if (file.slice(0, -'.rs'.length).split('/').includes('tests')) continue
    modules.set(moduleOf(file).join('::'), file)
  }
  const moduleNamed = (names) => {
    for (let n = names.length; n > 0; n--) if (modules.has(names.slice(0, n).join('::'))) return names.slice(0, n).join('::')
    return undefined
  }
  const related = (a, b) => a === b || a.startsWith(`${b}::`) || b.startsWith(`${a}::`) || a === '' || b === ''
  const edges = new Map()
  for (const [me, file] of modules) {
    const targets = new Set()
    for (const named of pathsNamed(fs.readFileSync(path.join(src, file), 'utf8'), me === '' ? [] : me.split('::'))) {
      const target = moduleNamed(named)
      if (target !== undefined && !related(me, target)) targets.add(target)
    }
    edges.set(me, targets)
  }
  return stronglyConnected(edges).map((component) => component.map((module) => modules.get(module)).sort())
}

/** Tarjan's strongly connected components of `edges` with more than one node. */
function stronglyConnected(edges) {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const components = []
  const visit = (node) => {
    index.set(node, index.size)
    low.set(node, index.get(node))
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)))
    }
    if (low.get(node) !== index.get(node)) return
    const component = []
    let popped
    do {
      popped = stack.pop()
      onStack.delete(popped)
      component.push(popped)
    } while (popped !== node)
    if (component.length > 1) components.push(component)
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return components
}

/** The `unsafe` blocks of the Rust under `src`: where each is, and whether a `SAFETY:` note is
 * on its line or in a comment of the three lines before it. */
function unsafeBlocks(src) {
  const blocks = []
  for (const file of rustFiles(src)) {
    const lines = fs.readFileSync(path.join(src, file), 'utf8').split('\n')
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*/, '')
      if (!/\bunsafe\s*\{/.test(code)) return
      const noted = lines.slice(Math.max(0, i - 3), i + 1).some((near) => /\/\/.*SAFETY:/.test(near))
      blocks.push({ at: `src/${file}:${i + 1}`, noted })
    })
  }
  return blocks
}

describe('the Rust source keeps its own budgets', () => {
  test('no import circles among the module files of the engine and of the binding', () => {
    for (const src of ['engine/src', 'src']) {
      assert.deepEqual(importCircles(path.join(ROOT, src)), [], `import circles in ${src}`)
    }
  })

  test(`the binding has at most ${BINDING_UNSAFE_BLOCKS} unsafe blocks, each with its SAFETY note`, () => {
    const blocks = unsafeBlocks(path.join(ROOT, 'src'))
    assert.ok(blocks.length <= BINDING_UNSAFE_BLOCKS, `${blocks.length} unsafe blocks: ${blocks.map((block) => block.at).join(', ')}`)
    assert.deepEqual(
      blocks.filter((block) => !block.noted).map((block) => block.at),
      [],
      'unsafe blocks without a SAFETY note',
    )
  })

  test('the checks see what they count: a circle and an unnoted block made on purpose', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'house-check-'))
    try {
      fs.writeFileSync(path.join(dir, 'lib.rs'), 'mod a;\nmod b;\n')
      fs.writeFileSync(path.join(dir, 'a.rs'), 'use crate::b::B;\npub struct A;\n')
      fs.writeFileSync(path.join(dir, 'b.rs'), 'use crate::{a::A, c};\npub struct B;\nfn f() { unsafe { g() } }\n')
      fs.writeFileSync(path.join(dir, 'c.rs'), '#[cfg(test)]\nmod tests { use crate::a::A; }\n// SAFETY: the caller holds it.\nfn h() { unsafe { g() } }\n')
      assert.deepEqual(importCircles(dir), [['a.rs', 'b.rs']])
      assert.deepEqual(
        unsafeBlocks(dir).map(({ at, noted }) => [at.replace(/^src\//, ''), noted]),
        [
          ['b.rs:3', false],
          ['c.rs:4', true],
        ],
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

// Issue 37 §4: the JavaScript has a folder whose names show its parts, and the adapters take
// of it only the surface made for them.
describe('the JavaScript keeps its layout', () => {
  test('at the root: the entry point and the generated binding only', () => {
    const scripts = fs.readdirSync(ROOT).filter((name) => /\.(c|m)?js$/.test(name))
    assert.deepEqual(scripts.sort(), ['binding.js', 'index.js'])
  })

  test('the adapters require nothing of lib/ but lib/adapter-kit.js', () => {
    const adapters = path.join(ROOT, 'adapters')
    for (const name of fs.readdirSync(adapters).filter((file) => /\.(c|m)?js$/.test(file))) {
      const source = fs.readFileSync(path.join(adapters, name), 'utf8')
      const taken = [...source.matchAll(/(?:require\(|from )'(\.\.\/lib\/[^']+)'/g)].map((match) => match[1])
      for (const module of taken) assert.equal(module, '../lib/adapter-kit.js', `${name} requires ${module}`)
    }
  })
})
