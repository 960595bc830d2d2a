import type {Embedder} from './embedder.js'
import {EmbedderError} from './embedder.js'

/** What a search says of meaning: whether it took part, and how many live facts still wait for their vectors. */
export interface MeaningUse {
  used: boolean
  pending: number
  /** Why meaning did not take part, for a person: the search ranked by words alone. */
  why?: string
}

/** How long a search waits for its query's vector before it ranks by words alone. */
const QUERY_WAIT_MS = 2000
/** The same for the embedder's first call, which loads the model shipped with mem (about a second). */
const FIRST_WAIT_MS = 5000

export interface MeaningOptions {
  /**
   * The process keeps running (a server, the browser): its searches never wait for the model to
   * load (they rank by words until it has), and it embeds facts in the background. A short-lived
   * process (the CLI) waits for the model, since its one search is what it is for.
   */
  longLived: boolean
}

/**
 * Meaning as a store uses it (docs/search.md, "Meaning (optional)"): its embedder, loaded on first
 * use, and whether it is ready. The store's search layer asks it for a query's vector and the
 * facts' vectors, and closes it when the store closes.
 */
export class Meaning {
  private loading?: Promise<void>
  private ready = false
  /** Set when the embedder cannot load at all: meaning stays out until the process restarts. */
  private broken?: string
  /** The last query embedded, and its vector. */
  private last?: {text: string; vector: Float32Array}

  constructor(
    /** Loads nothing until its first call: creating one costs a command nothing. */
    private readonly embedder: Embedder,
    readonly options: MeaningOptions,
  ) {}

  /** Which vectors these are (embedder.ts): the search layer keeps and reads only this embedder's. */
  get embedderId(): string {
    return this.embedder.id
  }

  /** Starts the embedder loading without waiting for it: a server does at start, so its first searches need not. */
  warmUp(): void {
    void this.load()
  }

  /** The query's vector, or why there is none: the embedder is loading, broken, failed or slow. */
  async queryVector(text: string): Promise<{vector: Float32Array} | {why: string}> {
    if (this.broken !== undefined) return {why: this.broken}
    if (!this.ready && this.options.longLived) {
      this.warmUp()
      return {why: 'the embedding model is still loading'}
    }
    // The same query again (a search retried, a query typed on): its vector is known.
    if (this.last?.text === text) return {vector: this.last.vector}
    // A short-lived process's first call loads the model too: it may take longer.
    const wait = this.ready ? QUERY_WAIT_MS : FIRST_WAIT_MS
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<{why: string}>((resolve) => {
      timer = setTimeout(() => resolve({why: `the query's vector took longer than ${wait / 1000} s`}), wait)
    })
    try {
      const answer = await Promise.race([this.embed([text]).then(([vector]) => ({vector: vector!})), late])
      if ('vector' in answer) this.last = {text, vector: answer.vector}
      return answer
    } catch (error) {
      return {why: messageOf(error)}
    } finally {
      clearTimeout(timer)
    }
  }

  /** The texts' vectors; throws an EmbedderError when the embedder cannot give them. */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.broken !== undefined) throw new EmbedderError(this.broken, 'load')
    try {
      const vectors = await this.embedder.embed(texts)
      this.ready = true
      return vectors
    } catch (error) {
      if (error instanceof EmbedderError && error.kind === 'load') this.broken = error.message
      throw error
    }
  }

  async close(): Promise<void> {
    await this.embedder.close()
  }

  private load(): Promise<void> {
    this.loading ??= this.embed(['ready'])
      .then(() => {})
      .catch(() => {
        // A failed call may pass (an endpoint that was down): the next search tries again.
        this.loading = undefined
      })
    return this.loading
  }
}

function messageOf(error: unknown): string {
  return error instanceof EmbedderError ? error.message : 'the embedder failed'
}
