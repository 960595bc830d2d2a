import * as v from 'valibot'

import {AgentId, Content, Tags, Thread, THREAD_HELP} from './fields.js'
import {defineOperation, resolveAgent} from './operation.js'

export const memoryAdd = defineOperation({
  tool: 'memory_add',
  title: 'Remember a fact',
  description:
    'Store one durable fact worth remembering across sessions: a preference, a decision, a name, how something works. ' +
    'Write it as a short self-contained sentence. A fact that is already stored (same words, ignoring case and spacing) is not stored twice: the answer names it with duplicate: true. ' +
    'To change or remove a fact you stored before, use memory_reflect instead of adding a contradicting one. ' +
    'Pass thread only when saving the turns of one conversation (a chat, a meeting) one by one: search then brings in the turns around a match as context. Leave it out for standalone facts.',
  annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false},
  input: v.strictObject({
    agent_id: v.optional(AgentId),
    content: v.pipe(Content, v.description('The fact, as a short self-contained sentence.')),
    tags: v.optional(v.pipe(Tags, v.description('Labels to filter by later, e.g. ["tooling"].'))),
    thread: v.optional(v.pipe(Thread, v.description(THREAD_HELP))),
    allow_duplicate: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          'Store a second copy even if a live fact already says the same (ignoring case and spacing). Off by default: the existing fact is returned with duplicate: true.',
        ),
      ),
    ),
  }),
  output: v.object({
    agent_id: v.string(),
    stored: v.literal(true),
    fact_id: v.string(),
    /** True when a live fact already said the same: fact_id is that fact and nothing new was stored. */
    duplicate: v.boolean(),
  }),
  async handler(ctx, input) {
    const agent_id = resolveAgent(ctx, input.agent_id)
    const fact = await ctx.store.addFact(
      agent_id,
      {content: input.content, tags: input.tags ?? [], thread: input.thread},
      {allowDuplicate: input.allow_duplicate},
    )
    return {agent_id, stored: true as const, fact_id: fact.id, duplicate: fact.duplicate === true}
  },
  prose: (payload) =>
    payload.duplicate
      ? `Fact ${payload.fact_id} of agent ${payload.agent_id} already says this; nothing new was stored.`
      : `Stored fact ${payload.fact_id} for agent ${payload.agent_id}.`,
})
