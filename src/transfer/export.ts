import {resolve} from 'node:path'

import * as v from 'valibot'

import {MemError} from '../errors.js'
import {AgentId} from '../ops/fields.js'
import {readEachAgent, UnreadableAgent} from '../ops/each-agent.js'
import {defineOperation, resolveAgent, type OperationContext} from '../ops/operation.js'
import type {CheckpointRecord, FactRecord} from '../store/store.js'
import {EXPORT_FORMAT, EXPORT_VERSION, checkpointLine, exportJson, factLine, headerLine} from './export-format.js'
import {writeLinesToPath} from './output-file.js'
import type {OnProgress, TransferContext} from './progress.js'
import {plural} from '../plural.js'

export const ExportInput = v.strictObject({
  agent_id: v.optional(AgentId),
  /** Every agent in the store instead of one. */
  all: v.optional(v.boolean(), false),
  /** The file to write (src/transfer/output-file.ts says which are written how); absent: the context's stdout. */
  file: v.optional(v.string()),
})
export type ExportInput = v.InferInput<typeof ExportInput>

export const ExportSummary = v.object({
  format: v.literal(EXPORT_FORMAT),
  version: v.number(),
  agents: v.array(v.object({agent_id: v.string(), facts: v.number(), checkpoints: v.number()})),
  facts: v.number(),
  checkpoints: v.number(),
  /** Agents left out because their files could not be read (the header line lists them too). */
  missing: v.array(UnreadableAgent),
  /** Where the lines went, when not stdout. */
  file: v.optional(v.string()),
})
export type ExportSummary = v.InferOutput<typeof ExportSummary>

export interface ExportPlan {
  summary: ExportSummary
  /** Header first, then per agent its facts (history included) and its checkpoints, oldest first. */
  lines(): Generator<string>
  total: number
}

/**
 * `mem export`: reads what is to be written up front (so a progress bar knows the total
 * and the summary is exact), then hands out the lines one at a time.
 */
async function planExport(
  ctx: OperationContext,
  input: v.InferOutput<typeof ExportInput>,
  memVersion: string,
): Promise<ExportPlan> {
  const known = await ctx.store.listAgents()
  let agents: string[]
  if (input.all) agents = known
  else {
    const agent = resolveAgent(ctx, input.agent_id)
    if (!known.includes(agent)) {
      throw new MemError(
        'not_found',
        `No agent "${agent}" found in this store${known.length > 0 ? `; agents: ${known.join(', ')}` : ' (it is empty)'}. Use --agent ID or --all.`,
      )
    }
    agents = [agent]
  }
  const read = async (agent: string) => ({
    agent,
    facts: await ctx.store.listFacts(agent),
    checkpoints: await ctx.store.listCheckpoints(agent),
  })
  // One agent alone fails as it always did; with --all a damaged agent is left out and named.
  const {read: done, unreadable: missing} = input.all
    ? await readEachAgent(agents, read)
    : {read: [{value: await read(agents[0]!)}], unreadable: []}
  const data: {agent: string; facts: FactRecord[]; checkpoints: CheckpointRecord[]}[] = done.map((d) => d.value)
  const summary: ExportSummary = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    agents: data.map((d) => ({agent_id: d.agent, facts: d.facts.length, checkpoints: d.checkpoints.length})),
    facts: data.reduce((n, d) => n + d.facts.length, 0),
    checkpoints: data.reduce((n, d) => n + d.checkpoints.length, 0),
    missing,
  }
  const exportedAt = new Date().toISOString()
  return {
    summary,
    total: summary.facts + summary.checkpoints,
    *lines() {
      yield exportJson({...headerLine(memVersion, exportedAt), ...(missing.length > 0 ? {missing} : {})})
      for (const d of data) {
        for (const fact of d.facts) yield exportJson(factLine(d.agent, fact))
        for (const cp of d.checkpoints) yield exportJson(checkpointLine(d.agent, cp))
      }
    },
  }
}

/** What an export works on: the store, mem's version for the header line, and where the lines go when no file is named. */
export type ExportContext = TransferContext & {
  memVersion: string
  stdout: (lines: Iterable<string>, total: number, onProgress?: OnProgress) => Promise<void>
}

/**
 * `mem export`: the lines go to a file, whose summary is the result, or to stdout, where the
 * lines are the result and nothing else is printed.
 */
export const memExport = defineOperation({
  tool: 'export',
  title: 'Export',
  description: 'Writes the facts (with their history) and checkpoints of one agent or of all, as JSON Lines.',
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: ExportInput,
  output: ExportSummary,
  async handler(ctx: ExportContext, input): Promise<ExportSummary> {
    const plan = await planExport(ctx, input, ctx.memVersion)
    if (input.file === undefined) {
      await ctx.stdout(plan.lines(), plan.total, ctx.onProgress)
      return plan.summary
    }
    const file = resolve(input.file)
    writeLinesToPath(file, plan.lines(), plan.total, ctx.onProgress)
    return {...plan.summary, file}
  },
  prose: exportProse,
  leftOut: (summary) => summary.missing,
  printsNothing: (summary) => summary.file === undefined,
})

export function exportProse(summary: ExportSummary): string {
  const who =
    summary.agents.length === 1 ? `agent ${summary.agents[0]!.agent_id}` : plural(summary.agents.length, 'agent')
  const left =
    summary.missing.length === 0
      ? ''
      : ` Left out ${plural(summary.missing.length, 'agent')} that could not be read: ${summary.missing.map((m) => m.agent_id).join(', ')}.`
  return `Exported ${plural(summary.facts, 'fact')} and ${plural(summary.checkpoints, 'checkpoint')} of ${who}${summary.file ? ` to ${summary.file}` : ''}.${left}`
}
