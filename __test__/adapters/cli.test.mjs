// The `agent-read-file` CLI, run as a child process of the current runtime.
import assert from 'node:assert/strict'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, describe, test } from '../harness.mjs'
import { makeFixture } from '../helpers.mjs'

const CLI = fileURLToPath(new URL('../../bin/agent-read-file.js', import.meta.url))
const require = createRequire(import.meta.url)
const { IGNORE_FILES } = require('../../index.js')
const { MAX_LINES, MAX_PDF_PAGES, MIN_CONTENT_BYTES, MIN_READ_TOKENS } = require('../../lib/native.js')
const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))

function run(args, options = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 10_000, ...options })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A shell command line word, quoted. */
const quote = (word) => `'${word.replaceAll("'", "'\\''")}'`

describe('agent-read-file CLI', () => {
  const fx = makeFixture()
  after(() => fs.rmSync(fx.base, { recursive: true, force: true }))
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`)
  fx.write('src/ten.txt', lines.join(''))
  fx.write('long.txt', Array.from({ length: 1234 }, (_, i) => `row ${i + 1}\n`).join(''))
  // 500 lines of 200 bytes: one window is larger than a pipe's buffer.
  fx.write('wide.txt', `${'w'.repeat(199)}\n`.repeat(500))

  describe('images, notebooks and PDFs', () => {
    // A 3x2 PNG (the README's), and a PDF of two pages.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEElEQVQI12M4Y2wMQQxwFgBLYgctOrxZ4QAAAABJRU5ErkJggg==',
      'base64',
    )
    fx.write('shot.png', png)
    fx.write('blob.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]))

    test('an image: the header and where the image stands (text), the output with its data (json)', () => {
      const text = run(['shot.png', '--root', fx.ws, '--format', 'text'])
      assert.equal(text.status, 0, text.stderr)
      assert.equal(text.stdout, `shot.png PNG image 3x2 (${png.length} bytes)\n[image 3x2 image/png]\n`)
      const json = JSON.parse(run(['shot.png', '--root', fx.ws]).stdout)
      assert.equal(json.kind, 'image')
      assert.equal(json.parts[0].data, png.toString('base64'))
    })

    test('--pages is checked by the read: a malformed one is INVALID_ARGUMENT, exit 1', () => {
      const { status, stderr } = run(['shot.png', '--root', fx.ws, '--pages', 'x', '--format', 'text'])
      assert.equal(status, 1)
      assert.match(stderr, /^INVALID_ARGUMENT: shot\.png: pages must be/)
    })

    test('another binary file is still BINARY_NOT_SUPPORTED', () => {
      const { status, stderr } = run(['blob.bin', '--root', fx.ws, '--format', 'text'])
      assert.equal(status, 1)
      assert.match(stderr, /^BINARY_NOT_SUPPORTED: blob\.bin: /)
    })
  })

  describe('code read as code (issue 38)', () => {
    const functions = Array.from({ length: 40 }, (_, n) => `def step_${n}(x):\n${'    x = x + 1  # a line of its body\n'.repeat(8)}    return x\n`)
    fx.write('steps.py', functions.join('\n'))
    const size = Buffer.byteLength(functions.join('\n'))
    // Each function is 10 lines and a blank one: step_n starts at line 11n + 1.
    const start = (n) => 11 * n + 1

    test('a person asked for the file gets its first lines; --outline its outline', () => {
      const first = run(['steps.py', '--root', fx.ws, '--format', 'text', '--max-lines', '2'])
      assert.equal(first.status, 0, first.stderr)
      assert.ok(first.stdout.startsWith('steps.py lines 1-2 of 439 '), first.stdout)
      const outline = run(['steps.py', '--root', fx.ws, '--format', 'text', '--outline', '--max-lines', '2'])
      assert.equal(outline.status, 0, outline.stderr)
      assert.equal(
        outline.stdout,
        `steps.py outline: 40 definitions, 439 lines (python)\n1-10 def step_0(x):\n12-21 def step_1(x):\n[next: outline=true start_line=23]\n[read one: symbol="step_0"; or start_line, or ranges=["a-b",…]]\n`,
      )
    })

    test('--symbol reads a definition, --ranges several ranges; one at a time', () => {
      const symbol = run(['steps.py', '--root', fx.ws, '--symbol', 'step_3'])
      assert.equal(symbol.status, 0, symbol.stderr)
      const output = JSON.parse(symbol.stdout)
      assert.deepEqual([output.next_start_line - output.meta.returned_line_count, output.meta.returned_line_count], [start(3), 10])
      const ranges = run(['steps.py', '--root', fx.ws, '--ranges', '1-2,12', '--format', 'text', '--no-line-numbers'])
      assert.equal(ranges.stdout, `steps.py lines 1-2, 12 of 439 (${size} bytes)\ndef step_0(x):\n    x = x + 1  # a line of its body\n[… 9 lines …]\ndef step_1(x):\n`)
      const both = run(['steps.py', '--root', fx.ws, '--outline', '--symbol', 'a'])
      assert.deepEqual([both.status, both.stderr.includes('--outline and --symbol exclude each other')], [2, true])
      const unknown = run(['steps.py', '--root', fx.ws, '--symbol', 'nope', '--format', 'text'])
      assert.equal(unknown.status, 1)
      assert.match(unknown.stderr, /^NOT_FOUND: steps\.py: no definition named "nope" in steps\.py; the nearest: /)
    })
  })

  describe('--max-file-bytes', () => {
    fx.write('big.log', `${'x'.repeat(2 ** 20)}\nend\n`)

    test('reads a file over 1 MiB by default; --max-file-bytes N refuses a larger one, naming the flag', () => {
      for (const limit of [[], ['--max-file-bytes', 'Infinity'], ['--max-file-bytes', String(2 ** 21)]]) {
        const { status, stdout } = run(['big.log', '--root', fx.ws, '--start-line', '2', ...limit])
        assert.equal(status, 0, limit.join(' '))
        assert.deepEqual([JSON.parse(stdout).content, JSON.parse(stdout).meta.line_count], ['end\n', 2])
      }
      const { status, stderr } = run(['big.log', '--root', fx.ws, '--max-file-bytes', String(2 ** 20)])
      assert.equal(status, 1)
      const { error } = JSON.parse(stderr)
      assert.equal(error.code, 'SIZE_LIMIT_EXCEEDED')
      assert.match(error.message, /over the limit of 1048576 bytes; --max-file-bytes lifts the limit$/)
    })

    test('--max-media-bytes N refuses a larger image, naming the flag; at its size it is read', () => {
      const size = fs.statSync(path.join(fx.ws, 'shot.png')).size
      const refused = run(['shot.png', '--root', fx.ws, '--format', 'text', '--max-media-bytes', String(size - 1)])
      assert.equal(refused.status, 1)
      assert.equal(
        refused.stderr,
        `SIZE_LIMIT_EXCEEDED: shot.png: file is ${size} bytes, over the ${size - 1}-byte limit for images, notebooks and PDFs; --max-media-bytes lifts the limit\n`,
      )
      assert.equal(run(['shot.png', '--root', fx.ws, '--format', 'text', '--max-media-bytes', String(size)]).status, 0)
      for (const bad of ['0', 'Infinity', '1e3']) assert.equal(run(['shot.png', '--root', fx.ws, '--max-media-bytes', bad]).status, 2, bad)
    })

    test('by default a read gives at most 25,000 tokens of a long line; --max-read-tokens sets it', () => {
      fx.write('long.min.js', `${'let value = compute(index, total);'.repeat(40_000)}\n`)
      for (const [flags, budget] of [[[], 25_000], [['--max-read-tokens', '2000'], 2000]]) {
        const { status, stdout } = run(['long.min.js', '--root', fx.ws, '--format', 'text', ...flags])
        assert.equal(status, 0)
        const tokens = countTokens(stdout)
        assert.ok(tokens <= budget && tokens > budget * 0.7, `${tokens} tokens for ${budget}`)
        assert.match(stdout, /\[line 1 continues at column \d+ of 1360000; next: start_line=1 start_column=\d+\]\n$/)
      }
      const bad = run(['long.min.js', '--root', fx.ws, '--max-read-tokens', '999'])
      assert.equal(bad.status, 2)
    })

    test('a line over 1 MiB is cut: the closing line names start_line and start_column, which read on', () => {
      const line = 'y'.repeat(2 ** 20 + 500)
      const size = fs.statSync(fx.write('huge.min.js', `${line}\nend\n`)).size
      const base = ['huge.min.js', '--root', fx.ws, '--max-file-bytes', 'Infinity', '--max-read-tokens', 'Infinity']
      const first = run([...base, '--format', 'text'], { maxBuffer: 4 * 2 ** 20 })
      assert.equal(first.status, 0, first.stderr)
      const [header, numbered] = first.stdout.split('\n')
      assert.equal(header, `huge.min.js line 1 of 2 (${size} bytes)`)
      const part = numbered.slice('1\t'.length)
      assert.ok(numbered.startsWith('1\t') && part.length > 0 && line.startsWith(part))
      const column = part.length + 1
      const closing = `[line 1 continues at column ${column} of ${line.length}; next: start_line=1 start_column=${column}]`
      assert.equal(first.stdout, `${header}\n1\t${part}\n${closing}\n`)
      assert.equal(first.stderr, '')
      const json = JSON.parse(run(base, { maxBuffer: 4 * 2 ** 20 }).stdout)
      assert.deepEqual(json.continuation, { start_line: 1, start_column: column })
      const rest = run([...base, '--format', 'text', '--start-line', '1', '--start-column', String(column)])
      assert.equal(rest.status, 0, rest.stderr)
      const restHeader = `huge.min.js lines 1-2 of 2, line 1 from column ${column} (${size} bytes)`
      assert.equal(rest.stdout, `${restHeader}\n1\t${line.slice(part.length)}\n2\tend\n`)
      assert.equal(rest.stderr, '')
    })

    test('a limit that is no whole number, or 0, is a usage error', () => {
      for (const limit of ['1e9', '-1', 'lots']) {
        const { status, stderr } = run(['big.log', '--root', fx.ws, '--max-file-bytes', limit])
        assert.equal(status, 2, `${limit}: ${stderr}`)
        // `-1` reads as an option, and is refused as one.
        if (limit !== '-1') assert.match(stderr, /--max-file-bytes takes a whole decimal number or Infinity/)
      }
      const { status, stderr } = run(['big.log', '--root', fx.ws, '--max-file-bytes', '0'])
      assert.equal(status, 2)
      assert.ok(stderr.startsWith('agent-read-file: --max-file-bytes is from 1 to '), stderr)
    })
  })

  describe('json, the default for a pipe', () => {
    test('prints the output object', () => {
      const { status, stdout } = run(['src/ten.txt', '--root', fx.ws, '--start-line', '3', '--max-lines', '2'])
      assert.equal(status, 0)
      const output = JSON.parse(stdout)
      assert.equal(output.path, 'src/ten.txt')
      assert.equal(output.content, lines.slice(2, 4).join(''))
      assert.equal(output.truncated, true)
      assert.equal(output.next_start_line, 5)
      assert.equal(output.meta.line_count, 10)
      assert.equal(output.meta.returned_line_count, 2)
    })

    test('the root defaults to the current directory', () => {
      const { status, stdout } = run(['ten.txt'], { cwd: path.join(fx.ws, 'src') })
      assert.equal(status, 0)
      assert.equal(JSON.parse(stdout).content, lines.join(''))
    })

    test('an empty --root is an error naming --root, never the current directory', () => {
      // What `--root "$UNSET"` gives; run where the file exists, so a read would succeed.
      for (const args of [['ten.txt', '--root', ''], ['ten.txt', '--root=']]) {
        for (const format of ['json', 'text']) {
          const { status, stdout, stderr } = run([...args, '--format', format], { cwd: path.join(fx.ws, 'src') })
          assert.equal(status, 1, `${args.join(' ')} ${format}: ${stdout}`)
          assert.equal(stdout, '')
          const message = format === 'json' ? JSON.parse(stderr).error.message : stderr.replace(/\n$/, '')
          if (format === 'json') assert.equal(JSON.parse(stderr).error.code, 'INVALID_ARGUMENT')
          assert.ok(message.startsWith('INVALID_ARGUMENT: ') && message.includes('--root'), message)
          assert.ok(!message.includes('\n'), message)
        }
      }
    })

    test("a failed read is the error object on stderr, exit 1", () => {
      for (const [args, code] of [
        [['missing.txt', '--root', fx.ws], 'NOT_FOUND'],
        [['../outside/secret.txt', '--root', fx.ws], 'OUTSIDE_WORKSPACE'],
      ]) {
        const { status, stdout, stderr } = run(args)
        assert.equal(status, 1, args.join(' '))
        assert.equal(stdout, '')
        const { error } = JSON.parse(stderr)
        assert.equal(error.code, code)
        assert.ok(error.message.startsWith(`${code}: `), error.message)
      }
    })
  })

  describe('text, the default at a terminal', () => {
    const tenBytes = () => fs.statSync(path.join(fx.ws, 'src/ten.txt')).size
    const longBytes = () => fs.statSync(path.join(fx.ws, 'long.txt')).size

    test("prints what a model is given: a header, numbered lines, and the call that reads on", () => {
      const { status, stdout, stderr } = run(['src/ten.txt', '--root', fx.ws, '--start-line', '3', '--max-lines', '2', '--format', 'text'])
      assert.equal(status, 0)
      assert.equal(stdout, `src/ten.txt lines 3-4 of 10 (${tenBytes()} bytes)\n3\tline 3\n4\tline 4\n[next: start_line=5]\n`)
      assert.equal(stderr, '')
    })

    test('--no-line-numbers prints the lines as they are', () => {
      const args = ['src/ten.txt', '--root', fx.ws, '--start-line', '9', '--format', 'text', '--no-line-numbers']
      assert.equal(run(args).stdout, `src/ten.txt lines 9-10 of 10 (${tenBytes()} bytes)\nline 9\nline 10\n`)
    })

    test('--start-column starts the window at that byte of the first line, and the header says so', () => {
      const args = ['src/ten.txt', '--root', fx.ws, '--start-line', '3', '--start-column', '4', '--max-lines', '2', '--format', 'text']
      const { status, stdout, stderr } = run(args)
      assert.equal(status, 0, stderr)
      const header = `src/ten.txt lines 3-4 of 10, line 3 from column 4 (${tenBytes()} bytes)`
      assert.equal(stdout, `${header}\n3\te 3\n4\tline 4\n[next: start_line=5]\n`)
    })

    test('the last window has no closing line; a start past the end says how many lines there are', () => {
      const last = run(['long.txt', '--root', fx.ws, '--format', 'text', '--start-line', '1233'])
      assert.equal(last.stdout, `long.txt lines 1233-1234 of 1234 (${longBytes()} bytes)\n1233\trow 1233\n1234\trow 1234\n`)
      const past = run(['long.txt', '--root', fx.ws, '--format', 'text', '--start-line', '5000'])
      assert.deepEqual([past.status, past.stdout, past.stderr], [0, `long.txt has 1234 lines, none from line 5000 on (${longBytes()} bytes)\n`, ''])
    })

    test('a failed read is CODE: message on stderr, and for some codes what to do instead, exit 1', () => {
      const { status, stdout, stderr } = run(['missing.txt', '--root', fx.ws, '--format', 'text'])
      assert.deepEqual([status, stdout], [1, ''])
      assert.match(stderr, /^NOT_FOUND: missing\.txt: [^\n]+\n$/)
      const outside = run(['../outside/secret.txt', '--root', fx.ws, '--format', 'text'])
      assert.match(outside.stderr, /^OUTSIDE_WORKSPACE: \.\.\/outside\/secret\.txt: [^\n]+\nread_file reads only inside the workspace: give a path relative to its root\.\n$/)
    })

    test('is what a terminal gets when --format is not given', { skip: !fs.existsSync('/usr/bin/script') && 'no script(1) for a pseudo-terminal' }, () => {
      // script(1) runs the CLI with a pseudo-terminal as its stdout.
      const command = [process.execPath, CLI, 'src/ten.txt', '--root', fx.ws, '--max-lines', '2'].map(quote).join(' ')
      const result = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 10_000 })
      assert.equal(result.status, 0, result.stderr)
      const shown = result.stdout.replaceAll('\r\n', '\n')
      assert.equal(shown, `src/ten.txt lines 1-2 of 10 (${tenBytes()} bytes)\n1\tline 1\n2\tline 2\n[next: start_line=3]\n`)
    })
  })

  describe('the command line itself', () => {
    test('--help explains the options and shows examples; --version prints the version', () => {
      const help = run(['--help'])
      assert.equal(help.status, 0)
      assert.match(help.stdout, /^usage: agent-read-file <path>/)
      for (const word of ['--root', '--start-line', '--start-column', '--max-lines', '--format', 'examples:', 'exit status']) {
        assert.ok(help.stdout.includes(word), word)
      }
      assert.deepEqual(run(['--version']), { status: 0, stdout: `${version}\n`, stderr: '' })
      assert.equal(run(['-v']).stdout, `${version}\n`)
    })

    // The CLI writes the engine's limits and default names out, so that `--help` and a
    // malformed command line never load the addon: this holds the copies to the engine's.
    test("the help's limits and default names are the engine's", () => {
      const flat = (args) => run(args).stdout.replace(/\s+/g, ' ')
      const [help, mcpHelp] = [flat(['--help']), flat(['mcp', '--help'])]
      for (const [text, said] of [
        [help, `lines in the window, 1 to ${MAX_LINES} (default: 200)`],
        [help, `at most ${MAX_PDF_PAGES}) or a notebook's cells`],
        [help, `estimated) of one read's text, ${MIN_READ_TOKENS} or more, or Infinity`],
        [mcpHelp, `one result carries (${MIN_CONTENT_BYTES} to 4294967295)`],
        [mcpHelp, `estimated) of one result's text, ${MIN_READ_TOKENS} or more, or Infinity`],
        [mcpHelp, `replaces the default names (${IGNORE_FILES.join(', ')})`],
      ]) {
        assert.ok(text.includes(said), said)
      }
    })

    // Issue 36 §4: the configuration `mcp --help` showed left out the MCP SDK, so a client
    // that pasted it got ERR_MCP_SDK_MISSING; the README's worked.
    test('mcp --help shows the client configuration the README shows', () => {
      const help = run(['mcp', '--help'])
      assert.equal(help.status, 0)
      const shown = help.stdout.slice(help.stdout.indexOf('{', help.stdout.indexOf("An MCP client's configuration")))
      const fromHelp = JSON.parse(shown.slice(0, shown.indexOf('}') + 1))
      const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
      const block = readme.split('```json\n').find((text) => text.includes('"mcpServers"'))
      const fromReadme = JSON.parse(block.slice(0, block.indexOf('```'))).mcpServers.read_file
      assert.deepEqual(fromHelp, fromReadme)
    })

    test('numbers are whole decimal numbers only; anything else exits 2 with the usage', () => {
      for (const bad of ['abc', '1e2', '0x10', '1.5', '-1', '', ' 3', '+3', '٣']) {
        for (const option of ['--start-line', '--start-column', '--max-lines']) {
          // `--option=value`, so that a value starting with `-` reaches the CLI's own check.
          const { status, stdout, stderr } = run(['src/ten.txt', '--root', fx.ws, `${option}=${bad}`])
          assert.equal(status, 2, `${option} ${JSON.stringify(bad)}`)
          assert.equal(stdout, '')
          assert.ok(stderr.includes(`${option} takes a whole decimal number`), stderr)
          assert.ok(stderr.includes('usage: agent-read-file <path>'), stderr)
        }
      }
    })

    test('a number out of its range is a malformed command line: exit 2, naming the flag', () => {
      for (const [option, bad, range] of [
        ['--max-lines', '0', `1 to ${MAX_LINES}`],
        ['--max-lines', String(MAX_LINES + 1), `1 to ${MAX_LINES}`],
        ['--start-line', '0', '1 to'],
        ['--start-column', '0', '1 to'],
      ]) {
        const { status, stdout, stderr } = run(['src/ten.txt', '--root', fx.ws, option, bad])
        assert.deepEqual([status, stdout], [2, ''], `${option} ${bad}`)
        assert.ok(stderr.startsWith(`agent-read-file: ${option} is from ${range}`), stderr)
        assert.ok(stderr.includes('usage: agent-read-file'), stderr)
      }
    })

    test('a root that does not exist, or is a file, is named with --root: exit 1', () => {
      const missing = path.join(fx.base, 'no-such-dir')
      const file = path.join(fx.ws, 'src', 'ten.txt')
      for (const [root, reason] of [[missing, 'does not exist'], [file, 'is not a directory']]) {
        for (const format of ['json', 'text']) {
          const { status, stdout, stderr } = run(['src/main.ts', '--root', root, '--format', format])
          assert.deepEqual([status, stdout], [1, ''], stderr)
          const message = format === 'json' ? JSON.parse(stderr).error.message : stderr.trimEnd()
          assert.equal(message, `INVALID_ARGUMENT: --root ${root}: ${reason}`)
        }
      }
    })

    test('every malformed command line exits 2 with the usage on stderr', () => {
      for (const args of [[], ['a', 'b'], ['a', '--bogus'], ['a', '--format', 'yaml'], ['a', '--root']]) {
        const { status, stdout, stderr } = run(args)
        assert.equal(status, 2, JSON.stringify(args))
        assert.equal(stdout, '')
        assert.match(stderr, /^agent-read-file: .+\nusage: agent-read-file <path>/, JSON.stringify(args))
      }
    })

    test('a reader that closes the pipe early ends the CLI quietly with 0', () => {
      for (const format of ['text', 'json']) {
        const command = [process.execPath, CLI, 'wide.txt', '--root', fx.ws, '--max-lines', '500', '--format', format]
        const script = `${command.map(quote).join(' ')} 2>"$1" | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`
        const stderrFile = path.join(fx.base, `epipe-${format}.txt`)
        const result = spawnSync('bash', ['-c', script, 'epipe', stderrFile], { encoding: 'utf8', timeout: 10_000 })
        assert.equal(result.stdout.trim(), '0', `${format}: exit status`)
        // Quietly: no error, no stack trace. The text footer may or may not have been written
        // before the reader went away.
        const said = fs.readFileSync(stderrFile, 'utf8')
        assert.ok(said === '' || said === 'lines 1-500 of 500\n', `${format}: ${said}`)
      }
    })
  })
})
