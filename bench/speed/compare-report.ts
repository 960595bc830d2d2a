import {PATHS, type Measure, type Target} from './compare.js'
import {grid, ms} from './stats.js'

function value(unit: Measure['unit'], x: number): string {
  if (!Number.isFinite(x)) return '-'
  switch (unit) {
    case 'ms':
      return `${ms(x)} ms`
    case 'MiB':
      return `${x.toFixed(0)} MiB`
    case 'MB':
      return `${x.toFixed(1)} MB`
    case '×':
      return `${x.toFixed(2)}×`
  }
}

function targetText(target: Target | undefined): string {
  if (!target) return ''
  return target.kind === 'ratio' ? `≤ ${target.limit}×` : `mem ≤ ${target.limit} ms`
}

/** Whether a measure meets its target: '' when it has none. */
export function verdict(m: Measure): '' | 'ok' | 'MISSED' {
  if (!m.target) return ''
  const x = m.target.kind === 'ratio' ? m.mem / m.sqlite : m.mem
  return x <= m.target.limit ? 'ok' : 'MISSED'
}

/** Every measure beside the baseline's, the ratio, and the issue's target where one applies. */
export function comparisonTable(measures: Measure[], markdown: boolean): string {
  const head = ['facts', 'path', 'measure', 'mem', 'SQLite FTS5', 'mem ÷ SQLite', 'target', '']
  const rows = measures.map((m) => [
    m.facts.toLocaleString('en'),
    m.path,
    markdown ? m.what.replace(/(search --json|node -e 0)/g, '`$1`') : m.what,
    value(m.unit, m.mem),
    value(m.unit, m.sqlite),
    Number.isFinite(m.mem / m.sqlite) ? `${(m.mem / m.sqlite).toFixed(2)}×` : '-',
    targetText(m.target),
    verdict(m),
  ])
  return grid(head, rows, [true, false, false, true, true, true, false, false], markdown)
}

/** One line: how many targets were met, and which were missed. */
export function targetSummary(measures: Measure[]): string {
  const judged = measures.filter((m) => m.target)
  const missed = judged.filter((m) => verdict(m) === 'MISSED')
  const list = missed.map(
    (m) =>
      `${m.what} at ${m.facts.toLocaleString('en')} (${m.path}): ${m.target!.kind === 'ratio' ? `${(m.mem / m.sqlite).toFixed(2)}×` : `${ms(m.mem)} ms`}`,
  )
  return `targets: ${judged.length - missed.length} of ${judged.length} met${missed.length > 0 ? `; missed: ${list.join('; ')}` : ''}`
}

/** The lines of the summary: the issue's measures, on the paths its targets name. */
const SUMMARY: {label: string; path: string; whats: string[]}[] = [
  {
    label: 'warm search p50 / p95, Zipf mix',
    path: PATHS.importAdds,
    whats: ['warm search p50, Zipf mix', 'warm search p95, Zipf mix'],
  },
  {
    label: 'warm search p50 / p95, facts.ts mix',
    path: PATHS.importAdds,
    whats: ['warm search p50, facts.ts mix', 'warm search p95, facts.ts mix'],
  },
  ...Object.values(PATHS).map((path) => ({
    label: `first search after a start / a restart (${path})`,
    path,
    whats: ['first search after the server starts', 'first search after a restart'],
  })),
  {label: 'cold search --json', path: PATHS.importAdds, whats: ['cold search --json p50']},
  {label: 'cold search --json ÷ node -e 0', path: PATHS.importAdds, whats: ['cold search --json p50 ÷ node -e 0']},
  {label: 'add p50', path: PATHS.importAdds, whats: ['add p50']},
  {label: 'peak RSS of a server', path: PATHS.importAdds, whats: ['peak RSS of a server']},
]

function summaryCell(found: Measure[]): string {
  const ratios = found.map((m) => `${(m.mem / m.sqlite).toFixed(2)}×`).join(' / ')
  const values = (pick: (m: Measure) => number) => found.map((m) => value(m.unit, pick(m))).join(' / ')
  const verdicts = found.map(verdict).filter((v) => v !== '')
  const mark = verdicts.length === 0 ? '' : verdicts.includes('MISSED') ? ' MISSED' : ' ok'
  return `${ratios} (${values((m) => m.mem)} vs ${values((m) => m.sqlite)})${mark}`
}

/**
 * The issue's table: for each of its measures and each size, mem ÷ SQLite with both figures in
 * brackets, and whether the targets of the cell are met.
 */
export function summaryTable(measures: Measure[], markdown: boolean): string {
  const sizes = [...new Set(measures.map((m) => m.facts))]
  const rows = SUMMARY.flatMap((line) => {
    const cells = sizes.map((facts) => {
      const found = line.whats.map((w) =>
        measures.find((m) => m.facts === facts && m.path === line.path && m.what.startsWith(w)),
      )
      return found.every((m) => m !== undefined) ? summaryCell(found as Measure[]) : ''
    })
    const label = markdown ? line.label.replace(/(search --json|node -e 0)/g, '`$1`') : line.label
    return cells.some((c) => c !== '') ? [[label, ...cells]] : []
  })
  const head = ['mem ÷ SQLite FTS5 (mem vs SQLite)', ...sizes.map((s) => `${s.toLocaleString('en')} facts`)]
  return grid(head, rows, [false, ...sizes.map(() => false)], markdown)
}
