import {isLive, type FactRecord} from './records.js'

/** Content as the duplicate guard compares it: case and runs of white space do not count. */
export function normalizedContent(content: string): string {
  return content.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase()
}

/** The live standalone fact (one of no thread) that already says `content`, if any; the first stored wins. */
export function liveDuplicate(facts: Iterable<FactRecord>, content: string): FactRecord | undefined {
  const wanted = normalizedContent(content)
  for (const fact of facts) if (isLive(fact) && fact.thread === undefined && normalizedContent(fact.content) === wanted) return fact
  return undefined
}
