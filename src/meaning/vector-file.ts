import {randomBytes} from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import {dirname} from 'node:path'
import {crc32} from 'node:zlib'

import {DIR_MODE, FILE_MODE} from '../store/file/durable-file.js'
import {isLink} from '../store/file/links.js'
import {dequantize, quantize, type QuantizedVector} from './vector-index.js'

/**
 * An agent's fact vectors for one embedder on disk (`cache/vectors.bin`): derived data, rebuilt
 * by embedding the facts again when it is lost, so every failure here is "not written" or "read
 * from scratch", never an error. Several processes share it without a lock: each appends whole
 * records, and each reader remembers the offset it read up to and reads only what was appended
 * since.
 *
 * Layout: one line of JSON ({@link Header}), then records one after another, each
 *
 *   magic "mvr\x01" | u32 record length | u16 id bytes | u8 digest bytes | u8 0 | f32 scale |
 *   int8 × dimensions | id (UTF-8) | digest (ASCII) | u32 CRC-32 of all the bytes before it
 *
 * little-endian, 20 bytes besides the vector, id and digest (about 560 bytes at 512 dimensions).
 * The vector is kept as {@link quantize} makes it, int8 components and a scale: a quarter of the
 * float32 bytes, what the index keeps anyway, and read back without a round trip through floats.
 *
 * Why appends from several processes do not mix: the file is opened with O_APPEND and each record
 * is one write(2) call of its whole bytes. With O_APPEND the kernel moves to the end and writes
 * with nothing in between (POSIX), and Linux holds the file's lock for the whole of a write to a
 * regular file, so another process's record lands before or after this one, never inside it. A
 * write to a regular file is cut short only when the disk fills or a size limit is reached: then
 * the append stops and returns false, and readers skip the torn bytes (the magic and the checksum
 * find the next record). This does not hold on NFS, where O_APPEND is emulated: records may then
 * be damaged, which the checksum catches and a re-embed repairs.
 */
const FORMAT = 'mem.vectors'
const VERSION = 1
/** The header is read whole from the first bytes: an embedder id longer than this allows is refused. */
const MAX_HEADER = 4096
const MAGIC = Buffer.from('mvr\x01', 'latin1')
/** Bytes of a record besides its vector, id and digest. */
const OVERHEAD = 20
const VECTOR_AT = 16
/** Longest id and digest a record holds, in characters (ids are ASCII in practice, UTF-8 allowed). */
export const MAX_ID_LENGTH = 200
export const MAX_DIGEST_LENGTH = 64
const MAX_ID_BYTES = 3 * MAX_ID_LENGTH

/** A fact's vector to append: `digest` is the caller's digest of the text it was made from. */
export interface VectorRecord {
  id: string
  digest: string
  vector: Float32Array
}

/**
 * A record read back, a {@link VectorRecord} whose float vector is made from `quantized` when first
 * asked for. `quantized.values` is a view into the bytes read, shared by all the records of one
 * read: {@link VectorIndex.addQuantized} copies it with no round trip through floats, and the
 * bytes go once no record is held.
 */
export class StoredVector implements VectorRecord {
  private float?: Float32Array

  constructor(
    readonly id: string,
    readonly digest: string,
    readonly quantized: QuantizedVector,
  ) {}

  get vector(): Float32Array {
    this.float ??= dequantize(this.quantized)
    return this.float
  }
}

/** Why a read started again from the first record (see {@link VectorRead.reset}). */
export type ResetReason = 'missing' | 'linked' | 'unreadable' | 'other model' | 'replaced'

/** What {@link readVectors} found. */
export interface VectorRead {
  /** The records from the offset asked for, in file order; an id may come more than once (the last wins). */
  records: StoredVector[]
  /** Where the next read starts: past the last whole record, before a torn one still being written. */
  next: number
  /**
   * True when what the caller held from this file is worthless: the file is missing, linked,
   * unreadable, of another embedder or length, or no longer the file it read (shorter than
   * `from`, or another `file`). The records are then all of the file, from the first.
   */
  reset: boolean
  reason?: ResetReason
  /** Damaged records (failed checksum or impossible length) met and skipped, or stopped at: for mem doctor. */
  damaged: number
  /** The file's own random identity, to pass back with `next`: tells a file replaced since from one appended to. */
  file?: string
  /** The length of the file's vectors (useful when the caller did not know it). */
  dimensions?: number
}

interface Header {
  format: typeof FORMAT
  version: typeof VERSION
  embedder: string
  dimensions: number
  file: string
}

/**
 * Appends `records` to the vector file at `path`, creating it (and its folder, mode 0700) when
 * missing, with a header naming `embedderId` and `dimensions`. A file of another embedder or
 * length, or one whose header does not read, is replaced by a fresh one first: another model's
 * vectors are worthless here. False, with nothing or only whole records written, when the records
 * are invalid (a vector of another length, an id or digest too long), the path or its folder is a
 * symbolic link (never followed), or the disk refuses; never throws.
 */
export function appendVectors(
  path: string,
  embedderId: string,
  dimensions: number,
  records: readonly VectorRecord[],
): boolean {
  try {
    const encoded = encodeAll(records, embedderId, dimensions)
    if (encoded === undefined) return false
    const fd = openForAppend(path, embedderId, dimensions)
    if (fd === undefined) return false
    try {
      // One write per record: see the file's comment for why concurrent appends never mix.
      for (const bytes of encoded) if (writeSync(fd, bytes) !== bytes.length) return false
      return true
    } finally {
      closeSync(fd)
    }
  } catch {
    return false
  }
}

/**
 * Replaces the file at `path` with one holding only `records` (float or as read back), written
 * to a temporary file renamed into place. For when most of the file is dead: the caller reads
 * it, keeps the last record of each id still live, and rewrites when the records read are more
 * than twice the live ones (and more than a few thousand), so the file stays within a small
 * multiple of what it must hold. A record another process appends between that read and the
 * rename is lost, which costs a re-embed of that fact. False when not written (a link at the path
 * or its folder included); never throws.
 */
export function rewriteVectors(
  path: string,
  embedderId: string,
  dimensions: number,
  records: readonly VectorRecord[],
): boolean {
  try {
    const encoded = encodeAll(records, embedderId, dimensions)
    if (encoded === undefined) return false
    // A rename would replace a link at the path: refused, as an append refuses it.
    if (!prepareFolder(path) || isLink(path)) return false
    return writeWhole(path, embedderId, dimensions, encoded, 'rename')
  } catch {
    return false
  }
}

/** Whose vectors the file at `path` holds, as its header says; undefined when it has none that reads (or is a link). */
export function vectorFileModel(path: string): {embedder: string; dimensions: number} | undefined {
  let fd: number | undefined
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
    const head = readHeader(fd, fstatSync(fd).size)
    return head && {embedder: head.header.embedder, dimensions: head.header.dimensions}
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Every record's bytes, or undefined when one cannot be written (or the header cannot). */
function encodeAll(records: readonly VectorRecord[], embedderId: string, dimensions: number): Buffer[] | undefined {
  const encoded = records.map((record) => encodeRecord(record, dimensions))
  if (!headerBytes(embedderId, dimensions)) return undefined
  return encoded.every((bytes) => bytes !== undefined) ? (encoded as Buffer[]) : undefined
}

/**
 * The records of the vector file at `path` from byte offset `from` (0: the first record), if the
 * file is `embedderId`'s with vectors of `dimensions` components (undefined: whatever length it
 * holds) and, when `file` is given, still the file of that identity. Reads up to the last whole
 * record; a record that fails its checksum is skipped when a valid one follows, else reading
 * stops before it. Never follows a symbolic link; never throws.
 */
export function readVectors(
  path: string,
  embedderId: string,
  dimensions: number | undefined,
  from = 0,
  file?: string,
): VectorRead {
  let fd: number | undefined
  try {
    if (isLink(dirname(path))) return restart('linked')
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
    const size = fstatSync(fd).size
    const head = readHeader(fd, size)
    if (!head) return restart('unreadable')
    const {header, length} = head
    if (header.embedder !== embedderId || (dimensions !== undefined && header.dimensions !== dimensions)) {
      return restart('other model')
    }
    const moved = from !== 0 && (from < length || from > size || (file !== undefined && file !== header.file))
    const start = from === 0 || moved ? length : from
    const bytes = readAt(fd, start, size - start)
    const parsed = parseRecords(bytes, header.dimensions)
    return {
      records: parsed.records,
      next: start + parsed.end,
      reset: moved,
      ...(moved ? {reason: 'replaced' as const} : {}),
      damaged: parsed.damaged,
      file: header.file,
      dimensions: header.dimensions,
    }
  } catch (error) {
    return restart(readFailure(error))
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function restart(reason: ResetReason): VectorRead {
  return {records: [], next: 0, reset: true, reason, damaged: 0}
}

function readFailure(error: unknown): ResetReason {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'missing'
  if (code === 'ELOOP') return 'linked'
  return 'unreadable'
}

/** The header line's bytes, or undefined when the embedder id makes it too long or `dimensions` is not a length. */
function headerBytes(
  embedderId: string,
  dimensions: number,
  file = randomBytes(6).toString('hex'),
): Buffer | undefined {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65535) return undefined
  const header: Header = {format: FORMAT, version: VERSION, embedder: embedderId, dimensions, file}
  const bytes = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8')
  return bytes.length <= MAX_HEADER ? bytes : undefined
}

function readHeader(fd: number, size: number): {header: Header; length: number} | undefined {
  const first = readAt(fd, 0, Math.min(size, MAX_HEADER))
  const end = first.indexOf(0x0a)
  if (end < 0) return undefined
  try {
    const header = JSON.parse(first.toString('utf8', 0, end)) as Partial<Header>
    const valid =
      header.format === FORMAT &&
      header.version === VERSION &&
      typeof header.embedder === 'string' &&
      typeof header.file === 'string' &&
      Number.isInteger(header.dimensions) &&
      header.dimensions! >= 1 &&
      header.dimensions! <= 65535
    return valid ? {header: header as Header, length: end + 1} : undefined
  } catch {
    return undefined
  }
}

/** Up to `length` bytes from `position` (fewer when the file ends sooner). */
function readAt(fd: number, position: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(Math.max(0, length))
  let got = 0
  while (got < out.length) {
    const n = readSync(fd, out, got, out.length - got, position + got)
    if (n === 0) break
    got += n
  }
  return out.subarray(0, got)
}

/**
 * A descriptor open for appending to `path`, whose header names `embedderId` and `dimensions`:
 * the file is created when missing and replaced when it is another's. Undefined when the path or
 * its folder is a link.
 */
function openForAppend(path: string, embedderId: string, dimensions: number): number | undefined {
  if (!prepareFolder(path)) return undefined
  // A few times at most: a file another process created or replaced meanwhile is taken as it is.
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined
      // Created by a hard link to a complete file: two processes creating it at once make one
      // file with one header, where an O_CREAT open could leave two headers in a row.
      writeWhole(path, embedderId, dimensions, [], 'link')
      continue
    }
    const head = readHeader(fd, fstatSync(fd).size)
    if (head && head.header.embedder === embedderId && head.header.dimensions === dimensions) return fd
    closeSync(fd)
    writeWhole(path, embedderId, dimensions, [], 'rename')
  }
  return undefined
}

/** Makes the file's folder (mode 0700); false when the folder is a link. */
function prepareFolder(path: string): boolean {
  const dir = dirname(path)
  if (isLink(dir)) return false
  mkdirSync(dir, {recursive: true, mode: DIR_MODE})
  return true
}

/**
 * Writes a whole vector file (header, then `records`) to a temporary file in the same folder,
 * then puts it at `path`: by `rename` (replacing what is there, a link included but never what
 * it points to) or by `link` (only if nothing is there yet). False when not put in place.
 */
function writeWhole(
  path: string,
  embedderId: string,
  dimensions: number,
  records: readonly Buffer[],
  how: 'rename' | 'link',
): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    const fd = openSync(tmp, 'wx', FILE_MODE)
    try {
      writeAll(fd, headerBytes(embedderId, dimensions)!)
      // Records gathered into writes of about 1 MiB: a million small writes would cost seconds.
      let batch: Buffer[] = []
      let bytes = 0
      for (const record of records) {
        batch.push(record)
        bytes += record.length
        if (bytes < 1 << 20) continue
        writeAll(fd, Buffer.concat(batch))
        batch = []
        bytes = 0
      }
      if (batch.length > 0) writeAll(fd, Buffer.concat(batch))
    } finally {
      closeSync(fd)
    }
    if (how === 'rename') renameSync(tmp, path)
    else linkSync(tmp, path)
    return true
  } catch {
    return false
  } finally {
    rmSync(tmp, {force: true})
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at)
}

/** A record's bytes, or undefined when it cannot be stored (see {@link appendVectors}). */
function encodeRecord(record: VectorRecord, dimensions: number): Buffer | undefined {
  const {id, digest} = record
  if (id.length === 0 || id.length > MAX_ID_LENGTH) return undefined
  if (digest.length > MAX_DIGEST_LENGTH || !/^[\x20-\x7e]*$/.test(digest)) return undefined
  // A record read back is written as it was read: quantizing its floats again gives the same bytes, slower.
  const {values, scale} = record instanceof StoredVector ? record.quantized : quantize(record.vector)
  if (values.length !== dimensions) return undefined
  const idBytes = Buffer.byteLength(id, 'utf8')
  const length = OVERHEAD + dimensions + idBytes + digest.length
  const out = Buffer.alloc(length)
  MAGIC.copy(out, 0)
  out.writeUInt32LE(length, 4)
  out.writeUInt16LE(idBytes, 8)
  out.writeUInt8(digest.length, 10)
  out.writeFloatLE(scale, 12)
  out.set(new Uint8Array(values.buffer, values.byteOffset, dimensions), VECTOR_AT)
  out.write(id, VECTOR_AT + dimensions, 'utf8')
  out.write(digest, VECTOR_AT + dimensions + idBytes, 'latin1')
  out.writeUInt32LE(crc32(out.subarray(0, length - 4)), length - 4)
  return out
}

/** Whether a record's length field could be right for vectors of `dimensions` components. */
function plausible(length: number, dimensions: number): boolean {
  return length >= OVERHEAD + dimensions + 1 && length <= OVERHEAD + dimensions + MAX_ID_BYTES + MAX_DIGEST_LENGTH
}

type Check = 'valid' | 'torn' | 'damaged'

/** What the bytes at `at` are: a whole valid record, the start of one not yet all written, or neither. */
function check(bytes: Buffer, at: number, dimensions: number): Check {
  if (bytes.length - at < 8) return 'torn'
  if (bytes.compare(MAGIC, 0, 4, at, at + 4) !== 0) return 'damaged'
  const length = bytes.readUInt32LE(at + 4)
  if (!plausible(length, dimensions)) return 'damaged'
  if (bytes.length - at < length) return 'torn'
  const fields = OVERHEAD + dimensions + bytes.readUInt16LE(at + 8) + bytes.readUInt8(at + 10)
  if (fields !== length || bytes.readUInt8(at + 11) !== 0) return 'damaged'
  return crc32(bytes.subarray(at, at + length - 4)) === bytes.readUInt32LE(at + length - 4) ? 'valid' : 'damaged'
}

/** Where the next valid record after `at` starts, or -1. */
function resync(bytes: Buffer, at: number, dimensions: number): number {
  for (let next = bytes.indexOf(MAGIC, at + 1); next >= 0; next = bytes.indexOf(MAGIC, next + 1)) {
    if (check(bytes, next, dimensions) === 'valid') return next
  }
  return -1
}

function parseRecords(bytes: Buffer, dimensions: number): {records: StoredVector[]; end: number; damaged: number} {
  const records: StoredVector[] = []
  let at = 0
  let damaged = 0
  while (at < bytes.length) {
    const state = check(bytes, at, dimensions)
    if (state === 'torn') break
    if (state === 'damaged') {
      damaged++
      const next = resync(bytes, at, dimensions)
      if (next < 0) break
      at = next
      continue
    }
    records.push(decodeRecord(bytes, at, dimensions))
    at += bytes.readUInt32LE(at + 4)
  }
  return {records, end: at, damaged}
}

function decodeRecord(bytes: Buffer, at: number, dimensions: number): StoredVector {
  const idAt = at + VECTOR_AT + dimensions
  const digestAt = idAt + bytes.readUInt16LE(at + 8)
  return new StoredVector(
    bytes.toString('utf8', idAt, digestAt),
    bytes.toString('latin1', digestAt, digestAt + bytes.readUInt8(at + 10)),
    {
      values: new Int8Array(bytes.buffer, bytes.byteOffset + at + VECTOR_AT, dimensions),
      scale: bytes.readFloatLE(at + 12),
    },
  )
}
