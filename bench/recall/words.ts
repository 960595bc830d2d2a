import {toTerm, tokenize} from '../../src/search/tokenize.js'

/** The words an agent's facts hold, grouped by stem: what a query word may be a typo or prefix of. */
export type Vocabulary = ReadonlyMap<string, readonly string[]>

/** The words of `texts` by stem (stopwords and numbers' stems included as they are). */
export function vocabularyOf(texts: Iterable<string>): Vocabulary {
  const out = new Map<string, Set<string>>()
  for (const text of texts)
    for (const word of tokenize(text)) {
      const stem = toTerm(word) ?? word
      let words = out.get(stem)
      if (!words) out.set(stem, (words = new Set()))
      words.add(word)
    }
  return new Map([...out].map(([stem, words]) => [stem, [...words]]))
}

/**
 * The word rule search promises, written out plainly for tests and benchmarks to check results
 * against: a query word matches a fact's word of the same stem, a word it starts (3 letters or
 * more), or a word a typo away (one edit from 4 letters, two from 8; numbers have no typos).
 * A word it starts or is a typo of may be written in another fact of the same memory
 * (`vocabulary`): then it matches the fact's words of that word's stem, as any query word
 * does ("conducting" is two letters from "connecting", which matches "connected").
 */
export function sharesAWord(query: string, fact: string, vocabulary?: Vocabulary): boolean {
  const words = tokenize(fact)
  return tokenize(query).some((q) => {
    const term = toTerm(q)
    if (term === null) return false
    const loose = (w: string) =>
      (q.length >= 3 && w.startsWith(q)) ||
      (q.length >= 4 && !/^\d+$/.test(q) && edits(q, w) <= (q.length >= 8 ? 2 : 1))
    return words.some((w) => {
      const stem = toTerm(w)
      return stem === term || loose(w) || (stem !== null && (vocabulary?.get(stem) ?? []).some(loose))
    })
  })
}

/** Edits between a query word and a key: Levenshtein, a transposition of neighbours counting as one. */
export function edits(word: string, key: string): number {
  let best = levenshtein(word, key)
  for (let i = 0; i + 1 < word.length; i++) {
    if (word[i] === word[i + 1]) continue
    best = Math.min(best, 1 + levenshtein(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2), key))
  }
  return best
}

export function levenshtein(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }
  return row[b.length]!
}
