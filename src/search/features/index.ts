import type {Tuning} from '../fact-index.js'
import {termsOf} from '../weak-words.js'
import {DateBoost} from './date-boost.js'
import type {RankingFeature} from './feature.js'
import {InformativeWords} from './informative-words.js'
import {MeaningBlend} from './meaning-blend.js'
import {ThreadContext} from './thread-context.js'

export type {DenseSlots, FactDetails, Ranking, RankingFeature} from './feature.js'

/**
 * The features a search applies after text relevance, in order, leaving out those `tuning`
 * switches off. The order matters: facts matched only by weak words go first, so they neither
 * lend context nor count towards the cut; a fact's context loan is a share of its lender's score with
 * the date boost already in; meaning blends in last, over the final word scores (and only when
 * the search was given the facts nearest the query in meaning).
 */
export function rankingFeatures(tuning: Tuning): RankingFeature[] {
  const features: RankingFeature[] = []
  // First: a fact left out lends no context and takes no boost.
  if (tuning.weakWords.length > 0 || tuning.commonShare < 1)
    features.push(new InformativeWords({terms: termsOf(tuning.weakWords), commonShare: tuning.commonShare}))
  if (tuning.dateBoost !== 1) features.push(new DateBoost(tuning.dateBoost))
  if (tuning.context > 0 && tuning.contextReach > 0)
    features.push(new ThreadContext({share: tuning.context, replyShare: tuning.replyShare, reach: tuning.contextReach}))
  if (tuning.meaning.words < 1) features.push(new MeaningBlend(tuning.meaning))
  return features
}
