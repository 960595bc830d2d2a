import {stemmer} from 'stemmer'

import {ENGLISH_STOPWORDS} from './stopwords.js'
import {isUnspaced, splitUnspaced, type Side} from './unspaced.js'
import {baseForm} from './word-forms.js'

/**
 * Runs of letters, combining marks and digits. Everything else separates words: punctuation,
 * spaces, emoji, and also apostrophes and hyphens (handled below), so "self-care" matches a
 * search for "care" and "2023-05-08" yields its parts.
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu

/** Typographic apostrophes are folded to ASCII so "Caroline’s" and "Caroline's" tokenize alike. */
const APOSTROPHES = /[\u2019\u2018\u02bc\uff07]/g

/** Possessive or contracted "'s" at the end of a word: "Caroline's" and "it's" lose the suffix. */
const POSSESSIVE = /(\p{L})'s\b/gu

/**
 * A word, or a word with "'t" after it: a negative contraction ("don't", "won't", "can't") is
 * the negation of an auxiliary verb, all stopwords, so it is dropped whole, and its pieces need
 * not be stopwords: "won" (the verb) and "Don" (the name) stay searchable. Matched as words
 * rather than replaced beforehand, which costs a text nothing when it has no "'t".
 */
const WORD_OR_NEGATION = /[\p{L}\p{M}\p{N}]+(?:'t(?![\p{L}\p{M}\p{N}]))?/gu

/**
 * Accents on Latin letters are dropped so "café" and "cafe" are one term. Marks in other
 * scripts (Devanagari vowel signs, for one) are part of the letter and stay.
 */
const LATIN_ACCENTS = /(\p{Script=Latin})\p{M}+/gu

/**
 * Splits text into lower-case words. Possessives lose their "'s", negative contractions are
 * dropped, other apostrophes split ("I'm" -> "i", "m", both stopwords), accents are folded.
 * Scripts written without spaces (Chinese, Japanese, Thai...) are split as unspaced.ts says,
 * which differs a little between a fact (`side` 'index') and a query.
 */
export function tokenize(text: string, side: Side = 'index'): string[] {
  return splitUnspaced(text, side, spacedWords)
}

/** The words of text in scripts that put spaces between words. */
function spacedWords(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(LATIN_ACCENTS, '$1')
    .toLowerCase()
    .replace(APOSTROPHES, "'")
    .replace(POSSESSIVE, '$1')
  if (!folded.includes("'t")) return folded.match(WORD) ?? []
  const words: string[] = []
  for (const word of folded.match(WORD_OR_NEGATION) ?? [])
    if (!word.endsWith("'t")) words.push(word)
    else if (!word.endsWith("n't")) words.push(word.slice(0, -2))
  return words
}

/**
 * Turns one token into its index term: stopwords are dropped (checked on the surface form,
 * so the list is readable), irregular forms are taken to their base form ("bought" -> "buy"),
 * then words are reduced to their Porter stem so "researching", "researched" and "research"
 * meet. Numbers are kept as they are.
 */
export function toTerm(token: string): string | null {
  if (isUnspaced(token)) return token
  if (ENGLISH_STOPWORDS.has(token)) return null
  const base = baseForm(token) ?? token
  if (/^\p{N}+$/u.test(base)) return base
  return stemmer(base)
}

/** The terms a text is indexed or searched under, in order, repeats kept. */
export function analyze(text: string): string[] {
  const terms: string[] = []
  for (const token of tokenize(text)) {
    const term = toTerm(token)
    if (term) terms.push(term)
  }
  return terms
}

/**
 * Why a query can match nothing whatever is stored, or undefined when it has a word to search
 * by: a search that finds nothing for "the" should say that "the" is not searched for.
 */
export function unsearchable(text: string): 'no words' | 'only stopwords' | undefined {
  const tokens = tokenize(text, 'query')
  if (tokens.length === 0) return 'no words'
  return tokens.every((token) => toTerm(token) === null) ? 'only stopwords' : undefined
}

/** A text's terms, and the words that stem to something other than themselves ("deploys" → "deploi"). */
export function analyzeWords(text: string): {terms: string[]; surfaces: string[]} {
  const terms: string[] = []
  const surfaces: string[] = []
  for (const token of tokenize(text)) {
    const term = toTerm(token)
    if (!term) continue
    terms.push(term)
    if (term !== token) surfaces.push(token)
  }
  return {terms, surfaces}
}

/** One word of a query: as typed (lower case, folded), its term (undefined for a stopword), and whether it is still being typed. */
export interface QueryWord {
  surface: string
  term: string | undefined
  partial: boolean
}

/**
 * A query's words, stopwords left out, repeats kept. With `partialLast`, a last word not yet
 * followed by a space or punctuation is being typed: it is kept even if it is a stopword so
 * far ("the" on the way to "theme").
 */
export function queryWords(text: string, partialLast = false): QueryWord[] {
  const tokens = tokenize(text, 'query')
  // A word of a script without spaces is whole as it stands (an input method commits words whole): never partial.
  const typing =
    partialLast && tokens.length > 0 && /[\p{L}\p{M}\p{N}]$/u.test(text) && !isUnspaced(tokens[tokens.length - 1]!)
  const words: QueryWord[] = []
  tokens.forEach((token, i) => {
    const partial = typing && i === tokens.length - 1
    const term = toTerm(token) ?? undefined
    if (term !== undefined || partial) words.push({surface: token, term, partial})
  })
  return words
}
