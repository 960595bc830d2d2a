import {Context, type Links} from './context.js'
import {Accumulator} from './accumulator.js'
import {InvertedIndex, type Bm25, type CompactDocs} from './inverted-index.js'
import {datesInQuery, inAnySpan} from './query-dates.js'
import {endsWithQuestion} from './questions.js'
import {topK} from './top-k.js'
import {analyze} from './tokenize.js'

/** What the index needs to know about a live fact. */
export interface IndexedFact {
  id: string
  content: string
  tags: string[]
  created_at: string
}

export interface SearchOptions {
  limit: number
  /** Every tag listed must be on the fact. */
  tags?: string[]
  /** Only facts created at or after this ISO time. */
  since?: string
  /** Only facts created strictly before this ISO time. */
  until?: string
}

export interface Hit {
  id: string
  /** Relevance (BM25+ with context and date adjustments, see docs/search.md): higher is better, comparable within one search only. */
  score: number
}

/**
 * The ranking choices, gathered so the benchmark can switch each one off and show what it is
 * worth. The app uses {@link DEFAULT_TUNING}.
 */
export interface Tuning {
  bm25: Bm25
  /** Query terms (stems) at least this long also match longer indexed terms they start. 0: off. */
  prefixMinLength: number
  /** Query terms (stems) at least this long also match terms one edit away. 0: off. */
  fuzzyMinLength: number
  /** Weight of a prefix or fuzzy match relative to an exact match. */
  weights: {prefix: number; fuzzy: number}
  /** Share of a matching fact's score lent to the fact next to it; share² two steps away. 0: off. */
  context: number
  /** Share of its score a fact that ends with a question lends to the fact after it, its reply. Equal to `context`: off. */
  replyShare: number
  /** How many facts away, either side, a match lends score. */
  contextReach: number
  /** Facts created further apart than this (ms) are not context for each other. */
  contextWindowMs: number
  /** Score multiplier for facts created within a date the query spells out. 1: off. */
  dateBoost: number
}

export const DEFAULT_TUNING: Readonly<Tuning> = {
  // MiniSearch's defaults (Lucene-like k and b, BM25+ floor d). On LoCoMo other values moved
  // nothing beyond noise, so there is no reason to depart from well-known ones.
  bm25: {k: 1.2, b: 0.7, d: 0.5},
  // Stems are already normalised, so prefix and fuzzy matching only serve typos and odd
  // inflections; on short stems they mostly add noise ("car" -> "card"), at a cost.
  prefixMinLength: 5,
  fuzzyMinLength: 5,
  // MiniSearch's default weights for looser matches.
  weights: {prefix: 0.375, fuzzy: 0.45},
  // Round numbers, not fitted: a neighbour gets half, two steps away a quarter.
  context: 0.5,
  contextReach: 2,
  // What a question is about is answered by what comes after it, and that reply seldom repeats
  // the question's words ("What concert was it?" - "It was Matt Patterson!"): the reply gets the
  // question's whole score, so it ranks at least as high as the question (ties go to the newer).
  replyShare: 1,
  // The usual web-analytics session timeout: facts saved within half an hour of each other
  // are taken as one sitting.
  contextWindowMs: 30 * 60 * 1000,
  // Naming a date counts about as much as matching one more query word.
  dateBoost: 2,
}

/** Serialised form, so a cold process can load the index instead of re-indexing every fact. */
export interface FactIndexJSON {
  version: 2
  /**
   * Live facts in insertion order: [id, created_at, tags, [term index, tf, term index, tf, ...]],
   * then 1 if the fact ends with a question (omitted otherwise).
   */
  facts: [string, string, string[], number[], 1?][]
  /** Stemmed terms referenced by `facts`. */
  terms: string[]
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
}

const NONE = -1
const NO_TAGS: string[] = []

/**
 * Full-text index over one agent's live facts: BM25+ over stemmed words without stopwords,
 * plus a share of neighbouring facts' scores and a boost for dates the query names (see
 * docs/search.md). Facts live in numbered slots, in insertion order.
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
  private links: Links = {prev: new Int32Array(0), next: new Int32Array(0), times: new Float64Array(0), asks: new Uint8Array(0)}
  private last = NONE
  /** Live facts that end with a question: while there are none, no fact lends more than `context`. */
  private asking = 0
  private readonly acc = new Accumulator()
  /** Final scores of one search's candidates, reused: a common word makes tens of thousands. */
  private finalScores = new Float64Array(0)
  private readonly context = new Context()

  constructor(tuning: Partial<Tuning> = {}) {
    this.tuning = {...DEFAULT_TUNING, ...tuning}
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
    const terms = [...analyze(fact.content), ...analyze(fact.tags.join(' '))]
    const existing = this.slotOf.get(fact.id)
    if (existing !== undefined) {
      // An edited fact keeps its slot, and so its place among the facts saved around it.
      this.index.remove(existing)
      this.index.add(existing, terms)
      this.setMeta(existing, fact.created_at, this.tagSet(fact.tags))
      this.setAsks(existing, endsWithQuestion(fact.content))
      return
    }
    const slot = this.ids.length
    this.index.add(slot, terms)
    this.place(slot, fact.id, fact.created_at, this.tagSet(fact.tags))
    this.setAsks(slot, endsWithQuestion(fact.content))
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    this.index.remove(slot)
    const {prev, next} = this.links
    const p = prev[slot]!
    const n = next[slot]!
    if (p !== NONE) next[p] = n
    if (n !== NONE) prev[n] = p
    else this.last = p
    this.setAsks(slot, false)
    this.slotOf.delete(id)
    this.ids[slot] = undefined
    this.tagsOf[slot] = NO_TAGS
  }

  search(query: string, options: SearchOptions): Hit[] {
    const limit = Number.isFinite(options.limit) ? Math.max(0, Math.floor(options.limit)) : 0
    if (limit === 0 || this.size === 0) return []
    const terms = analyze(query)
    // Only stopwords ("what is it?"): nothing to look for, and matching everything would be noise.
    if (terms.length === 0) return []

    const t = this.tuning
    const acc = this.acc
    const accept = this.filterFor(options)
    const spans = t.dateBoost === 1 ? [] : datesInQuery(query)
    const times = this.links.times
    const dateBoostOf = (slot: number) => (spans.length > 0 && inAnySpan(times[slot]!, spans) ? t.dateBoost : 1)
    const maxDateBoost = spans.length > 0 ? Math.max(1, t.dateBoost) : 1
    const useContext = t.context > 0 && t.contextReach > 0
    // The most any fact lends a neighbour, as a share of its own score: the tighter, the more the
    // index and the context may skip.
    const replyShare = this.asking > 0 ? t.replyShare : t.context
    const maxShare = Math.max(t.context, replyShare)
    try {
      acc.ensure(this.ids.length)
      const own = acc.scores
      // maxBoost: the most a score can still grow after matching, so the index knows which
      // facts it may skip (see InvertedIndex.match).
      this.index.match(terms, t, acc, {want: limit, maxBoost: maxDateBoost * (useContext ? 1 + maxShare : 1), accept})
      const matches = acc.touched
      if (spans.length > 0) for (const slot of matches) own[slot]! *= dateBoostOf(slot)

      let candidates: readonly number[] = matches
      let finalOf = (slot: number) => own[slot]!
      if (useContext) {
        ;({candidates, finalOf} = this.context.rank(
          {
            matches,
            own,
            limit,
            unseen: (slot) => this.index.scoreUnseen(slot) * dateBoostOf(slot),
            unseenMax: this.index.lateBound() * maxDateBoost,
          },
          this.links,
          {share: t.context, replyShare, reach: t.contextReach, windowMs: t.contextWindowMs, accept},
        ))
      }

      if (this.finalScores.length < candidates.length) this.finalScores = new Float64Array(Math.max(candidates.length, this.finalScores.length * 2))
      const finalScore = this.finalScores
      for (let i = 0; i < candidates.length; i++) finalScore[i] = round(finalOf(candidates[i]!))
      const order = topK(candidates.length, limit, (a, b) => this.ranksBefore(candidates[a]!, finalScore[a]!, candidates[b]!, finalScore[b]!))
      return order.map((i) => ({id: this.ids[candidates[i]!]!, score: finalScore[i]!}))
    } finally {
      acc.reset()
      this.context.reset()
    }
  }

  toJSON(): FactIndexJSON {
    const slots: number[] = []
    for (let s = this.first(); s !== NONE; s = this.links.next[s]!) slots.push(s)
    const {terms, docs} = this.index.serialize(slots)
    const asks = this.links.asks
    return {
      version: 2,
      terms,
      facts: slots.map((s, i) => {
        const fact: [string, string, string[], number[], 1?] = [this.ids[s]!, this.createdAt[s]!, this.tagsOf[s]!, docs[i]!]
        if (asks[s] === 1) fact.push(1)
        return fact
      }),
    }
  }

  /** Loads what {@link toJSON} produced (the object or its JSON text) without re-analysing any text. */
  static fromJSON(json: FactIndexJSON | string, tuning: Partial<Tuning> = {}): FactIndex {
    const data = (typeof json === 'string' ? JSON.parse(json) : json) as FactIndexJSON
    if (data?.version !== 2 || !Array.isArray(data.facts) || !Array.isArray(data.terms)) {
      throw new Error('FactIndex.fromJSON: not a serialised FactIndex (version 2)')
    }
    const out = new FactIndex(tuning)
    try {
      out.index = InvertedIndex.deserialize({terms: data.terms, docs: data.facts.map((f) => (Array.isArray(f) ? f[3] : undefined) ?? [])})
    } catch (error) {
      throw new Error(`FactIndex.fromJSON: ${(error as Error).message}`)
    }
    data.facts.forEach(([id, createdAt, tags, , asks], slot) => {
      if (typeof id !== 'string' || out.slotOf.has(id)) throw new Error(`FactIndex.fromJSON: bad or repeated id ${JSON.stringify(id)}`)
      if (typeof createdAt !== 'string' || !Array.isArray(tags)) throw new Error(`FactIndex.fromJSON: bad fact ${JSON.stringify(id)}`)
      if (asks !== undefined && asks !== 1) throw new Error(`FactIndex.fromJSON: bad fact ${JSON.stringify(id)}`)
      out.place(slot, id, createdAt, out.tagSet(tags))
      out.setAsks(slot, asks === 1)
    })
    return out
  }

  /** The index in {@link CompactFactIndex} form, for saving. */
  toCompact(): CompactFactIndex {
    const slots: number[] = []
    for (let s = this.first(); s !== NONE; s = this.links.next[s]!) slots.push(s)
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
      times: Float64Array.from(slots, (s) => this.links.times[s]!),
      tagLists,
      tagOf,
      asks: Uint8Array.from(slots, (s) => this.links.asks[s]!),
      ...this.index.serializeCompact(slots),
    }
  }

  /**
   * Loads what {@link toCompact} produced without re-analysing any text. Fact i gets slot i, in
   * one pass of plain array work: this is what a cold `mem search` waits for.
   */
  static fromCompact(data: CompactFactIndex, tuning: Partial<Tuning> = {}): FactIndex {
    const n = data.ids.length
    if ([data.offsets.length - 1, data.createdAt.length, data.times.length, data.tagOf.length, data.asks.length].some((length) => length !== n)) {
      throw new Error('FactIndex.fromCompact: ids, documents and their details differ in number')
    }
    const out = new FactIndex(tuning)
    try {
      out.index = InvertedIndex.deserializeCompact(data)
    } catch (error) {
      throw new Error(`FactIndex.fromCompact: ${(error as Error).message}`)
    }
    const lists = data.tagLists.map((tags) => {
      if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) throw new Error('FactIndex.fromCompact: bad tag list')
      return out.tagSet(tags)
    })
    out.ids = data.ids.slice()
    out.createdAt = data.createdAt.slice()
    out.tagsOf = new Array<string[]>(n)
    out.ensureLinks(n)
    const {prev, next, times, asks} = out.links
    for (let slot = 0; slot < n; slot++) {
      const id = data.ids[slot]!
      const tags = lists[data.tagOf[slot]!]
      if (typeof id !== 'string' || out.slotOf.has(id)) throw new Error(`FactIndex.fromCompact: bad or repeated id ${JSON.stringify(id)}`)
      if (typeof data.createdAt[slot] !== 'string' || tags === undefined || data.asks[slot]! > 1) throw new Error(`FactIndex.fromCompact: bad details for ${JSON.stringify(id)}`)
      out.slotOf.set(id, slot)
      out.tagsOf[slot] = tags
      prev[slot] = slot - 1
      next[slot] = slot + 1 < n ? slot + 1 : NONE
      out.asking += data.asks[slot]!
    }
    times.set(data.times)
    asks.set(data.asks)
    out.last = n - 1
    return out
  }

  /** Appends `slot` at the end of the insertion order; `tags` comes from {@link tagSet}. */
  private place(slot: number, id: string, createdAt: string, tags: string[]): void {
    this.ensureLinks(slot + 1)
    this.slotOf.set(id, slot)
    this.ids[slot] = id
    this.setMeta(slot, createdAt, tags)
    this.links.prev[slot] = this.last
    this.links.next[slot] = NONE
    if (this.last !== NONE) this.links.next[this.last] = slot
    this.last = slot
  }

  private setMeta(slot: number, createdAt: string, tags: string[]): void {
    this.createdAt[slot] = createdAt
    this.tagsOf[slot] = tags
    this.links.times[slot] = Date.parse(createdAt)
  }

  private setAsks(slot: number, asks: boolean): void {
    this.asking += (asks ? 1 : 0) - this.links.asks[slot]!
    this.links.asks[slot] = asks ? 1 : 0
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

  private first(): number {
    let s = this.last
    while (s !== NONE && this.links.prev[s]! !== NONE) s = this.links.prev[s]!
    return s
  }

  private ensureLinks(capacity: number): void {
    const {prev, next, times, asks} = this.links
    if (prev.length >= capacity) return
    const size = Math.max(capacity, prev.length * 2, 1024)
    const grown = {prev: new Int32Array(size).fill(NONE), next: new Int32Array(size).fill(NONE), times: new Float64Array(size), asks: new Uint8Array(size)}
    grown.prev.set(prev)
    grown.next.set(next)
    grown.times.set(times)
    grown.asks.set(asks)
    this.links = grown
  }

  /** undefined when every live fact qualifies, which spares a call per match. */
  private filterFor(options: SearchOptions): ((slot: number) => boolean) | undefined {
    const wanted = options.tags ?? []
    const since = options.since === undefined ? undefined : Date.parse(options.since)
    const until = options.until === undefined ? undefined : Date.parse(options.until)
    if (wanted.length === 0 && since === undefined && until === undefined) return undefined
    const times = this.links.times
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
