import type {TermTree} from './term-tree.js'
import type {QueryWord} from './tokenize.js'
import {isUnspaced} from './unspaced.js'

/** How a query word also matches indexed words it is not: the words it starts, and typos. */
export interface LooseRules {
  /** A query word this long or longer also matches the words it starts (0: off); a word being typed, from its first letter. */
  prefixMinLength: number
  /** At most this many words per prefix, the shortest first: a one-letter prefix starts thousands. */
  prefixMaxWords: number
  /** A query word this long or longer, not found as it is, also matches words one edit away (0: off)... */
  fuzzyMinLength: number
  /** ...and from this length, two edits away. */
  fuzzyTwoMinLength: number
  /** Weights relative to an exact match (MiniSearch's). */
  weights: {prefix: number; fuzzy: number}
}

/** How a query word reached a key loosely: as a word it starts, or as a word a typo away. */
export type LooseWay = 'prefix' | 'typo'

/** The keys (terms and words as written) loose matching looks among. */
export interface KeySource {
  /** Every key that starts with `prefix`, itself included, in any order. */
  withPrefix(prefix: string): string[]
  /** A radix tree of every key, for typo lookups (costly to build: asked only when a word is in no fact). */
  tree(): TermTree
}

/**
 * The keys (terms and words as written) a query word matches loosely, with their weights:
 * prefix · K / (K + 0.3 · extra) for a key of K characters that the word starts with `extra`
 * more, and fuzzy · K / (K + edits) for a key within the edits allowed. An edit is an insertion,
 * deletion, substitution, or transposition of two neighbouring letters (`terrafrom`); typos are
 * looked for only when the word's own term is not in the index (`form` is not a typo of
 * `from` when the facts say `form`), never in numbers (`2023` is not a typo of `2024`), and
 * never in scripts written without spaces: a Chinese or Japanese term is two characters, and a
 * Thai word one letter from another is most often another word.
 */
export function looseMatches(
  word: QueryWord,
  keySource: KeySource,
  rules: LooseRules,
  hasExact: boolean,
  live: (key: string) => boolean,
  written: (key: string) => boolean,
): {key: string; weight: number; way: LooseWay}[] {
  const found = new Map<string, {weight: number; way: LooseWay}>()
  const offer = (key: string, weight: number, way: LooseWay) => {
    if ((found.get(key)?.weight ?? 0) < weight) found.set(key, {weight, way})
  }
  const {surface} = word
  const length = surface.length
  if (rules.prefixMinLength > 0 && (length >= rules.prefixMinLength || word.partial)) {
    const keys = keySource.withPrefix(surface)
    if (keys.length > rules.prefixMaxWords) keys.sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
    // Keys whose facts are all gone stay in the tree: they take no place among the shortest.
    let taken = 0
    for (let i = 0; i < keys.length && taken < rules.prefixMaxWords; i++) {
      const key = keys[i]!
      if (!live(key)) continue
      taken++
      offer(key, (rules.weights.prefix * key.length) / (key.length + 0.3 * (key.length - length)), 'prefix')
    }
  }
  if (
    !hasExact &&
    rules.fuzzyMinLength > 0 &&
    length >= rules.fuzzyMinLength &&
    !/^\p{N}+$/u.test(surface) &&
    !isUnspaced(surface)
  ) {
    const most = rules.fuzzyTwoMinLength > 0 && length >= rules.fuzzyTwoMinLength ? 2 : 1
    for (const [key, edits] of typos(surface, keySource.tree(), most))
      if (written(key) && live(key)) offer(key, (rules.weights.fuzzy * key.length) / (key.length + edits), 'typo')
  }
  return [...found].map(([key, {weight, way}]) => ({key, weight, way}))
}

/** Keys at most `most` edits from `word`, a transposition counting as one edit; with the fewest edits each. */
function typos(word: string, tree: TermTree, most: number): Map<string, number> {
  const edits = new Map<string, number>()
  const offer = (key: string, n: number) => {
    if (n <= most && (edits.get(key) ?? Number.POSITIVE_INFINITY) > n) edits.set(key, n)
  }
  for (const [key, distance] of tree.within(word, most)) offer(key, distance)
  // The tree counts a transposition as two edits: try each swap as one.
  for (let i = 0; i + 1 < word.length; i++) {
    if (word[i] === word[i + 1]) continue
    const swapped = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)
    if (most === 1) {
      if (tree.has(swapped)) offer(swapped, 1)
    } else {
      for (const [key, distance] of tree.within(swapped, most - 1)) offer(key, distance + 1)
    }
  }
  return edits
}
