import {stemmer} from 'stemmer'

import {ENGLISH_STOPWORDS} from './stopwords.js'

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
 * Accents on Latin letters are dropped so "café" and "cafe" are one term. Marks in other
 * scripts (Devanagari vowel signs, for one) are part of the letter and stay.
 */
const LATIN_ACCENTS = /(\p{Script=Latin})\p{M}+/gu

/**
 * Splits text into lower-case words. Possessives lose their "'s", other apostrophes split
 * ("don't" -> "don", "t", both stopwords), accents are folded.
 */
export function tokenize(text: string): string[] {
  const folded = text.normalize('NFKD').replace(LATIN_ACCENTS, '$1').toLowerCase().replace(APOSTROPHES, "'").replace(POSSESSIVE, '$1')
  return folded.match(WORD) ?? []
}

/**
 * Turns one token into its index term: stopwords are dropped (checked on the surface form,
 * so the list is readable), then words are reduced to their Porter stem so "researching",
 * "researched" and "research" meet. Numbers are kept as they are.
 */
export function toTerm(token: string): string | null {
  if (ENGLISH_STOPWORDS.has(token)) return null
  if (/^\p{N}+$/u.test(token)) return token
  return stemmer(token)
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
