/** The slice of a list that fits `height` rows while keeping `selected` in view. */
export function windowOf(length: number, selected: number, height: number): {start: number; end: number} {
  const rows = Math.max(1, height)
  const start = Math.max(0, Math.min(selected - Math.floor(rows / 2), length - rows))
  return {start, end: Math.min(length, start + rows)}
}
