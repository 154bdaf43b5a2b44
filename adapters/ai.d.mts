// `agent-read-file/ai` as an ES module: the same declarations.
export { readFileTool, type ReadFileToolOptions, type ReadFileToolToolkit } from './ai.js'
