import {mthLargest} from './top-k.js'

/** Links between the turns of a thread, by slot (-1: no neighbour), and 1 for facts that end with a question. */
export interface Links {
  prev: Int32Array
  next: Int32Array
  asks: Uint8Array
}

export interface ContextOptions {
  /** Share of a fact's score lent to its direct neighbours; share^d at d steps. */
  share: number
  /** Share a fact that ends with a question lends to the fact after it, its reply. */
  replyShare: number
  /** Steps to walk either way. */
  reach: number
  /** Facts this search may not return neither receive nor pass on context (undefined: all may). */
  accept: ((slot: number) => boolean) | undefined
}

export interface ContextInput {
  /** Facts the index scored, and their scores (`own`, indexed by slot; 0 for the rest). */
  matches: readonly number[]
  own: Float64Array
  /** How many results the caller keeps. */
  limit: number
  /**
   * Score of a fact the index did not score because it holds only the query's commonest words
   * (see InvertedIndex.match), and the most that can be.
   */
  unseen: (slot: number) => number
  unseenMax: number
}

/**
 * The turns of one conversation (a thread) belong together, and the one that answers a
 * question often repeats none of its words: "They were scared but we reassured them" follows
 * "my son got into an accident". So every matching turn lends part of its score to the turns
 * around it in its thread: `share` to a direct neighbour, `share²` two steps away. A fact
 * keeps only the largest loan on offer (added to its own score), so a fact between two matches
 * is not lifted twice, and a loan is always smaller than its lender's score: a matching fact
 * stays above the context it brings in.
 *
 * Computed exactly, but without walking around every one of 50,000 matches when a common word
 * matches them: only facts that can reach the results lend at first, and the few that are
 * close to the cut get their remaining neighbours checked afterwards.
 */
export class Context {
  private loan = new Float64Array(0)
  /** Per slot with a loan, the slot it came from. */
  private lender = new Int32Array(0)
  private lentTo: number[] = []
  /** Scores of facts the index skipped, computed here on demand. */
  private extraOwn = new Map<number, number>()
  /** Per-slot flags for one search (lender, candidate, late lender), cleared before rank returns. */
  private marks = new Uint8Array(0)
  private links: Links = {prev: new Int32Array(0), next: new Int32Array(0), asks: new Uint8Array(0)}
  private options: ContextOptions = {share: 0, replyShare: 0, reach: 0, accept: undefined}

  /**
   * The facts that may make the results, their final scores (own score plus loan), and for a
   * fact that matched nothing itself, the fact whose context it is. Valid until {@link reset},
   * which must follow every call.
   */
  rank(input: ContextInput, links: Links, options: ContextOptions): {candidates: number[]; finalOf: (slot: number) => number; lenderOf: (slot: number) => number | undefined} {
    this.links = links
    this.options = options
    const {matches, own, limit, unseen, unseenMax} = input
    // The largest share any fact lends: the bounds below hold for every loan.
    const share = Math.max(this.options.share, this.options.replyShare)
    if (this.loan.length < own.length) {
      this.loan = new Float64Array(own.length)
      this.lender = new Int32Array(own.length)
    }
    if (this.marks.length < own.length) this.marks = new Uint8Array(own.length)
    const ownOf = (slot: number) => (own[slot]! > 0 ? own[slot]! : (this.extraOwn.get(slot) ?? 0))
    const finalOf = (slot: number) => ownOf(slot) + this.loan[slot]!

    // Matches below `floor` cannot reach the results even with the largest loan another such
    // fact could give them (loans are at most share times the lender's score), so at first only
    // matches above it lend. The limit-th best own score is a lower bound of the final cut.
    const cutOwn = mthLargest(matches.length, limit, (i) => own[matches[i]!]!)
    const floor = cutOwn === Number.NEGATIVE_INFINITY ? 0 : cutOwn / (1 + share)
    const lenders = floor === 0 ? matches : matches.filter((slot) => own[slot]! >= floor)
    const reachedOnly = this.lend(lenders, ownOf)

    // Facts reached only through context may hold the query's commonest words: score them, if
    // they could beat the limit-th best lender.
    const bar = mthLargest(lenders.length, limit, (i) => finalOf(lenders[i]!))
    for (const slot of reachedOnly) {
      if (this.loan[slot]! + unseenMax < bar - MARGIN) continue
      this.extraOwn.set(slot, unseenMax === 0 ? 0 : unseen(slot))
    }
    // Flags in a reused array rather than Sets: a common word makes tens of thousands of lenders.
    const marks = this.marks
    for (const slot of lenders) marks[slot]! |= LENDER
    const candidates: number[] = []
    const addCandidate = (slot: number) => {
      if ((marks[slot]! & CANDIDATE) !== 0) return
      marks[slot]! |= CANDIDATE
      candidates.push(slot)
    }
    for (const slot of lenders) addCandidate(slot)
    for (const slot of this.lentTo) if (own[slot]! > 0 || this.extraOwn.has(slot)) addCandidate(slot)

    // Facts that did not lend (matches below the floor, facts holding only common words) give
    // loans of at most share * maxQuiet. Only candidates within that of the cut can be moved by
    // them: check those candidates' neighbours and let them lend too.
    const maxQuiet = Math.max(floor, unseenMax)
    if (maxQuiet > 0) {
      const cut = mthLargest(candidates.length, limit, (i) => finalOf(candidates[i]!))
      const late: number[] = []
      for (const slot of candidates) {
        if (finalOf(slot) + share * maxQuiet < cut - MARGIN) continue
        this.walk(slot, (n) => {
          if ((marks[n]! & LENDER) !== 0) return
          if (own[n]! === 0 && !this.extraOwn.has(n)) this.extraOwn.set(n, unseenMax === 0 ? 0 : unseen(n))
          if (ownOf(n) > 0 && (marks[n]! & LATE) === 0) {
            marks[n]! |= LATE
            late.push(n)
          }
        })
      }
      for (const slot of late) marks[slot] = 0
      // Whoever these loans reach beyond the candidates stays below the cut: their own score
      // is under the floor (or from common words only), their loan under share times that.
      this.lend(late, ownOf)
    }
    for (const slot of lenders) marks[slot] = 0
    for (const slot of candidates) marks[slot] = 0
    const lenderOf = (slot: number) => (ownOf(slot) === 0 && this.loan[slot]! > 0 ? this.lender[slot]! : undefined)
    return {candidates, finalOf, lenderOf}
  }

  reset(): void {
    for (const slot of this.lentTo) this.loan[slot] = 0
    this.lentTo = []
    this.extraOwn.clear()
  }

  /** Lends from each of `lenders`; returns the receivers that have no score of their own. */
  private lend(lenders: readonly number[], ownOf: (slot: number) => number): number[] {
    const {share, replyShare, reach, accept} = this.options
    const {prev, next, asks} = this.links
    const reachedOnly: number[] = []
    for (const slot of lenders) {
      const score = ownOf(slot)
      for (const step of STEPS) {
        const links = step === 'prev' ? prev : next
        let from = slot
        let amount = score
        for (let d = 1; d <= reach; d++) {
          const to = links[from]!
          if (to < 0) break
          if (accept !== undefined && !accept(to)) break
          // What a question is about is answered by what follows it.
          amount *= d === 1 && step === 'next' && asks[slot] === 1 ? replyShare : share
          if (this.loan[to] === 0) {
            this.lentTo.push(to)
            if (ownOf(to) === 0) reachedOnly.push(to)
          }
          if (this.loan[to]! < amount) {
            this.loan[to] = amount
            this.lender[to] = slot
          }
          from = to
        }
      }
    }
    return reachedOnly
  }

  /** Visits the facts within reach of `slot` that it shares context with. */
  private walk(slot: number, visit: (slot: number) => void): void {
    const {reach, accept} = this.options
    const {prev, next} = this.links
    for (const step of STEPS) {
      const links = step === 'prev' ? prev : next
      let from = slot
      for (let d = 1; d <= reach; d++) {
        const to = links[from]!
        if (to < 0) break
        if (accept !== undefined && !accept(to)) break
        visit(to)
        from = to
      }
    }
  }
}

const STEPS = ['prev', 'next'] as const

const LENDER = 1
const CANDIDATE = 2
const LATE = 4

/** Scores are rounded to 1e-4 afterwards: keep anything that could round into a tie. */
const MARGIN = 1e-3
