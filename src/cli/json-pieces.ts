/**
 * The text of `JSON.stringify(value)`, handed out in pieces of about 64 KiB: a report that lists
 * 200,000 skipped lines (`mem import --json` of a file imported before) is then never one string
 * of 16 MB, and, written through writeToStdout, never queued whole for a reader that lags, which
 * took such an import from about 205 MiB to as much as 280.
 *
 * Objects and arrays are opened down to DEPTH levels, and whatever lies below is given whole to
 * `JSON.stringify`, as is anything but a plain object or an array (a Date, a value with a
 * `toJSON`), so the text is the same, piece for piece, as one call would write.
 */
const DEPTH = 3
const PIECE = 64 * 1024

export function* jsonPieces(value: unknown): Generator<string> {
  let held = ''
  for (const text of encode(value, DEPTH)) {
    held += text
    if (held.length >= PIECE) {
      yield held
      held = ''
    }
  }
  if (held.length > 0) yield held
}

function* encode(value: unknown, depth: number): Generator<string> {
  if (depth === 0 || !opens(value)) {
    // undefined, a function or a symbol: what JSON.stringify writes for them in an array.
    yield JSON.stringify(value) ?? 'null'
    return
  }
  if (Array.isArray(value)) {
    yield '['
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ','
      yield* encode(value[i], depth - 1)
    }
    yield ']'
    return
  }
  yield '{'
  let first = true
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
    yield `${first ? '' : ','}${JSON.stringify(key)}:`
    first = false
    yield* encode(item, depth - 1)
  }
  yield '}'
}

/** An array, or an object made by a literal or JSON.parse, without a toJSON of its own. */
function opens(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false
  if (Array.isArray(value)) return !('toJSON' in value)
  const proto = Object.getPrototypeOf(value) as unknown
  return (proto === Object.prototype || proto === null) && !('toJSON' in value)
}
