import {existsSync, mkdirSync, readdirSync} from 'node:fs'

import {MemError} from '../errors.js'
import type {FactIndex, Hit, SearchOptions} from '../search/fact-index.js'
import {CachedSegments, type Change} from './cached-segments.js'
import {CHECKPOINT_SEGMENT, FACT_SEGMENT} from './collections.js'
import {DIR_MODE, keepCopy} from './durable-file.js'
import {preMigrationPath} from './format.js'
import {newId} from './ids.js'
import {isFolderEntry} from './links.js'
import {agentDir, agentsRoot, decodeAgentDir} from './paths.js'
import {type CheckpointRecord, type FactRecord, isLive} from './records.js'
import {bumpRevision, readRevision, type Revision} from './revision.js'
import {openIndex, openPartial, worthSaving, type OpenedIndex} from './saved-index.js'
import {loadFactIndex, readSaved, saveIndex, type FactIndexType} from './search-cache.js'
import {SegmentedFiles, type Segment} from './segments.js'
import {liveDuplicate} from './duplicates.js'
import type {AddedFact, AddOptions, ImportBatch, ImportResult, NewCheckpoint, NewFact, ScoredFact, SearchQuery, Store} from './store.js'

type Collection = 'facts' | 'checkpoints'

/**
 * How much of other agents' files a long-running process keeps in memory, counted as their
 * serialized size (the index and id map cost a few times that again). One server can serve
 * many agents; past this budget the least recently used agents are dropped and re-read (from
 * the saved index) when next used. The agent in use is never dropped.
 */
const CACHE_BUDGET_BYTES = 32 * 1024 * 1024

/**
 * What an operation needs brought up to date before it runs: every segment of a collection,
 * or only its last one (appending needs nothing else, so `mem add` reads one small file).
 */
type Needs = {[C in Collection]?: 'all' | 'last'}

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
  /** The saved index could not serve a search (damaged records, say): save it again once built. */
  private resave = false

  constructor(readonly dir: string) {
    this.facts = new CachedSegments(new SegmentedFiles(dir, FACT_SEGMENT))
    this.checkpoints = new CachedSegments(new SegmentedFiles(dir, CHECKPOINT_SEGMENT))
  }

  /** Segments read in an older format, by any path; the next locked write upgrades them on disk. */
  readonly outdated = new Set<string>()

  private readonly noteMigrated = (collection: Collection) => (name: string) => this.outdated.add(`${collection}/${name}`)

  refresh(revision: Revision | undefined, needs: Needs): void {
    const migrated = this.noteMigrated
    if (needs.facts) {
      const how = needs.facts === 'all' ? 'refresh' : 'refreshLast'
      this.follow(this.facts[how](revision, migrated('facts')))
    }
    if (needs.checkpoints) {
      const how = needs.checkpoints === 'all' ? 'refresh' : 'refreshLast'
      this.checkpoints[how](revision, migrated('checkpoints'))
    }
    if (needs.facts !== 'all') this.follow(this.facts.verifyRest(revision, migrated('facts')))
    if (needs.checkpoints !== 'all') this.checkpoints.verifyRest(revision, migrated('checkpoints'))
  }

  /** Files this process decoded and found sound, for the revision stamp. */
  checked(): Record<string, string> {
    return {...this.facts.checkedIdentities(), ...this.checkpoints.checkedIdentities()}
  }

  /** Facts never change content under the same id, so only liveness moves the index. */
  follow(changes: Change<FactRecord>[]): void {
    const {ids, index} = this
    if (!ids && !index) return
    for (const {name, before, after} of changes) {
      // Records this process kept as they were (the head of a segment it appended to) are the
      // same objects before and after, and already in both views: skipping them keeps an
      // append from re-keying a thousand entries of a 100,000-entry map.
      let same = 0
      while (same < before.length && same < after.length && before[same] === after[same]) same++
      if (same === before.length && same === after.length) continue
      const liveAfter = new Set(after.filter(isLive).map((f) => f.id))
      for (let i = same; i < before.length; i++) {
        const fact = before[i]!
        if (index && isLive(fact) && !liveAfter.has(fact.id)) index.remove(fact.id)
        if (ids?.get(fact.id)?.segment === name) ids.delete(fact.id)
      }
      for (let i = same; i < after.length; i++) {
        const fact = after[i]!
        ids?.set(fact.id, {fact, segment: name})
        if (index && isLive(fact) && !index.has(fact.id)) index.add(fact)
      }
    }
  }

  heldBytes(): number {
    return this.facts.bytes() + this.checkpoints.bytes()
  }

  /** Every fact by id; the facts must have been refreshed with `all`. */
  byId(): Map<string, {fact: FactRecord; segment: string}> {
    if (!this.ids) {
      if (!this.facts.complete()) throw new MemError('internal', 'the facts were not all read before building the id map')
      const ids = new Map<string, {fact: FactRecord; segment: string}>()
      for (const seg of this.facts.all()) for (const fact of seg.records) ids.set(fact.id, {fact, segment: seg.name})
      this.ids = ids
    }
    return this.ids
  }

  /** The search index over live facts; the facts must have been refreshed with `all`. */
  searchIndex(FactIndex: FactIndexType): FactIndex {
    if (!this.index) {
      if (!this.facts.complete()) throw new MemError('internal', 'the facts were not all read before building the search index')
      const opened = openIndex(FactIndex, this.dir, [...this.facts.records()])
      if (this.resave || worthSaving(opened)) this.save(opened)
      this.index = opened.index
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
  searchSaved(FactIndex: FactIndexType, revision: Revision | undefined, text: string, options: SearchOptions): ScoredFact[] | undefined {
    const saved = readSaved(this.dir, {records: true})
    const migrated = this.noteMigrated
    const opened =
      saved &&
      openPartial(FactIndex, saved, this.facts.currentKeys(revision), (name) => {
        this.facts.refreshSome(revision, [name], migrated('facts'))
        return this.facts.get(name)?.records ?? []
      })
    if (!opened) {
      this.resave = true
      return undefined
    }
    this.facts.verifyRest(revision, migrated('facts'))
    this.checkpoints.verifyRest(revision, migrated('checkpoints'))
    const hits = opened.index.search(text, options).map((hit) => ({fact: opened.record(hit.id), score: hit.score, ...contextOf(hit)}))
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
        return entry && {segment: entry.segment, text: JSON.stringify(entry.fact)}
      },
    })
  }
}

/** The changes one locked write makes, applied in order and then stamped once. */
class Transaction {
  private readonly written: {cache: CachedSegments<never>; segment: Segment<never>}[] = []

  constructor(private readonly agent: AgentFiles) {}

  appendFact(fact: FactRecord): void {
    this.append(this.agent.facts, fact, true)
  }

  appendCheckpoint(checkpoint: CheckpointRecord): void {
    this.append(this.agent.checkpoints, checkpoint, false)
  }

  markFact(id: string, patch: Partial<FactRecord>): void {
    const entry = this.agent.byId().get(id)
    const seg = entry && this.agent.facts.get(entry.segment)
    if (!seg) throw new MemError('internal', `fact ${id} is indexed but its segment is gone`)
    const records = seg.records.map((f) => (f.id === id ? {...f, ...patch} : f))
    this.put(this.agent.facts, seg.name, records, true)
  }

  commit(revision: Revision | undefined): void {
    if (this.written.length === 0) return
    const stamped = bumpRevision(this.agent.dir, revision, [...new Set(this.written.map((w) => w.cache.key(w.segment.name)))], this.agent.checked())
    for (const w of this.written) w.cache.remember(w.segment, stamped)
  }

  private append<T>(cache: CachedSegments<T>, record: T, isFact: boolean): void {
    const last = cache.last()
    const name = cache.files.nameForAppend(last, JSON.stringify(record).length)
    const records = last && name === last.name ? [...last.records, record] : [record]
    this.put(cache, name, records, isFact)
  }

  private put<T>(cache: CachedSegments<T>, name: string, records: T[], isFact: boolean): void {
    const before = cache.get(name)?.records ?? []
    const segment = cache.files.write(name, records)
    cache.remember(segment, undefined)
    if (isFact) this.agent.follow([{name, before: before as FactRecord[], after: records as FactRecord[]}])
    this.written.push({cache: cache as unknown as CachedSegments<never>, segment: segment as Segment<never>})
  }
}

/**
 * The embedded store: one folder per agent under `<home>/agents`, facts and checkpoints in
 * bounded segment files, every change made under the agent's inter-process lock.
 */
export class FileStore implements Store {
  private readonly agents = new Map<string, AgentFiles>()

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
    // Looking for a duplicate needs every fact; a turn of a thread is never one (people repeat
    // themselves in a conversation), so a caller adding turns or allowing copies reads only the last segment.
    const guard = !options.allowDuplicate && fact.thread === undefined
    return this.write(agent, {facts: guard ? 'all' : 'last'}, (tx, a) => {
      const existing = guard ? liveDuplicate(a.facts.records(), fact.content) : undefined
      if (existing) return {...existing, duplicate: true as const}
      const record: FactRecord = {id: newId(), content: fact.content, tags: fact.tags, created_at: now(), ...threadOf(fact)}
      tx.appendFact(record)
      return record
    })
  }

  async searchFacts(agent: string, query: SearchQuery): Promise<ScoredFact[]> {
    // An agent nobody wrote to has nothing to find, and a search must not leave a folder (and
    // a saved index) behind for it: a mistyped --agent would otherwise become an agent for good.
    if (!existsSync(this.agent(agent).dir)) return []
    const FactIndex = await loadFactIndex()
    const options = {limit: query.limit, tags: query.tags, since: query.since, until: query.until, partial: query.partial}
    // From here on synchronous: no other operation of this process interleaves with refresh, index and search.
    if (this.options.shortLived) {
      const a = this.agent(agent)
      const hits = a.searchSaved(FactIndex, readRevision(a.dir), query.text, options)
      if (hits) return hits
    }
    const a = this.read(agent, {facts: 'all'})
    const index = a.searchIndex(FactIndex)
    const ids = a.byId()
    return index.search(query.text, options).map((hit) => ({fact: ids.get(hit.id)!.fact, score: hit.score, ...contextOf(hit)}))
  }

  async getFact(agent: string, id: string): Promise<FactRecord> {
    return this.findFact(this.read(agent, {facts: 'all'}), agent, id)
  }

  async supersede(agent: string, ids: string[], next: NewFact & {reason?: string}): Promise<FactRecord> {
    return this.write(agent, {facts: 'all'}, (tx, a) => {
      for (const id of ids) this.findLiveFact(a, agent, id)
      const time = now()
      const record: FactRecord = {id: newId(), content: next.content, tags: next.tags, created_at: time, ...threadOf(next), supersedes: ids, ...(next.reason ? {reason: next.reason} : {})}
      // The new fact is written before the old ones are marked: a crash in between leaves both live, never neither.
      tx.appendFact(record)
      for (const id of ids) tx.markFact(id, {superseded_by: record.id, superseded_at: time})
      return record
    })
  }

  async deleteFact(agent: string, id: string, reason?: string): Promise<FactRecord> {
    return this.write(agent, {facts: 'all'}, (tx, a) => {
      const fact = this.findLiveFact(a, agent, id)
      const patch = {deleted_at: now(), ...(reason ? {reason} : {})}
      tx.markFact(id, patch)
      return {...fact, ...patch}
    })
  }

  async listFacts(agent: string): Promise<FactRecord[]> {
    return [...this.read(agent, {facts: 'all'}).facts.records()]
  }

  async saveCheckpoint(agent: string, checkpoint: NewCheckpoint): Promise<CheckpointRecord> {
    return this.write(agent, {checkpoints: 'last'}, (tx) => {
      const record: CheckpointRecord = {id: newId(), created_at: now(), ...(checkpoint.label === undefined ? {} : {label: checkpoint.label}), state: checkpoint.state, ...(checkpoint.messages === undefined ? {} : {messages: checkpoint.messages})}
      tx.appendCheckpoint(record)
      return record
    })
  }

  async getCheckpoint(agent: string, id?: string): Promise<CheckpointRecord> {
    // All segments: an import may append a checkpoint older than those already saved.
    const a = this.read(agent, {checkpoints: 'all'})
    if (id === undefined) {
      let latest: CheckpointRecord | undefined
      for (const cp of a.checkpoints.records()) if (!latest || newerThan(cp, latest)) latest = cp
      if (!latest) throw new MemError('no_checkpoint', `No checkpoint found for agent "${agent}".`)
      return latest
    }
    for (const cp of a.checkpoints.records()) if (cp.id === id) return cp
    throw new MemError('no_checkpoint', `No checkpoint "${id}" found for agent "${agent}".`)
  }

  async listCheckpoints(agent: string): Promise<CheckpointRecord[]> {
    return [...this.read(agent, {checkpoints: 'all'}).checkpoints.records()]
  }

  async listAgents(): Promise<string[]> {
    try {
      const root = agentsRoot(this.home)
      return readdirSync(root, {withFileTypes: true})
        .filter((e) => isFolderEntry(root, e))
        .flatMap((e) => decodeAgentDir(e.name) ?? [])
        .sort()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
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

  private evict(keep: AgentFiles): void {
    if (this.agents.size < 2) return
    let total = 0
    for (const a of this.agents.values()) total += a.heldBytes()
    for (const [name, a] of this.agents) {
      if (total <= CACHE_BUDGET_BYTES) break
      if (a === keep) continue
      total -= a.heldBytes()
      this.agents.delete(name)
    }
  }

  /** Reads take no lock: every file is replaced atomically, so a reader sees whole files. */
  private read(agent: string, needs: Needs): AgentFiles {
    const a = this.agent(agent)
    a.refresh(readRevision(a.dir), needs)
    return a
  }

  private async write<T>(agent: string, needs: Needs, change: (tx: Transaction, a: AgentFiles) => T): Promise<T> {
    const dir = this.agent(agent).dir
    mkdirSync(dir, {recursive: true, mode: DIR_MODE})
    // Loaded by the first write: proper-lockfile and graceful-fs cost a read-only command
    // (a cold `mem search`) several milliseconds at start-up for nothing.
    const {withLock} = await import('./lock.js')
    return withLock(dir, () => {
      const revision = readRevision(dir)
      const a = this.agent(agent)
      // Every held segment is re-checked by file identity, so one replaced by a writer that died
      // before stamping the revision is read afresh, not written over from a stale copy.
      a.refresh(revision, needs)
      const tx = new Transaction(a)
      upgradeOutdated(a)
      const result = change(tx, a)
      tx.commit(revision)
      return result
    })
  }

  private findFact(a: AgentFiles, agent: string, id: string): FactRecord {
    const entry = a.byId().get(id)
    if (!entry) throw new MemError('not_found', `No fact "${id}" found for agent "${agent}".`)
    return entry.fact
  }

  private findLiveFact(a: AgentFiles, agent: string, id: string): FactRecord {
    const fact = this.findFact(a, agent, id)
    if (fact.deleted_at !== undefined) throw new MemError('not_found', `Fact "${id}" of agent "${agent}" was deleted at ${fact.deleted_at}.`)
    if (fact.superseded_by !== undefined) {
      throw new MemError('not_found', `Fact "${id}" of agent "${agent}" was replaced by "${fact.superseded_by}" at ${fact.superseded_at}; use that id instead.`)
    }
    return fact
  }

  async importRecords(agent: string, batch: ImportBatch): Promise<ImportResult> {
    return this.write(agent, {facts: 'all', checkpoints: 'all'}, (_tx, a) => {
      const knownCheckpoints = new Set([...a.checkpoints.records()].map((c) => c.id))
      const facts = newById(batch.facts, (id) => a.byId().has(id))
      const checkpoints = newById(batch.checkpoints, (id) => knownCheckpoints.has(id))
      // New facts are written before old ones are marked, as in supersede: a crash in between leaves both live.
      const written = [...appendPacked(a.facts, facts, (change) => a.follow([change])), ...appendPacked(a.checkpoints, checkpoints)]
      const marked = markLive(a, batch.marks ?? [], written)
      if (written.length > 0) {
        const stamped = bumpRevision(a.dir, readRevision(a.dir), written.map((w) => w.cache.key(w.segment.name)), a.checked())
        // In write order, so a segment written twice ends up remembered as last written.
        for (const w of written) w.cache.remember(w.segment, stamped)
      }
      return {facts: facts.map((f) => f.id), checkpoints: checkpoints.map((c) => c.id), marked}
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

/** Later creation time wins; ids (time-sortable) break ties. */
function newerThan(a: CheckpointRecord, b: CheckpointRecord): boolean {
  return a.created_at === b.created_at ? a.id > b.id : a.created_at > b.created_at
}

function contextOf(hit: Hit): {contextFor?: string} {
  return hit.contextFor === undefined ? {} : {contextFor: hit.contextFor}
}

/** The thread key of a new record: present only when the fact has one, so older readers see the records they always saw. */
function threadOf(fact: NewFact): {thread?: string} {
  return fact.thread === undefined ? {} : {thread: fact.thread}
}

function now(): string {
  return new Date().toISOString()
}

/** Records whose id is neither known nor seen earlier in the same batch. */
function newById<T extends {id: string}>(records: T[], known: (id: string) => boolean): T[] {
  const seen = new Set<string>()
  return records.filter((r) => {
    if (known(r.id) || seen.has(r.id)) return false
    seen.add(r.id)
    return true
  })
}

/**
 * Appends many records with one write per segment file instead of one per record, which
 * keeps a large import linear. Called under the agent's lock; the caller stamps the revision.
 */
function appendPacked<T>(cache: CachedSegments<T>, records: T[], onChange?: (change: Change<T>) => void): {cache: CachedSegments<never>; segment: Segment<never>}[] {
  const written: {cache: CachedSegments<never>; segment: Segment<never>}[] = []
  const last = cache.last()
  let open: Segment<T> | undefined = last && {name: last.name, records: [...last.records], bytes: last.bytes}
  let before: T[] = last?.records ?? []
  let dirty = false
  const flush = (): void => {
    if (!open || !dirty) return
    const segment = cache.files.write(open.name, open.records)
    cache.remember(segment, undefined)
    onChange?.({name: open.name, before, after: open.records})
    written.push({cache: cache as unknown as CachedSegments<never>, segment: segment as Segment<never>})
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
  return written
}

/** Applies marks to facts that are still live, rewriting each touched segment once. */
function markLive(a: AgentFiles, marks: NonNullable<ImportBatch['marks']>, written: {cache: CachedSegments<never>; segment: Segment<never>}[]): string[] {
  const bySegment = new Map<string, Map<string, Partial<FactRecord>>>()
  for (const {id, patch} of marks) {
    const entry = a.byId().get(id)
    if (!entry || !isLive(entry.fact)) continue
    const patches = bySegment.get(entry.segment) ?? new Map<string, Partial<FactRecord>>()
    patches.set(id, patch)
    bySegment.set(entry.segment, patches)
  }
  const marked: string[] = []
  for (const [name, patches] of bySegment) {
    const seg = a.facts.get(name)
    if (!seg) throw new MemError('internal', `segment ${name} is indexed but not cached`)
    const records = seg.records.map((f) => (patches.has(f.id) ? {...f, ...patches.get(f.id)} : f))
    const segment = a.facts.files.write(name, records)
    a.facts.remember(segment, undefined)
    a.follow([{name, before: seg.records, after: records}])
    written.push({cache: a.facts as unknown as CachedSegments<never>, segment: segment as Segment<never>})
    marked.push(...patches.keys())
  }
  return marked
}
