import * as v from 'valibot'

import {AgentId} from '../ops/fields.js'
import type {AnyOperation, OperationContext} from '../ops/operation.js'
import {forStream} from './inert-text.js'

/**
 * A read of an agent that has stored nothing answers as for an empty agent (the payload is the
 * same on every surface); at the CLI an agent someone named (--agent, MEM_AGENT), which may be
 * a typo, also gets a line on stderr naming the agents there are. The implicit "default" gets none.
 */
export async function hintUnknownAgent(
  op: AnyOperation,
  ctx: OperationContext,
  named: string | undefined,
): Promise<void> {
  const perAgent = 'agent_id' in ((op.input as {entries?: object}).entries ?? {})
  if (!op.annotations.readOnlyHint || !perAgent || named === undefined) return
  const hint = await unknownAgent(ctx, named)
  if (hint !== undefined) process.stderr.write(forStream(process.stderr, `mem: ${hint}\n`))
}

/**
 * `no agent alcie; known agents: alice, team` when no agent `id` has stored anything, else
 * undefined; the browser shows the same words for an agent it was opened on.
 */
export async function unknownAgent(ctx: OperationContext, id: string): Promise<string | undefined> {
  const parsed = v.safeParse(AgentId, id)
  if (!parsed.success) return undefined
  const known = await ctx.store.listAgents()
  if (known.includes(parsed.output)) return undefined
  const others = known.length > 0 ? `known agents: ${known.join(', ')}` : 'nothing is stored yet'
  return `no agent ${parsed.output}; ${others}`
}

/** The agent a command line names: the operation's agent_id, else --agent, else MEM_AGENT. */
export function namedAgent(input: Record<string, unknown>, flag: string | undefined): string | undefined {
  const id = input.agent_id ?? flag ?? process.env.MEM_AGENT
  return typeof id === 'string' ? id : undefined
}
