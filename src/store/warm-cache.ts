/**
 * How much memory a long-running process spends on the agents it keeps warm (the file store:
 * an agent's files and search index; PostgreSQL: its search index), as each store estimates it.
 * One server can serve many agents; past this budget the least recently used are dropped and
 * loaded again (from the saved index) when next used.
 */
export const WARM_BUDGET_BYTES = 64 * 1024 * 1024

/**
 * What a process keeps warm, by agent, least recently used first, trimmed to
 * {@link WARM_BUDGET_BYTES}: the one policy both stores keep their agents by. The agent in use
 * is never dropped.
 */
export class WarmCache<T> {
  private readonly held = new Map<string, T>()

  constructor(
    /** The memory one entry takes, in bytes, as estimated now (entries grow as they are used). */
    private readonly cost: (value: T) => number,
    /** Told of each entry dropped to stay within the budget. */
    private readonly onDrop: (value: T) => void = () => {},
  ) {}

  /** The agent's entry, if warm, without counting this as a use. */
  peek(agent: string): T | undefined {
    return this.held.get(agent)
  }

  /** Holds `value` as the agent's entry, the most recently used, and drops others while the whole is over budget. */
  use(agent: string, value: T): T {
    this.held.delete(agent)
    this.held.set(agent, value)
    if (this.held.size < 2) return value
    let total = this.bytes()
    for (const [name, other] of this.held) {
      if (total <= WARM_BUDGET_BYTES) break
      if (other === value) continue
      total -= this.cost(other)
      this.held.delete(name)
      this.onDrop(other)
    }
    return value
  }

  /** Forgets the agent's entry (not a drop for the budget: `onDrop` is not told). */
  delete(agent: string): void {
    this.held.delete(agent)
  }

  clear(): void {
    this.held.clear()
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
