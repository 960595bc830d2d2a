import {MemError} from '../../errors.js'
import type {CheckpointRecord, FactRecord} from '../records.js'
import {idAfter, maxId} from '../ids.js'
import {PartialImport} from '../store.js'
import type {AgentCache} from './agent-cache.js'
import type {AgentFiles, Collection, Needs} from './agent-files.js'
import type {CachedSegments} from './cached-segments.js'
import {ChangedMeanwhile, keepCopy, makeDirDurably} from './durable-file.js'
import {FORMAT_VERSION, preMigrationPath} from './format.js'
import {JOURNAL_MAX_BYTES, type JournalOp} from './journal.js'
import {bumpRevision, type Revision} from './revision.js'
import type {Segment, SegmentedFiles} from './segments.js'

/** A segment this change wrote: `appended` when only its journal grew (the revision stamp need not move). */
type Written = {cache: CachedSegments<never>; segment: Segment<never>; appended?: boolean}

/** The changes one locked write makes, applied in order and then stamped once. */
export class Transaction {
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
 * A change to an agent's files under its lock: the folder made durably, the lock taken, the
 * segments the change needs brought up to date, older formats upgraded, the change run in a
 * {@link Transaction} and committed; run once more if a file was replaced behind the lock before
 * anything was written, and any other failure worded with what it left on disk.
 */
export async function writeLocked<T>(
  agents: AgentCache,
  agent: string,
  needs: Needs,
  change: (tx: Transaction, a: AgentFiles) => T,
): Promise<T> {
  const dir = agents.get(agent).dir
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
      const a = agents.get(agent)
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
          agents.drop(agent)
          continue
        }
        throw withOutcome(error, tx)
      }
    }
  })
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
