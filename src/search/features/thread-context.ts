import {mthLargest} from '../top-k.js'
import type {Ranking, RankingFeature} from './feature.js'

export interface ContextShares {
  /** Share of a fact's score lent to its direct neighbours; share^d at d steps. */
  share: number
  /** Share a fact lends to the fact after it, its reply, when it ends asking about a query word. */
  replyShare: number
  /** Steps to walk either way. */
  reach: number
}

/**
 * The turns of one conversation (a thread) belong together, and the one that answers a
 * question often repeats none of its words: "They were scared but we reassured them" follows
 * "my son got into an accident". So every matching turn lends part of its score to the turns
 * around it in its thread: `share` to a direct neighbour, `share²` two steps away, and a turn
 * that ends with a question holding a query word its `replyShare` to the turn after it. A fact
 * keeps only the largest loan on offer (added to its own score), so a fact between two matches
 * is not lifted twice. A turn that matched nothing comes in as the context of its lender. Context stops at
 * facts the search may not return.
 *
 * Exact for every fact that can make the results, without walking around each of 50,000
 * matches when a common word matches them: at first only matches that could reach the results
 * lend, then the weaker matches next to the facts near the cut. Facts that cannot make the
 * results may be left with part of their loan.
 */
export class ThreadContext implements RankingFeature {
  private loan = new Float64Array(0)
  /** Per slot with a loan, the slot it came from. */
  private lender = new Int32Array(0)
  /** 1 for the slots that have lent in this search. */
  private lent = new Uint8Array(0)
  private lentTo: number[] = []

  constructor(private readonly shares: ContextShares) {}

  apply(ranking: Ranking): void {
    // Facts without a thread neither lend nor borrow: without threads there is nothing to do.
    if (ranking.facts.threads === 0) return
    const {candidates, scores, limit, contextFor} = ranking
    if (this.loan.length < scores.length) {
      this.loan = new Float64Array(scores.length)
      this.lender = new Int32Array(scores.length)
      this.lent = new Uint8Array(scores.length)
    }
    const {loan, lent} = this
    const matches = candidates.length
    // The most any fact lends, as a share of its score: a question may lend more to its reply.
    let share = this.shares.share
    for (let i = 0; i < matches && share < this.shares.replyShare; i++)
      if (ranking.asksAbout(candidates[i]!)) share = this.shares.replyShare

    // Final scores are at least own scores, so the limit-th best own score is at most the final
    // cut; a match below `floor` lends less than what it takes to lift any fact to it.
    const cutOwn = mthLargest(matches, limit, (i) => scores[candidates[i]!]!)
    const floor = cutOwn === Number.NEGATIVE_INFINITY ? 0 : cutOwn / (1 + share)
    for (let i = 0; i < matches; i++) if (scores[candidates[i]!]! >= floor) this.lend(ranking, candidates[i]!)

    // Facts near the cut could still gain from a weaker neighbour (at most share * floor):
    // let those neighbours lend too. The others stay below the cut whatever they would get.
    const finalOf = (slot: number) => scores[slot]! + loan[slot]!
    const reached = this.lentTo.length
    // Over distinct facts: matches given a loan count once, as matches.
    const newcomerFinal = (slot: number) => (scores[slot] === 0 ? loan[slot]! : Number.NEGATIVE_INFINITY)
    const cut = mthLargest(matches + reached, limit, (i) =>
      i < matches ? finalOf(candidates[i]!) : newcomerFinal(this.lentTo[i - matches]!),
    )
    const near = (slot: number) => finalOf(slot) + share * floor >= cut - MARGIN
    const late: number[] = []
    const visitNear = (slot: number) => {
      if (!near(slot)) return
      this.walk(ranking, slot, (n) => {
        if (lent[n] === 1 || scores[n]! === 0) return
        lent[n] = 1
        late.push(n)
      })
    }
    for (let i = 0; i < matches; i++) visitNear(candidates[i]!)
    for (let i = 0; i < reached; i++) visitNear(this.lentTo[i]!)
    for (const slot of late) this.lend(ranking, slot)

    // Only candidates are paid: a fact's score is 0 unless it is one.
    for (const slot of this.lentTo) {
      if (scores[slot] === 0) {
        if (!(loan[slot]! > 0 && loan[slot]! >= cut - MARGIN)) {
          loan[slot] = 0
          continue
        }
        candidates.push(slot)
        contextFor.set(slot, this.lender[slot]!)
      }
      scores[slot]! += loan[slot]!
      loan[slot] = 0
    }
    for (let i = 0; i < matches; i++) lent[candidates[i]!] = 0
    this.lentTo = []
  }

  /** Offers `slot`'s loans to the facts within reach of it, back then forward. */
  private lend(ranking: Ranking, slot: number): void {
    const {share, replyShare} = this.shares
    this.lent[slot] = 1
    const score = ranking.scores[slot]!
    this.lendAlong(ranking, ranking.facts.prev, slot, score * share, share)
    // What a question asks is answered by what follows it: when the search is about what it asks.
    this.lendAlong(ranking, ranking.facts.next, slot, score * (ranking.asksAbout(slot) ? replyShare : share), share)
  }

  /** Lends `first` to the next fact along `links`, then `share` times less at each step. */
  private lendAlong({accept}: Ranking, links: Int32Array, slot: number, first: number, share: number): void {
    const {loan, lender} = this
    let amount = first
    for (let d = 1, from = slot; d <= this.shares.reach; d++, amount *= share) {
      const to = links[from]!
      if (to < 0 || (accept !== undefined && !accept(to))) break
      if (loan[to] === 0) this.lentTo.push(to)
      if (loan[to]! < amount) {
        loan[to] = amount
        lender[to] = slot
      }
      from = to
    }
  }

  /** Visits the facts within reach of `slot` that it shares context with. */
  private walk(ranking: Ranking, slot: number, visit: (slot: number) => void): void {
    this.walkAlong(ranking, ranking.facts.prev, slot, visit)
    this.walkAlong(ranking, ranking.facts.next, slot, visit)
  }

  private walkAlong({accept}: Ranking, links: Int32Array, slot: number, visit: (slot: number) => void): void {
    for (let d = 1, from = slot; d <= this.shares.reach; d++) {
      const to = links[from]!
      if (to < 0 || (accept !== undefined && !accept(to))) break
      visit(to)
      from = to
    }
  }
}

/** Scores are rounded to 1e-4 afterwards: keep anything that could round into a tie. */
const MARGIN = 1e-3
