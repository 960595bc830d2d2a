import type {AgentCache} from './agent-cache.js'
import type {AgentFiles} from './agent-files.js'

/**
 * The file store's modes, decided here and nowhere else. Search and the duplicate guard are the
 * same in every mode: search is the search layer's (src/index/) over the change feed, and the
 * guard goes by per-segment digests (duplicate-guard.ts). What differs is how a fact is found by
 * id, which costs the files most when a process holds none of them:
 *
 * - **short-lived**: the CLI, which runs one operation and exits, so nothing it builds is reused:
 *   `getFact`, `supersede` and `delete` read every fact. (A search reads of the saved index only
 *   the chunks its query needs.)
 * - **lean**: a long-lived process (`mem mcp serve`, `mem browse`) that no operation has yet made
 *   read every fact by id. Holding every record would cost a server with many agents most of
 *   its memory, so it reads a fact, or marks one, in the segment the change feed last placed it
 *   in (`AgentFiles.liveSegmentsOf`), and reads every fact only when that cannot tell.
 * - **full**: a long-lived process once an operation needed every fact by id (a fact or a mark
 *   the feed could not place). The id map is then built (`AgentFiles.holdsAll`) and follows
 *   every change, and `getFact` and the marks go by it, after bringing every segment up to
 *   date. An agent stays full until the process lets go of it (evicted from the warm cache,
 *   agent-cache.ts, or dropped after a file changed behind the lock); read again, it is lean.
 *
 * A few operations go by whether the id map is built alone, whatever the process's lifetime
 * ({@link holdsEveryFact}): `getFacts`, an import and the digests it saves go by it when it is
 * there, else segment by segment.
 */
export type Mode = 'short-lived' | 'lean' | 'full'

/**
 * The mode `agent` runs in. A short-lived process does not look at the agent (nor touch its
 * place in the warm cache); a long-lived one asks whether the full views are built.
 */
export function modeOf(shortLived: boolean, agents: AgentCache, agent: string): Mode {
  if (shortLived) return 'short-lived'
  return holdsEveryFact(agents.get(agent)) ? 'full' : 'lean'
}

/** Whether the agent's id map is built and follows every change. */
export function holdsEveryFact(a: AgentFiles): boolean {
  return a.holdsAll()
}
