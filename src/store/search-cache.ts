import {createHash, randomBytes} from 'node:crypto'
import {mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {endianness} from 'node:os'
import {join} from 'node:path'

import * as v from 'valibot'

import type {CompactFactIndex, FactIndex as FactIndexClass} from '../search/fact-index.js'
import {DIR_MODE, FILE_MODE} from './durable-file.js'
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
const VERSION = 4

/** A fact segment the saved index was made from, with its cache key at the time. */
export interface SavedSegment {
  name: string
  key: string
}

/**
 * The file: one line of JSON (this header, padded with spaces to a multiple of 8 bytes), then
 * the body: ids, terms and creation times as UTF-8 text, one per line; the distinct tag lists
 * as one JSON array; the records' JSON texts back to back; zero padding to a multiple of 8
 * bytes; the creation times as 64-bit floats; 32-bit integers (document offsets, term pairs,
 * and for each fact its segment, its tag list and where its record starts); last, one byte
 * per fact saying whether it asks. Numbers are in the byte order the header names. Loading is
 * a read, a checksum, a few splits and typed-array views: no JSON parse of the index and no
 * object per fact.
 */
interface Header {
  format: typeof FORMAT
  version: typeof VERSION
  signature: string
  endian: 'LE' | 'BE'
  /** SHA-256 (hex, first 32 digits) of the body. */
  checksum: string
  segments: SavedSegment[]
  /** Byte lengths of the text blocks. */
  bytes: {ids: number; terms: number; dates: number; tags: number; records: number}
  /** Counts of ids, terms and pair integers. */
  ids: number
  terms: number
  pairs: number
}

/** An index read back from its file. */
export interface SavedIndex {
  index: CompactFactIndex
  segments: SavedSegment[]
  /** For each indexed fact (by slot), its segment's position in `segments`. */
  segmentOf: Uint32Array
  /** The record of the fact in `slot` as saved; undefined if it does not decode as a live fact with that id. */
  record(slot: number): FactRecord | undefined
  /** The saved JSON text of that record, to save it again unchanged. */
  recordText(slot: number): string
}

/** What saving needs besides the index: where each fact lives and what its record says. */
export interface IndexSource {
  /** Every fact segment the index reflects, in order, with the key it had when read. */
  segments: SavedSegment[]
  /** The segment holding the live fact `id`, and its record as JSON. */
  locate(id: string): {segment: string; text: string} | undefined
}

export function searchCachePath(agentDir: string): string {
  return join(agentDir, 'cache', 'search-index.bin')
}

/** Where the JSON index of earlier versions was saved; removed when the new one is. */
function legacyCachePath(agentDir: string): string {
  return join(agentDir, 'cache', 'search-index.json')
}

export type FactIndexType = typeof FactIndexClass

/** The search code, loaded on first search only, so that writes (mem add) never pay for it. */
export async function loadFactIndex(): Promise<FactIndexType> {
  return (await import('../search/fact-index.js')).FactIndex
}

const LITTLE_ENDIAN = endianness() === 'LE'

const SavedSegments = v.array(v.object({name: v.string(), key: v.string()}))
const TagLists = v.array(v.array(v.string()))

function checksum(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 32)
}

/** The saved index if it is whole, of this version and from this build; undefined otherwise. */
export function readSaved(agentDir: string): SavedIndex | undefined {
  if (SIGNATURE === undefined) return undefined
  try {
    return decode(readFileSync(searchCachePath(agentDir)))
  } catch {
    return undefined
  }
}

function decode(file: Buffer): SavedIndex | undefined {
  const eol = file.indexOf(10)
  if (eol < 0) return undefined
  const h = JSON.parse(file.toString('utf8', 0, eol)) as Header
  if (h?.format !== FORMAT || h.version !== VERSION || h.signature !== SIGNATURE || h.endian !== (LITTLE_ENDIAN ? 'LE' : 'BE')) return undefined
  if (!v.is(SavedSegments, h.segments) || typeof h.bytes !== 'object' || h.bytes === null) return undefined
  const {ids: idBytes, terms: termBytes, dates: dateBytes, tags: tagBytes, records: recordBytes} = h.bytes
  if (![idBytes, termBytes, dateBytes, tagBytes, recordBytes, h.ids, h.terms, h.pairs].every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined
  const body = file.subarray(eol + 1)
  let at = body.byteOffset
  const take = (length: number): Buffer => {
    const part = Buffer.from(body.buffer, at, length)
    at += length
    return part
  }
  const idText = take(idBytes)
  const termText = take(termBytes)
  const dateText = take(dateBytes)
  const tagText = take(tagBytes)
  const records = take(recordBytes)
  at = body.byteOffset + align8(at - body.byteOffset)
  const n = h.ids
  const numbers = (count: number): Uint32Array => {
    const view = uint32s(body, at, count)
    at += 4 * count
    return view
  }
  const expected = align8(idBytes + termBytes + dateBytes + tagBytes + recordBytes) + 8 * n + 4 * (n + 1 + h.pairs + n + n + n + 1) + n
  if (body.length !== expected || checksum(body) !== h.checksum) return undefined
  const times = float64s(body, at, n)
  at += 8 * n
  const offsets = numbers(n + 1)
  const pairs = numbers(h.pairs)
  const segmentOf = numbers(n)
  const tagOf = numbers(n)
  const recordStart = numbers(n + 1)
  const asks = new Uint8Array(body.buffer, at, n)

  const ids = lines(idText.toString('utf8'))
  const terms = lines(termText.toString('utf8'))
  const createdAt = lines(dateText.toString('utf8'))
  const tagLists: unknown = JSON.parse(tagText.toString('utf8'))
  if (ids.length !== n || terms.length !== h.terms || createdAt.length !== n || !v.is(TagLists, tagLists)) return undefined
  const tags: string[][] = new Array<string[]>(n)
  for (let slot = 0; slot < n; slot++) {
    const list = tagLists[tagOf[slot]!]
    if (list === undefined || segmentOf[slot]! >= h.segments.length || recordStart[slot + 1]! < recordStart[slot]!) return undefined
    tags[slot] = list
  }
  if (recordStart[0] !== 0 || recordStart[n] !== recordBytes) return undefined

  const recordText = (slot: number): string => records.toString('utf8', recordStart[slot], recordStart[slot + 1])
  return {
    index: {ids, terms, offsets, pairs, createdAt, times, tags, asks},
    segments: h.segments,
    segmentOf,
    recordText,
    record(slot) {
      try {
        const parsed = v.safeParse(FactRecord, JSON.parse(recordText(slot)))
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

function align8(n: number): number {
  return (n + 7) & ~7
}

/** Views when the bytes are aligned (a file's own buffer always is), copies otherwise. */
function uint32s(body: Buffer, at: number, count: number): Uint32Array {
  if (at % 4 === 0) return new Uint32Array(body.buffer, at, count)
  return new Uint32Array(body.buffer.slice(at, at + 4 * count))
}

function float64s(body: Buffer, at: number, count: number): Float64Array {
  if (at % 8 === 0) return new Float64Array(body.buffer, at, count)
  return new Float64Array(body.buffer.slice(at, at + 8 * count))
}

function encode(data: CompactFactIndex, source: IndexSource): Buffer | undefined {
  // One per line: an id, term or time holding a line break cannot be saved (none should).
  if ([data.ids, data.terms, data.createdAt].some((list) => list.some((text) => text.includes('\n')))) return undefined
  const n = data.ids.length
  const segmentAt = new Map(source.segments.map((s, i) => [s.name, i]))
  const tagListAt = new Map<readonly string[], number>()
  const tagLists: (readonly string[])[] = []
  const segmentOf = new Uint32Array(n)
  const tagOf = new Uint32Array(n)
  const recordStart = new Uint32Array(n + 1)
  const recordTexts: Buffer[] = []
  for (let slot = 0; slot < n; slot++) {
    const where = source.locate(data.ids[slot]!)
    const segment = where && segmentAt.get(where.segment)
    if (where === undefined || segment === undefined) return undefined
    segmentOf[slot] = segment
    const tags = data.tags[slot]!
    let t = tagListAt.get(tags)
    if (t === undefined) {
      t = tagLists.push(tags) - 1
      tagListAt.set(tags, t)
    }
    tagOf[slot] = t
    const text = Buffer.from(where.text, 'utf8')
    recordTexts.push(text)
    recordStart[slot + 1] = recordStart[slot]! + text.length
  }
  const texts = [data.ids.join('\n'), data.terms.join('\n'), data.createdAt.join('\n'), JSON.stringify(tagLists)].map((t) => Buffer.from(t, 'utf8'))
  const records = Buffer.concat(recordTexts)
  const textLength = texts.reduce((sum, t) => sum + t.length, 0) + records.length
  const bytes = (a: Float64Array | Uint32Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
  const numbers = [data.times, data.offsets, data.pairs, segmentOf, tagOf, recordStart, data.asks].map(bytes)
  const body = Buffer.concat([...texts, records, Buffer.alloc(align8(textLength) - textLength), ...numbers])
  const header: Header = {
    format: FORMAT,
    version: VERSION,
    signature: SIGNATURE!,
    endian: LITTLE_ENDIAN ? 'LE' : 'BE',
    checksum: checksum(body),
    segments: source.segments,
    bytes: {ids: texts[0]!.length, terms: texts[1]!.length, dates: texts[2]!.length, tags: texts[3]!.length, records: records.length},
    ids: n,
    terms: data.terms.length,
    pairs: data.pairs.length,
  }
  // Spaces pad the header line so the body, and with it every number array, starts 8-byte aligned in the file.
  const line = JSON.stringify(header)
  const headerBytes = Buffer.byteLength(line, 'utf8') + 1
  return Buffer.concat([Buffer.from(`${line}${' '.repeat(align8(headerBytes) - headerBytes)}\n`, 'utf8'), body])
}

/**
 * Saves the index for the next cold process: a temporary file renamed into place (readers see
 * the old file or the new one, never half of one), mode 0600, not fsynced because losing it
 * costs only a rebuild (a file cut short fails its length or checksum test). No lock: two
 * savers each rename a whole file, and whichever wins is brought up to date by the next reader.
 */
export function saveIndex(agentDir: string, index: FactIndexClass, source: IndexSource): void {
  if (SIGNATURE === undefined) return
  try {
    const encoded = encode(index.toCompact(), source)
    if (!encoded) return
    mkdirSync(join(agentDir, 'cache'), {recursive: true, mode: DIR_MODE})
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
