// One import surface for both runners: `node --test` (node:test) and `bun test` (bun:test).
// Assertions come from node:assert/strict, which both runtimes provide.
const runner = typeof Bun !== 'undefined' ? await import('bun:test') : await import('node:test')

export const test = runner.test
export const describe = runner.describe
export const before = runner.before ?? runner.beforeAll
export const after = runner.after ?? runner.afterAll
