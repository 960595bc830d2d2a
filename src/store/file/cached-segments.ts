import type {Revision} from './revision.js'
import {revisionKey} from './revision.js'
import type {Segment, SegmentedFiles} from './segments.js'

export interface Change<T> {
  name: string
  before: T[]
  after: T[]
}

/**
 * Keeps the segments of one collection in memory between operations and re-reads only the
 * segments that moved since they were last read, as told by two cheap signals together:
 * the segment's counter in the agent's revision stamp, and the file's identity (inode, size,
 * modification time). The stamp alone would miss a segment written by a process that died
 * before stamping; the identity alone could, in theory, repeat after an inode is reused.
 *
 * Every refresh returns what changed, so derived views (the search index, the id map) follow.
 */
export class CachedSegments<T> {
  private readonly segments = new Map<string, Segment<T> & {key: string}>()
  private listed: string[] = []
  /** Identities of segment files this process decoded whole and found sound. */
  private readonly checked = new Map<string, string>()
  /** The identity each segment had when last stat'ed. */
  private readonly seen = new Map<string, string>()

  constructor(readonly files: SegmentedFiles<T>) {}

  key(name: string): string {
    return `${this.files.spec.folder}/${name}`
  }

  /** The cache key of a segment file of this identity, under this revision stamp. */
  keyOf(revision: Revision | undefined, name: string, identity: string): string {
    return `${revisionKey(revision, this.key(name)) ?? '-'}|${identity}`
  }

  /** The segment's current cache key; a file that vanished between listing and stat has none. */
  private currentKey(
    revision: Revision | undefined,
    name: string,
    identity = this.files.fingerprint(name),
  ): string | undefined {
    if (identity === undefined) return undefined
    return `${revisionKey(revision, this.key(name)) ?? '-'}|${identity}`
  }

  /** Lists the folder; segments gone from it are dropped (and reported as emptied). */
  private scan(changes: Change<T>[]): string[] {
    const names = this.files.names()
    const present = new Set(names)
    for (const [name, seg] of this.segments) {
      if (!present.has(name)) {
        this.segments.delete(name)
        changes.push({name, before: seg.records, after: []})
      }
    }
    this.listed = names
    return names
  }

  private ensure(
    revision: Revision | undefined,
    name: string,
    changes: Change<T>[],
    onMigrated?: (name: string, records: T[]) => void,
  ): void {
    const identity = this.files.fingerprint(name)
    const key = this.currentKey(revision, name, identity)
    if (identity === undefined) this.seen.delete(name)
    else this.seen.set(name, identity)
    const cached = this.segments.get(name)
    if (key !== undefined && cached?.key === key) return
    const read = this.files.read(name)
    if (identity !== undefined) this.checked.set(name, identity)
    if (read.migrated && onMigrated) onMigrated(name, read.records)
    // Keyed by what was seen before reading: if the file moved in between, the next refresh reads it again.
    this.segments.set(name, {
      name,
      records: read.records,
      bytes: read.bytes,
      version: read.version,
      journal: read.journal,
      key: key ?? '',
    })
    changes.push({name, before: cached?.records ?? [], after: read.records})
  }

  /** Brings every segment up to date; returns what changed. */
  refresh(revision: Revision | undefined, onMigrated?: (name: string, records: T[]) => void): Change<T>[] {
    const changes: Change<T>[] = []
    for (const name of this.scan(changes)) this.ensure(revision, name, changes, onMigrated)
    return changes
  }

  /**
   * Every listed segment with its current cache key, each stat'ed once, for a view that follows
   * the segments by key instead of holding them (the change feed, change-feed.ts); follow it with
   * {@link verifySeen}. Held segments gone from the folder are dropped and reported in `changes`.
   */
  scanKeys(revision: Revision | undefined, changes: Change<T>[]): {name: string; key: string}[] {
    const out: {name: string; key: string}[] = []
    for (const name of this.scan(changes)) {
      const identity = this.files.fingerprint(name)
      const key = this.currentKey(revision, name, identity)
      if (identity === undefined || key === undefined) {
        this.seen.delete(name)
        continue
      }
      this.seen.set(name, identity)
      out.push({name, key})
    }
    return out
  }

  /**
   * After {@link scanKeys}: every segment neither held nor vouched for (by the revision stamp,
   * or by this process having decoded it as it was stat'ed) is decoded, as {@link verifyRest}
   * does, so that a damaged file fails the operation.
   */
  verifySeen(revision: Revision | undefined, onMigrated?: (name: string, records: T[]) => void): void {
    for (const name of this.listed) {
      const identity = this.seen.get(name)
      if (identity !== undefined && !this.segments.has(name)) this.checkSound(revision, name, identity, onMigrated)
    }
  }

  /** Decodes a segment not held here, unless the revision stamp or this process already vouches for `identity`. */
  private checkSound(
    revision: Revision | undefined,
    name: string,
    identity: string,
    onMigrated?: (name: string, records: T[]) => void,
  ): void {
    if (revision?.files?.[this.key(name)] === identity || this.checked.get(name) === identity) return
    const read = this.files.read(name)
    if (read.migrated && onMigrated) onMigrated(name, read.records)
    this.checked.set(name, identity)
  }

  /**
   * The identity each listed segment had when this process last stat'ed it (in the refresh of
   * the operation under way): an operation that already looked at every segment need not stat
   * them again.
   */
  seenIdentities(): Map<string, string> {
    const out = new Map<string, string>()
    for (const name of this.listed) {
      const identity = this.seen.get(name)
      if (identity !== undefined) out.set(name, identity)
    }
    return out
  }

  /** Every listed segment with its current cache key, for comparing with a saved view; vanished ones are left out. */
  currentKeys(revision: Revision | undefined): {name: string; key: string}[] {
    const out: {name: string; key: string}[] = []
    for (const name of this.files.names()) {
      const key = this.currentKey(revision, name)
      if (key !== undefined) out.push({name, key})
    }
    return out
  }

  /** Brings the named segments up to date, leaving the others unread; returns what changed. */
  refreshSome(
    revision: Revision | undefined,
    names: readonly string[],
    onMigrated?: (name: string, records: T[]) => void,
  ): Change<T>[] {
    const changes: Change<T>[] = []
    const listed = new Set(this.scan(changes))
    for (const name of names) if (listed.has(name)) this.ensure(revision, name, changes, onMigrated)
    return changes
  }

  /**
   * One segment as it is now, for a view that does not keep it: the held copy (brought up to
   * date, and reported in `changes` if it moved), or else the file read without keeping its
   * records. The key is taken before reading, as for any read. Undefined when the file is gone.
   */
  peek(
    revision: Revision | undefined,
    name: string,
    changes: Change<T>[],
    onMigrated?: (name: string, records: T[]) => void,
  ): {records: T[]; key: string; held: boolean} | undefined {
    if (this.segments.has(name)) {
      this.ensure(revision, name, changes, onMigrated)
      const seg = this.segments.get(name)!
      return {records: seg.records, key: seg.key, held: true}
    }
    const identity = this.files.fingerprint(name)
    const key = this.currentKey(revision, name, identity)
    if (key === undefined) return undefined
    const read = this.files.read(name)
    if (identity !== undefined) this.checked.set(name, identity)
    if (read.migrated && onMigrated) onMigrated(name, read.records)
    return {records: read.records, key, held: false}
  }

  /**
   * One record of a segment this process does not hold, read alone (SegmentedFiles.readOne),
   * when the segment still has `key` once it is read: the record then comes from the very file
   * the caller's index reflects. Undefined otherwise, and the caller reads the segment whole.
   */
  one(revision: Revision | undefined, name: string, id: string, key: string): T | undefined {
    if (this.segments.has(name)) return undefined
    const record = this.files.readOne(name, id)
    return record !== undefined && this.currentKey(revision, name) === key ? record : undefined
  }

  /**
   * The records whose `field` is `value` in a segment this process does not hold, read without
   * decoding the others (SegmentedFiles.readWith), when the file still has `identity` once they
   * are read. Undefined when that cannot be told, and the caller reads the segment whole.
   */
  withValue(name: string, identity: string, field: string, value: string): T[] | undefined {
    if (this.segments.has(name)) return undefined
    const records = this.files.readWith(name, field, value)
    return records !== undefined && this.files.fingerprint(name) === identity ? records : undefined
  }

  /** Stops holding a segment's records: the next operation that needs them reads the file. */
  release(name: string): void {
    this.segments.delete(name)
  }

  /** True when this process holds the segment's records. */
  holds(name: string): boolean {
    return this.segments.has(name)
  }

  /**
   * Makes sure every segment the operation did not read is still sound, so that a damaged
   * file fails every operation on the agent, not only those that happen to read it. A file
   * whose identity the revision stamp (or this process) vouches for is trusted as is; any
   * other is decoded. Held segments that moved are re-read; returns what changed.
   *
   * `last`: the last segment is also brought up to date, held or not, which is all that
   * appending a record needs to know; one listing and one stat per segment serve both. `also`:
   * segments to bring up to date and hold the same way (those a change marks facts in).
   */
  verifyRest(
    revision: Revision | undefined,
    onMigrated?: (name: string, records: T[]) => void,
    options: {last?: boolean; also?: readonly string[]} = {},
  ): Change<T>[] {
    const changes: Change<T>[] = []
    const names = this.scan(changes)
    const last = options.last === true ? names.at(-1) : undefined
    for (const name of names) {
      if (name === last || this.segments.has(name) || options.also?.includes(name)) {
        this.ensure(revision, name, changes, onMigrated)
        continue
      }
      const identity = this.files.fingerprint(name)
      if (identity === undefined) this.seen.delete(name)
      else {
        this.seen.set(name, identity)
        this.checkSound(revision, name, identity, onMigrated)
      }
    }
    return changes
  }

  /**
   * Segment files found sound by decoding, for the revision stamp to vouch for them next;
   * `settled`: only those without a journal, whose identity does not move with every append.
   */
  checkedIdentities(settled = false): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [name, identity] of this.checked)
      if (!settled || !this.files.hasJournal(name)) out[this.key(name)] = identity
    return out
  }

  /** True when every listed segment is held (after {@link refresh}, not after {@link verifyRest}). */
  complete(): boolean {
    return this.listed.every((name) => this.segments.has(name))
  }

  all(): Segment<T>[] {
    return this.listed.filter((name) => this.segments.has(name)).map((name) => this.segments.get(name)!)
  }

  last(): Segment<T> | undefined {
    const name = this.listed.at(-1)
    return name === undefined ? undefined : this.segments.get(name)
  }

  get(name: string): Segment<T> | undefined {
    return this.segments.get(name)
  }

  /** Records a segment this process just wrote, under the revision it stamped. */
  remember(segment: Segment<T>, revision: Revision | undefined): void {
    if (!this.listed.includes(segment.name)) this.listed = [...this.listed, segment.name].sort()
    // Keyed by the identity of the file this process wrote, never by what the path names now:
    // had another process replaced it since, the key would vouch for records this one never saw.
    const key =
      segment.identity === undefined
        ? ''
        : `${revisionKey(revision, this.key(segment.name)) ?? '-'}|${segment.identity}`
    if (segment.identity !== undefined) this.checked.set(segment.name, segment.identity)
    this.segments.set(segment.name, {...segment, key})
  }

  /** Currents keys of every listed segment, for a persisted view to say what it reflects. */
  keys(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const name of this.listed) {
      const seg = this.segments.get(name)
      if (seg) out[name] = seg.key
    }
    return out
  }

  /** How many records are held. */
  count(): number {
    let total = 0
    for (const seg of this.segments.values()) total += seg.records.length
    return total
  }

  /** Size of what is held, as serialized. */
  bytes(): number {
    let total = 0
    for (const seg of this.segments.values()) total += seg.bytes
    return total
  }

  *records(): Iterable<T> {
    for (const seg of this.all()) yield* seg.records
  }
}
