import type {CompactFactIndex, PlainCompactFactIndex} from '../search/fact-index.js'
import {LineBlock} from '../search/lines.js'

/**
 * The search layer's saved index (FactIndex.toCompact) as bytes a store keeps for it: a JSON
 * header holding the change-feed cursor the index is at, the ranking code's signature, the
 * small plain fields and where each section sits, then the sections, each aligned to 8: typed
 * arrays as their bytes, and lists of strings (ids, dates, terms, words) as UTF-8 lines with
 * an index of every 32nd line's offset, which the loaded index reads only where a search asks
 * (src/search/lines.ts). Read back only by the build that wrote it (the signature), and the
 * format name changes with the layout, so another layout is never read.
 */
const FORMAT = 'mem.compact-index.3'

/** Where a saved index stands: the feed cursor it reflects, and which ranking code wrote it. */
export interface IndexStamp {
  cursor: string
  signature: string
}

type Typed = Uint32Array | Float64Array | Uint8Array
const KINDS = {u32: Uint32Array, f64: Float64Array, u8: Uint8Array} as const
type Kind = keyof typeof KINDS

interface Header extends IndexStamp {
  format: string
  plain: Record<string, unknown>
  arrays: Record<string, {kind: Kind; offset: number; length: number}>
  /** Lists of strings: their text (`offset`, `bytes`) and line index (`blocks`, a u32 array), `count` lines. */
  lines: Record<string, {offset: number; bytes: number; count: number; blocks: number; blockCount: number}>
}

function kindOf(value: unknown): Kind | undefined {
  if (value instanceof Uint32Array) return 'u32'
  if (value instanceof Float64Array) return 'f64'
  if (value instanceof Uint8Array) return 'u8'
  return undefined
}

/** The lists CompactFactIndex takes as Lines, read lazily; every other field is taken as it was written. */
const LINE_FIELDS = new Set(['ids', 'createdAt', 'terms', 'surfaces'])

/** A list that can be kept as lines: strings only, none holding a line break. */
function isLines(key: string, value: unknown): value is string[] {
  return (
    LINE_FIELDS.has(key) &&
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((s) => typeof s === 'string' && !s.includes('\n'))
  )
}

export function encodeIndex(index: PlainCompactFactIndex, stamp: IndexStamp): Buffer {
  const header: Header = {format: FORMAT, ...stamp, plain: {}, arrays: {}, lines: {}}
  const parts: Buffer[] = []
  let offset = 0
  const section = (bytes: Buffer): number => {
    const at = offset
    const padded = Math.ceil(bytes.length / 8) * 8
    parts.push(bytes, Buffer.alloc(padded - bytes.length))
    offset += padded
    return at
  }
  const typedBytes = (typed: Typed) => Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength)
  for (const [key, value] of Object.entries(index)) {
    if (value === undefined) continue
    const kind = kindOf(value)
    if (kind !== undefined) {
      const typed = value as Typed
      header.arrays[key] = {kind, offset: section(typedBytes(typed)), length: typed.length}
    } else if (isLines(key, value)) {
      const text = Buffer.from(value.join('\n'))
      const blocks = LineBlock.index(value)
      header.lines[key] = {
        offset: section(text),
        bytes: text.length,
        count: value.length,
        blocks: section(typedBytes(blocks)),
        blockCount: blocks.length,
      }
    } else {
      header.plain[key] = value
    }
  }
  const text = JSON.stringify(header)
  // Padded with spaces (which JSON allows) so the sections start at a multiple of 8: a reader
  // that holds the bytes in a buffer of its own views them where they are, without a copy.
  const unpadded = Buffer.byteLength(text)
  const head = Buffer.from(text.padEnd(text.length + ((8 - ((4 + unpadded) % 8)) % 8), ' '))
  const length = Buffer.alloc(4)
  length.writeUInt32LE(head.length)
  return Buffer.concat([length, head, ...parts])
}

/**
 * The compact index back with the cursor it is at, or undefined for bytes of another layout or
 * written under another `signature`. The index it gives views `data` (or a copy, when `data` is
 * not aligned): `data` must not change afterwards.
 */
export function decodeIndex(data: Buffer, signature: string): {cursor: string; index: CompactFactIndex} | undefined {
  try {
    const headerLength = data.readUInt32LE(0)
    const header = JSON.parse(data.subarray(4, 4 + headerLength).toString('utf8')) as Header
    if (header.format !== FORMAT || header.signature !== signature || typeof header.cursor !== 'string')
      return undefined
    const start = data.byteOffset + 4 + headerLength
    // Typed-array views need their element alignment: bytes that do not start at a multiple of 8
    // (a buffer shared with other data) are copied out first.
    let body: Uint8Array<ArrayBuffer>
    if (start % 8 === 0 && data.buffer instanceof ArrayBuffer) {
      body = new Uint8Array(data.buffer, start, data.length - 4 - headerLength)
    } else {
      body = new Uint8Array(data.length - 4 - headerLength)
      body.set(data.subarray(4 + headerLength))
    }
    const out: Record<string, unknown> = {...header.plain}
    for (const [key, {kind, offset, length}] of Object.entries(header.arrays)) {
      const Type = KINDS[kind]
      out[key] = new Type(body.buffer, body.byteOffset + offset, length)
    }
    for (const [key, l] of Object.entries(header.lines)) {
      const text = Buffer.from(body.buffer, body.byteOffset + l.offset, l.bytes)
      out[key] = new LineBlock(text, l.count, new Uint32Array(body.buffer, body.byteOffset + l.blocks, l.blockCount))
    }
    return {cursor: header.cursor, index: out as unknown as CompactFactIndex}
  } catch {
    return undefined
  }
}
