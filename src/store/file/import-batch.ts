import {MemError} from '../../errors.js'
import {isLive, type FactRecord} from '../records.js'
import {newById} from '../record-rules.js'
import {PartialImport, type ImportBatch, type ImportResult} from '../store.js'
import type {AgentCache} from './agent-cache.js'
import type {AgentFiles} from './agent-files.js'
import {saveDuplicateDigests} from './duplicate-guard.js'
import type {CachedSegments, Change} from './cached-segments.js'
import {readDigests, saveDigests, segmentHashes, type Digests} from './duplicate-digests.js'
import {holdsEveryFact} from './mode.js'
import {SegmentIds} from './segment-ids.js'
import type {Segment} from './segments.js'
import {writeLocked, type Transaction} from './transaction.js'

/**
 * The import path (Store.importRecords): records written in packed segments under one lock, ids
 * checked by the id map of a process that holds every fact or else by segment ids alone, and the
 * duplicate digests saved once the last batch is in (the search index is the search layer's,
 * brought up to date and saved by the store then too).
 */

/**
 * Every fact id with its segment, for an import that must know which ids the agent has
 * without holding its records: kept by segment key (src/store/file/segment-ids.ts), the segments
 * that moved since read without being kept. Under the lock, after the write's refresh.
 */
export function leanIds(a: AgentFiles): SegmentIds {
  const held = (a.segmentIds ??= new SegmentIds())
  const gone: Change<FactRecord>[] = []
  const current = a.facts.scanKeys(a.revision, gone)
  a.follow(gone)
  held.update(current, (name) => a.peekFacts(name))
  return held
}

/**
 * After one write of an import: the ids of the segments it wrote are noted under the keys
 * they were stamped with, and their duplicate digests taken while their records are at hand,
 * and every segment but the last is let go of, so that an import holds one batch of records at
 * a time instead of the agent's every record.
 */
export function settleImport(a: AgentFiles): void {
  const held = a.segmentIds
  if (!held) return
  const keys = a.facts.keys()
  const digests = (a.importDigests ??= new Map())
  // Not the last segment: the next batch appends to it, and the digests never hold the last.
  const last = a.facts.last()?.name
  const names = a.facts.all().map((seg) => {
    held.set(seg.name, keys[seg.name] ?? '', seg.records)
    const identity = seg.name === last ? undefined : a.facts.files.fingerprint(seg.name)
    if (identity !== undefined && digests.get(seg.name)?.identity !== identity)
      digests.set(seg.name, {identity, hashes: segmentHashes(seg.records)})
    return seg.name
  })
  a.release(names)
}

/**
 * Saves the duplicate guard's digests after an import, so that the first add after it reads
 * one segment: of every segment but the last, from the records held (a process that holds every
 * fact), else those the import took as it wrote, the saved digests of segments that did not
 * move, and the others read one at a time, none kept. Derived data: a failure costs that add a
 * read, and the import has succeeded.
 */
export function saveImportDigests(agents: AgentCache, agent: string): void {
  try {
    if (holdsEveryFact(agents.get(agent))) {
      saveDuplicateDigests(agents.read(agent, {facts: 'all'}))
      return
    }
    const a = agents.get(agent)
    const written = a.importDigests
    // The import is over: its ids are read again, by key, should another import follow.
    a.segmentIds = undefined
    a.importDigests = undefined
    const revision = a.stamp.read()
    a.revision = revision
    const gone: Change<FactRecord>[] = []
    a.facts.scanKeys(revision, gone)
    a.follow(gone)
    const saved = readDigests(a.dir)
    const identities = a.facts.seenIdentities()
    const last = [...identities.keys()].at(-1)
    const kept: Digests = {segments: {}}
    for (const [name, identity] of identities) {
      if (name === last) continue
      const known = [written?.get(name), saved?.segments[name]].find((d) => d?.identity === identity)
      kept.segments[name] = {identity, hashes: known?.hashes ?? segmentHashes(a.peekFacts(name, revision).records)}
    }
    saveDigests(a.dir, kept)
  } catch {
    // The next add reads what it needs.
  }
}

export function writeImport(
  agents: AgentCache,
  agent: string,
  batch: ImportBatch,
  lean: boolean,
): Promise<ImportResult> {
  return writeLocked(agents, agent, {facts: lean ? 'last' : 'all', checkpoints: 'all'}, (tx, a) => {
    const knownCheckpoints = new Set([...a.checkpoints.records()].map((c) => c.id))
    const byId = lean ? undefined : a.byId()
    const known: KnownIds = byId ? {has: (id) => byId.has(id), segmentOf: (id) => byId.get(id)?.segment} : leanIds(a)
    const facts = newById(batch.facts, (id) => known.has(id))
    const checkpoints = newById(batch.checkpoints, (id) => knownCheckpoints.has(id))
    // New facts are written before old ones are marked, as in supersede: a crash in between leaves both live.
    const saved = {facts: 0, checkpoints: 0}
    try {
      appendPacked(a.facts, facts, tx, (change) => {
        saved.facts += change.after.length - change.before.length
        a.follow([change])
      })
      appendPacked(
        a.checkpoints,
        checkpoints,
        tx,
        (change) => (saved.checkpoints += change.after.length - change.before.length),
      )
      const marked = markLive(a, known, batch.marks ?? [], tx)
      return {facts: facts.map((f) => f.id), checkpoints: checkpoints.map((c) => c.id), marked}
    } catch (error) {
      throw tx.wroteAny() ? partialImport(error, saved, {facts: facts.length, checkpoints: checkpoints.length}) : error
    }
  })
}

/**
 * Appends many records with one write per segment file instead of one per record, which
 * keeps a large import linear. Called under the agent's lock; the caller stamps the revision.
 */
function appendPacked<T>(
  cache: CachedSegments<T>,
  records: T[],
  tx: Transaction,
  onChange?: (change: Change<T>) => void,
): void {
  const last = cache.last()
  let open: Segment<T> | undefined = last && {name: last.name, records: [...last.records], bytes: last.bytes}
  let before: T[] = last?.records ?? []
  let dirty = false
  const flush = (): void => {
    if (!open || !dirty) return
    const segment = cache.files.write(open.name, open.records)
    cache.remember(segment, undefined)
    tx.adopt([{cache: cache as unknown as CachedSegments<never>, segment: segment as Segment<never>}])
    onChange?.({name: open.name, before, after: open.records})
  }
  for (const record of records) {
    const bytes = JSON.stringify(record).length
    const name = cache.files.nameForAppend(open, bytes)
    if (!open || name !== open.name) {
      flush()
      open = {name, records: [], bytes: 0}
      before = []
    }
    open.records.push(record)
    open.bytes += bytes
    dirty = true
  }
  flush()
}

/** Which fact ids an agent has, and where: its id map, or the ids alone (src/store/file/segment-ids.ts). */
interface KnownIds {
  has(id: string): boolean
  segmentOf(id: string): string | undefined
}

/** Applies marks to facts that are still live, rewriting each touched segment once. */
function markLive(a: AgentFiles, known: KnownIds, marks: NonNullable<ImportBatch['marks']>, tx: Transaction): string[] {
  const bySegment = new Map<string, Map<string, Partial<FactRecord>>>()
  for (const {id, patch} of marks) {
    const segment = known.segmentOf(id)
    if (segment === undefined) continue
    const patches = bySegment.get(segment) ?? new Map<string, Partial<FactRecord>>()
    patches.set(id, patch)
    bySegment.set(segment, patches)
  }
  const marked: string[] = []
  for (const [name, asked] of bySegment) {
    // Read (and held for the write) only now: an import that does not hold every fact knows ids alone.
    const before = a.factsOf(name)
    const patches = new Map(before.filter((f) => asked.has(f.id) && isLive(f)).map((f) => [f.id, asked.get(f.id)!]))
    if (patches.size === 0) continue
    const seg = a.facts.get(name)
    if (!seg) throw new MemError('internal', `segment ${name} is indexed but not cached`)
    const records = seg.records.map((f) => (patches.has(f.id) ? {...f, ...patches.get(f.id)} : f))
    const segment = a.facts.files.write(name, records)
    a.facts.remember(segment, undefined)
    a.follow([{name, before: seg.records, after: records}])
    tx.adopt([{cache: a.facts as unknown as CachedSegments<never>, segment: segment as Segment<never>}])
    marked.push(...patches.keys())
  }
  return marked
}

function partialImport(
  error: unknown,
  saved: {facts: number; checkpoints: number},
  planned: {facts: number; checkpoints: number},
): unknown {
  if (!(error instanceof MemError) || error.code !== 'io_error') return error
  const parts = [
    `${saved.facts} of ${planned.facts} facts`,
    ...(planned.checkpoints > 0 ? [`${saved.checkpoints} of ${planned.checkpoints} checkpoints`] : []),
  ]
  return new PartialImport(
    `${error.message}; ${parts.join(' and ')} of this agent were saved before it stopped, and stay saved: running it again skips them.`,
    saved,
    error.message,
  )
}
