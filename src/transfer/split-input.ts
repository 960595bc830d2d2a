/**
 * Cuts an import's bytes into the pieces read one at a time: the lines of JSON Lines, or the
 * items of one JSON array (ChatGPT's and Claude's conversations.json). A piece longer than the
 * limit is reported as soon as it passes it, and its bytes are dropped as they come, so no
 * piece is ever held whole beyond the limit.
 */

export type Piece = {at: number; bytes: Buffer; tooLong?: undefined} | {at: number; bytes?: undefined; tooLong: true}

const NEWLINE = 0x0a

/** The bytes without the byte order mark some editors put first. */
export async function* withoutBom(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let first = true
  for await (const chunk of chunks) {
    if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) yield chunk.subarray(3)
    else yield chunk
    first = false
  }
}

/** The first byte that is not white space, or undefined for an empty input. */
export async function firstByte(chunks: AsyncIterable<Buffer>): Promise<number | undefined> {
  for await (const chunk of chunks) for (const byte of chunk) if (!isSpace(byte)) return byte
  return undefined
}

/** Lines, numbered from 1. The last line needs no line break. */
export async function* splitLines(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Piece> {
  let parts: Buffer[] = []
  let length = 0
  let dropping = false
  let line = 1
  for await (const chunk of chunks) {
    let start = 0
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start)
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end)
      if (!dropping) {
        if (length + piece.length > maxBytes) {
          dropping = true
          parts = []
          length = 0
          yield {at: line, tooLong: true}
        } else {
          parts.push(piece)
          length += piece.length
        }
      }
      if (end === -1) break
      if (!dropping) yield {at: line, bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, length)}
      parts = []
      length = 0
      dropping = false
      line++
      start = end + 1
    }
  }
  if (length > 0) yield {at: line, bytes: Buffer.concat(parts, length)}
}

const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c

function trimEnd(bytes: Buffer): Buffer {
  let end = bytes.length
  while (end > 0 && isSpace(bytes[end - 1]!)) end--
  return bytes.subarray(0, end)
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

/**
 * The items of a JSON array, numbered from 1, each as the bytes of one JSON value (checked by
 * whoever parses it). Only the nesting and the strings are followed here, to find where each
 * item ends; an array that is not closed, or anything after it, is an error.
 */
export async function* splitArrayItems(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Piece> {
  let state = 'before' as 'before' | 'between' | 'item' | 'after'
  let depth = 0
  let inString = false
  let escaped = false
  let parts: Buffer[] = []
  let length = 0
  let dropping = false
  let item = 0
  let offset = 0
  for await (const chunk of chunks) {
    let start = 0
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!
      if (state === 'item') {
        if (inString) {
          if (escaped) escaped = false
          else if (byte === BACKSLASH) escaped = true
          else if (byte === QUOTE) inString = false
          continue
        }
        if (byte === QUOTE) inString = true
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++
        else if (depth > 0 && (byte === CLOSE_BRACE || byte === CLOSE_BRACKET)) depth--
        else if (depth === 0 && (byte === COMMA || byte === CLOSE_BRACKET)) {
          const piece = chunk.subarray(start, i)
          if (!dropping && length + piece.length > maxBytes) yield {at: item, tooLong: true}
          else if (!dropping) yield {at: item, bytes: trimEnd(Buffer.concat([...parts, piece], length + piece.length))}
          parts = []
          length = 0
          dropping = false
          state = byte === COMMA ? 'between' : 'after'
        }
        continue
      }
      if (isSpace(byte)) continue
      if (state === 'before' && byte === OPEN_BRACKET) {
        state = 'between'
        continue
      }
      if (state === 'between' && byte === CLOSE_BRACKET && item === 0) {
        state = 'after'
        continue
      }
      if (state === 'between' && byte !== COMMA && byte !== CLOSE_BRACKET) {
        state = 'item'
        item++
        start = i
        i-- // read the item's first byte as part of it
        continue
      }
      const shown = byte > 0x20 && byte < 0x7f ? `"${String.fromCharCode(byte)}"` : `byte 0x${byte.toString(16)}`
      throw new Error(`not valid JSON: unexpected ${shown} at byte ${offset + i + 1} of the file`)
    }
    if (state === 'item' && !dropping) {
      const piece = chunk.subarray(start)
      if (length + piece.length > maxBytes) {
        dropping = true
        parts = []
        length = 0
        yield {at: item, tooLong: true}
      } else {
        parts.push(piece)
        length += piece.length
      }
    }
    offset += chunk.length
  }
  if (state !== 'after') throw new Error('not valid JSON: the file ends before the array is closed')
}
