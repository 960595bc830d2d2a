import {closeSync, lstatSync, readdirSync, readFileSync, renameSync, statSync} from 'node:fs'
import {basename, join} from 'node:path'

import {LowSync} from 'lowdb'
import * as v from 'valibot'

import {MemError} from '../../errors.js'
import {
  backupPath,
  ChangedMeanwhile,
  DurableJsonFile,
  fileIdentity,
  identityText,
  isCurrent,
  knownIdentity,
  makeDirDurably,
  removeQuietly,
} from './durable-file.js'
import {decodeFile, encodeFile, FORMAT_VERSION, type Kind} from './format.js'
import {recordsWith, recordText} from './record-lookup.js'
import {
  appendJournal,
  applyJournal,
  forgetJournal,
  JOURNAL_NAME,
  journalPath,
  openJournal,
  readJournal,
  type JournalOp,
} from './journal.js'
import {refuseLinkedDataFile} from './links.js'
import {settled} from './revision.js'
import {agentOfDataFile, inside} from './paths.js'

export interface SegmentSpec<T> {
  kind: Kind
  folder: string
  record: v.GenericSchema<unknown, T>
  /** A segment is closed once it holds this many records or bytes, so one write stays small. */
  maxRecords: number
  maxBytes: number
}

const SEGMENT_NAME = /^\d{6}\.json$/

export interface Segment<T> {
  name: string
  records: T[]
  /** Serialized size (JSON file and journal) at the last read or write, to decide when to open a new segment. */
  bytes: number
  /** For a segment this process just wrote: the identity of the files it wrote (see writeFileDurably, fingerprint). */
  identity?: string
  /** The format version of the JSON file; a journal goes only beside a file of the current version. */
  version?: number
  /** Bytes of whole lines in the segment's journal (0: none). */
  journal?: number
}

/**
 * One agent's records of one kind, split across bounded files `NNNNNN.json`, so adding a
 * record rewrites one small file however many records the agent has. Records are only
 * ever appended to the last segment; older segments change only when a record in them is
 * marked (superseded, deleted).
 */
export class SegmentedFiles<T> {
  readonly folder: string

  constructor(
    agentDir: string,
    readonly spec: SegmentSpec<T>,
  ) {
    this.folder = join(agentDir, spec.folder)
  }

  /** The journals seen by the last listing, so that a segment without one costs one lstat, not two. */
  private journals?: Set<string>
  /** The last listing, with the folder's identity when it was taken (see names). */
  private listing?: {identity: string; names: string[]; journals: string[]}

  /**
   * The segment files in the folder, in order. A folder's modification and status-change times
   * move whenever an entry is made, removed or renamed in it (every mem write of a whole file is
   * a rename, a new journal is a new entry), so the listing is taken again only when the
   * folder's identity moved: for a long-running process one `lstat` of the folder in place of
   * reading it. A listing is kept only once the folder's times are settled (revision.ts): two
   * changes within one tick of the file system's clock can leave them as they were.
   */
  names(): string[] {
    const st = lstatSync(this.folder, {bigint: true, throwIfNoEntry: false})
    if (st === undefined) {
      this.listing = undefined
      this.journals = new Set()
      return []
    }
    const identity = st.isDirectory() ? identityText(st) : undefined
    const held = this.listing
    if (identity !== undefined && held?.identity === identity) {
      this.journals = new Set(held.journals)
      return [...held.names]
    }
    let all: string[]
    try {
      all = readdirSync(this.folder)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      all = []
    }
    const journals = all.filter((name) => JOURNAL_NAME.test(name))
    const names = all.filter((name) => SEGMENT_NAME.test(name)).sort()
    this.journals = new Set(journals)
    this.listing = identity !== undefined && settled(st) ? {identity, names, journals} : undefined
    return [...names]
  }

  /** Checked paths by name: a warm refresh asks for each segment's path once per operation. */
  private readonly paths = new Map<string, string>()

  path(name: string): string {
    let path = this.paths.get(name)
    if (path === undefined) {
      path = inside(this.folder, name)
      if (this.paths.size < 100_000) this.paths.set(name, path)
    }
    return path
  }

  /**
   * A cheap identity for a segment's current bytes: every write replaces the file by a rename,
   * so a new version has a new inode as well as a new time. Undefined when the file is gone.
   */
  /**
   * The segment's identity, journal included: it changes whenever either file's content does
   * (a rename gives the JSON file a new inode, an append grows the journal), so it is the key
   * for anything derived from a segment. Undefined when the JSON file is gone.
   */
  fingerprint(name: string): string | undefined {
    const path = this.path(name)
    const base = linkAwareIdentity(path)
    if (base === undefined) return undefined
    const journal = journalPath(path)
    // Listed before the stat: a journal made since is read anyway, so what is held is never older than its key.
    if (this.journals && !this.journals.has(basename(journal))) return base
    const identity = linkAwareIdentity(journal)
    return identity === undefined ? base : combined(base, identity)
  }

  /** Whether the last listing saw a journal beside the segment (true when there was no listing yet). */
  hasJournal(name: string): boolean {
    return this.journals === undefined || this.journals.has(basename(journalPath(this.path(name))))
  }

  journalPath(name: string): string {
    return journalPath(this.path(name))
  }

  /**
   * Reads the JSON file and applies its journal. The journal is opened first: a writer that folds
   * it into the JSON file and removes it in between leaves this reader the old journal's bytes
   * (still open) beside the new file, whose changes they repeat harmlessly, never the old file
   * without its changes.
   */
  read(name: string): Segment<T> & {migrated: boolean} {
    const path = this.path(name)
    refuseLinkedDataFile(path)
    const journal = journalPath(path)
    const fd = openJournal(journal)
    try {
      const db = new LowSync<unknown>(new DurableJsonFile(path), null)
      db.read()
      if (db.data === null) return {name, records: [], bytes: 0, migrated: false}
      const decoded = decodeFile(path, this.spec.kind, this.spec.record, db.data)
      const bytes = statSync(path).size
      if (fd === undefined)
        return {name, records: decoded.records, bytes, migrated: decoded.migrated, version: decoded.version}
      const changes = readJournal(fd, journal, {kind: this.spec.kind, agent: agentOfDataFile(path), segment: name})
      const records = applyJournal(
        journal,
        decoded.records as (T & {id: string})[],
        changes.ops,
        this.spec.record as v.GenericSchema<unknown, T & {id: string}>,
      )
      return {
        name,
        records,
        bytes: bytes + changes.end,
        migrated: decoded.migrated,
        version: decoded.version,
        journal: changes.end,
      }
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }

  /**
   * The record with `id` as the segment holds it, read without decoding the others
   * (src/store/file/record-lookup.ts); undefined when it cannot be told this way (no such record, a
   * journal beside the file, a file not in the shape mem writes), and the caller reads the
   * segment whole. Only for a segment whose key says it is as it was when last decoded: it
   * checks the one record, not the rest of the file.
   */
  readOne(name: string, id: string): T | undefined {
    const found = this.lookUp(name, (bytes, header) => {
      const text = recordText(bytes, header, id)
      return text === undefined ? undefined : [text]
    })
    return found?.[0]
  }

  /**
   * The records whose `field` is the string `value`, read as {@link readOne} reads one (and
   * declined in the same cases): possibly none, when no record holds those very bytes.
   */
  readWith(name: string, field: string, value: string): T[] | undefined {
    return this.lookUp(name, (bytes, header) => recordsWith(bytes, header, field, value))
  }

  private lookUp(name: string, find: (bytes: Buffer, header: string) => string[] | undefined): T[] | undefined {
    const path = this.path(name)
    if (this.journals === undefined || this.journals.has(basename(journalPath(path)))) return undefined
    refuseLinkedDataFile(path)
    const agent = agentOfDataFile(path)
    if (agent === undefined) return undefined
    let bytes: Buffer
    try {
      bytes = readFileSync(path)
    } catch {
      return undefined
    }
    const header = `{"format":${JSON.stringify(this.spec.kind)},"version":${FORMAT_VERSION},"agent":${JSON.stringify(agent)},"records":[`
    const texts = find(bytes, header)
    if (texts === undefined) return undefined
    const records: T[] = []
    for (const text of texts) {
      let raw: unknown
      try {
        raw = JSON.parse(text)
      } catch {
        return undefined
      }
      const parsed = v.safeParse(this.spec.record, raw)
      if (!parsed.success) return undefined
      records.push(parsed.output)
    }
    return records
  }

  /**
   * Writes the segment's JSON file whole (a new segment, an upgrade, an import, or folding the
   * journal in), then retires the journal, whose changes the file now holds (see retireJournal). A crash in between
   * leaves a journal that repeats what the file says, which replays to the same records.
   */
  write(name: string, records: T[]): Segment<T> {
    makeDirDurably(this.folder)
    const path = this.path(name)
    const file = new DurableJsonFile(path)
    const db = new LowSync<unknown>(file, null)
    db.data = encodeFile(this.spec.kind, records, path)
    db.write()
    const journal = journalPath(path)
    let identity = file.written!.identity
    try {
      // The listing that came before (under the lock) says whether there is a journal to retire.
      if (this.journals === undefined || this.journals.has(basename(journal))) retireJournal(journal)
      else removeQuietly(backupPath(journal))
      forgetJournal(journal)
      this.journals?.delete(basename(journal))
    } catch {
      // Left in place: it replays to what the file holds; its identity stays part of the segment's.
      const left = linkAwareIdentity(journal)
      if (left !== undefined) identity = combined(identity, left)
    }
    return {name, records, bytes: file.written!.bytes, identity, version: FORMAT_VERSION, journal: 0}
  }

  /**
   * Appends changes to the segment's journal (the caller holds the lock and has just read the
   * segment). Returns the segment's new identity, or throws ChangedMeanwhile when the JSON file
   * is not the one this process read.
   */
  append(name: string, ops: JournalOp[]): {identity: string; bytes: number; journal: number} {
    const path = this.path(name)
    const base = knownIdentity(path)
    if (base === undefined || !isCurrent(path)) throw new ChangedMeanwhile(path)
    const agent = agentOfDataFile(path)
    if (agent === undefined) throw new MemError('internal', `${path} is not inside an agent folder`)
    const journal = journalPath(path)
    const written = appendJournal(journal, {kind: this.spec.kind, agent, segment: name}, ops)
    this.journals?.add(basename(journal))
    return {identity: combined(base, written.identity), bytes: written.bytes, journal: written.end}
  }

  /** Where the next record goes: the last segment, or a new one once the last is full. */
  nameForAppend(last: Segment<T> | undefined, incomingBytes: number): string {
    if (!last) return segmentName(1)
    const full = last.records.length >= this.spec.maxRecords || last.bytes + incomingBytes > this.spec.maxBytes
    return full && last.records.length > 0 ? segmentName(Number.parseInt(last.name, 10) + 1) : last.name
  }
}

/**
 * The identity of a data file from one `lstat`: for a regular file it is the file's own identity;
 * a file swapped for a link to the very same file must not pass for it, so a link gets another
 * (it is read again, and refused).
 */
export function linkAwareIdentity(path: string): string | undefined {
  let st
  try {
    st = lstatSync(path, {bigint: true})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return st.isSymbolicLink() ? `link:${fileIdentity(path) ?? '-'}` : identityText(st)
}

/**
 * The journal just folded into its JSON file is kept as `<journal>.bak`, beside the file's own
 * `.bak` (the version before this write): together they are the segment as it was, so restoring
 * the `.bak` (`mem doctor --fix`) loses none of the folded changes. A whole write of a segment
 * without a journal removes an older `.jsonl.bak`, which its `.bak` no longer goes with.
 */
function retireJournal(journal: string): void {
  try {
    renameSync(journal, backupPath(journal))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    removeQuietly(backupPath(journal))
  }
}

/** A segment's identity when it has a journal: the JSON file's and the journal's. */
function combined(base: string, journal: string): string {
  return `${base}+${journal}`
}

export function segmentName(n: number): string {
  return `${String(n).padStart(6, '0')}.json`
}
