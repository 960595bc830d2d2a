import type {Ranking, RankingFeature} from './feature.js'

export interface BlendShares {
  /**
   * The share of a fact's final score its words give (α), the rest its meaning: α × (its score
   * ÷ the best word score) + (1 − α) × (its similarity, scaled over the nearest facts found).
   */
  words: number
  /** The least cosine similarity at which a fact that shares no word with the query is returned. */
  floor: number
}

/**
 * Hybrid ranking (docs/search.md, "Meaning (optional)"): blends the word scores the features before it
 * left with the query's cosine similarity to the facts nearest it in meaning, handed in as
 * `ranking.dense`. Runs last, over final word scores, so a fact named by a rare word keeps the
 * lead its words gave it. A fact no word matched joins from its similarity alone, when that is
 * at least `floor`: the nearest facts of any query are returned otherwise, however far.
 *
 * Scores are relative within one search (the best word score counts as 1, the nearest facts
 * span 0 to 1), as BM25 scores already are: a similarity has no common scale with them.
 */
export class MeaningBlend implements RankingFeature {
  /** Each slot's scaled similarity in this search, by slot; -1: not among the nearest. */
  private near = new Float64Array(0)

  constructor(private readonly shares: BlendShares) {}

  apply(ranking: Ranking): void {
    const dense = ranking.dense
    if (dense === undefined || dense.slots.length === 0) return
    const {candidates, scores, accept} = ranking
    if (this.near.length < scores.length) this.near = new Float64Array(scores.length).fill(-1)
    const near = this.near
    const [low, high] = spanOf(dense.similarity)
    for (let i = 0; i < dense.slots.length; i++)
      near[dense.slots[i]!] = high > low ? (dense.similarity[i]! - low) / (high - low) : 1
    try {
      let best = 0
      for (const slot of candidates) best = Math.max(best, scores[slot]!)
      const alpha = this.shares.words
      for (const slot of candidates)
        scores[slot] = alpha * (best > 0 ? scores[slot]! / best : 0) + (1 - alpha) * Math.max(0, near[slot]!)
      for (let i = 0; i < dense.slots.length; i++) {
        const slot = dense.slots[i]!
        // Every candidate has a score above 0 by now, and no other fact has one.
        if (scores[slot]! > 0 || dense.similarity[i]! < this.shares.floor) continue
        if (accept !== undefined && !accept(slot)) continue
        candidates.push(slot)
        scores[slot] = (1 - alpha) * near[slot]!
        ranking.byMeaning.add(slot)
      }
    } finally {
      for (const slot of dense.slots) near[slot] = -1
    }
  }
}

function spanOf(values: readonly number[]): [number, number] {
  let low = Number.POSITIVE_INFINITY
  let high = Number.NEGATIVE_INFINITY
  for (const value of values) {
    low = Math.min(low, value)
    high = Math.max(high, value)
  }
  return [low, high]
}
