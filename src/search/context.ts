/** How to walk from a fact to the facts saved just before and after it. */
export interface Neighbours {
  prev(id: string): string | undefined
  next(id: string): string | undefined
  /** Creation time, epoch ms. */
  time(id: string): number
}

export interface ContextOptions {
  /** Share of a fact's score lent to its direct neighbours; share^d at d steps. */
  share: number
  /** Steps to walk either way. */
  reach: number
  /** Stop walking at a gap in creation time larger than this (ms): a new sitting, a new context. */
  windowMs: number
  /** Facts a search may not return (filtered out) neither receive nor pass on context. */
  accept?: (id: string) => boolean
}

/**
 * Facts saved one after another, close in time, usually come from the same exchange, and the
 * one that answers a question often repeats none of its words: "They were scared but we
 * reassured them" follows "my son got into an accident". So each fact that matches lends part
 * of its score to the facts around it, decaying with distance.
 *
 * A fact receives only the largest loan on offer (plus its own score), so a fact between two
 * matches is not lifted twice, and a loan is always smaller than the lender's own score: the
 * matching fact stays above the context it brings in.
 */
export function addContext(own: Map<string, number>, around: Neighbours, options: ContextOptions): Map<string, number> {
  const {share, reach, windowMs, accept} = options
  const loan = new Map<string, number>()
  const offer = (to: string, amount: number): void => {
    if ((loan.get(to) ?? 0) < amount) loan.set(to, amount)
  }
  for (const [id, score] of own) {
    for (const step of [around.prev, around.next]) {
      let from = id
      let amount = score
      for (let d = 1; d <= reach; d++) {
        const to = step(from)
        if (to === undefined) break
        if (!(Math.abs(around.time(to) - around.time(from)) <= windowMs)) break
        if (accept !== undefined && !own.has(to) && !accept(to)) break
        amount *= share
        offer(to, amount)
        from = to
      }
    }
  }
  const out = new Map(own)
  for (const [id, amount] of loan) out.set(id, (own.get(id) ?? 0) + amount)
  return out
}
