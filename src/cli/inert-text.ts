/**
 * Stored text is written by whoever can reach the store, any MCP client included, so a
 * terminal must never take it as instructions: an escape sequence in a fact could set the
 * window title, clear the screen, write the clipboard (OSC 52) or hide a link (OSC 8).
 * Everything mem draws for a terminal passes stored text through here first. Every control
 * character becomes something visible that a terminal does not act on:
 *
 * - C0 (U+0000–U+001F) becomes its control picture (ESC → ␛, BEL → ␇, CR → ␍, LF → ␊),
 * - DEL becomes ␡,
 * - C1 (U+0080–U+009F, among them the one-character CSI, OSC and DCS) becomes `\u009b`-style text,
 * - the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) become
 *   `\u202e`-style text too: in a terminal that lays out right-to-left text, an override
 *   reverses the rest of the line, so a fact could make the id or date printed after it read as
 *   another. The marks (U+200E, U+200F, U+061C) stay: right-to-left writing uses them, and each
 *   acts only as an unseen letter of its direction would, which a fact may hold anyway.
 *
 * With the introducer shown, the rest of any escape sequence is plain text. The stored bytes
 * never change: --json, piped output and MCP carry them as they are.
 */

// eslint-disable-next-line no-control-regex -- control characters are what is being made visible
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g
// eslint-disable-next-line no-control-regex -- the same, sparing the line breaks and tabs of a block of text
const CONTROL_IN_BLOCK = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g

function shown(char: string): string {
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return '\u2421'
  return `\\u${code.toString(16).padStart(4, '0')}`
}

/** One stored value (a fact, a tag, a label): every control character shown, line breaks too. */
export function inert(text: string): string {
  return text.replace(CONTROL, shown)
}

/** A whole block of text for a terminal: the same, except that its tabs and line breaks stay. */
export function inertBlock(text: string): string {
  return text.replace(CONTROL_IN_BLOCK, shown)
}

/** A copy of a payload with every string in it (keys included) made {@link inert}. */
export function inertStrings<T>(value: T): T {
  if (typeof value === 'string') return inert(value) as T
  if (Array.isArray(value)) return value.map((item: unknown) => inertStrings(item)) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [inert(k), inertStrings(item)])) as T
  }
  return value
}

/** What a stream shows: inert when a terminal reads it, else the bytes as they are. */
export function forStream(stream: {isTTY?: boolean}, text: string): string {
  return stream.isTTY === true ? inertBlock(text) : text
}
