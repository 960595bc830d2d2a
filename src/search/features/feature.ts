import type {SearchedWord} from '../inverted-index.js'

/** What a feature may read of each fact besides its words, by slot. */
export interface FactDetails {
  /** created_at as milliseconds since 1970. */
  times: Float64Array
  /** The turns before and after each fact in its thread (-1: none). */
  prev: Int32Array
  next: Int32Array
  /** How many threads the facts make up: none, and no fact has a neighbour. */
  threads: number
}

/**
 * One search on its way through the ranking: the facts that may be returned and their scores,
 * as text relevance left them and each feature before this one adjusted them.
 */
export interface Ranking {
  /** The query as typed. */
  readonly query: string
  /** The query's distinct words (a word being typed counts as its own), each with how many live facts hold its term. */
  readonly words: readonly SearchedWord[]
  /** How many live facts the agent has. */
  readonly live: number
  /** Which of `words` each candidate matched, by slot: bit i for word i (words from the 32nd on share the last bit). */
  readonly matchedWords: Uint32Array
  /** Takes the candidates `keep` refuses out of the search, before any feature brings facts in. */
  readonly keepOnly: (keep: (slot: number) => boolean) => void
  /**
   * How many results the caller keeps: a feature may leave a fact that it can show will not
   * make them with a lower score than it would give it otherwise.
   */
  readonly limit: number
  /** The facts that may be returned: the matches, then any a feature brings in. */
  readonly candidates: number[]
  /** Score by slot; 0 for facts that are not candidates. */
  readonly scores: Float64Array
  /** For a candidate brought in without matching: the fact whose context it is. */
  readonly contextFor: Map<number, number>
  /** Whether a fact ends with a question that holds a word of this query (by term). */
  readonly asksAbout: (slot: number) => boolean
  /** Facts this search may return (undefined: all may); a feature must not bring in others. */
  readonly accept: ((slot: number) => boolean) | undefined
  readonly facts: FactDetails
  /**
   * With meaning on: the live facts nearest the query in meaning, by slot, and the cosine
   * similarity of each, nearest first (see meaning-blend.ts). Undefined: words alone rank.
   */
  readonly dense: DenseSlots | undefined
  /** The candidates a feature brought in by meaning alone: they share no word with the query. */
  readonly byMeaning: Set<number>
}

/** Facts by slot with their cosine similarity to the query, nearest first. */
export interface DenseSlots {
  slots: number[]
  similarity: number[]
}

/**
 * Something besides the words that moves a fact up or down (see docs/search.md). Features run
 * in a fixed order, each over the scores the ones before it left; one instance serves one index,
 * so it may keep buffers from one search to the next.
 */
export interface RankingFeature {
  apply(ranking: Ranking): void
}
