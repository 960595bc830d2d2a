import type {KeptVector} from '../index/indexed-store.js'
import type {DenseHit} from '../search/fact-index.js'
import {VectorIndex, type QuantizedVector} from './vector-index.js'

/**
 * One agent's vectors of meaning as a process holds them: those of its live facts in a
 * {@link VectorIndex}, searched by similarity, and the few it read before the word index knew
 * their fact (another process embedded a fact just added), kept aside until it does; and,
 * once tracked, which live facts still wait for their vector, kept up to date as facts and
 * vectors arrive so that neither a search nor the embedding walks every fact to find them.
 * `cursor` is where the next read of the keeper starts.
 */
export class AgentVectors {
  private index?: VectorIndex
  private readonly early = new Map<string, QuantizedVector>()
  private waiting?: Set<string>
  cursor?: string

  /** How many live facts have their vector. */
  get size(): number {
    return this.index?.size ?? 0
  }

  /** What the vectors held cost in memory, about (the warm budget counts it). */
  get bytes(): number {
    const index = this.index
    return index === undefined ? 0 : (index.size + this.early.size) * index.bytesPerVector
  }

  has(id: string): boolean {
    return this.index?.has(id) === true
  }

  /** Takes vectors read from the keeper: a fact `live` says the word index holds joins the search, any other waits aside. */
  take(records: readonly KeptVector[], live: (id: string) => boolean): void {
    for (const {id, quantized} of records) {
      // Another length than those held: the keeper replaced them, and a reset follows.
      if (this.index !== undefined && quantized.values.length !== this.index.dimensions) continue
      if (live(id)) {
        this.indexFor(quantized.values.length).addQuantized(id, quantized)
        this.waiting?.delete(id)
      } else this.early.set(id, quantized)
    }
  }

  /** Takes vectors just made for live facts. */
  add(records: readonly {id: string; vector: Float32Array}[]): void {
    for (const {id, vector} of records) {
      if (this.index !== undefined && vector.length !== this.index.dimensions) continue
      this.indexFor(vector.length).add(id, vector)
      this.waiting?.delete(id)
    }
  }

  /** Starts tracking which of the live facts (`live`: all of their ids) wait for a vector; once per agent held. */
  track(live: Iterable<string>): void {
    if (this.waiting !== undefined) return
    this.waiting = new Set()
    for (const id of live) if (!this.has(id)) this.waiting.add(id)
  }

  /** How many live facts wait for their vector (0 before tracking). */
  get pending(): number {
    return this.waiting?.size ?? 0
  }

  /** Up to `max` of the facts that wait for their vector, oldest first. */
  waitingIds(max: number): string[] {
    const ids: string[] = []
    for (const id of this.waiting ?? []) {
      if (ids.length >= max) break
      ids.push(id)
    }
    return ids
  }

  /** The word index took a live fact: its vector, if read before, joins the search. */
  factLive(id: string): void {
    const quantized = this.early.get(id)
    if (quantized === undefined) {
      if (!this.has(id)) this.waiting?.add(id)
      return
    }
    this.early.delete(id)
    this.indexFor(quantized.values.length).addQuantized(id, quantized)
  }

  /** The fact is no longer live (replaced or deleted). */
  factGone(id: string): void {
    this.index?.remove(id)
    this.early.delete(id)
    this.waiting?.delete(id)
  }

  /**
   * The `k` live facts nearest `query`, or why there are none: vectors of another length than
   * the query's were made by another model under the same name.
   */
  nearest(query: Float32Array, k: number): DenseHit[] | {why: string} {
    const index = this.index
    if (index === undefined) return []
    if (index.dimensions !== query.length)
      return {
        why: `the facts' vectors have ${index.dimensions} numbers and the query's ${query.length}, so the model changed under the same name: remove the agent's cache/vectors.bin (on PostgreSQL, its rows of mem_vectors) and run "mem embed"`,
      }
    return index.nearest(query, k)
  }

  private indexFor(dimensions: number): VectorIndex {
    this.index ??= new VectorIndex(dimensions)
    return this.index
  }
}
