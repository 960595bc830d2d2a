import {DuplicateIndex, guarded, normalizedContent} from '../duplicates.js'
import type {FactRecord} from '../records.js'
import type {AgentFiles} from './agent-files.js'
import {contentHash, HeldDigests, readDigests, saveDigests, segmentHashes, type Digests} from './duplicate-digests.js'

/**
 * The file store's duplicate guard: an add looks for a live standalone fact that already says
 * the same, by per-segment content hashes (src/store/file/duplicate-digests.ts) instead of
 * reading every segment, in every process: so a cold `mem add` reads one segment, as without the
 * guard, and a server adds without holding every fact.
 */

/**
 * The live standalone fact that already says `content`. The digests are read from
 * `cache/duplicates.json` once and kept (a server's next add reads them from memory), so an add
 * costs a comparison of each segment's identity (stat'ed by this operation's refresh, under the
 * lock) with the one its hashes were taken of, and one set lookup per segment. A segment whose
 * identity moved (another process's write or mark, a hand edit, a restore) is read without
 * being kept and hashed again, and the digests saved. The last segment, which the add holds, is
 * hashed as it grows. A hash that hits is confirmed against the fact itself: from the segment
 * read, else from the record holding the very same sentence, read alone, else the segment.
 */
export function duplicateOf(a: AgentFiles, content: string): FactRecord | undefined {
  const wanted = contentHash(content)
  const held = (a.digests ??= new HeldDigests(readDigests(a.dir) ?? {segments: {}}))
  const identities = a.facts.seenIdentities()
  let last: string | undefined
  for (const name of identities.keys()) last = name
  let moved = false
  const peeked = new Map<string, readonly FactRecord[]>()
  for (const [name, identity] of identities) {
    if (name === last || held.get(name)?.identity === identity) continue
    const records = a.peekFacts(name).records
    peeked.set(name, records)
    held.set(name, {identity, hashes: segmentHashes(records)})
    moved = true
  }
  for (const name of held.names())
    if (name === last || !identities.has(name)) {
      held.delete(name)
      moved = true
    }
  if (moved) saveDigests(a.dir, held.digests)
  // The first stored wins: the older segments in order, then the last one.
  for (const name of held.holding(wanted)) {
    const found = confirmDuplicate(
      a,
      name,
      identities.get(name)!,
      held.get(name)!.hashes,
      wanted,
      content,
      peeked.get(name),
    )
    if (found) return found
  }
  if (last === undefined) return undefined
  const hashes = hashesOfLast(a, last)
  return hashes.includes(wanted) ? firstDuplicate(a.facts.get(last)?.records ?? [], hashes, wanted, content) : undefined
}

/** A hash hit in a segment other than the last, confirmed against the segment as it is now. */
function confirmDuplicate(
  a: AgentFiles,
  name: string,
  identity: string,
  hashes: readonly string[],
  wanted: string,
  content: string,
  records: readonly FactRecord[] | undefined,
): FactRecord | undefined {
  if (records) return firstDuplicate(records, hashes, wanted, content)
  // Most often the very sentence stored before: when no other fact of the segment has its hash,
  // the record holding those bytes is the one at the hash's position, read alone.
  if (hashes.indexOf(wanted) === hashes.lastIndexOf(wanted)) {
    const normal = normalizedContent(content)
    const alone = a.facts.withValue(name, identity, 'content', content)
    const fact = alone?.find((f) => guarded(f) && normalizedContent(f.content) === normal)
    if (fact) return fact
  }
  return firstDuplicate(a.peekFacts(name).records, hashes, wanted, content)
}

/**
 * Saves the duplicate guard's digests of every segment but the last, from the records held
 * (the facts must have been refreshed with `all`), so that the next add reads one segment.
 */
export function saveDuplicateDigests(a: AgentFiles): void {
  if (!a.facts.complete()) return
  const identities = a.facts.seenIdentities()
  const last = [...identities.keys()].at(-1)
  const kept: Digests = {segments: {}}
  for (const [name, identity] of identities)
    if (name !== last) kept.segments[name] = {identity, hashes: segmentHashes(a.facts.get(name)?.records ?? [])}
  saveDigests(a.dir, kept)
}

/** The hashes of the held last segment, computed only for the records appended since the last call. */
function hashesOfLast(a: AgentFiles, name: string): string[] {
  const records = a.facts.get(name)?.records ?? []
  const memo = a.lastHashes
  let hashes: string[]
  if (
    memo?.name === name &&
    memo.records.length <= records.length &&
    memo.records.every((record, i) => records[i] === record)
  )
    hashes = [...memo.hashes, ...segmentHashes(records.slice(memo.records.length))]
  else hashes = segmentHashes(records)
  a.lastHashes = {name, records, hashes}
  return hashes
}

/**
 * The first live standalone fact of `records` that says `content`. The hashes were taken of the
 * segment's guarded facts in order: when they line up with the records, only the facts at the
 * hash's positions are compared, instead of normalising every fact of the segment.
 */
function firstDuplicate(
  records: readonly FactRecord[],
  hashes: readonly string[],
  wanted: string,
  content: string,
): FactRecord | undefined {
  const candidates = records.filter(guarded)
  if (candidates.length === hashes.length) {
    const normal = normalizedContent(content)
    for (let i = 0; i < hashes.length; i++)
      if (hashes[i] === wanted && normalizedContent(candidates[i]!.content) === normal) return candidates[i]
  }
  return new DuplicateIndex(records).find(content)
}
