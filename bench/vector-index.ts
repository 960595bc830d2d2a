/**
 * What the meaning index costs and how much it finds, at each size: build time, memory per
 * vector, the latency of nearest(k = 50) and its recall@50 against exact float cosine, for
 * exact float32 brute force (the baseline), int8 brute force, and src/meaning/vector-index.ts
 * (sign-bit candidates rescored in int8) at a few candidate counts. Prints a Markdown table.
 *
 *   node --import tsx bench/vector-index.ts [--dims 512,384] [--sizes 1000,10000,100000] [--queries 200]
 *
 * The vectors are synthetic but shaped like sentence embeddings (test/helpers/vectors.ts:
 * clustered, anisotropic, with a common offset); each query is a perturbed copy of a stored
 * vector, as a question is near the fact that answers it. Every design answers the same queries
 * in the same run; latency is measured after 20 warm-up queries.
 */
import {parseArgs} from 'node:util'

import {VectorIndex, type SearchOptions} from '../src/meaning/vector-index.js'
import {SyntheticVectors} from '../test/helpers/vectors.js'

const {values: args} = parseArgs({
  options: {
    dims: {type: 'string', default: '512,384'},
    sizes: {type: 'string', default: '1000,10000,100000'},
    queries: {type: 'string', default: '200'},
  },
})
const K = 50
const WARMUP = 20
const numbers = (text: string) => text.split(',').map(Number)

/** One design under test: built from the vectors, then asked for the nearest ids. */
interface Design {
  name: string
  build(ids: readonly string[], vectors: readonly Float32Array[]): void
  nearest(query: Float32Array): string[]
  bytesPerVector: number
}

/** Exact cosine over float32 slabs, the k best kept by insertion: the baseline and the truth. */
function floatBruteForce(dims: number): Design {
  let slab = new Float32Array(0)
  let ids: readonly string[] = []
  return {
    name: 'float32 brute force',
    bytesPerVector: 4 * dims + 40,
    build(names, vectors) {
      ids = names
      slab = new Float32Array(vectors.length * dims)
      vectors.forEach((v, i) => slab.set(v, i * dims))
    },
    nearest(query) {
      const scores: number[] = []
      const slots: number[] = []
      for (let slot = 0, base = 0; slot < ids.length; slot++, base += dims) {
        let s = 0
        for (let i = 0; i < dims; i++) s += query[i]! * slab[base + i]!
        if (scores.length === K && s <= scores[K - 1]!) continue
        let at = scores.length
        while (at > 0 && s > scores[at - 1]!) at--
        scores.splice(at, 0, s)
        slots.splice(at, 0, slot)
        if (scores.length <= K) continue
        scores.pop()
        slots.pop()
      }
      return slots.map((slot) => ids[slot]!)
    },
  }
}

function indexDesign(name: string, dims: number, options: Partial<SearchOptions>): Design {
  let index = new VectorIndex(dims, options)
  return {
    name,
    get bytesPerVector() {
      return index.bytesPerVector
    },
    build(ids, vectors) {
      index = new VectorIndex(dims, options)
      vectors.forEach((v, i) => index.add(ids[i]!, v))
    },
    nearest: (query) => index.nearest(query, K).map((hit) => hit.id),
  }
}

const ALL = Number.MAX_SAFE_INTEGER

function designs(dims: number): Design[] {
  return [
    floatBruteForce(dims),
    indexDesign('int8 brute force', dims, {candidates: ALL}),
    indexDesign(`all ${dims} bits → 1000, int8`, dims, {prefilter: ALL}),
    indexDesign('128 bits → 5000, all bits → 1000, int8', dims, {prefilter: 5}),
    indexDesign('128 bits → 10000, all bits → 500, int8', dims, {candidates: 500, oversample: 10}),
    indexDesign('128 bits → 10000, all bits → 1000, int8 (chosen)', dims, {}),
    indexDesign('128 bits → 20000, all bits → 2000, int8', dims, {candidates: 2000, oversample: 40}),
  ]
}

interface Row {
  dims: number
  size: number
  name: string
  buildMs: number
  bytes: number
  p50: number
  p95: number
  recall: number
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function measure(dims: number, size: number, queryCount: number): Row[] {
  const source = new SyntheticVectors(dims, dims * 7 + size)
  const vectors = source.vectors(size)
  const ids = vectors.map((_, i) => `F${String(i).padStart(9, '0')}`)
  const queries = Array.from({length: queryCount + WARMUP}, (_, i) => source.near(vectors[(i * 7919) % size]!, 1))
  let truth: string[][] = []
  return designs(dims).map((design, n) => {
    const started = performance.now()
    design.build(ids, vectors)
    const buildMs = performance.now() - started
    const times: number[] = []
    const answers = queries.map((q, i) => {
      const t = performance.now()
      const got = design.nearest(q)
      if (i >= WARMUP) times.push(performance.now() - t)
      return got
    })
    if (n === 0) truth = answers
    let found = 0
    answers.forEach((got, i) => {
      const want = new Set(truth[i])
      for (const id of got) if (want.has(id)) found++
    })
    times.sort((a, b) => a - b)
    return {
      dims,
      size,
      name: design.name,
      buildMs,
      bytes: design.bytesPerVector,
      p50: quantile(times, 0.5),
      p95: quantile(times, 0.95),
      recall: found / (K * queries.length),
    }
  })
}

function table(rows: readonly Row[]): string {
  const lines = [
    '| dims | vectors | design | build ms | bytes/vector | p50 ms | p95 ms | p50 vs float | recall@50 |',
    '| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    const base = rows.find((r) => r.dims === row.dims && r.size === row.size)!
    lines.push(
      `| ${row.dims} | ${row.size.toLocaleString('en')} | ${row.name} | ${row.buildMs.toFixed(0)} | ${row.bytes} | ` +
        `${row.p50.toFixed(2)} | ${row.p95.toFixed(2)} | ${(row.p50 / base.p50).toFixed(3)}× | ${row.recall.toFixed(3)} |`,
    )
  }
  return lines.join('\n')
}

const rows: Row[] = []
for (const dims of numbers(args.dims)) {
  for (const size of numbers(args.sizes)) {
    const got = measure(dims, size, Number(args.queries))
    for (const row of got)
      console.error(`${dims} ${size} ${row.name}: p50 ${row.p50.toFixed(2)} ms, recall ${row.recall.toFixed(3)}`)
    rows.push(...got)
  }
}
console.log(table(rows))
