import {mkdirSync, readdirSync} from 'node:fs'

import {MemError} from '../errors.js'
import {FactIndex} from '../search/fact-index.js'
import {CachedSegments, type Change} from './cached-segments.js'
import {DIR_MODE, isCurrent, keepCopy} from './durable-file.js'
import {preMigrationPath} from './format.js'
import {newId} from './ids.js'
import {withLock} from './lock.js'
import {agentDir, agentsRoot, decodeAgentDir} from './paths.js'
import {CheckpointRecord, FactRecord, isLive} from './records.js'
import {bumpRevision, readRevision, type Revision} from './revision.js'
import {SegmentedFiles, type Segment} from './segments.js'
import type {ImportBatch, ImportResult, NewCheckpoint, NewFact, ScoredFact, Store} from './store.js'

const FACT_SEGMENT = {kind: 'mem.facts', folder: 'facts', record: FactRecord, maxRecords: 1000, maxBytes: 512 * 1024} as const
const CHECKPOINT_SEGMENT = {kind: 'mem.checkpoints', folder: 'checkpoints', record: CheckpointRecord, maxRecords: 100, maxBytes: 4 * 1024 * 1024} as const

/** One agent's folder as this process last saw it, with the search index over its live facts. */
class AgentFiles {
  readonly facts: CachedSegments<FactRecord>
  readonly checkpoints: CachedSegments<CheckpointRecord>
  readonly index = new FactIndex()
  readonly byId = new Map<string, {fact: FactRecord; segment: string}>()

  constructor(readonly dir: string) {
    this.facts = new CachedSegments(new SegmentedFiles(dir, FACT_SEGMENT))
    this.checkpoints = new CachedSegments(new SegmentedFiles(dir, CHECKPOINT_SEGMENT))
  }

  /** Segments read in an older format, by any path; the next locked write upgrades them on disk. */
  readonly outdated = new Set<string>()

  refresh(revision: Revision | undefined): void {
    this.follow(this.facts.refresh(revision, (name) => this.outdated.add(`facts/${name}`)))
    this.checkpoints.refresh(revision, (name) => this.outdated.add(`checkpoints/${name}`))
  }

  /** True when every cached segment is still the file on disk. */
  matchesDisk(): boolean {
    for (const cache of [this.facts, this.checkpoints] as CachedSegments<unknown>[]) {
      for (const seg of cache.all()) if (!isCurrent(cache.files.path(seg.name))) return false
    }
    return true
  }

  /** Facts never change content under the same id, so only liveness moves the index. */
  follow(changes: Change<FactRecord>[]): void {
    for (const {name, before, after} of changes) {
      const liveAfter = new Set(after.filter(isLive).map((f) => f.id))
      for (const fact of before) {
        if (isLive(fact) && !liveAfter.has(fact.id)) this.index.remove(fact.id)
        if (this.byId.get(fact.id)?.segment === name) this.byId.delete(fact.id)
      }
      for (const fact of after) {
        this.byId.set(fact.id, {fact, segment: name})
        if (isLive(fact) && !this.index.has(fact.id)) this.index.add(fact)
      }
    }
  }
}

/** The changes one locked write makes, applied in order and then stamped once. */
class Transaction {
  private readonly written: {cache: CachedSegments<never>; segment: Segment<never>; change?: Change<FactRecord>}[] = []

  constructor(private readonly agent: AgentFiles) {}

  appendFact(fact: FactRecord): void {
    this.append(this.agent.facts, fact, true)
  }

  appendCheckpoint(checkpoint: CheckpointRecord): void {
    this.append(this.agent.checkpoints, checkpoint, false)
  }

  markFact(id: string, patch: Partial<FactRecord>): void {
    const entry = this.agent.byId.get(id)
    const seg = entry && this.agent.facts.get(entry.segment)
    if (!seg) throw new MemError('internal', `fact ${id} is indexed but its segment is gone`)
    const records = seg.records.map((f) => (f.id === id ? {...f, ...patch} : f))
    this.put(this.agent.facts, seg.name, records, true)
  }

  commit(revision: Revision | undefined): void {
    if (this.written.length === 0) return
    const stamped = bumpRevision(this.agent.dir, revision, [...new Set(this.written.map((w) => w.cache.key(w.segment.name)))])
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
    cache.remember(segment, {epoch: '', segments: {}})
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

  constructor(readonly home: string) {}

  async addFact(agent: string, fact: NewFact): Promise<FactRecord> {
    return this.write(agent, (tx) => {
      const record: FactRecord = {id: newId(), content: fact.content, tags: fact.tags, created_at: now()}
      tx.appendFact(record)
      return record
    })
  }

  async searchFacts(agent: string, query: {text: string; limit: number; tags?: string[]}): Promise<ScoredFact[]> {
    const a = this.read(agent)
    return a.index.search(query.text, {limit: query.limit, tags: query.tags}).map((hit) => ({fact: a.byId.get(hit.id)!.fact, score: hit.score}))
  }

  async getFact(agent: string, id: string): Promise<FactRecord> {
    return this.findFact(this.read(agent), agent, id)
  }

  async supersede(agent: string, ids: string[], next: NewFact & {reason?: string}): Promise<FactRecord> {
    return this.write(agent, (tx, a) => {
      for (const id of ids) this.findLiveFact(a, agent, id)
      const time = now()
      const record: FactRecord = {id: newId(), content: next.content, tags: next.tags, created_at: time, supersedes: ids, ...(next.reason ? {reason: next.reason} : {})}
      // The new fact is written before the old ones are marked: a crash in between leaves both live, never neither.
      tx.appendFact(record)
      for (const id of ids) tx.markFact(id, {superseded_by: record.id, superseded_at: time})
      return record
    })
  }

  async deleteFact(agent: string, id: string, reason?: string): Promise<FactRecord> {
    return this.write(agent, (tx, a) => {
      const fact = this.findLiveFact(a, agent, id)
      const patch = {deleted_at: now(), ...(reason ? {reason} : {})}
      tx.markFact(id, patch)
      return {...fact, ...patch}
    })
  }

  async listFacts(agent: string): Promise<FactRecord[]> {
    return [...this.read(agent).facts.records()]
  }

  async saveCheckpoint(agent: string, checkpoint: NewCheckpoint): Promise<CheckpointRecord> {
    return this.write(agent, (tx) => {
      const record: CheckpointRecord = {id: newId(), created_at: now(), ...(checkpoint.label === undefined ? {} : {label: checkpoint.label}), state: checkpoint.state, ...(checkpoint.messages === undefined ? {} : {messages: checkpoint.messages})}
      tx.appendCheckpoint(record)
      return record
    })
  }

  async getCheckpoint(agent: string, id?: string): Promise<CheckpointRecord> {
    const a = this.read(agent)
    if (id === undefined) {
      const latest = a.checkpoints.last()?.records.at(-1)
      if (!latest) throw new MemError('no_checkpoint', `No checkpoint found for agent "${agent}".`)
      return latest
    }
    for (const cp of a.checkpoints.records()) if (cp.id === id) return cp
    throw new MemError('no_checkpoint', `No checkpoint "${id}" found for agent "${agent}".`)
  }

  async listCheckpoints(agent: string): Promise<CheckpointRecord[]> {
    return [...this.read(agent).checkpoints.records()]
  }

  async listAgents(): Promise<string[]> {
    try {
      return readdirSync(agentsRoot(this.home), {withFileTypes: true})
        .filter((e) => e.isDirectory())
        .flatMap((e) => decodeAgentDir(e.name) ?? [])
        .sort()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
  }

  private agent(agent: string): AgentFiles {
    let a = this.agents.get(agent)
    if (!a) {
      a = new AgentFiles(agentDir(this.home, agent))
      this.agents.set(agent, a)
    }
    return a
  }

  /** Reads take no lock: every file is replaced atomically, so a reader sees whole files. */
  private read(agent: string): AgentFiles {
    const a = this.agent(agent)
    a.refresh(readRevision(a.dir))
    return a
  }

  private async write<T>(agent: string, change: (tx: Transaction, a: AgentFiles) => T): Promise<T> {
    const dir = this.agent(agent).dir
    mkdirSync(dir, {recursive: true, mode: DIR_MODE})
    return withLock(dir, () => {
      const revision = readRevision(dir)
      let a = this.agent(agent)
      a.refresh(revision)
      // A writer that died before stamping the revision leaves files the cache cannot know of: read afresh.
      if (!a.matchesDisk()) {
        this.agents.delete(agent)
        a = this.agent(agent)
        a.refresh(revision)
      }
      const tx = new Transaction(a)
      upgradeOutdated(a)
      const result = change(tx, a)
      tx.commit(revision)
      return result
    })
  }

  private findFact(a: AgentFiles, agent: string, id: string): FactRecord {
    const entry = a.byId.get(id)
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
    return this.write(agent, (_tx, a) => {
      const knownCheckpoints = new Set([...a.checkpoints.records()].map((c) => c.id))
      const facts = newById(batch.facts, (id) => a.byId.has(id))
      const checkpoints = newById(batch.checkpoints, (id) => knownCheckpoints.has(id))
      // New facts are written before old ones are marked, as in supersede: a crash in between leaves both live.
      const written = [...appendPacked(a.facts, facts, (change) => a.follow([change])), ...appendPacked(a.checkpoints, checkpoints)]
      const marked = markLive(a, batch.marks ?? [], written)
      if (written.length > 0) {
        const stamped = bumpRevision(a.dir, readRevision(a.dir), written.map((w) => w.cache.key(w.segment.name)))
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
    const [collection, name] = key.split('/') as ['facts' | 'checkpoints', string]
    const files = (collection === 'facts' ? a.facts : a.checkpoints).files as SegmentedFiles<unknown>
    const seg = files.read(name)
    if (seg.migrated && seg.version !== undefined) {
      keepCopy(files.path(name), preMigrationPath(files.path(name), seg.version))
      files.write(name, seg.records)
    }
    a.outdated.delete(key)
  }
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
    cache.remember(segment, UNSTAMPED)
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

/** Until the revision is stamped, a segment this process wrote is cached under no revision. */
const UNSTAMPED: Revision = {epoch: '', segments: {}}

/** Applies marks to facts that are still live, rewriting each touched segment once. */
function markLive(a: AgentFiles, marks: NonNullable<ImportBatch['marks']>, written: {cache: CachedSegments<never>; segment: Segment<never>}[]): string[] {
  const bySegment = new Map<string, Map<string, Partial<FactRecord>>>()
  for (const {id, patch} of marks) {
    const entry = a.byId.get(id)
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
    a.facts.remember(segment, UNSTAMPED)
    a.follow([{name, before: seg.records, after: records}])
    written.push({cache: a.facts as unknown as CachedSegments<never>, segment: segment as Segment<never>})
    marked.push(...patches.keys())
  }
  return marked
}
