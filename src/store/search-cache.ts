import {createHash, randomBytes} from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import {endianness} from 'node:os'
import {join} from 'node:path'

import * as v from 'valibot'

import type {CompactFactIndex, FactIndex as FactIndexClass} from '../search/fact-index.js'
import {DIR_MODE, FILE_MODE} from './durable-file.js'
import {isLink} from './links.js'
import {FactRecord, isLive} from './records.js'

/**
 * The search index of one agent, saved beside its segments so that a cold `mem search` loads
 * it instead of re-indexing every fact. It is derived data: it says which segment files (by
 * cache key: revision counter and file identity) it was made from, and a reader trusts it
 * only for segments whose key is still the same, reading every other segment and bringing
 * the index up to date with it (src/store/saved-index.ts). Besides the index, it keeps each
 * indexed fact's record as it was read from those segments, so that a search need not read
 * a segment just to show a fact. Anything unreadable, damaged (checksum), from another build
 * of the ranking code or of another version is thrown away and rebuilt.
 * See docs/adr/0003-storage-layout.md.
 */

/**
 * Which ranking code wrote an index: the build puts a hash of the search sources and of the
 * libraries they use here. Without it (running from sources), nothing is saved or loaded,
 * because an index saved by other code could tokenize differently.
 */
declare const MEM_SEARCH_SIGNATURE: string | undefined
export const SIGNATURE: string | undefined = typeof MEM_SEARCH_SIGNATURE === 'string' ? MEM_SEARCH_SIGNATURE : undefined

const FORMAT = 'mem.search-index'
/** Bumped whenever the layout below changes: a file of another version is rebuilt, never read. */
const VERSION = 6

/** A fact segment the saved index was made from, with its cache key at the time. */
export interface SavedSegment {
  name: string
  key: string
}

/**
 * The file: one line of JSON (this header), then two parts, each behind its own checksum. The
 * index part: ids, terms, words as written (those that stem to another term), creation times
 * and thread names as UTF-8 text, one per line; the
 * distinct tag lists as one JSON array; zero padding to a multiple of 8 bytes; the creation
 * times as 64-bit floats; 32-bit integers (document offsets; for each fact its segment, its tag
 * list, its thread (0: none, else 1 + its line), where its record starts and its length; the
 * postings table and document frequencies); one byte
 * per fact saying whether it asks; zero padding to a multiple of 4 bytes; last, what a loaded
 * index keeps, as 32-bit integers: the term pairs and the postings (see CompactDocs). Numbers
 * are in the byte order the header names. The records part: each fact's record as JSON, back
 * to back. A long-running process, which reads every segment anyway, reads only the index
 * part. Loading is a few reads, checksums, splits and typed-array views: no JSON parse of the
 * index and no object per fact.
 */
interface Header {
  format: typeof FORMAT
  version: typeof VERSION
  signature: string
  endian: 'LE' | 'BE'
  segments: SavedSegment[]
  /** Byte lengths of the index part's text blocks, and of the two parts. */
  bytes: {
    ids: number
    terms: number
    words: number
    dates: number
    threads: number
    tags: number
    index: number
    records: number
  }
  /** SHA-256 (hex, first 32 digits) of each part. */
  checksums: {index: string; records: string}
  /** Counts of ids, terms, pair integers and postings integers. */
  ids: number
  terms: number
  pairs: number
  postings: number
}

/** An index read back from its file. */
export interface SavedIndex {
  /** The index, but for the facts' creation times as text: see {@link createdAt}. */
  index: Omit<CompactFactIndex, 'createdAt'>
  /** The creation times as saved (a long-running process takes them from the records it holds instead). */
  createdAt(): string[]
  segments: SavedSegment[]
  /** For each indexed fact (by slot), its segment's position in `segments`. */
  segmentOf: Uint32Array
  /**
   * The record of the fact in `slot` as saved; undefined if it does not decode as a live fact
   * with that id, or if the records were not read.
   */
  record(slot: number): FactRecord | undefined
  /** The saved JSON text of that record, to save it again unchanged (undefined if not read). */
  recordText(slot: number): string | undefined
}

/** What saving needs besides the index: where each fact lives and what its record says. */
export interface IndexSource {
  /** Every fact segment the index reflects, in order, with the key it had when read. */
  segments: SavedSegment[]
  /** The segment holding the live fact `id`, and its record as JSON. */
  locate(id: string): {segment: string; text: string} | undefined
}

export function searchCachePath(agentDir: string): string {
  return join(cacheDir(agentDir), 'search-index.bin')
}

function cacheDir(agentDir: string): string {
  return join(agentDir, 'cache')
}

/** Where the JSON index of earlier versions was saved; removed when the new one is. */
function legacyCachePath(agentDir: string): string {
  return join(cacheDir(agentDir), 'search-index.json')
}

export type FactIndexType = typeof FactIndexClass

/** The search code, loaded on first search only, so that writes (mem add) never pay for it. */
export async function loadFactIndex(): Promise<FactIndexType> {
  return (await import('../search/fact-index.js')).FactIndex
}

const LITTLE_ENDIAN = endianness() === 'LE'

const SavedSegments = v.array(v.object({name: v.string(), key: v.string()}))
const TagLists = v.array(v.array(v.string()))

function checksum(...parts: Buffer[]): string {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return hash.digest('hex').slice(0, 32)
}

/**
 * The saved index if it is whole, of this version and from this build; undefined otherwise.
 * `records`: also read the facts' records (a short-lived search shows them from here).
 */
export function readSaved(agentDir: string, options: {records: boolean}): SavedIndex | undefined {
  // Through a link, the index could be anyone's (src/store/links.ts): it is rebuilt instead.
  if (SIGNATURE === undefined || isLink(cacheDir(agentDir))) return undefined
  let fd: number | undefined
  try {
    fd = openSync(searchCachePath(agentDir), constants.O_RDONLY | constants.O_NOFOLLOW)
    const size = fstatSync(fd).size
    const head = readHeader(fd, size)
    if (!head || !usable(head.header)) return undefined
    const {header: h, length} = head
    if (length + h.bytes.index + h.bytes.records !== size) return undefined
    // The pairs and postings, which a loaded index keeps, each get a buffer of their own, so
    // that the rest of what is read here can be collected.
    const kept = 4 * (h.pairs + h.postings)
    if (kept > h.bytes.index) return undefined
    const rest = readAt(fd, length, h.bytes.index - kept)
    const pairs = readAt(fd, length + rest.length, 4 * h.pairs)
    const postings = readAt(fd, length + rest.length + pairs.length, 4 * h.postings)
    if (checksum(rest, pairs, postings) !== h.checksums.index) return undefined
    const records = options.records ? readAt(fd, length + h.bytes.index, h.bytes.records) : undefined
    if (records && checksum(records) !== h.checksums.records) return undefined
    return decode(
      h,
      rest,
      new Uint32Array(pairs.buffer, 0, h.pairs),
      new Uint32Array(postings.buffer, 0, h.postings),
      records,
    )
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function readHeader(fd: number, size: number): {header: unknown; length: number} | undefined {
  for (let want = Math.min(size, 65536); ; want = Math.min(size, want * 4)) {
    const start = readAt(fd, 0, want)
    const eol = start.indexOf(10)
    if (eol >= 0) return {header: JSON.parse(start.toString('utf8', 0, eol)), length: eol + 1}
    if (want === size) return undefined
  }
}

/** `length` bytes from `position`, in a buffer of their own (so its typed-array views are aligned). */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafeSlow(length)
  for (let done = 0; done < length;) {
    const n = readSync(fd, buffer, done, length - done, position + done)
    if (n === 0) throw new Error('the file ended early')
    done += n
  }
  return buffer
}

function usable(h: unknown): h is Header {
  const header = h as Header
  if (
    header?.format !== FORMAT ||
    header.version !== VERSION ||
    header.signature !== SIGNATURE ||
    header.endian !== (LITTLE_ENDIAN ? 'LE' : 'BE')
  )
    return false
  if (
    !v.is(SavedSegments, header.segments) ||
    typeof header.bytes !== 'object' ||
    header.bytes === null ||
    typeof header.checksums !== 'object' ||
    header.checksums === null
  )
    return false
  const {ids, terms, words, dates, threads, tags, index, records} = header.bytes
  return [
    ids,
    terms,
    words,
    dates,
    threads,
    tags,
    index,
    records,
    header.ids,
    header.terms,
    header.pairs,
    header.postings,
  ].every((n) => Number.isSafeInteger(n) && n >= 0)
}

function decode(
  h: Header,
  part: Buffer,
  pairs: Uint32Array,
  postings: Uint32Array,
  records: Buffer | undefined,
): SavedIndex | undefined {
  const n = h.ids
  const textBytes = h.bytes.ids + h.bytes.terms + h.bytes.words + h.bytes.dates + h.bytes.threads + h.bytes.tags
  if (
    part.length !== align4(align8(textBytes) + 8 * n + 4 * (n + 1 + n + n + n + n + 1 + n + h.terms + 1 + h.terms) + n)
  )
    return undefined
  let at = 0
  const text = (length: number): string => part.toString('utf8', at, (at += length))
  const ids = lines(text(h.bytes.ids))
  const terms = lines(text(h.bytes.terms))
  const surfaces = lines(text(h.bytes.words))
  const datesAt = at
  at += h.bytes.dates
  const threads = lines(text(h.bytes.threads))
  const tagLists: unknown = JSON.parse(text(h.bytes.tags))
  at = align8(at)
  const times = new Float64Array(part.buffer, at, n)
  at += 8 * n
  const numbers = (count: number): Uint32Array => {
    const view = new Uint32Array(part.buffer, at, count)
    at += 4 * count
    return view
  }
  const offsets = numbers(n + 1)
  const segmentOf = numbers(n)
  const tagOf = numbers(n)
  const threadOf = numbers(n)
  const recordStart = numbers(n + 1)
  const lengths = numbers(n)
  const starts = numbers(h.terms + 1)
  const df = numbers(h.terms)
  const asks = new Uint8Array(part.buffer, at, n)

  if (ids.length !== n || terms.length !== h.terms || !v.is(TagLists, tagLists)) return undefined
  if (recordStart[0] !== 0 || recordStart[n] !== h.bytes.records) return undefined
  for (let slot = 0; slot < n; slot++) {
    if (
      tagOf[slot]! >= tagLists.length ||
      threadOf[slot]! > threads.length ||
      segmentOf[slot]! >= h.segments.length ||
      recordStart[slot + 1]! < recordStart[slot]!
    )
      return undefined
  }

  const recordText = (slot: number): string | undefined =>
    records?.toString('utf8', recordStart[slot], recordStart[slot + 1])
  return {
    index: {
      ids,
      terms,
      surfaces,
      offsets,
      pairs,
      lengths,
      starts,
      df,
      postings,
      times,
      tagLists,
      tagOf,
      asks,
      threads,
      threadOf,
    },
    createdAt() {
      const createdAt = lines(part.toString('utf8', datesAt, datesAt + h.bytes.dates))
      if (createdAt.length !== n) throw new Error('the creation times do not match the facts')
      return createdAt
    },
    segments: h.segments,
    segmentOf,
    recordText,
    record(slot) {
      const text = recordText(slot)
      if (text === undefined) return undefined
      try {
        const parsed = v.safeParse(FactRecord, JSON.parse(text))
        return parsed.success && parsed.output.id === ids[slot] && isLive(parsed.output) ? parsed.output : undefined
      } catch {
        return undefined
      }
    },
  }
}

function lines(text: string): string[] {
  return text === '' ? [] : text.split('\n')
}

function align4(n: number): number {
  return (n + 3) & ~3
}

function align8(n: number): number {
  return (n + 7) & ~7
}

function encode(data: CompactFactIndex, source: IndexSource): Buffer | undefined {
  // One per line: an id, term or time holding a line break cannot be saved (none should).
  if (
    [data.ids, data.terms, data.surfaces, data.createdAt, data.threads].some((list) =>
      list.some((text) => text.includes('\n')),
    )
  )
    return undefined
  if (data.threads.includes('')) return undefined
  const n = data.ids.length
  const segmentAt = new Map(source.segments.map((s, i) => [s.name, i]))
  const segmentOf = new Uint32Array(n)
  const recordStart = new Uint32Array(n + 1)
  const recordTexts: Buffer[] = []
  for (let slot = 0; slot < n; slot++) {
    const where = source.locate(data.ids[slot]!)
    const segment = where && segmentAt.get(where.segment)
    if (where === undefined || segment === undefined) return undefined
    segmentOf[slot] = segment
    const text = Buffer.from(where.text, 'utf8')
    recordTexts.push(text)
    recordStart[slot + 1] = recordStart[slot]! + text.length
  }
  const texts = [
    data.ids.join('\n'),
    data.terms.join('\n'),
    data.surfaces.join('\n'),
    data.createdAt.join('\n'),
    data.threads.join('\n'),
    JSON.stringify(data.tagLists),
  ].map((t) => Buffer.from(t, 'utf8'))
  const textLength = texts.reduce((sum, t) => sum + t.length, 0)
  const bytes = (a: Float64Array | Uint32Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
  const numbers = [
    data.times,
    data.offsets,
    segmentOf,
    data.tagOf,
    data.threadOf,
    recordStart,
    data.lengths,
    data.starts,
    data.df,
    data.asks,
  ].map(bytes)
  const restLength = align8(textLength) + numbers.reduce((sum, b) => sum + b.length, 0)
  const padding = (length: number, to: number) => Buffer.alloc(to - length)
  const part = Buffer.concat([
    ...texts,
    padding(textLength, align8(textLength)),
    ...numbers,
    padding(restLength, align4(restLength)),
    bytes(data.pairs),
    bytes(data.postings),
  ])
  const records = Buffer.concat(recordTexts)
  const header: Header = {
    format: FORMAT,
    version: VERSION,
    signature: SIGNATURE!,
    endian: LITTLE_ENDIAN ? 'LE' : 'BE',
    segments: source.segments,
    bytes: {
      ids: texts[0]!.length,
      terms: texts[1]!.length,
      words: texts[2]!.length,
      dates: texts[3]!.length,
      threads: texts[4]!.length,
      tags: texts[5]!.length,
      index: part.length,
      records: records.length,
    },
    checksums: {index: checksum(part), records: checksum(records)},
    ids: n,
    terms: data.terms.length,
    pairs: data.pairs.length,
    postings: data.postings.length,
  }
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), part, records])
}

/**
 * Saves the index for the next cold process: a temporary file renamed into place (readers see
 * the old file or the new one, never half of one), mode 0600, not fsynced because losing it
 * costs only a rebuild (a file cut short fails its length or checksum tests). No lock: two
 * savers each rename a whole file, and whichever wins is brought up to date by the next reader.
 */
export function saveIndex(agentDir: string, index: FactIndexClass, source: IndexSource): void {
  if (SIGNATURE === undefined) return
  try {
    const encoded = encode(index.toCompact(), source)
    if (!encoded) return
    // A copy of every live fact is never written through a linked cache/ (src/store/links.ts).
    if (isLink(cacheDir(agentDir))) return
    mkdirSync(cacheDir(agentDir), {recursive: true, mode: DIR_MODE})
    const path = searchCachePath(agentDir)
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      writeFileSync(tmp, encoded, {mode: FILE_MODE, flag: 'wx'})
      renameSync(tmp, path)
    } finally {
      rmSync(tmp, {force: true})
    }
    rmSync(legacyCachePath(agentDir), {force: true})
  } catch {
    // A cache that cannot be saved (full disk, read-only folder) only costs the next process a rebuild; the search goes on.
  }
}
