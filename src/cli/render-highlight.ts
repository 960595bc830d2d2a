import {analyze, queryWords, tokenize} from '../search/tokenize.js'
import {isUnspaced, unspacedMatches, unspacedRuns} from '../search/unspaced.js'

export interface Span {
  text: string
  match: boolean
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu

/** A query word this long also matches the words it starts, as in the index (docs/search.md). */
const PREFIX_MIN = 3

/**
 * Splits text into spans, marking the words a search for `query` matches: a word matches when
 * it reduces to the same stem as a query word (the analysis the index uses), so "deploys"
 * lights up for "deploy", or when it starts with a query word of three letters or more ("kube"
 * lights up "Kubernetes"). Typo matches are not marked. In scripts written without spaces,
 * where a run of letters is a whole phrase, only the characters of the query's pairs and words
 * are marked ("東京" in "東京のオフィス").
 */
export function highlight(text: string, query: string): Span[] {
  const terms = new Set(analyze(query))
  if (terms.size === 0) return [{text, match: false}]
  const words = queryWords(query)
  const prefixes = words.map((w) => w.surface).filter((w) => w.length >= PREFIX_MIN)
  const unspaced = new Set(words.flatMap((w) => (w.term !== undefined && isUnspaced(w.term) ? [w.term] : [])))
  const matches = (word: string): boolean =>
    analyze(word).some((term) => terms.has(term)) || tokenize(word).some((w) => prefixes.some((p) => w.startsWith(p)))
  const marked: [number, number][] = []
  for (const m of text.matchAll(WORD)) {
    const runs = unspacedRuns(m[0])
    if (runs.length === 0) {
      if (matches(m[0])) marked.push([m.index, m.index + m[0].length])
      continue
    }
    for (const [start, end] of unspacedMatches(m[0], unspaced)) marked.push([m.index + start, m.index + end])
    // The letters and digits between the runs ("3" in "3階", "iPhone" in "iPhone的电池") are words of their own.
    let at = 0
    for (const [start, end] of [...runs, [m[0].length, m[0].length] as const]) {
      if (start > at && matches(m[0].slice(at, start))) marked.push([m.index + at, m.index + start])
      at = end
    }
  }
  marked.sort((a, b) => a[0] - b[0])
  const spans: Span[] = []
  let at = 0
  for (const [start, end] of marked) {
    if (end <= at) continue
    const from = Math.max(start, at)
    if (from > at) spans.push({text: text.slice(at, from), match: false})
    const last = spans[spans.length - 1]
    if (last?.match && from === at) last.text += text.slice(from, end)
    else spans.push({text: text.slice(from, end), match: true})
    at = end
  }
  if (at < text.length) spans.push({text: text.slice(at), match: false})
  return spans
}
