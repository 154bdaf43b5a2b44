// Finished steps for the AI SDK's mock language models, in each major's shape: what
// ai-sdk.test.mjs and media-parts.test.mjs hand `MockLanguageModelV2/V3/V4` as `doGenerate`.

/** A finished step in LanguageModelV2's shape (ai@5). */
export function v2Step(content, finishReason) {
  return { content, finishReason, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] }
}

/** A finished step in LanguageModelV3's and V4's shape (ai@6, ai@7). */
export function v3Step(content, finishReason) {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  }
  return { content, finishReason: { unified: finishReason, raw: undefined }, usage, warnings: [] }
}
