import type * as v from 'valibot'

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
}
export type History = Out<typeof factHistory>
export type AgentSummary = Out<typeof agentList>['agents'][number]
export type CheckpointSummary = Out<typeof checkpointList>['checkpoints'][number]
export type CheckpointDetail = Out<typeof checkpointResume>

/** What the browser reads and writes. Every call is one of the operations the CLI and MCP use. */
export interface Backend {
  /** Ranked as `mem search` ranks them; an empty query lists the newest live facts. */
  facts(agent: string, query: string): Promise<FactRow[]>
  history(agent: string, factId: string): Promise<History>
  agents(): Promise<AgentSummary[]>
  checkpoints(agent: string): Promise<CheckpointSummary[]>
  checkpoint(agent: string, id: string): Promise<CheckpointDetail>
  /** Each returns the prose of the reflect operation, shown as the outcome; add also the id of the fact. */
  add(agent: string, content: string, tags: string[]): Promise<{notice: string; factId: string}>
  update(agent: string, factId: string, content: string, tags: string[]): Promise<string>
  remove(agent: string, factId: string): Promise<string>
}

/** How many facts the browser shows at most: a screenful many times over. */
export const BROWSE_LIMIT = 100

export function operationsBackend(ctx: OperationContext): Backend {
  const reflect = async (input: Record<string, unknown>): Promise<string> =>
    memoryReflect.prose(await runOperation(memoryReflect, ctx, input))
  return {
    async facts(agent, query) {
      if (query.trim() === '') return (await runOperation(factList, ctx, {agent_id: agent, limit: BROWSE_LIMIT})).facts
      return (await runOperation(memorySearch, ctx, {agent_id: agent, query, limit: BROWSE_LIMIT, as_you_type: true}))
        .facts
    },
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
