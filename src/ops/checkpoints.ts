import * as v from 'valibot'

import {plural} from '../plural.js'
import {AgentId, Timestamp} from './fields.js'
import {ListLimit, newestFirst, shownOf} from './list.js'
import {defineOperation, resolveAgent} from './operation.js'

export const CheckpointSummary = v.object({
  id: v.string(),
  created_at: Timestamp,
  label: v.optional(v.string()),
  message_count: v.number(),
  /** The state's top-level keys, enough to tell checkpoints apart without printing them whole. */
  state_keys: v.array(v.string()),
})

export const checkpointList = defineOperation({
  tool: 'checkpoint_list',
  title: 'List checkpoints',
  description: "An agent's checkpoints, newest first; open one with checkpoint_resume and its id.",
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({
    agent_id: v.optional(AgentId),
    limit: ListLimit,
  }),
  output: v.object({
    agent_id: v.string(),
    total: v.number(),
    count: v.number(),
    checkpoints: v.array(CheckpointSummary),
  }),
  async handler(ctx, input) {
    const agent_id = resolveAgent(ctx, input.agent_id)
    const all = (await ctx.store.listCheckpoints(agent_id)).sort(newestFirst)
    const checkpoints = all.slice(0, input.limit).map((cp) => ({
      id: cp.id,
      created_at: cp.created_at,
      ...(cp.label === undefined ? {} : {label: cp.label}),
      message_count: cp.messages?.length ?? 0,
      state_keys: Object.keys(cp.state),
    }))
    return {agent_id, total: all.length, count: checkpoints.length, checkpoints}
  },
  prose(payload) {
    if (payload.count === 0) return `No checkpoints saved for agent ${payload.agent_id}.`
    const head = shownOf(payload.count, payload.total, 'checkpoint', 'checkpoints')
    const lines = payload.checkpoints.map((cp, i) => {
      const label = cp.label === undefined ? '' : ` "${cp.label}"`
      const keys = cp.state_keys.length > 0 ? `; state: ${cp.state_keys.join(', ')}` : ''
      return `${i + 1}. ${cp.id}${label}, saved ${cp.created_at}, ${plural(cp.message_count, 'message')}${keys}`
    })
    return [`${head} for agent ${payload.agent_id}, newest first:`, ...lines].join('\n')
  },
})
