/** Summary of one measured series, in milliseconds. */
export interface Summary {
  n: number
  median: number
  p95: number
  max: number
}

/** Nearest-rank percentile over a sorted copy: p95 of 20 samples is the 19th. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1) ?? Number.NaN,
  }
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return '-'
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)
}

export interface Row {
  what: string
  facts: number
  summary: Summary
  /** The baseline measured in the same run, interleaved with this series. */
  baseline: Summary
  baselineName: string
  /** The target, as a p95 (or median for whole-process rows) limit or a ratio limit. */
  target?: {kind: 'p95' | 'ratio'; limit: number}
}

export function verdict(row: Row): string {
  if (!row.target) return ''
  const value = row.target.kind === 'p95' ? row.summary.p95 : row.summary.median / row.baseline.median
  return value <= row.target.limit ? 'ok' : 'MISSED'
}

/** A Markdown table, so the output can be pasted into docs/performance.md as is. */
export function table(rows: Row[]): string {
  const head =
    '| operation | facts | n | median ms | p95 ms | baseline | baseline median ms | median ratio | p95 ratio | target | |'
  const rule = '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |'
  const lines = rows.map((r) => {
    const target = r.target
      ? r.target.kind === 'p95'
        ? `p95 ≤ ${r.target.limit} ms`
        : `median ≤ ${r.target.limit} × baseline`
      : ''
    const ratio = (a: number, b: number): string => (Number.isFinite(a / b) ? (a / b).toFixed(2) : '-')
    return `| ${r.what} | ${r.facts.toLocaleString('en')} | ${r.summary.n} | ${ms(r.summary.median)} | ${ms(r.summary.p95)} | ${r.baselineName} | ${ms(r.baseline.median)} | ${ratio(r.summary.median, r.baseline.median)} | ${ratio(r.summary.p95, r.baseline.p95)} | ${target} | ${verdict(r)} |`
  })
  return [head, rule, ...lines].join('\n')
}

/**
 * A table as Markdown (for docs/performance.md) or as aligned plain text (for a terminal);
 * `right` marks the columns of numbers, right-aligned in both.
 */
export function grid(head: string[], rows: string[][], right: boolean[], markdown: boolean): string {
  if (markdown) {
    const rule = right.map((r) => (r ? '---:' : '---'))
    return [head, rule, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n')
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}
