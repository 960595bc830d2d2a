import type {Measure, Target} from './compare.js'
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
