/**
 * `agent-read-file/ai`: the read_file tool for the Vercel AI SDK (`ai` >= 5).
 */
import type { Tool } from 'ai'
import type { AgentToolkit, MediaOutput, ToolkitOptions, ToolkitReadFileOutput, ViewInput } from '../index'

/** The toolkit options `createAgentToolkit` takes. */
export type ReadFileToolOptions = ToolkitOptions

/** A toolkit from `createAgentToolkit`. */
export type ReadFileToolToolkit = AgentToolkit

/**
 * The read_file tool: the toolkit's definition (`TOOLKIT_DEFINITIONS.read_file`, `start_column`
 * and `pages` included) and typed input (`ViewInput`), `execute` through the toolkit's `view`
 * (made from the options when options are given), the SDK's abort signal honoured. `execute`
 * returns the typed output; an image, a notebook or a PDF is given to the model as the SDK's
 * content parts (text and images); text is given the toolkit's text through `toModelOutput`
 * (`ToolkitOptions.resultFormat`, `lineNumbers`, `dedupeReads`), or the output as JSON with
 * `resultFormat: 'json'`. A failed read is a tool error: the model is told `CODE: path: reason` (what `runToolCall` and the MCP server
 * give, on every major of the SDK), the application finds `code` on the step's `tool-error`
 * error.
 */
export declare function readFileTool(toolkitOrOptions: ReadFileToolOptions | ReadFileToolToolkit): Tool<ViewInput, ToolkitReadFileOutput | MediaOutput>
