/**
 * The radix tree of prefix and typo lookups (src/search/term-tree.ts) beside MiniSearch's
 * SearchableMap, which served them before: `node --expose-gc --import tsx bench/term-tree.ts
 * [rounds]` (default 15). The keys are a real vocabulary: every term and word as written of the
 * LongMemEval set's facts ($BENCH_DIR, see bench/recall/sets.ts), as the index keeps them. Times,
 * interleaved round by round: building the tree from the sorted keys (SearchableMap the way the
 * index built it, in one pass, and key by key), the keys of 2,000 prefixes of one to four letters,
 * and the words within one and two edits of 1,000 misspelt words. Checks first that both trees
 * give the same answers. Prints medians in milliseconds (per batch) and, with --expose-gc, the
 * heap each tree holds.
 */
import SearchableMap from 'minisearch/SearchableMap'

import {TermTree} from '../src/search/term-tree.js'
import {analyzeWords} from '../src/search/tokenize.js'
import {longMemEval} from './recall/sets.js'
import {ms, summarize} from './speed/stats.js'

const rounds = Number(process.argv[2] ?? 15)

const words = new Set<string>()
for (const haystack of longMemEval().haystacks)
  for (const doc of haystack.docs) {
    const {terms, surfaces} = analyzeWords(doc.content)
    for (const w of terms) words.add(w)
    for (const w of surfaces) words.add(w)
  }
const keys = [...words].sort()

/** A seeded generator (mulberry32), so every run asks the same queries. */
let seed = 0x5eed
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const longish = keys.filter((k) => k.length >= 5 && /^[a-z]+$/.test(k))
const prefixes = Array.from({length: 2000}, () => pick(keys).slice(0, 1 + Math.floor(random() * 4)))
/** One substitution, insertion or deletion in a word of five letters or more, as loose matching is asked for. */
const typos = Array.from({length: 1000}, () => {
  const w = pick(longish)
  const i = Math.floor(random() * w.length)
  const kind = Math.floor(random() * 3)
  return kind === 0
    ? w.slice(0, i) + pick([...LETTERS]) + w.slice(i + 1)
    : kind === 1
      ? w.slice(0, i) + pick([...LETTERS]) + w.slice(i)
      : w.slice(0, i) + w.slice(i + 1)
})

type Radix = Map<string, true | Radix>
/** The one-pass build the index fed SearchableMap before (its node type is internal to MiniSearch). */
function searchableMap(sorted: readonly string[]): SearchableMap<true> {
  const node = (lo: number, hi: number, depth: number): Radix => {
    const out: Radix = new Map()
    let i = lo
    if (sorted[i]!.length === depth) out.set(sorted[i++]!.slice(depth), true)
    while (i < hi) {
      const first = sorted[i]!
      const c = first[depth]
      let j = i + 1
      while (j < hi && sorted[j]![depth] === c) j++
      const last = sorted[j - 1]!
      let end = depth + 1
      const max = Math.min(first.length, last.length)
      while (end < max && first[end] === last[end]) end++
      out.set(first.slice(depth, end), node(i, j, end))
      i = j
    }
    return out
  }
  return new SearchableMap<true>(node(0, sorted.length, 0) as ConstructorParameters<typeof SearchableMap<true>>[0])
}

function keyByKey(sorted: readonly string[]): SearchableMap<true> {
  const map = new SearchableMap<true>()
  for (const key of sorted) map.set(key, true)
  return map
}

const ours = TermTree.fromSorted(keys)
const theirs = searchableMap(keys)

// The same answers, in the same order for typos (the index sorts prefix keys itself before).
for (const p of prefixes) {
  const a = ours.withPrefix(p)
  const b = [...theirs.atPrefix(p).keys()].sort()
  if (a.join('\n') !== b.join('\n')) throw new Error(`prefix ${p}: ${a.length} keys, SearchableMap ${b.length}`)
}
for (const w of typos)
  for (const most of [1, 2]) {
    const a = JSON.stringify([...ours.within(w, most)])
    const b = JSON.stringify([...theirs.fuzzyGet(w, most)].map(([k, [, d]]) => [k, d]))
    if (a !== b) throw new Error(`${w} within ${most}: ${a} / SearchableMap ${b}`)
  }

function time(run: () => void): number {
  const start = performance.now()
  run()
  return performance.now() - start
}

const series = {
  build: {ours: [] as number[], theirs: [] as number[], keyByKey: [] as number[]},
  prefix: {ours: [] as number[], theirs: [] as number[]},
  typo1: {ours: [] as number[], theirs: [] as number[]},
  typo2: {ours: [] as number[], theirs: [] as number[]},
}
let sink = 0
for (let r = 0; r < rounds; r++) {
  // Alternate which goes first, so that neither always runs on a freshly collected heap.
  const order = r % 2 === 0 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const)
  for (const who of order) {
    series.build[who].push(
      time(() => {
        const tree = who === 'ours' ? TermTree.fromSorted(keys) : searchableMap(keys)
        sink += tree.has(keys[0]!) ? 1 : 0
      }),
    )
    series.prefix[who].push(
      time(() => {
        for (const p of prefixes)
          sink += who === 'ours' ? ours.withPrefix(p).length : [...theirs.atPrefix(p).keys()].sort().length
      }),
    )
    for (const most of [1, 2] as const)
      series[most === 1 ? 'typo1' : 'typo2'][who].push(
        time(() => {
          for (const w of typos) sink += who === 'ours' ? ours.within(w, most).size : theirs.fuzzyGet(w, most).size
        }),
      )
  }
  if (r < 5)
    series.build.keyByKey.push(
      time(() => {
        sink += keyByKey(keys).size
      }),
    )
}

const median = (samples: number[]) => ms(summarize(samples).median)
console.log(`${keys.length.toLocaleString('en')} keys (LongMemEval's terms and words), ${rounds} rounds, medians in ms`)
console.log('| what | TermTree | SearchableMap |')
console.log('| --- | ---: | ---: |')
console.log(
  `| build from sorted keys | ${median(series.build.ours)} | ${median(series.build.theirs)} (one pass; key by key ${median(series.build.keyByKey)}) |`,
)
console.log(
  `| ${prefixes.length.toLocaleString('en')} prefixes, keys sorted | ${median(series.prefix.ours)} | ${median(series.prefix.theirs)} |`,
)
console.log(
  `| ${typos.length.toLocaleString('en')} typos, within 1 edit | ${median(series.typo1.ours)} | ${median(series.typo1.theirs)} |`,
)
console.log(
  `| ${typos.length.toLocaleString('en')} typos, within 2 edits | ${median(series.typo2.ours)} | ${median(series.typo2.theirs)} |`,
)

const gc = (globalThis as {gc?: () => void}).gc
if (gc) {
  const held = (make: () => unknown): number => {
    gc()
    const before = process.memoryUsage().heapUsed
    const kept = make()
    gc()
    const after = process.memoryUsage().heapUsed
    sink += kept ? 1 : 0
    return (after - before) / 2 ** 20
  }
  console.log(
    `heap held: TermTree ${held(() => TermTree.fromSorted(keys)).toFixed(1)} MiB, SearchableMap ${held(() => searchableMap(keys)).toFixed(1)} MiB`,
  )
}
if (sink === -1) console.log(sink)
