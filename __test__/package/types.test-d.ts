// Compile-time test (`tsc -p __test__`): the declared types are the specification's shapes.
// Each `Expect<Equal<...>>` fails to compile when the two types differ in any way.
import type {
  AInternValidationError,
  DialectName,
  DialectResults,
  ReadFileErrorCode,
  ReadFileInput,
  ReadFileMeta,
  ReadFileOutput,
} from '../../index.js'
import * as pkg from '../../index.js'
import * as binding from '../../binding.js'

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false
type Expect<T extends true> = T

// §4.1 and §4.2 of the specification, copied.
type SpecInput = {
  path: string
  start_line?: number
  max_lines?: number
}
type SpecOutput = {
  path: string
  content: string
  truncated: boolean
  next_start_line: number | null
  meta: {
    byte_length: number
    line_count: number
    returned_line_count: number
    mtime_ms: number
  }
}
type SpecCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'NOT_FILE'
  | 'BINARY_NOT_SUPPORTED'
  | 'SIZE_LIMIT_EXCEEDED'
  | 'OUTSIDE_WORKSPACE'
  | 'PERMISSION_DENIED'
  | 'INTERNAL'

// §4.4, with `as const`.
const READ_FILE_DEFINITION = {
  name: 'read_file',
  description: 'Reads a UTF-8 text file in the workspace and returns a line-limited content window.',
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'Workspace-root-relative file path to read (e.g., "src/main.ts").',
      },
      start_line: {
        type: 'number',
        default: 1,
        description: '1-based start line of the returned window (default: 1).',
      },
      max_lines: {
        type: 'number',
        default: 200,
        description: 'Maximum number of lines to return (default: 200).',
      },
    },
    required: ['path'],
  },
} as const

// What a toolkit adds to the specification's input and output (issue 19 §2), written out.
// Issue 20 §2: a toolkit takes `null` for any number not given, and says when it capped max_lines.
type ToolkitInput = {
  path: string
  start_line?: number | null
  max_lines?: number | null
  start_column?: number | null
}
type ToolkitOutput = SpecOutput & {
  continuation?: { start_line: number; start_column: number }
  cut_line_bytes?: number
  note?: string
}

// The toolkit's definition: the specification's, one sentence more, its numbers as nullable
// integers with their bounds, and start_column.
type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

const TOOLKIT_READ_FILE_DEFINITION = {
  name: 'read_file',
  description:
    'Reads a UTF-8 text file in the workspace and returns a line-limited content window. A line too long to return whole is cut, and a marker line says how to read the rest. Also reads images (PNG, JPEG, GIF, WebP), Jupyter notebooks and PDFs.',
  parameters: {
    type: 'object',
    properties: {
      path: READ_FILE_DEFINITION.parameters.properties.path,
      start_line: {
        type: ['integer', 'null'],
        default: 1,
        description: '1-based start line of the returned window (default: 1). Negative counts from the end: -50 reads the last 50 lines.',
      },
      max_lines: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 500,
        default: 200,
        description: 'Maximum number of lines to return, at most 500 (default: 200).',
      },
      start_column: {
        type: ['integer', 'null'],
        minimum: 1,
        default: 1,
        description:
          "1-based column (in UTF-8 bytes) of start_line to start from; set it only as a cut line's marker says, to read the rest of that line (default: 1).",
      },
      pages: {
        type: ['string', 'null'],
        description: 'PDF pages to read, like "3" or "3-7" (at most 20), or a notebook\'s cells; omit for other files.',
      },
      outline: {
        type: ['boolean', 'null'],
        description: "true: the file's outline (its definitions and their lines) instead of its text.",
      },
      symbol: {
        type: ['string', 'null'],
        description: 'A definition to read by its name, like "Parser.parse".',
      },
      ranges: {
        type: ['array', 'null'],
        items: { type: 'string' },
        maxItems: 16,
        description: 'Line ranges to read in one call, like ["10-40", "120-160"].',
      },
    },
    required: ['path'],
  },
} as const

/** Structural view, so an interface and the literal type it spells compare equal. */
type Deep<T> = T extends object ? { [K in keyof T]: Deep<T[K]> } : T

type Toolkit = ReturnType<typeof pkg.createAgentToolkit>

export type Checks = [
  Expect<Equal<ReadFileInput, SpecInput>>,
  Expect<Equal<Deep<ReadFileOutput>, Deep<SpecOutput>>>,
  Expect<Equal<ReadFileMeta, SpecOutput['meta']>>,
  Expect<Equal<ReadFileErrorCode, SpecCode>>,
  Expect<Equal<typeof pkg.TOOL_DEFINITIONS.read_file, typeof READ_FILE_DEFINITION>>,
  Expect<Equal<typeof pkg.MAX_FILE_BYTES, number>>,
  Expect<
    Equal<
      typeof pkg.readFile,
      (workspaceRoot: string, input: SpecInput, signal?: AbortSignal) => Promise<SpecOutput>
    >
  >,
  Expect<Equal<typeof pkg.readFileSync, (workspaceRoot: string, input: SpecInput) => SpecOutput>>,
  Expect<Equal<Deep<pkg.ToolkitReadFileInput>, Deep<ToolkitInput>>>,
  Expect<Equal<Deep<pkg.ToolkitReadFileOutput>, Deep<ToolkitOutput>>>,
  Expect<Equal<typeof pkg.TOOLKIT_DEFINITIONS.read_file, typeof TOOLKIT_READ_FILE_DEFINITION>>,
  Expect<Equal<Toolkit['definition'], typeof TOOLKIT_READ_FILE_DEFINITION>>,
  Expect<
    Equal<
      Toolkit['readFile'],
      (input: pkg.ToolkitReadFileInput, options?: { signal?: AbortSignal }) => Promise<pkg.ToolkitReadFileOutput>
    >
  >,
  Expect<
    Equal<
      typeof pkg.ToolCatalog.read_file.execute,
      (
        input: pkg.ToolkitReadFileInput,
        ctx: pkg.ToolkitOptions & { signal?: AbortSignal },
      ) => Promise<pkg.ToolkitReadFileOutput>
    >
  >,
  Expect<Equal<Toolkit['readFileSync'], (input: pkg.ToolkitReadFileInput) => pkg.ToolkitReadFileOutput>>,
  Expect<Equal<ReturnType<typeof pkg.createAgentToolkit>['close'], () => void>>,
  Expect<Equal<ReturnType<typeof pkg.createAgentToolkit>[typeof Symbol.dispose], () => void>>,
  Expect<Equal<typeof pkg.isReadFileError, (error: unknown) => error is pkg.ReadFileError>>,
  Expect<Equal<pkg.ReadFileError['code'], SpecCode>>,
  Expect<
    Equal<pkg.ToolkitErrorCode, SpecCode | 'POLICY_DENIED' | 'FILE_CHANGED' | 'INVALID_MEDIA' | 'IMAGE_TOO_LARGE' | 'PDF_ENCRYPTED'>
  >,
  Expect<
    Equal<
      Toolkit['view'],
      (
        input: pkg.ToolkitReadFileInput & {
          pages?: string | null
          outline?: boolean | null
          symbol?: string | null
          ranges?: readonly string[] | null
        },
        options?: { signal?: AbortSignal },
      ) => Promise<pkg.ToolkitReadFileOutput | pkg.MediaOutput | pkg.OutlineOutput | pkg.RangesOutput>
    >
  >,
  Expect<
    Equal<
      Deep<pkg.OutlineOutput>,
      {
        path: string
        kind: 'outline' | 'matches'
        language: string
        source: 'grammar' | 'headings' | 'keys' | 'indentation'
        definitions: Array<{
          name: string
          name_path: string
          symbol: string
          kind: string
          start_line: number
          end_line: number
          depth: number
          signature: string
        }>
        total_definitions: number
        truncated: boolean
        next_start_line: number | null
        meta: { byte_length: number; line_count: number; mtime_ms: number }
        unasked: boolean
        symbol?: string
      }
    >
  >,
  Expect<
    Equal<
      Deep<pkg.RangesOutput>,
      {
        path: string
        kind: 'ranges'
        ranges: Array<{ start_line: number; end_line: number; content: string }>
        truncated: boolean
        next_ranges: Array<string> | null
        meta: { byte_length: number; line_count: number; mtime_ms: number }
      }
    >
  >,
  Expect<
    Equal<
      Deep<pkg.MediaOutput>,
      {
        path: string
        kind: 'image' | 'notebook' | 'pdf'
        parts: Array<
          | { type: 'text'; text: string }
          | {
              type: 'image'
              mimeType: ImageType
              data: string
              width: number
              height: number
              source: { mimeType: ImageType; width: number; height: number; bytes: number }
            }
        >
        meta: {
          byte_length: number
          mtime_ms: number
          shown?: { first: number; last: number; total: number }
          images_left_out: number
        }
      }
    >
  >,
  Expect<
    Equal<
      Extract<pkg.RunToolCallResult, { isError: false }>['parts'],
      Array<{ type: 'text'; text: string } | { type: 'image'; mimeType: ImageType; data: string }>
    >
  >,
  Expect<Equal<typeof pkg.MAX_BATCH_FILES, number>>,
  Expect<Equal<typeof pkg.MAX_BATCH_CONTENT_BYTES, number>>,
  Expect<
    Equal<
      typeof pkg.readFiles,
      (
        workspaceRoot: string,
        inputs: readonly SpecInput[],
        signal?: AbortSignal,
      ) => Promise<Array<{ ok: true; output: SpecOutput } | { ok: false; error: { code: SpecCode; message: string } }>>
    >
  >,
  Expect<
    Equal<
      Toolkit['readFiles'],
      (
        inputs: readonly pkg.ToolkitReadFileInput[],
        options?: { signal?: AbortSignal },
      ) => Promise<
        Array<
          | { ok: true; output: pkg.ToolkitReadFileOutput }
          | { ok: false; error: { code: pkg.ToolkitErrorCode; message: string } }
        >
      >
    >
  >,
  Expect<
    Equal<
      pkg.FileVersion,
      {
        path: string
        hash: string
        byte_length: number
        mtime_ms: number
        line_ending: 'lf' | 'crlf' | 'mixed' | 'none'
        bom: boolean
        valid_utf8: boolean
      }
    >
  >,
  Expect<
    Equal<typeof pkg.fileVersion, (workspaceRoot: string, path: string, signal?: AbortSignal) => Promise<pkg.FileVersion>>
  >,
  Expect<Equal<ReturnType<typeof pkg.createAgentToolkit>['lastRead'], (path: string) => pkg.FileVersion | undefined>>,
  Expect<
    Equal<
      ReturnType<typeof pkg.createAgentToolkit>['checkFreshness'],
      (path: string) => Promise<'unchanged' | 'changed' | 'deleted' | 'unread'>
    >
  >,
  Expect<Equal<typeof pkg.isToolkitError, (error: unknown) => error is pkg.ToolkitError>>,
  Expect<Equal<typeof pkg.DEFAULT_DENY, readonly string[]>>,
  Expect<Equal<typeof pkg.IGNORE_FILES, readonly string[]>>,
  Expect<
    Equal<
      pkg.ToolkitOptions,
      {
        workspaceRoot: string
        defaultDeny?: boolean
        deny?: readonly string[]
        allow?: readonly string[]
        ignoreFiles?: boolean | readonly string[]
        maxContentBytes?: number
        maxReadTokens?: number
        tokenizer?: 'o200k_base' | 'cl100k_base'
        maxFileBytes?: number
        maxBatchContentBytes?: number
        resultFormat?: 'text' | 'json'
        lineNumbers?: boolean
        dedupeReads?: boolean
        outlines?: boolean
        media?: {
          maxFileBytes?: number
          maxImageEdge?: number
          maxImagePixels?: number
          maxImageBytes?: number
          maxImages?: number
        }
      }
    >
  >,
  Expect<Equal<ReturnType<typeof pkg.createAgentToolkit>['forgetReads'], () => void>>,
  Expect<Equal<typeof pkg.estimateTokens, (text: string, tokenizer?: 'o200k_base' | 'cl100k_base') => number>>,
  Expect<Equal<typeof pkg.maxReadTokensFor, (contextTokens: number) => number>>,
  Expect<Equal<NonNullable<Parameters<typeof pkg.runToolCall>[2]>, pkg.RunToolCallOptions>>,
  Expect<Equal<keyof pkg.RunToolCallOptions, 'signal' | 'resultFormat' | 'lineNumbers'>>,
  Expect<Equal<pkg.RunToolCallOptions['resultFormat'], 'text' | 'json' | undefined>>,
  Expect<Equal<pkg.RunToolCallOptions['lineNumbers'], boolean | undefined>>,
  Expect<Equal<typeof pkg.ToolCatalog.read_file.definition, typeof READ_FILE_DEFINITION>>,
  // The generated binding declares the same functions the hand-written index does.
  Expect<Equal<typeof binding.readFile, typeof pkg.readFile>>,
  Expect<Equal<typeof binding.readFileSync, typeof pkg.readFileSync>>,
  // The dialect names come from the binding; every typed list of dialects has exactly them.
  Expect<Equal<DialectName, 'codex' | 'forge' | 'aintern'>>,
  Expect<Equal<ReturnType<typeof binding.dialectNames>, DialectName[]>>,
  Expect<Equal<keyof DialectResults, DialectName>>,
  Expect<Equal<keyof typeof pkg.dialects, DialectName>>,
  // The binding's dialect functions are typed as precisely as the package's (no any).
  Expect<Equal<ReturnType<typeof binding.ainternValidate>, AInternValidationError[]>>,
  Expect<Equal<ReturnType<typeof pkg.dialects.aintern.validate>['errors'], AInternValidationError[]>>,
  Expect<
    Equal<
      ReturnType<typeof binding.executeDialect<'codex'>>,
      ReturnType<typeof pkg.dialects.codex.execute>
    >
  >,
  Expect<
    Equal<
      ReturnType<typeof binding.executeDialect<'forge'>>,
      ReturnType<typeof pkg.dialects.forge.execute>
    >
  >,
  Expect<
    Equal<
      ReturnType<typeof binding.executeDialect<'aintern'>>,
      ReturnType<typeof pkg.dialects.aintern.execute>
    >
  >,
]

// What the package does not accept.
// @ts-expect-error path is required
pkg.readFileSync('/ws', {})
// @ts-expect-error start_line is a number
pkg.readFileSync('/ws', { path: 'a', start_line: '1' })

// The dialects are typed as their answers are shaped.
async function dialectTypes() {
  const ctx = { workspaceRoot: '/ws' }
  const codex = await pkg.dialects.codex.execute({ file_path: '/ws/a' }, ctx)
  const ok: boolean = codex.success
  const forge = await pkg.dialects.forge.execute('{"path":"a"}', ctx)
  const text: string = forge.binary ? forge.base64 : forge.content
  const aintern = await pkg.dialects.aintern.execute({ path: 'a' }, ctx)
  const lines: number = aintern.success ? aintern.data.totalLines : 0
  // @ts-expect-error the context needs a workspace root
  await pkg.dialects.codex.execute({}, {})
  // @ts-expect-error no such dialect
  await binding.executeDialect('claude', {}, ctx)
  return [ok, text, lines]
}
void dialectTypes

// A toolkit is disposable, and an error narrows to its code.
function toolkitTypes(e: unknown) {
  using toolkit = pkg.createAgentToolkit({ workspaceRoot: '/ws' })
  const out: SpecOutput = toolkit.readFileSync({ path: 'a' })
  // @ts-expect-error the options of a call are an object
  void toolkit.readFile({ path: 'a' }, 'signal')
  using obeying = pkg.createAgentToolkit({ workspaceRoot: '/ws', defaultDeny: false, ignoreFiles: ['.aiignore'] })
  // @ts-expect-error defaultDeny is a boolean, not a rule list
  void pkg.createAgentToolkit({ workspaceRoot: '/ws', defaultDeny: [] })
  // @ts-expect-error ignoreFiles is a boolean or a list of names
  void pkg.createAgentToolkit({ workspaceRoot: '/ws', ignoreFiles: '.aiignore' })
  void obeying
  const code: SpecCode | undefined = pkg.isReadFileError(e) ? e.code : undefined
  return [out, code]
}
void toolkitTypes

// A toolkit reads on in a cut line; the bare read takes the specification's input only.
function continuationTypes() {
  using toolkit = pkg.createAgentToolkit({ workspaceRoot: '/ws', maxContentBytes: 4096 })
  const first = toolkit.readFileSync({ path: 'a', start_column: null })
  const next = first.continuation
  const column: number | undefined = next?.start_column
  const rest = next ? toolkit.readFileSync({ path: 'a', ...next }) : first
  // @ts-expect-error start_column is a number
  toolkit.readFileSync({ path: 'a', start_column: '2' })
  // @ts-expect-error the specification's readFileSync has no start_column
  pkg.readFileSync('/ws', { path: 'a', start_column: 2 })
  // @ts-expect-error the specification's output has no continuation
  void pkg.readFileSync('/ws', { path: 'a' }).continuation
  return [column, rest]
}
void continuationTypes
