// One import surface for both runners: `node --test` (node:test) and `bun test` (bun:test).
// Assertions come from node:assert/strict, which both runtimes provide.
const runner = typeof Bun !== 'undefined' ? await import('bun:test') : await import('node:test')

export const test = runner.test
export const describe = runner.describe
export const before = runner.before ?? runner.beforeAll
export const after = runner.after ?? runner.afterAll

/** `test` with a timeout of `ms` (node:test takes it as an option, bun:test as an argument). */
export function slowTest(name, ms, fn) {
  return typeof Bun !== 'undefined' ? runner.test(name, fn, ms) : runner.test(name, { timeout: ms }, fn)
}
