/**
 * Rough speed and memory of mem's search index on synthetic facts (no LoCoMo data needed):
 * `node --expose-gc --import tsx bench/locomo/search-speed.ts [facts=100000] [queries=2000] [jsonFacts=10000]`
 *
 * Measures: indexing time and heap, search latency (wall and CPU), the cost of one more add,
 * and, for a smaller index, loading the persisted index (the compact form the CLI saves,
 * FactIndex.fromCompact) against rebuilding it.
 *
 * Facts are 6-30 words drawn from a Zipf-distributed vocabulary of 50,000 made-up words mixed
 * with English stopwords, so a few terms are in most facts and most are rare, as in real text.
 * They are saved in sittings of a few facts minutes apart, half of the sittings as a thread (a
 * conversation), so neighbour context has work to do, and half as standalone facts.
 */
import {FactIndex, type IndexedFact} from '../../src/search/fact-index.js'

const N = Number(process.argv[2] ?? 100_000)
const Q = Number(process.argv[3] ?? 2000)
const J = Number(process.argv[4] ?? 10_000)

// Deterministic PRNG so runs are comparable.
let seed = 42
function rand(): number {
  seed = (seed * 1664525 + 1013904223) >>> 0
  return seed / 2 ** 32
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tas',
  'vor',
  'el',
  'dun',
  'ship',
  'ing',
  'ed',
  'er',
  'pa',
  'tri',
  'gon',
  'sal',
  'ux',
  'be',
  'ny',
  'ord',
]
const VOCAB = Array.from({length: 50_000}, (_, i) => {
  let w = ''
  for (let x = i + 1, n = 0; x > 0 || n < 2; x = Math.floor(x / SYLLABLES.length), n++)
    w += SYLLABLES[x % SYLLABLES.length]
  return w
})
const FUNCTION_WORDS = ['the', 'a', 'of', 'and', 'to', 'in', 'is', 'it', 'that', 'was', 'for', 'on', 'with', 'my', 'we']
// Zipf (s = 1) by inverse transform over harmonic numbers, approximated with logs.
function zipfWord(): string {
  const r = Math.floor(Math.exp(rand() * Math.log(VOCAB.length))) - 1
  return VOCAB[Math.min(VOCAB.length - 1, Math.max(0, r))]!
}
function sentence(min: number, max: number): string {
  const n = min + Math.floor(rand() * (max - min + 1))
  const words: string[] = []
  for (let i = 0; i < n; i++)
    words.push(rand() < 0.35 ? FUNCTION_WORDS[Math.floor(rand() * FUNCTION_WORDS.length)]! : zipfWord())
  return words.join(' ')
}

function facts(n: number): IndexedFact[] {
  const out: IndexedFact[] = []
  let time = Date.UTC(2024, 0, 1)
  let sitting = 0
  for (let i = 0; i < n; i++) {
    // Sittings: usually a minute or two apart, sometimes a day later.
    if (rand() < 0.1) {
      time += 86_400_000
      sitting++
    } else {
      time += 60_000 + Math.floor(rand() * 120_000)
    }
    const tags = rand() < 0.3 ? [`t${Math.floor(rand() * 20)}`] : []
    out.push({
      id: `F${String(i).padStart(9, '0')}`,
      content: sentence(6, 30),
      tags,
      created_at: new Date(time).toISOString(),
      ...(sitting % 2 === 0 ? {thread: `s${sitting}`} : {}),
    })
  }
  return out
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

function heapMiB(): number {
  globalThis.gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}

const all = facts(Math.max(N, J))
const data = all.slice(0, N)
const heapBefore = heapMiB()
let t = performance.now()
const index = new FactIndex()
for (const f of data) index.add(f)
const buildMs = performance.now() - t
const heapAfter = heapMiB()
console.log(
  `${N} facts indexed in ${(buildMs / 1000).toFixed(2)} s (${((buildMs * 1000) / N).toFixed(1)} µs per add); index heap ≈ ${(heapAfter - heapBefore).toFixed(0)} MiB${globalThis.gc ? '' : ' (run with --expose-gc for a reliable figure)'}, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
)

const queries = Array.from({length: Q}, (_, i) =>
  i % 10 === 0 ? `what did we decide about ${zipfWord()} in March 2024?` : sentence(2, 8),
)
for (const q of queries.slice(0, 200)) index.search(q, {limit: 10}) // warm up the JIT
// Wall time, and this process's CPU time, which other load on the machine disturbs less.
const wall: number[] = []
const cpu: number[] = []
let hits = 0
for (const q of queries) {
  const c = process.cpuUsage()
  t = performance.now()
  hits += index.search(q, {limit: 10}).length
  wall.push(performance.now() - t)
  const used = process.cpuUsage(c)
  cpu.push((used.user + used.system) / 1000)
}
for (const [name, times] of [
  ['wall', wall],
  ['cpu', cpu],
] as const) {
  times.sort((a, b) => a - b)
  console.log(
    `${Q} searches, ${name} time (limit 10, ${(hits / Q).toFixed(1)} hits avg): p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms, max ${times.at(-1)!.toFixed(2)} ms`,
  )
}

t = performance.now()
for (let i = 0; i < 1000; i++)
  index.add({id: `X${i}`, content: sentence(6, 30), tags: [], created_at: new Date().toISOString()})
console.log(`1000 more adds into the full index: ${((performance.now() - t) / 1000).toFixed(3)} ms each`)

// A cold CLI process either re-indexes every fact it read, or parses a saved index.
{
  const small = all.slice(0, J)
  const rebuild = () => {
    const fresh = new FactIndex()
    for (const f of small) fresh.add(f)
    return fresh
  }
  const compact = rebuild().toCompact()
  const loadCompact = () => FactIndex.fromCompact(compact)
  for (let i = 0; i < 3; i++) {
    // warm up the JIT
    rebuild()
    loadCompact()
  }
  const median = (f: () => unknown) => {
    const runs: number[] = []
    for (let i = 0; i < 7; i++) {
      const c = process.cpuUsage()
      f()
      const used = process.cpuUsage(c)
      runs.push((used.user + used.system) / 1000)
    }
    return runs.sort((a, b) => a - b)[3]!
  }
  const rebuildMs = median(rebuild)
  const compactMs = median(loadCompact)
  const sameCompact =
    JSON.stringify(loadCompact().search('what did we decide about ' + VOCAB[5], {limit: 10})) ===
    JSON.stringify(rebuild().search('what did we decide about ' + VOCAB[5], {limit: 10}))
  console.log(
    `${J} facts: rebuild ${rebuildMs.toFixed(1)} ms, load compact ${compactMs.toFixed(1)} ms (CPU, median of 7); same results: ${sameCompact}`,
  )
}
