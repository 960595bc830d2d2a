/** Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({length: a.length + 1}, (_, i) =>
    Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

/** The candidate nearest to `word`, if any is near enough to be a likely typo (or starts with it). */
export function closest(word: string, candidates: string[]): string | undefined {
  let best: {candidate: string; distance: number} | undefined
  for (const candidate of candidates) {
    const distance = candidate.startsWith(word) ? 0 : editDistance(word, candidate)
    if (!best || distance < best.distance) best = {candidate, distance}
  }
  return best && best.distance <= Math.max(2, Math.floor(word.length / 3)) ? best.candidate : undefined
}
