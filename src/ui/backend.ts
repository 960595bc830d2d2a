import type * as v from 'valibot'

import {unknownAgent} from '../cli/unknown-agent.js'
import {
  agentList,
  checkpointList,
  checkpointResume,
  factHistory,
  factList,
  memoryReflect,
  memorySearch,
  runOperation,
  type OperationContext,
} from '../ops/index.js'

type Out<Op extends {output: v.GenericSchema}> = v.InferOutput<Op['output']>

export interface FactRow {
  id: string
  content: string
  tags: string[]
  created_at: string
  thread?: string
  /** Set on a search hit that matched nothing itself: the matching fact of its thread it came with. */
  context_for?: string
  /** Set on a search hit that shares no word with the query: meaning alone found it. */
  by_meaning?: true
}
/** Rows `offset` on of a list of `count`: the agent's facts newest first, or the results of a search. */
export interface FactsPage {
  facts: FactRow[]
  offset: number
  count: number
  /** For a listing: the agent's live facts (`count` again). A search leaves this to {@link Backend.liveFacts}. */
  live?: number
  /**
   * For a search: how many results matched themselves, how many meaning alone found (the rest
   * came as context of their threads), and whether search stopped at its limit.
   */
  search?: {matches: number; capped: boolean; byMeaning?: number}
  /** For a listing of an agent that has stored nothing at all: `no agent alcie; known agents: alice, team`, as the CLI says it. */
  unknown?: string
}

export type History = Out<typeof factHistory>
export type AgentSummary = Out<typeof agentList>['agents'][number]
export type CheckpointSummary = Out<typeof checkpointList>['checkpoints'][number]
export type CheckpointDetail = Out<typeof checkpointResume>

/** What the browser reads and writes. Every call is one of the operations the CLI and MCP use. */
export interface Backend {
  /**
   * Live facts newest first, `limit` of them from `offset`; or for a query, all the results of
   * the search (at most {@link SEARCH_LIMIT}), ranked as `mem search` ranks them.
   */
  facts(agent: string, query: string, page: {offset: number; limit: number}): Promise<FactsPage>
  /** How many live facts the agent has: what a search's matches are counted out of. */
  liveFacts(agent: string): Promise<number>
  history(agent: string, factId: string): Promise<History>
  agents(): Promise<AgentSummary[]>
  checkpoints(agent: string): Promise<CheckpointSummary[]>
  checkpoint(agent: string, id: string): Promise<CheckpointDetail>
  /** Each returns the prose of the reflect operation, shown as the outcome; add also the id of the fact. */
  add(agent: string, content: string, tags: string[]): Promise<{notice: string; factId: string}>
  update(agent: string, factId: string, content: string, tags: string[]): Promise<string>
  remove(agent: string, factId: string): Promise<string>
}

/** The most results memory_search returns (its `limit` goes up to 100): a search shows its best 100. */
export const SEARCH_LIMIT = 100

export function operationsBackend(ctx: OperationContext): Backend {
  const reflect = async (input: Record<string, unknown>): Promise<string> =>
    memoryReflect.prose(await runOperation(memoryReflect, ctx, input))
  return {
    async facts(agent, query, page) {
      if (query.trim() === '') {
        const listed = await runOperation(factList, ctx, {agent_id: agent, offset: page.offset, limit: page.limit})
        const live = listed.total
        const unknown = live === 0 ? await unknownAgent(ctx, agent) : undefined
        return {
          facts: listed.facts,
          offset: page.offset,
          count: live,
          live,
          ...(unknown === undefined ? {} : {unknown}),
        }
      }
      const limit = Math.min(page.limit, SEARCH_LIMIT)
      const {facts} = await runOperation(memorySearch, ctx, {agent_id: agent, query, limit, as_you_type: true})
      const byMeaning = facts.filter((f) => f.by_meaning === true).length
      const matches = facts.filter((f) => f.context_for === undefined).length - byMeaning
      return {
        facts,
        offset: 0,
        count: facts.length,
        search: {matches, capped: facts.length >= limit, ...(byMeaning > 0 ? {byMeaning} : {})},
      }
    },
    liveFacts: async (agent) => (await runOperation(factList, ctx, {agent_id: agent, limit: 1})).total,
    history: (agent, factId) => runOperation(factHistory, ctx, {agent_id: agent, fact_id: factId}),
    agents: async () => (await runOperation(agentList, ctx, {})).agents,
    checkpoints: async (agent) =>
      (await runOperation(checkpointList, ctx, {agent_id: agent, limit: 10_000})).checkpoints,
    checkpoint: (agent, id) =>
      runOperation(checkpointResume, ctx, {agent_id: agent, checkpoint_id: id, include_messages: true}),
    async add(agent, content, tags) {
      const payload = await runOperation(memoryReflect, ctx, {agent_id: agent, action: 'add', content, tags})
      return {notice: memoryReflect.prose(payload), factId: payload.fact_id}
    },
    // The editor shows every tag, so the tags it saves replace the fact's own, none included.
    update: (agent, factId, content, tags) =>
      reflect({agent_id: agent, action: 'update', fact_id: factId, content, tags}),
    remove: (agent, factId) => reflect({agent_id: agent, action: 'delete', fact_id: factId}),
  }
}
