// The corpus the token estimator (`estimateTokens`, the budget `maxReadTokens`) is measured
// on: code, prose, minified JavaScript, JSON, CJK text and logs, from this repository and
// the packages `npm ci` installs (pinned by package-lock.json), and a log written here.
// benchmark/tokens.mjs and __test__/adapters/token-estimate.test.mjs read it.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** This repository's Rust sources and some of its JavaScript, relative to ROOT. */
function ownCode() {
  const rust = ['src', 'engine/src'].flatMap((dir) =>
    fs
      .readdirSync(path.join(ROOT, dir))
      .filter((name) => name.endsWith('.rs'))
      .map((name) => `${dir}/${name}`),
  )
  return [...rust, 'index.js', 'lib/run-tool-call.js', 'lib/model-text.js']
}

/** The kinds of text, each with its files relative to ROOT. */
export function repositoryCorpus() {
  const modules = (...files) => files.map((file) => `node_modules/${file}`)
  return [
    ['code', [...ownCode(), ...modules('typescript/lib/lib.es5.d.ts')]],
    // Documents of pinned packages, not this repository's: a test of the estimate must not
    // change with every edit of the README.
    ['prose', modules(...['@modelcontextprotocol/sdk', 'ai', 'ajv', 'diff', 'glob', 'lru-cache', 'openai', 'typescript', 'zod'].map((name) => `${name}/README.md`), 'express/Readme.md')],
    ['minified', modules('js-yaml/dist/browser/js-yaml.umd.min.js', 'diff/dist/diff.min.js', 'glob/dist/esm/index.min.js')],
    ['json', ['package-lock.json', ...modules('mime-db/db.json')]],
    ['cjk', ['ja', 'zh-cn', 'zh-tw', 'ko'].map((lang) => `node_modules/typescript/lib/${lang}/diagnosticMessages.generated.json`)],
  ]
}

/**
 * A service's log, 3,000 lines: timestamps, levels, addresses, ids, latencies, paths, the
 * same each time (a fixed pseudo-random sequence).
 */
export function logText() {
  let seed = 1
  const random = (n) => Math.floor((seed = (seed * 1103515245 + 12345) % 2147483648) / (2147483648 / n))
  const levels = ['INFO', 'WARN', 'ERROR', 'DEBUG']
  const events = ['request completed', 'connection reset by peer', 'cache miss for key', 'retrying upstream call', 'user session expired']
  const lines = []
  for (let i = 0; i < 3000; i++) {
    const time = new Date(1764000000000 + i * 1370).toISOString()
    const address = `10.${random(255)}.${random(255)}.${random(255)}`
    const id = `${random(2 ** 31).toString(16).padStart(8, '0')}-${random(65536).toString(16)}`
    const event = `${events[random(5)]} ip=${address} req=${id} latency_ms=${random(5000)} path=/api/v1/items/${random(100000)}`
    lines.push(`${time} ${levels[random(4)]} [worker-${random(8)}] ${event}`)
  }
  return `${lines.join('\n')}\n`
}

/** A temporary directory holding `logs/service.log` ({@link logText}), and its removal. */
export function logsWorkspace() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'token-corpus-')))
  fs.mkdirSync(path.join(root, 'logs'))
  fs.writeFileSync(path.join(root, 'logs/service.log'), logText())
  return { root, files: ['logs/service.log'], remove: () => fs.rmSync(root, { recursive: true, force: true }) }
}

/**
 * The corpus by kind, each `[kind, root, files]`: {@link repositoryCorpus} and the log in a
 * temporary workspace ({@link logsWorkspace}), which `remove()` deletes.
 */
export function corpusKinds() {
  const logs = logsWorkspace()
  const kinds = [...repositoryCorpus().map(([kind, files]) => [kind, ROOT, files]), ['logs', logs.root, logs.files]]
  return { kinds, remove: logs.remove }
}
