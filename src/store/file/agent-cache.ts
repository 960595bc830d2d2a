import {AgentFiles, type Needs} from './agent-files.js'
import {agentDir} from './paths.js'

/**
 * How much memory a long-running process spends on the agents it keeps warm, as estimated by
 * {@link AgentFiles.cost}. One server can serve many agents; past this budget the least
 * recently used agents are dropped and read again (from the saved index) when next used. The
 * agent in use is never dropped.
 */
const CACHE_BUDGET_BYTES = 64 * 1024 * 1024

/** The agents a process keeps warm, least recently used first, trimmed to {@link CACHE_BUDGET_BYTES}. */
export class AgentCache {
  private readonly agents = new Map<string, AgentFiles>()

  constructor(private readonly home: string) {}

  /**
   * The agent's cached files, most recently used last. Dropping an agent only forgets its
   * cache: an operation still holding it finishes with it, and the next one reads afresh.
   */
  get(agent: string): AgentFiles {
    let a = this.agents.get(agent)
    if (a) this.agents.delete(agent)
    else a = new AgentFiles(agentDir(this.home, agent))
    this.agents.set(agent, a)
    this.evict(a)
    return a
  }

  /** Reads take no lock: every file is replaced atomically, so a reader sees whole files. */
  read(agent: string, needs: Needs): AgentFiles {
    const a = this.get(agent)
    a.refresh(a.stamp.read(), needs)
    return a
  }

  /**
   * Lets go of an agent without forgetting the identities remembered for its files (as eviction
   * does): its next operation reads its files afresh.
   */
  drop(agent: string): void {
    this.agents.delete(agent)
  }

  /** How many agents this process keeps warm, and their estimated cost in bytes (for tests and diagnostics). */
  use(): {agents: number; bytes: number} {
    let bytes = 0
    for (const a of this.agents.values()) bytes += a.cost()
    return {agents: this.agents.size, bytes}
  }

  private evict(keep: AgentFiles): void {
    if (this.agents.size < 2) return
    let total = 0
    for (const a of this.agents.values()) total += a.cost()
    for (const [name, a] of this.agents) {
      if (total <= CACHE_BUDGET_BYTES) break
      if (a === keep) continue
      total -= a.cost()
      this.agents.delete(name)
      a.forget()
    }
  }
}
