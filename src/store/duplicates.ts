import {isLive, type FactRecord} from './records.js'

/** Content as the duplicate guard compares it: case and runs of white space do not count. */
export function normalizedContent(content: string): string {
  return content.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase()
}

/** Only live standalone facts can be duplicated: a turn of a thread may repeat what was said before. */
export function guarded(fact: FactRecord): boolean {
  return isLive(fact) && fact.thread === undefined
}

/**
 * The live standalone facts by normalised content. A long-running process keeps it beside the
 * id map and moves it with every change, so the guard costs one lookup per add instead of
 * normalising every fact the agent holds.
 */
export class DuplicateIndex {
  private readonly byContent = new Map<string, FactRecord[]>()

  constructor(facts: Iterable<FactRecord>) {
    for (const fact of facts) this.add(fact)
  }

  add(fact: FactRecord): void {
    if (!guarded(fact)) return
    const key = normalizedContent(fact.content)
    const same = this.byContent.get(key)
    if (!same) this.byContent.set(key, [fact])
    else if (!same.some((f) => f.id === fact.id)) same.push(fact)
  }

  remove(fact: FactRecord): void {
    const key = normalizedContent(fact.content)
    const same = this.byContent.get(key)?.filter((f) => f.id !== fact.id)
    if (same === undefined) return
    if (same.length === 0) this.byContent.delete(key)
    else this.byContent.set(key, same)
  }

  /** The live standalone fact that already says `content`, if any; the first stored wins. */
  find(content: string): FactRecord | undefined {
    return this.byContent.get(normalizedContent(content))?.[0]
  }
}
