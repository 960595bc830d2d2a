import {toTerm} from './tokenize.js'

/**
 * Verbs that say little about what a fact is about: "which editor does Carol use", "when do
 * deploys go out". They are not stopwords (a search for "go" is a real search, and "use" can be
 * the point of a fact), but a fact that shares only one of them with a question is seldom what
 * the question asks for. Listed with their forms, taken to their terms as the index holds them
 * ("uses" and "using" are "us", "goes" is "goe").
 */
export const WEAK_VERBS: readonly string[] = [
  'use',
  'uses',
  'used',
  'using',
  'go',
  'goes',
  'going',
  'gone',
  'went',
  'get',
  'gets',
  'got',
  'getting',
  'gotten',
  'have',
  'has',
  'had',
  'having',
]

/** The terms of `words`, as a query word's `term` is compared with them. */
export function termsOf(words: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const word of words) {
    const term = toTerm(word)
    if (term !== null) out.add(term)
  }
  return out
}
