import MiniSearch, {type AsPlainObject, type Options, type SearchOptions as MiniOptions} from 'minisearch'

import {datesInQuery, type TimeSpan} from './query-dates.js'
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
  score: number
}

/**
 * The ranking choices, in one place so the benchmark can switch each off and show what it is
 * worth. Defaults are {@link DEFAULT_TUNING}; the app never passes anything else.
 */
export interface Tuning {
  /** BM25 parameters (MiniSearch's BM25+: k1, length normalisation b, floor d). */
  bm25: {k: number; b: number; d: number}
  /** Terms (stems) at least this long also match longer terms that start with them. 0 turns it off. */
  prefixMinLength: number
  /** Terms at least this long also match terms one edit away. 0 turns it off. */
  fuzzyMinLength: number
  /** Weight of a prefix or fuzzy match relative to an exact one. */
  weights: {prefix: number; fuzzy: number}
  /** Share of the best neighbouring fact's score a fact inherits. 0 turns it off. */
  context: number
  /** Neighbours further apart in time than this (ms) are not context for each other. */
  contextWindowMs: number
  /** Score multiplier for facts created during a period the query names. 1 turns it off. */
  dateBoost: number
  /** experimental */
  coordination: 'product' | 'none' | 'sqrt' | 'rare' | 'drop'
  dateSlackMs: number
  backward: number
  reach: number
}

export const DEFAULT_TUNING: Tuning = {
  bm25: {k: 1.2, b: 0.7, d: 0.5},
  prefixMinLength: 5,
  fuzzyMinLength: 5,
  weights: {prefix: 0.375, fuzzy: 0.45},
  context: 0,
  contextWindowMs: 60 * 60 * 1000,
  dateBoost: 1,
  coordination: 'product',
  dateSlackMs: 0,
  backward: 1,
  reach: 1,
}

/** Per-fact data kept beside MiniSearch: what ordering, filters and context need. */
interface FactMeta {
  createdAt: string
  time: number
  tags: string[]
  /** Neighbours in insertion order (a doubly linked list over live facts). */
  prev: string | undefined
  next: string | undefined
}

/** Serialised form, for a cold process to load instead of re-indexing every fact. */
export interface FactIndexJSON {
  version: 1
  /** Facts in insertion order: [id, created_at, tags]. */
  facts: [string, string, string[]][]
  mini: AsPlainObject
}

const FIELDS = ['content', 'tags']

function miniOptions(): Options<IndexedFact> {
  return {
    fields: FIELDS,
    storeFields: [],
    extractField: (doc, field) => (field === 'tags' ? doc.tags.join(' ') : field === 'id' ? doc.id : doc.content),
    tokenize,
    processTerm: toTerm,
  }
}

/**
 * Full-text index over one agent's live facts (BM25 via MiniSearch).
 * Ties in score order newest first, so equal results come back in a stable order.
 */
export class FactIndex {
  private readonly meta = new Map<string, FactMeta>()
  private first: string | undefined
  private last: string | undefined
  private readonly tuning: Tuning

  constructor(
    tuning: Partial<Tuning> = {},
    private readonly mini: MiniSearch<IndexedFact> = new MiniSearch(miniOptions()),
  ) {
    this.tuning = {...DEFAULT_TUNING, ...tuning}
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
      // An update keeps its place among its neighbours: it is still part of the same exchange.
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
    const limit = Math.max(0, Math.floor(options.limit))
    if (limit === 0 || this.meta.size === 0) return []
    // A query of stopwords only ("what is it?") names nothing to look for.
    if (analyze(query).length === 0) return []

    const accept = this.filterFor(options)
    const t = this.tuning
    const own = new Map<string, number>()
    const searchOptions: MiniOptions = {
      bm25: t.bm25,
      weights: t.weights,
      prefix: (term) => t.prefixMinLength > 0 && term.length >= t.prefixMinLength,
      fuzzy: (term) => (t.fuzzyMinLength > 0 && term.length >= t.fuzzyMinLength ? 1 : false),
      filter: accept === undefined ? undefined : (r) => accept(r.id as string),
    }
    const idx = (this.mini as any)._index
    const fid = (this.mini as any)._fieldIds.content
    const N = this.meta.size
    const df = (term: string) => idx.get(term)?.get(fid)?.size ?? 0
    let q2 = query
    if (t.coordination === 'drop') {
      const kept = analyze(query).filter((x) => df(x) <= N / 2)
      if (kept.length > 0) q2 = kept.join(' ')
      searchOptions.processTerm = (x: string) => x
    }
    for (const r of this.mini.search(q2, searchOptions)) {
      const q = r.queryTerms.length || 1
      const rare = Math.max(1, r.queryTerms.filter((x: string) => df(x) <= N / 2).length)
      own.set(r.id as string, t.coordination === 'product' || t.coordination === 'drop' ? r.score : t.coordination === 'none' ? r.score / q : t.coordination === 'rare' ? r.score / q * rare : r.score / Math.sqrt(q))
    }

    const scores = t.context > 0 ? this.withContext(own, accept) : own
    const spans = t.dateBoost !== 1 ? datesInQuery(query) : []
    if (spans.length > 0) {
      for (const [id, s] of scores) if (this.inAnySpan(id, spans)) scores.set(id, s * t.dateBoost)
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

  static fromJSON(json: FactIndexJSON | string, tuning: Partial<Tuning> = {}): FactIndex {
    const data: FactIndexJSON = typeof json === 'string' ? (JSON.parse(json) as FactIndexJSON) : json
    if (data.version !== 1) throw new Error(`FactIndex: unsupported serialisation version ${String(data.version)}`)
    const index = new FactIndex(tuning, MiniSearch.loadJS(data.mini, miniOptions()))
    for (const [id, createdAt, tags] of data.facts) index.append(id, createdAt, tags)
    return index
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
      if (since !== undefined && !(m.time >= since)) return false
      if (until !== undefined && !(m.time < until)) return false
      return wanted.every((tag) => m.tags.includes(tag))
    }
  }

  /**
   * Facts stored one after another, close in time, usually come from the same exchange: an
   * answer often repeats none of the question's words ("They were scared but we reassured
   * them") while the fact before it does ("my son got into an accident"). So each fact also
   * receives a share of its best neighbour's own score, never more than that neighbour has.
   */
  private withContext(own: Map<string, number>, accept: ((id: string) => boolean) | undefined): Map<string, number> {
    const share = this.tuning.context
    const windowMs = this.tuning.contextWindowMs
    const out = new Map<string, number>()
    const lend = (from: string, fromScore: number, to: string | undefined, factor = 1): void => {
      if (to === undefined) return
      if (accept !== undefined && !own.has(to) && !accept(to)) return
      const a = this.meta.get(from)!
      const b = this.meta.get(to)!
      if (!(Math.abs(a.time - b.time) <= windowMs)) return
      const gift = share * fromScore * factor
      const current = out.get(to)
      // Only the best neighbour counts, so a fact between two matches is not lifted twice.
      const base = own.get(to) ?? 0
      if (current === undefined || current < base + gift) out.set(to, base + gift)
    }
    for (const [id, s] of own) if (!out.has(id)) out.set(id, s)
    for (const [id, s] of own) {
      const m = this.meta.get(id)!
      let gift = s
      let prev = m.prev, next = m.next
      for (let d = 1; d <= this.tuning.reach; d++) {
        gift *= 1
        lend(id, s * Math.pow(share, d - 1), prev)
        lend(id, s * Math.pow(share, d - 1), next)
        prev = prev === undefined ? undefined : this.meta.get(prev)!.prev
        next = next === undefined ? undefined : this.meta.get(next)!.next
      }
    }
    return out
  }

  private inAnySpan(id: string, spans: TimeSpan[]): boolean {
    const time = this.meta.get(id)?.time
    return time !== undefined && spans.some((s) => time >= s.start && time < s.end + this.tuning.dateSlackMs)
  }

  private newestFirst(a: string, b: string): number {
    const ca = this.meta.get(a)?.createdAt ?? ''
    const cb = this.meta.get(b)?.createdAt ?? ''
    if (ca !== cb) return cb < ca ? -1 : 1
    return b < a ? -1 : b > a ? 1 : 0
  }
}

/** Scores are rounded so that ties are ties on every platform and in every process. */
function round(score: number): number {
  return Math.round(score * 1e4) / 1e4
}
