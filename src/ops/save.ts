import * as v from 'valibot'

import {AgentId, JsonObject, Timestamp} from './fields.js'
import {jsonBytes, jsonDepthExceeds} from './json-bounds.js'
import {LIMITS} from './limits.js'
import {defineOperation, resolveAgent} from './operation.js'

const depthMessage = `is nested deeper than ${LIMITS.jsonDepth} levels`

export const checkpointSave = defineOperation({
  tool: 'checkpoint_save',
  title: 'Save a checkpoint',
  description:
    'Save where you are in a longer task (a JSON state object, optionally the conversation messages) so that you or another session can pick it up later with checkpoint_resume. ' +
    'Save at natural breakpoints and before stopping work that is not finished. ' +
    'The checkpoint_id it returns is a lasting handle: mem never expires or prunes checkpoints, so the id resumes this checkpoint for as long as the memory is kept.',
  annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false},
  input: v.pipe(
    v.strictObject({
      agent_id: v.optional(AgentId),
      state: v.pipe(
        JsonObject,
        v.check((s) => !jsonDepthExceeds(s, LIMITS.jsonDepth), depthMessage),
        v.description('The task state to restore later, as a JSON object.'),
      ),
      messages: v.optional(
        v.pipe(
          v.array(v.unknown(), 'must be an array'),
          v.maxLength(LIMITS.messageCount, `must hold at most ${LIMITS.messageCount} messages`),
          v.check((m) => !jsonDepthExceeds(m, LIMITS.jsonDepth), depthMessage),
          v.description('The conversation so far, if worth keeping.'),
        ),
      ),
      label: v.optional(
        v.pipe(
          v.string(),
          v.maxLength(LIMITS.labelLength, `must be at most ${LIMITS.labelLength} characters`),
          v.description('A short name for this checkpoint.'),
        ),
      ),
    }),
    v.check(
      (input) => jsonBytes({state: input.state, messages: input.messages}) <= LIMITS.checkpointBytes,
      `state and messages together must be at most ${LIMITS.checkpointBytes} bytes of JSON`,
    ),
  ),
  output: v.object({
    agent_id: v.string(),
    checkpoint_id: v.string(),
    created_at: Timestamp,
  }),
  async handler(ctx, input) {
    const agent_id = resolveAgent(ctx, input.agent_id)
    const cp = await ctx.store.saveCheckpoint(agent_id, {
      state: input.state,
      messages: input.messages,
      label: input.label,
    })
    return {agent_id, checkpoint_id: cp.id, created_at: cp.created_at}
  },
  prose: (payload) =>
    `Saved checkpoint ${payload.checkpoint_id} for agent ${payload.agent_id} at ${payload.created_at}.`,
})
