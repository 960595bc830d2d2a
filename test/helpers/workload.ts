import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'

import {mem} from './mem.js'

type Call = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>

/** What a mixed workload got back: every acknowledged write, by agent, and anything that went wrong. */
export class Ledger {
  readonly facts = new Map<string, Set<string>>()
  readonly checkpoints = new Map<string, Set<string>>()
  readonly failures: string[] = []
  calls = 0
  refusals = 0

  acknowledge(kind: 'facts' | 'checkpoints', agent: string, id: string): void {
    const map = this[kind]
    if (!map.has(agent)) map.set(agent, new Set())
    map.get(agent)!.add(id)
  }

  /** Acknowledged writes that `mem list` / `mem checkpoints` do not show. */
  missingOnDisk(home: string): string[] {
    const missing: string[] = []
    for (const [agent, ids] of this.facts) {
      const listed = new Set(
        (
          JSON.parse(mem(home, ['list', '--agent', agent, '--json', '--limit', '10000']).stdout) as {
            facts: {id: string}[]
          }
        ).facts.map((f) => f.id),
      )
      for (const id of ids) if (!listed.has(id)) missing.push(`fact ${id} of ${agent}`)
    }
    for (const [agent, ids] of this.checkpoints) {
      const listed = new Set(
        (
          JSON.parse(mem(home, ['checkpoints', '--agent', agent, '--json', '--limit', '10000']).stdout) as {
            checkpoints: {id: string}[]
          }
        ).checkpoints.map((c) => c.id),
      )
      for (const id of ids) if (!listed.has(id)) missing.push(`checkpoint ${id} of ${agent}`)
    }
    return missing
  }
}

/**
 * One client's loop of adds, searches, saves and resumes on its agent until `stop()` says so.
 * With `foreign`, every tenth call reaches for that agent and must be refused.
 */
export async function runMix(
  label: string,
  call: Call,
  agent: string,
  ledger: Ledger,
  stop: () => boolean,
  foreign?: string,
): Promise<void> {
  for (let i = 0; !stop(); i++) {
    ledger.calls++
    const step = i % 10
    try {
      if (foreign !== undefined && step === 9) {
        const r = await call('memory_add', {agent_id: foreign, content: `${label} intrudes ${i}`})
        if (r.isError !== true) ledger.failures.push(`${label}: a call for ${foreign} was not refused`)
        else ledger.refusals++
        continue
      }
      const op = step % 4
      if (op === 0) {
        const r = await succeed(call, 'memory_add', {
          agent_id: agent,
          content: `${label} noted item ${i} at ${Date.now()}`,
          tags: ['load'],
        })
        ledger.acknowledge('facts', agent, r.fact_id as string)
      } else if (op === 1) {
        await succeed(call, 'memory_search', {agent_id: agent, query: `${label} item`})
      } else if (op === 2) {
        const r = await succeed(call, 'checkpoint_save', {agent_id: agent, state: {label, i}})
        ledger.acknowledge('checkpoints', agent, r.checkpoint_id as string)
      } else {
        await succeed(call, 'checkpoint_resume', {agent_id: agent, on_missing: 'empty'})
      }
    } catch (error) {
      ledger.failures.push(`${label}: ${(error as Error).message}`)
    }
  }
}

async function succeed(call: Call, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await call(name, args)
  if (r.isError === true) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`)
  return r.structuredContent as Record<string, unknown>
}
