// The stdio MCP server under load: CALLS concurrent read_file calls of a 1 MiB file, sent at
// once by a client that leaves the server's stdout unread for DELAY ms, then reads it all.
//
//   node benchmark/mcp-load.mjs [--calls=1000] [--delay-ms=3000] [--server=node|bun]
//
// Prints one JSON line: how many calls were answered (with a result, with an error), how the
// server ended (status, signal, the last lines of its stderr) and its peak RSS (VmHWM, from
// /proc, read while it is still up; Linux only). The server runs under Node or Bun
// (`--server`), whatever runs this script.

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const CLI = path.join(here, '..', 'bin', 'agent-read-file.js')
const BUN = path.join(here, '..', 'node_modules', '.bin', 'bun')

const option = (name, fallback) => {
  const arg = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))
  return arg ? arg.slice(name.length + 3) : fallback
}
const CALLS = Number(option('calls', '1000'))
const DELAY_MS = Number(option('delay-ms', '3000'))
const SERVER = option('server', 'node')

/** A workspace with `big.txt`: 200 lines filling 1 MiB, so one default window is all of it. */
function workspace() {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-load-'))
  const line = `${'x'.repeat(5240)}\n`
  fs.writeFileSync(path.join(ws, 'big.txt'), line.repeat(200))
  return ws
}

/** The peak resident set of process `pid` in MiB, or null once it is gone. */
function peakRssMiB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024)
  } catch {
    return null
  }
}

/** Calls `onLine(buffer)` for each newline-ended line of `stream`, holding one line at most. */
function eachLine(stream, onLine) {
  let parts = []
  stream.on('data', (chunk) => {
    let start = 0
    let end
    while ((end = chunk.indexOf(10, start)) !== -1) {
      parts.push(chunk.subarray(start, end))
      onLine(Buffer.concat(parts))
      parts = []
      start = end + 1
    }
    if (start < chunk.length) parts.push(chunk.subarray(start))
  })
}

async function main() {
  const ws = workspace()
  const [command, prefix] = SERVER === 'bun' ? [BUN, [CLI]] : [process.execPath, [CLI]]
  const child = spawn(command, [...prefix, 'mcp', '--root', ws], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)))
  child.stdin.on('error', () => {})
  const ended = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)

  // VmHWM is the peak so far; sampled so that a server that dies still has a figure.
  let peak = null
  const sampler = setInterval(() => (peak = peakRssMiB(child.pid) ?? peak), 100)
  const counts = { results: 0, errors: 0, other: 0 }
  let initialized
  const ready = new Promise((resolve) => (initialized = resolve))
  let allAnswered
  const answered = new Promise((resolve) => (allAnswered = resolve))
  eachLine(child.stdout, (line) => {
    const message = JSON.parse(line)
    if (message.id === 0) return initialized()
    if (message.result && !message.result.isError) counts.results++
    else if (message.error || message.result?.isError) counts.errors++
    else counts.other++
    if (counts.results + counts.errors + counts.other === CALLS) allAnswered()
  })
  send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'load', version: '1' } } })
  await ready
  child.stdout.pause()
  const started = Date.now()
  send({ method: 'notifications/initialized' })
  for (let id = 1; id <= CALLS; id++) send({ id, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'big.txt' } } })
  await new Promise((resolve) => setTimeout(resolve, DELAY_MS))
  child.stdout.resume()
  await Promise.race([answered, ended])
  peak = peakRssMiB(child.pid) ?? peak
  clearInterval(sampler)
  const seconds = (Date.now() - started) / 1000
  child.stdin.end()
  const exit = await ended
  fs.rmSync(ws, { recursive: true, force: true })
  console.log(JSON.stringify({ server: SERVER, calls: CALLS, delayMs: DELAY_MS, ...counts, seconds, peakRssMiB: peak, exit, stderr: stderr.trim().split('\n').slice(-3) }))
}

await main()
