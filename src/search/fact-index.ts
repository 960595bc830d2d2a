import {Accumulator} from './accumulator.js'
import {rankingFeatures, type Ranking, type RankingFeature} from './features/index.js'
import {InvertedIndex, type Bm25, type CompactDocs} from './inverted-index.js'
import {endsWithQuestion} from './questions.js'
import {Threads} from './threads.js'
import {topK} from './top-k.js'
import {analyzeWords, queryWords} from './tokenize.js'
import type {LooseRules} from './loose-match.js'

/** What the index needs to know about a live fact. */
export interface IndexedFact {
  id: string
  content: string
  tags: string[]
  created_at: string
  /** The conversation the fact is a turn of: only facts of one thread are context for each other. */
  thread?: string
}

export interface SearchOptions {
  limit: number
  /** Every tag listed must be on the fact. */
  tags?: string[]
  /** Only facts created at or after this ISO time. */
  since?: string
  /** Only facts created strictly before this ISO time. */
  until?: string
  /** The query is being typed: its last word, unless followed by a space, matches the words it starts from its first letter. */
  partial?: boolean
}

export interface Hit {
  id: string
  /** Relevance (BM25+ with context and date adjustments, see docs/search.md): higher is better, comparable within one search only. */
  score: number
  /** Set when the fact matched none of the query's terms: the matching fact of its thread whose context it is. */
  contextFor?: string
}

/**
 * The ranking choices, gathered so the benchmark can switch each one off and show what it is
 * worth. The app uses {@link DEFAULT_TUNING}.
 */
export interface Tuning extends LooseRules {
  bm25: Bm25
  /** Share of a matching fact's score lent to the fact next to it; share² two steps away. 0: off. */
  context: number
  /** Share of its score a fact that ends with a question lends to the fact after it, its reply. Equal to `context`: off. */
  replyShare: number
  /** How many turns away, either side within its thread, a match lends score. */
  contextReach: number
  /** Score multiplier for facts created within a date the query spells out. 1: off. */
  dateBoost: number
}

export const DEFAULT_TUNING: Readonly<Tuning> = {
  // MiniSearch's defaults (Lucene-like k and b, BM25+ floor d). On LoCoMo other values moved
  // nothing beyond noise, so there is no reason to depart from well-known ones.
  bm25: {k: 1.2, b: 0.7, d: 0.5},
  // A word of three letters or more matches the words it starts ("kube", "graf", "terra");
  // shorter ones would match too much, but for the word being typed in the browser.
  prefixMinLength: 3,
  prefixMaxWords: 50,
  // One typo in a word of four letters or more ("pnmp", "coffe"), two from eight ("migratoin"):
  // shorter words have too many neighbours one edit away.
  fuzzyMinLength: 4,
  fuzzyTwoMinLength: 8,
  // MiniSearch's default weights for looser matches.
  weights: {prefix: 0.375, fuzzy: 0.45},
  // Round numbers, not fitted: a neighbour gets half, two steps away a quarter.
  context: 0.5,
  contextReach: 2,
  // What a question is about is answered by what comes after it, and that reply seldom repeats
  // the question's words ("What concert was it?" - "It was Matt Patterson!"): the reply gets the
  // question's whole score, so it ranks at least as high as the question (ties go to the newer).
  replyShare: 1,
  // Naming a date counts about as much as matching one more query word.
  dateBoost: 2,
}

/**
 * The compact saved form: live fact ids in insertion order, their analysed terms (see
 * {@link CompactDocs}), and what ranking and filtering read of each fact besides its words:
 * its date, its tags and whether it asks.
 */
export interface CompactFactIndex extends CompactDocs {
  ids: string[]
  createdAt: string[]
  /** created_at as milliseconds since 1970, as Date.parse reads it. */
  times: Float64Array
  /** The distinct tag lists, and for each fact the position of its list in them. */
  tagLists: readonly (readonly string[])[]
  tagOf: Uint32Array
  /** 1 where the fact ends with a question. */
  asks: Uint8Array
  /** The distinct threads, and for each fact 0 (none) or 1 + the position of its thread in them. */
  threads: readonly string[]
  threadOf: Uint32Array
}

const NO_TAGS: string[] = []

/**
 * Full-text index over one agent's live facts: BM25+ over stemmed words without stopwords,
 * plus a share of neighbouring facts' scores and a boost for dates the query names (see
 * docs/search.md). Facts live in numbered slots, in insertion order; context flows only between
 * facts of one thread (see {@link Threads}).
 * Ties in score order newest first, so equal results come back in a stable order.
 */
export class FactIndex {
  private readonly tuning: Tuning
  private index = new InvertedIndex()
  private readonly slotOf = new Map<string, number>()
  private ids: (string | undefined)[] = []
  private createdAt: string[] = []
  private tagsOf: string[][] = []
  private readonly tagSets = new Map<string, string[]>()
  private times = new Float64Array(0)
  private asks = new Uint8Array(0)
  private readonly threads = new Threads((a, b) => this.earlier(a, b))
  private readonly acc = new Accumulator()
  /** What ranks facts besides their words, applied in this order after text relevance. */
  private readonly features: readonly RankingFeature[]

  constructor(tuning: Partial<Tuning> = {}) {
    this.tuning = {...DEFAULT_TUNING, ...tuning}
    this.features = rankingFeatures(this.tuning)
  }

  get size(): number {
    return this.slotOf.size
  }

  has(id: string): boolean {
    return this.slotOf.has(id)
  }

  /** Where a fact sits: an index loaded by {@link fromCompact} keeps each fact at its place in the saved form. */
  slot(id: string): number | undefined {
    return this.slotOf.get(id)
  }

  add(fact: IndexedFact): void {
    const content = analyzeWords(fact.content)
    const tags = analyzeWords(fact.tags.join(' '))
    const terms = [...content.terms, ...tags.terms]
    const surfaces = [...content.surfaces, ...tags.surfaces]
    // An edited fact takes a new slot: postings keep a removed slot's entries until a sweep, and
    // a slot that came back to life would count them beside its new ones.
    this.remove(fact.id)
    const slot = this.ids.length
    this.index.add(slot, terms, surfaces)
    this.ensureSlots(slot + 1)
    this.slotOf.set(fact.id, slot)
    this.ids[slot] = fact.id
    this.setMeta(slot, fact.created_at, this.tagSet(fact.tags))
    this.setAsks(slot, endsWithQuestion(fact.content))
    this.threads.link(slot, fact.thread)
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    this.index.remove(slot)
    this.threads.unlink(slot)
    this.setAsks(slot, false)
    this.slotOf.delete(id)
    this.ids[slot] = undefined
    this.tagsOf[slot] = NO_TAGS
  }

  search(query: string, options: SearchOptions): Hit[] {
    const limit = Number.isFinite(options.limit) ? Math.max(0, Math.floor(options.limit)) : 0
    if (limit === 0 || this.size === 0) return []
    const terms = queryWords(query, options.partial)
    // Only stopwords ("what is it?"): nothing to look for, and matching everything would be noise.
    if (terms.length === 0) return []

    const acc = this.acc
    const accept = this.filterFor(options)
    try {
      // Text relevance: BM25+ with coordination, looser matches at reduced weight.
      acc.ensure(this.ids.length)
      this.index.match(terms, this.tuning, acc, accept)
      // Then each feature, over the scores the ones before it left (see features/index.ts).
      const ranking: Ranking = {
        query,
        limit,
        candidates: acc.touched,
        scores: acc.scores,
        contextFor: new Map(),
        accept,
        facts: {times: this.times, asks: this.asks, prev: this.threads.prev, next: this.threads.next},
      }
      for (const feature of this.features) feature.apply(ranking)

      const {candidates, scores, contextFor} = ranking
      for (const slot of candidates) scores[slot] = round(scores[slot]!)
      const order = topK(candidates.length, limit, (a, b) =>
        this.ranksBefore(candidates[a]!, scores[candidates[a]!]!, candidates[b]!, scores[candidates[b]!]!),
      )
      return order.map((i) => {
        const slot = candidates[i]!
        const lender = contextFor.get(slot)
        const hit: Hit = {id: this.ids[slot]!, score: scores[slot]!}
        return lender === undefined ? hit : {...hit, contextFor: this.ids[lender]!}
      })
    } finally {
      // Clears every candidate's score, those a feature brought in too.
      acc.reset()
    }
  }

  /** The index in {@link CompactFactIndex} form, for saving. */
  toCompact(): CompactFactIndex {
    const slots: number[] = []
    for (let s = 0; s < this.ids.length; s++) if (this.ids[s] !== undefined) slots.push(s)
    const listAt = new Map<readonly string[], number>()
    const tagLists: (readonly string[])[] = []
    const tagOf = Uint32Array.from(slots, (s) => {
      const list = this.tagsOf[s]!
      let at = listAt.get(list)
      if (at === undefined) {
        at = tagLists.push(list) - 1
        listAt.set(list, at)
      }
      return at
    })
    return {
      ids: slots.map((s) => this.ids[s]!),
      createdAt: slots.map((s) => this.createdAt[s]!),
      times: Float64Array.from(slots, (s) => this.times[s]!),
      tagLists,
      tagOf,
      asks: Uint8Array.from(slots, (s) => this.asks[s]!),
      threads: this.threads.names,
      threadOf: Uint32Array.from(slots, (s) => this.threads.threadOf[s]!),
      ...this.index.serializeCompact(slots),
    }
  }

  /**
   * Loads what {@link toCompact} produced without re-analysing any text. Fact i gets slot i, in
   * one pass of plain array work: this is what a cold `mem search` waits for.
   */
  static fromCompact(data: CompactFactIndex, tuning: Partial<Tuning> = {}): FactIndex {
    const n = data.ids.length
    if (
      [
        data.offsets.length - 1,
        data.createdAt.length,
        data.times.length,
        data.tagOf.length,
        data.asks.length,
        data.threadOf.length,
      ].some((length) => length !== n)
    ) {
      throw new Error('FactIndex.fromCompact: ids, documents and their details differ in number')
    }
    const out = new FactIndex(tuning)
    try {
      out.index = InvertedIndex.deserializeCompact(data)
    } catch (error) {
      throw new Error(`FactIndex.fromCompact: ${(error as Error).message}`)
    }
    const lists = data.tagLists.map((tags) => {
      if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string'))
        throw new Error('FactIndex.fromCompact: bad tag list')
      return out.tagSet(tags)
    })
    out.ids = data.ids.slice()
    out.createdAt = data.createdAt.slice()
    out.tagsOf = new Array<string[]>(n)
    out.ensureSlots(n)
    for (let slot = 0; slot < n; slot++) {
      const id = data.ids[slot]!
      const tags = lists[data.tagOf[slot]!]
      if (typeof id !== 'string' || out.slotOf.has(id))
        throw new Error(`FactIndex.fromCompact: bad or repeated id ${JSON.stringify(id)}`)
      if (typeof data.createdAt[slot] !== 'string' || tags === undefined || data.asks[slot]! > 1)
        throw new Error(`FactIndex.fromCompact: bad details for ${JSON.stringify(id)}`)
      out.slotOf.set(id, slot)
      out.tagsOf[slot] = tags
    }
    out.times.set(data.times)
    out.asks.set(data.asks)
    try {
      out.threads.load(n, data.threads, data.threadOf)
    } catch (error) {
      throw new Error(`FactIndex.fromCompact: ${(error as Error).message}`)
    }
    return out
  }

  private setMeta(slot: number, createdAt: string, tags: string[]): void {
    this.createdAt[slot] = createdAt
    this.tagsOf[slot] = tags
    this.times[slot] = Date.parse(createdAt)
  }

  private setAsks(slot: number, asks: boolean): void {
    this.asks[slot] = asks ? 1 : 0
  }

  /**
   * One shared copy per distinct list of tags: most facts repeat a few lists, and 100,000
   * copies of the same two tags cost megabytes.
   */
  private tagSet(tags: readonly string[]): string[] {
    if (tags.length === 0) return NO_TAGS
    const key = JSON.stringify(tags)
    let shared = this.tagSets.get(key)
    if (shared === undefined) {
      shared = [...tags]
      this.tagSets.set(key, shared)
    }
    return shared
  }

  /** Order within a thread: by creation time, then id. */
  private earlier(a: number, b: number): boolean {
    const ta = this.times[a]!
    const tb = this.times[b]!
    if (ta !== tb) return ta < tb
    return this.ids[a]! < this.ids[b]!
  }

  private ensureSlots(capacity: number): void {
    this.threads.ensure(capacity)
    if (this.times.length >= capacity) return
    const size = Math.max(capacity, this.times.length * 2, 1024)
    const times = new Float64Array(size)
    times.set(this.times)
    const asks = new Uint8Array(size)
    asks.set(this.asks)
    this.times = times
    this.asks = asks
  }

  /** undefined when every live fact qualifies, which spares a call per match. */
  private filterFor(options: SearchOptions): ((slot: number) => boolean) | undefined {
    const wanted = options.tags ?? []
    const since = options.since === undefined ? undefined : Date.parse(options.since)
    const until = options.until === undefined ? undefined : Date.parse(options.until)
    if (wanted.length === 0 && since === undefined && until === undefined) return undefined
    const times = this.times
    return (slot) => {
      // Negated tests, so that an unparseable bound (NaN) excludes rather than includes.
      if (since !== undefined && !(times[slot]! >= since)) return false
      if (until !== undefined && !(times[slot]! < until)) return false
      if (wanted.length === 0) return true
      const tags = this.tagsOf[slot]!
      return wanted.every((tag) => tags.includes(tag))
    }
  }

  /** Higher score first; ties newest first (created_at, then id, both descending). */
  private ranksBefore(a: number, scoreA: number, b: number, scoreB: number): boolean {
    if (scoreA !== scoreB) return scoreA > scoreB
    const ca = this.createdAt[a]!
    const cb = this.createdAt[b]!
    if (ca !== cb) return ca > cb
    return this.ids[a]! > this.ids[b]!
  }
}

/** Scores are rounded so that ties are ties on every platform and in every process. */
function round(score: number): number {
  return Math.round(score * 1e4) / 1e4
}
