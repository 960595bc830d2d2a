import {createHash, type Hash} from 'node:crypto'
import {closeSync, constants, openSync, readFileSync} from 'node:fs'

import type {FeedAnswer} from '../../index/indexed-store.js'
import type {FactRecord} from '../records.js'

/**
 * The file store's change feed (Store.changesSince): what changed in an agent's facts since a
 * cursor, told by segment, which the search layer (src/index/) keeps its index by.
 *
 * A segment's key (its revision counter and the identity of its JSON file and journal, see
 * CachedSegments) moves whenever its bytes may have: so the segments whose key is the one the
 * cursor saw are as the caller last read them, and only the others are read. mem only ever
 * appends records to a segment and marks them in place; so for each segment the cursor keeps
 * how many records it held and two hashes of them, one of their ids and one of the records
 * whole. A segment read again must start with the same ids, else records went missing (a
 * backup restored, a hand edit) and nothing short of a reset is right. When its records up to
 * there are also the same, only the records appended since are new; otherwise (a mark, an
 * edit) every record of the segment is given again, which is more than changed but never less.
 *
 * The cursor also keeps each segment's smallest and largest id, so that a reader holding it
 * finds the segment of a fact without reading any (see {@link segmentsOf}): mem's ids grow with
 * time, so a segment's range seldom overlaps another's (an import of older facts may).
 */

/** What the feed needs of the store: each fact segment now, by key, and a way to read one. */
export interface FeedSource {
  /** Every fact segment present, in order, with its key taken before anything of it is read. */
  segments: readonly {name: string; key: string}[]
  /** A segment's records as they are now, and the key they were read under. */
  read(name: string): {records: readonly FactRecord[]; key: string}
}

/**
 * What the cursor keeps of one segment: its name, a hash of its key, how many records, the two
 * hashes of them, and its smallest and largest id ('' for none).
 */
type Entry = [name: string, key: string, count: number, ids: string, records: string, min: string, max: string]

const PREFIX = 'files.2.'
const SEGMENT = /^\d{6}\.json$/
const HASH = /^[A-Za-z0-9_-]{16}$/

/**
 * What changed since `cursor`, given as the segments are read: the segments the cursor saw
 * that moved are read first (one that lost records means a reset), each other segment as its
 * facts are reached, none kept (an import of 200,000 facts is not held whole). The cursor is
 * there once every fact was.
 */
export function fileChanges(source: FeedSource, cursor: string | undefined): FeedAnswer {
  const seen = cursor === undefined ? undefined : decode(cursor)
  const moved = seen && movedSince(source, seen)
  if (moved === undefined) return streamed(source, true, () => undefined)
  return streamed(source, false, (name, key) => {
    const was = seen!.get(name)
    if (was && was[1] === hashOf(key)) return {entry: was, records: [], read: 0}
    return moved.get(name)
  })
}

/**
 * The segments `seen` knew that moved since, read, each with its entry now and the records it
 * gives (those appended, or all when others changed); undefined when the cursor cannot tell
 * what changed: a segment that held records is gone, or lost some.
 */
function movedSince(source: FeedSource, seen: Map<string, Entry>): Map<string, Given> | undefined {
  const listed = new Set(source.segments.map((s) => s.name))
  for (const [name, entry] of seen) if (entry[2] > 0 && !listed.has(name)) return undefined
  const out = new Map<string, Given>()
  for (const {name, key} of source.segments) {
    const was = seen.get(name)
    if (!was || was[1] === hashOf(key)) continue
    const r = source.read(name)
    const [, , count, ids, records] = was
    const entry = entryOf(name, r.key, r.records, count)
    if (r.records.length < count || entry.prefix!.ids !== ids) return undefined
    const given = entry.prefix!.records === records ? r.records.slice(count) : r.records
    out.set(name, {entry: entry.entry, records: given, read: r.records.length})
  }
  return out
}

/** What one segment gives an answer: its entry in the cursor, its facts, and how many records were read for them. */
interface Given {
  entry: Entry
  records: readonly FactRecord[]
  read: number
}

/** An answer whose facts are read segment by segment as they are reached; `known` gives a segment's part when decided already. */
function streamed(
  source: FeedSource,
  reset: boolean,
  known: (name: string, key: string) => Given | undefined,
): FeedAnswer {
  const entries: Entry[] = []
  let read = 0
  let done = false
  function* facts(): Generator<FactRecord> {
    for (const {name, key} of source.segments) {
      let given = known(name, key)
      if (!given) {
        const r = source.read(name)
        given = {entry: entryOf(name, r.key, r.records).entry, records: r.records, read: r.records.length}
      }
      entries.push(given.entry)
      read += given.read
      yield* given.records
    }
    done = true
  }
  const after = <T>(value: () => T): T => {
    if (!done) throw new Error('an answer of the feed is read after its facts')
    return value()
  }
  return {
    reset,
    facts: facts(),
    get cursor() {
      return after(() => encode(entries))
    },
    get read() {
      return after(() => read)
    },
  }
}

/**
 * What the cursor keeps of a segment read now, and (`prefix`) the two hashes of its first
 * `prefix` records, to compare with what an earlier cursor kept of it.
 */
function entryOf(
  name: string,
  key: string,
  records: readonly FactRecord[],
  prefix?: number,
): {entry: Entry; prefix?: {ids: string; records: string}} {
  const ids = createHash('sha256')
  const whole = createHash('sha256')
  let at: {ids: string; records: string} | undefined
  for (let i = 0; i <= records.length; i++) {
    if (i === prefix) at = {ids: digest(ids.copy()), records: digest(whole.copy())}
    if (i === records.length) break
    const record = records[i]!
    ids.update(`${record.id}\n`)
    whole.update(`${JSON.stringify(record)}\n`)
  }
  let min = ''
  let max = ''
  for (const {id} of records) {
    if (min === '' || id < min) min = id
    if (id > max) max = id
  }
  const entry: Entry = [name, hashOf(key), records.length, digest(ids), digest(whole), min, max]
  return {entry, prefix: at}
}

/** Whether the segments now (`segments`, by key) are those `cursor` saw, none moved or gone. */
export function sameSegments(segments: readonly {name: string; key: string}[], cursor: string): boolean {
  const vouched = segmentsVouched(segments, cursor)
  if (vouched === undefined || vouched.size !== segments.length) return false
  return [...decode(cursor)!].every(([name, entry]) => entry[2] === 0 || vouched.has(name))
}

/** Which of `segments` (now, by key) are as `cursor` saw them; undefined for a cursor not of this store. */
export function segmentsVouched(
  segments: readonly {name: string; key: string}[],
  cursor: string,
): Set<string> | undefined {
  const seen = decode(cursor)
  if (seen === undefined) return undefined
  return new Set(segments.filter(({name, key}) => seen.get(name)?.[1] === hashOf(key)).map((s) => s.name))
}

/**
 * For each id, the segments that held records around it when `cursor` was given (mostly one),
 * by their ranges of ids; undefined for a cursor not of this store. Whether they still do is for
 * the caller to check: {@link sameSegments}, or the record as read.
 */
export function segmentsOf(cursor: string): ((id: string) => string[]) | undefined {
  const seen = decode(cursor)
  if (seen === undefined) return undefined
  const ranges = [...seen.values()].filter((e) => e[2] > 0)
  return (id) => ranges.filter(([, , , , , min, max]) => min <= id && id <= max).map(([name]) => name)
}

/** Keys hashed lately: a warm search compares every segment's key with its cursor's, mostly the same keys each time. */
const hashed = new Map<string, string>()

function hashOf(key: string): string {
  let hash = hashed.get(key)
  if (hash === undefined) {
    if (hashed.size >= 4096) hashed.clear()
    hashed.set(key, (hash = digest(createHash('sha256').update(key))))
  }
  return hash
}

/** 96 bits: enough that two different inputs never meet by chance, short enough for a cursor of a thousand segments. */
function digest(hash: Hash): string {
  return hash.digest('base64url').slice(0, 16)
}

function encode(entries: Entry[]): string {
  return PREFIX + Buffer.from(JSON.stringify(entries)).toString('base64url')
}

/** The cursor's segments by name; undefined for anything this store did not make (the caller then resets). */
function decode(cursor: string): Map<string, Entry> | undefined {
  // A search reads its cursor several times (is it current, where are the hits): decoded once.
  if (lastDecoded?.cursor === cursor) return lastDecoded.entries
  const entries = decodeAnew(cursor)
  lastDecoded = {cursor, entries}
  return entries
}

let lastDecoded: {cursor: string; entries: Map<string, Entry> | undefined} | undefined

function decodeAnew(cursor: string): Map<string, Entry> | undefined {
  if (!cursor.startsWith(PREFIX)) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!Array.isArray(parsed)) return undefined
  const out = new Map<string, Entry>()
  for (const item of parsed as unknown[]) {
    if (!Array.isArray(item) || item.length !== 7) return undefined
    const [name, key, count, ids, records, min, max] = item as unknown[]
    if (typeof name !== 'string' || !SEGMENT.test(name) || out.has(name)) return undefined
    if (!Number.isSafeInteger(count) || (count as number) < 0) return undefined
    if (![key, ids, records].every((h) => typeof h === 'string' && HASH.test(h))) return undefined
    if (typeof min !== 'string' || typeof max !== 'string') return undefined
    out.set(name, item as Entry)
  }
  return out
}

/**
 * Which of `ids` a segment file or its journal may hold: their JSON text (`"<id>"`) is looked
 * for in the bytes, so that reading a few facts by id decodes only what may hold them. mem's
 * ids are plain ASCII, which JSON writes as is.
 */
export function idsIn(paths: readonly string[], ids: readonly string[]): string[] {
  const needles = ids.map((id) => Buffer.from(JSON.stringify(id)))
  const found = new Set<string>()
  for (const path of paths) {
    let fd: number
    try {
      // Never through a link: a data file is a plain file mem wrote (src/store/file/links.ts); the read that follows refuses one.
      fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      return [...ids]
    }
    try {
      const bytes = readFileSync(fd)
      needles.forEach((needle, i) => {
        if (bytes.includes(needle)) found.add(ids[i]!)
      })
    } finally {
      closeSync(fd)
    }
  }
  return ids.filter((id) => found.has(id))
}
