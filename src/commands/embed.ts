import {Flags} from '@oclif/core'
import * as v from 'valibot'

import {MemCommand} from '../cli/base-command.js'
import {agentFlagFor} from '../cli/flag-spec.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {MemError} from '../errors.js'
import type {EmbedProgress} from '../index/vector-upkeep.js'
import {AgentId} from '../ops/fields.js'
import {parseInput, resolveAgent} from '../ops/operation.js'
import {plural} from '../plural.js'
import {progressBar} from '../transfer/progress-bar.js'

interface Embedded {
  agent_id: string
  embedded: number
  pending: number
}

export default class Embed extends MemCommand {
  static override summary = 'Make the vectors of meaning of the facts that have none (with meaning on).'
  static override description =
    'Search ranks a fact by meaning only once it has its vector. A server makes them for new facts in the background; this makes them now, ' +
    'for one agent or all, with a progress bar. Ctrl-C stops after the batch in hand: what is done is kept, and running it again goes on from there. ' +
    'Needs meaning on ("mem meaning on", or MEM_MEANING=on for this run).'
  static override examples = ['<%= config.bin %> embed --agent alice', '<%= config.bin %> embed --all']
  static override flags = {
    ...oclifFlags(
      agentFlagFor('Agent whose facts to embed [default: $MEM_AGENT, else "default"].', {exclusive: ['all']}),
    ),
    all: Flags.boolean({description: 'Embed the facts of every agent.'}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Embed)
    if (flags.agent !== undefined) parseInput(v.strictObject({agent_id: AgentId}), {agent_id: flags.agent})
    const ctx = this.context(flags.agent)
    const agents = flags.all ? await ctx.store.listAgents() : [resolveAgent(ctx, undefined)]
    const stop = new AbortController()
    const interrupt = (): void => {
      // A second Ctrl-C does not wait for the batch in hand.
      if (stop.signal.aborted) process.exit(130)
      stop.abort()
    }
    process.on('SIGINT', interrupt)
    const done: Embedded[] = []
    try {
      for (const agent of agents) {
        if (stop.signal.aborted) break
        done.push(await this.embed(ctx.store.embedPending.bind(ctx.store), agent, stop.signal))
      }
    } finally {
      process.off('SIGINT', interrupt)
    }
    const payload = {agents: done, stopped: stop.signal.aborted}
    this.print(this.jsonMode ? JSON.stringify(payload) : prose(payload))
    if (payload.stopped) process.exitCode = 130
    return payload
  }

  private async embed(
    embedPending: (agent: string, progress: (at: EmbedProgress) => void, signal: AbortSignal) => Promise<EmbedProgress>,
    agent: string,
    signal: AbortSignal,
  ): Promise<Embedded> {
    const bar = progressBar(!this.jsonMode, 1)
    let total: number | undefined
    try {
      const {embedded, pending} = await embedPending(
        agent,
        ({embedded, pending}) => {
          total ??= embedded + pending
          bar.onProgress(`${agent}`, embedded, total)
        },
        signal,
      )
      return {agent_id: agent, embedded, pending}
    } catch (error) {
      if (error instanceof MemError) throw error
      throw new MemError('io_error', `agent ${agent}: ${(error as Error).message}`)
    } finally {
      bar.stop()
    }
  }
}

function prose({agents, stopped}: {agents: Embedded[]; stopped: boolean}): string {
  const lines = agents.map(
    ({agent_id, embedded, pending}) =>
      `Agent ${agent_id}: embedded ${plural(embedded, 'fact')}${pending === 0 ? ', none left.' : `, ${plural(pending, 'fact')} still without vectors.`}`,
  )
  if (agents.length === 0) lines.push('No agent has facts to embed.')
  if (stopped) lines.push('Stopped: what was embedded is kept; run "mem embed" again to go on.')
  return lines.join('\n')
}
