import {agentMatcher} from '../auth/agent-patterns.js'
import {MemError} from '../errors.js'
import type {Store} from '../store/store.js'

/**
 * What one caller may do: which agents (null: all) and whether it may write. The check sits
 * in the store every operation goes through, after the operation has defaulted the agent,
 * so no tool and no argument can reach another agent. The refusal reads the same whether
 * that agent has data or not, and is raised before anything is read.
 */
export function scopedStore(store: Store, agents: string[] | null): Store {
  if (agents === null) return store
  const allowed = agentMatcher(agents)
  return new Proxy(store, {
    get(target, key, receiver) {
      const member = Reflect.get(target, key, receiver) as unknown
      if (typeof member !== 'function') return member
      if (key === 'listAgents') return async () => (await target.listAgents()).filter(allowed)
      // Another agent's ids stay unknown to this caller: only its own agents are named.
      if (key === 'agentsHolding')
        return async (...args: Parameters<Store['agentsHolding']>) =>
          (await target.agentsHolding(...args)).filter(allowed)
      return (agent: unknown, ...rest: unknown[]) => {
        if (typeof agent !== 'string' || !allowed(agent)) throw outOfScope(agent)
        return (member as (...args: unknown[]) => unknown).call(target, agent, ...rest)
      }
    },
  })
}

function outOfScope(agent: unknown): MemError {
  return new MemError(
    'forbidden',
    `this token may not use agent ${JSON.stringify(agent)}; it is limited to other agents (see "mem token list")`,
  )
}
