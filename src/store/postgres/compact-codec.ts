import type {CompactFactIndex} from '../../search/fact-index.js'

/**
 * The compact index (FactIndex.toCompact) as bytes for the database: a JSON header holding the
 * plain fields and where each typed array sits, then the arrays' bytes, each aligned to 8.
 * Written and read by the same build only (the row carries the ranking code's signature), so
 * the layout needs no version of its own beyond the format name.
 */
const FORMAT = 'mem.compact-index.1'

type Typed = Uint32Array | Float64Array | Uint8Array
const KINDS = {u32: Uint32Array, f64: Float64Array, u8: Uint8Array} as const
type Kind = keyof typeof KINDS

function kindOf(value: unknown): Kind | undefined {
  if (value instanceof Uint32Array) return 'u32'
  if (value instanceof Float64Array) return 'f64'
  if (value instanceof Uint8Array) return 'u8'
  return undefined
}

export function encodeCompact(index: CompactFactIndex): Buffer {
  const plain: Record<string, unknown> = {}
  const arrays: Record<string, {kind: Kind; offset: number; length: number}> = {}
  const parts: Buffer[] = []
  let offset = 0
  for (const [key, value] of Object.entries(index)) {
    if (value === undefined) continue
    const kind = kindOf(value)
    if (kind === undefined) {
      plain[key] = value
      continue
    }
    const typed = value as Typed
    const bytes = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength)
    const padded = Math.ceil(bytes.length / 8) * 8
    arrays[key] = {kind, offset, length: typed.length}
    parts.push(bytes, Buffer.alloc(padded - bytes.length))
    offset += padded
  }
  const text = JSON.stringify({format: FORMAT, plain, arrays})
  // Padded with spaces (which JSON allows) so the arrays start at a multiple of 8: a reader that
  // holds the bytes in a buffer of its own views them where they are, without a copy.
  const unpadded = Buffer.byteLength(text)
  const header = Buffer.from(text.padEnd(text.length + ((8 - ((4 + unpadded) % 8)) % 8), ' '))
  const length = Buffer.alloc(4)
  length.writeUInt32LE(header.length)
  return Buffer.concat([length, header, ...parts])
}

/** The compact index back, or undefined for bytes this build did not write. */
export function decodeCompact(data: Buffer): CompactFactIndex | undefined {
  try {
    const headerLength = data.readUInt32LE(0)
    const header = JSON.parse(data.subarray(4, 4 + headerLength).toString('utf8')) as {
      format: string
      plain: Record<string, unknown>
      arrays: Record<string, {kind: Kind; offset: number; length: number}>
    }
    if (header.format !== FORMAT) return undefined
    const start = data.byteOffset + 4 + headerLength
    // Typed-array views need their element alignment: bytes that do not start at a multiple of 8
    // (another writer's padding, a buffer shared with other data) are copied out first.
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
    return out as unknown as CompactFactIndex
  } catch {
    return undefined
  }
}
