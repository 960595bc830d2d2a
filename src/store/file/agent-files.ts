import {MemError} from '../../errors.js'
import type {FactIndex} from '../../search/fact-index.js'
import {DuplicateIndex} from '../duplicates.js'
import {type CheckpointRecord, type FactRecord, isLive} from '../records.js'
import type {FactChanges} from '../store.js'
import {CachedSegments, type Change} from './cached-segments.js'
import {fileChanges, idsIn} from './change-feed.js'
import {CHECKPOINT_SEGMENT, FACT_SEGMENT} from './collections.js'
import {forgetIdentity} from './durable-file.js'
import type {HeldDigests} from './duplicate-digests.js'
import {forgetJournal} from './journal.js'
import {HeldRevision, type Revision} from './revision.js'
import {reindex} from './saved-index.js'
import type {ReadSegment, SearchView} from './search-view.js'
import type {SegmentIds} from './segment-ids.js'
import {SegmentedFiles} from './segments.js'

export type Collection = 'facts' | 'checkpoints'

/**
 * What a warm agent costs in memory whatever it holds: the search index's first arrays (about
 * 50 KiB of typed arrays), the id map, the cached segments and their bookkeeping. Measured with
 * one fact per agent: 69 KiB of heap and array buffers, 87 KiB of resident memory per agent.
 */
const AGENT_COST_BYTES = 80 * 1024
/** Each fact held with its index entry and id map entry: measured 1.0 to 1.2 KB (heap and array buffers) from 10,000 to 50,000 facts. */
const WARM_FACT_BYTES = 1300
/** A record held as an object without index, as a multiple of its serialized size. */
const RECORD_BYTES_PER_SERIALIZED = 3

/**
 * What an operation needs brought up to date before it runs: every segment of a collection,
 * or only its last one (appending needs nothing else, so `mem add` reads one small file);
 * `marked`: the fact segments it marks facts in, read with the last one.
 */
export type Needs = {[C in Collection]?: 'all' | 'last'} & {marked?: readonly string[]}

/**
 * One agent's folder as this process last saw it. The id map and the search index are views
 * derived from the cached segments, built on first use only (a process that only adds never
 * builds them) and then kept in step with every change the cache reports. The state that the
 * search paths (agent-search.ts), the duplicate guard (duplicate-guard.ts) and the import
 * (import-batch.ts) keep between operations is held here too, and set by them.
 */
export class AgentFiles {
  readonly facts: CachedSegments<FactRecord>
  readonly checkpoints: CachedSegments<CheckpointRecord>
  private ids?: Map<string, {fact: FactRecord; segment: string}>
  index?: FactIndex
  private duplicates?: DuplicateIndex
  /** The saved index could not serve a search (damaged records, say): save it again once built. */
  resave = false
  /**
   * What a long-running process searches by until an operation needs every record (see
   * leanSearch, agent-search.ts); dropped once the id map is built, since the full views then
   * follow every change.
   */
  view?: SearchView
  /** The duplicate guard's digests of the segments, kept by a long-running process that adds without holding every fact. */
  digests?: HeldDigests
  /** Which ids each fact segment holds, for an import into an agent whose records this process does not hold. */
  segmentIds?: SegmentIds
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

  /**
   * Keeps the derived views in step with segments that changed. mem never changes a fact's
   * content under its id, but a hand edit or a restored backup may: a live fact whose indexed
   * fields differ from the record it replaces is indexed again.
   */
  follow(changes: Change<FactRecord>[]): void {
    const {ids, index, duplicates} = this
    if (!ids && !index && !duplicates) return
    for (const {name, before, after} of changes) {
      // Records this process kept as they were (the head of a segment it appended to) are the
      // same objects before and after, and already in both views: skipping them keeps an
      // append from re-keying a thousand entries of a 100,000-entry map.
      let same = 0
      while (same < before.length && same < after.length && before[same] === after[same]) same++
      if (same === before.length && same === after.length) continue
      const liveAfter = new Set(after.filter(isLive).map((f) => f.id))
      const was = index ? new Map(before.slice(same).map((f) => [f.id, f])) : undefined
      for (let i = same; i < before.length; i++) {
        const fact = before[i]!
        if (index && isLive(fact) && !liveAfter.has(fact.id)) index.remove(fact.id)
        if (ids?.get(fact.id)?.segment === name) ids.delete(fact.id)
        duplicates?.remove(fact)
      }
      for (let i = same; i < after.length; i++) {
        const fact = after[i]!
        ids?.set(fact.id, {fact, segment: name})
        duplicates?.add(fact)
        if (index && isLive(fact)) {
          if (!index.has(fact.id)) index.add(fact)
          else if (readsDifferently(was!.get(fact.id), fact)) reindex(index, fact)
        }
      }
    }
  }

  /**
   * An estimate of the memory this agent holds, calibrated by measurement (see the constants;
   * `npm run bench` reports a server's resident memory across 5,000 and 50,000 agents).
   */
  cost(): number {
    const records = (this.facts.bytes() + this.checkpoints.bytes()) * RECORD_BYTES_PER_SERIALIZED
    const indexed = this.index || this.ids ? this.facts.count() * WARM_FACT_BYTES : 0
    // The duplicate index holds a normalised copy of each live fact's content.
    const contents = this.duplicates ? this.facts.bytes() : 0
    return AGENT_COST_BYTES + records + indexed + contents + (this.view?.cost() ?? 0)
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
   * The segments that hold `ids` as live facts, by the search view, for a process that does not
   * hold every fact; undefined when the view cannot tell (no view yet, a fact it does not index).
   */
  liveSegmentsOf(ids: readonly string[]): Map<string, string> | undefined {
    if (this.holdsAll() || !this.view) return undefined
    const out = new Map<string, string>()
    for (const id of ids) {
      const segment = this.view.segmentOf(id)
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
  changesSince(cursor: string | undefined): FactChanges {
    const revision = this.stamp.read()
    this.revision = revision
    const gone: Change<FactRecord>[] = []
    const segments = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    const changes = fileChanges({segments, read: (name) => this.peekFacts(name, revision)}, cursor)
    this.facts.verifySeen(revision, this.noteMigrated('facts'))
    this.checkpoints.verifyRest(revision, this.noteMigrated('checkpoints'))
    return changes
  }

  /**
   * The facts of `ids`, from the segments whose bytes may hold them (see idsIn): each record
   * read alone where the file is in the shape mem writes and did not move meanwhile (as a cold
   * search reads its hits), else the segment read whole without being kept unless held already;
   * every segment checked sound as for any other read.
   */
  someFacts(ids: readonly string[]): Map<string, FactRecord> {
    const revision = this.stamp.read()
    this.revision = revision
    const gone: Change<FactRecord>[] = []
    const segments = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    const identities = this.facts.seenIdentities()
    const wanted = new Set(ids)
    const found = new Map<string, FactRecord>()
    const files = this.facts.files
    for (const {name} of segments) {
      const missing = [...wanted].filter((id) => !found.has(id))
      if (missing.length === 0) break
      const held = this.facts.holds(name)
      const here = held ? missing : idsIn([files.path(name), files.journalPath(name)], missing)
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

  /** True once the full views (id map, search index, duplicate index) are built: they then follow every change. */
  holdsAll(): boolean {
    return this.ids !== undefined || this.index !== undefined || this.duplicates !== undefined
  }

  /** Live standalone facts by normalised content; the facts must have been refreshed with `all`. */
  duplicateIndex(): DuplicateIndex {
    if (!this.duplicates) {
      if (!this.facts.complete())
        throw new MemError('internal', 'the facts were not all read before building the duplicate index')
      this.duplicates = new DuplicateIndex(this.facts.records())
      this.view = undefined
    }
    return this.duplicates
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
      // The full views follow every change from here: the lean one would only cost memory.
      this.view = undefined
    }
    return this.ids
  }
}

/** What the search index reads of a fact differs between two records of it (an unknown earlier one always does). */
function readsDifferently(before: FactRecord | undefined, after: FactRecord): boolean {
  return (
    before === undefined ||
    (before !== after &&
      (before.content !== after.content ||
        before.created_at !== after.created_at ||
        before.thread !== after.thread ||
        before.tags.length !== after.tags.length ||
        before.tags.some((tag, i) => tag !== after.tags[i])))
  )
}
