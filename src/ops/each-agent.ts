import * as v from 'valibot'

import {asMemError} from '../errors.js'

/** An agent an all-agents command had to leave out, and why. */
export const UnreadableAgent = v.object({
  agent_id: v.string(),
  code: v.string(),
  message: v.string(),
})
export type UnreadableAgent = v.InferOutput<typeof UnreadableAgent>

/**
 * Reads every agent in turn. One agent whose files cannot be read (a damaged file, one from a
 * newer mem) is left out and named, so it never keeps the others from being listed or backed up.
 */
export async function readEachAgent<T>(
  agents: string[],
  read: (agent: string) => Promise<T>,
): Promise<{read: {agent: string; value: T}[]; unreadable: UnreadableAgent[]}> {
  const done: {agent: string; value: T}[] = []
  const unreadable: UnreadableAgent[] = []
  for (const agent of agents) {
    try {
      done.push({agent, value: await read(agent)})
    } catch (error) {
      const e = asMemError(error)
      unreadable.push({agent_id: agent, code: e.code, message: e.message})
    }
  }
  return {read: done, unreadable}
}
