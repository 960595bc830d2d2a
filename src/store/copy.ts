import {isLive, type FactRecord} from './records.js'
import type {Store} from './store.js'

export interface CopyResult {
  agents: number
  /** Records the target did not have and now has. */
  facts: number
  checkpoints: number
  /** Facts the target held live that the source had replaced or deleted since: marked as in the source. */
  marked: number
}

/**
 * Copies every agent of `from` into `to`, records as they are (ids, times, threads, history),
 * through the target's importRecords: what the target already has is left alone, except that
 * history made in the source since (a fact replaced or deleted) is marked on the target's copy
 * while it is live. So a copy stopped part way can simply be run again.
 */
export async function copyStore(
  from: Store,
  to: Store,
  progress: (agent: string, done: number, total: number, copied: CopyResult) => void = () => {},
): Promise<CopyResult> {
  const agents = await from.listAgents()
  const total: CopyResult = {agents: 0, facts: 0, checkpoints: 0, marked: 0}
  for (const [i, agent] of agents.entries()) {
    const facts = await from.listFacts(agent)
    const checkpoints = await from.listCheckpoints(agent)
    const marks = facts.filter((f) => !isLive(f)).map((f) => ({id: f.id, patch: historyOf(f)}))
    const added = await to.importRecords(agent, {facts, checkpoints, marks})
    const copied = {
      agents: 1,
      facts: added.facts.length,
      checkpoints: added.checkpoints.length,
      marked: added.marked.length,
    }
    total.agents++
    total.facts += copied.facts
    total.checkpoints += copied.checkpoints
    total.marked += copied.marked
    progress(agent, i + 1, agents.length, copied)
  }
  return total
}

/** The history marks of a replaced or deleted fact, as an import applies them. */
function historyOf(fact: FactRecord): Partial<FactRecord> {
  const patch: Partial<FactRecord> = {}
  if (fact.superseded_by !== undefined) patch.superseded_by = fact.superseded_by
  if (fact.superseded_at !== undefined) patch.superseded_at = fact.superseded_at
  if (fact.deleted_at !== undefined) patch.deleted_at = fact.deleted_at
  if (fact.reason !== undefined) patch.reason = fact.reason
  return patch
}
