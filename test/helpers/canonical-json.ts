/**
 * A JSON value as text with every object's keys sorted (by UTF-16 code units, as RFC 8785
 * sorts them), so that two values compare byte for byte whatever order their keys came in.
 * Built as text, never by copying into a new object: an own `__proto__` key is written as the
 * key it is.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>
    const keys = Object.keys(object).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** The canonical text of what the JSON text `text` says. */
export function canonicalOfText(text: string): string {
  return canonicalJson(JSON.parse(text))
}

/**
 * The state and messages a `checkpoint_resume` / `mem resume --messages` prose shows: the
 * state as indented JSON after "State:", then one message a line after the messages heading.
 */
export function resumeProseParts(text: string): {state: unknown; messages: unknown[] | undefined} {
  const at = text.indexOf('\nState:\n')
  if (at < 0) throw new Error(`no "State:" line in:\n${text}`)
  const rest = text.slice(at + '\nState:\n'.length)
  const heading = /\n(?:Messages?|Last \d+ of \d+ messages), oldest first:(?:\n|$)/.exec(rest)
  if (heading === null) return {state: JSON.parse(rest), messages: undefined}
  const lines = rest.slice(heading.index + heading[0].length).split('\n')
  return {
    state: JSON.parse(rest.slice(0, heading.index)),
    messages: lines.filter((line) => line !== '').map((line) => JSON.parse(line) as unknown),
  }
}
