/**
 * One record of a segment file, found by its id (or by a field's value) in the file's bytes
 * without decoding the other records. A cold search needs the records of its ten hits, which lie in up to ten segments of a
 * thousand records each: parsing and checking all of them cost more than the search itself.
 *
 * It only answers for a file in the shape mem writes (one `JSON.stringify` line whose envelope
 * starts with `header`, each record an object whose first key is its id). For anything else
 * (a file formatted by hand, keys reordered, an id found twice) it answers undefined, and the
 * caller reads the segment whole, as it would have anyway.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN = 0x7b
const CLOSE = 0x7d
const COMMA = 0x2c
const BRACKET = 0x5b

/** The JSON text of the record with `id`, or undefined when it cannot be told without decoding the whole file. */
export function recordText(bytes: Buffer, header: string, id: string): string | undefined {
  const head = Buffer.from(header)
  if (!startsWith(bytes, head)) return undefined
  const needle = Buffer.from(`{"id":${JSON.stringify(id)},`)
  const start = bytes.indexOf(needle, head.length - 1)
  if (start < 0) return undefined
  // A record starts the array or follows a comma; an id in any other place is not a record's.
  const before = bytes[start - 1]
  if (before !== BRACKET && before !== COMMA) return undefined
  const end = objectEnd(bytes, start)
  if (end === undefined || bytes.indexOf(needle, end) >= 0) return undefined
  return bytes.toString('utf8', start, end)
}

/**
 * The JSON texts of the records whose `field` is the string `value`, found by the
 * bytes `"field":"value"` (a quote that is not escaped never occurs inside a string, so these
 * bytes are always a key and its value); undefined when a match does not lie in a record of the
 * shape mem writes. The duplicate guard confirms a hash that hit this way: the sentence an agent
 * adds again is most often the very one it added before.
 */
export function recordsWith(bytes: Buffer, header: string, field: string, value: string): string[] | undefined {
  const head = Buffer.from(header)
  if (!startsWith(bytes, head)) return undefined
  const needle = Buffer.from(`"${field}":${JSON.stringify(value)}`)
  const opener = Buffer.from('{"id":')
  const texts: string[] = []
  for (let at = bytes.indexOf(needle, head.length); at >= 0; at = bytes.indexOf(needle, at + needle.length)) {
    // The record that holds the match starts at the last object opened by an id before it.
    const start = bytes.lastIndexOf(opener, at)
    if (start < head.length - 1) return undefined
    const before = bytes[start - 1]
    if (before !== BRACKET && before !== COMMA) return undefined
    const end = objectEnd(bytes, start)
    if (end === undefined || end <= at + needle.length) return undefined
    texts.push(bytes.toString('utf8', start, end))
  }
  return texts
}

function startsWith(bytes: Buffer, head: Buffer): boolean {
  return bytes.length >= head.length && bytes.subarray(0, head.length).equals(head)
}

/**
 * The offset just past the object that opens at `start`. Only the ASCII bytes `"`, `\`, `{` and
 * `}` matter, and none of them occurs inside a multi-byte UTF-8 character, so bytes will do.
 */
function objectEnd(bytes: Buffer, start: number): number | undefined {
  let depth = 0
  let inString = false
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i]
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN) depth++
    else if (c === CLOSE && --depth === 0) return i + 1
  }
  return undefined
}
