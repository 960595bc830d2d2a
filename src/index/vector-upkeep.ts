import type {FactRecord} from '../store/records.js'
import {contentDigest} from '../meaning/content-digest.js'
import {EmbedderError} from '../meaning/embedder.js'
import type {Meaning} from '../meaning/meaning.js'
import type {VectorRecord} from './indexed-store.js'

/** What the upkeep needs of the search layer: the facts waiting for vectors, and a place for the vectors made. */
export interface VectorHome {
  pendingFacts(agent: string, max: number): Promise<{facts: FactRecord[]; pending: number}>
  keepVectors(agent: string, dimensions: number, records: readonly VectorRecord[]): Promise<boolean>
}

/** How many facts go to the embedder at once: a batch's worth of work is lost when a process stops mid-way. */
const BATCH = 16
/** Batches of facts asked of the layer at once. */
const BATCHES_PER_ASK = 64
/** After a failure, a background upkeep waits this long before it tries that agent again. */
const RETRY_MS = 60_000
/** Batches in a row that leave as many facts pending as before, after which a run ends. */
const STALLS = 3

/** Where `mem embed` stands, for its progress bar. */
export interface EmbedProgress {
  embedded: number
  pending: number
}

/**
 * Makes the vectors of facts that have none, off every acknowledgement path: in the background
 * of a long-running process (a server, the browser), one agent at a time and a batch at a time,
 * and in the foreground for `mem embed`. Each batch is kept as soon as it is made, so a process
 * stopped mid-way (Ctrl-C, a kill) loses at most the batch in hand, and the next one resumes
 * from what is kept. A failure never reaches a search or a write: the facts stay pending.
 */
export class VectorUpkeep {
  private readonly waiting = new Set<string>()
  private running = false
  private readonly resting = new Map<string, number>()
  private stopped = false

  constructor(
    private readonly home: VectorHome,
    private readonly meaning: Meaning,
  ) {}

  /** Embeds the agent's pending facts in the background, after those already asked for. */
  schedule(agent: string): void {
    if (this.stopped || (this.resting.get(agent) ?? 0) > Date.now()) return
    this.waiting.add(agent)
    if (!this.running) void this.drain()
  }

  /** Stops the background work after the batch in hand (the process is closing). */
  stop(): void {
    this.stopped = true
    this.waiting.clear()
  }

  /**
   * Embeds every pending fact of the agent now, calling `progress` after each batch; stops
   * early, keeping what is done, when `signal` aborts. Throws the embedder's error.
   */
  async run(agent: string, progress?: (at: EmbedProgress) => void, signal?: AbortSignal): Promise<EmbedProgress> {
    let embedded = 0
    let least = Number.POSITIVE_INFINITY
    let stalls = 0
    const aborted = () => signal?.aborted === true
    for (;;) {
      // Asked for many at a time: finding them walks the agent's live facts from the first.
      const {facts, pending} = await this.home.pendingFacts(agent, BATCH * BATCHES_PER_ASK)
      progress?.({embedded, pending})
      if (facts.length === 0 || aborted()) return {embedded, pending}
      // Vectors made and not taken (facts added as fast as they are embedded, or an index let go
      // of between batches) would loop for ever: a few rounds without progress end the run.
      stalls = pending < least ? 0 : stalls + 1
      least = Math.min(least, pending)
      if (stalls >= STALLS) return {embedded, pending}
      for (let at = 0; at < facts.length; at += BATCH) {
        if (aborted()) return {embedded, pending: pending - at}
        const records = await this.embed(facts.slice(at, at + BATCH))
        if (!(await this.home.keepVectors(agent, records[0]!.vector.length, records)))
          throw new EmbedderError(
            "the vectors could not be written to the agent's cache folder (is the disk full?)",
            'call',
          )
        embedded += records.length
        progress?.({embedded, pending: pending - at - records.length})
      }
    }
  }

  private async drain(): Promise<void> {
    this.running = true
    try {
      for (const agent of this.waiting) {
        this.waiting.delete(agent)
        await this.run(agent).catch(() => this.resting.set(agent, Date.now() + RETRY_MS))
        if (this.stopped) return
      }
    } finally {
      this.running = false
    }
  }

  private async embed(facts: readonly FactRecord[]): Promise<VectorRecord[]> {
    const vectors = await this.meaning.embed(facts.map((fact) => fact.content))
    return facts.map((fact, i) => ({id: fact.id, digest: contentDigest(fact.content), vector: vectors[i]!}))
  }
}
