import * as v from 'valibot'

import {plural} from '../plural.js'
import {isLive} from '../store/records.js'
import {readEachAgent, UnreadableAgent} from './each-agent.js'
import {Timestamp} from './fields.js'
import {defineOperation} from './operation.js'

export const AgentSummary = v.object({
  agent_id: v.string(),
  /** Live facts: what search can return. */
  facts: v.number(),
  superseded: v.number(),
  deleted: v.number(),
  checkpoints: v.number(),
  /** The latest time anything was saved, replaced or deleted; absent for an agent with no records. */
  last_activity: v.optional(Timestamp),
})

function latest(times: (string | undefined)[]): string | undefined {
  let max: string | undefined
  for (const t of times) if (t !== undefined && (max === undefined || t > max)) max = t
  return max
}

export const agentList = defineOperation({
  tool: 'agent_list',
  title: 'List agents',
  description:
    'Every agent with stored memory, with how many facts and checkpoints it has and when it was last active.',
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({}),
  output: v.object({
    count: v.number(),
    agents: v.array(AgentSummary),
    /** Agents whose files could not be read, left out of `agents`; the CLI names them on stderr and exits non-zero. */
    unreadable: v.array(UnreadableAgent),
  }),
  async handler(ctx) {
    const {read, unreadable} = await readEachAgent(await ctx.store.listAgents(), async (agent) => ({
      facts: await ctx.store.listFacts(agent),
      checkpoints: await ctx.store.listCheckpoints(agent),
    }))
    const agents = []
    for (const {
      agent: agent_id,
      value: {facts, checkpoints},
    } of read) {
      const last = latest([
        ...facts.flatMap((f) => [f.created_at, f.superseded_at, f.deleted_at]),
        ...checkpoints.map((c) => c.created_at),
      ])
      agents.push({
        agent_id,
        facts: facts.filter(isLive).length,
        superseded: facts.filter((f) => f.superseded_by !== undefined && f.deleted_at === undefined).length,
        deleted: facts.filter((f) => f.deleted_at !== undefined).length,
        checkpoints: checkpoints.length,
        ...(last === undefined ? {} : {last_activity: last}),
      })
    }
    return {count: agents.length, agents, unreadable}
  },
  leftOut: (payload) => payload.unreadable,
  prose(payload) {
    if (payload.count === 0 && payload.unreadable.length === 0) return 'No agents have stored anything yet.'
    const lines = payload.agents.map((a) => {
      // The live facts are what search finds (the payload's `facts`); the replaced and deleted ones come on top.
      const past = [
        ...(a.superseded > 0 ? [`${a.superseded} replaced`] : []),
        ...(a.deleted > 0 ? [`${a.deleted} deleted`] : []),
      ]
      const history = past.length > 0 ? ` (plus ${past.join(', ')})` : ''
      const active = a.last_activity === undefined ? '' : `, last active ${a.last_activity}`
      return `- ${a.agent_id}: ${plural(a.facts, 'live fact')}${history}, ${plural(a.checkpoints, 'checkpoint')}${active}`
    })
    const left =
      payload.unreadable.length === 0
        ? []
        : [`Left out (could not be read): ${payload.unreadable.map((u) => u.agent_id).join(', ')}.`]
    return [`${plural(payload.count, 'agent')}:`, ...lines, ...left].join('\n')
  },
})
