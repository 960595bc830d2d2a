import {MemError} from '../errors.js'
import type {FactIndex, Hit} from '../search/fact-index.js'
import {isLive, type FactRecord} from '../store/records.js'
import {contextOf} from '../store/record-rules.js'
import {loadFactIndex, SIGNATURE, type FactIndexType} from '../store/search-code.js'
import type {FactChanges, ScoredFact, SearchQuery} from '../store/store.js'
import {WarmCache} from '../store/warm-cache.js'
import {decodeIndex, encodeIndex} from './index-codec.js'
import type {IndexedStore} from './indexed-store.js'

/** One agent's index, as of the feed cursor `cursor` (undefined before the feed's first answer). */
interface Warm {
  index: FactIndex
  cursor?: string
  /** Facts applied since the index was saved or loaded; undefined when the keeper holds none of this history. */
  unsaved?: number
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

/**
 * Search over any store's change feed (src/index/indexed-store.ts): for each agent an index and
 * the feed cursor it has seen, brought up to date by the feed before a search (or checked
 * against the cursor the hits were read at, when the store can tell), kept warm within the one
 * budget of src/store/warm-cache.ts, and saved through the store's keeper once worth it, so a
 * process that starts loads it instead of indexing every fact. The store only persists and
 * reports change. See docs/architecture.md, "The search layer".
 */
export class SearchLayer {
  private readonly warm = new WarmCache<Warm>((w) => AGENT_COST_BYTES + w.index.size * WARM_FACT_BYTES)
  /** Each agent's catch-up, one at a time: two answers of the feed applied out of order would undo a change. */
  private readonly queue = new Map<string, Promise<unknown>>()

  constructor(
    private readonly store: IndexedStore,
    /** Which ranking code this is: the build's (see search-code.ts); without one nothing is saved or loaded. */
    private readonly signature: string | undefined = SIGNATURE,
  ) {}

  async search(agent: string, query: SearchQuery): Promise<ScoredFact[]> {
    const FactIndex = await loadFactIndex()
    const {text, ...options} = query
    for (let attempt = 1; ; attempt++) {
      const held = this.warm.peek(agent)
      // A held index is searched as it is when the hits' read says whether the agent moved since.
      const unchecked = attempt === 1 && held !== undefined && this.store.factsAt !== undefined
      const warm = unchecked ? held : await this.caughtUp(agent, FactIndex)
      // Synchronous from here to the search: the index cannot move between its cursor and its hits.
      const cursor = warm.cursor
      const hits = warm.index.search(text, options)
      if (hits.length === 0 && !unchecked) return this.answer(agent, warm, [])
      const read = await this.read(agent, hits)
      const records = new Map(read.facts.map((f) => [f.id, f]))
      const same = read.cursor === undefined || read.cursor === cursor
      const live = hits.every((hit) => found(records, hit))
      if (same && live)
        return this.answer(
          agent,
          warm,
          hits.map((hit) => scored(hit, records.get(hit.id)!)),
        )
      if (same && read.cursor !== undefined)
        throw new MemError('internal', `the search index of agent "${agent}" named a fact the store does not hold`)
      // The agent moved between the index's cursor and the read: catch up and search again; the
      // last time, the hits still live are the answer (their records as read).
      if (attempt === ATTEMPTS)
        return this.answer(
          agent,
          warm,
          hits.flatMap((hit) => (found(records, hit) ? [scored(hit, records.get(hit.id)!)] : [])),
        )
    }
  }

  /** How many agents' indexes are warm, and their estimated cost in bytes (for tests and diagnostics). */
  usage(): {agents: number; bytes: number} {
    return this.warm.usage()
  }

  /** Lets go of every warm index (the store is closing). */
  clear(): void {
    this.warm.clear()
  }

  /** The agent's index, brought up to the feed's latest answer (loaded or built first if not held). */
  private caughtUp(agent: string, FactIndex: FactIndexType): Promise<Warm> {
    const run = (this.queue.get(agent) ?? Promise.resolve()).then(async () => {
      const warm = this.warm.peek(agent) ?? (await this.loadSaved(agent, FactIndex)) ?? {index: new FactIndex()}
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

  /** The index the keeper holds for the agent, as saved; undefined when none of this build loads. */
  private async loadSaved(agent: string, FactIndex: FactIndexType): Promise<Warm | undefined> {
    const keeper = this.store.keeper
    if (keeper === undefined || this.signature === undefined) return undefined
    const bytes = await keeper.load(agent, this.signature)
    const saved = bytes && decodeIndex(bytes, this.signature)
    if (!saved) return undefined
    try {
      return {index: FactIndex.fromCompact(saved.index), cursor: saved.cursor, unsaved: 0}
    } catch {
      // Bytes that do not load are derived data: the index is built from the facts instead.
      return undefined
    }
  }

  private async read(agent: string, hits: readonly Hit[]): Promise<{cursor?: string; facts: FactRecord[]}> {
    const ids = hits.map((hit) => hit.id)
    if (this.store.factsAt) return this.store.factsAt(agent, ids)
    return {facts: ids.length === 0 ? [] : await this.store.getFacts(agent, ids)}
  }

  /** Marks the agent used and saves its index when worth it, then gives the hits. */
  private async answer(agent: string, warm: Warm, hits: ScoredFact[]): Promise<ScoredFact[]> {
    if (this.warm.peek(agent) === warm) this.warm.use(agent, warm)
    await this.save(agent, warm)
    return hits
  }

  /**
   * Saves the index when the keeper holds none of its history or one far behind. Derived data: a
   * failure here changes nothing for the search that ran.
   */
  private async save(agent: string, warm: Warm): Promise<void> {
    const keeper = this.store.keeper
    if (keeper === undefined || this.signature === undefined || warm.cursor === undefined) return
    if (warm.index.size < SAVE_MIN_FACTS) return
    if (warm.unsaved !== undefined && warm.unsaved < SAVE_AFTER_CHANGES) return
    // Encoded in one go, so the bytes are the index at exactly this cursor.
    const stamp = {cursor: warm.cursor, signature: this.signature}
    const bytes = encodeIndex(warm.index.toCompact(), stamp)
    warm.unsaved = 0
    await keeper.save(agent, bytes, stamp).catch(() => {})
  }
}

/**
 * Moves an index by one answer of the feed: a reset starts from an empty index; a live fact
 * joins it (in place of the copy it held), one no longer live leaves it.
 */
function apply(warm: Warm, changes: FactChanges, FactIndex: FactIndexType): void {
  if (changes.reset) {
    warm.index = new FactIndex()
    warm.unsaved = undefined
  }
  for (const fact of changes.facts) {
    if (isLive(fact)) warm.index.add(fact)
    else warm.index.remove(fact.id)
  }
  warm.cursor = changes.cursor
  if (warm.unsaved !== undefined) warm.unsaved += changes.facts.length
}

/** Whether the hit's fact was read, and is live. */
function found(records: ReadonlyMap<string, FactRecord>, hit: Hit): boolean {
  const fact = records.get(hit.id)
  return fact !== undefined && isLive(fact)
}

function scored(hit: Hit, fact: FactRecord): ScoredFact {
  return {fact, score: hit.score, ...contextOf(hit)}
}
