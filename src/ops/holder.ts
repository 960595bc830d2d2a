import {FieldError, MemError} from '../errors.js'
import type {RecordKind, Store} from '../store/store.js'

/**
 * A "no such fact" or "no such checkpoint" for an id the agent does not hold, told which agent
 * does (a forgotten --agent or agent_id): `…: it belongs to agent "bob"; add agent_id "bob".`
 * Any other error, or an id no agent holds, comes back as it was, not-found text and code alike.
 */
export async function namingHolder(error: unknown, store: Store, kind: RecordKind, id: string): Promise<unknown> {
  if (!(error instanceof MemError) || (error.code !== 'not_found' && error.code !== 'no_checkpoint')) return error
  // Only for the plain absence: a fact of this agent that was replaced or deleted is its own.
  if (!error.message.startsWith('No ')) return error
  // Only a hint: a store that cannot tell leaves the error as it was.
  const holders = await store.agentsHolding(kind, id).catch(() => [])
  if (holders.length === 0) return error
  const named = holders.map((a) => JSON.stringify(a))
  const hint =
    holders.length === 1
      ? `it belongs to agent ${named[0]}; add agent_id ${named[0]}.`
      : `agents ${named.slice(0, -1).join(', ')} and ${named.at(-1)} each hold one; add agent_id with the one you mean.`
  return new FieldError(error.code, `${error.message.replace(/\.$/, '')}: ${hint}`, ['agent_id'])
}
