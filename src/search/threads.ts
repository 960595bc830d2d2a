const NONE = -1

/**
 * Which facts are turns of one conversation, and in what order: for each slot its thread
 * (0: none, else 1 + the thread's place in `names`) and its neighbours within that thread
 * (-1: none), ordered by (created_at, id) whatever order the facts arrived in, so an imported
 * old transcript links exactly like one saved live. Facts without a thread have no neighbours.
 */
export class Threads {
  prev = new Int32Array(0)
  next = new Int32Array(0)
  threadOf = new Uint32Array(0)
  readonly names: string[] = []
  private readonly numberOf = new Map<string, number>()
  /** Per thread number, its last fact; built on the first link after loading. */
  private tails?: Map<number, number>

  /**
   * @param before true when the fact in slot a comes before the one in slot b in their thread
   */
  constructor(private readonly before: (a: number, b: number) => boolean) {}

  /** The thread of `slot`, or undefined. */
  nameOf(slot: number): string | undefined {
    const n = this.threadOf[slot] ?? 0
    return n === 0 ? undefined : this.names[n - 1]
  }

  ensure(capacity: number): void {
    if (this.prev.length >= capacity) return
    const size = Math.max(capacity, this.prev.length * 2, 1024)
    const prev = new Int32Array(size).fill(NONE)
    const next = new Int32Array(size).fill(NONE)
    const threadOf = new Uint32Array(size)
    prev.set(this.prev)
    next.set(this.next)
    threadOf.set(this.threadOf)
    this.prev = prev
    this.next = next
    this.threadOf = threadOf
  }

  /** Puts `slot` (unlinked) into `thread` at its place; undefined leaves it standalone. */
  link(slot: number, thread: string | undefined): void {
    this.ensure(slot + 1)
    if (thread === undefined) return
    // Before this slot joins: the map is built from the slots already linked.
    const tails = this.tailMap()
    const n = this.number(thread)
    this.threadOf[slot] = n
    const {prev, next} = this
    // Facts usually arrive in order, so this walks no step: the new one is the thread's last.
    let after = tails.get(n) ?? NONE
    let following = NONE
    while (after !== NONE && this.before(slot, after)) {
      following = after
      after = prev[after]!
    }
    prev[slot] = after
    next[slot] = following
    if (after !== NONE) next[after] = slot
    if (following !== NONE) prev[following] = slot
    else tails.set(n, slot)
  }

  unlink(slot: number): void {
    const n = this.threadOf[slot] ?? 0
    if (n === 0) return
    const {prev, next} = this
    const p = prev[slot]!
    const f = next[slot]!
    if (p !== NONE) next[p] = f
    if (f !== NONE) prev[f] = p
    else if (this.tails) {
      if (p === NONE) this.tails.delete(n)
      else this.tails.set(n, p)
    }
    prev[slot] = NONE
    next[slot] = NONE
    this.threadOf[slot] = 0
  }

  /**
   * Loads `count` slots with the given thread names and numbers (as {@link names} and
   * {@link threadOf} are saved) and links each thread in order, in about one pass: a thread's
   * facts, met in slot order, are sorted only when they did not arrive in order.
   */
  load(count: number, names: readonly string[], threadOf: Uint32Array): void {
    this.ensure(count)
    // A memory of standalone facts has no thread: nothing to link, and no pass over its facts.
    if (names.length === 0) return
    names.forEach((name) => this.number(name))
    if (this.names.length !== names.length) throw new Error('repeated thread names')
    this.threadOf.set(threadOf.subarray(0, count))
    const members = new Map<number, number[]>()
    for (let slot = 0; slot < count; slot++) {
      const n = threadOf[slot]!
      if (n === 0) continue
      if (n > names.length) throw new Error(`bad thread for fact ${slot}`)
      let list = members.get(n)
      if (list === undefined) members.set(n, (list = []))
      list.push(slot)
    }
    for (const list of members.values()) {
      if (list.some((slot, i) => i > 0 && this.before(slot, list[i - 1]!)))
        list.sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0))
      for (let i = 0; i < list.length; i++) {
        this.prev[list[i]!] = i > 0 ? list[i - 1]! : NONE
        this.next[list[i]!] = i + 1 < list.length ? list[i + 1]! : NONE
      }
    }
  }

  private number(thread: string): number {
    let n = this.numberOf.get(thread)
    if (n === undefined) {
      n = this.names.push(thread)
      this.numberOf.set(thread, n)
    }
    return n
  }

  private tailMap(): Map<number, number> {
    if (!this.tails) {
      const tails = new Map<number, number>()
      for (let slot = 0; slot < this.threadOf.length; slot++)
        if (this.threadOf[slot] !== 0 && this.next[slot] === NONE) tails.set(this.threadOf[slot]!, slot)
      this.tails = tails
    }
    return this.tails
  }
}
