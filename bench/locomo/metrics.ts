/** One question: its category, its evidence turn ids, and the turn ids search returned, best first. */
export interface Outcome {
  category: string
  evidence: string[]
  ranked: string[]
}

export interface Scores {
  n: number
  any5: number
  any10: number
  frac5: number
  frac10: number
  mrr10: number
}

export const CATEGORY_ORDER = ['multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial', 'all']

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

export function score(outcomes: Outcome[]): Scores {
  const n = outcomes.length
  const mean = (f: (o: Outcome) => number) => (n === 0 ? 0 : outcomes.reduce((s, o) => s + f(o), 0) / n)
  return {
    n,
    any5: 100 * mean((o) => anyAt(o, 5)),
    any10: 100 * mean((o) => anyAt(o, 10)),
    frac5: 100 * mean((o) => fracAt(o, 5)),
    frac10: 100 * mean((o) => fracAt(o, 10)),
    mrr10: mean((o) => rrAt(o, 10)),
  }
}

export function scoreByCategory(outcomes: Outcome[]): Map<string, Scores> {
  const out = new Map<string, Scores>()
  for (const category of CATEGORY_ORDER) {
    const subset = category === 'all' ? outcomes : outcomes.filter((o) => o.category === category)
    out.set(category, score(subset))
  }
  return out
}

export function formatTable(title: string, byCategory: Map<string, Scores>): string {
  const lines = [
    `### ${title}`,
    '',
    '| category | n | any@5 | any@10 | frac@5 | frac@10 | MRR@10 |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const [category, s] of byCategory) {
    const mrr = s.mrr10.toFixed(3).replace(/^0/, '')
    lines.push(`| ${category} | ${s.n} | ${s.any5.toFixed(1)} | ${s.any10.toFixed(1)} | ${s.frac5.toFixed(1)} | ${s.frac10.toFixed(1)} | ${mrr} |`)
  }
  return lines.join('\n')
}
