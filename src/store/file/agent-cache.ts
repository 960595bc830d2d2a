import {WarmCache, type WarmBudget} from '../warm-cache.js'
import {AgentFiles, type Needs} from './agent-files.js'
import {agentDir} from './paths.js'

/**
 * The agents a process keeps warm, within the budget of src/store/warm-cache.ts (shared with
 * their search indexes) as estimated by {@link AgentFiles.cost}; an agent dropped is read again
 * when next used.
 */
export class AgentCache {
  private readonly agents: WarmCache<AgentFiles>

  constructor(
    private readonly home: string,
    budget?: WarmBudget,
  ) {
    this.agents = new WarmCache<AgentFiles>(
      (a) => a.cost(),
      (a) => a.forget(),
      budget,
    )
  }

  /**
   * The agent's cached files, most recently used last. Dropping an agent only forgets its
   * cache: an operation still holding it finishes with it, and the next one reads afresh.
   */
  get(agent: string): AgentFiles {
    return this.agents.use(agent, this.agents.peek(agent) ?? new AgentFiles(agentDir(this.home, agent)))
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
    return this.agents.usage()
  }
}
