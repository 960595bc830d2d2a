import {analyze, queryWords, tokenize} from '../search/tokenize.js'

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
 * lights up "Kubernetes"). Typo matches are not marked.
 */
export function highlight(text: string, query: string): Span[] {
  const terms = new Set(analyze(query))
  if (terms.size === 0) return [{text, match: false}]
  const prefixes = queryWords(query)
    .map((w) => w.surface)
    .filter((w) => w.length >= PREFIX_MIN)
  const matches = (word: string): boolean =>
    analyze(word).some((term) => terms.has(term)) || tokenize(word).some((w) => prefixes.some((p) => w.startsWith(p)))
  const spans: Span[] = []
  let at = 0
  for (const m of text.matchAll(WORD)) {
    if (!matches(m[0])) continue
    if (m.index > at) spans.push({text: text.slice(at, m.index), match: false})
    spans.push({text: m[0], match: true})
    at = m.index + m[0].length
  }
  if (at < text.length) spans.push({text: text.slice(at), match: false})
  return spans
}
