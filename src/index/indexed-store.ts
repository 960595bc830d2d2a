import type {FactChanges, FactRecord} from '../store/store.js'
import type {VectorRecord} from '../meaning/vector-file.js'
import type {QuantizedVector} from '../meaning/vector-index.js'
import type {EncodedIndex, IndexBytes} from './index-codec.js'

/**
 * What the search layer (src/index/search-layer.ts) needs of a store: its change feed and its
 * facts by id, which every Store has. A store gets search by handing these to a SearchLayer;
 * the two optional parts make it faster, never different.
 */
export interface IndexedStore {
  /**
   * Store.changesSince: what changed in the agent's facts since a cursor. The layer reads
   * `facts` once, in order, and `cursor` after them, so a store may give a reset's facts as they
   * are read instead of all at once.
   */
  changesSince(agent: string, cursor?: string): Promise<FeedAnswer>
  /** Store.getFacts: the facts of `ids` the agent holds, live or not. */
  getFacts(agent: string, ids: readonly string[]): Promise<FactRecord[]>
  /**
   * The facts of `ids`, and whether the agent moved since `cursor` (an answer of the feed) as
   * they were read. When it did not, the hits of the index at that cursor and their records are
   * one state, with no call to the feed first: a warm search is one read. Saying it moved when
   * unsure costs a catch-up, never a wrong answer.
   */
  factsAt?(agent: string, ids: readonly string[], cursor: string): Promise<{moved: boolean; facts: FactRecord[]}>
  /** Where the index is kept between processes, so that one that starts loads it instead of indexing every fact. */
  keeper?: IndexKeeper
  /** Where the facts' vectors of meaning are kept between processes (with meaning on); without it they live as long as the process. */
  vectors?: VectorKeeper
}

/** An answer of the feed as the layer reads it: {@link FactChanges} with the facts possibly given as they are read. */
export interface FeedAnswer extends Omit<FactChanges, 'facts'> {
  facts: Iterable<FactRecord>
  /**
   * How many records the store read to answer, read after the facts, where more than it gave (a
   * store that tells changes by file, reading files whose records did not change): the layer
   * counts them toward saving its index again, so that the next process does not read them too.
   */
  read?: number
}

/**
 * Keeps one saved index per agent for the search layer, as bytes it does not look into
 * (src/index/index-codec.ts): derived data, so a failure to save loses nothing, and bytes that
 * do not decode are rebuilt from the facts.
 */
export interface IndexKeeper {
  /** The bytes saved for the agent by this build of the ranking code (`signature`), if any. */
  load(agent: string, signature: string): Promise<IndexBytes | undefined>
  /** Saves the agent's index in place of the one saved (`index.stamp`: its cursor and signature). */
  save(agent: string, index: EncodedIndex): Promise<void>
}

export type {VectorRecord}

/** A vector as kept: int8 components and the scale that makes them a unit vector, which the index takes as they are. */
export interface KeptVector {
  id: string
  digest: string
  quantized: QuantizedVector
}

/**
 * Keeps each agent's vectors for the search layer, per embedder, as records appended as facts
 * are embedded: derived data, which a process makes again when it is missing or does not read.
 */
export interface VectorKeeper {
  /**
   * The records of `embedder`'s vectors kept for the agent since `cursor` (an earlier answer's;
   * none: all), in the order kept (an id may come twice: the later stands), and where the next
   * read starts. `reset`: what was read before no longer stands (the vectors were replaced, or are
   * another embedder's): the caller drops what it held and takes these instead.
   */
  read(
    agent: string,
    embedder: string,
    cursor?: string,
  ): Promise<{records: KeptVector[]; cursor: string; reset: boolean}>
  /** Keeps `records`, made by `embedder`; false when they could not be kept (they are made again later). */
  append(agent: string, embedder: string, dimensions: number, records: readonly VectorRecord[]): Promise<boolean>
}
