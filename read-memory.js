'use strict'
// What a model was given of each file, for a toolkit made with `dedupeReads`: the lines, as
// spans of whole lines, and the content hash of the version they came from. A window all of
// whose lines it holds for the same hash need not be sent again.

/** The most files remembered; the one given least recently goes first (as the ledger's 4096). */
const MAX_FILES = 4096

class ReadMemory {
  /** path -> { hash, spans: [first, last][] sorted and disjoint }, in order of last use. */
  #files = new Map()

  /** Whether lines `first`..`last` of `path`, at version `hash`, were all given. */
  covers(path, hash, first, last) {
    const file = this.#files.get(path)
    if (file === undefined || file.hash !== hash) return false
    return file.spans.some(([from, to]) => from <= first && last <= to)
  }

  /**
   * Records that lines `first`..`last` of `path` were given at version `hash`; lines given of
   * another version are dropped, since the model's copy of them is stale.
   */
  remember(path, hash, first, last) {
    const known = this.#files.get(path)
    const spans = known !== undefined && known.hash === hash ? known.spans : []
    this.#files.delete(path)
    this.#files.set(path, { hash, spans: merged([...spans, [first, last]]) })
    if (this.#files.size > MAX_FILES) this.#files.delete(this.#files.keys().next().value)
  }

  /** Forgets everything given: the next read of any window sends its lines. */
  forget() {
    this.#files.clear()
  }
}

/** `spans` sorted, with overlapping or adjacent spans joined. */
function merged(spans) {
  const sorted = spans.sort((a, b) => a[0] - b[0])
  const joined = []
  for (const [from, to] of sorted) {
    const last = joined.at(-1)
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to)
    else joined.push([from, to])
  }
  return joined
}

module.exports = { ReadMemory }
