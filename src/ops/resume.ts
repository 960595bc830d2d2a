import * as v from 'valibot'

import {MemError, asMemError} from '../errors.js'
import {AgentId, CheckpointId, ResultJsonObject, Timestamp} from './fields.js'
import {namingHolder} from './holder.js'
import {LIMITS} from './limits.js'
import {defineOperation, resolveAgent} from './operation.js'

const Found = v.object({
  /** Always true here; false only in the absence branch. Lets a client tell the two apart by one key. */
  found: v.literal(true),
  id: v.string(),
  created_at: Timestamp,
  state: v.optional(ResultJsonObject),
  message_count: v.optional(v.number()),
  label: v.optional(v.string()),
  agent_id: v.optional(v.string()),
  /** Only with include_messages (or last_messages): the saved messages, or the last N of them, oldest first. */
  messages: v.optional(v.array(v.unknown())),
})

/** Returned only with on_missing: "empty" when nothing is saved, instead of the not-found error. */
const Missing = v.object({
  agent_id: v.string(),
  found: v.literal(false),
})

export const checkpointResume = defineOperation({
  tool: 'checkpoint_resume',
  title: 'Resume from a checkpoint',
  description:
    'Load the latest checkpoint saved with checkpoint_save (or one by id) to continue an earlier task: its state object and how many messages it kept ' +
    '(the messages themselves with include_messages, or only the last N with last_messages). ' +
    'Call it at the start of a session that continues earlier work. With no checkpoint it is an error, unless on_missing is "empty", which returns {agent_id, found: false}.',
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({
    agent_id: v.optional(AgentId),
    checkpoint_id: v.optional(
      v.pipe(
        CheckpointId,
        v.description('A checkpoint id from checkpoint_save (ids do not expire); the latest checkpoint when left out.'),
      ),
    ),
    on_missing: v.optional(
      v.pipe(
        v.picklist(['error', 'empty'], 'must be "error" or "empty"'),
        v.description(
          'What to do when there is no checkpoint: "error" (default) or "empty" for a {found: false} result.',
        ),
      ),
      'error',
    ),
    include_messages: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          'Also return the saved conversation messages (the "messages" key). Off by default: they can be long.',
        ),
      ),
    ),
    last_messages: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be a whole number'),
        v.minValue(1, `must be between 1 and ${LIMITS.messageCount}`),
        v.maxValue(LIMITS.messageCount, `must be between 1 and ${LIMITS.messageCount}`),
        v.description('Return only the last N saved messages (implies include_messages).'),
      ),
    ),
  }),
  output: v.union([Found, Missing]),
  async handler(ctx, input) {
    const agent_id = resolveAgent(ctx, input.agent_id)
    try {
      const cp = await ctx.store.getCheckpoint(agent_id, input.checkpoint_id)
      return {
        found: true as const,
        id: cp.id,
        created_at: cp.created_at,
        state: cp.state,
        message_count: cp.messages?.length ?? 0,
        ...(cp.label === undefined ? {} : {label: cp.label}),
        agent_id,
        ...(input.include_messages || input.last_messages !== undefined
          ? {messages: lastOf(cp.messages ?? [], input.last_messages)}
          : {}),
      }
    } catch (error) {
      const err = asMemError(error)
      // Only the store's typed absence is "not found"; anything else keeps its cause.
      if (err.code === 'no_checkpoint') {
        if (input.on_missing === 'empty') return {agent_id, found: false as const}
        throw input.checkpoint_id === undefined
          ? err
          : await namingHolder(err, ctx.store, 'checkpoint', input.checkpoint_id)
      }
      throw new MemError(err.code, `checkpoint resume error: ${err.message}`)
    }
  },
  prose(payload) {
    if (!payload.found) return `No checkpoint saved yet for agent ${payload.agent_id}; starting fresh.`
    const lines = [
      `Checkpoint ${payload.id}${payload.agent_id ? ` (agent ${payload.agent_id})` : ''}`,
      `Saved: ${payload.created_at}`,
    ]
    if (payload.label !== undefined) lines.push(`Label: ${payload.label}`)
    lines.push(`Messages: ${payload.message_count ?? 0}`)
    lines.push('State:', JSON.stringify(payload.state ?? {}, null, 2))
    // Asked for, but none saved: "Messages: 0" above says so, and an empty list would only follow a heading.
    if (payload.messages !== undefined && payload.messages.length > 0)
      lines.push(
        messagesHeading(payload.messages.length, payload.message_count ?? 0),
        ...payload.messages.map((m) => JSON.stringify(m)),
      )
    return lines.join('\n')
  },
})

function lastOf(messages: unknown[], n: number | undefined): unknown[] {
  return n === undefined ? messages : messages.slice(-n)
}

/** "Messages, oldest first:" or "Last 2 of 5 messages, oldest first:", one JSON value per line below it. */
export function messagesHeading(shown: number, total: number): string {
  return shown < total
    ? `Last ${shown} of ${total} messages, oldest first:`
    : `${shown === 1 ? 'Message' : 'Messages'}, oldest first:`
}
