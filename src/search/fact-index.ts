import MiniSearch, {type AsPlainObject, type Options, type SearchOptions as MiniSearchOptions} from 'minisearch'

import {addContext, type Neighbours} from './context.js'
import {datesInQuery, inAnySpan} from './query-dates.js'
import {analyze, tokenize, toTerm} from './tokenize.js'

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
  /** BM25 relevance plus context and date adjustments: higher is better, comparable within one search only. */
  score: number
}

/**
 * The ranking choices, gathered so the benchmark can switch each one off and show what it is
 * worth. The app uses {@link DEFAULT_TUNING}.
 */
export interface Tuning {
  /** MiniSearch's BM25+ parameters: term-frequency saturation k, length normalisation b, floor d. */
  bm25: {k: number; b: number; d: number}
  /** Query terms (stems) at least this long also match longer indexed terms they start. 0: off. */
  prefixMinLength: number
  /** Query terms (stems) at least this long also match terms one edit away. 0: off. */
  fuzzyMinLength: number
  /** Weight of a prefix or fuzzy match relative to an exact match. */
  weights: {prefix: number; fuzzy: number}
  /** Share of a matching fact's score lent to the fact next to it; share² two steps away. 0: off. */
  context: number
  /** How many facts away, either side, a match lends score. */
  contextReach: number
  /** Facts created further apart than this (ms) are not context for each other. */
  contextWindowMs: number
  /** Score multiplier for facts created within a date the query spells out. 1: off. */
  dateBoost: number
}

export const DEFAULT_TUNING: Readonly<Tuning> = {
  // MiniSearch's defaults (Lucene-like k and b, BM25+ floor d). On LoCoMo other values moved
  // nothing beyond noise, so there is no reason to depart from the well-known ones.
  bm25: {k: 1.2, b: 0.7, d: 0.5},
  // Stems are already normalised, so prefix and fuzzy matching only serve typos and odd
  // inflections; on short stems they mostly add noise ("car" -> "card", "carolin"), and the
  // radix-tree walk for them is the costliest part of a search.
  prefixMinLength: 5,
  fuzzyMinLength: 5,
  weights: {prefix: 0.375, fuzzy: 0.45},
  context: 0.5,
  contextReach: 2,
  // The conventional web-analytics session timeout: facts saved within half an hour of each
  // other are treated as one sitting.
  contextWindowMs: 30 * 60 * 1000,
  dateBoost: 2,
}

/** Per-fact data kept beside MiniSearch for filters, ordering and context. */
interface FactMeta {
  createdAt: string
  time: number
  tags: string[]
  /** Neighbours in insertion order: a doubly linked list over live facts. */
  prev: string | undefined
  next: string | undefined
}

/** Serialised form, so a cold process can load the index instead of re-indexing every fact. */
export interface FactIndexJSON {
  version: 1
  /** Live facts in insertion order: [id, created_at, tags]. */
  facts: [string, string, string[]][]
  mini: AsPlainObject
}

const SEARCH_FIELDS = ['content', 'tags']

function miniSearchOptions(): Options<IndexedFact> {
  return {
    fields: SEARCH_FIELDS,
    storeFields: [],
    extractField: (doc, field) => (field === 'tags' ? doc.tags.join(' ') : field === 'id' ? doc.id : doc.content),
    tokenize,
    processTerm: toTerm,
  }
}

/**
 * Full-text index over one agent's live facts: BM25 (via MiniSearch) over stemmed words without
 * stopwords, plus a share of neighbouring facts' scores and a boost for dates the query names.
 * Ties in score order newest first, so equal results come back in a stable order.
 */
export class FactIndex {
  private readonly meta = new Map<string, FactMeta>()
  private first: string | undefined
  private last: string | undefined
  private readonly tuning: Tuning
  private readonly mini: MiniSearch<IndexedFact>

  constructor(tuning: Partial<Tuning> = {}, mini?: MiniSearch<IndexedFact>) {
    this.tuning = {...DEFAULT_TUNING, ...tuning}
    this.mini = mini ?? new MiniSearch(miniSearchOptions())
  }

  get size(): number {
    return this.meta.size
  }

  has(id: string): boolean {
    return this.meta.has(id)
  }

  add(fact: IndexedFact): void {
    const existing = this.meta.get(fact.id)
    if (existing) {
      // An edited fact keeps its place: it still belongs with the facts saved around it.
      this.mini.discard(fact.id)
      this.mini.add(fact)
      existing.createdAt = fact.created_at
      existing.time = Date.parse(fact.created_at)
      existing.tags = [...fact.tags]
      return
    }
    this.mini.add(fact)
    this.append(fact.id, fact.created_at, fact.tags)
  }

  remove(id: string): void {
    const m = this.meta.get(id)
    if (!m) return
    this.mini.discard(id)
    if (m.prev === undefined) this.first = m.next
    else this.meta.get(m.prev)!.next = m.next
    if (m.next === undefined) this.last = m.prev
    else this.meta.get(m.next)!.prev = m.prev
    this.meta.delete(id)
  }

  search(query: string, options: SearchOptions): Hit[] {
    const limit = Number.isFinite(options.limit) ? Math.max(0, Math.floor(options.limit)) : 0
    if (limit === 0 || this.meta.size === 0) return []
    // Only stopwords ("what is it?"): nothing to look for, and matching everything would be noise.
    if (analyze(query).length === 0) return []

    const t = this.tuning
    const accept = this.filterFor(options)
    const miniOptions: MiniSearchOptions = {
      bm25: t.bm25,
      weights: t.weights,
      prefix: (term) => t.prefixMinLength > 0 && term.length >= t.prefixMinLength,
      fuzzy: (term) => (t.fuzzyMinLength > 0 && term.length >= t.fuzzyMinLength ? 1 : false),
      filter: accept && ((r) => accept(r.id as string)),
    }
    let scores = new Map<string, number>()
    for (const r of this.mini.search(query, miniOptions)) scores.set(r.id as string, r.score)

    if (t.context > 0 && t.contextReach > 0) {
      scores = addContext(scores, this.neighbours, {
        share: t.context,
        reach: t.contextReach,
        windowMs: t.contextWindowMs,
        accept,
      })
    }
    if (t.dateBoost !== 1) {
      const spans = datesInQuery(query)
      if (spans.length > 0) {
        for (const [id, s] of scores) if (inAnySpan(this.meta.get(id)!.time, spans)) scores.set(id, s * t.dateBoost)
      }
    }

    const hits: Hit[] = []
    for (const [id, s] of scores) hits.push({id, score: round(s)})
    return hits.sort((a, b) => b.score - a.score || this.newestFirst(a.id, b.id)).slice(0, limit)
  }

  toJSON(): FactIndexJSON {
    const facts: [string, string, string[]][] = []
    for (let id = this.first; id !== undefined; id = this.meta.get(id)!.next) {
      const m = this.meta.get(id)!
      facts.push([id, m.createdAt, m.tags])
    }
    return {version: 1, facts, mini: this.mini.toJSON()}
  }

  /** Loads what {@link toJSON} produced (as an object or a JSON string). */
  static fromJSON(json: FactIndexJSON | string, tuning: Partial<Tuning> = {}): FactIndex {
    const data = (typeof json === 'string' ? JSON.parse(json) : json) as FactIndexJSON
    if (data?.version !== 1 || !Array.isArray(data.facts) || typeof data.mini !== 'object') {
      throw new Error('FactIndex.fromJSON: not a serialised FactIndex (version 1)')
    }
    const index = new FactIndex(tuning, MiniSearch.loadJS(data.mini, miniSearchOptions()))
    for (const [id, createdAt, tags] of data.facts) index.append(id, createdAt, tags)
    if (index.mini.documentCount !== index.meta.size) {
      throw new Error('FactIndex.fromJSON: fact list and index disagree')
    }
    return index
  }

  private readonly neighbours: Neighbours = {
    prev: (id) => this.meta.get(id)?.prev,
    next: (id) => this.meta.get(id)?.next,
    time: (id) => this.meta.get(id)?.time ?? Number.NaN,
  }

  private append(id: string, createdAt: string, tags: string[]): void {
    this.meta.set(id, {createdAt, time: Date.parse(createdAt), tags: [...tags], prev: this.last, next: undefined})
    if (this.last === undefined) this.first = id
    else this.meta.get(this.last)!.next = id
    this.last = id
  }

  private filterFor(options: SearchOptions): ((id: string) => boolean) | undefined {
    const wanted = options.tags ?? []
    const since = options.since === undefined ? undefined : Date.parse(options.since)
    const until = options.until === undefined ? undefined : Date.parse(options.until)
    if (wanted.length === 0 && since === undefined && until === undefined) return undefined
    return (id) => {
      const m = this.meta.get(id)
      if (!m) return false
      // Written as negations of the wanted test so that an unparseable bound (NaN) excludes, not includes.
      if (since !== undefined && !(m.time >= since)) return false
      if (until !== undefined && !(m.time < until)) return false
      return wanted.every((tag) => m.tags.includes(tag))
    }
  }

  private newestFirst(a: string, b: string): number {
    const ca = this.meta.get(a)!.createdAt
    const cb = this.meta.get(b)!.createdAt
    if (ca !== cb) return ca > cb ? -1 : 1
    return a > b ? -1 : a < b ? 1 : 0
  }
}

/** Scores are rounded so that ties are ties on every platform and in every process. */
function round(score: number): number {
  return Math.round(score * 1e4) / 1e4
}
