import {MemError} from '../errors.js'
import {DamagedIndex} from '../search/damaged-index.js'
import type {DenseHit, FactIndex, Hit} from '../search/fact-index.js'
import {AgentVectors} from '../meaning/agent-vectors.js'
import type {Meaning, MeaningUse} from '../meaning/meaning.js'
import {isLive, type FactRecord} from '../store/records.js'
import {contextOf} from '../store/record-rules.js'
import {loadFactIndex, SIGNATURE, type FactIndexType} from '../store/search-code.js'
import type {ScoredFact, SearchAnswer, SearchQuery} from '../store/store.js'
import {WarmCache, type WarmBudget} from '../store/warm-cache.js'
import {decodeIndex, encodeIndex} from './index-codec.js'
import type {FeedAnswer, IndexedStore, VectorRecord} from './indexed-store.js'
import {VectorUpkeep, type EmbedProgress} from './vector-upkeep.js'

/** One agent's index, as of the feed cursor `cursor` (undefined before the feed's first answer). */
interface Warm {
  index: FactIndex
  cursor?: string
  /** Facts applied since the index was saved or loaded; undefined when the keeper holds none of this history. */
  unsaved?: number
  /** The keeper holds bytes that could not serve (damaged, another build's): saved over whatever the index's size. */
  replace?: boolean
  /** Lets go of the saved bytes a lazily loaded index reads from. */
  close?: () => void
  /** With meaning on: the vectors of the agent's facts, read from the keeper once a search needs them. */
  vectors?: AgentVectors
}

/** A warm agent whatever it holds: the index's first typed arrays and bookkeeping. */
const AGENT_COST_BYTES = 64 * 1024
/** Each live fact in the index (no record is kept: hits are read from the store). */
const WARM_FACT_BYTES = 1000
/** An index is saved once it holds this many facts, and again once this many facts changed past the saved one. */
const SAVE_MIN_FACTS = 1000
const SAVE_AFTER_CHANGES = 200
/** A search whose agent moved while its hits were read is run again, this many times in all. */
const ATTEMPTS = 3
/** How many facts nearest the query in meaning a search blends with its word matches (docs/search.md, "Meaning (optional)"). */
const NEAREST = 50

export interface LayerOptions {
  /** Which ranking code this is: the build's (see search-code.ts); without one nothing is saved or loaded. */
  signature?: string
  /**
   * Read a saved index where searches ask instead of whole (see index-codec.ts): for a process
   * that runs one search and exits, which then reads a few chunks of the index's megabytes.
   */
  lazy?: boolean
  /** The budget the warm indexes share with the store's other warm state (one per process's store). */
  budget?: WarmBudget
  /** Rank by meaning too (src/meaning/): off when absent, and every search is as with words alone. */
  meaning?: Meaning
}

/**
 * Search over any store's change feed (src/index/indexed-store.ts): for each agent an index and
 * the feed cursor it has seen, brought up to date by the feed before a search (or checked
 * against the cursor the hits were read at, when the store can tell), kept warm within the one
 * budget of src/store/warm-cache.ts, and saved through the store's keeper once worth it, so a
 * process that starts loads it instead of indexing every fact. The store only persists and
 * reports change. See docs/architecture.md, "The search layer".
 */
export class SearchLayer {
  private readonly warm: WarmCache<Warm>
  /** Each agent's catch-up, one at a time: two answers of the feed applied out of order would undo a change. */
  private readonly queue = new Map<string, Promise<unknown>>()
  /** Agents whose saved index turned out damaged while searched: rebuilt from the feed, and saved over. */
  private readonly damaged = new Set<string>()

  private readonly signature: string | undefined
  private readonly lazy: boolean
  private readonly meaning: Meaning | undefined
  /** A long-running process's background embedding of the facts that have no vector yet. */
  private readonly upkeep: VectorUpkeep | undefined

  constructor(
    private readonly store: IndexedStore,
    options: LayerOptions = {},
  ) {
    this.signature = 'signature' in options ? options.signature : SIGNATURE
    this.lazy = options.lazy === true
    this.meaning = options.meaning
    this.upkeep = this.meaning?.options.longLived === true ? new VectorUpkeep(this, this.meaning) : undefined
    this.warm = new WarmCache<Warm>(
      (w) => AGENT_COST_BYTES + w.index.size * WARM_FACT_BYTES + (w.vectors?.bytes ?? 0),
      (w) => w.close?.(),
      options.budget,
    )
  }

  async search(agent: string, query: SearchQuery): Promise<SearchAnswer> {
    const FactIndex = await loadFactIndex()
    for (let attempt = 1; ; attempt++) {
      try {
        const hits = await this.attempt(agent, query, attempt, FactIndex)
        if (hits) return hits
      } catch (error) {
        // A chunk of a lazily read saved index failed its checksum: built anew from the feed.
        if (!(error instanceof DamagedIndex) || attempt === ATTEMPTS) throw error
        this.drop(agent)
        this.damaged.add(agent)
      }
    }
  }

  /**
   * Brings the agent's index up to the feed's latest answer and saves it when worth it, as a
   * search would: for a writer that changed many facts (an import), so that the next process's
   * first search loads the index instead of building it.
   */
  async refresh(agent: string): Promise<void> {
    const FactIndex = await loadFactIndex()
    await this.save(agent, await this.caughtUp(agent, FactIndex))
    this.wrote(agent)
  }

  /** The answer for an agent that holds nothing (none was written to). */
  nothing(): SearchAnswer {
    return this.meaning === undefined ? {hits: []} : {hits: [], meaning: {used: false, pending: 0}}
  }

  /**
   * The agent's facts changed in this process: with meaning on in a long-running process, its
   * new facts are embedded in the background.
   */
  wrote(agent: string): void {
    this.upkeep?.schedule(agent)
  }

  /** One search, or undefined when the agent moved while its hits were read (and this was not the last attempt). */
  private async attempt(
    agent: string,
    query: SearchQuery,
    attempt: number,
    FactIndex: FactIndexType,
  ): Promise<SearchAnswer | undefined> {
    const {text, ...options} = query
    const held = this.warm.peek(agent)
    // A held index is searched as it is when the hits' read says whether the agent moved since.
    const unchecked = attempt === 1 && held !== undefined && this.store.factsAt !== undefined
    const warm = unchecked ? held : await this.caughtUp(agent, FactIndex)
    const sense = this.meaning === undefined ? undefined : await this.nearest(agent, warm, text)
    // Synchronous from here to the search: the index cannot move between its cursor and its hits.
    const cursor = warm.cursor
    const hits = warm.index.search(text, sense?.dense === undefined ? options : {...options, dense: sense.dense})
    const answer = (found: ScoredFact[]) => this.answer(agent, warm, found, sense?.use)
    if (hits.length === 0 && !unchecked) return answer([])
    const read = await this.read(agent, hits, cursor)
    const records = new Map(read.facts.map((f) => [f.id, f]))
    const live = hits.every((hit) => found(records, hit))
    if (!read.moved && live) return answer(hits.map((hit) => scored(hit, records.get(hit.id)!)))
    // The hits were read at the index's very cursor, and one is not live there: the index lies.
    if (!read.moved && this.store.factsAt !== undefined && cursor !== undefined)
      throw new MemError('internal', `the search index of agent "${agent}" named a fact the store does not hold`)
    // The agent moved between the index's cursor and the read: catch up and search again; the
    // last time, the hits still live are the answer (their records as read).
    if (attempt < ATTEMPTS) return undefined
    return answer(hits.flatMap((hit) => (found(records, hit) ? [scored(hit, records.get(hit.id)!)] : [])))
  }

  /**
   * The facts nearest the query in meaning, and what to say of meaning: it takes no part while
   * no fact has its vector (the model is not even loaded then) or the query has none.
   */
  private async nearest(agent: string, warm: Warm, text: string): Promise<{dense?: DenseHit[]; use: MeaningUse}> {
    const vectors = await this.vectorsOf(agent, warm)
    const pending = () => vectors.pending
    if (pending() > 0) this.upkeep?.schedule(agent)
    if (vectors.size === 0) return {use: {used: false, pending: pending(), why: 'no fact has its vector yet'}}
    const query = await this.meaning!.queryVector(text)
    if ('why' in query) return {use: {used: false, pending: pending(), why: query.why}}
    const dense = vectors.nearest(query.vector, NEAREST)
    if ('why' in dense) return {use: {used: false, pending: pending(), why: dense.why}}
    return {dense, use: {used: true, pending: pending()}}
  }

  /** The agent's vectors, with those kept since the last read taken in. */
  private async vectorsOf(agent: string, warm: Warm): Promise<AgentVectors> {
    const embedder = this.meaning!.embedderId
    // One embedder per layer: the vectors held are always its own.
    const held = (warm.vectors ??= new AgentVectors())
    const keeper = this.store.vectors
    if (keeper === undefined) {
      held.track(warm.index.liveIds())
      return held
    }
    const read = await keeper.read(agent, embedder, held.cursor)
    // Replaced while read (the feed reset the index, or another read ran): the newer one stands.
    if (warm.vectors !== held) return warm.vectors ?? held
    const vectors = read.reset ? new AgentVectors() : held
    vectors.take(read.records, (id) => warm.index.has(id))
    vectors.cursor = read.cursor
    vectors.track(warm.index.liveIds())
    warm.vectors = vectors
    return vectors
  }

  /**
   * Up to `max` of the agent's live facts that have no vector yet, as they are now: what
   * the embedding upkeep (vector-upkeep.ts) embeds next.
   */
  async pendingFacts(agent: string, max: number): Promise<{facts: FactRecord[]; pending: number}> {
    const FactIndex = await loadFactIndex()
    const warm = await this.caughtUp(agent, FactIndex)
    const vectors = await this.vectorsOf(agent, warm)
    const ids = vectors.waitingIds(max)
    const facts = ids.length === 0 ? [] : await this.store.getFacts(agent, ids)
    return {facts: facts.filter(isLive), pending: vectors.pending}
  }

  /** Keeps vectors just made, and lets the agent's searches use them. False when the keeper could not keep them. */
  async keepVectors(agent: string, dimensions: number, records: readonly VectorRecord[]): Promise<boolean> {
    const embedder = this.meaning!.embedderId
    const kept = (await this.store.vectors?.append(agent, embedder, dimensions, records)) ?? true
    const warm = this.warm.peek(agent)
    warm?.vectors?.add(records.filter((r) => warm.index.has(r.id)))
    return kept
  }

  /**
   * Embeds every pending fact of the agent now (`mem embed`), with progress after each batch;
   * stops early, keeping what is done, when `signal` aborts.
   */
  embedPending(agent: string, progress?: (at: EmbedProgress) => void, signal?: AbortSignal): Promise<EmbedProgress> {
    if (this.meaning === undefined)
      throw new MemError('invalid_input', 'meaning is off: turn it on with "mem meaning on"')
    return new VectorUpkeep(this, this.meaning).run(agent, progress, signal)
  }

  /** How many agents' indexes are warm, and their estimated cost in bytes (for tests and diagnostics). */
  usage(): {agents: number; bytes: number} {
    return this.warm.usage()
  }

  /** Lets go of every warm index. */
  clear(): void {
    for (const agent of this.warm.agents()) this.drop(agent)
  }

  /** The store is closing: lets go of every warm index, stops embedding and closes the embedder. */
  async close(): Promise<void> {
    this.upkeep?.stop()
    this.clear()
    await this.meaning?.close()
  }

  private drop(agent: string): void {
    this.warm.peek(agent)?.close?.()
    this.warm.delete(agent)
  }

  /** The agent's index, brought up to the feed's latest answer (loaded or built first if not held). */
  private caughtUp(agent: string, FactIndex: FactIndexType): Promise<Warm> {
    const run = (this.queue.get(agent) ?? Promise.resolve()).then(async () => {
      const warm = this.warm.peek(agent) ?? (await this.loadSaved(agent, FactIndex))
      apply(warm, await this.store.changesSince(agent, warm.cursor), FactIndex)
      return this.warm.use(agent, warm)
    })
    const settled = run.catch(() => {})
    this.queue.set(agent, settled)
    void settled.then(() => {
      if (this.queue.get(agent) === settled) this.queue.delete(agent)
    })
    return run
  }

  /**
   * The index the keeper holds for the agent, as saved; else an empty one, to be built from the
   * feed. Bytes that do not load are derived data: the index built instead is saved over them.
   */
  private async loadSaved(agent: string, FactIndex: FactIndexType): Promise<Warm> {
    const keeper = this.store.keeper
    const fresh = {index: new FactIndex(), replace: this.damaged.delete(agent)}
    if (keeper === undefined || this.signature === undefined || fresh.replace) return fresh
    const bytes = await keeper.load(agent, this.signature)
    if (!bytes) return fresh
    const saved = decodeIndex(bytes, this.signature, {lazy: this.lazy})
    if (!saved) return {...fresh, replace: true}
    try {
      return {index: FactIndex.fromCompact(saved.index), cursor: saved.cursor, unsaved: 0, close: saved.close}
    } catch {
      saved.close()
      return {...fresh, replace: true}
    }
  }

  private async read(
    agent: string,
    hits: readonly Hit[],
    cursor: string | undefined,
  ): Promise<{moved: boolean; facts: FactRecord[]}> {
    const ids = hits.map((hit) => hit.id)
    if (this.store.factsAt && cursor !== undefined) return this.store.factsAt(agent, ids, cursor)
    // Without factsAt the records may be newer than the index, which is the answer when its hits
    // are still live; one that is not sends the search round again.
    const facts = ids.length === 0 ? [] : await this.store.getFacts(agent, ids)
    return {moved: false, facts}
  }

  /** Marks the agent used and saves its index when worth it, then gives the hits. */
  private async answer(agent: string, warm: Warm, hits: ScoredFact[], meaning?: MeaningUse): Promise<SearchAnswer> {
    if (this.warm.peek(agent) === warm) this.warm.use(agent, warm)
    await this.save(agent, warm)
    return meaning === undefined ? {hits} : {hits, meaning}
  }

  /**
   * Saves the index when the keeper holds none of its history or one far behind. Derived data: a
   * failure here changes nothing for the search that ran.
   */
  private async save(agent: string, warm: Warm): Promise<void> {
    const keeper = this.store.keeper
    if (keeper === undefined || this.signature === undefined || warm.cursor === undefined) return
    if (!warm.replace && warm.index.size < SAVE_MIN_FACTS) return
    if (!warm.replace && warm.unsaved !== undefined && warm.unsaved < SAVE_AFTER_CHANGES) return
    warm.unsaved = 0
    warm.replace = false
    // Encoded from the index as it is now, synchronously: the bytes are the index at exactly this cursor.
    const encoded = encodeIndex(warm.index, {cursor: warm.cursor, signature: this.signature})
    if (encoded) await keeper.save(agent, encoded).catch(() => {})
  }
}

/**
 * Moves an index by one answer of the feed: a reset starts from an empty index; a live fact
 * joins it (in place of the copy it held), one no longer live leaves it.
 */
function apply(warm: Warm, changes: FeedAnswer, FactIndex: FactIndexType): void {
  if (changes.reset) {
    warm.close?.()
    warm.close = undefined
    warm.index = new FactIndex()
    warm.unsaved = undefined
    // Read again with the facts: which are live may have changed behind the feed's back.
    warm.vectors = undefined
  }
  let count = 0
  for (const fact of changes.facts) {
    if (isLive(fact)) {
      warm.index.add(fact)
      warm.vectors?.factLive(fact.id)
    } else {
      warm.index.remove(fact.id)
      warm.vectors?.factGone(fact.id)
    }
    count++
  }
  // Read after the facts: a store may give them as it reads them, and its cursor once done.
  warm.cursor = changes.cursor
  if (warm.unsaved !== undefined) warm.unsaved += Math.max(count, changes.read ?? 0)
}

/** Whether the hit's fact was read, and is live. */
function found(records: ReadonlyMap<string, FactRecord>, hit: Hit): boolean {
  const fact = records.get(hit.id)
  return fact !== undefined && isLive(fact)
}

function scored(hit: Hit, fact: FactRecord): ScoredFact {
  return {fact, score: hit.score, ...contextOf(hit)}
}
