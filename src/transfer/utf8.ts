import {isUtf8} from 'node:buffer'

/** Bytes that are not UTF-8 (a file saved as Latin-1 or Windows-1252, or cut in the middle of a character). */
export class InvalidUtf8 extends Error {
  constructor(
    readonly byteAt: number,
    readonly byte: number,
  ) {
    super(`not valid UTF-8: byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} at byte ${byteAt} of the line`)
  }
}

/**
 * The text of a line. Bytes that are not UTF-8 throw InvalidUtf8, unless `replace`: each is
 * then read as U+FFFD (�), as every UTF-8 reader must, and `replaced` says so.
 */
export function decodeUtf8(bytes: Buffer, replace: boolean): {text: string; replaced: boolean} {
  if (isUtf8(bytes)) return {text: bytes.toString('utf8'), replaced: false}
  if (replace) return {text: bytes.toString('utf8'), replaced: true}
  const at = firstInvalid(bytes)
  throw new InvalidUtf8(at + 1, bytes[at] ?? 0)
}

/** Where the first byte that breaks UTF-8 is (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
function firstInvalid(bytes: Buffer): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!
    const n = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1
    if (n < 0) return i
    let lo = 0x80
    let hi = 0xbf
    if (b === 0xe0) lo = 0xa0
    else if (b === 0xed) hi = 0x9f
    else if (b === 0xf0) lo = 0x90
    else if (b === 0xf4) hi = 0x8f
    for (let k = 1; k <= n; k++) {
      const c = bytes[i + k]
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i
    }
    i += n + 1
  }
  return bytes.length
}
