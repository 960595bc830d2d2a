/**
 * Depth of a JSON value, measured without recursion so that hostile nesting cannot
 * overflow the stack; stops counting once past `limit`.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (item === null || typeof item !== 'object') continue
    if (depth > limit) return true
    for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return false
}

/** Size of a value as JSON; a value too deep to serialize counts as too big. */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8')
  } catch {
    return Number.POSITIVE_INFINITY
  }
}
