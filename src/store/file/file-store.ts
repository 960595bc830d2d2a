import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {MemError} from '../../errors.js'
import {DamagedIndex} from '../../search/damaged-index.js'
import type {FactIndex, SearchOptions} from '../../search/fact-index.js'
import {CachedSegments, type Change} from './cached-segments.js'
import {fileChanges, idsIn} from './change-feed.js'
import {CHECKPOINT_SEGMENT, FACT_SEGMENT} from './collections.js'
import {ChangedMeanwhile, forgetIdentity, keepCopy, makeDirDurably} from './durable-file.js'
import {FORMAT_VERSION, preMigrationPath} from './format.js'
import {forgetJournal, JOURNAL_MAX_BYTES, type JournalOp} from './journal.js'
import {idAfter, maxId} from '../ids.js'
import {mayHoldRecord} from './id-scan.js'
import {isFolderEntry} from './links.js'
import {agentDir, agentsRoot, decodeAgentDir} from './paths.js'
import {type CheckpointRecord, type FactRecord, isLive} from '../records.js'
import {
  checkpointRecord,
  contextOf,
  factRecord,
  knownFact,
  liveFact,
  newById,
  now,
  supersedingRecord,
} from '../record-rules.js'
import {bumpRevision, HeldRevision, readRevision, type Revision} from './revision.js'
import {buildIndex, openIndex, openPartial, reindex, worthSaving, type OpenedIndex} from './saved-index.js'
import {SearchView, type ReadOneFn, type ReadSegment, type ReadSegmentFn} from './search-view.js'
import {factDigest, readSaved, saveIndex, type SavedIndex, type SavedSegment} from './search-cache.js'
import {loadFactIndex, type FactIndexType} from '../search-code.js'
import {SegmentIds} from './segment-ids.js'
import {SegmentedFiles, type Segment} from './segments.js'
import {contentHash, HeldDigests, readDigests, saveDigests, segmentHashes, type Digests} from './duplicate-digests.js'
import {DuplicateIndex, guarded, normalizedContent} from '../duplicates.js'
import {
  PartialImport,
  type AddedFact,
  type AddOptions,
  type FactChanges,
  type ImportBatch,
  type ImportOptions,
  type ImportResult,
  type NewCheckpoint,
  type NewFact,
  type RecordKind,
  type ScoredFact,
  type SearchQuery,
  type Store,
} from '../store.js'

type Collection = 'facts' | 'checkpoints'

/**
 * How much memory a long-running process spends on the agents it keeps warm, as estimated by
 * {@link AgentFiles.cost}. One server can serve many agents; past this budget the least
 * recently used agents are dropped and read again (from the saved index) when next used. The
 * agent in use is never dropped.
 */
const CACHE_BUDGET_BYTES = 64 * 1024 * 1024

/**
 * What a warm agent costs in memory whatever it holds: the search index's first arrays (about
 * 50 KiB of typed arrays), the id map, the cached segments and their bookkeeping. Measured with
 * one fact per agent: 69 KiB of heap and array buffers, 87 KiB of resident memory per agent.
 */
const AGENT_COST_BYTES = 80 * 1024
/** Segments an import may have moved for its saved index to be brought up to date rather than built anew. */
const PARTIAL_SAVE_SEGMENTS = 16
/** Each fact held with its index entry and id map entry: measured 1.0 to 1.2 KB (heap and array buffers) from 10,000 to 50,000 facts. */
const WARM_FACT_BYTES = 1300
/** A record held as an object without index, as a multiple of its serialized size. */
const RECORD_BYTES_PER_SERIALIZED = 3

/**
 * What an operation needs brought up to date before it runs: every segment of a collection,
 * or only its last one (appending needs nothing else, so `mem add` reads one small file);
 * `marked`: the fact segments it marks facts in, read with the last one.
 */
type Needs = {[C in Collection]?: 'all' | 'last'} & {marked?: readonly string[]}

/**
 * One agent's folder as this process last saw it. The id map and the search index are views
 * derived from the cached segments, built on first use only (a process that only adds never
 * builds them) and then kept in step with every change the cache reports.
 */
class AgentFiles {
  readonly facts: CachedSegments<FactRecord>
  readonly checkpoints: CachedSegments<CheckpointRecord>
  private ids?: Map<string, {fact: FactRecord; segment: string}>
  private index?: FactIndex
  private duplicates?: DuplicateIndex
  /** The saved index could not serve a search (damaged records, say): save it again once built. */
  private resave = false
  /**
   * What a long-running process searches by until an operation needs every record (see
   * {@link leanSearch}); dropped once the id map is built, since the full views then follow every change.
   */
  private view?: SearchView
  /** The duplicate guard's digests of the segments, kept by a long-running process that adds without holding every fact. */
  private digests?: HeldDigests
  /** Which ids each fact segment holds, for an import into an agent whose records this process does not hold. */
  private segmentIds?: SegmentIds
  /** The last segment's content hashes, kept while the segment only grows. */
  private lastHashes?: {name: string; records: readonly FactRecord[]; hashes: string[]}

  /** The revision stamp, read again only when its file moved (see HeldRevision). */
  readonly stamp: HeldRevision

  constructor(readonly dir: string) {
    this.stamp = new HeldRevision(dir)
    this.facts = new CachedSegments(new SegmentedFiles(dir, FACT_SEGMENT))
    this.checkpoints = new CachedSegments(new SegmentedFiles(dir, CHECKPOINT_SEGMENT))
  }

  /** Segments read in an older format, by any path; the next locked write upgrades them on disk. */
  readonly outdated = new Set<string>()

  private readonly noteMigrated = (collection: Collection) => (name: string) =>
    this.outdated.add(`${collection}/${name}`)

  /** The revision stamp the last refresh went by, for segments read later in the same operation. */
  private revision?: Revision

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
   * Every fact id with its segment, for an import that must know which ids the agent has
   * without holding its records: kept by segment key (src/store/file/segment-ids.ts), the segments
   * that moved since read without being kept. Under the lock, after the write's refresh.
   */
  leanIds(): SegmentIds {
    const held = (this.segmentIds ??= new SegmentIds())
    const gone: Change<FactRecord>[] = []
    const current = this.facts.scanKeys(this.revision, gone)
    this.follow(gone)
    held.update(current, (name) => this.peekFacts(name))
    return held
  }

  /**
   * After one write of an import: the ids of the segments it wrote are noted under the keys
   * they were stamped with, and every segment but the last is let go of, so that an import
   * holds one batch of records at a time instead of the agent's every record.
   */
  settleImport(): void {
    const held = this.segmentIds
    if (!held) return
    const keys = this.facts.keys()
    const names = this.facts.all().map((seg) => {
      held.set(seg.name, keys[seg.name] ?? '', seg.records)
      return seg.name
    })
    this.release(names)
  }

  /**
   * Saves the search index and the duplicate guard's digests after an import, reading the fact
   * segments one at a time instead of holding them all: the saved index brought up to date by
   * the few segments whose key moved, else a new one built segment by segment (see buildIndex);
   * the digests of every segment but the last from the segments so read, the saved digests of
   * segments that did not move, or the segment read again. What this process searches by
   * (its view, if any) is left as it is: it is brought up to date by key before each search.
   */
  saveDerivedLean(FactIndex: FactIndexType): void {
    // The import is over: its ids are read again, by key, should another import follow.
    this.segmentIds = undefined
    const revision = this.stamp.read()
    this.revision = revision
    const hashes = new Map<string, string[]>()
    const read = (name: string): ReadSegment => {
      const r = this.peekFacts(name, revision)
      hashes.set(name, segmentHashes(r.records))
      return r
    }
    const gone: Change<FactRecord>[] = []
    const current = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    const savedIndex = readSaved(this.dir, {lazy: true})
    try {
      const savedKeys = new Map(savedIndex?.segments.map((s) => [s.name, s.key]))
      // Bringing the saved index up to date holds the moved segments' facts: only for a few.
      const moved = current.filter((s) => savedKeys.get(s.name) !== s.key).length
      const opened =
        savedIndex && moved <= PARTIAL_SAVE_SEGMENTS
          ? openPartial(FactIndex, savedIndex, current, (name) => read(name).records)
          : undefined
      const built = opened ?? buildIndex(FactIndex, current, read)
      saveIndex(this.dir, built.index, built.source)
    } finally {
      savedIndex?.close()
    }
    const saved = readDigests(this.dir)
    const identities = this.facts.seenIdentities()
    const last = [...identities.keys()].at(-1)
    const kept: Digests = {segments: {}}
    for (const [name, identity] of identities) {
      if (name === last) continue
      const same = saved?.segments[name]?.identity === identity ? saved.segments[name]!.hashes : undefined
      kept.segments[name] = {identity, hashes: hashes.get(name) ?? same ?? segmentHashes(this.peekFacts(name).records)}
    }
    saveDigests(this.dir, kept)
  }

  /**
   * Every fact, segment by segment, each read without being kept unless it is held already
   * (see Store.eachFact); the checkpoints are checked sound as for any operation that does not read them.
   */
  eachFact(each: (fact: FactRecord) => void): void {
    const revision = this.stamp.read()
    this.revision = revision
    const gone: Change<FactRecord>[] = []
    const current = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    for (const {name} of current) for (const fact of this.peekFacts(name, revision).records) each(fact)
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

  /**
   * The live standalone fact that already says `content`, for a process that read only the last
   * segment (the CLI): every other segment is vouched for by its saved digest while its identity
   * holds (src/store/file/duplicate-digests.ts), or read and hashed again; a hash that hits is
   * confirmed against the segment itself. So a cold `mem add` reads one segment, as without the guard.
   */
  coldDuplicate(content: string): FactRecord | undefined {
    const wanted = contentHash(content)
    const saved = readDigests(this.dir)
    const identities = new Map(
      this.facts.files.names().flatMap((name) => {
        const identity = this.facts.files.fingerprint(name)
        return identity === undefined ? [] : [[name, identity] as const]
      }),
    )
    const last = [...identities.keys()].at(-1)
    const vouched = (name: string) => name !== last && saved?.segments[name]?.identity === identities.get(name)
    const unvouched = [...identities.keys()].filter((name) => !vouched(name))
    // Read all at once (the last one is held already), then hashed and, on a hit, confirmed.
    this.follow(this.facts.refreshSome(this.revision, unvouched, this.noteMigrated('facts')))
    const kept: Digests = {segments: {}}
    let found: FactRecord | undefined
    const recordsOf = (name: string) => this.facts.get(name)?.records ?? []
    for (const [name, identity] of identities) {
      const hashes = vouched(name) ? saved!.segments[name]!.hashes : segmentHashes(recordsOf(name))
      if (name !== last) kept.segments[name] = {identity, hashes}
      // The first stored wins; the segments after it are still hashed, so the digests come out whole.
      if (!found && hashes.includes(wanted)) {
        // A vouched segment is read only now, to confirm the hit.
        if (vouched(name)) this.follow(this.facts.refreshSome(this.revision, [name], this.noteMigrated('facts')))
        found = firstDuplicate(recordsOf(name), hashes, wanted, content)
      }
    }
    const moved = unvouched.some((name) => name !== last)
    if (moved || Object.keys(saved?.segments ?? {}).length > Object.keys(kept.segments).length)
      saveDigests(this.dir, kept)
    return found
  }

  /**
   * The duplicate guard of a long-running process that does not hold every fact: as
   * {@link coldDuplicate}, with the digests kept in memory, so that an add costs a comparison of
   * each segment's identity (stat'ed by this operation's refresh, under the lock) with the one its
   * hashes were taken of, and one set lookup per segment. A segment whose identity moved (another
   * process's mark, a hand edit, a restore) is read without being kept and hashed again. A hash
   * that hits is confirmed against the fact itself, from the search view's compact copy when that
   * copy is of the file as it is, else from the record holding the very same sentence, read alone.
   */
  warmDuplicate(content: string): FactRecord | undefined {
    const wanted = contentHash(content)
    const held = (this.digests ??= new HeldDigests(readDigests(this.dir) ?? {segments: {}}))
    const identities = this.facts.seenIdentities()
    let last: string | undefined
    for (const name of identities.keys()) last = name
    let moved = false
    const peeked = new Map<string, readonly FactRecord[]>()
    for (const [name, identity] of identities) {
      if (name === last || held.get(name)?.identity === identity) continue
      const records = this.peekFacts(name).records
      peeked.set(name, records)
      held.set(name, {identity, hashes: segmentHashes(records)})
      moved = true
    }
    for (const name of held.names())
      if (name === last || !identities.has(name)) {
        held.delete(name)
        moved = true
      }
    if (moved) saveDigests(this.dir, held.digests)
    // The first stored wins: the older segments in order, then the last one.
    for (const name of held.holding(wanted)) {
      const found = this.confirmDuplicate(
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
    const hashes = this.hashesOfLast(last)
    return hashes.includes(wanted)
      ? firstDuplicate(this.facts.get(last)?.records ?? [], hashes, wanted, content)
      : undefined
  }

  /** A hash hit in a segment other than the last, confirmed against the segment as it is now. */
  private confirmDuplicate(
    name: string,
    identity: string,
    hashes: readonly string[],
    wanted: string,
    content: string,
    records: readonly FactRecord[] | undefined,
  ): FactRecord | undefined {
    if (records) return firstDuplicate(records, hashes, wanted, content)
    const copy = this.view?.guardedFacts(name, this.facts.keyOf(this.revision, name, identity))
    if (copy && copy.count === hashes.length) {
      // Only the facts at the hash's positions are decoded, not the segment's thousand.
      const normal = normalizedContent(content)
      for (let i = 0; i < hashes.length; i++) {
        if (hashes[i] !== wanted) continue
        const fact = copy.at(i)
        if (normalizedContent(fact.content) === normal) return fact
      }
    }
    // Most often the very sentence stored before: when no other fact of the segment has its hash,
    // the record holding those bytes is the one at the hash's position, read alone.
    if (hashes.indexOf(wanted) === hashes.lastIndexOf(wanted)) {
      const normal = normalizedContent(content)
      const alone = this.facts.withValue(name, identity, 'content', content)
      const fact = alone?.find((f) => guarded(f) && normalizedContent(f.content) === normal)
      if (fact) return fact
    }
    const read = this.peekFacts(name)
    this.view?.keep(name, read)
    return firstDuplicate(read.records, hashes, wanted, content)
  }

  /**
   * Saves the duplicate guard's digests of every segment but the last, from the records held
   * (the facts must have been refreshed with `all`), so that the next add reads one segment.
   */
  saveDuplicateDigests(): void {
    if (!this.facts.complete()) return
    const identities = this.facts.seenIdentities()
    const last = [...identities.keys()].at(-1)
    const kept: Digests = {segments: {}}
    for (const [name, identity] of identities)
      if (name !== last) kept.segments[name] = {identity, hashes: segmentHashes(this.facts.get(name)?.records ?? [])}
    saveDigests(this.dir, kept)
  }

  /** The hashes of the held last segment, computed only for the records appended since the last call. */
  private hashesOfLast(name: string): string[] {
    const records = this.facts.get(name)?.records ?? []
    const memo = this.lastHashes
    let hashes: string[]
    if (
      memo?.name === name &&
      memo.records.length <= records.length &&
      memo.records.every((record, i) => records[i] === record)
    )
      hashes = [...memo.hashes, ...segmentHashes(records.slice(memo.records.length))]
    else hashes = segmentHashes(records)
    this.lastHashes = {name, records, hashes}
    return hashes
  }

  /** A fact segment as it is now, without keeping it unless it is held already (the last one). */
  private peekFacts(name: string, revision = this.revision): ReadSegment {
    const changes: Change<FactRecord>[] = []
    const r = this.facts.peek(revision, name, changes, this.noteMigrated('facts'))
    this.follow(changes)
    return r ?? {records: [], key: '', held: false}
  }

  /**
   * A long-running process's search before any operation needed every record: by the view
   * (src/store/file/search-view.ts), opened from the saved index on the first search and brought up
   * to date by segment keys on every one, so that the first search costs what a cold one does
   * and no search serves a segment's text older than the file. Every other segment is checked
   * sound as for any operation that does not read it (verifySeen, as verifyRest does).
   */
  leanSearch(FactIndex: FactIndexType, text: string, options: SearchOptions): ScoredFact[] {
    for (let attempt = 0; ; attempt++) {
      const revision = this.stamp.read()
      this.revision = revision
      const read: ReadSegmentFn = (name) => this.peekFacts(name, revision)
      const one: ReadOneFn = (name, id, key) => this.facts.one(revision, name, id, key)
      const gone: Change<FactRecord>[] = []
      const current = this.facts.scanKeys(revision, gone)
      this.follow(gone)
      if (!this.view || attempt === 2) this.openView(FactIndex, current, read, attempt === 2)
      else this.view.update(current, read)
      this.facts.verifySeen(revision, this.noteMigrated('facts'))
      this.checkpoints.verifyRest(revision, this.noteMigrated('checkpoints'))
      const view = this.view!
      const hits = view.index
        .search(text, options)
        .map((hit) => ({fact: view.record(hit.id, read, one), score: hit.score, ...contextOf(hit)}))
      const found = hits.filter((hit): hit is ScoredFact => hit.fact !== undefined)
      // A hit's segment moved between the update and its reading: up to date again, and again.
      if (found.length === hits.length || attempt === 2) return found
    }
  }

  private openView(FactIndex: FactIndexType, current: SavedSegment[], read: ReadSegmentFn, anew: boolean): void {
    const saved = anew ? undefined : readSaved(this.dir)
    const opened = saved && SearchView.open(FactIndex, saved, current, read)
    if (opened) {
      this.view = opened.view
      if (this.resave || worthSaving(opened.opened)) saveIndex(this.dir, opened.view.index, opened.view.source())
    } else {
      this.view = SearchView.build(FactIndex, current, read)
      saveIndex(this.dir, this.view.index, this.view.source())
    }
    this.resave = false
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

  /** The search index over live facts; the facts must have been refreshed with `all`. */
  searchIndex(FactIndex: FactIndexType, options: {save?: boolean} = {}): FactIndex {
    if (!this.index) {
      if (!this.facts.complete())
        throw new MemError('internal', 'the facts were not all read before building the search index')
      const keys = this.facts.keys()
      const segments = this.facts.all().map((s) => ({name: s.name, key: keys[s.name] ?? '', records: s.records}))
      const opened = openIndex(FactIndex, this.dir, segments)
      if (this.resave || options.save === true || worthSaving(opened)) this.save(opened)
      this.index = opened.index
      this.view = undefined
    }
    return this.index
  }

  /**
   * A search for a process that runs one search and exits: the saved index, brought up to date
   * by reading only the fact segments that changed since it was saved, with the hits' records
   * taken from it too. The segments it does not read are checked sound as for any operation
   * that does not need them (verifyRest). Nothing is kept: the index made here does not follow
   * later changes. Undefined when the saved index cannot serve, which also has the full search
   * that follows save a fresh one.
   */
  searchSaved(
    FactIndex: FactIndexType,
    revision: Revision | undefined,
    text: string,
    options: SearchOptions,
  ): ScoredFact[] | undefined {
    const saved = readSaved(this.dir, {lazy: true})
    try {
      return this.searchFrom(FactIndex, saved, revision, text, options)
    } catch (error) {
      // Postings read during the search failed their checksum: the full search rebuilds the index.
      if (!(error instanceof DamagedIndex)) throw error
      this.resave = true
      return undefined
    } finally {
      // Nothing of the index made here is kept, so nothing more is read from its file.
      saved?.close()
    }
  }

  private searchFrom(
    FactIndex: FactIndexType,
    saved: SavedIndex | undefined,
    revision: Revision | undefined,
    text: string,
    options: SearchOptions,
  ): ScoredFact[] | undefined {
    const migrated = this.noteMigrated
    // Each segment stat'ed once, as for a server's search: the keys, then the check of the rest by them.
    const gone: Change<FactRecord>[] = []
    const current = this.facts.scanKeys(revision, gone)
    this.follow(gone)
    const keys = new Map(current.map((s) => [s.name, s.key]))
    const opened =
      saved &&
      openPartial(
        FactIndex,
        saved,
        current,
        (name) => {
          this.facts.refreshSome(revision, [name], migrated('facts'))
          return this.facts.get(name)?.records ?? []
        },
        (name, id) => this.facts.one(revision, name, id, keys.get(name) ?? ''),
      )
    if (!opened) {
      this.resave = true
      return undefined
    }
    this.facts.verifySeen(revision, migrated('facts'))
    this.checkpoints.verifyRest(revision, migrated('checkpoints'))
    const hits = opened.index
      .search(text, options)
      .map((hit) => ({fact: opened.record(hit.id), score: hit.score, ...contextOf(hit)}))
    if (!hits.every((hit): hit is ScoredFact => hit.fact !== undefined)) {
      this.resave = true
      return undefined
    }
    if (worthSaving(opened)) saveIndex(this.dir, opened.index, opened.source)
    return hits
  }

  private save(opened: OpenedIndex): void {
    const keys = this.facts.keys()
    const ids = this.byId()
    saveIndex(this.dir, opened.index, {
      segments: Object.entries(keys).map(([name, key]) => ({name, key})),
      locate(id) {
        const entry = ids.get(id)
        return entry && {segment: entry.segment, digest: factDigest(entry.fact)}
      },
    })
  }
}

/**
 * After a cold read that had to decode segments the revision stamp does not vouch for (a home
 * restored or copied whole keeps every byte but no file identity), stamps their identities, so
 * that the next cold process trusts them instead of decoding them all again. Only if the lock
 * is free and the stamp exists: a search never waits for a writer, and a stamp that cannot be
 * written costs only the next process a re-read.
 */
async function vouchChecked(a: AgentFiles, seen: Revision | undefined): Promise<void> {
  // Only a stamp that is there is added to: a reader creates nothing beside the data (a home of an
  // older format is upgraded, and stamped, by its first write).
  if (seen === undefined || a.outdated.size > 0) return
  // Not a segment with a journal: every append moves its identity, so a stamp would not outlive the next add.
  const checked = a.checked(true)
  if (Object.entries(checked).every(([key, identity]) => seen.files?.[key] === identity)) return
  try {
    const {withLockIfFree} = await import('./lock.js')
    withLockIfFree(a.dir, () => bumpRevision(a.dir, readRevision(a.dir), {}, checked, (key) => a.identityOf(key)))
  } catch {
    // Only the next process's start-up is at stake.
  }
}

/** A segment this change wrote: `appended` when only its journal grew (the revision stamp need not move). */
type Written = {cache: CachedSegments<never>; segment: Segment<never>; appended?: boolean}

/** The changes one locked write makes, applied in order and then stamped once. */
class Transaction {
  private readonly written: Written[] = []

  constructor(private readonly agent: AgentFiles) {}

  /**
   * The id for a new fact or checkpoint: after every id in the collection's last segment, so
   * "latest" is the order of writes under the lock, never the wall clock's.
   */
  nextFactId(): string {
    return idAfter(maxId(this.agent.facts.last()?.records ?? []))
  }

  nextCheckpointId(): string {
    return idAfter(maxId(this.agent.checkpoints.last()?.records ?? []))
  }

  appendFact(fact: FactRecord): void {
    this.append(this.agent.facts, fact, true)
  }

  appendCheckpoint(checkpoint: CheckpointRecord): void {
    this.append(this.agent.checkpoints, checkpoint, false)
  }

  /** `segment`: where the fact is, when the caller knows (else the id map says). */
  markFact(id: string, patch: Partial<FactRecord>, segment = this.agent.byId().get(id)?.segment): void {
    const seg = segment === undefined ? undefined : this.agent.facts.get(segment)
    if (!seg) throw new MemError('internal', `fact ${id} is indexed but its segment is gone`)
    const records = seg.records.map((f) => (f.id === id ? {...f, ...patch} : f))
    this.change(this.agent.facts, seg, records, {mark: id, set: patch}, true)
  }

  /** Segments written by other means (an import packs its own), to be stamped with the rest. */
  adopt(written: Written[]): void {
    this.written.push(...written)
  }

  /** True once any data file of this change is in place. */
  wroteAny(): boolean {
    return this.written.length > 0
  }

  /**
   * Stamps the revision once the data files are in place; nothing here can undo them. A change
   * that only appended to journals leaves the stamp as it is: each journal's growth changes its
   * segment's identity, which readers compare anyway, so one add costs one write and one flush.
   */
  commit(revision: Revision | undefined): void {
    if (this.written.length === 0) return
    const whole = this.written.filter((w) => !w.appended)
    let stamped = revision
    if (whole.length > 0) {
      // In write order, so a segment written twice ends up stamped (and remembered) as last written.
      const identities: Record<string, string | undefined> = {}
      for (const w of whole) identities[w.cache.key(w.segment.name)] = w.segment.identity
      stamped = bumpRevision(this.agent.dir, revision, identities, this.agent.checked(), (key) =>
        this.agent.identityOf(key),
      )
    }
    for (const w of this.written) w.cache.remember(w.segment, stamped)
  }

  private append<T extends {id: string}>(cache: CachedSegments<T>, record: T, isFact: boolean): void {
    const last = cache.last()
    const name = cache.files.nameForAppend(last, JSON.stringify(record).length)
    if (last && name === last.name) {
      this.change(cache, last, [...last.records, record], {add: record}, isFact)
      return
    }
    // The segment that closes is folded into its JSON file: only the open segment (and marks) ever have journals.
    if (last?.journal) this.fold(cache, last, isFact)
    this.put(cache, name, [record], isFact)
  }

  /**
   * One change to a segment: a line appended to its journal, unless the JSON file is of an older
   * format (a mem that cannot read journals must refuse it, so it is rewritten as the current one).
   * A journal that reaches its bound is then folded in; the line is appended first, so the
   * folded journal kept as `.jsonl.bak` and the file's `.bak` hold the segment as it was.
   */
  private change<T>(cache: CachedSegments<T>, seg: Segment<T>, records: T[], op: JournalOp, isFact: boolean): void {
    if (seg.version !== FORMAT_VERSION) {
      this.put(cache, seg.name, records, isFact)
      return
    }
    const appended = cache.files.append(seg.name, [op])
    const segment: Segment<T> = {
      name: seg.name,
      records,
      bytes: seg.bytes + appended.bytes,
      identity: appended.identity,
      version: seg.version,
      journal: appended.journal,
    }
    this.record(cache, segment, seg.records, isFact, true)
    if (appended.journal >= JOURNAL_MAX_BYTES) this.fold(cache, segment, isFact)
  }

  /**
   * Writes a segment's JSON file with its journal folded in. The change is in the journal
   * already, so a fold that fails (a full disk) is not a failure of it: the next write tries again.
   */
  private fold<T>(cache: CachedSegments<T>, seg: Segment<T>, isFact: boolean): void {
    try {
      this.put(cache, seg.name, seg.records, isFact)
    } catch {
      // Left with its journal, which every reader applies.
    }
  }

  private put<T>(cache: CachedSegments<T>, name: string, records: T[], isFact: boolean): void {
    const before = cache.get(name)?.records ?? []
    this.record(cache, cache.files.write(name, records), before, isFact, false)
  }

  private record<T>(cache: CachedSegments<T>, segment: Segment<T>, before: T[], isFact: boolean, appended: boolean) {
    cache.remember(segment, undefined)
    if (isFact)
      this.agent.follow([{name: segment.name, before: before as FactRecord[], after: segment.records as FactRecord[]}])
    this.written.push({cache: cache as unknown as CachedSegments<never>, segment: segment as Segment<never>, appended})
  }
}

/**
 * The embedded store: one folder per agent under `<home>/agents`, facts and checkpoints in
 * bounded segment files, every change made under the agent's inter-process lock.
 */
export class FileStore implements Store {
  private readonly agents = new Map<string, AgentFiles>()
  /** Agents an import wrote to with more batches to come: their derived files wait for the last. */
  private readonly derivedBehind = new Set<string>()

  /**
   * `shortLived`: the process runs one operation and exits (the CLI), so a search reads only
   * what it needs (the saved index and the segments that changed since) instead of every
   * segment and a whole in-memory view, which only a long-running process gets to reuse.
   */
  constructor(
    readonly home: string,
    private readonly options: {shortLived?: boolean} = {},
  ) {}

  async addFact(agent: string, fact: NewFact, options: AddOptions = {}): Promise<AddedFact> {
    // A turn of a thread is never a duplicate (people repeat themselves in a conversation). For
    // the rest, a process that holds every fact (an operation needed them all) looks the content
    // up; any other reads the last segment and trusts the digests of the others that did not
    // change, which a long-running process keeps in memory instead of every fact.
    const guard = !options.allowDuplicate && fact.thread === undefined
    const longLived = this.options.shortLived !== true
    const cold = guard && (!longLived || !this.agent(agent).holdsAll())
    return this.write(agent, {facts: guard && !cold ? 'all' : 'last'}, (tx, a) => {
      const existing = !guard
        ? undefined
        : !cold
          ? a.duplicateIndex().find(fact.content)
          : longLived
            ? a.warmDuplicate(fact.content)
            : a.coldDuplicate(fact.content)
      if (existing) return {...existing, duplicate: true as const}
      const record = factRecord(tx.nextFactId(), fact, now())
      tx.appendFact(record)
      return record
    })
  }

  async searchFacts(agent: string, query: SearchQuery): Promise<ScoredFact[]> {
    // An agent nobody wrote to has nothing to find, and a search must not leave a folder (and
    // a saved index) behind for it: a mistyped --agent would otherwise become an agent for good.
    if (!existsSync(this.agent(agent).dir)) return []
    const FactIndex = await loadFactIndex()
    const options = {
      limit: query.limit,
      tags: query.tags,
      since: query.since,
      until: query.until,
      partial: query.partial,
      explain: query.explain,
    }
    // From here on synchronous: no other operation of this process interleaves with refresh, index and search.
    if (this.options.shortLived) {
      const a = this.agent(agent)
      const revision = readRevision(a.dir)
      const hits =
        a.searchSaved(FactIndex, revision, query.text, options) ??
        this.fullSearch(agent, FactIndex, query.text, options)
      await vouchChecked(a, revision)
      return hits
    }
    if (!this.options.shortLived && !this.agent(agent).holdsAll()) {
      const a = this.agent(agent)
      return a.leanSearch(FactIndex, query.text, options)
    }
    return this.fullSearch(agent, FactIndex, query.text, options)
  }

  private fullSearch(agent: string, FactIndex: FactIndexType, text: string, options: SearchOptions): ScoredFact[] {
    const a = this.read(agent, {facts: 'all'})
    const index = a.searchIndex(FactIndex)
    const ids = a.byId()
    return index
      .search(text, options)
      .map((hit) => ({fact: ids.get(hit.id)!.fact, score: hit.score, ...contextOf(hit)}))
  }

  async getFact(agent: string, id: string): Promise<FactRecord> {
    // A live fact the search view places is read from its segment; any other from every fact.
    const segment = this.options.shortLived ? undefined : this.agent(agent).liveSegmentsOf([id])?.get(id)
    const fact = segment === undefined ? undefined : this.read(agent, {facts: 'last'}).peekFact(segment, id)
    if (fact && isLive(fact)) return fact
    return knownFact(agent, id, this.read(agent, {facts: 'all'}).byId().get(id)?.fact)
  }

  async supersede(agent: string, ids: string[], next: NewFact & {reason?: string}): Promise<FactRecord> {
    return this.markFacts(agent, ids, (tx, at) => {
      const time = now()
      const record = supersedingRecord(tx.nextFactId(), next, ids, time)
      // The new fact is written before the old ones are marked: a crash in between leaves both live, never neither.
      tx.appendFact(record)
      for (const id of ids) tx.markFact(id, {superseded_by: record.id, superseded_at: time}, at.get(id))
      return record
    })
  }

  async deleteFact(agent: string, id: string, reason?: string): Promise<FactRecord> {
    return this.markFacts(agent, [id], (tx, at, facts) => {
      const patch = {deleted_at: now(), ...(reason ? {reason} : {})}
      tx.markFact(id, patch, at.get(id))
      return {...facts[0]!, ...patch}
    })
  }

  /**
   * A change that marks live facts (`at`: the segment of each, where known without the id map).
   * A long-running process first tries it without reading every fact: the search view says
   * which segments hold them, and only those (and the last) are read, under the lock, and let go
   * of afterwards. When the view cannot tell, or the files say otherwise (a fact marked
   * meanwhile), nothing is written that way and the change reads every fact, which also gives
   * the error that says what became of one no longer live.
   */
  private async markFacts<T>(
    agent: string,
    ids: readonly string[],
    change: (tx: Transaction, at: ReadonlyMap<string, string>, facts: FactRecord[]) => T,
  ): Promise<T> {
    const at = this.options.shortLived ? undefined : this.agent(agent).liveSegmentsOf(ids)
    if (at) {
      const done = await this.markLean(agent, ids, at, change)
      if (done !== undefined) return done
    }
    return this.write(agent, {facts: 'all'}, (tx, a) =>
      change(
        tx,
        new Map(),
        ids.map((id) => liveFact(agent, id, a.byId().get(id)?.fact)),
      ),
    )
  }

  private async markLean<T>(
    agent: string,
    ids: readonly string[],
    at: ReadonlyMap<string, string>,
    change: (tx: Transaction, at: ReadonlyMap<string, string>, facts: FactRecord[]) => T,
  ): Promise<T | undefined> {
    try {
      return await this.write(agent, {facts: 'last', marked: [...new Set(at.values())]}, (tx, a) => {
        const facts = ids.map((id) => a.heldFact(at.get(id)!, id))
        if (!facts.every((f): f is FactRecord => f !== undefined && isLive(f))) return undefined
        return change(tx, at, facts)
      })
    } finally {
      this.agent(agent).release(at.values())
    }
  }

  async listFacts(agent: string): Promise<FactRecord[]> {
    return [...this.read(agent, {facts: 'all'}).facts.records()]
  }

  async eachFact(agent: string, each: (fact: FactRecord) => void): Promise<void> {
    this.agent(agent).eachFact(each)
  }

  async getFacts(agent: string, ids: readonly string[]): Promise<FactRecord[]> {
    if (ids.length === 0 || !existsSync(this.agent(agent).dir)) return []
    const a = this.agent(agent)
    // A process that holds every fact (an operation needed them all) has them by id already.
    const found = a.holdsAll() ? this.read(agent, {facts: 'all'}).byId() : undefined
    const some = found ? undefined : a.someFacts(ids)
    return [...new Set(ids)].flatMap((id) => found?.get(id)?.fact ?? some?.get(id) ?? [])
  }

  async changesSince(agent: string, cursor?: string): Promise<FactChanges> {
    // Reads only: an agent nobody wrote to has no segment, and asking makes no folder for it.
    return this.agent(agent).changesSince(cursor)
  }

  async saveCheckpoint(agent: string, checkpoint: NewCheckpoint): Promise<CheckpointRecord> {
    return this.write(agent, {checkpoints: 'last'}, (tx) => {
      const record = checkpointRecord(tx.nextCheckpointId(), checkpoint, now())
      tx.appendCheckpoint(record)
      return record
    })
  }

  async getCheckpoint(agent: string, id?: string): Promise<CheckpointRecord> {
    // All segments: an import may append a checkpoint older than those already saved.
    const a = this.read(agent, {checkpoints: 'all'})
    if (id === undefined) {
      // The largest id: ids follow the order of saves (see Transaction.nextCheckpointId), and an
      // imported checkpoint keeps the id of when it was first saved.
      let latest: CheckpointRecord | undefined
      for (const cp of a.checkpoints.records()) if (!latest || cp.id > latest.id) latest = cp
      if (!latest) throw new MemError('no_checkpoint', `No checkpoint found for agent "${agent}".`)
      return latest
    }
    for (const cp of a.checkpoints.records()) if (cp.id === id) return cp
    throw new MemError('no_checkpoint', `No checkpoint "${id}" found for agent "${agent}".`)
  }

  async listCheckpoints(agent: string): Promise<CheckpointRecord[]> {
    return [...this.read(agent, {checkpoints: 'all'}).checkpoints.records()]
  }

  /** Nothing to let go of: every file is closed when the operation that opened it ends. */
  async close(): Promise<void> {}

  async listAgents(): Promise<string[]> {
    try {
      const root = agentsRoot(this.home)
      return readdirSync(root, {withFileTypes: true})
        .filter((e) => isFolderEntry(root, e) && holdsRecords(join(root, e.name)))
        .flatMap((e) => decodeAgentDir(e.name) ?? [])
        .sort()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
  }

  async agentsHolding(kind: RecordKind, id: string): Promise<string[]> {
    const folder = kind === 'fact' ? FACT_SEGMENT.folder : CHECKPOINT_SEGMENT.folder
    const found: string[] = []
    for (const agent of await this.listAgents()) {
      if (!mayHoldRecord(join(agentDir(this.home, agent), folder), id)) continue
      // The bytes may lie (a record's text quoting one, a mark of a record the segment no
      // longer holds): only the agent's own reading says it holds the id.
      const held = kind === 'fact' ? this.getFact(agent, id) : this.getCheckpoint(agent, id)
      if (
        await held.then(
          () => true,
          () => false,
        )
      )
        found.push(agent)
    }
    return found
  }

  /**
   * The agent's cached files, most recently used last. Dropping an agent only forgets its
   * cache: an operation still holding it finishes with it, and the next one reads afresh.
   */
  private agent(agent: string): AgentFiles {
    let a = this.agents.get(agent)
    if (a) this.agents.delete(agent)
    else a = new AgentFiles(agentDir(this.home, agent))
    this.agents.set(agent, a)
    this.evict(a)
    return a
  }

  /** How many agents this process keeps warm, and their estimated cost in bytes (for tests and diagnostics). */
  cacheUse(): {agents: number; bytes: number} {
    let bytes = 0
    for (const a of this.agents.values()) bytes += a.cost()
    return {agents: this.agents.size, bytes}
  }

  private evict(keep: AgentFiles): void {
    if (this.agents.size < 2) return
    let total = 0
    for (const a of this.agents.values()) total += a.cost()
    for (const [name, a] of this.agents) {
      if (total <= CACHE_BUDGET_BYTES) break
      if (a === keep) continue
      total -= a.cost()
      this.agents.delete(name)
      a.forget()
    }
  }

  /** Reads take no lock: every file is replaced atomically, so a reader sees whole files. */
  private read(agent: string, needs: Needs): AgentFiles {
    const a = this.agent(agent)
    a.refresh(a.stamp.read(), needs)
    return a
  }

  private async write<T>(agent: string, needs: Needs, change: (tx: Transaction, a: AgentFiles) => T): Promise<T> {
    const dir = this.agent(agent).dir
    try {
      makeDirDurably(dir)
    } catch (error) {
      throw withOutcome(error, undefined)
    }
    // Loaded by the first write: the lock's native addon costs a read-only command (a cold
    // `mem search`) start-up time for nothing.
    const {withLock} = await import('./lock.js')
    return withLock(dir, () => {
      for (let attempt = 0; ; attempt++) {
        const a = this.agent(agent)
        const revision = a.stamp.read()
        const tx = new Transaction(a)
        try {
          // Every held segment is re-checked by file identity, so one replaced by a writer that died
          // before stamping the revision is read afresh, not written over from a stale copy.
          a.refresh(revision, needs)
          upgradeOutdated(a)
          const result = change(tx, a)
          tx.commit(revision)
          return result
        } catch (error) {
          // A file replaced behind the lock's back: forget everything held for the agent, read it
          // afresh and run the change again, once, if none of it is on disk yet. A long-running
          // server must never be stuck refusing every write.
          if (error instanceof ChangedMeanwhile && !tx.wroteAny() && attempt === 0) {
            this.agents.delete(agent)
            continue
          }
          throw withOutcome(error, tx)
        }
      }
    })
  }

  async importRecords(agent: string, batch: ImportBatch, options: ImportOptions = {}): Promise<ImportResult> {
    // A process that holds every fact of the agent anyway (a server that built its id map) checks
    // ids by its id map; any other keeps ids only, so an import never holds every record at once.
    const lean = !this.agent(agent).holdsAll()
    let result: ImportResult
    try {
      result = await this.writeImport(agent, batch, lean)
    } finally {
      if (lean) this.agent(agent).settleImport()
    }
    const changed = result.facts.length > 0 || result.marked.length > 0
    if (options.more) {
      if (changed) this.derivedBehind.add(agent)
    } else if (changed || this.derivedBehind.delete(agent)) await this.saveDerived(agent)
    return result
  }

  /**
   * Saves the agent's search index and duplicate digests after an import: the import read every
   * fact segment already, so the first search after it (a cold `mem search`, or a server's
   * first) loads the index instead of indexing every fact, and the first add reads one segment.
   * Derived data: a failure costs that search or add the rebuild, and the import it follows has
   * succeeded.
   */
  private async saveDerived(agent: string): Promise<void> {
    try {
      const FactIndex = await loadFactIndex()
      // Synchronous from here, like any search: the facts are brought up to date and indexed at once.
      if (!this.agent(agent).holdsAll()) {
        this.agent(agent).saveDerivedLean(FactIndex)
        return
      }
      const a = this.read(agent, {facts: 'all'})
      a.searchIndex(FactIndex, {save: true})
      a.saveDuplicateDigests()
    } catch {
      // The next search builds and saves it.
    }
  }

  private writeImport(agent: string, batch: ImportBatch, lean: boolean): Promise<ImportResult> {
    return this.write(agent, {facts: lean ? 'last' : 'all', checkpoints: 'all'}, (tx, a) => {
      const knownCheckpoints = new Set([...a.checkpoints.records()].map((c) => c.id))
      const byId = lean ? undefined : a.byId()
      const known: KnownIds = byId ? {has: (id) => byId.has(id), segmentOf: (id) => byId.get(id)?.segment} : a.leanIds()
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
        throw tx.wroteAny()
          ? partialImport(error, saved, {facts: facts.length, checkpoints: checkpoints.length})
          : error
      }
    })
  }
}

/**
 * An older file format is upgraded on the first write that holds the lock. The old bytes are
 * kept for good as `<file>.v<version>.bak`, so an upgrade can always be undone by hand.
 */
function upgradeOutdated(a: AgentFiles): void {
  for (const key of a.outdated) {
    const [collection, name] = key.split('/') as [Collection, string]
    const files = (collection === 'facts' ? a.facts : a.checkpoints).files as SegmentedFiles<unknown>
    const seg = files.read(name)
    if (seg.migrated && seg.version !== undefined) {
      keepCopy(files.path(name), preMigrationPath(files.path(name), seg.version))
      files.write(name, seg.records)
    }
    a.outdated.delete(key)
  }
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

/** Applies marks to facts that are still live, rewriting each touched segment once. */
/** Which fact ids an agent has, and where: its id map, or the ids alone (src/store/file/segment-ids.ts). */
interface KnownIds {
  has(id: string): boolean
  segmentOf(id: string): string | undefined
}

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

/**
 * An agent exists once a segment of it was written: a folder whose first write failed (a full
 * disk) holds only its lock file, and is not an agent. The folder itself stays: deleting it
 * would delete the lock file another writer may be waiting on.
 */
function holdsRecords(dir: string): boolean {
  return (
    new SegmentedFiles(dir, FACT_SEGMENT).names().length > 0 ||
    new SegmentedFiles(dir, CHECKPOINT_SEGMENT).names().length > 0
  )
}

/**
 * What a failed change left on disk, said in its error: a retrying client must know whether
 * anything was saved. Only file-system failures (io_error) carry it; others save nothing.
 */
function withOutcome(error: unknown, tx: Transaction | undefined): unknown {
  if (
    !(error instanceof MemError) ||
    error.code !== 'io_error' ||
    error instanceof ChangedMeanwhile ||
    error instanceof PartialImport
  )
    return error
  const outcome = tx?.wroteAny()
    ? 'part of the change was saved; run "mem doctor" before trying again'
    : 'nothing was saved'
  return new MemError('io_error', `${error.message}; ${outcome}`)
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
    `${error.message}; ${parts.join(' and ')} of this agent were saved before it stopped. Running the import again is safe: it skips what is already stored.`,
    saved,
  )
}
