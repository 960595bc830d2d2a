import {MemError} from '../errors.js'
import type {EmbedProgress} from '../index/vector-upkeep.js'
import type {MeaningUse} from '../meaning/meaning.js'
import type {HitWord} from '../search/fact-index.js'
import type {CheckpointRecord, FactRecord} from './records.js'

export type {CheckpointRecord, FactRecord} from './records.js'

export interface NewFact {
  content: string
  tags: string[]
  /** The conversation the fact is a turn of; undefined for a standalone fact. */
  thread?: string
}

export interface AddOptions {
  /** Store a second copy even when a live fact of the agent already says the same. */
  allowDuplicate?: boolean
}

/**
 * The fact stored; or, marked `duplicate`, a copy of the live fact that already said the same
 * (nothing new was stored). The mark is never part of a stored record.
 */
export type AddedFact = FactRecord & {readonly duplicate?: true}

export interface NewCheckpoint {
  state: Record<string, unknown>
  messages?: unknown[]
  label?: string
}

/** A full-text query; `since` (inclusive) and `until` (exclusive) bound the facts' created_at. */
export interface SearchQuery {
  text: string
  limit: number
  tags?: string[]
  since?: string
  until?: string
  /** The last word is still being typed: it matches the words it starts from its first letter. */
  partial?: boolean
  /** Say of each hit which query words it matched and how. */
  explain?: boolean
}

export interface ScoredFact {
  fact: FactRecord
  score: number
  /** Set when the fact matched none of the query's words: the id of the matching fact of its thread it came with. */
  contextFor?: string
  /** With `explain`: the query words the fact matched (none for a hit that came as context). */
  matched?: HitWord[]
  /** The fact shares no word with the query: meaning alone found it. */
  byMeaning?: true
}

/** A search's hits, best first, and with meaning on what it says of meaning. */
export interface SearchAnswer {
  hits: ScoredFact[]
  /** Present only with meaning on (src/meaning/): whether it took part, and how many facts wait for their vectors. */
  meaning?: MeaningUse
}

/**
 * What the operations need from storage. The embedded implementation is FileStore
 * (lowdb JSON files); PostgresStore (src/store/postgres) implements the same for teams, chosen
 * by MEM_STORE (src/store/open-store.ts).
 * Absence is typed: an unknown fact id throws `not_found`, a missing checkpoint `no_checkpoint`.
 */
export interface Store {
  /**
   * Stores a fact, unless it is standalone (no thread) and a live standalone fact of the agent
   * already holds the same content (compared ignoring case and runs of white space): then that
   * one is returned, under the same lock.
   */
  addFact(agent: string, fact: NewFact, options?: AddOptions): Promise<AddedFact>
  searchFacts(agent: string, query: SearchQuery): Promise<SearchAnswer>
  getFact(agent: string, id: string): Promise<FactRecord>
  /** Writes `next` and marks every id in `ids` superseded by it. */
  supersede(agent: string, ids: string[], next: NewFact & {reason?: string}): Promise<FactRecord>
  deleteFact(agent: string, id: string, reason?: string): Promise<FactRecord>
  listFacts(agent: string): Promise<FactRecord[]>
  /**
   * The facts of `ids` the agent holds, live or not, in the order asked (an id asked twice
   * comes once); an id it does not hold is left out: the caller asked for several, and tells.
   */
  getFacts(agent: string, ids: readonly string[]): Promise<FactRecord[]>
  /**
   * The agent's change feed: what changed in its facts since `cursor` (a cursor an earlier
   * answer gave; none to start). See {@link FactChanges} and docs/contributing.md, "The change feed".
   */
  changesSince(agent: string, cursor?: string): Promise<FactChanges>
  /**
   * Calls `each` with every fact of the agent, in the order listFacts gives them, without the
   * store keeping them: for a caller that keeps a digest of each (mem import's check), where a
   * file store would otherwise go on holding every record of the agent.
   */
  eachFact(agent: string, each: (fact: FactRecord) => void): Promise<void>
  saveCheckpoint(agent: string, checkpoint: NewCheckpoint): Promise<CheckpointRecord>
  getCheckpoint(agent: string, id?: string): Promise<CheckpointRecord>
  listCheckpoints(agent: string): Promise<CheckpointRecord[]>
  listAgents(): Promise<string[]>
  /**
   * The agents holding a fact (or checkpoint) with this id, in order: for an error that names
   * the agent a mistyped id belongs to. Cheap, and only ever called once an id was not found.
   */
  agentsHolding(kind: RecordKind, id: string): Promise<string[]>
  /**
   * Adds records made elsewhere (mem import) as they are: ids, times and history marks kept.
   * Records whose id the agent already has are left alone, except that `marks` replace or
   * delete facts that are still live. Returns the ids it added and marked.
   */
  importRecords(agent: string, records: ImportBatch, options?: ImportOptions): Promise<ImportResult>
  /**
   * With meaning on: makes the vectors of the agent's facts that have none (`mem embed`),
   * calling `progress` after each batch, and stops early, keeping what is done, when `signal`
   * aborts. Throws `invalid_input` with meaning off.
   */
  embedPending(agent: string, progress?: (at: EmbedProgress) => void, signal?: AbortSignal): Promise<EmbedProgress>
  /**
   * Lets go of what the store holds open (the database's connections); called once when a
   * command or server ends. The store is not used after it.
   */
  close(): Promise<void>
}

export type RecordKind = 'fact' | 'checkpoint'

/**
 * One answer of the change feed (Store.changesSince). Applying it to what the caller derived
 * from the facts at the cursor gives what it would derive from the facts now: a live fact is
 * new or replaces the copy the caller holds, a superseded or deleted one is to be dropped.
 */
export interface FactChanges {
  /** Where the next call starts from: the facts this answer brings the caller to. Opaque, and only for this store and agent. */
  cursor: string
  /**
   * The store cannot say what changed since the cursor given (none was given, it is another
   * store's or garbled, or the data went back: a restored backup, a hand edit that removed
   * records): the caller drops all it derived from the agent's facts, and `facts` holds every
   * fact. Never a partial answer in place of one.
   */
  reset: boolean
  /**
   * Each fact added or changed since the cursor (its content, tags or history marks), as it is
   * now, in the order listFacts gives them. It may repeat a fact that did not change (the file
   * store tells changes by segment): applying a fact again is harmless.
   */
  facts: FactRecord[]
}

export interface ImportBatch {
  facts: FactRecord[]
  checkpoints: CheckpointRecord[]
  /** History made elsewhere for facts already stored: superseded_by/superseded_at, deleted_at, reason. */
  marks?: {id: string; patch: Partial<FactRecord>}[]
}

export interface ImportOptions {
  /**
   * More batches for this agent follow: what is derived from its facts (the saved search
   * index) is brought up to date once, after the last, instead of after each.
   */
  more?: boolean
}

export interface ImportResult {
  facts: string[]
  checkpoints: string[]
  marked: string[]
}

/** An import that stopped part way: what it wrote is stored for good, and running it again skips that. */
export class PartialImport extends MemError {
  constructor(
    message: string,
    readonly saved: {facts: number; checkpoints: number},
    /** What stopped it, alone (the message also says what was saved). */
    readonly reason: string,
  ) {
    super('io_error', message)
  }
}
