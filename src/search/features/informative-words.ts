import {wordBit} from '../accumulator.js'
import type {Ranking, RankingFeature} from './feature.js'

export interface WeakWords {
  /** Terms that say little whatever their counts ("use", "go", "get": see weak-words.ts). */
  terms: ReadonlySet<string>
  /** A query word whose term is in more than this share of the agent's live facts is common (1 or more: none is). */
  commonShare: number
}

/**
 * A fact that shares with the query only words that say little (weak verbs such as "use" and
 * "go", or words common in the agent's facts) is left out while other facts match the query's
 * informative words: "which editor does Carol use" returns the fact about Carol's editor, not
 * every fact that says "uses". A query made only of such words ("go") keeps every match, so
 * it is still a real search. A word being typed is always informative.
 */
export class InformativeWords implements RankingFeature {
  constructor(private readonly weak: WeakWords) {}

  apply(ranking: Ranking): void {
    const {words, live, matchedWords, candidates} = ranking
    let informative = 0
    let some = false
    words.forEach(({word, df}, q) => {
      const isWeak =
        !word.partial &&
        word.term !== undefined &&
        (this.weak.terms.has(word.term) || df > this.weak.commonShare * live)
      if (isWeak) some = true
      else informative = (informative | wordBit(q)) >>> 0
    })
    // Nothing weak: nothing to leave out. Nothing informative: the weak words are the search.
    if (!some || informative === 0) return
    if (!candidates.some((slot) => (matchedWords[slot]! & informative) !== 0)) return
    ranking.keepOnly((slot) => (matchedWords[slot]! & informative) !== 0)
  }
}
