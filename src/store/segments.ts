import {lstatSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {LowSync} from 'lowdb'
import type * as v from 'valibot'

import {DurableJsonFile, fileIdentity, identityText, makeDirDurably} from './durable-file.js'
import {decodeFile, encodeFile, type Kind} from './format.js'
import {refuseLinkedDataFile} from './links.js'
import {inside} from './paths.js'

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
  /** Serialized size at the last read or write, to decide when to open a new segment. */
  bytes: number
  /** For a segment this process just wrote: the identity of the file it wrote (see writeFileDurably). */
  identity?: string
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

  names(): string[] {
    try {
      return readdirSync(this.folder)
        .filter((name) => SEGMENT_NAME.test(name))
        .sort()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
  }

  path(name: string): string {
    return inside(this.folder, name)
  }

  /**
   * A cheap identity for a segment's current bytes: every write replaces the file by a rename,
   * so a new version has a new inode as well as a new time. Undefined when the file is gone.
   */
  fingerprint(name: string): string | undefined {
    return linkAwareIdentity(this.path(name))
  }

  read(name: string): Segment<T> & {migrated: boolean; version?: number} {
    const path = this.path(name)
    refuseLinkedDataFile(path)
    const db = new LowSync<unknown>(new DurableJsonFile(path), null)
    db.read()
    if (db.data === null) return {name, records: [], bytes: 0, migrated: false}
    const decoded = decodeFile(path, this.spec.kind, this.spec.record, db.data)
    return {
      name,
      records: decoded.records,
      bytes: statSync(path).size,
      migrated: decoded.migrated,
      version: decoded.version,
    }
  }

  write(name: string, records: T[]): Segment<T> {
    makeDirDurably(this.folder)
    const path = this.path(name)
    const file = new DurableJsonFile(path)
    const db = new LowSync<unknown>(file, null)
    db.data = encodeFile(this.spec.kind, records, path)
    db.write()
    return {name, records, bytes: file.written!.bytes, identity: file.written!.identity}
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

export function segmentName(n: number): string {
  return `${String(n).padStart(6, '0')}.json`
}
