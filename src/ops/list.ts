import * as v from 'valibot'

import {isLive, type FactRecord} from '../store/records.js'
import {AgentId, Tags, Timestamp} from './fields.js'
import {defineOperation, resolveAgent} from './operation.js'
import {checkRangeOrder, inRange, Since, Until} from './time-range.js'

export const FACT_STATUSES = ['live', 'superseded', 'deleted'] as const

/** A fact as people browse it: its text plus where it stands in its history. */
export const FactEntry = v.object({
  id: v.string(),
  content: v.string(),
  tags: v.array(v.string()),
  created_at: Timestamp,
  thread: v.optional(
    v.pipe(v.string(), v.description('The conversation the fact is a turn of; absent for standalone facts.')),
  ),
  status: v.picklist(FACT_STATUSES),
  supersedes: v.optional(v.array(v.string())),
  superseded_by: v.optional(v.string()),
  superseded_at: v.optional(Timestamp),
  deleted_at: v.optional(Timestamp),
  reason: v.optional(v.string()),
})
export type FactEntry = v.InferOutput<typeof FactEntry>

export function factEntry(fact: FactRecord): FactEntry {
  const status = isLive(fact) ? 'live' : fact.deleted_at !== undefined ? 'deleted' : 'superseded'
  return {
    id: fact.id,
    content: fact.content,
    tags: fact.tags,
    created_at: fact.created_at,
    ...(fact.thread === undefined ? {} : {thread: fact.thread}),
    status,
    ...(fact.supersedes === undefined ? {} : {supersedes: fact.supersedes}),
    ...(fact.superseded_by === undefined ? {} : {superseded_by: fact.superseded_by}),
    ...(fact.superseded_at === undefined ? {} : {superseded_at: fact.superseded_at}),
    ...(fact.deleted_at === undefined ? {} : {deleted_at: fact.deleted_at}),
    ...(fact.reason === undefined ? {} : {reason: fact.reason}),
  }
}

/**
 * Newest first, by id: each new id sorts after the agent's earlier ones whatever the clock
 * said when it was saved (store/ids.ts), so a clock stepped back cannot reorder them.
 */
export function newestFirst<T extends {id: string}>(a: T, b: T): number {
  return a.id > b.id ? -1 : a.id < b.id ? 1 : 0
}

/** How many entries a listing returns at most: 20 unless asked. */
export const ListLimit = v.optional(
  v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be between 1 and 10000'),
    v.maxValue(10_000, 'must be between 1 and 10000'),
    v.description('How many to return at most (1-10000).'),
  ),
  20,
)

/** "3 facts", or "3 of 57 facts" when the limit cut the list short. */
export function shownOf(count: number, total: number, one: string, many: string): string {
  const noun = total === 1 ? one : many
  return count < total ? `${count} of ${total} ${noun}` : `${count} ${noun}`
}

/** The line prose uses for a fact's place in history, or undefined for a live fact. */
export function statusNote(f: FactEntry): string | undefined {
  if (f.status === 'deleted') return `deleted ${f.deleted_at}`
  if (f.status === 'superseded') return `replaced by ${f.superseded_by} ${f.superseded_at}`
  return undefined
}

export const factList = defineOperation({
  tool: 'fact_list',
  title: 'List facts',
  description: "An agent's facts, newest first: live ones by default, or every version with all.",
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({
    agent_id: v.optional(AgentId),
    limit: ListLimit,
    offset: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be a whole number'),
        v.minValue(0, 'must be 0 or more'),
        v.description('How many of the newest matching facts to skip, to page through a long list.'),
      ),
      0,
    ),
    tags: v.optional(Tags),
    since: v.optional(Since),
    until: v.optional(Until),
    all: v.optional(v.pipe(v.boolean(), v.description('Include superseded and deleted facts.')), false),
  }),
  output: v.object({
    agent_id: v.string(),
    /** How many facts matched before the limit. */
    total: v.number(),
    count: v.number(),
    facts: v.array(FactEntry),
  }),
  async handler(ctx, input) {
    checkRangeOrder(input)
    const agent_id = resolveAgent(ctx, input.agent_id)
    const wanted = input.tags ?? []
    const matching = (await ctx.store.listFacts(agent_id))
      .filter(
        (f) => (input.all || isLive(f)) && inRange(f.created_at, input) && wanted.every((t) => f.tags.includes(t)),
      )
      .sort(newestFirst)
    const facts = matching.slice(input.offset, input.offset + input.limit).map(factEntry)
    return {agent_id, total: matching.length, count: facts.length, facts}
  },
  prose(payload) {
    if (payload.count === 0) return `No facts to list for agent ${payload.agent_id}.`
    const head = shownOf(payload.count, payload.total, 'fact', 'facts')
    const lines = payload.facts.map((f, i) => {
      const tags = f.tags.length > 0 ? ` [${f.tags.join(', ')}]` : ''
      const note = statusNote(f)
      const thread = f.thread === undefined ? '' : `, thread ${f.thread}`
      return `${i + 1}. ${f.content}${tags} (id ${f.id}, saved ${f.created_at}${thread}${note ? `; ${note}` : ''})`
    })
    return [`${head} for agent ${payload.agent_id}, newest first:`, ...lines].join('\n')
  },
})
