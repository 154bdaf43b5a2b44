// Benchmark: the MCP answer at the SDK's cost (issue 20, section 6). Six stdio servers,
// each spawned as a child process and driven by an SDK's own Client and
// StdioClientTransport from this one process:
//
//   - the floor for the same text: a trivial server on the same SDK answering, with no
//     output schema, the text `agent-read-file mcp` gives for the window, made once at start
//     (mcp-floor-server.mjs): the SDK's cost of that answer;
//   - the floor for the same answer: that server answering read_file's tool result for the
//     window under read_file's output schema (`--structured`): the SDK's cost of carrying
//     the answer's shape with `--structured-content` (the text and `structuredContent`),
//     without a read;
//   - `agent-read-file mcp --structured-content`, `read_file`;
//   - `agent-read-file mcp`: the model's text alone (the default), to a v1 Client
//     (initialize, 2025-11-25);
//   - the same, to the v2 SDK's Client pinned to MCP's stateless revision (2026-07-28):
//     `server/discover`, then each request with its envelope;
//   - the reference filesystem server (@modelcontextprotocol/server-filesystem, a
//     devDependency), `read_text_file` with `head`.
//
//   node benchmark/mcp.mjs [--json] [--rounds=N] [--profile-dir=DIR]
//
// Cases: a 100-line file whole, and the first 200 lines of a 1 MB file. Modes: sequential
// (one call awaited after another: the median of the calls) and 64 concurrent (one
// `Promise.all` of 64 calls: the batch's time / 64, the median of the batches); and, not a
// target, after idle: the first of a server's sequential calls in a turn, the server idle
// since its last turn (tens of ms, its caches taken by the others), as a server is between
// an agent's steps: the median of those first calls. Every round times every server on every
// case in both modes, so that they share the machine's noise, in an order that puts each
// server right after each other equally often (serverRoute). Before timing, each server's
// answer is checked to carry the same lines. On Linux each cell also gives the server
// process's CPU time per call (user + system, from /proc): on a shared machine it moves less
// than latency does, and it counts what the server spends whichever process waits.
// `--profile-dir` runs `agent-read-file mcp` with `node --cpu-prof` writing its profile there.
//
// `agent-read-file mcp` obeys the workspace's ignore files, and trusts a directory's listing of
// them once the directory's last change is 3 s old (SECURITY.md). The fixtures are made first
// and timed once settled, as a workspace is between edits; `--changing` instead changes the
// workspace's directories before every server's turn, so that every read looks for every
// ignore file's name again: the cost of reading where files were just made or renamed.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Client as ClientV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio'

const here = path.dirname(fileURLToPath(import.meta.url))
const CLI = path.join(here, '..', 'bin', 'agent-read-file.js')
const FLOOR = path.join(here, 'mcp-floor-server.mjs')
const REFERENCE = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'))

const argv = process.argv.slice(2)
const option = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const JSON_OUTPUT = argv.includes('--json')
const SEQUENTIAL_CALLS = 20 // calls awaited one after another, per server, case and round
const CONCURRENCY = 64
const PROFILE_DIR = option('profile-dir')
const CHANGING = argv.includes('--changing')
/** How long after its last change a directory's listing of ignore files is trusted, and a margin. */
const SETTLE_MS = 3000 + 1000

const isBun = typeof globalThis.Bun !== 'undefined'
const runtime = isBun ? `Bun ${globalThis.Bun.version}` : `Node ${process.versions.node}`

/** Progress goes to stderr so that `--json` leaves stdout machine-readable. */
const progress = (message) => process.stderr.write(`${message}\n`)

// ---------------------------------------------------------------------------------------
// Fixtures: the 100-line file and the 1 MB file of bench.mjs (lines of 52 bytes).

/** `count` lines of code-like text, each `width` bytes with its `\n`. */
function codeLines(count, width) {
  let text = ''
  for (let i = 1; i <= count; i++) {
    const line = `  const value${i} = compute(${i}, "lorem ipsum dolor sit amet");`
    text += `${line.slice(0, width - 1).padEnd(width - 1, ' ')}\n`
  }
  return text
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-'))
const root = path.join(tmp, 'ws')
fs.mkdirSync(path.join(root, 'src'), { recursive: true })
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))

const CASES = [
  { name: '100-line file', key: 'small', file: 'src/small.ts', lines: 100, text: codeLines(100, 52) },
  { name: '1 MB file, first 200 lines', key: 'large', file: 'src/large.ts', lines: 200, text: codeLines(20_000, 52) },
]
for (const c of CASES) {
  fs.writeFileSync(path.join(root, c.file), c.text)
  c.expected = c.text.split('\n').slice(0, c.lines).join('\n') + '\n'
}
const fixturesMadeAt = performance.now()

/** Makes and removes a file in each of the fixtures' directories: their mtime and ctime move. */
function changeDirectories() {
  for (const directory of [root, path.join(root, 'src')]) {
    const scratch = path.join(directory, '.bench-scratch')
    fs.writeFileSync(scratch, '')
    fs.rmSync(scratch)
  }
}

// ---------------------------------------------------------------------------------------
// The servers: how each is started, called, and where its answer's lines are.

const SERVERS = [
  {
    name: 'SDK floor, same text',
    key: 'floor',
    args: [FLOOR, `--root=${root}`, ...CASES.map((c) => `${c.key}=${path.join(root, c.file)}:${c.lines}`)],
    call: (c) => ({ name: 'fixed_text', arguments: { name: c.key } }),
    // Its text is checked against the text-only server's (checkTextOnly).
    linesOf: () => null,
  },
  {
    name: 'SDK floor, same answer',
    key: 'floorAnswer',
    args: [FLOOR, `--root=${root}`, '--structured', ...CASES.map((c) => `${c.key}=${path.join(root, c.file)}:${c.lines}`)],
    call: (c) => ({ name: 'fixed_text', arguments: { name: c.key } }),
    linesOf: (result) => result.structuredContent.content,
  },
  {
    name: 'agent-read-file mcp --structured-content',
    key: 'addon',
    args: [...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), CLI, 'mcp', '--root', root, '--structured-content'],
    call: (c) => ({ name: 'read_file', arguments: { path: c.file, max_lines: c.lines } }),
    linesOf: (result) => result.structuredContent.content,
  },
  {
    name: 'agent-read-file mcp, text only',
    key: 'addonText',
    args: [CLI, 'mcp', '--root', root],
    call: (c) => ({ name: 'read_file', arguments: { path: c.file, max_lines: c.lines } }),
    // Its text is checked against the structured answer's (checkTextOnly).
    linesOf: () => null,
  },
  {
    name: 'agent-read-file mcp, text only, 2026-07-28',
    key: 'addonStateless',
    args: [CLI, 'mcp', '--root', root],
    stateless: true,
    call: (c) => ({ name: 'read_file', arguments: { path: c.file, max_lines: c.lines } }),
    // Its text is checked against the text-only answer's (checkTextOnly).
    linesOf: () => null,
  },
  {
    name: 'server-filesystem',
    key: 'reference',
    args: [REFERENCE, root],
    call: (c) => ({ name: 'read_text_file', arguments: { path: path.join(root, c.file), head: c.lines } }),
    // It joins the lines with `\n`, the last one without.
    linesOf: (result) => `${result.content[0].text}\n`,
  },
]

/** The servers' turns in the order of serverRoute: every server after every other once. */
const ROUTE = serverRoute(SERVERS.length)
/** Rounds, each a turn for every server on every case: a multiple of the servers but one, so
 * that the route runs whole (`--rounds` is rounded up to one). */
const roundsOf = (asked) => Math.ceil(asked / (SERVERS.length - 1)) * (SERVERS.length - 1)
/** Timed rounds, after the warm-up rounds. */
const ROUNDS = roundsOf(Number(option('rounds') ?? 40))
const WARMUP_ROUNDS = roundsOf(1)

/** The CPU ms (user + system) process `pid` has used, or NaN where /proc cannot tell. */
function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}
const CLOCK_TICKS = 100 // USER_HZ, 100 on every Linux that Node runs on

/** A Client connected to `server` over stdio, its tools listed (as an MCP client does: the
 * SDK's Client then checks each `structuredContent` against the tool's output schema); the
 * v2 SDK's, pinned to 2026-07-28, for a `stateless` server. */
async function connect(server) {
  const Transport = server.stateless ? StdioClientTransportV2 : StdioClientTransport
  const transport = new Transport({ command: process.execPath, args: server.args, stderr: 'ignore' })
  const client = server.stateless
    ? new ClientV2({ name: 'mcp-bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    : new Client({ name: 'mcp-bench', version: '1.0.0' })
  await client.connect(transport)
  await client.listTools()
  server.pid = transport.pid
  return client
}

const serverOf = (key) => SERVERS.find((server) => server.key === key)

/** Fails unless `server` answers `c` with the case's lines; returns its result. */
async function checkAnswer(server, c) {
  const result = await server.client.callTool(server.call(c))
  if (result.isError) throw new Error(`${server.name}, ${c.name}: ${result.content[0]?.text}`)
  const lines = server.linesOf(result)
  if (lines !== null && lines !== c.expected) throw new Error(`${server.name}, ${c.name}: not the same lines`)
  return result
}

/**
 * Fails unless the text-only server answers `c` with the structured answer's text, and
 * nothing else, in either revision, and the floor with that very text.
 */
async function checkTextOnly(c) {
  const keys = ['addonText', 'addonStateless', 'addon', 'floor']
  const [text, stateless, ours, floor] = await Promise.all(keys.map((key) => checkAnswer(serverOf(key), c)))
  if (JSON.stringify(text) !== JSON.stringify({ content: ours.content })) throw new Error(`${c.name}: the text-only answer is not the text alone`)
  if (JSON.stringify(stateless.content) !== JSON.stringify(text.content)) throw new Error(`${c.name}: the 2026-07-28 text is not the 2025's`)
  if (JSON.stringify(floor) !== JSON.stringify(text)) throw new Error(`${c.name}: the floor's text is not read_file's`)
}

/** Fails unless the floor for the same answer answers `c` as `agent-read-file mcp` does. */
async function checkSameAnswer(c) {
  const [copy, ours] = await Promise.all(['floorAnswer', 'addon'].map((key) => checkAnswer(serverOf(key), c)))
  if (JSON.stringify(copy) !== JSON.stringify(ours)) throw new Error(`${c.name}: the floor's answer is not read_file's`)
}

// ---------------------------------------------------------------------------------------
// Timing

/** Per-call ms of `SEQUENTIAL_CALLS` calls awaited one after another. */
async function sequentialCalls(server, c) {
  const request = server.call(c)
  const times = []
  for (let i = 0; i < SEQUENTIAL_CALLS; i++) {
    const start = performance.now()
    await server.client.callTool(request)
    times.push(performance.now() - start)
  }
  return times
}

/** Per-call ms of one batch of `CONCURRENCY` calls sent at once. */
async function concurrentBatch(server, c) {
  const request = server.call(c)
  const start = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, () => server.client.callTool(request)))
  return (performance.now() - start) / CONCURRENCY
}

function quantile(sorted, q) {
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

/** The median of `samples` and their interquartile range as a % of it. */
function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const median = quantile(sorted, 0.5)
  return { ms: median, iqrPct: (100 * (quantile(sorted, 0.75) - quantile(sorted, 0.25))) / median, samples: sorted.length }
}

/**
 * The order of the servers' turns, as indexes into SERVERS: a route through every ordered pair
 * of servers (an Eulerian circuit of the complete directed graph on them, by Hierholzer's
 * algorithm), so that, the route run again and again, each server comes right after each other
 * server exactly once a circuit. What ran just before a server's turn moves what its calls
 * cost (benchmark/README.md, "The order of the turns"); a rotation of one order made each server
 * always follow the same one.
 */
function serverRoute(n) {
  const unused = Array.from({ length: n }, (_, from) => [...Array(n).keys()].filter((to) => to !== from))
  const path = [0]
  const route = []
  while (path.length > 0) {
    const at = path.at(-1)
    if (unused[at].length > 0) path.push(unused[at].pop())
    else route.push(path.pop())
  }
  // The circuit ends where it began; run again, its first turn follows its last.
  return route.reverse().slice(0, -1)
}

/** Fails unless `route`, run again and again, has each server after each other exactly once. */
function checkRoute(route) {
  const n = SERVERS.length
  const pairs = new Set(route.map((server, i) => `${route.at(i - 1)}>${server}`))
  const afterItself = route.some((server, i) => route.at(i - 1) === server)
  if (route.length !== n * (n - 1) || pairs.size !== route.length || afterItself) {
    throw new Error(`the servers' route is not every ordered pair once: ${route}`)
  }
}

/**
 * Every server, case and mode, `rounds` times (a multiple of the servers but one): for each
 * case in turn, the servers in ROUTE's order, each once for every other server it follows.
 */
async function measure(rounds, samples) {
  for (let circuit = 0; circuit < rounds / (SERVERS.length - 1); circuit++) {
    for (const c of CASES) {
      for (const index of ROUTE) {
        const server = SERVERS[index]
        const cell = samples?.get(`${server.key}/${c.key}`)
        if (CHANGING) changeDirectories()
        const cpuBefore = cpuMs(server.pid)
        const sequential = await sequentialCalls(server, c)
        const concurrent = await concurrentBatch(server, c)
        cell?.sequential.push(...sequential)
        cell?.afterIdle.push(sequential[0])
        cell?.concurrent.push(concurrent)
        if (cell) cell.cpuMs += cpuMs(server.pid) - cpuBefore
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Run

// The SDK's StdioClientTransport waits for 'drain' with a listener per message; 64 calls at
// once pass Node's warning threshold of 10 listeners. Harmless here, and noise on stderr.
process.removeAllListeners('warning')
process.on('warning', (warning) => {
  if (warning.name !== 'MaxListenersExceededWarning') progress(warning.stack ?? String(warning))
})
checkRoute(ROUTE)
progress(`MCP benchmark (${runtime}): starting ${SERVERS.length} servers…`)
for (const server of SERVERS) server.client = await connect(server)
for (const server of SERVERS) for (const c of CASES) await checkAnswer(server, c)
for (const c of CASES) await checkSameAnswer(c)
for (const c of CASES) await checkTextOnly(c)
progress("every server answers the same lines; the floors, read_file's answers as they are, text only and default; warming up…")
await measure(WARMUP_ROUNDS)
if (!CHANGING) await new Promise((resolve) => setTimeout(resolve, Math.max(0, fixturesMadeAt + SETTLE_MS - performance.now())))
const samples = new Map()
for (const server of SERVERS) for (const c of CASES) samples.set(`${server.key}/${c.key}`, { sequential: [], afterIdle: [], concurrent: [], cpuMs: 0 })
progress(`${ROUNDS} rounds…`)
await measure(ROUNDS, samples)
for (const server of SERVERS) await server.client.close()

/** The server's CPU µs per call over the timed rounds of case `c` (both modes). */
function serverCpuPerCall(server, c) {
  return (1000 * samples.get(`${server.key}/${c.key}`).cpuMs) / (ROUNDS * (SEQUENTIAL_CALLS + CONCURRENCY))
}

/** The modes a row is given for, by their samples' key: the issue's targets are for the
 * first two. */
const MODES = { sequential: 'sequential', concurrent: `${CONCURRENCY} concurrent`, afterIdle: 'after idle' }
const rows = []
for (const c of CASES) {
  for (const [mode, label] of Object.entries(MODES)) {
    const cell = (key) => summarize(samples.get(`${key}/${c.key}`)[mode])
    const floor = cell('floor')
    const floorAnswer = cell('floorAnswer')
    const addon = cell('addon')
    const addonText = cell('addonText')
    const addonStateless = cell('addonStateless')
    const reference = cell('reference')
    rows.push({
      case: c.name,
      mode: label,
      floor,
      floor_same_answer: floorAnswer,
      addon,
      addon_text_only: addonText,
      addon_stateless: addonStateless,
      reference,
      stateless_over_text_only: addonStateless.ms / addonText.ms,
      addon_text_only_over_floor: addonText.ms / floor.ms,
      addon_over_floor_same_answer: addon.ms / floorAnswer.ms,
      server_cpu_us_per_call: Object.fromEntries(SERVERS.map((server) => [server.key, serverCpuPerCall(server, c)])),
      reference_over_addon: reference.ms / addon.ms,
    })
  }
}

/**
 * The issue's targets: within 1.2x the SDK's floor for the same answer (the text alone
 * against the floor for that text, the default against the floor for its answer), and at
 * least 2x faster than the reference server.
 */
const targets = (row) => ({
  floor_text_only: row.addon_text_only_over_floor <= 1.2,
  floor_same_answer: row.addon_over_floor_same_answer <= 1.2,
  reference: row.reference_over_addon >= 2,
})
for (const row of rows) if (row.mode !== MODES.afterIdle) row.pass = targets(row)

if (JSON_OUTPUT) {
  process.stdout.write(`${JSON.stringify({ runtime, platform: `${process.platform}-${process.arch}`, cores: os.cpus().length, rounds: ROUNDS, changing: CHANGING, rows }, null, 2)}\n`)
} else {
  const cellText = ({ ms, iqrPct }) => `${ms.toFixed(3).padStart(7)} ${`${iqrPct.toFixed(0)}%`.padStart(4)}`
  const verdict = (pass) => (pass ? 'PASS' : 'MISS')
  const out = [
    `MCP read over stdio, SDK Client (${runtime}, ${os.cpus().length} cores, ${ROUNDS} rounds): ms per call (median), IQR as % of it`,
    CHANGING
      ? "(--changing: the workspace's directories changed before every server's turn, so every read looks for every ignore file)"
      : "(the workspace's directories unchanged for over 3 s, as between edits: their listing of ignore files is trusted)",
    "(SDK, same text: the SDK's server answering the text-only answer, made once at start; same answer: the same",
    " server answering the structured answer under read_file's output schema; structured: agent-read-file mcp",
    ' --structured-content; text only: agent-read-file mcp, its default, to a v1 Client (2025-11-25); 2026: the',
    ' same server to the v2 Client pinned to 2026-07-28)',
    '',
    `${'case'.padEnd(27)} ${'mode'.padEnd(13)} ${'SDK, same text'.padStart(14)} ${'same answer'.padStart(12)} ${'structured'.padStart(12)} ${'text only'.padStart(12)} ${'2026'.padStart(12)} ${'server-fs'.padStart(12)}  ${'text/floor'.padStart(10)}  ${'ours/same'.padStart(9)}  ${'2026/2025'.padStart(9)}  ${'ref/ours'.padStart(8)}`,
  ]
  const ratio = (value, width) => `${value.toFixed(2)}x`.padStart(width)
  const verdicts = (pass) =>
    pass
      ? `<= 1.2x the floor: text only ${verdict(pass.floor_text_only)}, default ${verdict(pass.floor_same_answer)}; ref >= 2x: ${verdict(pass.reference)}`
      : '(not a target)'
  for (const row of rows) {
    out.push(
      `${row.case.padEnd(27)} ${row.mode.padEnd(13)} ${cellText(row.floor).padStart(14)} ${cellText(row.floor_same_answer).padStart(12)} ${cellText(row.addon).padStart(12)} ${cellText(row.addon_text_only).padStart(12)} ${cellText(row.addon_stateless).padStart(12)} ${cellText(row.reference).padStart(12)}  ` +
        `${ratio(row.addon_text_only_over_floor, 10)}  ${ratio(row.addon_over_floor_same_answer, 9)}  ${ratio(row.stateless_over_text_only, 9)}  ${ratio(row.reference_over_addon, 8)}  ${verdicts(row.pass)}`,
    )
  }
  out.push('', 'server CPU µs per call (user + system, both modes of a case together):')
  for (const c of CASES) {
    const cpu = rows.find((row) => row.case === c.name).server_cpu_us_per_call
    out.push(`  ${c.name.padEnd(27)} ${SERVERS.map((server) => `${server.name} ${cpu[server.key].toFixed(0)}`).join(', ')}`)
  }
  process.stdout.write(`${out.join('\n')}\n`)
}
