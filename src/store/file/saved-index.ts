import type {FactIndex} from '../../search/fact-index.js'
import {allLines} from '../../search/lines.js'
import {isLive, type FactRecord} from '../records.js'
import {factDigest, readSaved, type IndexSource, type SavedIndex, type SavedSegment} from './search-cache.js'
import type {FactIndexType} from '../search-code.js'

/**
 * Bringing a saved search index (src/store/file/search-cache.ts) up to date with the segments.
 * mem itself never changes a fact's content under its id (an update is a new fact), but a
 * person may, by editing a segment file, restoring one from a backup or copying one in: so
 * every fact of a segment whose key moved since the index was saved is indexed again,
 * facts that died are removed, and facts the index lacks are appended, as long as appending
 * keeps them in the order the ranking reads (saving order).
 */

export interface OpenedIndex {
  index: FactIndex
  /** Facts added or removed to bring a saved index up to date, or every fact when built anew. */
  changed: number
  /** True when nothing was loaded and the index was built from the facts. */
  rebuilt: boolean
}

/** One fact segment as a process holds it: its records and the cache key they were read under. */
export interface HeldSegment {
  name: string
  key: string
  records: readonly FactRecord[]
}

/**
 * The index over `segments` (every fact segment of the agent, in order): the saved one
 * brought up to date when it is usable, otherwise a new one. Synchronous, so that no other
 * operation of the process can change the facts while the index is being made from them.
 */
export function openIndex(FactIndex: FactIndexType, agentDir: string, segments: readonly HeldSegment[]): OpenedIndex {
  const facts = segments.flatMap((s) => s.records)
  const saved = readSaved(agentDir)
  if (saved) {
    try {
      const live = liveFacts(facts)
      // The caller keeps every record: the index takes their dates rather than the saved copies,
      // so a server does not hold a second string per fact for as long as it runs.
      const ids = allLines(saved.index.ids)
      const createdAt = ids.map((id) => live.get(id)?.created_at ?? '')
      const index = FactIndex.fromCompact({...saved.index, createdAt})
      const changed = reconcile(index, ids, live)
      if (changed !== undefined) return {index, changed: changed + reindexMoved(index, saved, segments), rebuilt: false}
    } catch {
      // An index that does not load is rebuilt below, like a missing one.
    }
  }
  const index = new FactIndex()
  let changed = 0
  for (const fact of facts) {
    if (!isLive(fact)) continue
    index.add(fact)
    changed++
  }
  return {index, changed, rebuilt: true}
}

/**
 * Worth saving again: built anew, or brought up to date by more than a few cheap steps, or by
 * reading more than a few segments again (a home copied or restored whole keeps every fact but
 * no file identity: unsaved, every later search would read every segment again).
 */
export function worthSaving(opened: OpenedIndex | PartialIndex): boolean {
  if (opened.rebuilt) return opened.changed > 0
  const reread = 'reread' in opened && opened.reread > Math.max(2, opened.segments / 50)
  return reread || opened.changed > Math.max(200, opened.index.size / 50)
}

/** A saved index brought up to date from the segments that changed, and a way to each fact's record. */
export interface PartialIndex extends OpenedIndex {
  /** The record of a live fact in the index, read from its segment (if it was not read already). */
  record(id: string): FactRecord | undefined
  /** What saving it again needs. */
  source: IndexSource
  /** How many of the `segments` fact segments were read because their key moved. */
  reread: number
  segments: number
}

/**
 * The saved index brought up to date by reading only the segments whose key differs from the
 * one it was saved with (or that are new): for every other segment, the index and the records
 * saved with it are what the segment holds. `current` lists every fact segment now present,
 * in order, with its key taken before `read` reads it; `readOne` may find one record of a
 * segment the index reflects without reading the rest (undefined: read it whole). Undefined when the index cannot be
 * brought up to date this way (a segment it was made from is gone, or facts it lacks would
 * land between facts it holds): the caller then reads everything.
 */
export function openPartial(
  FactIndex: FactIndexType,
  saved: SavedIndex,
  current: SavedSegment[],
  read: (segment: string) => readonly FactRecord[],
  readOne: (segment: string, id: string) => FactRecord | undefined = () => undefined,
): PartialIndex | undefined {
  const present = new Set(current.map((s) => s.name))
  if (!saved.segments.every((s) => present.has(s.name))) return undefined
  const savedKeys = new Map(saved.segments.map((s, i) => [s.name, {key: s.key, at: i}]))
  const lastSaved = saved.segments.at(-1)?.name ?? ''

  const held = new Map<string, {fact: FactRecord; segment: string}>()
  const stale = new Set<number>()
  let reread = 0
  for (const {name, key} of current) {
    const was = savedKeys.get(name)
    if (was?.key === key) continue
    reread++
    if (was) stale.add(was.at)
    for (const fact of read(name)) if (isLive(fact)) held.set(fact.id, {fact, segment: name})
  }

  let index: FactIndex
  try {
    index = FactIndex.fromCompact({...saved.index, createdAt: saved.createdAt()})
  } catch {
    // Numbers that do not describe an index: the caller rebuilds it, as when it is missing.
    return undefined
  }
  const {ids} = saved.index
  let changed = 0
  if (stale.size > 0) {
    for (let slot = 0; slot < ids.length; slot++) {
      if (stale.has(saved.segmentOf[slot]!) && !held.has(ids.at(slot)!)) {
        index.remove(ids.at(slot)!)
        changed++
      }
    }
  }
  // A fact of a moved segment whose record no longer has the digest it was indexed with was
  // changed under its id (by hand, or restored from a backup): it is indexed again.
  for (const [id, {fact}] of held) {
    const slot = index.slot(id)
    if (slot === undefined || sameDigest(saved, slot, fact)) continue
    reindex(index, fact)
    changed++
  }
  // Only the last saved segment and new ones gain facts; one elsewhere would land mid-index.
  const added = appendMissing(
    index,
    [...held.values()].map((h) => h.fact),
    (fact) => held.get(fact.id)!.segment >= lastSaved,
  )
  if (added === undefined) return undefined
  changed += added

  const savedSlot = (id: string): number | undefined => {
    const slot = index.slot(id)
    return slot !== undefined && slot < ids.length && ids.at(slot) === id ? slot : undefined
  }
  // The segments read whole for their records (a hit's), each as a map by id; a hit's record is
  // first looked for alone, which spares decoding the thousand others around it.
  const opened = new Map<string, Map<string, FactRecord>>()
  const factIn = (segment: string, id: string): FactRecord | undefined => {
    let byId = opened.get(segment)
    if (!byId) {
      const one = readOne(segment, id)
      if (one?.id === id && isLive(one)) return one
      byId = new Map(read(segment).map((fact) => [fact.id, fact]))
      opened.set(segment, byId)
    }
    const fact = byId.get(id)
    return fact && isLive(fact) ? fact : undefined
  }
  return {
    index,
    changed,
    rebuilt: false,
    reread,
    segments: current.length,
    record(id) {
      const fresh = held.get(id)
      if (fresh) return fresh.fact
      const slot = savedSlot(id)
      return slot === undefined ? undefined : factIn(saved.segments[saved.segmentOf[slot]!]!.name, id)
    },
    source: {
      segments: current,
      locate(id) {
        const fresh = held.get(id)
        if (fresh) return {segment: fresh.segment, digest: factDigest(fresh.fact)}
        const slot = savedSlot(id)
        if (slot === undefined) return undefined
        return {
          segment: saved.segments[saved.segmentOf[slot]!]!.name,
          digest: [saved.digests[2 * slot]!, saved.digests[2 * slot + 1]!],
        }
      },
    },
  }
}

/**
 * Indexes a fact it holds again, from its record as it is now. Removed and added under a new
 * slot rather than re-added in its own: a slot made live again would also pass for the postings
 * its old words left behind (they are swept lazily, by slot). Where a fact sits does not rank it.
 */
export function reindex(index: FactIndex, fact: FactRecord): void {
  index.remove(fact.id)
  index.add(fact)
}

/**
 * Indexes again every live fact of each segment whose key differs from the one the index was
 * saved with and whose record no longer has the digest it was indexed with: its content
 * changed under the same id. Returns how many.
 */
function reindexMoved(index: FactIndex, saved: SavedIndex, segments: readonly HeldSegment[]): number {
  const savedKey = new Map(saved.segments.map((s) => [s.name, s.key]))
  let changed = 0
  for (const segment of segments) {
    const key = savedKey.get(segment.name)
    // A segment the index was not made from: reconcile appended its facts just now, from the records.
    if (key === undefined || key === segment.key) continue
    for (const fact of segment.records) {
      if (!isLive(fact) || !index.has(fact.id) || sameDigest(saved, index.slot(fact.id)!, fact)) continue
      reindex(index, fact)
      changed++
    }
  }
  return changed
}

/** The fact in `slot` of the saved index is `fact` as it was indexed. */
function sameDigest(saved: SavedIndex, slot: number, fact: FactRecord): boolean {
  if (slot >= saved.index.ids.length || saved.index.ids.at(slot) !== fact.id) return false
  const [a, b] = factDigest(fact)
  return saved.digests[2 * slot] === a && saved.digests[2 * slot + 1] === b
}

/**
 * Removes indexed facts that are no longer live and appends live facts the index lacks.
 * Returns the number of changes, or undefined when the missing facts are not all newer than
 * the indexed ones: appending them would put them out of order (the ranking uses the order).
 */
function reconcile(index: FactIndex, indexed: string[], live: Map<string, FactRecord>): number | undefined {
  let changed = 0
  for (const id of indexed) {
    if (!live.has(id)) {
      index.remove(id)
      changed++
    }
  }
  const added = appendMissing(index, live.values())
  return added === undefined ? undefined : changed + added
}

/**
 * Appends, in order, the live facts the index lacks; returns how many. Undefined when one would
 * come before a fact the index holds (appending would put it out of order: the ranking uses the
 * order) or `mayAppend` refuses one.
 */
function appendMissing(
  index: FactIndex,
  facts: Iterable<FactRecord>,
  mayAppend: (fact: FactRecord) => boolean = () => true,
): number | undefined {
  let added = 0
  for (const fact of facts) {
    if (index.has(fact.id)) {
      if (added > 0) return undefined
      continue
    }
    if (!mayAppend(fact)) return undefined
    index.add(fact)
    added++
  }
  return added
}

function liveFacts(facts: readonly FactRecord[]): Map<string, FactRecord> {
  const live = new Map<string, FactRecord>()
  for (const fact of facts) if (isLive(fact)) live.set(fact.id, fact)
  return live
}

/**
 * A new index over every fact segment in `current`, read one after the other and let go of:
 * only the index and, per fact, its segment and digest (typed arrays) are kept, not the records
 * nor a map by id, so that saving it after an import costs the index alone.
 */
export function buildIndex(
  FactIndex: FactIndexType,
  current: readonly SavedSegment[],
  read: (segment: string) => {records: readonly FactRecord[]; key: string},
): {index: FactIndex; source: IndexSource} {
  const index = new FactIndex()
  const segments: SavedSegment[] = []
  let segmentOf = new Uint32Array(1024)
  let digests = new Uint32Array(2048)
  for (const {name} of current) {
    const r = read(name)
    const at = segments.push({name, key: r.key}) - 1
    for (const fact of r.records) {
      if (!isLive(fact)) continue
      index.add(fact)
      const slot = index.slot(fact.id)!
      if (slot >= segmentOf.length) {
        const grown = new Uint32Array(Math.max(2 * segmentOf.length, slot + 1))
        grown.set(segmentOf)
        segmentOf = grown
        const grownDigests = new Uint32Array(2 * grown.length)
        grownDigests.set(digests)
        digests = grownDigests
      }
      const [a, b] = factDigest(fact)
      segmentOf[slot] = at
      digests[2 * slot] = a
      digests[2 * slot + 1] = b
    }
  }
  return {
    index,
    source: {
      segments,
      locate(id) {
        const slot = index.slot(id)
        return slot === undefined
          ? undefined
          : {segment: segments[segmentOf[slot]!]!.name, digest: [digests[2 * slot]!, digests[2 * slot + 1]!]}
      },
    },
  }
}
