import {Accumulator} from './accumulator.js'
import {rankingFeatures, type DenseSlots, type Ranking, type RankingFeature} from './features/index.js'
import type {BlendShares} from './features/meaning-blend.js'
import {
  InvertedIndex,
  postingsOf,
  type Bm25,
  type CompactDocs,
  type MatchWay,
  type PlainCompactDocs,
  type StreamedCompactDocs,
} from './inverted-index.js'
import type {Lines} from './lines.js'
import {closingQuestion, endsWithQuestion} from './questions.js'
import {SlotTexts, strictlySorted} from './slot-texts.js'
import {Threads} from './threads.js'
import {topK} from './top-k.js'
import {analyze, analyzeWords, queryWords, type QueryWord} from './tokenize.js'
import type {LooseRules} from './loose-match.js'
import {WEAK_VERBS} from './weak-words.js'

/**
 * Words common in an agent's facts are not taken as weak: at every share measured (0.1 to 0.5)
 * leaving out facts that match only them cost locomo-facts recall, whose evidence often shares
 * only a speaker's name with the question (docs/search.md, "Words that say little").
 */
const COMMON_SHARE = 1

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
  /** Say of each hit which query words it matched and how ({@link Hit.matched}). */
  explain?: boolean
  /**
   * With meaning on: the facts nearest the query in meaning and their cosine similarity, nearest
   * first (src/meaning/); blended with the word scores, and a fact found by them alone is returned
   * marked {@link Hit.byMeaning}. Ids the index does not hold as live are passed over.
   */
  dense?: readonly DenseHit[]
}

/** A fact near the query in meaning: its id and cosine similarity to the query. */
export interface DenseHit {
  id: string
  similarity: number
}

/** A query word a hit matched: as typed, how, and the term of the fact it reached (see explain.ts for the fact's word). */
export interface HitWord {
  word: string
  way: MatchWay
  term: string
}

export interface Hit {
  id: string
  /** Relevance (BM25+ with context and date adjustments, see docs/search.md): higher is better, comparable within one search only. */
  score: number
  /** Set when the fact matched none of the query's terms: the matching fact of its thread whose context it is. */
  contextFor?: string
  /** With `explain`: the query words the fact matched, in query order (none for a hit that came as context). */
  matched?: HitWord[]
  /** Set when the fact shares no word with the query: it was found by meaning alone. */
  byMeaning?: true
}

/**
 * The ranking choices, gathered so the benchmark can switch each one off and show what it is
 * worth. The app uses {@link DEFAULT_TUNING}.
 */
export interface Tuning extends LooseRules {
  bm25: Bm25
  /** The power of each term's idf in its weight: 2 weighs a query word by its rarity as well as the fact's word. 1: off (BM25's own idf). */
  idfPower: number
  /** Share of a matching fact's score lent to the fact next to it; share² two steps away. 0: off. */
  context: number
  /** Share of its score a fact that ends with a question lends to the fact after it, its reply. Equal to `context`: off. */
  replyShare: number
  /** How many turns away, either side within its thread, a match lends score. */
  contextReach: number
  /** Score multiplier for facts created within a date the query spells out. 1: off. */
  dateBoost: number
  /** Words that say little (weak verbs): a fact matched only by them, or by common words, is left out while others match the rest. Empty: none. */
  weakWords: readonly string[]
  /** A query word in more than this share of the live facts is common, as a weak word is. 1: none is. */
  commonShare: number
  /** How word scores and meaning blend, when a search is given the facts near it in meaning (words 1: off). */
  meaning: BlendShares
}

export const DEFAULT_TUNING: Readonly<Tuning> = {
  // MiniSearch's defaults (Lucene-like k and b, BM25+ floor d). On LoCoMo other values moved
  // nothing beyond noise, so there is no reason to depart from well-known ones.
  bm25: {k: 1.2, b: 0.7, d: 0.5},
  // Rarity counts twice, once for the query's word and once for the fact's, as in classic TF-IDF
  // (idf in the query's weight and in the document's): a word nearly every fact holds (the
  // user's name) counts for less beside the rarer words that say what the question is about.
  idfPower: 2,
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
  weakWords: WEAK_VERBS,
  commonShare: COMMON_SHARE,
  // Words weigh 0.85, meaning 0.15: chosen on LoCoMo turns, where more weight on meaning cost
  // recall; it lifts locomo-facts most. A fact no word matched is returned from a cosine of 0.3:
  // with the model shipped, unrelated facts mostly fall below it and paraphrases mostly above
  // (docs/search.md, "Meaning (optional)").
  meaning: {words: 0.85, floor: 0.3},
}

/**
 * The compact saved form: live fact ids in insertion order, their analysed terms (see
 * {@link CompactDocs}), and what ranking and filtering read of each fact besides its words:
 * its date, its tags and whether it asks.
 */
export interface CompactFactIndex extends CompactDocs {
  ids: Lines
  /** The ids are in increasing order (facts are saved in id order): found by binary search, without a map. */
  idsSorted?: boolean
  /** For each fact, the place of its created_at among all of theirs (equal dates, equal places): ties are broken without reading them. */
  createdOrder?: Uint32Array
  createdAt: Lines
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

/** {@link CompactFactIndex} with every list an array, as {@link FactIndex.toCompact} makes it. */
export type PlainCompactFactIndex = Omit<CompactFactIndex, 'ids' | 'createdAt' | 'terms' | 'surfaces'> &
  PlainCompactDocs & {ids: string[]; createdAt: string[]; createdOrder: Uint32Array}

/** {@link PlainCompactFactIndex} with the postings written a chunk at a time, for saving a large index. */
export type StreamedCompactFactIndex = Omit<PlainCompactFactIndex, 'postings' | 'load'> &
  Pick<StreamedCompactDocs, 'postingsLength' | 'eachPostingsChunk'>

const NO_TAGS: readonly string[] = []
/** The tag list number of a fact without tags. */
const NO_TAG = 0xffff_ffff

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
  /** Each slot's fact id, and the slot of each id. */
  private ids = new SlotTexts([], true)
  private createdAt = new SlotTexts()
  /** The distinct tag lists, and each slot's (NO_TAG: none). */
  private tagLists: (readonly string[])[] = []
  private readonly tagListOf = new Map<string, number>()
  private tagOf = new Uint32Array(0)
  /** For the loaded slots: created_at order and whether the ids are sorted, so ties among them read neither. */
  private loaded = {count: 0, createdOrder: undefined as Uint32Array | undefined, idsSorted: false}
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
    return this.ids.size
  }

  has(id: string): boolean {
    return this.ids.find(id) !== undefined
  }

  /** The ids of the live facts, oldest slot first. */
  *liveIds(): Generator<string> {
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids.get(slot)
      if (id !== undefined) yield id
    }
  }

  add(fact: IndexedFact): void {
    const content = analyzeWords(fact.content)
    const tags = analyzeWords(fact.tags.join(' '))
    const question = closingQuestion(fact.content)
    const terms = [...content.terms, ...tags.terms]
    const surfaces = [...content.surfaces, ...tags.surfaces]
    // An edited fact takes a new slot: postings keep a removed slot's entries until a sweep, and
    // a slot that came back to life would count them beside its new ones.
    this.remove(fact.id)
    const slot = this.ids.length
    this.index.add(slot, terms, surfaces, question === undefined ? [] : analyze(question))
    this.ensureSlots(slot + 1)
    this.ids.push(fact.id)
    this.createdAt.push(fact.created_at)
    this.times[slot] = Date.parse(fact.created_at)
    this.tagOf[slot] = this.tagList(fact.tags)
    this.setAsks(slot, endsWithQuestion(fact.content))
    this.threads.link(slot, fact.thread)
  }

  remove(id: string): void {
    const slot = this.ids.find(id)
    if (slot === undefined) return
    this.ids.clear(slot)
    this.drop(slot)
  }

  /** Takes a slot whose id is gone out of the index. */
  private drop(slot: number): void {
    this.index.remove(slot)
    this.threads.unlink(slot)
    this.setAsks(slot, false)
    this.tagOf[slot] = NO_TAG
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
      const words = this.index.match(terms, this.tuning, acc, accept)
      // Then each feature, over the scores the ones before it left (see features/index.ts).
      const ranking: Ranking = {
        query,
        words,
        live: this.index.documentCount,
        matchedWords: acc.words,
        keepOnly: (keep) => acc.keepOnly(keep),
        limit,
        candidates: acc.touched,
        scores: acc.scores,
        contextFor: new Map(),
        accept,
        asksAbout: this.asksAbout(terms),
        dense: this.denseSlots(options.dense),
        byMeaning: new Set(),
        facts: {
          times: this.times,
          prev: this.threads.prev,
          next: this.threads.next,
          threads: this.threads.names.length,
        },
      }
      for (const feature of this.features) feature.apply(ranking)

      const {candidates, scores, contextFor, byMeaning} = ranking
      for (const slot of candidates) scores[slot] = round(scores[slot]!)
      const order = topK(candidates.length, limit, (a, b) =>
        this.ranksBefore(candidates[a]!, scores[candidates[a]!]!, candidates[b]!, scores[candidates[b]!]!),
      )
      return order.map((i) => {
        const slot = candidates[i]!
        const lender = contextFor.get(slot)
        const hit: Hit = {id: this.ids.get(slot)!, score: scores[slot]!}
        if (options.explain === true)
          hit.matched =
            lender === undefined
              ? this.index.matchesOf(slot).map(({q, way, term}) => ({word: words[q]!.word.surface, way, term}))
              : []
        if (byMeaning.has(slot)) hit.byMeaning = true
        return lender === undefined ? hit : {...hit, contextFor: this.ids.get(lender)!}
      })
    } finally {
      // Clears every candidate's score, those a feature brought in too.
      acc.reset()
    }
  }

  /** The live slots of the facts near the query in meaning, nearest first. */
  private denseSlots(dense: readonly DenseHit[] | undefined): DenseSlots | undefined {
    if (dense === undefined) return undefined
    const slots: number[] = []
    const similarity: number[] = []
    for (const hit of dense) {
      const slot = this.ids.find(hit.id)
      if (slot === undefined) continue
      slots.push(slot)
      similarity.push(hit.similarity)
    }
    return {slots, similarity}
  }

  /**
   * Whether a fact's closing question holds a word of the query (by term): looked up on the
   * first call of a search, since most searches reach no fact that asks.
   */
  private asksAbout(words: readonly QueryWord[]): (slot: number) => boolean {
    let asking: Set<number> | undefined
    return (slot) => {
      if (this.asks[slot] !== 1) return false
      if (asking === undefined) {
        const found = new Set<number>()
        for (const word of words)
          if (word.term !== undefined && !word.partial) this.index.askedAbout(word.term, (s) => found.add(s))
        asking = found
      }
      return asking.has(slot)
    }
  }

  /** The index in {@link CompactFactIndex} form, for saving. */
  toCompact(): PlainCompactFactIndex {
    const {postingsLength, eachPostingsChunk, ...rest} = this.toStreamed()
    return {...rest, postings: postingsOf({postingsLength, eachPostingsChunk})}
  }

  /** {@link toCompact} with the postings written a chunk at a time (see InvertedIndex.serializeStreamed): what a large index is saved from. */
  toStreamed(): StreamedCompactFactIndex {
    const slots: number[] = []
    for (let s = 0; s < this.ids.length; s++) if (this.ids.get(s) !== undefined) slots.push(s)
    const listAt = new Map<readonly string[], number>()
    const tagLists: (readonly string[])[] = []
    const tagOf = Uint32Array.from(slots, (s) => {
      const list = this.tagsOf(s)
      let at = listAt.get(list)
      if (at === undefined) {
        at = tagLists.push(list) - 1
        listAt.set(list, at)
      }
      return at
    })
    const ids = slots.map((s) => this.ids.get(s)!)
    const createdAt = slots.map((s) => this.createdAt.get(s)!)
    return {
      ids,
      idsSorted: strictlySorted(ids),
      createdOrder: orderOf(createdAt),
      createdAt,
      times: Float64Array.from(slots, (s) => this.times[s]!),
      tagLists,
      tagOf,
      asks: Uint8Array.from(slots, (s) => this.asks[s]!),
      threads: this.threads.names,
      threadOf: Uint32Array.from(slots, (s) => this.threads.threadOf[s]!),
      ...this.index.serializeStreamed(slots),
    }
  }

  /**
   * Loads what {@link toCompact} produced without re-analysing any text or building anything
   * per fact: the arrays are used as they are, ids and dates read when asked. This is what a
   * cold `mem search` waits for.
   */
  static fromCompact(data: CompactFactIndex, tuning: Partial<Tuning> = {}): FactIndex {
    const n = data.lengths.length
    if (
      [
        data.ids.length,
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
    for (const tags of data.tagLists) {
      if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string'))
        throw new Error('FactIndex.fromCompact: bad tag list')
      out.tagList(tags, true)
    }
    out.ids = new SlotTexts(data.ids, true, data.idsSorted === true, (slot) => out.drop(slot))
    out.createdAt = new SlotTexts(data.createdAt)
    out.ensureSlots(n)
    const lists = out.tagLists.length
    for (let slot = 0; slot < n; slot++) {
      if (data.tagOf[slot]! >= lists || data.asks[slot]! > 1)
        throw new Error(`FactIndex.fromCompact: bad details for fact ${slot}`)
    }
    if (data.createdOrder !== undefined && data.createdOrder.length !== n)
      throw new Error('FactIndex.fromCompact: ids, documents and their details differ in number')
    out.loaded = {count: n, createdOrder: data.createdOrder, idsSorted: data.idsSorted === true}
    out.tagOf.set(data.tagOf)
    out.times.set(data.times)
    out.asks.set(data.asks)
    try {
      out.threads.load(n, data.threads, data.threadOf)
    } catch (error) {
      throw new Error(`FactIndex.fromCompact: ${(error as Error).message}`)
    }
    return out
  }

  private setAsks(slot: number, asks: boolean): void {
    this.asks[slot] = asks ? 1 : 0
  }

  /**
   * The number of a distinct list of tags, one shared copy each: most facts repeat a few lists,
   * and 100,000 copies of the same two tags cost megabytes. `loading` numbers the saved lists
   * in their order, each as given (they are distinct).
   */
  private tagList(tags: readonly string[], loading = false): number {
    if (tags.length === 0 && !loading) return NO_TAG
    const key = JSON.stringify(tags)
    let at = loading ? undefined : this.tagListOf.get(key)
    if (at === undefined) {
      at = this.tagLists.push(tags.length === 0 ? NO_TAGS : [...tags]) - 1
      if (!this.tagListOf.has(key)) this.tagListOf.set(key, at)
    }
    return at
  }

  private tagsOf(slot: number): readonly string[] {
    const at = this.tagOf[slot]!
    return at === NO_TAG ? NO_TAGS : this.tagLists[at]!
  }

  /** Order within a thread: by creation time, then id. */
  private earlier(a: number, b: number): boolean {
    const ta = this.times[a]!
    const tb = this.times[b]!
    if (ta !== tb) return ta < tb
    return this.ids.get(a)! < this.ids.get(b)!
  }

  private ensureSlots(capacity: number): void {
    this.threads.ensure(capacity)
    if (this.times.length >= capacity) return
    const size = Math.max(capacity, this.times.length * 2, 1024)
    const times = new Float64Array(size)
    times.set(this.times)
    const asks = new Uint8Array(size)
    asks.set(this.asks)
    const tagOf = new Uint32Array(size).fill(NO_TAG)
    tagOf.set(this.tagOf)
    this.times = times
    this.asks = asks
    this.tagOf = tagOf
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
      const tags = this.tagsOf(slot)
      return wanted.every((tag) => tags.includes(tag))
    }
  }

  /** Higher score first; ties newest first (created_at, then id, both descending). */
  private ranksBefore(a: number, scoreA: number, b: number, scoreB: number): boolean {
    if (scoreA !== scoreB) return scoreA > scoreB
    const {count, createdOrder, idsSorted} = this.loaded
    if (createdOrder !== undefined && a < count && b < count) {
      if (createdOrder[a] !== createdOrder[b]) return createdOrder[a]! > createdOrder[b]!
      if (idsSorted) return a > b
    }
    const ca = this.createdAt.get(a)!
    const cb = this.createdAt.get(b)!
    if (ca !== cb) return ca > cb
    return this.ids.get(a)! > this.ids.get(b)!
  }
}

/** Each text's place among `texts` in sorted order, equal texts at equal places. */
function orderOf(texts: readonly string[]): Uint32Array {
  const byText = texts.map((_, i) => i).sort((a, b) => (texts[a]! < texts[b]! ? -1 : texts[a]! > texts[b]! ? 1 : 0))
  const order = new Uint32Array(texts.length)
  for (let i = 1; i < byText.length; i++)
    order[byText[i]!] = texts[byText[i]!] === texts[byText[i - 1]!] ? order[byText[i - 1]!]! : i
  return order
}

/** Scores are rounded so that ties are ties on every platform and in every process. */
function round(score: number): number {
  return Math.round(score * 1e4) / 1e4
}
