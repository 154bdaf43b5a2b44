// Benchmark: what MCP's stateless revision (2026-07-28) costs `agent-read-file mcp` per call,
// beside the revision that begins with `initialize` (2025-11-25). One server of this checkout,
// a child process spoken to in raw lines from this one process (no client SDK, whose own cost
// would hide the server's), initialized with 2025-11-25, is sent calls of both kinds: plain,
// and with the 2026-07-28 envelope in `params._meta` as the v2 SDK's Client sends it (the
// server tells them apart request by request). One process for both: two would each get their
// own place on the machine's cores, which alone moved identical servers' figures by up to 8%
// here. Each round times a block of `CALLS` calls of each kind, awaited one after another, the
// first kind alternating; the cells are the median call and the server's CPU time per call
// over the blocks of that kind (Linux's /proc: the time its threads ran).
//
//   node benchmark/mcp-revisions.mjs [--rounds=N] [--json]

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const CLI = fileURLToPath(new URL('../bin/agent-read-file.js', import.meta.url))
const argv = process.argv.slice(2)
const ROUNDS = Number(argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 40)
const JSON_OUTPUT = argv.includes('--json')
const CALLS = 300
const WARMUP_ROUNDS = 2
const isBun = typeof globalThis.Bun !== 'undefined'
const runtime = isBun ? `Bun ${globalThis.Bun.version}` : `Node ${process.versions.node}`

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-revisions-'))
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))
// The 100-line file of benchmark/mcp.mjs: lines of 52 bytes.
const line = (i) => `${`  const value${i} = compute(${i}, "lorem ipsum dolor sit amet");`.slice(0, 51).padEnd(51)}\n`
fs.writeFileSync(path.join(tmp, 'small.ts'), Array.from({ length: 100 }, (_, i) => line(i + 1)).join(''))

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

/** `agent-read-file mcp` over its stdio: `ask(message)` writes one line and resolves with the
 * next line answered (one call is in flight at a time). */
function server() {
  const child = spawn(process.execPath, [CLI, 'mcp', '--root', tmp], { stdio: ['pipe', 'pipe', 'ignore'] })
  let buffered = ''
  let answered = null
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (text) => {
    buffered += text
    let end
    while ((end = buffered.indexOf('\n')) !== -1) {
      const answer = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      answered?.(answer)
    }
  })
  const ask = (message) =>
    new Promise((resolve) => {
      answered = resolve
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    })
  return { child, ask }
}

/**
 * The CPU ms process `pid`'s threads have run, to the nanosecond (Linux's
 * /proc/PID/task/TID/schedstat), or NaN where /proc cannot tell: `stat`'s ticks of 10 ms are
 * too coarse for blocks of 50 ms.
 */
function cpuMs(pid) {
  try {
    let ns = 0
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
    }
    return ns / 1e6
  } catch {
    return Number.NaN
  }
}

const { child, ask } = server()
const REVISIONS = [
  { name: '2025-11-25 (initialize)', meta: undefined, times: [], cpuMs: 0 },
  { name: '2026-07-28 (stateless)', meta: ENVELOPE, times: [], cpuMs: 0 },
]
const initialize = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-bench', version: '1.0.0' } }
await ask({ id: 'init', method: 'initialize', params: initialize })
child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)

const call = (revision, id) => ({
  id,
  method: 'tools/call',
  params: { name: 'read_file', arguments: { path: 'small.ts', max_lines: 100 }, ...(revision.meta && { _meta: revision.meta }) },
})

// Both answer the same text; the stateless one says `resultType`.
const answers = [await ask(call(REVISIONS[0], 0)), await ask(call(REVISIONS[1], 0))]
const [plain, stateless] = answers.map((answer) => JSON.parse(answer).result)
if (JSON.stringify(plain.content) !== JSON.stringify(stateless.content) || stateless.resultType !== 'complete') {
  throw new Error(`the revisions' answers differ: ${answers.join('\n')}`)
}

for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
  for (const revision of round % 2 === 0 ? REVISIONS : [...REVISIONS].reverse()) {
    const cpuBefore = cpuMs(child.pid)
    for (let id = 1; id <= CALLS; id++) {
      const start = performance.now()
      await ask(call(revision, id))
      if (round >= WARMUP_ROUNDS) revision.times.push(performance.now() - start)
    }
    if (round >= WARMUP_ROUNDS) revision.cpuMs += cpuMs(child.pid) - cpuBefore
  }
}
child.kill()

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const rows = REVISIONS.map((revision) => ({
  revision: revision.name,
  ms: median(revision.times),
  server_cpu_us_per_call: (1000 * revision.cpuMs) / (ROUNDS * CALLS),
}))
const ratios = { ms: rows[1].ms / rows[0].ms, server_cpu: rows[1].server_cpu_us_per_call / rows[0].server_cpu_us_per_call }

if (JSON_OUTPUT) {
  process.stdout.write(`${JSON.stringify({ runtime, cores: os.cpus().length, rounds: ROUNDS, calls: CALLS, rows, ratios }, null, 2)}\n`)
} else {
  const out = [
    `agent-read-file mcp per call, raw lines over stdio (${runtime}, ${os.cpus().length} cores, ${ROUNDS} rounds of ${CALLS} calls): a 100-line file`,
    '',
    `${'revision'.padEnd(26)} ${'ms (median)'.padStart(12)} ${'server CPU µs'.padStart(14)}`,
    ...rows.map((row) => `${row.revision.padEnd(26)} ${row.ms.toFixed(3).padStart(12)} ${row.server_cpu_us_per_call.toFixed(0).padStart(14)}`),
    '',
    `2026-07-28 / 2025-11-25: ${ratios.ms.toFixed(3)}x the time, ${ratios.server_cpu.toFixed(3)}x the server's CPU (target: within 1.05x)`,
  ]
  process.stdout.write(`${out.join('\n')}\n`)
}
