import {createHash, type Hash} from 'node:crypto'
import {closeSync, constants, openSync, readFileSync} from 'node:fs'

import type {FactRecord} from '../records.js'
import type {FactChanges} from '../store.js'

/**
 * The file store's change feed (Store.changesSince): what changed in an agent's facts since a
 * cursor, told by segment, the way the warm search index catches up (src/store/file/search-view.ts).
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
 */

/** What the feed needs of the store: each fact segment now, by key, and a way to read one. */
export interface FeedSource {
  /** Every fact segment present, in order, with its key taken before anything of it is read. */
  segments: readonly {name: string; key: string}[]
  /** A segment's records as they are now, and the key they were read under. */
  read(name: string): {records: readonly FactRecord[]; key: string}
}

/** What the cursor keeps of one segment: its name, a hash of its key, how many records, and the two hashes of them. */
type Entry = [name: string, key: string, count: number, ids: string, records: string]

const PREFIX = 'files.1.'
const SEGMENT = /^\d{6}\.json$/
const HASH = /^[A-Za-z0-9_-]{16}$/

export function fileChanges(source: FeedSource, cursor: string | undefined): FactChanges {
  const reads = new Map<string, {records: readonly FactRecord[]; key: string}>()
  const read = (name: string) => {
    let r = reads.get(name)
    if (!r) reads.set(name, (r = source.read(name)))
    return r
  }
  const everything = (): FactChanges => {
    const facts: FactRecord[] = []
    const entries: Entry[] = []
    for (const {name} of source.segments) {
      const r = read(name)
      facts.push(...r.records)
      entries.push(entryOf(name, r.key, r.records).entry)
    }
    return {cursor: encode(entries), reset: true, facts}
  }

  const seen = cursor === undefined ? undefined : decode(cursor)
  if (seen === undefined) return everything()
  const listed = new Set(source.segments.map((s) => s.name))
  // A segment that held records is gone: its records went with it.
  for (const [name, entry] of seen) if (entry[2] > 0 && !listed.has(name)) return everything()

  const facts: FactRecord[] = []
  const entries: Entry[] = []
  for (const {name, key} of source.segments) {
    const was = seen.get(name)
    if (was && was[1] === hashOf(key)) {
      entries.push(was)
      continue
    }
    const r = read(name)
    const entry = entryOf(name, r.key, r.records, was?.[2])
    if (was) {
      const [, , count, ids, records] = was
      if (r.records.length < count || entry.prefix!.ids !== ids) return everything()
      facts.push(...(entry.prefix!.records === records ? r.records.slice(count) : r.records))
    } else facts.push(...r.records)
    entries.push(entry.entry)
  }
  return {cursor: encode(entries), reset: false, facts}
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
  const entry: Entry = [name, hashOf(key), records.length, digest(ids), digest(whole)]
  return {entry, prefix: at}
}

function hashOf(key: string): string {
  return digest(createHash('sha256').update(key))
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
    if (!Array.isArray(item) || item.length !== 5) return undefined
    const [name, key, count, ids, records] = item as unknown[]
    if (typeof name !== 'string' || !SEGMENT.test(name) || out.has(name)) return undefined
    if (!Number.isSafeInteger(count) || (count as number) < 0) return undefined
    if (![key, ids, records].every((h) => typeof h === 'string' && HASH.test(h))) return undefined
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
