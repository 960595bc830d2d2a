import type {Outcome} from './run.js'

export interface Scores {
  n: number
  any5: number
  any10: number
  frac5: number
  frac10: number
  mrr10: number
  /** Share of questions with a fact from an evidence session in the top 10 (sets with sessions only). */
  sessionAny10?: number
  /** Share of returned facts, not marked as context, that share no word with the question. */
  strays: number
}

function anyAt(o: Outcome, k: number): number {
  const top = new Set(o.ranked.slice(0, k))
  return o.evidence.some((e) => top.has(e)) ? 1 : 0
}

function fracAt(o: Outcome, k: number): number {
  const top = new Set(o.ranked.slice(0, k))
  return o.evidence.filter((e) => top.has(e)).length / o.evidence.length
}

function rrAt(o: Outcome, k: number): number {
  const evidence = new Set(o.evidence)
  const i = o.ranked.slice(0, k).findIndex((t) => evidence.has(t))
  return i < 0 ? 0 : 1 / (i + 1)
}

function sessionAt(o: Outcome, k: number): number {
  const top = new Set(o.rankedGroups?.slice(0, k))
  return (o.evidenceGroups ?? []).some((g) => top.has(g)) ? 1 : 0
}

export function score(outcomes: Outcome[]): Scores {
  const n = outcomes.length
  const mean = (f: (o: Outcome) => number) => (n === 0 ? 0 : outcomes.reduce((s, o) => s + f(o), 0) / n)
  const returned = outcomes.reduce((s, o) => s + o.returned, 0)
  return {
    n,
    any5: 100 * mean((o) => anyAt(o, 5)),
    any10: 100 * mean((o) => anyAt(o, 10)),
    frac5: 100 * mean((o) => fracAt(o, 5)),
    frac10: 100 * mean((o) => fracAt(o, 10)),
    mrr10: mean((o) => rrAt(o, 10)),
    ...(outcomes.some((o) => o.evidenceGroups) ? {sessionAny10: 100 * mean((o) => sessionAt(o, 10))} : {}),
    strays: returned === 0 ? 0 : (100 * outcomes.reduce((s, o) => s + o.strays, 0)) / returned,
  }
}

export function scoreByCategory(outcomes: Outcome[], categories: readonly string[]): Map<string, Scores> {
  const out = new Map<string, Scores>()
  for (const category of [...categories, 'all'])
    out.set(category, score(category === 'all' ? outcomes : outcomes.filter((o) => o.category === category)))
  return out
}

export const mrr = (x: number): string => x.toFixed(3).replace(/^0/, '')

/** One retriever's figures per category, and the short name its column goes by. */
export interface Column {
  label: string
  scores: Map<string, Scores>
}

/** mem next to the baselines, per category: each cell "mem / first baseline / second …". */
export function formatSideBySide(title: string, columns: readonly Column[]): string {
  const sessions = columns.some((c) => [...c.scores.values()].some((s) => s.sessionAny10 !== undefined))
  const head = [
    'category',
    'n',
    'any@5',
    'any@10',
    'frac@5',
    'frac@10',
    'MRR@10',
    ...(sessions ? ['session any@10'] : []),
  ]
  const lines = [
    `### ${title} (${columns.map((c) => c.label).join(' / ')})`,
    '',
    `| ${head.join(' | ')} |`,
    `| --- |${head
      .slice(1)
      .map(() => ' ---: |')
      .join('')}`,
  ]
  for (const [category, first] of columns[0]!.scores) {
    const all = columns.map((c) => c.scores.get(category)!)
    const cell = (f: (s: Scores) => number) => all.map((s) => f(s).toFixed(1)).join(' / ')
    const cells = [
      category,
      String(first.n),
      cell((s) => s.any5),
      cell((s) => s.any10),
      cell((s) => s.frac5),
      cell((s) => s.frac10),
      all.map((s) => mrr(s.mrr10)).join(' / '),
    ]
    if (sessions) cells.push(cell((s) => s.sessionAny10 ?? 0))
    lines.push(`| ${cells.join(' | ')} |`)
  }
  const strays = columns.map((c) => `${c.label} ${c.scores.get('all')!.strays.toFixed(1)}%`).join(', ')
  lines.push('', `Returned facts, not marked as context, that share no word with the question: ${strays}.`)
  return lines.join('\n')
}
