import * as v from 'valibot'

import {plural} from '../plural.js'
import {AgentId, FactId} from './fields.js'
import {namingHolder} from './holder.js'
import {FactEntry, factEntry, statusNote} from './list.js'
import {defineOperation, resolveAgent} from './operation.js'
import type {FactRecord} from '../store/records.js'

/**
 * Every version linked to a fact, whichever way: the ones it replaced, the ones that
 * replaced it, and the other facts merged along the way. They come in the order the agent's
 * facts were stored (`ordered`, as listFacts gives them), not by their times: a clock stepped
 * back gives a replacement an earlier time than the fact it replaced.
 */
function chainOf(start: FactRecord, ordered: readonly FactRecord[]): FactRecord[] {
  const byId = new Map(ordered.map((f, i) => [f.id, {fact: f, at: i}]))
  const seen = new Map<string, FactRecord>([[start.id, start]])
  const queue = [start]
  for (let fact = queue.shift(); fact; fact = queue.shift()) {
    for (const id of [...(fact.supersedes ?? []), ...(fact.superseded_by ? [fact.superseded_by] : [])]) {
      const next = byId.get(id)?.fact
      if (next && !seen.has(id)) {
        seen.set(id, next)
        queue.push(next)
      }
    }
  }
  const at = (f: FactRecord) => byId.get(f.id)?.at ?? -1
  return [...seen.values()].sort((a, b) => at(a) - at(b))
}

export const factHistory = defineOperation({
  tool: 'fact_history',
  title: 'Fact history',
  description: 'Every version of a fact, oldest first: what it said, when, and what replaced or deleted it.',
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({
    agent_id: v.optional(AgentId),
    fact_id: FactId,
  }),
  output: v.object({
    agent_id: v.string(),
    fact_id: v.string(),
    count: v.number(),
    versions: v.array(FactEntry),
  }),
  async handler(ctx, input) {
    const agent_id = resolveAgent(ctx, input.agent_id)
    const start = await ctx.store.getFact(agent_id, input.fact_id).catch(async (error: unknown) => {
      throw await namingHolder(error, ctx.store, 'fact', input.fact_id)
    })
    const versions = chainOf(start, await ctx.store.listFacts(agent_id)).map(factEntry)
    return {agent_id, fact_id: input.fact_id, count: versions.length, versions}
  },
  prose(payload) {
    const lines = [
      `History of fact ${payload.fact_id} (agent ${payload.agent_id}): ${plural(payload.count, 'version')}, oldest first.`,
    ]
    payload.versions.forEach((f, i) => {
      lines.push(
        `${i + 1}. ${f.id}, saved ${f.created_at}: ${f.content}${f.tags.length > 0 ? ` [${f.tags.join(', ')}]` : ''}`,
      )
      if (f.thread !== undefined) lines.push(`   thread ${f.thread}`)
      if (f.supersedes !== undefined) lines.push(`   replaces ${f.supersedes.join(', ')}`)
      if (f.reason !== undefined) lines.push(`   reason: ${f.reason}`)
      lines.push(`   ${statusNote(f) ?? 'live'}`)
    })
    return lines.join('\n')
  },
})
