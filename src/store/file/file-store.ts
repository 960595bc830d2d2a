import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {MemError} from '../../errors.js'
import {SearchLayer} from '../../index/search-layer.js'
import type {EmbedProgress} from '../../index/vector-upkeep.js'
import type {Meaning} from '../../meaning/meaning.js'
import {type CheckpointRecord, type FactRecord, isLive} from '../records.js'
import {checkpointRecord, factRecord, knownFact, liveFact, now, supersedingRecord} from '../record-rules.js'
import {WarmBudget} from '../warm-cache.js'
import type {
  AddedFact,
  AddOptions,
  FactChanges,
  ImportBatch,
  ImportOptions,
  ImportResult,
  NewCheckpoint,
  NewFact,
  RecordKind,
  SearchAnswer,
  SearchQuery,
  Store,
} from '../store.js'
import {AgentCache} from './agent-cache.js'
import {CHECKPOINT_SEGMENT, FACT_SEGMENT} from './collections.js'
import {duplicateOf} from './duplicate-guard.js'
import {mayHoldRecord} from './id-scan.js'
import {indexKeeper} from './index-keeper.js'
import {vectorKeeper} from './vector-keeper.js'
import {holdsEveryFact, modeOf, type Mode} from './mode.js'
import {saveImportDigests, settleImport, writeImport} from './import-batch.js'
import {isFolderEntry} from './links.js'
import {agentDir, agentsRoot, decodeAgentDir} from './paths.js'
import {readRevision} from './revision.js'
import {SegmentedFiles} from './segments.js'
import {vouchChecked} from './vouch.js'
import {writeLocked, type Transaction} from './transaction.js'

/**
 * The embedded store: one folder per agent under `<home>/agents`, facts and checkpoints in
 * bounded segment files, every change made under the agent's inter-process lock.
 */
export class FileStore implements Store {
  private readonly agents: AgentCache
  /** Search over this store's change feed, each agent's index saved in its cache/ (src/index/). */
  private readonly search: SearchLayer
  /** Agents an import wrote to with more batches to come: their derived files wait for the last. */
  private readonly derivedBehind = new Set<string>()

  /**
   * `shortLived`: the process runs one operation and exits (the CLI), so a search reads of the
   * saved index only the chunks it needs, where a long-running process reads it whole to reuse.
   */
  constructor(
    readonly home: string,
    private readonly options: {shortLived?: boolean; meaning?: Meaning} = {},
  ) {
    // One budget for the agents' files and their search indexes (src/store/warm-cache.ts).
    const budget = new WarmBudget()
    this.agents = new AgentCache(home, budget)
    this.search = new SearchLayer(
      {
        changesSince: async (agent, cursor) => this.agents.get(agent).changesSince(cursor),
        getFacts: (agent, ids) => this.getFacts(agent, ids),
        factsAt: async (agent, ids, cursor) => this.agents.get(agent).factsAt(ids, cursor),
        keeper: indexKeeper((agent) => this.agents.get(agent).dir),
        vectors: vectorKeeper((agent) => this.agents.get(agent).dir),
      },
      {lazy: options.shortLived === true, budget, meaning: options.meaning},
    )
  }

  /** The mode the agent runs in here: src/store/file/mode.ts says what each operation does in each. */
  private modeOf(agent: string): Mode {
    return modeOf(this.options.shortLived === true, this.agents, agent)
  }

  /**
   * How many agents this process keeps warm, and their estimated cost in bytes, in all and as
   * their files and their search indexes (for tests and diagnostics).
   */
  cacheUse(): {
    agents: number
    bytes: number
    files: {agents: number; bytes: number}
    indexes: {agents: number; bytes: number}
  } {
    const files = this.agents.use()
    const indexes = this.search.usage()
    return {agents: Math.max(files.agents, indexes.agents), bytes: files.bytes + indexes.bytes, files, indexes}
  }

  async addFact(agent: string, fact: NewFact, options: AddOptions = {}): Promise<AddedFact> {
    // A turn of a thread is never a duplicate (people repeat themselves in a conversation).
    const guard = !options.allowDuplicate && fact.thread === undefined
    return writeLocked(this.agents, agent, {facts: 'last'}, (tx, a) => {
      const existing = guard ? duplicateOf(a, fact.content) : undefined
      if (existing) return {...existing, duplicate: true as const}
      const record = factRecord(tx.nextFactId(), fact, now())
      tx.appendFact(record)
      return record
    }).finally(() => this.search.wrote(agent))
  }

  async searchFacts(agent: string, query: SearchQuery): Promise<SearchAnswer> {
    // An agent nobody wrote to has nothing to find, and a search must not leave a folder (and
    // a saved index) behind for it: a mistyped --agent would otherwise become an agent for good.
    const a = this.agents.get(agent)
    if (!existsSync(a.dir)) return this.search.nothing()
    const revision = this.options.shortLived === true ? readRevision(a.dir) : undefined
    const hits = await this.search.search(agent, query)
    await vouchChecked(a, revision)
    return hits
  }

  async getFact(agent: string, id: string): Promise<FactRecord> {
    // In the lean mode, a live fact the search view places is read from its segment; any other from every fact.
    const segment = this.modeOf(agent) === 'lean' ? this.agents.get(agent).liveSegmentsOf([id])?.get(id) : undefined
    const fact = segment === undefined ? undefined : this.agents.read(agent, {facts: 'last'}).peekFact(segment, id)
    if (fact && isLive(fact)) return fact
    return knownFact(agent, id, this.agents.read(agent, {facts: 'all'}).byId().get(id)?.fact)
  }

  async supersede(agent: string, ids: string[], next: NewFact & {reason?: string}): Promise<FactRecord> {
    return this.markFacts(agent, ids, (tx, at) => {
      const time = now()
      const record = supersedingRecord(tx.nextFactId(), next, ids, time)
      // The new fact is written before the old ones are marked: a crash in between leaves both live, never neither.
      tx.appendFact(record)
      for (const id of ids) tx.markFact(id, {superseded_by: record.id, superseded_at: time}, at.get(id))
      return record
    }).finally(() => this.search.wrote(agent))
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
   * In the lean mode it is first tried without reading every fact: the search view says
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
    const at = this.modeOf(agent) === 'lean' ? this.agents.get(agent).liveSegmentsOf(ids) : undefined
    if (at) {
      const done = await this.markLean(agent, ids, at, change)
      if (done !== undefined) return done
    }
    return writeLocked(this.agents, agent, {facts: 'all'}, (tx, a) =>
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
      return await writeLocked(this.agents, agent, {facts: 'last', marked: [...new Set(at.values())]}, (tx, a) => {
        const facts = ids.map((id) => a.heldFact(at.get(id)!, id))
        if (!facts.every((f): f is FactRecord => f !== undefined && isLive(f))) return undefined
        return change(tx, at, facts)
      })
    } finally {
      this.agents.get(agent).release(at.values())
    }
  }

  async listFacts(agent: string): Promise<FactRecord[]> {
    return [...this.agents.read(agent, {facts: 'all'}).facts.records()]
  }

  /**
   * Lets the event loop turn between segments: only mem import calls it, and at 200,000 facts
   * it reads for seconds, during which the import's bound on the heap's growth
   * (src/cli/heap-growth.ts), which looks from a timer, would otherwise wait.
   */
  async eachFact(agent: string, each: (fact: FactRecord) => void): Promise<void> {
    for (const records of this.agents.get(agent).factSegments()) {
      for (const fact of records) each(fact)
      await new Promise(setImmediate)
    }
  }

  async getFacts(agent: string, ids: readonly string[]): Promise<FactRecord[]> {
    if (ids.length === 0 || !existsSync(this.agents.get(agent).dir)) return []
    const a = this.agents.get(agent)
    // A process that holds every fact (an operation needed them all) has them by id already.
    const found = holdsEveryFact(a) ? this.agents.read(agent, {facts: 'all'}).byId() : undefined
    const some = found ? undefined : a.someFacts(ids)
    return [...new Set(ids)].flatMap((id) => found?.get(id)?.fact ?? some?.get(id) ?? [])
  }

  async changesSince(agent: string, cursor?: string): Promise<FactChanges> {
    // Reads only: an agent nobody wrote to has no segment, and asking makes no folder for it.
    const answer = this.agents.get(agent).changesSince(cursor)
    const facts = [...answer.facts]
    return {reset: answer.reset, facts, cursor: answer.cursor}
  }

  async saveCheckpoint(agent: string, checkpoint: NewCheckpoint): Promise<CheckpointRecord> {
    return writeLocked(this.agents, agent, {checkpoints: 'last'}, (tx) => {
      const record = checkpointRecord(tx.nextCheckpointId(), checkpoint, now())
      tx.appendCheckpoint(record)
      return record
    })
  }

  async getCheckpoint(agent: string, id?: string): Promise<CheckpointRecord> {
    // All segments: an import may append a checkpoint older than those already saved.
    const a = this.agents.read(agent, {checkpoints: 'all'})
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
    return [...this.agents.read(agent, {checkpoints: 'all'}).checkpoints.records()]
  }

  /** Lets go of the warm search indexes (and the saved ones a cold search read lazily); every other file is closed when the operation that opened it ends. */
  async close(): Promise<void> {
    await this.search.close()
  }

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

  async embedPending(
    agent: string,
    progress?: (at: EmbedProgress) => void,
    signal?: AbortSignal,
  ): Promise<EmbedProgress> {
    return this.search.embedPending(agent, progress, signal)
  }

  async importRecords(agent: string, batch: ImportBatch, options: ImportOptions = {}): Promise<ImportResult> {
    // A process that holds every fact of the agent anyway (a server that built its id map) checks
    // ids by its id map; any other keeps ids only, so an import never holds every record at once.
    const lean = !holdsEveryFact(this.agents.get(agent))
    let result: ImportResult
    try {
      result = await writeImport(this.agents, agent, batch, lean)
    } finally {
      if (lean) settleImport(this.agents.get(agent))
    }
    const changed = result.facts.length > 0 || result.marked.length > 0
    if (options.more) {
      if (changed) this.derivedBehind.add(agent)
    } else if (changed || this.derivedBehind.delete(agent)) {
      // Saved for the first add and search after it (a cold `mem search`, or a server's first)
      // to load instead of reading every fact: derived data, so a failure costs them that. The
      // digests first, so that the import lets go of them before the index is built.
      saveImportDigests(this.agents, agent)
      await this.search.refresh(agent).catch(() => {})
    }
    return result
  }
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
