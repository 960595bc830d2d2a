import {isDeepStrictEqual} from 'node:util'

import * as v from 'valibot'

import {InputError} from '../errors.js'
import {AgentId, Content, FactId, Tags, Thread} from './fields.js'
import {LIMITS} from './limits.js'
import {defineOperation, resolveAgent, type OperationContext} from './operation.js'
import {isLive, type FactRecord} from '../store/records.js'

export const REFLECT_ACTIONS = ['add', 'update', 'delete', 'merge'] as const

const Input = v.strictObject({
  agent_id: v.optional(AgentId),
  action: v.pipe(
    v.picklist(REFLECT_ACTIONS, `must be one of ${REFLECT_ACTIONS.join(', ')}`),
    v.description(
      'add: store content as a new fact. update: replace fact_id with content. delete: remove fact_id. merge: replace all fact_ids with one fact holding content.',
    ),
  ),
  fact_id: v.optional(v.pipe(FactId, v.description('The fact to update or delete.'))),
  fact_ids: v.optional(
    v.pipe(
      v.array(FactId),
      v.minLength(2, 'merge needs at least two fact ids'),
      // The same id twice is a slip (a pasted id), not a merge: one fact is changed with update.
      v.check(
        (ids) => ids.length < 2 || new Set(ids).size >= 2,
        'merge needs at least two different fact ids, and these are all one; to change one fact, use update',
      ),
      v.maxLength(LIMITS.mergeCount, `at most ${LIMITS.mergeCount} fact ids`),
      v.description('The facts to merge (at least two).'),
    ),
  ),
  content: v.optional(v.pipe(Content, v.description('The new fact text, for add, update and merge.'))),
  tags: v.optional(v.pipe(Tags, v.description('Tags of the new fact; by default those of the facts it replaces.'))),
  thread: v.optional(
    v.pipe(
      Thread,
      v.description(
        'The conversation the new fact is a turn of (see memory_add). By default update and merge keep the thread of the facts they replace, when they all share one.',
      ),
    ),
  ),
  reason: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(LIMITS.reasonLength, `must be at most ${LIMITS.reasonLength} characters`),
      v.description('Why, kept with the history.'),
    ),
  ),
})
type Input = v.InferOutput<typeof Input>

/** Which fields each action needs; checked before anything is read or written. */
const needs: Record<Input['action'], (keyof Input)[]> = {
  add: ['content'],
  update: ['fact_id', 'content'],
  delete: ['fact_id'],
  merge: ['fact_ids', 'content'],
}

function checkNeeds(input: Input): void {
  const missing = needs[input.action].filter((key) => input[key] === undefined)
  if (missing.length > 0)
    throw new InputError(
      `invalid input: action "${input.action}" needs ${missing.join(' and ')}`,
      Object.keys(Input.entries),
    )
}

async function apply(
  ctx: OperationContext,
  agent: string,
  input: Input,
): Promise<{fact_id: string; supersedes?: string[]; duplicate?: true}> {
  const {store} = ctx
  switch (input.action) {
    case 'add': {
      const fact = await store.addFact(agent, {content: input.content!, tags: input.tags ?? [], thread: input.thread})
      return {fact_id: fact.id, ...(fact.duplicate ? {duplicate: true as const} : {})}
    }
    case 'delete':
      return {fact_id: (await store.deleteFact(agent, input.fact_id!, input.reason)).id}
    case 'update':
    case 'merge': {
      const ids = input.action === 'update' ? [input.fact_id!] : [...new Set(input.fact_ids!)]
      const replaced =
        input.tags === undefined || input.thread === undefined
          ? await Promise.all(ids.map((id) => store.getFact(agent, id)))
          : []
      const tags = input.tags ?? [...new Set(replaced.flatMap((f) => f.tags))]
      const thread = input.thread ?? sharedThread(replaced)
      if (input.action === 'update') {
        const current = replaced[0] ?? (await store.getFact(agent, ids[0]!))
        if (unchanged(current, input.content!, tags, thread)) return {fact_id: current.id, duplicate: true as const}
      }
      const fact = await store.supersede(agent, ids, {content: input.content!, tags, thread, reason: input.reason})
      return {fact_id: fact.id, supersedes: ids}
    }
  }
}

/**
 * An update that would store what the live fact already holds, text, tags and thread alike,
 * changes nothing: a version identical to the one it replaces would only lengthen the history.
 * A change of case or spacing is a change here, unlike for the duplicate guard of add.
 */
function unchanged(fact: FactRecord, content: string, tags: readonly string[], thread: string | undefined): boolean {
  return (
    isLive(fact) && fact.content === content && fact.thread === thread && isDeepStrictEqual([...fact.tags], [...tags])
  )
}

/**
 * The thread a replacement keeps: the one every replaced fact shares. Facts merged from
 * different conversations (or standalone ones) make a standalone fact, since a merged summary
 * is no longer one turn of one exchange.
 */
function sharedThread(facts: readonly FactRecord[]): string | undefined {
  const threads = new Set(facts.map((f) => f.thread))
  return threads.size === 1 ? facts[0]?.thread : undefined
}

export const memoryReflect = defineOperation({
  tool: 'memory_reflect',
  title: 'Revise memory',
  description:
    'Revise facts stored before, by id: update one that changed, delete one that is wrong, or merge duplicates into one. ' +
    'To store a new fact, use memory_add (action "add" here does the same, for clients that only call this tool). ' +
    'Replaced and deleted facts are kept in history and no longer returned by memory_search. Take fact ids from memory_search.',
  annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false},
  input: Input,
  output: v.object({
    action: v.picklist(REFLECT_ACTIONS),
    agent: v.string(),
    /** The same as `agent` (kept for compatibility, ADR 0001), under the name the other tools use. */
    agent_id: v.string(),
    ok: v.literal(true),
    fact_id: v.string(),
    supersedes: v.optional(v.array(v.string())),
    /**
     * add: a live fact already said the same, and fact_id is that fact. update: the fact already
     * held this text, tags and thread, so nothing was changed and fact_id is that fact, still live.
     */
    duplicate: v.optional(v.literal(true)),
  }),
  async handler(ctx, input) {
    checkNeeds(input)
    const agent = resolveAgent(ctx, input.agent_id)
    const result = await apply(ctx, agent, input)
    return {action: input.action, agent, agent_id: agent, ok: true as const, ...result}
  },
  prose(payload) {
    switch (payload.action) {
      case 'add':
        return payload.duplicate
          ? `Fact ${payload.fact_id} of agent ${payload.agent} already says this; nothing new was stored.`
          : `Added fact ${payload.fact_id} for agent ${payload.agent}.`
      case 'delete':
        return `Deleted fact ${payload.fact_id} for agent ${payload.agent}.`
      case 'update':
        if (payload.duplicate)
          return `Fact ${payload.fact_id} of agent ${payload.agent} already says this, with the same tags and thread; nothing was changed.`
        return `Updated fact ${payload.supersedes?.[0]}: the new version is ${payload.fact_id} (agent ${payload.agent}).`
      case 'merge':
        return `Merged facts ${payload.supersedes?.join(', ')} into ${payload.fact_id} (agent ${payload.agent}).`
    }
  },
})
