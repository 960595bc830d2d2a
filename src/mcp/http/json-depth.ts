const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, told from its bytes in one
 * pass without parsing, so a body nested a million deep is refused in about a millisecond
 * rather than blocking every other client while JSON.parse builds it. Brackets inside strings
 * do not count (an escaped quote does not end a string). UTF-8 is read byte by byte: every
 * byte of a multi-byte character is 0x80 or above, so none is taken for a bracket or quote.
 * Text that is not JSON is left for the parser to refuse.
 */
export function jsonNestsDeeperThan(text: Uint8Array, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) {
      inString = true
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}
