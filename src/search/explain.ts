import type {HitWord} from './fact-index.js'
import {toTerm, tokenize} from './tokenize.js'
import {unspacedRuns} from './unspaced.js'

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
export function explainMatches(
  matched: readonly HitWord[],
  content: string,
  tags: readonly string[],
  query: string,
): MatchedWord[] {
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
  const words = matched.map(({word, way, term}): MatchedWord => {
    const factWord = wordOfTerm(term, way === 'term' ? word : undefined)
    const how: MatchHow = way === 'term' ? (factWord === word ? 'exact' : 'stem') : way
    return {word, how, fact_word: factWord}
  })
  return wholeRuns(words, query, `${content} ${tags.join(' ')}`)
}

/**
 * Chinese and Japanese are searched by pairs of characters (unspaced.ts), so "東京タワー" matches
 * as 東京, 京タ, タワ and ワー. A reader asked for 東京タワー: where the fact holds the whole run
 * as typed, its pairs are told as that one word. Where it holds only some of them, the pairs stay,
 * since they are what matched.
 */
function wholeRuns(words: MatchedWord[], query: string, text: string): MatchedWord[] {
  const folded = text.normalize('NFKC')
  let out = words
  for (const [start, end] of unspacedRuns(query)) {
    const run = query.slice(start, end).normalize('NFKC')
    const chars = Array.from(run)
    if (chars.length < 2 || !folded.includes(run)) continue
    const pairs = new Set(chars.slice(1).map((c, i) => chars[i]! + c))
    const exact = out.filter((w) => w.how === 'exact' && pairs.has(w.word))
    if (new Set(exact.map((w) => w.word)).size !== pairs.size) continue
    const at = out.indexOf(exact[0]!)
    out = [
      ...out.slice(0, at),
      {word: run, how: 'exact', fact_word: run},
      ...out.slice(at).filter((w) => !exact.includes(w)),
    ]
  }
  return out
}
