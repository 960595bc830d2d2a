/**
 * A unified diff of two small texts (config files), enough for a person to review a change:
 * the common head and tail are cut first, so only the changed middle is compared line by line.
 */
export function unifiedDiff(before: string, after: string, label: string, context = 3): string {
  if (before === after) return ''
  const a = splitLines(before)
  const b = splitLines(after)
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const middle = diffLines(a.slice(head, a.length - tail), b.slice(head, b.length - tail))
  const from = Math.max(0, head - context)
  const lead = a.slice(from, head).map((l) => ` ${l}`)
  const trail = a.slice(a.length - tail, a.length - tail + context).map((l) => ` ${l}`)
  const body = [...lead, ...middle, ...trail]
  const oldCount = body.filter((l) => !l.startsWith('+')).length
  const newCount = body.filter((l) => !l.startsWith('-')).length
  const start = (count: number): number => (count === 0 ? from : from + 1)
  return [
    `--- ${before === '' ? '/dev/null' : label}`,
    `+++ ${label}`,
    `@@ -${start(oldCount)},${oldCount} +${start(newCount)},${newCount} @@`,
    ...body,
  ].join('\n')
}

function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** Longest-common-subsequence diff; fine for the few dozen lines a config change touches. */
function diffLines(a: string[], b: string[]): string[] {
  const n = a.length
  const m = b.length
  const lcs: number[][] = Array.from({length: n + 1}, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!)
  const out: string[] = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(` ${a[i++]}`)
      j++
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`-${a[i++]}`)
    else out.push(`+${b[j++]}`)
  }
  return out
}
