import {rng} from '../speed/facts.js'
import {score, type Scores} from './metrics.js'
import type {Outcome} from './run.js'

const RESAMPLES = 2000

/**
 * mem's lead over a baseline on the same questions, with a 90 % interval from a paired bootstrap
 * over questions. Added to the baseline's figure on a half kept aside (the sets' READMEs quote
 * it), the lead says roughly what to expect of mem there. Questions of one conversation move
 * together, which a resampling of questions leaves out: the true interval is wider.
 */
export function formatLead(title: string, ours: Outcome[], base: Outcome[], label: string): string {
  const measures: [string, (s: Scores) => number, number][] = [
    ['any@10', (s) => s.any10, 1],
    ['frac@10', (s) => s.frac10, 1],
    ['MRR@10', (s) => s.mrr10, 3],
  ]
  if (ours.some((o) => o.evidenceGroups)) measures.push(['session any@10', (s) => s.sessionAny10 ?? 0, 1])
  const draws = measures.map((): number[] => [])
  // Seeded, so that a run prints the same intervals every time.
  const next = rng(7)
  for (let r = 0; r < RESAMPLES; r++) {
    const picks = ours.map(() => Math.floor(next() * ours.length))
    const a = score(picks.map((i) => ours[i]!))
    const b = score(picks.map((i) => base[i]!))
    measures.forEach(([, of], m) => draws[m]!.push(of(a) - of(b)))
  }
  const a = score(ours)
  const b = score(base)
  const cells = measures.map(([name, of, digits], m) => {
    const sorted = draws[m]!.sort((x, y) => x - y)
    const at = (p: number) => signed(sorted[Math.floor(p * RESAMPLES)]!, digits)
    return `${name} ${signed(of(a) - of(b), digits)} [${at(0.05)}, ${at(0.95)}]`
  })
  return `mem's lead over ${label} on ${title}, with a 90 % interval over questions: ${cells.join(', ')}\n`
}

function signed(x: number, digits: number): string {
  return (x < 0 ? '−' : '+') + Math.abs(x).toFixed(digits)
}
