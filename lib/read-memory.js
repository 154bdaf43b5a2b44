'use strict'
// What a model was given of each file, for a toolkit made with `dedupeReads`: the lines, as
// spans of whole lines, and the content hash of the version they came from. A window all of
// whose lines it holds for the same hash need not be sent again.

/** The most files remembered; the one given least recently goes first (as the ledger's 4096). */
const MAX_FILES = 4096

class ReadMemory {
  /** path -> { hash, spans: [first, last][] sorted and disjoint }, in order of last use. */
  #files = new Map()

  /** The reads under way: ticket -> { names: the file names asked for, clash }. */
  #inFlight = new Map()

  #tickets = 0

  /** Outputs of reads that ran beside another read of a file of the same name. */
  #unsure = new WeakSet()

  /**
   * A read of `paths` (as asked for; `undefined` when unknown: a batch that could not be
   * looked at) begins; its ticket for `end`. The hash a window is remembered by is the
   * ledger's last read of its path: two reads of one file at once, across a rewrite that
   * keeps its size and mtime, could each find the other's, so both are left unsure.
   */
  begin(paths) {
    const read = { names: paths === undefined ? ANY : new Set(paths.map(fileName)), clash: false }
    for (const other of this.#inFlight.values()) {
      if (overlap(other.names, read.names)) other.clash = read.clash = true
    }
    this.#tickets += 1
    this.#inFlight.set(this.#tickets, read)
    return this.#tickets
  }

  /**
   * The read `ticket` ended with `outputs` (a batch's failed entries have none): if it ran
   * beside a read of the same name, they are unsure.
   */
  end(ticket, outputs) {
    const read = this.#inFlight.get(ticket)
    this.#inFlight.delete(ticket)
    if (!read?.clash) return
    for (const output of outputs) if (typeof output === 'object' && output !== null) this.#unsure.add(output)
  }

  /** Whether `output` came from a read that ran beside another read of a file of the same name. */
  isUnsure(output) {
    return typeof output === 'object' && output !== null && this.#unsure.has(output)
  }

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

/** A read whose names are unknown: it may read any file. */
const ANY = 'any'

/** The file name a requested path ends in, lower-cased (a volume may ignore case). */
function fileName(path) {
  return typeof path === 'string' ? path.replace(/[\\/]+$/, '').split(/[\\/]/).pop().toLowerCase() : ''
}

/** Whether two reads' names may be the same file. */
function overlap(names, others) {
  if (names === ANY || others === ANY) return true
  for (const name of names) if (others.has(name)) return true
  return false
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
