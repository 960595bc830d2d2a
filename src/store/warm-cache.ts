/**
 * How much memory a long-running process spends on the agents it keeps warm (the file store:
 * an agent's files and search index; PostgreSQL: its search index), as each store estimates it.
 * One server can serve many agents; past this budget the least recently used are dropped and
 * loaded again (from the saved index) when next used.
 */
export const WARM_BUDGET_BYTES = 64 * 1024 * 1024

/**
 * One byte budget for several caches of a process (the file store's agents and their search
 * indexes): each trims its own least recently used entries first, then the others', until the
 * whole is within it.
 */
export class WarmBudget {
  readonly caches = new Set<Pick<WarmCache<unknown>, 'usage' | 'trim'>>()

  constructor(readonly bytes = WARM_BUDGET_BYTES) {}

  used(): number {
    let total = 0
    for (const cache of this.caches) total += cache.usage().bytes
    return total
  }
}

/**
 * What a process keeps warm, by agent, least recently used first, trimmed to its budget
 * ({@link WARM_BUDGET_BYTES}, shared with the process's other caches when given one): the one
 * policy both stores keep their agents by. The agent in use is never dropped, from any cache.
 */
export class WarmCache<T> {
  private readonly held = new Map<string, T>()

  constructor(
    /** The memory one entry takes, in bytes, as estimated now (entries grow as they are used). */
    private readonly cost: (value: T) => number,
    /** Told of each entry dropped to stay within the budget. */
    private readonly onDrop: (value: T) => void = () => {},
    private readonly budget = new WarmBudget(),
  ) {
    budget.caches.add(this)
  }

  /** The agent's entry, if warm, without counting this as a use. */
  peek(agent: string): T | undefined {
    return this.held.get(agent)
  }

  /** Holds `value` as the agent's entry, the most recently used, and drops others while the whole is over budget. */
  use(agent: string, value: T): T {
    this.held.delete(agent)
    this.held.set(agent, value)
    let total = this.budget.caches.size > 1 || this.held.size > 1 ? this.budget.used() : 0
    for (const cache of [this, ...this.budget.caches]) {
      if (total <= this.budget.bytes) break
      total -= cache.trim(agent, total - this.budget.bytes)
    }
    return value
  }

  /**
   * Drops least recently used entries, never `agent`'s, until `over` bytes are freed or none is
   * left; the bytes freed. For the budget: a cache over it trims itself first, then the others.
   */
  trim(agent: string, over: number): number {
    let freed = 0
    for (const [name, other] of this.held) {
      if (freed >= over) break
      if (name === agent) continue
      freed += this.cost(other)
      this.held.delete(name)
      this.onDrop(other)
    }
    return freed
  }

  /** Forgets the agent's entry (not a drop for the budget: `onDrop` is not told). */
  delete(agent: string): void {
    this.held.delete(agent)
  }

  clear(): void {
    this.held.clear()
  }

  /** The agents held, least recently used first. */
  agents(): string[] {
    return [...this.held.keys()]
  }

  /** How many agents are warm, and their estimated cost in bytes (for tests and diagnostics). */
  usage(): {agents: number; bytes: number} {
    return {agents: this.held.size, bytes: this.bytes()}
  }

  private bytes(): number {
    let total = 0
    for (const value of this.held.values()) total += this.cost(value)
    return total
  }
}
