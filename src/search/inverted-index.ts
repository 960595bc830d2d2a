import SearchableMap from 'minisearch/SearchableMap'

import type {Accumulator} from './accumulator.js'
import {looseMatches, type LooseRules} from './loose-match.js'
import {toTerm, type QueryWord} from './tokenize.js'

/** BM25+ parameters, as MiniSearch names them: saturation k, length normalisation b, floor d. */
export interface Bm25 {
  k: number
  b: number
  d: number
}

export interface MatchOptions extends LooseRules {
  bm25: Bm25
}

/**
 * One term's postings, [slot, tf, slot, tf, ...] in entries[0..size); removed documents'
 * entries are swept lazily. Typed arrays at 4 bytes a number, half of what an array of small
 * integers takes; a loaded index starts with views into one shared array, with some room to
 * grow in place, each copied into its own array only once that room is used up.
 */
interface Postings {
  id: number
  text: string
  entries: Uint32Array
  size: number
  /** Live documents holding the term. */
  df: number
  /** Entries of removed documents not yet swept out. */
  dead: number
}

/**
 * An index in a form that loads without tokenising, inverting or building objects per
 * document. Document i holds pairs[offsets[i]..offsets[i+1]) = [term index, tf, ...] into
 * `terms` (sorted, so the radix tree needs no sort), and has `lengths[i]` terms in all. The
 * same postings, term by term: term t's [document, tf, ...] pairs are the first 2 * df[t]
 * numbers of postings[starts[t]..starts[t+1]), the rest of its region room to grow in place.
 */
export interface CompactDocs {
  terms: string[]
  /** The indexed words whose term differs from them ("deploys" for "deploi"), sorted: typos and prefixes are matched against words as written too. */
  surfaces: string[]
  offsets: Uint32Array
  pairs: Uint32Array
  lengths: Uint32Array
  /** Left out of a saved index (they are the pairs term by term): loading inverts the pairs when they are missing. */
  starts?: Uint32Array
  df?: Uint32Array
  postings?: Uint32Array
}

/** One way a query term reaches the index: postings and the weight (idf included) they count at. */
interface Reach {
  p: Postings
  weight: number
  q: number
}

/**
 * An inverted index from stemmed terms to documents (numbered slots), scored with BM25+ the way
 * MiniSearch scores it, but over flat number arrays. MiniSearch builds an object per matching
 * document and sorts them all, which takes ~200 ms when a common word (a user's name) is in
 * half of 100,000 facts; here scoring is a loop over numbers and the caller keeps the best few.
 * Exact lookups go through a Map; MiniSearch's radix tree, for prefix and fuzzy lookups, is
 * built on the first query that needs one (from the sorted terms, in one pass) and then kept
 * up to date, so loading an index builds no tree.
 */
export class InvertedIndex {
  private readonly dictionary = new Map<string, Postings>()
  /** Words as written whose term differs from them; never shrinks (it is bounded by the vocabulary). */
  private surfaces = new Set<string>()
  private sortedSurfaces?: readonly string[]
  /** The terms some surface word stems to ("stori" for "stories"), built on the first typo lookup, then kept up to date. */
  private surfaceStems?: Set<string>
  /** Terms and surface words, for prefix and typo lookups; a key whose term is gone leads nowhere. */
  private radix?: SearchableMap<true>
  private readonly byId: (Postings | undefined)[] = []
  /** The dictionary's terms in sorted order, as loaded, until a new term arrives; spares the tree a sort. */
  private sortedTerms?: readonly string[]
  private docs = new DocTerms()
  private lengths = new Uint32Array(0)
  private live = 0
  private totalLength = 0
  private lastNorm = {k: 1.2, b: 0.7, d: 0.5, avgLength: 1}

  get documentCount(): number {
    return this.live
  }

  /** Indexes a document under a free `slot` from its analysed terms, repeats included, and the words that stem to other terms. */
  add(slot: number, terms: readonly string[], surfaces: readonly string[] = []): void {
    for (const word of surfaces) {
      if (this.surfaces.has(word)) continue
      this.surfaces.add(word)
      this.radix?.set(word, true)
      const stem = this.surfaceStems && toTerm(word)
      if (stem) this.surfaceStems!.add(stem)
      this.sortedSurfaces = undefined
    }
    const counts = new Map<string, number>()
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1)
    let i = this.docs.reserve(counts.size * 2)
    const from = i
    for (const [text, tf] of counts) {
      const p = this.postingsFor(text)
      push(p, slot, tf)
      p.df += 1
      this.docs.arena[i++] = p.id
      this.docs.arena[i++] = tf
    }
    this.attach(slot, from, i, terms.length)
  }

  remove(slot: number): void {
    const docs = this.docs
    if (!docs.has(slot)) return
    // Gone before the sweeps below look, so they drop its entries too; its pairs stay readable.
    docs.remove(slot)
    const pairs = docs.arena
    const end = docs.to[slot]!
    for (let i = docs.from[slot]!; i < end; i += 2) {
      const p = this.byId[pairs[i]!]!
      p.df -= 1
      p.dead += 1
      if (p.df === 0) {
        this.dictionary.delete(p.text)
        this.byId[p.id] = undefined
      } else if (p.dead > p.df) {
        this.sweep(p)
      }
    }
    this.live -= 1
    this.totalLength -= this.lengths[slot]!
    this.lengths[slot] = 0
  }

  /** The documents in `slots` as {@link CompactDocs}; terms no listed document holds are left out. */
  serializeCompact(slots: readonly number[]): Required<CompactDocs> {
    const {arena: doc, from, to} = this.docs
    // The terms the listed documents hold, numbered in sorted order.
    const used = new Set<number>()
    for (const slot of slots)
      if (this.docs.has(slot)) for (let i = from[slot]!; i < to[slot]!; i += 2) used.add(doc[i]!)
    const terms = [...used].map((id) => this.byId[id]!.text).sort()
    const tableIndex = new Int32Array(this.byId.length).fill(-1)
    terms.forEach((text, t) => (tableIndex[this.dictionary.get(text)!.id] = t))

    const offsets = new Uint32Array(slots.length + 1)
    const lengths = new Uint32Array(slots.length)
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!
      offsets[i + 1] = offsets[i]! + (this.docs.has(slot) ? to[slot]! - from[slot]! : 0)
      lengths[i] = this.docs.has(slot) ? this.lengths[slot]! : 0
    }
    const pairs = new Uint32Array(offsets[slots.length]!)
    let w = 0
    for (const slot of slots) {
      if (!this.docs.has(slot)) continue
      for (let i = from[slot]!; i < to[slot]!; i += 2) {
        pairs[w++] = tableIndex[doc[i]!]!
        pairs[w++] = doc[i + 1]!
      }
    }
    const surfaces = this.sortedSurfaces ?? [...this.surfaces].sort()
    return {terms, surfaces: [...surfaces], offsets, pairs, lengths, ...invertDocs(terms.length, offsets, pairs)}
  }

  /**
   * Rebuilds an index from {@link serializeCompact} output; document i gets slot i. Every array
   * is used in place (the postings are views into one shared array), after checks that keep a
   * damaged one from indexing out of bounds; loading allocates nothing per document.
   */
  static deserializeCompact(data: CompactDocs): InvertedIndex {
    const {terms, surfaces, offsets, pairs, lengths} = data
    const docs = offsets.length - 1
    if (docs < 0 || offsets[0] !== 0 || offsets[docs] !== pairs.length || lengths.length !== docs)
      throw new Error('bad document offsets')
    for (let i = 0; i < pairs.length; i += 2)
      if (pairs[i]! >= terms.length || pairs[i + 1]! < 1) throw new Error('bad term pairs')
    const {starts, df, postings} =
      data.starts && data.df && data.postings
        ? {starts: data.starts, df: data.df, postings: data.postings}
        : invertDocs(terms.length, offsets, pairs)
    if (
      starts.length !== terms.length + 1 ||
      df.length !== terms.length ||
      starts[0] !== 0 ||
      starts[terms.length] !== postings.length
    )
      throw new Error('bad postings table')
    const index = new InvertedIndex()
    index.docs = DocTerms.over(pairs, offsets)
    index.lengths = lengths.slice()
    index.live = docs
    for (let slot = 0; slot < docs; slot++) {
      if (offsets[slot + 1]! < offsets[slot]! || (offsets[slot + 1]! - offsets[slot]!) % 2 !== 0)
        throw new Error(`bad terms for fact ${slot}`)
      index.totalLength += lengths[slot]!
    }
    for (let t = 0; t < terms.length; t++) {
      const text = terms[t]!
      const entries = postings.subarray(starts[t]!, starts[t + 1]!)
      const size = 2 * df[t]!
      if (
        typeof text !== 'string' ||
        index.dictionary.has(text) ||
        size > entries.length ||
        (t > 0 && text <= terms[t - 1]!)
      )
        throw new Error('bad term table')
      for (let i = 0; i < size; i += 2) if (entries[i]! >= docs || entries[i + 1]! < 1) throw new Error('bad postings')
      const p: Postings = {id: t, text, entries, size, df: df[t]!, dead: 0}
      index.byId.push(df[t] === 0 ? undefined : p)
      if (df[t] !== 0) index.dictionary.set(text, p)
    }
    index.sortedTerms = terms
    for (let i = 0; i < surfaces.length; i++)
      if (typeof surfaces[i] !== 'string' || (i > 0 && surfaces[i]! <= surfaces[i - 1]!))
        throw new Error('bad word list')
    index.surfaces = new Set(surfaces)
    index.sortedSurfaces = surfaces
    return index
  }

  /**
   * Credits `acc` with every query term's BM25+ contribution to every document holding it
   * (`accept` leaves out the documents the caller would drop), then multiplies each document's
   * sum by the number of distinct query terms it matched (MiniSearch's coordination).
   */
  match(
    queryWords: readonly QueryWord[],
    options: MatchOptions,
    acc: Accumulator,
    accept: ((slot: number) => boolean) | undefined,
  ): void {
    if (this.live === 0) return
    // One entry per distinct term (a word being typed counts as its own).
    const distinct = new Map<string, QueryWord>()
    for (const w of queryWords) {
      const key = w.partial || w.term === undefined ? `\u0000${w.surface}` : w.term
      if (!distinct.has(key)) distinct.set(key, w)
    }
    const {k, b, d} = options.bm25
    const avgLength = this.totalLength / this.live || 1
    this.lastNorm = {k, b, d, avgLength}
    const terms = [...distinct.values()].map((word, q) => {
      const reach = this.expand(word, q, options)
      // No document gets more from a term than this: tf saturates below k + 1.
      const bound = reach.reduce((sum, r) => sum + r.weight * (d + k + 1), 0)
      return {reach, bound}
    })
    // Rarest first, so that a document's terms are summed in the same order in every search.
    terms.sort((x, y) => y.bound - x.bound)
    for (const term of terms) for (const r of term.reach) this.scan(r, acc, accept)
    for (const slot of acc.touched) acc.scores[slot]! *= acc.matched[slot]!
  }

  /**
   * The postings a query word reaches, with their weights (idf included): its term exactly, then
   * the words it starts and the words a typo away (see loose-match.ts). A looser match never
   * counts more than half of what the word's own term would: exact matches rank first.
   */
  private expand(word: QueryWord, q: number, options: MatchOptions): Reach[] {
    const weights = new Map<Postings, number>()
    const exact = word.term === undefined ? undefined : this.dictionary.get(word.term)
    if (exact) weights.set(exact, 1)
    if (this.live > 0 && (options.prefixMinLength > 0 || options.fuzzyMinLength > 0)) {
      for (const {key, weight} of looseMatches(
        word,
        this.tree(),
        options,
        exact !== undefined,
        (key) => this.postingsOfKey(key).length > 0,
        (key) => this.isWritten(key),
      )) {
        for (const p of this.postingsOfKey(key)) if ((weights.get(p) ?? 0) < weight) weights.set(p, weight)
      }
    }
    const idfOf = (p: Postings) => Math.log(1 + (this.live - p.df + 0.5) / (p.df + 0.5))
    const cap = exact ? idfOf(exact) / 2 : Number.POSITIVE_INFINITY
    return [...weights].map(([p, weight]) => {
      if (p.dead > 0) this.sweep(p)
      return {p, weight: p === exact ? idfOf(p) : Math.min(weight * idfOf(p), cap), q}
    })
  }

  /**
   * Whether a tree key is a word as some fact writes it, not only a stem ("stori", of
   * "stories"): a typo is a misspelt word, so only words are corrected to. The terms no
   * surface word stems to are written as they are; those some word stems to are taken as
   * stems only (their words are keys of their own).
   */
  private isWritten(key: string): boolean {
    if (this.surfaces.has(key)) return true
    if (!this.surfaceStems) {
      this.surfaceStems = new Set()
      for (const word of this.surfaces) {
        const stem = toTerm(word)
        if (stem) this.surfaceStems.add(stem)
      }
    }
    return !this.surfaceStems.has(key)
  }

  /** The live postings a tree key leads to: the key as a term, and the term of the key as a word. */
  private postingsOfKey(key: string): Postings[] {
    const out: Postings[] = []
    const asTerm = this.dictionary.get(key)
    if (asTerm) out.push(asTerm)
    if (this.surfaces.has(key)) {
      const stem = toTerm(key)
      const viaWord = stem === null ? undefined : this.dictionary.get(stem)
      if (viaWord && viaWord !== asTerm) out.push(viaWord)
    }
    return out
  }

  /** BM25+'s term-frequency part for one document. */
  private tfPart(slot: number, tf: number): number {
    const {k, b, d, avgLength} = this.lastNorm
    return d + (tf * (k + 1)) / (tf + k * (1 - b + (b * this.lengths[slot]!) / avgLength))
  }

  private scan(r: Reach, acc: Accumulator, accept: ((slot: number) => boolean) | undefined): void {
    const e = r.p.entries
    for (let i = 0, n = r.p.size; i < n; i += 2) {
      const slot = e[i]!
      if (accept !== undefined && !acc.has(slot) && !accept(slot)) continue
      acc.credit(slot, r.q, r.weight * this.tfPart(slot, e[i + 1]!))
    }
  }

  /** The radix tree over the terms, for prefix and fuzzy lookups; built when first needed. */
  private tree(): SearchableMap<true> {
    if (!this.radix) {
      const terms = this.sortedTerms?.filter((text) => this.dictionary.has(text)) ?? [...this.dictionary.keys()].sort()
      const surfaces = this.sortedSurfaces ?? [...this.surfaces].sort()
      this.radix = new SearchableMap<true>(radixTree(mergeSorted(terms, surfaces), () => true))
    }
    return this.radix
  }

  /** Drops entries of removed documents. Amortised: after many removals, or before scoring. */
  private sweep(p: Postings): void {
    // In place: a loaded term's view is its own part of the shared array.
    const e = p.entries
    let w = 0
    for (let r = 0; r < p.size; r += 2) {
      if (!this.docs.has(e[r]!)) continue
      e[w++] = e[r]!
      e[w++] = e[r + 1]!
    }
    p.size = w
    p.dead = 0
  }

  private postingsFor(text: string): Postings {
    let p = this.dictionary.get(text)
    if (!p) {
      p = {id: this.byId.length, text, entries: EMPTY, size: 0, df: 0, dead: 0}
      this.byId.push(p)
      this.dictionary.set(text, p)
      this.radix?.set(text, true)
      this.sortedTerms = undefined
    }
    return p
  }

  /** Makes `slot` live with the pairs in docs.arena[from..to) and `length` terms in all. */
  private attach(slot: number, from: number, to: number, length: number): void {
    if (slot >= this.lengths.length) {
      const grown = new Uint32Array(Math.max(slot + 1, this.lengths.length * 2, 1024))
      grown.set(this.lengths)
      this.lengths = grown
    }
    this.docs.attach(slot, from, to)
    this.lengths[slot] = length
    this.live += 1
    this.totalLength += length
  }
}

const EMPTY = new Uint32Array(0)

/** Two sorted lists as one sorted list without repeats. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!
    if (out.length === 0 || out[out.length - 1] !== next) out.push(next)
  }
  return out
}

/** Appends one document to a term's postings, growing them by half when full. */
/**
 * The postings of documents given as pairs, term by term in document order. Each term's region
 * has an eighth more room than it needs, so the facts added after loading go in place: without
 * it, the first add to each common term copies its postings out, and the shared array stays
 * alive beside the copies for the sake of the rare terms.
 */
function invertDocs(
  termCount: number,
  offsets: Uint32Array,
  pairs: Uint32Array,
): {starts: Uint32Array; df: Uint32Array; postings: Uint32Array} {
  const df = new Uint32Array(termCount)
  for (let i = 0; i < pairs.length; i += 2) df[pairs[i]!]! += 1
  const starts = new Uint32Array(termCount + 1)
  for (let t = 0; t < termCount; t++) starts[t + 1] = starts[t]! + 2 * (df[t]! + Math.ceil(df[t]! / 8))
  const fill = starts.slice(0, termCount)
  const postings = new Uint32Array(starts[termCount]!)
  for (let doc = 0; doc + 1 < offsets.length; doc++) {
    for (let i = offsets[doc]!; i < offsets[doc + 1]!; i += 2) {
      const t = pairs[i]!
      postings[fill[t]!++] = doc
      postings[fill[t]!++] = pairs[i + 1]!
    }
  }
  return {starts, df, postings}
}

function push(p: Postings, slot: number, tf: number): void {
  if (p.size + 2 > p.entries.length) {
    const grown = new Uint32Array(Math.max(8, Math.ceil((p.size + 2) * 1.5)))
    grown.set(p.entries.subarray(0, p.size))
    p.entries = grown
  }
  p.entries[p.size++] = slot
  p.entries[p.size++] = tf
}

type Radix<T> = Map<string, T | Radix<T>>

/**
 * MiniSearch's radix tree (a Map per node, edges labelled with the rest of the key's shared
 * part, the value under the empty key) built from `sorted` unique keys in one pass: the same
 * tree `set` would build key by key, in a fraction of the time.
 */
function radixTree<T>(
  sorted: readonly string[],
  valueOf: (key: string) => T,
): ConstructorParameters<typeof SearchableMap<T>>[0] {
  const node = (lo: number, hi: number, depth: number): Radix<T> => {
    const out: Radix<T> = new Map()
    let i = lo
    if (sorted[i]!.length === depth) out.set('', valueOf(sorted[i++]!))
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
  // The tree's node type is internal to MiniSearch; its constructor takes one as is.
  return (sorted.length === 0 ? new Map() : node(0, sorted.length, 0)) as ConstructorParameters<
    typeof SearchableMap<T>
  >[0]
}

/**
 * Every document's distinct terms and counts, [termId, tf, ...], in arena[from[slot]..to[slot]):
 * one growing array instead of a typed array per document, which at 100,000 facts saves
 * megabytes of array headers and as many objects for the garbage collector to trace. Space
 * left by removed or re-indexed documents is reclaimed by compacting once it is half the arena.
 */
class DocTerms {
  arena: Uint32Array = new Uint32Array(0)
  from: Uint32Array = new Uint32Array(0)
  to: Uint32Array = new Uint32Array(0)
  private alive = new Uint8Array(0)
  private used = 0
  private garbage = 0

  /** Documents whose pairs are `pairs` (slot ranges given by attach), used in place. */
  /** Documents whose pairs are `pairs`, document i at pairs[offsets[i]..offsets[i+1]), used in place. */
  static over(pairs: Uint32Array, offsets: Uint32Array): DocTerms {
    const docs = new DocTerms()
    const count = offsets.length - 1
    const size = Math.max(count, 1024)
    docs.arena = pairs
    docs.used = pairs.length
    docs.from = new Uint32Array(size)
    docs.from.set(offsets.subarray(0, count))
    docs.to = new Uint32Array(size)
    docs.to.set(offsets.subarray(1))
    docs.alive = new Uint8Array(size).fill(1, 0, count)
    return docs
  }

  has(slot: number): boolean {
    return this.alive[slot] === 1
  }

  /** Room for `count` more numbers at the end of the arena; returns where they go. */
  reserve(count: number): number {
    if (this.garbage > 1024 && this.garbage * 2 > this.used) this.compact()
    if (this.used + count > this.arena.length) {
      const grown = new Uint32Array(Math.max(1024, Math.ceil((this.used + count) * 1.5)))
      grown.set(this.arena.subarray(0, this.used))
      this.arena = grown
    }
    const at = this.used
    this.used += count
    return at
  }

  attach(slot: number, from: number, to: number): void {
    if (slot >= this.from.length) {
      const size = Math.max(slot + 1, this.from.length * 2, 1024)
      this.from = grow(this.from, size)
      this.to = grow(this.to, size)
      const alive = new Uint8Array(size)
      alive.set(this.alive)
      this.alive = alive
    }
    this.from[slot] = from
    this.to[slot] = to
    this.alive[slot] = 1
  }

  remove(slot: number): void {
    this.garbage += this.to[slot]! - this.from[slot]!
    this.alive[slot] = 0
  }

  private compact(): void {
    const arena = new Uint32Array(Math.max(1024, Math.ceil((this.used - this.garbage) * 1.5)))
    let w = 0
    for (let slot = 0; slot < this.alive.length; slot++) {
      if (this.alive[slot] !== 1) continue
      const from = this.from[slot]!
      const to = this.to[slot]!
      arena.set(this.arena.subarray(from, to), w)
      this.from[slot] = w
      w += to - from
      this.to[slot] = w
    }
    this.arena = arena
    this.used = w
    this.garbage = 0
  }
}

function grow(a: Uint32Array, size: number): Uint32Array {
  const out = new Uint32Array(size)
  out.set(a)
  return out
}
