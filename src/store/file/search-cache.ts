import {randomBytes} from 'node:crypto'
import {closeSync, constants, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'
import {endianness} from 'node:os'
import {crc32} from 'node:zlib'
import {join} from 'node:path'

import * as v from 'valibot'

import type {
  CompactFactIndex,
  FactIndex as FactIndexClass,
  IndexedFact,
  StreamedCompactFactIndex,
} from '../../search/fact-index.js'
import {DamagedIndex} from '../../search/damaged-index.js'
import {LINES_PER_BLOCK, LineBlock, type Lines} from '../../search/lines.js'
import {DIR_MODE, FILE_MODE} from './durable-file.js'
import {isLink} from './links.js'
import {SIGNATURE} from '../search-code.js'

/**
 * The search index of one agent, saved beside its segments so that a cold `mem search` loads
 * it instead of re-indexing every fact. It is derived data: it says which segment files (by
 * cache key: revision counter and file identity) it was made from, and a reader trusts it
 * only for segments whose key is still the same, reading every other segment and bringing
 * the index up to date with it (src/store/file/saved-index.ts). It holds no copy of the facts: a
 * search shows its hits from their segments, read then (so what it shows is what the files
 * say). For each fact it keeps a digest of what the index read of it, so that a reader of a
 * segment that moved tells the facts that changed from those that did not without indexing
 * them again. Anything unreadable, damaged (checksum), from another build of the ranking code
 * or of another version is thrown away and rebuilt. See docs/adr/0003-storage-layout.md.
 */

const FORMAT = 'mem.search-index'
/** Bumped whenever the layout below changes: a file of another version is rebuilt, never read. */
const VERSION = 10
/** Bytes behind each checksum of the parts read where a search asks: it reads and checks only the chunks it needs. */
const CHUNK = 65536
/** The parts of the file read where a search asks, in the order they follow the rest. */
const REGIONS = ['ids', 'dates', 'postings'] as const
type Region = (typeof REGIONS)[number]

/** A fact segment the saved index was made from, with its cache key at the time. */
export interface SavedSegment {
  name: string
  key: string
}

/**
 * The file: one line of JSON (this header), then the index behind one CRC-32. Ids, terms, words
 * as written (those that stem to another term), creation times and thread names as UTF-8
 * text, one per line; the distinct tag lists as one JSON array; zero padding to a multiple of 8
 * bytes; the creation times as 64-bit floats; 32-bit integers (the byte offset of every 32nd
 * line of the ids, terms, words and times, so that a line is read without splitting the rest;
 * for each fact its segment, its tag list, its thread (0: none, else 1 + its line), its length,
 * two words of its digest and the place of its creation time in their order; where each term's
 * postings start); one byte per fact saying
 * whether it asks; zero padding to a multiple of 4 bytes; last, the postings, term by term, as
 * 32-bit integers [fact, count, ...] (see CompactDocs), each 64 KiB behind a checksum of its own.
 * Numbers are in the byte order the header names. Loading is one read, a checksum and
 * typed-array views; a search then reads the postings of its terms, chunk by chunk, and decodes
 * the terms and ids it reads, and nothing else (see src/search/lines.ts).
 */
interface Header {
  format: typeof FORMAT
  version: typeof VERSION
  signature: string
  endian: 'LE' | 'BE'
  segments: SavedSegment[]
  /** Byte lengths of the text blocks, and of the whole index part. */
  bytes: {
    ids: number
    terms: number
    words: number
    dates: number
    threads: number
    tags: number
    index: number
  }
  /** CRC-32 (hex) of the index part but its postings: it is derived data, so it needs to catch damage, not forgery. */
  checksum: string
  /** CRC-32 (hex) of each {@link CHUNK} bytes of the ids, the creation times and the postings, the last of each shorter. */
  chunks: {[R in Region]: string[]}
  /** The ids are in increasing order: a reader finds one by binary search. */
  idsSorted: boolean
  /** Counts of ids, terms, words and postings integers. */
  ids: number
  terms: number
  words: number
  postings: number
}

/** An index read back from its file. */
export interface SavedIndex {
  /** The index, but for the facts' creation times as text: see {@link createdAt}. */
  index: Omit<CompactFactIndex, 'createdAt'>
  /** The creation times as saved (a long-running process takes them from the records it holds instead). */
  createdAt(): Lines
  /** Closes the file a lazily read index reads from (see readSaved); nothing of it may be read after. */
  close(): void
  segments: SavedSegment[]
  /** For each indexed fact (by slot), its segment's position in `segments`. */
  segmentOf: Uint32Array
  /** For each indexed fact (by slot), two words: the {@link factDigest} of the record it was indexed from. */
  digests: Uint32Array
}

/** What saving needs besides the index: where each fact lives and what its record said. */
export interface IndexSource {
  /** Every fact segment the index reflects, in order, with the key it had when read. */
  segments: SavedSegment[]
  /** The segment holding the live fact `id`, and the digest of its record. */
  locate(id: string): {segment: string; digest: readonly [number, number]} | undefined
}

/**
 * 64 bits over what the index reads of a fact (its content, tags, date and thread), as two
 * 32-bit hashes (FNV-1a and a multiply-xorshift one) of the same characters: equal digests mean the
 * index needs nothing new from the record. A fingerprint against accidents (a hand edit), not a
 * defence against forgery: whoever can write the segment can also write the index. Plain
 * arithmetic, because it runs over every fact whenever a whole index is saved.
 */
export function factDigest(fact: IndexedFact): [number, number] {
  // Field by field, each followed by a separator no text holds, rather than over one joined
  // string: saving a whole index digests every fact, and 100,000 joined strings are garbage.
  let a = 0x811c9dc5
  let b = 0x9747b28c
  const mix = (text: string): void => {
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 0x1_0000
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x5bd1e995)
      b ^= b >>> 15
    }
  }
  mix(fact.content)
  mix(fact.created_at)
  mix(fact.thread === undefined ? '' : `t${fact.thread}`)
  for (const tag of fact.tags) mix(tag)
  return [a >>> 0, (b ^ fact.tags.length) >>> 0]
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

const LITTLE_ENDIAN = endianness() === 'LE'

const SavedSegments = v.array(v.object({name: v.string(), key: v.string()}))
const TagLists = v.array(v.array(v.string()))

function checksum(...parts: Buffer[]): string {
  let crc = 0
  for (const part of parts) crc = crc32(part, crc)
  return crc.toString(16).padStart(8, '0')
}

/**
 * The saved index if it is of this version and from this build and its checksums hold; undefined
 * otherwise. With `lazy`, the ids, dates and postings are read only where a search asks for them
 * (see {@link lazyRegion}), from the file kept open until {@link SavedIndex.close}; a chunk that
 * fails its checksum then throws {@link DamagedIndex} from the search.
 */
export function readSaved(agentDir: string, {lazy = false}: {lazy?: boolean} = {}): SavedIndex | undefined {
  // Through a link, the index could be anyone's (src/store/file/links.ts): it is rebuilt instead.
  if (SIGNATURE === undefined || isLink(cacheDir(agentDir))) return undefined
  let fd: number | undefined
  try {
    fd = openSync(searchCachePath(agentDir), constants.O_RDONLY | constants.O_NOFOLLOW)
    const size = fstatSync(fd).size
    const head = readHeader(fd, size)
    if (!head || !usable(head.header)) return undefined
    const {header: h, length} = head
    if (length + h.bytes.index !== size) return undefined
    const later = h.bytes.ids + h.bytes.dates + 4 * h.postings
    if (later > h.bytes.index) return undefined
    const rest = readAt(fd, length, h.bytes.index - later)
    if (checksum(rest) !== h.checksum) return undefined
    const postings = new Uint32Array(h.postings)
    let at = length + rest.length
    const region = (name: Region, bytes: Buffer): Lazy => {
      const lazyBytes = lazyRegion(fd!, at, bytes, h.chunks[name])
      at += bytes.length
      return lazyBytes
    }
    const regions = {
      ids: region('ids', Buffer.allocUnsafeSlow(h.bytes.ids)),
      dates: region('dates', Buffer.allocUnsafeSlow(h.bytes.dates)),
      postings: region('postings', Buffer.from(postings.buffer, postings.byteOffset, postings.byteLength)),
    }
    if (!lazy) for (const r of Object.values(regions)) r.load(0, r.bytes.length)
    const decoded = decode(h, rest, postings, lazy ? regions : undefined, regions)
    if (!lazy || !decoded) return decoded
    const open = fd
    fd = undefined
    return {...decoded, close: () => closeSync(open)}
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** A part of the file in memory whose chunks are read (and checked) on first use. */
interface Lazy {
  bytes: Buffer
  /** Makes bytes[from..to) readable; throws DamagedIndex when they do not read back as saved. */
  load(from: number, to: number): void
}

/**
 * `bytes.length` bytes of the file at `at`, read into `bytes` a chunk at a time where asked: a
 * search reads its terms' postings, ids and dates, a few chunks of the megabytes they take at
 * 100,000 facts.
 */
function lazyRegion(fd: number, at: number, bytes: Buffer, checksums: string[]): Lazy {
  const loaded = new Uint8Array(checksums.length)
  return {
    bytes,
    load(from, to) {
      if (to <= from) return
      for (let c = Math.floor(from / CHUNK); c <= Math.floor((to - 1) / CHUNK); c++) {
        if (loaded[c] === 1) continue
        const start = c * CHUNK
        const length = Math.min(CHUNK, bytes.length - start)
        for (let done = 0; done < length;) {
          const n = readSync(fd, bytes, start + done, length - done, at + start + done)
          if (n === 0) throw new DamagedIndex('the saved search index ended early')
          done += n
        }
        if (checksum(bytes.subarray(start, start + length)) !== checksums[c])
          throw new DamagedIndex('a chunk of the saved search index fails its checksum')
        loaded[c] = 1
      }
    },
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
    header.endian !== (LITTLE_ENDIAN ? 'LE' : 'BE') ||
    typeof header.checksum !== 'string'
  )
    return false
  if (!v.is(SavedSegments, header.segments) || typeof header.bytes !== 'object' || header.bytes === null) return false
  const {ids, terms, words, dates, threads, tags, index} = header.bytes
  return (
    [ids, terms, words, dates, threads, tags, index, header.ids, header.terms, header.words, header.postings].every(
      (n) => Number.isSafeInteger(n) && n >= 0,
    ) &&
    typeof header.chunks === 'object' &&
    header.chunks !== null &&
    REGIONS.every((region) => {
      const list = header.chunks[region]
      const bytes = region === 'postings' ? 4 * header.postings : header.bytes[region]
      return Array.isArray(list) && list.length === Math.ceil(bytes / CHUNK) && list.every((c) => typeof c === 'string')
    })
  )
}

function decode(
  h: Header,
  part: Buffer,
  postings: Uint32Array,
  lazy: {[R in Region]: Lazy} | undefined,
  regions: {[R in Region]: Lazy},
): SavedIndex | undefined {
  const n = h.ids
  const blocks = (count: number) => Math.ceil(count / LINES_PER_BLOCK)
  const textBytes = h.bytes.terms + h.bytes.words + h.bytes.threads + h.bytes.tags
  const integers = 2 * blocks(n) + blocks(h.terms) + blocks(h.words) + 7 * n + h.terms + 1
  if (part.length !== align4(align8(textBytes) + 8 * n + 4 * integers + n)) return undefined
  let at = 0
  const text = (length: number): Buffer => part.subarray(at, (at += length))
  const termText = text(h.bytes.terms)
  const wordText = text(h.bytes.words)
  const threads = lines(text(h.bytes.threads).toString('utf8'))
  const tagLists: unknown = JSON.parse(text(h.bytes.tags).toString('utf8'))
  at = align8(at)
  const times = new Float64Array(part.buffer, at, n)
  at += 8 * n
  const numbers = (count: number): Uint32Array => {
    const view = new Uint32Array(part.buffer, at, count)
    at += 4 * count
    return view
  }
  const idBlocks = numbers(blocks(n))
  const termBlocks = numbers(blocks(h.terms))
  const wordBlocks = numbers(blocks(h.words))
  const dateBlocks = numbers(blocks(n))
  const segmentOf = numbers(n)
  const tagOf = numbers(n)
  const threadOf = numbers(n)
  const lengths = numbers(n)
  const digests = numbers(2 * n)
  const createdOrder = numbers(n)
  const starts = numbers(h.terms + 1)
  const asks = new Uint8Array(part.buffer, at, n)

  if (!v.is(TagLists, tagLists)) return undefined
  for (let slot = 0; slot < n; slot++) {
    if (threadOf[slot]! > threads.length || segmentOf[slot]! >= h.segments.length) return undefined
  }
  const ids = new LineBlock(regions.ids.bytes, n, idBlocks, lazy?.ids.load)
  const dates = new LineBlock(regions.dates.bytes, n, dateBlocks, lazy?.dates.load)
  return {
    index: {
      ids,
      idsSorted: h.idsSorted === true,
      terms: new LineBlock(termText, h.terms, termBlocks),
      surfaces: new LineBlock(wordText, h.words, wordBlocks),
      starts,
      postings,
      ...(lazy === undefined ? {} : {load: (from: number, to: number) => lazy.postings.load(4 * from, 4 * to)}),
      lengths,
      times,
      createdOrder,
      tagLists,
      tagOf,
      asks,
      threads,
      threadOf,
    },
    createdAt: () => dates,
    close: () => {},
    segments: h.segments,
    segmentOf,
    digests,
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

/**
 * The saved form of an index: the header and the parts before the postings, then the postings,
 * written a chunk at a time from the index itself (`writePostings`), so that saving never holds
 * a second copy of them.
 */
interface Encoded {
  head: Buffer[]
  writePostings: (write: (part: Buffer) => void) => void
}

/**
 * The file's bytes as the parts to write one after the other: joining them first would hold the
 * index twice more (about 75 MiB at 200,000 facts) at the moment the process holds the most.
 */
function encode(data: StreamedCompactFactIndex, source: IndexSource): Encoded | undefined {
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
  const digests = new Uint32Array(2 * n)
  for (let slot = 0; slot < n; slot++) {
    const where = source.locate(data.ids[slot]!)
    const segment = where && segmentAt.get(where.segment)
    if (where === undefined || segment === undefined) return undefined
    segmentOf[slot] = segment
    digests[2 * slot] = where.digest[0]
    digests[2 * slot + 1] = where.digest[1]
  }
  const texts = [
    data.ids.join('\n'),
    data.terms.join('\n'),
    data.surfaces.join('\n'),
    data.createdAt.join('\n'),
    data.threads.join('\n'),
    JSON.stringify(data.tagLists),
  ].map((t) => Buffer.from(t, 'utf8'))
  const bytes = (a: Float64Array | Uint32Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
  const numbers = [
    data.times,
    LineBlock.index(data.ids),
    LineBlock.index(data.terms),
    LineBlock.index(data.surfaces),
    LineBlock.index(data.createdAt),
    segmentOf,
    data.tagOf,
    data.threadOf,
    data.lengths,
    digests,
    data.createdOrder,
    data.starts,
    data.asks,
  ].map(bytes)
  const padding = (length: number, to: number) => Buffer.alloc(to - length)
  const [ids, terms, words, dates, threads, tags] = texts as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer]
  const restTexts = [terms, words, threads, tags]
  const textLength = restTexts.reduce((sum, t) => sum + t.length, 0)
  const restLength = align8(textLength) + numbers.reduce((sum, b) => sum + b.length, 0)
  const rest = [
    ...restTexts,
    padding(textLength, align8(textLength)),
    ...numbers,
    padding(restLength, align4(restLength)),
  ]
  const chunksOf = (part: Buffer): string[] => {
    const out: string[] = []
    for (let at = 0; at < part.length; at += CHUNK) out.push(checksum(part.subarray(at, at + CHUNK)))
    return out
  }
  const writePostings = (write: (part: Buffer) => void): void =>
    data.eachPostingsChunk(CHUNK / Uint32Array.BYTES_PER_ELEMENT, (part) => write(bytes(part)))
  const postings: string[] = []
  writePostings((part) => postings.push(checksum(part)))
  const chunks = {ids: chunksOf(ids), dates: chunksOf(dates), postings}
  const part = [...rest, ids, dates]
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
      index: part.reduce((sum, b) => sum + b.length, 0) + data.postingsLength * Uint32Array.BYTES_PER_ELEMENT,
    },
    checksum: checksum(...rest),
    chunks,
    idsSorted: data.idsSorted === true,
    ids: n,
    terms: data.terms.length,
    words: data.surfaces.length,
    postings: data.postingsLength,
  }
  return {head: [Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), ...part], writePostings}
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
    const encoded = encode(index.toStreamed(), source)
    if (!encoded) return
    // Never written through a linked cache/ (src/store/file/links.ts): its words would be readable there.
    if (isLink(cacheDir(agentDir))) return
    mkdirSync(cacheDir(agentDir), {recursive: true, mode: DIR_MODE})
    const path = searchCachePath(agentDir)
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      const fd = openSync(tmp, 'wx', FILE_MODE)
      try {
        const write = (part: Buffer): void => {
          for (let at = 0; at < part.length;) at += writeSync(fd, part, at)
        }
        encoded.head.forEach(write)
        encoded.writePostings(write)
      } finally {
        closeSync(fd)
      }
      renameSync(tmp, path)
    } finally {
      rmSync(tmp, {force: true})
    }
    rmSync(legacyCachePath(agentDir), {force: true})
  } catch {
    // A cache that cannot be saved (full disk, read-only folder) only costs the next process a rebuild; the search goes on.
  }
}
