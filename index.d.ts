/**
 * agent-read-file: the `read_file` tool of AI coding agents, in Rust behind Node-API.
 * These declarations are the specification's shapes, to the letter; what a toolkit adds to
 * them is declared beside them (`ToolkitReadFileInput`, `ToolkitReadFileOutput`).
 */

/** Arguments of one `read_file` call, as the model sends them. */
export interface ReadFileInput {
  path: string
  start_line?: number
  max_lines?: number
}

/**
 * One line window of a file (`ReadFileOutput`) and the facts beside it (`ReadFileMeta`):
 * declared once, in the binding's Rust (`src/output.rs`), from which napi-rs generates them.
 */
export type { ReadFileMeta, ReadFileOutput } from './binding'
import type { ReadFileOutput } from './binding'

/**
 * Arguments of a toolkit's read (`toolkit.readFile`, `readFileSync`, `readFiles`, and
 * `ToolCatalog.read_file.execute` with a `ctx`): the specification's, and `start_column`.
 */
export type ToolkitReadFileInput = Omit<ReadFileInput, 'start_line' | 'max_lines'> & {
  /** As the specification's; `null` is "not given". */
  start_line?: number | null
  /**
   * As the specification's; `null` is "not given". A whole number over 500 is read as 500
   * (the answer's `note` says so when the file goes on), where the bare `readFile` refuses it.
   */
  max_lines?: number | null
  /**
   * The 1-based column of line `start_line` where the window starts, in UTF-8 bytes of the
   * line as stored (1: the line's start; `null` or absent: 1). An integer >= 1, else
   * `INVALID_ARGUMENT`. A column inside a multi-byte character starts at that character; one
   * past the line's end starts at its end (its terminator). Set it as a cut line's
   * `continuation` (or marker) says. The bare `readFile` ignores it, as it ignores any key
   * the specification does not name.
   */
  start_column?: number | null
}

// What a toolkit's read returns: declared (and documented) once, from the Rust struct, in
// binding.d.ts.
export type { ToolkitReadFileOutput, ToolkitContinuation } from './binding'
import type { ToolkitReadFileOutput } from './binding'

/** The `code` of every error `readFile` rejects with and `readFileSync` throws. */
export type ReadFileErrorCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'NOT_FILE'
  | 'BINARY_NOT_SUPPORTED'
  | 'SIZE_LIMIT_EXCEEDED'
  | 'OUTSIDE_WORKSPACE'
  | 'PERMISSION_DENIED'
  | 'INTERNAL'

// The native functions, declared (and documented) once, from the Rust doc comments, in
// the generated binding.d.ts.
export {
  readFile,
  readFileSync,
  fileVersion,
  readFiles,
  MAX_FILE_BYTES,
  MAX_BATCH_FILES,
  MAX_BATCH_CONTENT_BYTES,
  estimateTokens,
} from './binding'

/**
 * A {@link ToolkitOptions.maxReadTokens} for a model whose context window holds
 * `contextTokens` tokens: one eighth of it (25,000 of a 200,000-token context), at least
 * 1,000. Throws `INVALID_ARGUMENT` for anything but a positive safe integer.
 */
export declare function maxReadTokensFor(contextTokens: number): number

/** One result of `readFiles`: the output, or the error, of one input. */
export type ReadFilesResult<Code extends string = ReadFileErrorCode, Output = ReadFileOutput> =
  | { ok: true; output: Output }
  | { ok: false; error: { code: Code; message: string } }

// The media answer's types: declared (and documented) once, from the Rust structs.
export type { MediaOutput, MediaMeta, ShownRange, TextPart, ImagePart, ImageSource } from './binding'
import type { MediaOutput } from './binding'

// What a toolkit's reads of code answer ({@link ViewInput}'s `outline`, `symbol` and
// `ranges`): declared (and documented) once, from the Rust structs, in binding.d.ts.
export type { OutlineOutput, DefinitionEntry, OutlineMeta, RangesOutput, RangeSegment } from './binding'
import type { OutlineOutput, RangesOutput } from './binding'

/**
 * What {@link AgentToolkit.view} answers: a text window, an image, a notebook or a PDF as
 * parts, a file's outline (or the definitions a symbol names), or several ranges.
 */
export type ViewOutput = ToolkitReadFileOutput | MediaOutput | OutlineOutput | RangesOutput

/**
 * What a toolkit's media reads ({@link AgentToolkit.view}) may take and give; each an
 * integer, absent for the default.
 */
export interface MediaLimits {
  /** The largest image, notebook or PDF read, in bytes (default 20 MiB); larger is `SIZE_LIMIT_EXCEEDED`, before it is decoded. */
  maxFileBytes?: number
  /** The longest edge of an image part, in pixels (default 1568). */
  maxImageEdge?: number
  /** Width x height of an image part (default 1,150,000). */
  maxImagePixels?: number
  /** The length of an image part's base64 data (default 5 MiB: 5,242,880). */
  maxImageBytes?: number
  /** The most image parts one answer carries (a notebook's further plots are named, not sent). */
  maxImages?: number
}

// `FileVersion`: declared (and documented) once, from the Rust struct, in binding.d.ts.
import type { FileVersion } from './binding'
export type { FileVersion }

/** What `checkFreshness` finds: the file as last read, changed, gone, or never read. */
export type Freshness = 'unchanged' | 'changed' | 'deleted' | 'unread'

/** The tool definitions a model is shown, frozen. */
export declare const TOOL_DEFINITIONS: {
  readonly read_file: {
    readonly name: 'read_file'
    readonly description: 'Reads a UTF-8 text file in the workspace and returns a line-limited content window.'
    readonly parameters: {
      readonly type: 'object'
      readonly properties: {
        readonly path: {
          readonly type: 'string'
          readonly description: 'Workspace-root-relative file path to read (e.g., "src/main.ts").'
        }
        readonly start_line: {
          readonly type: 'number'
          readonly default: 1
          readonly description: '1-based start line of the returned window (default: 1).'
        }
        readonly max_lines: {
          readonly type: 'number'
          readonly default: 200
          readonly description: 'Maximum number of lines to return (default: 200).'
        }
      }
      readonly required: readonly ['path']
    }
  }
}

/**
 * The tool definitions a toolkit's tool is shown, frozen: the specification's, with one
 * sentence more on cut lines, its numbers stated as integers with their bounds (`null`
 * accepted for one not given; `max_lines` at most 500, in words too), and the `start_column`
 * parameter, which only a toolkit honours. Every toolkit has it as `definition`; the adapters
 * publish it.
 */
export declare const TOOLKIT_DEFINITIONS: {
  readonly read_file: {
    readonly name: 'read_file'
    readonly description: 'Reads a UTF-8 text file in the workspace and returns a line-limited content window. A line too long to return whole is cut, and a marker line says how to read the rest. Also reads images (PNG, JPEG, GIF, WebP), Jupyter notebooks and PDFs.'
    readonly parameters: {
      readonly type: 'object'
      readonly properties: {
        readonly path: (typeof TOOL_DEFINITIONS)['read_file']['parameters']['properties']['path']
        readonly start_line: {
          readonly type: readonly ['integer', 'null']
          readonly default: 1
          readonly description: '1-based start line of the returned window (default: 1). Negative counts from the end: -50 reads the last 50 lines.'
        }
        readonly max_lines: {
          readonly type: readonly ['integer', 'null']
          readonly minimum: 1
          readonly maximum: 500
          readonly default: 200
          readonly description: 'Maximum number of lines to return, at most 500 (default: 200).'
        }
        readonly start_column: {
          readonly type: readonly ['integer', 'null']
          readonly minimum: 1
          readonly default: 1
          readonly description: "1-based column (in UTF-8 bytes) of start_line to start from; set it only as a cut line's marker says, to read the rest of that line (default: 1)."
        }
        readonly pages: {
          readonly type: readonly ['string', 'null']
          readonly description: 'PDF pages to read, like "3" or "3-7" (at most 20), or a notebook\'s cells; omit for other files.'
        }
        readonly outline: {
          readonly type: readonly ['boolean', 'null']
          readonly description: "true: the file's outline (its definitions and their lines) instead of its text."
        }
        readonly symbol: {
          readonly type: readonly ['string', 'null']
          readonly description: 'A definition to read by its name, like "Parser.parse".'
        }
        readonly ranges: {
          readonly type: readonly ['array', 'null']
          readonly items: { readonly type: 'string' }
          readonly maxItems: 16
          readonly description: 'Line ranges to read in one call, like ["10-40", "120-160"].'
        }
      }
      readonly required: readonly ['path']
    }
  }
}

/**
 * An error this package rejects or throws: an `Error` whose `code` is a
 * {@link ReadFileErrorCode}. Its `message` (`CODE: <path>: <reason>`) and `code` are own
 * enumerable properties, so `JSON.stringify(err)` carries both.
 */
export interface ReadFileError extends Error {
  code: ReadFileErrorCode
}

/** Whether `error` is a {@link ReadFileError} (an `Error` with one of the contract's codes). */
export declare function isReadFileError(error: unknown): error is ReadFileError

/**
 * Every `code` a toolkit (or `ToolCatalog`) fails with: the contract's, `POLICY_DENIED`
 * when {@link DEFAULT_DENY}, its `deny` rules or the workspace's ignore files refuse the file
 * (the message names the rule and where it is: `(DEFAULT_DENY)`, `(deny rule 2)`,
 * `(sub/.aiignore:3)`), and `FILE_CHANGED` when a file over 1 MiB
 * (read under {@link ToolkitOptions.maxFileBytes}) changed while it was read, and again
 * when the read was tried once more: no answer mixes two versions of a file.
 */
export type ToolkitErrorCode = ReadFileErrorCode | 'POLICY_DENIED' | 'FILE_CHANGED' | MediaErrorCode

/**
 * What {@link AgentToolkit.view} fails with beside the other codes: `INVALID_MEDIA` (an image,
 * notebook or PDF that is corrupt or truncated, or a file named like one whose content is
 * not), `IMAGE_TOO_LARGE` (an image whose header declares more pixels than are decoded, or
 * that cannot be made to fit {@link MediaLimits}), `PDF_ENCRYPTED`.
 */
export type MediaErrorCode = 'INVALID_MEDIA' | 'IMAGE_TOO_LARGE' | 'PDF_ENCRYPTED'

/** An error a toolkit rejects or throws. */
export interface ToolkitError extends Error {
  code: ToolkitErrorCode
}

/**
 * Whether `error` is a {@link ToolkitError}: a {@link ReadFileError}, or a `POLICY_DENIED`
 * or `FILE_CHANGED` one.
 */
export declare function isToolkitError(error: unknown): error is ToolkitError

/**
 * What every toolkit refuses unless `defaultDeny: false`: files whose names say they hold secrets,
 * and the copies editors and people leave of them (`name~`, `name.bak`, `name.old`,
 * `name.orig`, `#name#`). Dotenv files (`.env`, `.env.*`, `*.env`, `.envrc`, `.dev.vars`; not
 * `.env.example`, `.env.sample`), private keys and key stores (`id_rsa*` and the other `id_*`
 * keys, `*_rsa` and the like, `*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.p8`, `*.ppk`, `*.jks`,
 * `*.keystore`), tools' credentials (`.aws/credentials`, `.docker/config.json`,
 * `.kube/config`, `kubeconfig`, `.cargo/credentials`, `.gem/credentials`, gh's `hosts.yml`,
 * `.config/gcloud/`, `application_default_credentials.json`, `client_secret*.json`,
 * `credentials.json`, `.npmrc`, `.netrc`, `.pypirc`, `.git-credentials`, `.pgpass`,
 * `.my.cnf`, `.htpasswd`, `.vault-token`, `.s3cfg`, `.boto`, `.terraformrc`), applications'
 * secrets (`secrets.yml`/`.yaml`/`.json`/`.toml`, `*.tfvars`, `*.tfstate`, `*.ovpn`), shell
 * histories (`.*_history`), `.ssh/`, `.gnupg/` and `.git/`.
 */
export declare const DEFAULT_DENY: readonly string[]

/**
 * The ignore files a toolkit obeys unless `ignoreFiles` says otherwise: `.aiignore`,
 * `.cursorignore`, `.geminiignore`, `.clineignore`, `.rooignore`, `.aiderignore`,
 * `.codeiumignore` (the files agents' users keep for JetBrains AI Assistant, Cursor, Gemini
 * CLI, Cline, Roo Code, Aider and Windsurf) and `.agentreadfileignore`, this package's own.
 */
export declare const IGNORE_FILES: readonly string[]

/** Where a toolkit reads, and what it refuses. */
export interface ToolkitOptions {
  /** Absolute path of the workspace root directory. */
  workspaceRoot: string
  /**
   * Whether {@link DEFAULT_DENY} applies: `true` (default) or `false`, the only way to turn
   * it off (else `INVALID_ARGUMENT`).
   */
  defaultDeny?: boolean
  /**
   * More files refused with `POLICY_DENIED`, added to {@link DEFAULT_DENY} (`[]`, the
   * default, adds none): gitignore-syntax rules relative to the root (a name without `/`
   * matches at any depth; `dir/` matches a directory and all in it; `!` re-admits what an
   * earlier rule of this list denies, never a default). The rules judge the
   * file actually opened, by the path it was opened by beneath the root, whatever
   * spelling, symlink or symlinked directory led to it, and whatever happens to that name
   * afterwards. Deny rules ignore case. Hard links cannot be told apart by path: a hard
   * link to a denied file under an admitted name is read.
   */
  deny?: readonly string[]
  /**
   * Rules re-admitting files that {@link DEFAULT_DENY}, `deny` or an ignore file denies
   * (e.g. `['.env.test']`): the only way to re-admit a default. Default `[]`.
   */
  allow?: readonly string[]
  /**
   * The workspace's ignore files obeyed as deny rules: `true` (default) for
   * {@link IGNORE_FILES}, `false` for none, or the file names (at most 64 plain names, else
   * `INVALID_ARGUMENT`). Gitignore syntax, nested like git's: a file rules below its own
   * directory, a deeper file's `!rule` re-admits what files above it deny, a denied
   * directory denies all in it; rules ignore case. Every read looks again (statuses only,
   * rules recompiled when a file changed), so an edit is honoured by the next read. They
   * are read beneath the root only; a symlink among them is followed inside the workspace.
   * One that cannot be used (a symlink out, unreadable, not a regular file, over 256 KiB,
   * a line that is not a valid rule) refuses every file below its directory, naming it.
   */
  ignoreFiles?: boolean | readonly string[]
  /**
   * The most UTF-8 bytes a result's `content` may have: an integer from 128 to
   * 4294967295 (else `INVALID_ARGUMENT`). Default: no budget. The window ends at the last
   * whole line that fits (`truncated: true`, `next_start_line` the first line left out).
   * When the window's first line alone does not fit, it is cut at a UTF-8 character
   * boundary and followed by `\n` and ONE marker line,
   * `[line <L> continues at column <C> of <N>: call read_file with start_line <L> and start_column <C>]\n`
   * (`<N>` the line's length in bytes, its terminator not counted); then `truncated` is
   * `true`, `meta.returned_line_count` is 1, `next_start_line` is the following line (`null`
   * after the last) and `continuation` is `{ start_line: L, start_column: C }`
   * ({@link ToolkitReadFileOutput}): every byte of the line is reached by following it.
   * Content and marker together stay within the budget.
   */
  maxContentBytes?: number
  /**
   * The most tokens a model is given for one read: the lines, their numbers, the header and
   * the closing line, estimated by {@link estimateTokens} for {@link ToolkitOptions.tokenizer}
   * (no token is shorter than a byte, so a window of fewer bytes is not estimated at all). A
   * window over it ends at its last whole line within it, or its first line is cut and
   * marked, as `maxContentBytes` cuts; a tenth of the budget is left for the estimate's
   * error, so no read of the measured corpus goes over it by the exact count. An integer
   * from 1000 to 4294967295, or `Infinity` for none (else `INVALID_ARGUMENT`). Default:
   * 25,000 for a toolkit (an eighth of a 200k-token context, about 2,000 lines of code);
   * none for a `ToolCatalog` context.
   * {@link maxReadTokensFor} sizes it from a context window. `maxContentBytes` still bounds
   * the bytes; the specification's functions have no token budget.
   */
  maxReadTokens?: number
  /** The tokenizer `maxReadTokens` is counted for: `'o200k_base'` (default) or `'cl100k_base'`. */
  tokenizer?: 'o200k_base' | 'cl100k_base'
  /**
   * The largest file read, in bytes: a positive safe integer, or `Infinity` for files of
   * any size (else `INVALID_ARGUMENT`). Default: `Infinity` for a toolkit (a model reads a
   * 200 MB log page by page, within {@link ToolkitOptions.maxReadTokens}); the
   * specification's {@link MAX_FILE_BYTES} (1 MiB) for a `ToolCatalog` context. A larger
   * file is `SIZE_LIMIT_EXCEEDED`, its message naming this option. A file over
   * 1 MiB is never read whole: its window is found by scanning it in 256 KiB chunks, so a
   * read costs one chunk and its output in memory; `meta` is exact. The first read of such a
   * file scans all of it; the toolkit then keeps its line index (a checkpoint every 16 KiB,
   * at most 65,536 (512 KiB) a file, for the 16 such files read last, keyed by device,
   * inode, size, mtime and ctime in ns), so a later page of the file unchanged, or a column
   * anywhere in a long line of it, reads about 32 KiB beside its window, wherever it lies.
   * Its `content` is at most 1 MiB (or `maxContentBytes`), cut as `maxContentBytes` cuts it.
   * An abort (`signal`) stops a running scan at its next chunk. Its version in the ledger hashes the file's identity and
   * times (device, inode, size, mtime and ctime in ns), not its bytes. A file that changes
   * during such a read is read once more, then rejected with `FILE_CHANGED`.
   */
  maxFileBytes?: number
  /**
   * The content one `readFiles` call returns at most, all its files together: an integer
   * from 128 to 4294967295 (else `INVALID_ARGUMENT`); default {@link MAX_BATCH_CONTENT_BYTES}
   * (4 MiB). Shared in input order: a file whose window does not fit in what is left is
   * narrowed to it (fewer lines, `truncated` and `next_start_line` right, a first line cut
   * and marked, with its `continuation`), never refused; a file that gets less than 128 bytes gets nothing, and its
   * error (`SIZE_LIMIT_EXCEEDED`) says to read it on its own. `maxContentBytes` still bounds
   * each file.
   */
  maxBatchContentBytes?: number
  /**
   * What `runToolCall` and the adapters give the model for a read: `'text'` (default) one
   * header line (`src/a.ts lines 51-53 of 120 (972 bytes)`), the lines, and, when lines are
   * left, a closing line naming the call that reads on (`[next: start_line=54]`, or for a
   * cut line `[line 1 continues at column 35 of 300; next: start_line=1 start_column=35]`,
   * its marker taken out of the lines); `'json'` the output as JSON, for harnesses that parse
   * results. Else `INVALID_ARGUMENT`. The typed output is unchanged either way.
   */
  resultFormat?: ResultFormat
  /** Whether the text numbers its lines (`51<tab>line 51`). Default `true`. */
  lineNumbers?: boolean
  /**
   * Default `false`. When `true`, a read through `runToolCall` or an adapter whose lines were
   * all given to the model before by this toolkit, from a file whose content hash (that of
   * the bytes this read saw) is unchanged since, is told as a note instead
   * (`src/a.ts lines 1-3 unchanged since your last read`, and the closing line). Lines count
   * as given once their answer is delivered, in the order answers are: of two reads of one
   * window at once, the first sends the lines. Whole lines only: a cut line or a window from
   * a column is always sent. Text only: `'json'` sends every output. Call
   * {@link AgentToolkit.forgetReads} when the model's memory of earlier reads is gone (its
   * history compacted or cut).
   */
  dedupeReads?: boolean
  /**
   * Default `true`. A model's read of a long source file from its start (no `start_line`,
   * `max_lines`, `start_column` or `pages`: a read whose first window would be cut) is
   * answered with the file's outline ({@link OutlineOutput} with `unasked: true`) when the
   * outline costs at most a quarter of the file's tokens; else with its first window as
   * before. For Rust, TypeScript/TSX, JavaScript, Python, Go, Java, C, C++, Markdown, JSON,
   * YAML and TOML files. `false`: first windows only (an outline when asked for).
   */
  outlines?: boolean
  /** Limits of {@link AgentToolkit.view}'s images, notebooks and PDFs. */
  media?: MediaLimits
}

/** What `runToolCall` and the adapters give the model for a read: text made for models, or JSON. */
export type ResultFormat = 'text' | 'json'

/** Options of one toolkit call. */
export interface CallOptions {
  /** Rejects the call at once with an `AbortError` (`code: 'ABORT_ERR'`) when it fires. */
  signal?: AbortSignal
}

/** Every tool with its definition and an executor taking the model's arguments. */
export declare const ToolCatalog: {
  readonly read_file: {
    definition: typeof TOOL_DEFINITIONS.read_file
    /**
     * `ctx.signal`, when given, aborts the read as {@link CallOptions.signal} does;
     * `defaultDeny`, `deny`, `allow` and `ignoreFiles` apply as in a toolkit, and so does
     * `start_column`.
     */
    execute(input: ToolkitReadFileInput, ctx: ToolkitOptions & CallOptions): Promise<ToolkitReadFileOutput>
  }
}

/**
 * A toolkit: one workspace root, opened once and held open until `close()` (or the end of
 * a `using` block). After `close()` every call rejects (`readFile`) or throws
 * (`readFileSync`) `INVALID_ARGUMENT` with a message saying the toolkit is closed.
 */
export interface AgentToolkit extends Disposable {
  /** The tool definition to show the model: {@link TOOLKIT_DEFINITIONS}`.read_file`. */
  readonly definition: typeof TOOLKIT_DEFINITIONS.read_file
  /**
   * The model's call of {@link AgentToolkit.definition}: `args` as the model sent them (a
   * JSON text or an object), read as {@link AgentToolkit.view} reads (text, images, notebooks,
   * PDFs: everything the definition offers) and answered as the model should see it. Never
   * rejects: a failure is a result with `isError: true`. `runToolCall(toolkit, args, options)`.
   */
  runToolCall(args: unknown, options?: RunToolCallOptions): Promise<RunToolCallResult>
  /**
   * A text read for the harness's own code, in the specification's output shape: an image or
   * a PDF is `BINARY_NOT_SUPPORTED`, a notebook its JSON. The model's calls go to
   * {@link AgentToolkit.runToolCall}. Rejects with a {@link ToolkitError}.
   */
  readFile(input: ToolkitReadFileInput, options?: CallOptions): Promise<ToolkitReadFileOutput>
  /**
   * Any file an agent meets, under the same sandbox, policy and ledger: a text file answers
   * as {@link AgentToolkit.readFile} does; a PNG, JPEG, GIF or WebP image, a Jupyter notebook
   * (nbformat 4) or a PDF, told by its content (never by its name alone), answers
   * {@link MediaOutput}: text and image parts, images made to fit {@link MediaLimits}.
   * `input.pages` picks a PDF's pages (at most 20 a call) or a notebook's cells. Code is
   * read as code: `outline`, `symbol` and `ranges` ({@link ViewInput}). Rejects with a
   * {@link ToolkitError}.
   */
  view(input: ViewInput, options?: CallOptions): Promise<ViewOutput>
  /** Throws a {@link ToolkitError}. */
  readFileSync(input: ToolkitReadFileInput): ToolkitReadFileOutput
  /**
   * `readFiles` beneath this toolkit's root, under its policy (`POLICY_DENIED` results)
   * and budget, recording every successful read in its ledger.
   */
  readFiles(
    inputs: readonly ToolkitReadFileInput[],
    options?: CallOptions,
  ): Promise<Array<ReadFilesResult<ToolkitErrorCode, ToolkitReadFileOutput>>>
  /**
   * What this toolkit's last successful read of `path` saw (any spelling of the same
   * workspace-relative path: `./src/a.ts` is `src/a.ts`), or `undefined`. The toolkit
   * remembers the 4096 files read most recently.
   */
  lastRead(path: string): FileVersion | undefined
  /**
   * Whether `path` still has the bytes its last read saw (`unchanged`), has other bytes,
   * is no longer a regular file or is over the size limit (`changed`), is gone
   * (`deleted`), or was not read by this toolkit (or was forgotten: `unread`). Compares
   * content hashes, so a same-size rewrite that restores the mtime is `changed`; for a
   * file over 1 MiB ({@link ToolkitOptions.maxFileBytes}), hashes of its identity and
   * times, which any write moves (the ctime cannot be set back).
   */
  checkFreshness(path: string): Promise<Freshness>
  /**
   * Forgets which lines the model was given ({@link ToolkitOptions.dedupeReads}): every next
   * read sends its lines. Call it when the harness compacts or cuts the model's history. Does
   * nothing without `dedupeReads`.
   */
  forgetReads(): void
  /** Releases the root handle now. Reads already running finish. Idempotent. */
  close(): void
  /** The same as `close()`. */
  [Symbol.dispose](): void
}

/**
 * A toolkit bound to one workspace root. Throws `INVALID_ARGUMENT` at once when the root
 * is not an absolute path to a directory, a `deny`/`allow` rule or an `ignoreFiles` name is
 * not valid, or an option
 * cannot be read (a throwing getter or proxy: the message names it, e.g. `options.deny`).
 * Each option is read once; a rule list is copied element by element.
 */
export declare function createAgentToolkit(options: ToolkitOptions): AgentToolkit

/** What `runToolCall` needs of a toolkit: its `view`, or (a toolkit of the caller's) its `readFile`. */
export type ToolCallToolkit =
  | { view(input: ViewInput, options?: CallOptions): Promise<ViewOutput> }
  | { readFile(input: ToolkitReadFileInput, options?: CallOptions): Promise<ToolkitReadFileOutput> }

/** Arguments of {@link AgentToolkit.view}: a toolkit read's, `pages`, and code read as code. */
export type ViewInput = ToolkitReadFileInput & {
  /**
   * A PDF's pages (`"3"`, `"3-7"`, `"3-"`; at most 20 are returned) or a notebook's cells
   * (as many as fit the content budget); `null` or absent: from the first. Ignored for other
   * files. Anything else is `INVALID_ARGUMENT`.
   */
  pages?: string | null
  /**
   * `true`: the file's outline ({@link OutlineOutput}): each definition's name path, lines
   * and first line, by tree-sitter for Rust, TypeScript/TSX, JavaScript, Python, Go, Java, C
   * and C++, by headings for Markdown, by keys for JSON, YAML and TOML, and by indentation
   * (approximate) for any other text; a page of `max_lines` definitions from `start_line`.
   * When the outline would cost more than a quarter of the file's tokens, the file's lines
   * instead (the answer's `note` says so).
   */
  outline?: boolean | null
  /**
   * A definition to read by its name: `"parse"`, `"Parser.parse"` or `"Parser::parse"`;
   * `"parse#2"` picks the second of several. One match: its lines, doc comments and
   * attributes included, as a window ({@link ToolkitReadFileOutput}); several: their list
   * ({@link OutlineOutput} of `kind: 'matches'`, at most 10); none: `NOT_FOUND` naming the
   * three nearest names.
   */
  symbol?: string | null
  /**
   * Several line ranges in one read, at most 16, like `["10-40", "120-160"]` (a range is
   * `"A-B"` or `"A"`): merged where they overlap, read under one budget
   * ({@link RangesOutput}).
   */
  ranges?: readonly string[] | null
}

/** One part of what a model is given, in order: text, or an image (base64). */
export type ModelPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'; data: string }

/**
 * One tool call's result, ready for any harness: the text for the model and the facts.
 * `isError` tells which: `if (!result.isError) result.output` needs no check of its own.
 */
export type RunToolCallResult =
  | {
      isError: false
      /**
       * What the model is given: the text ({@link ToolkitOptions.resultFormat}), the note
       * that it has these lines already ({@link ToolkitOptions.dedupeReads}), or the output
       * as JSON.
       */
      content: string
      /**
       * The same as content parts: `content` alone for a text file; for an image, a notebook
       * or a PDF its text and its images (where `content` names each image in brackets).
       */
      parts: ModelPart[]
      output: ViewOutput
      code?: undefined
    }
  | {
      isError: true
      /**
       * The error's `CODE: path: reason` message; for `POLICY_DENIED`, `OUTSIDE_WORKSPACE` and
       * `BINARY_NOT_SUPPORTED`, a second line saying what to do instead.
       */
      content: string
      parts?: undefined
      output?: undefined
      /**
       * `POLICY_DENIED` too, for a toolkit with a policy; `ABORT_ERR` when `options.signal`
       * fired first; `INTERNAL` for anything else thrown that has no code of this package.
       */
      code: ToolkitErrorCode | 'ABORT_ERR'
    }

/** Options of `runToolCall`: the signal, and the toolkit's rendering options for this call. */
export interface RunToolCallOptions extends CallOptions {
  /** Over the toolkit's {@link ToolkitOptions.resultFormat} (default `'text'`). */
  resultFormat?: ResultFormat
  /** Over the toolkit's {@link ToolkitOptions.lineNumbers} (default `true`). */
  lineNumbers?: boolean
}

/**
 * Runs one model tool call through `toolkit.readFile`: `args` as the model sent them, a JSON
 * text or an object, checked at run time (so an SDK's `unknown` goes as it is);
 * `options.signal` is passed on. Never throws: a malformed JSON text, arguments that are not
 * an object, or a malformed `resultFormat` or `lineNumbers` are an `INVALID_ARGUMENT` result.
 */
export declare function runToolCall(
  toolkit: ToolCallToolkit,
  args: unknown,
  options?: RunToolCallOptions,
): Promise<RunToolCallResult>

/** A dialect's name: the engine's list, through the binding's `DialectName`. */
export type DialectName = `${import('./binding').DialectName}`

/** Where a dialect's tool runs, that tool's own configuration, and what gives up on the call. */
export interface DialectContext {
  workspaceRoot: string
  config?: Record<string, unknown>
  /** Rejects the call with an `AbortError` (`code: 'ABORT_ERR'`) when it fires. */
  signal?: AbortSignal
}

/** Codex's answer: failures are answers too (`success: false`, the message in `content`). */
export interface CodexResult {
  success: boolean
  content: string
}

/** Forge's answer for a text file. Line numbers are `null` where unknown (a partial tail). */
export interface ForgeTextResult {
  path: string
  binary: false
  content: string
  start_line: number | null
  end_line: number | null
  total_lines: number | null
  truncated: boolean
}

/** Forge's answer for a binary file: its first bytes as base64. */
export interface ForgeBinaryResult {
  path: string
  binary: true
  base64: string
  offset: number
  byte_length: number
  truncated: boolean
}

/** AIntern's `ReadFileResultData`, with its computed properties. */
export interface AInternReadFileResultData {
  path: string
  totalLines: number
  startLine: number
  endLine: number
  linesReturned: number
  wasTruncated: boolean
  encoding: string
  fileSize: number
  lastModified: string
  remainingLines: number
  percentageRead: number
}

/** One problem AIntern's `Validate` found. */
export interface AInternValidationError {
  parameterName: string
  message: string
  code: 'REQUIRED' | 'INVALID_RANGE' | 'INVALID_TYPE'
}

/** AIntern's `ToolResult`. */
export type AInternResult =
  | { success: true; output: string; data: AInternReadFileResultData; message: string }
  | { success: false; error: string; validationErrors?: AInternValidationError[] }

/** Each dialect's answer, by dialect name. */
export interface DialectResults {
  codex: CodexResult
  forge: ForgeTextResult | ForgeBinaryResult
  aintern: AInternResult
}

/** A JSON schema as the dialects' definitions spell them. */
export interface JsonSchema {
  readonly type: string
  readonly description?: string
  readonly properties?: { readonly [name: string]: JsonSchema & { readonly default?: unknown; readonly enum?: readonly string[] } }
  readonly required?: readonly string[]
  readonly additionalProperties?: boolean
}

/**
 * Other agents' read tools over the same engine. `execute` takes the model's raw
 * arguments: an object or a JSON text.
 */
export declare const dialects: {
  readonly codex: {
    readonly definition: { readonly name: 'read_file'; readonly description: string; readonly parameters: JsonSchema }
    execute(args: unknown, ctx: DialectContext): Promise<CodexResult>
  }
  readonly forge: {
    readonly definition: { readonly name: 'Read'; readonly description: string; readonly parameters: JsonSchema }
    readonly aliases: readonly string[]
    /** Whether a tool call named `name` is this tool (`Read` or an alias). */
    accepts(name: string): boolean
    /** Rejects with an `Error` whose `code` is a {@link ReadFileErrorCode}. */
    execute(args: unknown, ctx: DialectContext): Promise<ForgeTextResult | ForgeBinaryResult>
  }
  readonly aintern: {
    readonly definition: {
      readonly id: 'file-read'
      readonly name: 'Read File'
      readonly description: string
      readonly category: 'FileSystem'
      readonly riskLevel: 'Safe'
      readonly tags: readonly string[]
      readonly inputSchema: JsonSchema
    }
    execute(args: unknown, ctx: DialectContext): Promise<AInternResult>
    validate(args: unknown): { isValid: boolean; errors: AInternValidationError[] }
    getExecutionSummary(args: unknown): string
    formatFileSize(bytes: number): string
  }
}
