import {datesInQuery, inAnySpan} from '../query-dates.js'
import type {Ranking, RankingFeature} from './feature.js'

/**
 * A query that spells out a date ("on 13 October 2023", "in May 2023") multiplies by `boost`
 * the score of the facts created within it.
 */
export class DateBoost implements RankingFeature {
  constructor(private readonly boost: number) {}

  apply({query, candidates, scores, facts}: Ranking): void {
    const spans = datesInQuery(query)
    if (spans.length === 0) return
    for (const slot of candidates) if (inAnySpan(facts.times[slot]!, spans)) scores[slot]! *= this.boost
  }
}
