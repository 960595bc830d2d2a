import {endianness} from 'node:os'
import {crc32} from 'node:zlib'

import * as v from 'valibot'

import type {CompactFactIndex, FactIndex} from '../search/fact-index.js'
import {DamagedIndex} from '../search/damaged-index.js'
import {LINES_PER_BLOCK, LineBlock} from '../search/lines.js'

/**
 * The search layer's saved index as bytes a store keeps for it (src/index/indexed-store.ts),
 * one format for every store. It is derived data: a header says which change-feed cursor the
 * index reflects and which build of the ranking code wrote it, and anything unreadable, damaged
 * (checksum), of another layout or from another build is thrown away and rebuilt from the facts.
 *
 * Loading is one read of the header and the small parts, a checksum and typed-array views. The
 * ids, creation times and postings, most of the bytes, can be left where they are and read
 * where a search asks, 64 KiB at a time, each chunk behind a checksum of its own: a cold
 * `mem search` at 100,000 facts then reads a few chunks of the megabytes they take. Saving
 * writes the postings a chunk at a time from the index itself, so it never holds a second copy
 * of them.
 */
const FORMAT = 'mem.search-index'
/** Bumped whenever the layout below changes: bytes of another version are rebuilt, never read. */
const VERSION = 11
/** Bytes behind each checksum of the parts read where a search asks. */
const CHUNK = 65536
/** The parts read where a search asks, in the order they follow the rest. */
const REGIONS = ['ids', 'dates', 'postings'] as const
type Region = (typeof REGIONS)[number]

/** Where a saved index stands: the feed cursor it reflects, and which ranking code wrote it. */
export interface IndexStamp {
  cursor: string
  signature: string
}

/**
 * One line of JSON (this header), then the index behind one CRC-32: terms, words as written
 * (those that stem to another term), thread names as UTF-8 text, one per line; the distinct tag
 * lists as one JSON array; zero padding to a multiple of 8 bytes; the creation times as 64-bit
 * floats; 32-bit integers (the byte offset of every 32nd line of the ids, terms, words and
 * times, so that a line is read without splitting the rest; for each fact its tag list, its
 * thread (0: none, else 1 + its line), its length and the place of its creation time in their
 * order; where each term's postings start); one byte per fact saying whether it asks; zero
 * padding to a multiple of 4 bytes. Then the regions read where a search asks: the ids and the
 * creation times as text, one per line, and the postings, term by term, as 32-bit integers
 * [fact, count, ...] (see CompactDocs). Numbers are in the byte order the header names.
 */
interface Header extends IndexStamp {
  format: typeof FORMAT
  version: typeof VERSION
  endian: 'LE' | 'BE'
  /** Byte lengths of the text blocks, and of the whole index part. */
  bytes: {ids: number; terms: number; words: number; dates: number; threads: number; tags: number; index: number}
  /** CRC-32 (hex) of the index part but its regions: it is derived data, so it needs to catch damage, not forgery. */
  checksum: string
  /** CRC-32 (hex) of each {@link CHUNK} bytes of each region, the last of each shorter. */
  chunks: {[R in Region]: string[]}
  /** The ids are in increasing order: a reader finds one by binary search. */
  idsSorted: boolean
  /** Counts of ids, terms, words and postings integers. */
  ids: number
  terms: number
  words: number
  postings: number
}

/** Saved bytes to read from: a file kept open while its index is used, or bytes in memory. */
export interface IndexBytes {
  readonly size: number
  /** Reads up to `length` bytes at `position` into `target` at `offset`: how many it read, 0 past the end. */
  read(target: Uint8Array, offset: number, length: number, position: number): number
  /** Nothing is read after. */
  close(): void
}

/** Bytes in memory as {@link IndexBytes}. */
export function bytesIn(data: Buffer): IndexBytes {
  return {
    size: data.length,
    read: (target, offset, length, position) => data.copy(target, offset, position, position + length),
    close: () => {},
  }
}

/** A saved index read back, at the cursor it was saved at. */
export interface DecodedIndex {
  cursor: string
  index: CompactFactIndex
  /** Lets go of the bytes a lazily read index reads from: nothing of it may be read after. */
  close(): void
}

/**
 * The saved index if its layout, build (`signature`) and checksums hold; undefined otherwise.
 * With `lazy`, the ids, dates and postings are read where a search asks for them, from `bytes`
 * kept until {@link DecodedIndex.close}, and a chunk that fails its checksum throws
 * {@link DamagedIndex} from the search; without, they are read (and checked) now and `bytes`
 * is closed.
 */
export function decodeIndex(bytes: IndexBytes, signature: string, {lazy = false} = {}): DecodedIndex | undefined {
  let open: IndexBytes | undefined = bytes
  try {
    const head = readHeader(bytes)
    if (!head || !usable(head.header, signature)) return undefined
    const {header: h, length} = head
    if (length + h.bytes.index !== bytes.size) return undefined
    const later = h.bytes.ids + h.bytes.dates + 4 * h.postings
    if (later > h.bytes.index) return undefined
    const rest = readAt(bytes, length, h.bytes.index - later)
    if (checksum(rest) !== h.checksum) return undefined
    const postings = new Uint32Array(h.postings)
    let at = length + rest.length
    const region = (name: Region, into: Buffer): Lazy => {
      const lazyBytes = lazyRegion(bytes, at, into, h.chunks[name])
      at += into.length
      return lazyBytes
    }
    const regions = {
      ids: region('ids', Buffer.allocUnsafeSlow(h.bytes.ids)),
      dates: region('dates', Buffer.allocUnsafeSlow(h.bytes.dates)),
      postings: region('postings', Buffer.from(postings.buffer, postings.byteOffset, postings.byteLength)),
    }
    if (!lazy) for (const r of Object.values(regions)) r.load(0, r.bytes.length)
    const index = decode(h, rest, postings, regions, lazy)
    if (!index) return undefined
    if (!lazy) return {cursor: h.cursor, index, close: () => {}}
    open = undefined
    return {cursor: h.cursor, index, close: () => bytes.close()}
  } catch {
    return undefined
  } finally {
    open?.close()
  }
}

/** A part of the bytes in memory whose chunks are read (and checked) on first use. */
interface Lazy {
  bytes: Buffer
  /** Makes bytes[from..to) readable; throws DamagedIndex when they do not read back as saved. */
  load(from: number, to: number): void
}

function lazyRegion(source: IndexBytes, at: number, bytes: Buffer, checksums: string[]): Lazy {
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
          const n = source.read(bytes, start + done, length - done, at + start + done)
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

function readHeader(source: IndexBytes): {header: unknown; length: number} | undefined {
  for (let want = Math.min(source.size, 65536); ; want = Math.min(source.size, want * 4)) {
    const start = readAt(source, 0, want)
    const eol = start.indexOf(10)
    if (eol >= 0) return {header: JSON.parse(start.toString('utf8', 0, eol)), length: eol + 1}
    if (want === source.size) return undefined
  }
}

/** `length` bytes from `position`, in a buffer of their own (so its typed-array views are aligned). */
function readAt(source: IndexBytes, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafeSlow(length)
  for (let done = 0; done < length;) {
    const n = source.read(buffer, done, length - done, position + done)
    if (n === 0) throw new Error('the bytes ended early')
    done += n
  }
  return buffer
}

const LITTLE_ENDIAN = endianness() === 'LE'
const TagLists = v.array(v.array(v.string()))

function usable(h: unknown, signature: string): h is Header {
  const header = h as Header
  if (
    header?.format !== FORMAT ||
    header.version !== VERSION ||
    header.signature !== signature ||
    typeof header.cursor !== 'string' ||
    header.endian !== (LITTLE_ENDIAN ? 'LE' : 'BE') ||
    typeof header.checksum !== 'string' ||
    typeof header.bytes !== 'object' ||
    header.bytes === null
  )
    return false
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
  regions: {[R in Region]: Lazy},
  lazy: boolean,
): CompactFactIndex | undefined {
  const n = h.ids
  const blocks = (count: number) => Math.ceil(count / LINES_PER_BLOCK)
  const textBytes = h.bytes.terms + h.bytes.words + h.bytes.threads + h.bytes.tags
  const integers = 2 * blocks(n) + blocks(h.terms) + blocks(h.words) + 4 * n + h.terms + 1
  if (part.length !== align4(align8(textBytes) + 8 * n + 4 * integers + n)) return undefined
  let at = 0
  const text = (length: number): Buffer => part.subarray(at, (at += length))
  const termText = text(h.bytes.terms)
  const wordText = text(h.bytes.words)
  const threads = lines(text(h.bytes.threads).toString('utf8'))
  const tagLists: unknown = JSON.parse(text(h.bytes.tags).toString('utf8'))
  at = align8(at)
  const times = new Float64Array(part.buffer, part.byteOffset + at, n)
  at += 8 * n
  const numbers = (count: number): Uint32Array => {
    const view = new Uint32Array(part.buffer, part.byteOffset + at, count)
    at += 4 * count
    return view
  }
  const idBlocks = numbers(blocks(n))
  const termBlocks = numbers(blocks(h.terms))
  const wordBlocks = numbers(blocks(h.words))
  const dateBlocks = numbers(blocks(n))
  const tagOf = numbers(n)
  const threadOf = numbers(n)
  const lengths = numbers(n)
  const createdOrder = numbers(n)
  const starts = numbers(h.terms + 1)
  const asks = new Uint8Array(part.buffer, part.byteOffset + at, n)

  if (!v.is(TagLists, tagLists)) return undefined
  for (let slot = 0; slot < n; slot++) if (threadOf[slot]! > threads.length) return undefined
  return {
    ids: new LineBlock(regions.ids.bytes, n, idBlocks, lazy ? regions.ids.load : undefined),
    idsSorted: h.idsSorted === true,
    createdAt: new LineBlock(regions.dates.bytes, n, dateBlocks, lazy ? regions.dates.load : undefined),
    terms: new LineBlock(termText, h.terms, termBlocks),
    surfaces: new LineBlock(wordText, h.words, wordBlocks),
    starts,
    postings,
    ...(lazy ? {load: (from: number, to: number) => regions.postings.load(4 * from, 4 * to)} : {}),
    lengths,
    times,
    createdOrder,
    tagLists,
    tagOf,
    asks,
    threads,
    threadOf,
  }
}

/** A saved index ready to be written, part after part: see {@link encodeIndex}. */
export interface EncodedIndex {
  stamp: IndexStamp
  /** Calls `write` with the bytes in order; the postings' parts are reused by the next call. */
  write(write: (part: Buffer) => void): void
}

/**
 * The index's bytes as parts to write one after the other: joining them first would hold the
 * index twice more (about 75 MiB at 200,000 facts) at the moment the process holds the most.
 * Undefined for an index that cannot be saved (an id, term or date holding a line break).
 */
export function encodeIndex(index: FactIndex, stamp: IndexStamp): EncodedIndex | undefined {
  const data = index.toStreamed()
  if (
    [data.ids, data.terms, data.surfaces, data.createdAt, data.threads].some((list) =>
      list.some((text) => text.includes('\n')),
    ) ||
    data.threads.includes('')
  )
    return undefined
  const n = data.ids.length
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
    data.tagOf,
    data.threadOf,
    data.lengths,
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
  const part = [...rest, ids, dates]
  const header: Header = {
    format: FORMAT,
    version: VERSION,
    ...stamp,
    endian: LITTLE_ENDIAN ? 'LE' : 'BE',
    bytes: {
      ids: ids.length,
      terms: terms.length,
      words: words.length,
      dates: dates.length,
      threads: threads.length,
      tags: tags.length,
      index: part.reduce((sum, b) => sum + b.length, 0) + data.postingsLength * Uint32Array.BYTES_PER_ELEMENT,
    },
    checksum: checksum(...rest),
    chunks: {ids: chunksOf(ids), dates: chunksOf(dates), postings},
    idsSorted: data.idsSorted === true,
    ids: n,
    terms: data.terms.length,
    words: data.surfaces.length,
    postings: data.postingsLength,
  }
  const head = [Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), ...part]
  return {
    stamp,
    write(write) {
      head.forEach(write)
      writePostings(write)
    },
  }
}

/** The encoded index as one buffer, for a store that keeps it as one value. */
export function joined(encoded: EncodedIndex): Buffer {
  const parts: Buffer[] = []
  // The postings' parts are reused from one call to the next: each is copied.
  encoded.write((part) => parts.push(Buffer.from(part)))
  return Buffer.concat(parts)
}

function checksum(...parts: Buffer[]): string {
  let crc = 0
  for (const part of parts) crc = crc32(part, crc)
  return crc.toString(16).padStart(8, '0')
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
