import type {HitWord} from './fact-index.js'
import {toTerm, tokenize} from './tokenize.js'

/** How a fact matched a query word: the word itself, another word of its stem, a word it starts, a word a typo away. */
export type MatchHow = 'exact' | 'stem' | 'prefix' | 'typo'

export interface MatchedWord {
  /** The query word, as the search read it (lower case, accents folded). */
  word: string
  how: MatchHow
  /** The fact's word it matched, as the search read it. */
  fact_word: string
}

/**
 * The words a hit matched, told apart as a reader asks: the index knows which term of the fact a
 * query word reached and by which way; whether the fact holds the word as typed or another word
 * of its stem, and which, is read from the fact's own text (its content and tags, which are
 * indexed too). Only the few hits a search returns are read.
 */
export function explainMatches(matched: readonly HitWord[], content: string, tags: readonly string[]): MatchedWord[] {
  if (matched.length === 0) return []
  const tokens = [...tokenize(content), ...tokenize(tags.join(' '))]
  const termOf = new Map<string, string | null>()
  const wordOfTerm = (term: string, prefer?: string): string => {
    if (prefer !== undefined && tokens.includes(prefer)) return prefer
    for (const token of tokens) {
      let t = termOf.get(token)
      if (t === undefined) termOf.set(token, (t = toTerm(token)))
      if (t === term) return token
    }
    // The term stands for the fact's word (it always does for an indexed fact).
    return term
  }
  return matched.map(({word, way, term}) => {
    const factWord = wordOfTerm(term, way === 'term' ? word : undefined)
    const how: MatchHow = way === 'term' ? (factWord === word ? 'exact' : 'stem') : way
    return {word, how, fact_word: factWord}
  })
}
