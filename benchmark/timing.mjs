// Timing for the benchmarks that alternate sides in one process (bench.mjs, model-read.mjs):
// each side warmed up, then timed in alternating batches of about BATCH_MS, so drift (thermal,
// other load) falls on every side alike; a side's summary is the median of its batches' per-call
// times and their interquartile range.

/** Target duration of one batch (one sample). */
export const BATCH_MS = 10
const MIN_SAMPLES = 15

/** What the timed calls returned, kept so that no call is optimised away. */
export let sink = 0

/** µs per call of `batch` calls of `fn`, awaited one after the other. */
export async function timeAsync(fn, batch) {
  const t0 = performance.now()
  for (let i = 0; i < batch; i++) {
    try {
      const out = await fn()
      sink += out.length ?? 1
    } catch {
      sink += 1
    }
  }
  return ((performance.now() - t0) * 1000) / batch
}

/** µs per call of `batch` calls of `fn`, synchronous; returned as a promise for symmetry. */
export async function timeSync(fn, batch) {
  const t0 = performance.now()
  for (let i = 0; i < batch; i++) {
    try {
      const out = fn()
      sink += out.length ?? 1
    } catch {
      sink += 1
    }
  }
  return ((performance.now() - t0) * 1000) / batch
}

function quantile(sorted, q) {
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

/** The median, interquartile range (% of the median), extremes and counts of `samples`. */
export function summarize(samples, batch) {
  const sorted = [...samples].sort((a, b) => a - b)
  const median = quantile(sorted, 0.5)
  const iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25)
  return {
    median_us: median,
    iqr_pct: (iqr / median) * 100,
    min_us: sorted[0],
    max_us: sorted[sorted.length - 1],
    samples: sorted.length,
    calls_per_sample: batch,
  }
}

/** Runs `fn` for about `ms` and returns the batch size that lasts about BATCH_MS. */
async function warmUp(timer, fn, ms) {
  const until = performance.now() + ms
  let batch = 1
  let perCallUs = 0
  while (performance.now() < until) {
    // The last (largest, warmest) batch sets the batch size.
    perCallUs = await timer(fn, batch)
    batch = Math.min(batch * 2, 1 << 16)
  }
  return Math.max(1, Math.round((BATCH_MS * 1000) / perCallUs))
}

/**
 * Measures several sides of one case with alternating batches, each side warmed up for
 * `warmupMs` and timed for at least `budgetMs`. Returns one summary per side.
 */
export async function measure(timer, sides, { budgetMs, warmupMs }) {
  const batches = []
  for (const fn of sides) batches.push(await warmUp(timer, fn, warmupMs))
  const samples = sides.map(() => [])
  const spent = sides.map(() => 0)
  while (spent.some((s) => s < budgetMs) || samples.some((s) => s.length < MIN_SAMPLES)) {
    for (let i = 0; i < sides.length; i++) {
      const t0 = performance.now()
      samples[i].push(await timer(sides[i], batches[i]))
      spent[i] += performance.now() - t0
    }
  }
  return sides.map((_, i) => summarize(samples[i], batches[i]))
}

/**
 * The floor of a read of `file`, the same file opened, `fstat`ed, read and closed in a Rust
 * loop with no Node-API per read (`readFloorNs`, the addon's test hook): the summary of
 * `samples` runs of about BATCH_MS, in µs a read.
 */
export function floorUs(readFloorNs, file, samples = 15) {
  const perRun = Math.max(1, Math.round((BATCH_MS * 1000) / (readFloorNs(file, 200) / 1000)))
  const runs = Array.from({ length: samples }, () => readFloorNs(file, perRun) / 1000)
  return summarize(runs, perRun)
}
