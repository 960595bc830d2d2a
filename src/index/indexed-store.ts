import type {FactChanges, FactRecord} from '../store/store.js'
import type {IndexStamp} from './index-codec.js'

/**
 * What the search layer (src/index/search-layer.ts) needs of a store: its change feed and its
 * facts by id, which every Store has. A store gets search by handing these to a SearchLayer;
 * the two optional parts make it faster, never different.
 */
export interface IndexedStore {
  /** Store.changesSince: what changed in the agent's facts since a cursor. */
  changesSince(agent: string, cursor?: string): Promise<FactChanges>
  /** Store.getFacts: the facts of `ids` the agent holds, live or not. */
  getFacts(agent: string, ids: readonly string[]): Promise<FactRecord[]>
  /**
   * The facts of `ids`, read together with the cursor the agent is at (as changesSince would
   * answer it now). When that is the cursor of the index searched, the hits and their records
   * are one state, with no call to the feed first: a warm search is one read.
   */
  factsAt?(agent: string, ids: readonly string[]): Promise<{cursor: string; facts: FactRecord[]}>
  /** Where the index is kept between processes, so that one that starts loads it instead of indexing every fact. */
  keeper?: IndexKeeper
}

/**
 * Keeps one saved index per agent for the search layer, as bytes it does not look into
 * (src/index/index-codec.ts): derived data, so a failure to save loses nothing, and bytes that
 * do not decode are rebuilt from the facts.
 */
export interface IndexKeeper {
  /** The bytes saved for the agent by this build of the ranking code (`signature`), if any. */
  load(agent: string, signature: string): Promise<Buffer | undefined>
  /** Saves the agent's index, at the feed cursor `cursor`, written by `signature`, in place of the one saved. */
  save(agent: string, bytes: Buffer, stamp: IndexStamp): Promise<void>
}
