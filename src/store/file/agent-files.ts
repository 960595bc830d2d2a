import {MemError} from '../../errors.js'
import type {FeedAnswer} from '../../index/indexed-store.js'
import {type CheckpointRecord, type FactRecord, isLive} from '../records.js'
import {CachedSegments, type Change} from './cached-segments.js'
import {fileChanges, idsIn, sameSegments, segmentsOf} from './change-feed.js'
import {CHECKPOINT_SEGMENT, FACT_SEGMENT} from './collections.js'
import {forgetIdentity} from './durable-file.js'
import type {HeldDigests} from './duplicate-digests.js'
import {forgetJournal} from './journal.js'
import {HeldRevision, type Revision} from './revision.js'
import type {SegmentIds} from './segment-ids.js'
import {SegmentedFiles} from './segments.js'

export type Collection = 'facts' | 'checkpoints'

/** A fact segment as it is now: its records and the key they were read under; `held` when the store keeps them anyway. */
export interface ReadSegment {
  records: readonly FactRecord[]
  key: string
  held: boolean
}

/**
 * What a warm agent costs in memory whatever it holds: the id map, the cached segments and their
 * bookkeeping (its search index is the search layer's, which counts its own).
 */
const AGENT_COST_BYTES = 16 * 1024
/** Each fact held with its id map entry. */
const WARM_FACT_BYTES = 300
/** A record held as an object without index, as a multiple of its serialized size. */
const RECORD_BYTES_PER_SERIALIZED = 3

/**
 * What an operation needs brought up to date before it runs: every segment of a collection,
 * or only its last one (appending needs nothing else, so `mem add` reads one small file);
 * `marked`: the fact segments it marks facts in, read with the last one.
 */
export type Needs = {[C in Collection]?: 'all' | 'last'} & {marked?: readonly string[]}

/**
 * One agent's folder as this process last saw it. The id map is a view derived from the cached
 * segments, built on first use only (a process that only adds or searches never builds it) and
 * then kept in step with every change the cache reports. The state that the
 * duplicate guard (duplicate-guard.ts) and the import (import-batch.ts) keep between operations
 * is held here too, and set by them. Its search index is the search layer's (src/index/), which
 * reads the agent through the change feed.
 */
export class AgentFiles {
  readonly facts: CachedSegments<FactRecord>
  readonly checkpoints: CachedSegments<CheckpointRecord>
  private ids?: Map<string, {fact: FactRecord; segment: string}>
  /** The change feed's last answer here: where it placed each fact, for finding one without every record. */
  private cursor?: string
  /** The duplicate guard's digests of the segments, kept by a long-running process that adds without holding every fact. */
  digests?: HeldDigests
  /** Which ids each fact segment holds, for an import into an agent whose records this process does not hold. */
  segmentIds?: SegmentIds
  /** The duplicate digests of the segments an import wrote, by the identity they were written with, saved once it is done. */
  importDigests?: Map<string, {identity: string; hashes: string[]}>
  /** The last segment's content hashes, kept while the segment only grows. */
  lastHashes?: {name: string; records: readonly FactRecord[]; hashes: string[]}

  /** The revision stamp, read again only when its file moved (see HeldRevision). */
  readonly stamp: HeldRevision

  constructor(readonly dir: string) {
    this.stamp = new HeldRevision(dir)
    this.facts = new CachedSegments(new SegmentedFiles(dir, FACT_SEGMENT))
    this.checkpoints = new CachedSegments(new SegmentedFiles(dir, CHECKPOINT_SEGMENT))
  }

  /** Segments read in an older format, by any path; the next locked write upgrades them on disk. */
  readonly outdated = new Set<string>()

  readonly noteMigrated = (collection: Collection) => (name: string) => this.outdated.add(`${collection}/${name}`)

  /** The revision stamp the last refresh went by, for segments read later in the same operation. */
  revision?: Revision

  refresh(revision: Revision | undefined, needs: Needs): void {
    this.revision = revision
    const migrated = this.noteMigrated
    // Each collection is listed once and each of its segments stat'ed once: the last one read if
    // it moved, the others checked sound (verifyRest), or all read when the operation needs them.
    if (needs.facts === 'all') this.follow(this.facts.refresh(revision, migrated('facts')))
    else
      this.follow(
        this.facts.verifyRest(revision, migrated('facts'), {last: needs.facts === 'last', also: needs.marked}),
      )
    if (needs.checkpoints === 'all') this.checkpoints.refresh(revision, migrated('checkpoints'))
    else this.checkpoints.verifyRest(revision, migrated('checkpoints'), {last: needs.checkpoints === 'last'})
  }

  /** The current identity of a segment named by its revision key (`facts/000001.json`). */
  identityOf(key: string): string | undefined {
    const [folder, name] = key.split('/') as [string, string]
    return (folder === this.facts.files.spec.folder ? this.facts : this.checkpoints).files.fingerprint(name)
  }

  /** Files this process decoded and found sound, for the revision stamp. */
  checked(settled = false): Record<string, string> {
    return {...this.facts.checkedIdentities(settled), ...this.checkpoints.checkedIdentities(settled)}
  }

  /** Keeps the id map in step with segments that changed. */
  follow(changes: Change<FactRecord>[]): void {
    const {ids} = this
    if (!ids) return
    for (const {name, before, after} of changes) {
      // Records this process kept as they were (the head of a segment it appended to) are the
      // same objects before and after, and already in both views: skipping them keeps an
      // append from re-keying a thousand entries of a 100,000-entry map.
      let same = 0
      while (same < before.length && same < after.length && before[same] === after[same]) same++
      if (same === before.length && same === after.length) continue
      for (let i = same; i < before.length; i++) {
        const fact = before[i]!
        if (ids.get(fact.id)?.segment === name) ids.delete(fact.id)
      }
      for (let i = same; i < after.length; i++) {
        const fact = after[i]!
        ids.set(fact.id, {fact, segment: name})
      }
    }
  }

  /**
   * An estimate of the memory this agent holds, calibrated by measurement (see the constants;
   * `npm run bench` reports a server's resident memory across 5,000 and 50,000 agents).
   */
  cost(): number {
    const records = (this.facts.bytes() + this.checkpoints.bytes()) * RECORD_BYTES_PER_SERIALIZED
    const indexed = this.ids ? this.facts.count() * WARM_FACT_BYTES : 0
    return AGENT_COST_BYTES + records + indexed
  }

  /** Dropped from the cache: the identities remembered for its files go too, so nothing of it stays. */
  forget(): void {
    for (const cache of [this.facts, this.checkpoints] as CachedSegments<unknown>[])
      for (const seg of cache.all()) {
        forgetIdentity(cache.files.path(seg.name))
        forgetJournal(cache.files.journalPath(seg.name))
      }
  }

  /**
   * The segment that held each of `ids` when the change feed last answered here, for a process
   * that does not hold every fact; undefined when it cannot tell (no answer yet, an id in no
   * segment's range then). A guess the caller checks against the segment as it reads it.
   */
  liveSegmentsOf(ids: readonly string[]): Map<string, string> | undefined {
    const placed = this.holdsAll() || this.cursor === undefined ? undefined : segmentsOf(this.cursor)
    if (!placed) return undefined
    const out = new Map<string, string>()
    for (const id of ids) {
      const segment = placed(id)[0]
      if (segment === undefined) return undefined
      out.set(id, segment)
    }
    return out
  }

  /** The record of `id` as its segment holds it now, read without being kept unless it is held already. */
  peekFact(segment: string, id: string): FactRecord | undefined {
    return this.peekFacts(segment).records.find((f) => f.id === id)
  }

  /** The record of `id` in a segment this process holds. */
  heldFact(segment: string, id: string): FactRecord | undefined {
    return this.facts.get(segment)?.records.find((f) => f.id === id)
  }

  /**
   * Every fact segment's records, one segment at a time, each read without being kept unless it
   * is held already (see Store.eachFact); the checkpoints are checked sound as for any operation
   * that does not read them, once the last segment was given.
   */
  *factSegments(): Generator<readonly FactRecord[]> {
    const revision = this.stamp.read()
    this.revision = revision
    const gone: Change<FactRecord>[] = []
    const current = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    for (const {name} of current) yield this.peekFacts(name, revision).records
    this.checkpoints.verifyRest(revision, this.noteMigrated('checkpoints'))
  }

  /**
   * The change feed (src/store/file/change-feed.ts): the fact segments by key, those that moved since
   * the cursor read without being kept unless held already; every other segment checked sound
   * as for any operation that does not read it.
   */
  changesSince(cursor: string | undefined): FeedAnswer {
    const revision = this.stamp.read()
    this.revision = revision
    const gone: Change<FactRecord>[] = []
    const segments = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    const changes = fileChanges({segments, read: (name) => this.peekFacts(name, revision)}, cursor)
    // Read as it is given: the segments it did not read are checked once it is done, as any read's are.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const agent = this
    return {
      reset: changes.reset,
      facts: (function* () {
        yield* changes.facts
        agent.facts.verifySeen(revision, agent.noteMigrated('facts'))
        agent.checkpoints.verifyRest(revision, agent.noteMigrated('checkpoints'))
        agent.cursor = changes.cursor
      })(),
      get cursor() {
        return changes.cursor
      },
      get read() {
        return changes.read
      },
    }
  }

  /**
   * The facts of `ids`, and whether the agent moved since the feed's `cursor`: when not, each is
   * read from the segment the cursor places it in (see someFacts). An id the cursor places
   * nowhere, or whose record is not live there, says moved too: the caller catches up, which
   * tells which.
   */
  factsAt(ids: readonly string[], cursor: string): {moved: boolean; facts: FactRecord[]} {
    const revision = this.stamp.read()
    this.revision = revision
    const gone: Change<FactRecord>[] = []
    const segments = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    const placed = sameSegments(segments, cursor) ? segmentsOf(cursor) : undefined
    if (!placed) return {moved: true, facts: []}
    const found = this.readFacts(revision, segments, ids, placed)
    const facts = [...found.values()]
    return {moved: facts.length < new Set(ids).size || !facts.every(isLive), facts}
  }

  /**
   * The facts of `ids`, from the segments whose bytes may hold them (see idsIn); every segment
   * checked sound as for any other read.
   */
  someFacts(ids: readonly string[]): Map<string, FactRecord> {
    const revision = this.stamp.read()
    this.revision = revision
    const gone: Change<FactRecord>[] = []
    const segments = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    const files = this.facts.files
    return this.readFacts(revision, segments, ids, undefined, (name, missing) =>
      idsIn([files.path(name), files.journalPath(name)], missing),
    )
  }

  /**
   * The facts of `ids` among `segments` (just scanned): each record read alone where the file
   * is in the shape mem writes and did not move meanwhile (as a search reads its hits), else the
   * segment read whole without being kept unless held already. `placed` names the segments an id
   * may be in (undefined: any); `holding` narrows a segment's candidates further.
   */
  private readFacts(
    revision: Revision | undefined,
    segments: readonly {name: string}[],
    ids: readonly string[],
    placed: ((id: string) => string[]) | undefined,
    holding: (name: string, missing: string[]) => string[] = (_, missing) => missing,
  ): Map<string, FactRecord> {
    const identities = this.facts.seenIdentities()
    const wanted = new Set(ids)
    const found = new Map<string, FactRecord>()
    const candidates = new Map<string, Set<string>>()
    if (placed)
      for (const id of wanted)
        for (const name of placed(id)) candidates.set(name, (candidates.get(name) ?? new Set()).add(id))
    const anywhere = placed === undefined
    for (const {name} of segments) {
      const missing = [...wanted].filter((id) => !found.has(id) && (anywhere || candidates.get(name)?.has(id) === true))
      if (missing.length === 0) continue
      const held = this.facts.holds(name)
      const here = held ? missing : holding(name, missing)
      if (here.length === 0) continue
      const identity = identities.get(name)
      const alone =
        held || identity === undefined ? undefined : here.map((id) => this.facts.withValue(name, identity, 'id', id))
      if (alone?.every((r, i) => r !== undefined && r.length <= 1 && (r[0] === undefined || r[0].id === here[i]))) {
        for (const r of alone) if (r?.[0]) found.set(r[0].id, r[0])
        continue
      }
      for (const fact of this.peekFacts(name, revision).records) if (wanted.has(fact.id)) found.set(fact.id, fact)
    }
    this.facts.verifySeen(revision, this.noteMigrated('facts'))
    this.checkpoints.verifyRest(revision, this.noteMigrated('checkpoints'))
    return found
  }

  /** Lets go of segments read for one operation only (all but the last, which adds need). */
  release(names: Iterable<string>): void {
    const last = this.facts.last()?.name
    for (const name of names) {
      if (name === last || !this.facts.holds(name)) continue
      this.facts.release(name)
      forgetIdentity(this.facts.files.path(name))
      forgetJournal(this.facts.files.journalPath(name))
    }
  }

  /** True once the id map is built: it then follows every change. */
  holdsAll(): boolean {
    return this.ids !== undefined
  }

  /** A fact segment as it is now, without keeping it unless it is held already (the last one). */
  peekFacts(name: string, revision = this.revision): ReadSegment {
    const changes: Change<FactRecord>[] = []
    const r = this.facts.peek(revision, name, changes, this.noteMigrated('facts'))
    this.follow(changes)
    return r ?? {records: [], key: '', held: false}
  }

  /** One fact segment, read (and checked) if this process does not hold it as it is now, and held. */
  factsOf(name: string): FactRecord[] {
    this.follow(this.facts.refreshSome(this.revision, [name], this.noteMigrated('facts')))
    return this.facts.get(name)?.records ?? []
  }

  /** Every fact by id; the facts must have been refreshed with `all`. */
  byId(): Map<string, {fact: FactRecord; segment: string}> {
    if (!this.ids) {
      if (!this.facts.complete())
        throw new MemError('internal', 'the facts were not all read before building the id map')
      const ids = new Map<string, {fact: FactRecord; segment: string}>()
      for (const seg of this.facts.all()) for (const fact of seg.records) ids.set(fact.id, {fact, segment: seg.name})
      this.ids = ids
    }
    return this.ids
  }
}
