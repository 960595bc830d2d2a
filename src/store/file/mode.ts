import type {AgentCache} from './agent-cache.js'
import type {AgentFiles} from './agent-files.js'

/**
 * The file store's modes, decided here and nowhere else. What an operation costs on the files
 * depends on how long the process lives and on how much of the agent it holds, so the store
 * runs each agent in one of three modes:
 *
 * - **short-lived**: the CLI, which runs one operation and exits, so nothing it builds is reused.
 *   A search opens the saved index and reads only the segments that moved since it was saved
 *   (`searchSaved`; a full search that rebuilds the index when that cannot serve); the
 *   duplicate guard of an add reads the last segment and trusts the saved per-segment digests
 *   of the others (`coldDuplicate`); `getFact`, `supersede` and `delete` read every fact.
 * - **lean**: a long-lived process (`mem mcp serve`, `mem browse`) that no operation has yet made
 *   read every fact by id. Holding every record would cost a server with many agents most of
 *   its memory, so it keeps a search view opened from the saved index and caught up by segment
 *   keys before each search (`leanSearch`), keeps the digests in memory (`warmDuplicate`), and
 *   reads a fact, or marks one, in the segment the view places it in, reading every fact only
 *   when the view cannot tell.
 * - **full**: a long-lived process once an operation needed every fact by id (a fact or a mark
 *   the view could not place, as before the first search). The id map, the search index and the
 *   duplicate index are then built (`AgentFiles.holdsAll`) and follow every change, so a search
 *   (`fullSearch`), the duplicate guard (`AgentFiles.duplicateIndex`), `getFact` and the marks go
 *   by them, after bringing every segment up to date. An agent stays full until the process
 *   lets go of it (evicted from the warm cache, agent-cache.ts, or dropped after a file changed
 *   behind the lock); read again, it is lean.
 *
 * A few operations go by whether the full views are built alone, whatever the process's
 * lifetime ({@link holdsEveryFact}): `getFacts`, an import and the derived files it saves go by
 * the id map when it is there (a short-lived search that had to rebuild the index built it too),
 * else segment by segment.
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

/** Whether the agent's full views (id map, search index, duplicate index) are built and follow every change. */
export function holdsEveryFact(a: AgentFiles): boolean {
  return a.holdsAll()
}
