/**
 * Per-document scores of one search, in arrays indexed by slot and reused from one search to
 * the next: scoring 50,000 matches then allocates nothing and touches only numbers.
 */
export class Accumulator {
  scores = new Float64Array(0)
  /** How many distinct query terms matched each slot. */
  matched = new Uint16Array(0)
  /** Which distinct query terms matched each slot: bit q for term q (terms from the 32nd on share the last bit). */
  words = new Uint32Array(0)
  /**
   * Slots credited since the last reset, in first-credit order; the ranking appends the facts
   * it brings in as context, so that reset clears their scores too.
   */
  touched: number[] = []
  /** Last query term credited to each slot (-1: none), so a term's prefix and fuzzy variants count once. */
  private lastTerm = new Int32Array(0)

  ensure(capacity: number): void {
    if (this.scores.length >= capacity) return
    const size = Math.max(capacity, this.scores.length * 2, 1024)
    const scores = new Float64Array(size)
    scores.set(this.scores)
    const matched = new Uint16Array(size)
    matched.set(this.matched)
    const words = new Uint32Array(size)
    words.set(this.words)
    const lastTerm = new Int32Array(size).fill(-1)
    lastTerm.set(this.lastTerm)
    this.scores = scores
    this.matched = matched
    this.words = words
    this.lastTerm = lastTerm
  }

  has(slot: number): boolean {
    return this.lastTerm[slot] !== -1
  }

  credit(slot: number, queryTerm: number, score: number): void {
    const last = this.lastTerm[slot]
    if (last !== queryTerm) {
      if (last === -1) this.touched.push(slot)
      this.lastTerm[slot] = queryTerm
      this.matched[slot]! += 1
      this.words[slot]! |= wordBit(queryTerm)
    }
    this.scores[slot]! += score
  }

  /** Takes every credited slot that `keep` refuses out of this search, as if it had never matched. */
  keepOnly(keep: (slot: number) => boolean): void {
    const touched = this.touched
    let w = 0
    for (let r = 0; r < touched.length; r++) {
      const slot = touched[r]!
      if (keep(slot)) touched[w++] = slot
      else this.clear(slot)
    }
    // In place: the ranking holds this array as its candidates.
    touched.length = w
  }

  reset(): void {
    for (const slot of this.touched) this.clear(slot)
    this.touched = []
  }

  private clear(slot: number): void {
    this.scores[slot] = 0
    this.matched[slot] = 0
    this.words[slot] = 0
    this.lastTerm[slot] = -1
  }
}

/** The bit of distinct query term `q` in {@link Accumulator.words}. */
export function wordBit(q: number): number {
  return (1 << Math.min(q, 31)) >>> 0
}
