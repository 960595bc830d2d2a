import type {FactGenerator} from './facts.js'

/** The tools the HTTP and team benchmarks call, in the order their tables list them. */
export const TOOLS = ['memory_search', 'memory_add', 'checkpoint_resume', 'checkpoint_save'] as const
export type Tool = (typeof TOOLS)[number]
/** One session of an agent's day, reads outnumbering writes: search, add, search, resume, save. */
export const CYCLE: readonly Tool[] = [
  'memory_search',
  'memory_add',
  'memory_search',
  'checkpoint_resume',
  'checkpoint_save',
]

/** Arguments for one call of `tool` for `agent`: an add is made unique, so the duplicate guard does not turn it into a no-op. */
export function argsFor(tool: Tool, agent: string, gen: FactGenerator): Record<string, unknown> {
  switch (tool) {
    case 'memory_search':
      return {agent_id: agent, query: gen.query()}
    case 'memory_add': {
      const f = gen.fact()
      return {agent_id: agent, content: `${f.content} (${gen.codename()}${gen.int(1e9)})`, tags: f.tags}
    }
    case 'checkpoint_resume':
      return {agent_id: agent, on_missing: 'empty'}
    case 'checkpoint_save':
      return {agent_id: agent, state: {step: gen.int(100), note: gen.codename()}}
  }
}
