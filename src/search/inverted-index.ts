import type {Accumulator} from './accumulator.js'
import {DamagedIndex} from './damaged-index.js'
import {allLines, indexOfSorted, prefixRange, type Lines} from './lines.js'
import {looseMatches, type KeySource, type LooseRules, type LooseWay} from './loose-match.js'
import {TermTree} from './term-tree.js'
import {toTerm, type QueryWord} from './tokenize.js'

/** BM25+ parameters, as MiniSearch names them: saturation k, length normalisation b, floor d. */
export interface Bm25 {
  k: number
  b: number
  d: number
}

export interface MatchOptions extends LooseRules {
  bm25: Bm25
  /**
   * The power a term's idf is raised to: 2 counts rarity on the query's side as well as the
   * fact's, as classic TF-IDF (Lucene's before BM25) does; 1 is BM25's single idf.
   */
  idfPower: number
}

/**
 * One term's postings, [slot, tf, slot, tf, ...] in entries[0..size); removed documents'
 * entries are swept lazily. Typed arrays at 4 bytes a number, half of what an array of small
 * integers takes; a loaded term's saved postings are read when something first reads its
 * entries (a query scanning it, a sweep), so that adding a document to a common term does not
 * read its thousands of saved postings: until then `entries` holds only the documents added
 * since, and `unread` where the saved ones are. A term whose documents are all gone keeps its
 * object (df 0), so that a lookup does not find it again in the loaded table.
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
  /** The saved postings, base.postings[from..to), not read into `entries` yet; they come first. */
  unread?: {from: number; to: number}
}

/**
 * The mark of a term of the question a document ends with, kept beside its words as `?term`:
 * no word holds a `?`, so no query word matches it, and it counts in no document's length. It
 * tells which documents ask about a query word (a question hands its score to its reply only
 * then), and is saved and loaded with the other terms.
 */
const ASKED = '?'

/**
 * An index in a form that loads without tokenising or building anything per document or per
 * term: `terms` sorted, term t's postings [document, tf, ...] in document order at
 * postings[starts[t]..starts[t+1]), and document i of `lengths[i]` terms in all. Terms and
 * postings are read when a query asks for them; each document's own terms (which removing it
 * needs) are worked out from the postings on the first removal.
 */
export interface CompactDocs {
  terms: Lines
  /** The indexed words whose term differs from them ("deploys" for "deploi"), sorted: typos and prefixes are matched against words as written too. */
  surfaces: Lines
  starts: Uint32Array
  postings: Uint32Array
  /**
   * Makes postings[from..to) readable, for postings read from their file where a search asks
   * (the saved index of a cold search); throws {@link DamagedIndex} when they do not read back.
   * Absent: they are all there.
   */
  load?: (from: number, to: number) => void
  lengths: Uint32Array
}

/** {@link CompactDocs} with every list an array, as FactIndex.toCompact makes it. */
export interface PlainCompactDocs extends CompactDocs {
  terms: string[]
  surfaces: string[]
}

/**
 * {@link PlainCompactDocs} with the postings written a chunk at a time instead of held in one
 * array ({@link InvertedIndex.serializeStreamed}).
 */
export interface StreamedCompactDocs extends Omit<PlainCompactDocs, 'postings' | 'load'> {
  postingsLength: number
  /**
   * Calls `emit` with the postings in order, `size` numbers at a time (the last part fewer; an
   * even `size`); the array passed is reused by the next call.
   */
  eachPostingsChunk(size: number, emit: (part: Uint32Array) => void): void
}

/** The postings a {@link StreamedCompactDocs} writes, as one array. */
export function postingsOf(streamed: Pick<StreamedCompactDocs, 'postingsLength' | 'eachPostingsChunk'>): Uint32Array {
  const postings = new Uint32Array(streamed.postingsLength)
  let w = 0
  streamed.eachPostingsChunk(65536, (part) => {
    postings.set(part, w)
    w += part.length
  })
  return postings
}

/** The loaded part of an index: what {@link InvertedIndex.deserializeCompact} was given. */
interface Base {
  terms: Lines
  surfaces: Lines
  starts: Uint32Array
  postings: Uint32Array
  /** Reads postings[from..to) where they are read lazily, and checks them (see CompactDocs). */
  load: (from: number, to: number) => void
}

/** A distinct word of a search, numbered as {@link Accumulator.words} numbers it, and how many facts hold its own term. */
export interface SearchedWord {
  word: QueryWord
  df: number
}

/** One way a query term reaches the index: postings and the weight (idf included) they count at. */
interface Reach {
  p: Postings
  weight: number
  q: number
  /** How the query word reached these postings: its own term, a word it starts, or a word a typo away. */
  way: MatchWay
}

/** How a query word reached a fact's term (see {@link Reach}). */
export type MatchWay = 'term' | LooseWay

/** One query word a fact matched (numbered as {@link SearchedWord}s are), how, and the term of the fact it reached. */
export interface WordMatch {
  q: number
  way: MatchWay
  term: string
}

/**
 * An inverted index from stemmed terms to documents (numbered slots), scored with BM25+ the way
 * MiniSearch scores it, but over flat number arrays. MiniSearch builds an object per matching
 * document and sorts them all, which takes ~200 ms when a common word (a user's name) is in
 * half of 100,000 facts; here scoring is a loop over numbers and the caller keeps the best few.
 * A loaded index answers from its sorted term table by binary search, and prefixes by ranges of
 * it; a radix tree (term-tree.ts) serves the words added since, and typo lookups (over every
 * word, built on the first query that needs one and then kept up to date).
 */
export class InvertedIndex {
  /** Terms looked up or added since loading, by text; those whose documents are all gone have df 0. */
  private readonly dictionary = new Map<string, Postings>()
  private readonly byId: (Postings | undefined)[] = []
  private base?: Base
  /** Words as written, added since loading, whose term differs from them; never shrinks (it is bounded by the vocabulary). */
  private readonly surfaces = new Set<string>()
  /** The terms some surface word stems to ("stori" for "stories"), built on the first typo lookup, then kept up to date. */
  private surfaceStems?: Set<string>
  /** Terms and surface words added since loading, for prefix lookups; built when first needed, then kept up to date. */
  private recent?: TermTree
  /** Every term and surface word, for typo lookups; a key whose term is gone leads nowhere. */
  private radix?: TermTree
  private docs = new DocTerms()
  private lengths = new Uint32Array(0)
  private live = 0
  private totalLength = 0
  private lastNorm = {k: 1.2, b: 0.7, d: 0.5, avgLength: 1}
  /** The postings the last {@link match} scanned, for {@link matchesOf}. */
  private lastReach: Reach[] = []

  get documentCount(): number {
    return this.live
  }

  /**
   * Indexes a document under a free `slot` from its analysed terms, repeats included, the words
   * that stem to other terms, and the terms of the question it ends with (see {@link ASKED}).
   */
  add(slot: number, terms: readonly string[], surfaces: readonly string[] = [], asked: readonly string[] = []): void {
    for (const word of surfaces) {
      if (this.hasSurface(word)) continue
      this.surfaces.add(word)
      this.recent?.add(word)
      this.radix?.add(word)
      const stem = this.surfaceStems && toTerm(word)
      if (stem) this.surfaceStems!.add(stem)
    }
    const counts = new Map<string, number>()
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1)
    for (const t of asked) counts.set(ASKED + t, (counts.get(ASKED + t) ?? 0) + 1)
    const kept = this.docs.kept
    let i = kept ? this.docs.reserve(counts.size * 2) : 0
    const from = i
    for (const [text, tf] of counts) {
      const p = this.postingsFor(text)
      push(p, slot, tf)
      p.df += 1
      if (!kept) continue
      this.docs.arena[i++] = p.id
      this.docs.arena[i++] = tf
    }
    this.attach(slot, from, i, terms.length)
  }

  remove(slot: number): void {
    const docs = this.docs
    if (!docs.has(slot)) return
    if (!docs.kept) docs.keep(this.allPairs(docs.slots))
    // Gone before the sweeps below look, so they drop its entries too; its pairs stay readable.
    docs.remove(slot)
    const pairs = docs.arena
    const end = docs.to[slot]!
    for (let i = docs.from[slot]!; i < end; i += 2) {
      const p = this.postingsById(pairs[i]!)!
      p.df -= 1
      p.dead += 1
      if (p.df === 0) {
        p.entries = EMPTY
        p.size = 0
        p.dead = 0
        p.unread = undefined
      } else if (p.dead > p.df) {
        this.sweep(p)
      }
    }
    this.live -= 1
    this.totalLength -= this.lengths[slot]!
    this.lengths[slot] = 0
  }

  /**
   * The documents in `slots` (in increasing order) as {@link CompactDocs}, document i being
   * slots[i]; terms no listed document holds are left out. The postings are not made one array:
   * they are read from the index's own, which are in slot order, a chunk at a time, so that
   * saving a large index does not hold them twice ({@link postingsOf} gathers them). Valid until
   * the index next changes.
   */
  serializeStreamed(slots: readonly number[]): StreamedCompactDocs {
    const at = new Int32Array(this.docs.slots).fill(-1)
    const lengths = new Uint32Array(slots.length)
    slots.forEach((slot, i) => {
      if (i > 0 && slot <= slots[i - 1]!) throw new Error('serializeStreamed: slots out of order')
      if (!this.docs.has(slot)) return
      at[slot] = i
      lengths[i] = this.lengths[slot]!
    })
    // Each term a listed document holds, with how many numbers its postings take.
    const held: {text: string; entries: Uint32Array; size: number; count: number}[] = []
    this.eachPostings((_, text, entries, size) => {
      let count = 0
      for (let r = 0; r < size; r += 2) if (at[entries[r]!]! >= 0) count += 2
      if (count > 0) held.push({text, entries, size, count})
    })
    held.sort((x, y) => (x.text < y.text ? -1 : x.text > y.text ? 1 : 0))
    const starts = new Uint32Array(held.length + 1)
    held.forEach((h, t) => (starts[t + 1] = starts[t]! + h.count))
    const eachPostingsChunk = (size: number, emit: (part: Uint32Array) => void): void => {
      const chunk = new Uint32Array(size - (size % 2))
      let w = 0
      for (const {entries, size: n} of held) {
        for (let r = 0; r < n; r += 2) {
          const i = at[entries[r]!]!
          if (i < 0) continue
          chunk[w++] = i
          chunk[w++] = entries[r + 1]!
          if (w === chunk.length) {
            emit(chunk)
            w = 0
          }
        }
      }
      if (w > 0) emit(chunk.subarray(0, w))
    }
    const terms = held.map((h) => h.text)
    return {
      terms,
      surfaces: this.sortedSurfaces(),
      lengths,
      starts,
      postingsLength: starts[held.length]!,
      eachPostingsChunk,
    }
  }

  /**
   * Calls `each` with every term's postings, entries[0..size) (those of removed documents
   * included until swept), in term id order; every saved posting is read first.
   */
  private eachPostings(each: (id: number, text: string, entries: Uint32Array, size: number) => void): void {
    const base = this.base
    if (base) base.load(0, base.postings.length)
    const loaded = base?.terms.length ?? 0
    for (let id = 0; id < Math.max(loaded, this.byId.length); id++) {
      const p = this.byId[id]
      if (p) {
        this.read(p)
        each(id, p.text, p.entries, p.size)
      } else if (base && id < loaded) {
        const from = base.starts[id]!
        const to = base.starts[id + 1]!
        each(id, base.terms.at(id)!, base.postings.subarray(from, to), to - from)
      }
    }
  }

  /** Every live document's [term id, tf, ...] pairs among `count` slots, from the postings: what a removal needs. */
  private allPairs(count: number): {offsets: Uint32Array; pairs: Uint32Array} {
    const offsets = new Uint32Array(count + 1)
    this.eachPostings((_, __, entries, size) => {
      for (let r = 0; r < size; r += 2) if (this.docs.has(entries[r]!)) offsets[entries[r]! + 1]! += 2
    })
    for (let slot = 0; slot < count; slot++) offsets[slot + 1]! += offsets[slot]!
    const fill = offsets.slice(0, count)
    const pairs = new Uint32Array(offsets[count]!)
    this.eachPostings((id, _, entries, size) => {
      for (let r = 0; r < size; r += 2) {
        const slot = entries[r]!
        if (!this.docs.has(slot)) continue
        pairs[fill[slot]!++] = id
        pairs[fill[slot]!++] = entries[r + 1]!
      }
    })
    return {offsets, pairs}
  }

  /**
   * An index over {@link serializeStreamed} output (its postings gathered); document i gets slot i. The arrays are used
   * in place and nothing is built per document or per term: a cold `mem search` reads the
   * dozen terms its query needs. The checks are of shape and bounds (a damaged file is caught
   * by its checksum before this), so that no lookup reads out of bounds.
   */
  static deserializeCompact(data: CompactDocs): InvertedIndex {
    const {terms, surfaces, starts, postings, lengths} = data
    const docs = lengths.length
    const termCount = terms.length
    if (starts.length !== termCount + 1 || starts[0] !== 0 || starts[termCount] !== postings.length)
      throw new Error('bad postings table')
    for (let t = 0; t < termCount; t++)
      if (starts[t + 1]! <= starts[t]! || (starts[t + 1]! - starts[t]!) % 2 !== 0) throw new Error('bad postings table')
    // Postings read later are checked as they are read.
    if (data.load === undefined) checkPostings(postings, 0, postings.length, docs, Error)
    const load = (from: number, to: number): void => {
      if (data.load === undefined) return
      data.load(from, to)
      checkPostings(postings, from, to, docs, DamagedIndex)
    }
    const index = new InvertedIndex()
    index.base = {terms, surfaces, starts, postings, load}
    index.byId.length = termCount
    index.docs = DocTerms.live(docs)
    index.lengths = lengths.slice()
    index.live = docs
    for (let slot = 0; slot < docs; slot++) index.totalLength += lengths[slot]!
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
  ): SearchedWord[] {
    this.lastReach = []
    if (this.live === 0) return []
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
    this.lastReach = terms.flatMap((term) => term.reach)
    for (const r of this.lastReach) this.scan(r, acc, accept)
    for (const slot of acc.touched) acc.scores[slot]! *= acc.matched[slot]!
    return [...distinct.values()].map((word) => ({
      word,
      df: word.term === undefined ? 0 : (this.lookup(word.term)?.df ?? 0),
    }))
  }

  /**
   * The postings a query word reaches, with their weights (idf included): its term exactly, then
   * the words it starts and the words a typo away (see loose-match.ts). A looser match never
   * counts more than half of what the word's own term would: exact matches rank first.
   */
  private expand(word: QueryWord, q: number, options: MatchOptions): Reach[] {
    const weights = new Map<Postings, number>()
    const ways = new Map<Postings, MatchWay>()
    const exact = word.term === undefined ? undefined : this.lookup(word.term)
    if (exact) weights.set(exact, 1)
    if (this.live > 0 && (options.prefixMinLength > 0 || options.fuzzyMinLength > 0)) {
      for (const {key, weight, way} of looseMatches(
        word,
        this.keys,
        options,
        exact !== undefined,
        (key) => !key.startsWith(ASKED) && this.postingsOfKey(key).length > 0,
        (key) => this.isWritten(key),
      )) {
        for (const p of this.postingsOfKey(key))
          if ((weights.get(p) ?? 0) < weight) {
            weights.set(p, weight)
            ways.set(p, way)
          }
      }
    }
    const power = options.idfPower
    const idfOf = (p: Postings) => Math.log(1 + (this.live - p.df + 0.5) / (p.df + 0.5)) ** power
    const cap = exact ? idfOf(exact) / 2 : Number.POSITIVE_INFINITY
    return [...weights].map(([p, weight]) => {
      this.read(p)
      if (p.dead > 0) this.sweep(p)
      const way = p === exact ? 'term' : ways.get(p)!
      return {p, weight: p === exact ? idfOf(p) : Math.min(weight * idfOf(p), cap), q, way}
    })
  }

  /**
   * The query words document `slot` matched in the last {@link match}, each once, by its
   * strongest way (its own term, then the way of highest weight), in query order. Postings are
   * in slot order, so each is a binary search: cheap for the few results a search returns.
   */
  matchesOf(slot: number): WordMatch[] {
    const best = new Map<number, {r: Reach}>()
    for (const r of this.lastReach) {
      if (!holds(r.p, slot)) continue
      const had = best.get(r.q)
      if (had === undefined || (had.r.way !== 'term' && (r.way === 'term' || r.weight > had.r.weight)))
        best.set(r.q, {r})
    }
    return [...best.values()].sort((a, b) => a.r.q - b.r.q).map(({r}) => ({q: r.q, way: r.way, term: r.p.text}))
  }

  /** Calls `visit` with each document whose closing question holds `term`. */
  askedAbout(term: string, visit: (slot: number) => void): void {
    const p = this.lookup(ASKED + term)
    if (!p) return
    this.read(p)
    if (p.dead > 0) this.sweep(p)
    for (let i = 0; i < p.size; i += 2) visit(p.entries[i]!)
  }

  /**
   * Whether a key is a word as some fact writes it, not only a stem ("stori", of "stories"): a
   * typo is a misspelt word, so only words are corrected to. The terms no surface word stems to
   * are written as they are; those some word stems to are taken as stems only (their words are
   * keys of their own).
   */
  private isWritten(key: string): boolean {
    if (this.hasSurface(key)) return true
    if (!this.surfaceStems) {
      this.surfaceStems = new Set()
      for (const word of this.sortedSurfaces()) {
        const stem = toTerm(word)
        if (stem) this.surfaceStems.add(stem)
      }
    }
    return !this.surfaceStems.has(key)
  }

  /** The live postings a key leads to: the key as a term, and the term of the key as a word. */
  private postingsOfKey(key: string): Postings[] {
    const out: Postings[] = []
    const asTerm = this.lookup(key)
    if (asTerm) out.push(asTerm)
    if (this.hasSurface(key)) {
      const stem = toTerm(key)
      const viaWord = stem === null ? undefined : this.lookup(stem)
      if (viaWord && viaWord !== asTerm) out.push(viaWord)
    }
    return out
  }

  /** The live postings of a term, or undefined. */
  private lookup(text: string): Postings | undefined {
    const p = this.known(text)
    return p !== undefined && p.df > 0 ? p : undefined
  }

  /** The postings of a term added or loaded, those whose documents are all gone (df 0) included. */
  private known(text: string): Postings | undefined {
    const p = this.dictionary.get(text)
    if (p !== undefined || !this.base) return p
    const t = indexOfSorted(this.base.terms, text)
    return t >= 0 ? this.materialize(t) : undefined
  }

  private postingsById(id: number): Postings | undefined {
    return this.byId[id] ?? (this.base && id < this.base.terms.length ? this.materialize(id) : undefined)
  }

  /** The loaded term `t` as postings, its saved entries not read yet (see {@link read}). */
  private materialize(t: number): Postings {
    const {terms, starts} = this.base!
    const from = starts[t]!
    const to = starts[t + 1]!
    const p: Postings = {id: t, text: terms.at(t)!, entries: EMPTY, size: 0, df: (to - from) / 2, dead: 0}
    if (to > from) p.unread = {from, to}
    this.dictionary.set(p.text, p)
    this.byId[t] = p
    return p
  }

  /**
   * Reads a loaded term's saved entries in front of those added since: a view into the loaded
   * array when nothing was added, else one array of both (added slots are all higher).
   */
  private read(p: Postings): void {
    if (!p.unread) return
    const {from, to} = p.unread
    const {postings, load} = this.base!
    load(from, to)
    const saved = postings.subarray(from, to)
    if (p.size === 0) p.entries = saved
    else {
      const both = new Uint32Array(saved.length + p.size)
      both.set(saved)
      both.set(p.entries.subarray(0, p.size), saved.length)
      p.entries = both
    }
    p.size += saved.length
    p.unread = undefined
  }

  private hasSurface(word: string): boolean {
    return this.surfaces.has(word) || (this.base !== undefined && indexOfSorted(this.base.surfaces, word) >= 0)
  }

  private sortedSurfaces(): string[] {
    const added = [...this.surfaces].sort()
    return this.base ? mergeSorted(allLines(this.base.surfaces), added) : added
  }

  /** Where loose matching finds its keys (loose-match.ts). */
  private readonly keys: KeySource = {
    withPrefix: (prefix) => {
      // Sorted, so that a loaded index and one built here sum a document's parts in the same order.
      if (this.radix) return this.radix.withPrefix(prefix)
      const found = new Set<string>()
      if (this.base) {
        for (const lines of [this.base.terms, this.base.surfaces]) {
          const [from, to] = prefixRange(lines, prefix)
          for (let i = from; i < to; i++) found.add(lines.at(i)!)
        }
      }
      for (const key of this.recentKeys().withPrefix(prefix)) found.add(key)
      return [...found].sort()
    },
    tree: () => this.tree(),
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

  /** The terms added since loading (all of them, for an index built here), sorted. */
  private addedTerms(): string[] {
    const loaded = this.base?.terms.length ?? 0
    const out: string[] = []
    for (const p of this.dictionary.values()) if (p.id >= loaded && p.df > 0) out.push(p.text)
    return out.sort()
  }

  /** The tree over the keys added since loading, for prefix lookups; built when first needed. */
  private recentKeys(): TermTree {
    if (!this.recent) {
      const keys = mergeSorted(this.addedTerms(), [...this.surfaces].sort())
      this.recent = TermTree.fromSorted(keys)
    }
    return this.recent
  }

  /** The radix tree over every term and surface word, for typo lookups; built when first needed. */
  private tree(): TermTree {
    if (!this.radix) {
      let terms = this.addedTerms()
      if (this.base) {
        const loaded = allLines(this.base.terms).filter((text, t) => (this.byId[t]?.df ?? 1) > 0)
        terms = mergeSorted(loaded, terms)
      }
      this.radix = TermTree.fromSorted(mergeSorted(terms, this.sortedSurfaces()))
    }
    return this.radix
  }

  /** Drops entries of removed documents. Amortised: after many removals, or before scoring. */
  private sweep(p: Postings): void {
    this.read(p)
    // In place: a loaded term's view is its own part of the loaded array.
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
    let p = this.known(text)
    if (!p) {
      p = {id: this.byId.length, text, entries: EMPTY, size: 0, df: 0, dead: 0}
      this.byId.push(p)
      this.dictionary.set(text, p)
    }
    // New, or back after all its documents had gone (the trees are built from live terms).
    if (p.df === 0) {
      this.recent?.add(text)
      this.radix?.add(text)
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

/** Whether a term's postings (swept, in slot order) hold `slot`. */
function holds(p: Postings, slot: number): boolean {
  const e = p.entries
  let lo = 0
  let hi = p.size / 2 - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const at = e[mid * 2]!
    if (at === slot) return true
    if (at < slot) lo = mid + 1
    else hi = mid - 1
  }
  return false
}

/** Each posting of postings[from..to) names one of `docs` documents, at least once. */
function checkPostings(
  postings: Uint32Array,
  from: number,
  to: number,
  docs: number,
  Failure: new (message: string) => Error,
): void {
  for (let i = from; i < to; i += 2) if (postings[i]! >= docs || postings[i + 1]! < 1) throw new Failure('bad postings')
}

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

/**
 * A table of rows, row r holding [column, value, ...] pairs at entries[starts[r]..starts[r+1]),
 * turned the other way: column c's [row, value, ...] pairs, in row order, each exactly as long
 * as it needs. Documents' [term, tf] pairs become each term's postings, and back.
 */
function transpose(
  starts: Uint32Array,
  entries: Uint32Array,
  columns: number,
): {starts: Uint32Array; entries: Uint32Array} {
  const out = new Uint32Array(columns + 1)
  for (let i = 0; i < entries.length; i += 2) out[entries[i]! + 1]! += 2
  for (let c = 0; c < columns; c++) out[c + 1]! += out[c]!
  const fill = out.slice(0, columns)
  const turned = new Uint32Array(entries.length)
  for (let row = 0; row + 1 < starts.length; row++) {
    for (let i = starts[row]!; i < starts[row + 1]!; i += 2) {
      const c = entries[i]!
      turned[fill[c]!++] = row
      turned[fill[c]!++] = entries[i + 1]!
    }
  }
  return {starts: out, entries: turned}
}

/** Each of `docs` documents' [term, tf, ...] pairs from the postings, document i at pairs[offsets[i]..offsets[i+1]), terms in increasing order. */
export function docPairs(
  docs: number,
  starts: Uint32Array,
  postings: Uint32Array,
): {offsets: Uint32Array; pairs: Uint32Array} {
  const turned = transpose(starts, postings, docs)
  return {offsets: turned.starts, pairs: turned.entries}
}

/** Appends one document to a term's postings, growing them by half when full. */
function push(p: Postings, slot: number, tf: number): void {
  if (p.size + 2 > p.entries.length) {
    const grown = new Uint32Array(Math.max(8, Math.ceil((p.size + 2) * 1.5)))
    grown.set(p.entries.subarray(0, p.size))
    p.entries = grown
  }
  p.entries[p.size++] = slot
  p.entries[p.size++] = tf
}

/**
 * Which slots hold a live document and, once a removal needs them, every live document's
 * distinct terms and counts, [termId, tf, ...], in arena[from[slot]..to[slot]): one growing
 * array instead of a typed array per document, which at 100,000 facts saves megabytes of array
 * headers and as many objects for the garbage collector to trace. Until the first removal the
 * pairs are not kept at all: the postings hold the same numbers, so that an index built or
 * loaded and then searched or saved (an import, a rebuild, most servers' day) holds them once,
 * and the first removal works them all out from the postings ({@link keep}). Space left by
 * removed or re-indexed documents is reclaimed by compacting once it is half the arena.
 */
class DocTerms {
  arena: Uint32Array = new Uint32Array(0)
  from: Uint32Array = new Uint32Array(0)
  to: Uint32Array = new Uint32Array(0)
  /** Whether the pairs are kept; until then `arena`, `from` and `to` are unused. */
  kept = false
  /** One past the highest slot attached. */
  slots = 0
  private alive = new Uint8Array(0)
  private used = 0
  private garbage = 0

  /** Slots 0..count) live, their pairs not kept. */
  static live(count: number): DocTerms {
    const docs = new DocTerms()
    docs.alive = new Uint8Array(Math.max(count, 1024)).fill(1, 0, count)
    docs.slots = count
    return docs
  }

  /** Keeps the pairs of the slots attached so far, as {@link InvertedIndex.allPairs} works them out; new documents' follow. */
  keep({offsets, pairs}: {offsets: Uint32Array; pairs: Uint32Array}): void {
    const size = this.alive.length
    this.from = new Uint32Array(size)
    this.to = new Uint32Array(size)
    this.from.set(offsets.subarray(0, this.slots))
    this.to.set(offsets.subarray(1, this.slots + 1))
    this.arena = pairs
    this.used = pairs.length
    this.garbage = 0
    this.kept = true
  }

  has(slot: number): boolean {
    return this.alive[slot] === 1
  }

  /** Room for `count` more numbers at the end of the arena; returns where they go. Only once kept. */
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
    if (slot >= this.alive.length) {
      const size = Math.max(slot + 1, this.alive.length * 2, 1024)
      const alive = new Uint8Array(size)
      alive.set(this.alive)
      this.alive = alive
      if (this.kept) {
        this.from = grow(this.from, size)
        this.to = grow(this.to, size)
      }
    }
    if (this.kept) {
      this.from[slot] = from
      this.to[slot] = to
    }
    this.alive[slot] = 1
    this.slots = Math.max(this.slots, slot + 1)
  }

  remove(slot: number): void {
    if (this.kept) this.garbage += this.to[slot]! - this.from[slot]!
    this.alive[slot] = 0
  }

  private compact(): void {
    const arena = new Uint32Array(Math.max(1024, Math.ceil((this.used - this.garbage) * 1.5)))
    let w = 0
    for (let slot = 0; slot < this.slots; slot++) {
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
