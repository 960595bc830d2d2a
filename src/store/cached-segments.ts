import type {Revision} from './revision.js'
import {revisionKey} from './revision.js'
import type {Segment, SegmentedFiles} from './segments.js'

export interface Change<T> {
  name: string
  before: T[]
  after: T[]
}

/**
 * Keeps the segments of one collection in memory between operations, re-reading only the
 * segments whose revision (or file identity) moved since they were last read.
 */
export class CachedSegments<T> {
  private readonly segments = new Map<string, Segment<T> & {key: string}>()

  constructor(readonly files: SegmentedFiles<T>) {}

  key(name: string): string {
    return `${this.files.spec.folder}/${name}`
  }

  /** Brings the cache up to date; returns what changed so indexes can follow. */
  refresh(revision: Revision | undefined, onMigrated?: (name: string, records: T[]) => void): Change<T>[] {
    const changes: Change<T>[] = []
    const names = this.files.names()
    const present = new Set(names)
    for (const [name, seg] of this.segments) {
      if (!present.has(name)) {
        this.segments.delete(name)
        changes.push({name, before: seg.records, after: []})
      }
    }
    for (const name of names) {
      const key = revisionKey(revision, this.key(name)) ?? `file:${this.files.fingerprint(name)}`
      const cached = this.segments.get(name)
      if (cached?.key === key) continue
      const read = this.files.read(name)
      if (read.migrated && onMigrated) onMigrated(name, read.records)
      this.segments.set(name, {name, records: read.records, bytes: read.bytes, key})
      changes.push({name, before: cached?.records ?? [], after: read.records})
    }
    return changes
  }

  all(): Segment<T>[] {
    return [...this.segments.values()].sort((a, b) => a.name.localeCompare(b.name))
  }

  last(): Segment<T> | undefined {
    return this.all().at(-1)
  }

  get(name: string): Segment<T> | undefined {
    return this.segments.get(name)
  }

  /** Records a segment this process just wrote, under the revision it wrote. */
  remember(segment: Segment<T>, revision: Revision): void {
    this.segments.set(segment.name, {...segment, key: revisionKey(revision, this.key(segment.name)) ?? ''})
  }

  *records(): Iterable<T> {
    for (const seg of this.all()) yield* seg.records
  }
}
