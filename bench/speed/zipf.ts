import {rng} from './facts.js'

/** Words as both stores' tokenizers see them, near enough: runs of letters and digits, lower-cased. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

/**
 * Queries of 2-4 distinct words drawn from a corpus's own vocabulary with Zipf weights over
 * frequency rank (weight 1 / rank^s, s = 1 by default): the commonest words ("the", "on",
 * "for", the people's names) come up most, as they do in what agents ask, and they are the
 * words that match the most facts. Seeded: the same corpus and seed give the same queries.
 */
export class ZipfQueries {
  private readonly words: string[]
  /** Cumulative weights, ascending, for a draw by binary search. */
  private readonly cumulative: Float64Array
  private readonly next: () => number

  constructor(texts: Iterable<string>, seed: number, s = 1) {
    const counts = new Map<string, number>()
    for (const text of texts) for (const word of wordsOf(text)) counts.set(word, (counts.get(word) ?? 0) + 1)
    // Ties broken by the word itself, so the ranking does not depend on the corpus's order.
    this.words = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([word]) => word)
    this.cumulative = new Float64Array(this.words.length)
    let sum = 0
    this.words.forEach((_, i) => {
      sum += 1 / (i + 1) ** s
      this.cumulative[i] = sum
    })
    this.next = rng(seed)
  }

  /** How many distinct words the corpus has. */
  get vocabulary(): number {
    return this.words.length
  }

  /** The `n` most frequent words, most frequent first. */
  top(n: number): string[] {
    return this.words.slice(0, n)
  }

  query(): string {
    const want = 2 + Math.floor(this.next() * 3)
    const picked = new Set<string>()
    while (picked.size < Math.min(want, this.words.length)) picked.add(this.draw())
    return [...picked].join(' ')
  }

  private draw(): string {
    const total = this.cumulative[this.cumulative.length - 1]!
    const target = this.next() * total
    let lo = 0
    let hi = this.cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.cumulative[mid]! < target) lo = mid + 1
      else hi = mid
    }
    return this.words[lo]!
  }
}
