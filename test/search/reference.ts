import {DEFAULT_TUNING, type IndexedFact, type SearchOptions, type Tuning} from '../../src/search/fact-index.js'
import {datesInQuery, inAnySpan} from '../../src/search/query-dates.js'
import {endsWithQuestion} from '../../src/search/questions.js'
import {analyze} from '../../src/search/tokenize.js'

/**
 * The ranking FactIndex documents, computed the slow obvious way: every fact scored against
 * every query term, context from every fact. Tests compare FactIndex's shortcuts against it.
 */
export class ReferenceIndex {
  private facts: (IndexedFact & {terms: string[]; time: number; asks: boolean})[] = []
  private readonly tuning: Tuning

  constructor(tuning: Partial<Tuning> = {}) {
    this.tuning = {...DEFAULT_TUNING, ...tuning}
  }

  add(fact: IndexedFact): void {
    const terms = [...analyze(fact.content), ...analyze(fact.tags.join(' '))]
    const entry = {...fact, tags: [...fact.tags], terms, time: Date.parse(fact.created_at), asks: endsWithQuestion(fact.content)}
    const i = this.facts.findIndex((f) => f.id === fact.id)
    if (i >= 0) this.facts[i] = entry
    else this.facts.push(entry)
  }

  remove(id: string): void {
    this.facts = this.facts.filter((f) => f.id !== id)
  }

  /** Full-precision scores of every fact with a score above 0, by id. */
  scores(query: string, options: Omit<SearchOptions, 'limit'> = {}): Map<string, number> {
    const t = this.tuning
    const out = new Map<string, number>()
    this.lastLender.clear()
    const qterms = [...new Set(analyze(query))]
    if (qterms.length === 0 || this.facts.length === 0) return out
    const n = this.facts.length
    const avg = this.facts.reduce((s, f) => s + f.terms.length, 0) / n || 1
    const df = new Map<string, number>()
    for (const f of this.facts) for (const term of new Set(f.terms)) df.set(term, (df.get(term) ?? 0) + 1)
    const vocab = [...df.keys()]
    const reaches = qterms.map((q) => {
      const r: [string, number][] = []
      const seen = new Set([q])
      if (df.has(q)) r.push([q, 1])
      if (t.prefixMinLength > 0 && q.length >= t.prefixMinLength) {
        for (const v of vocab) {
          if (seen.has(v) || !v.startsWith(q)) continue
          seen.add(v)
          r.push([v, (t.weights.prefix * v.length) / (v.length + 0.3 * (v.length - q.length))])
        }
      }
      if (t.fuzzyMinLength > 0 && q.length >= t.fuzzyMinLength) {
        for (const v of vocab) {
          if (seen.has(v) || levenshtein(q, v) > 1) continue
          seen.add(v)
          r.push([v, (t.weights.fuzzy * v.length) / (v.length + levenshtein(q, v))])
        }
      }
      return r
    })
    const since = options.since === undefined ? undefined : Date.parse(options.since)
    const until = options.until === undefined ? undefined : Date.parse(options.until)
    const accepted = (f: (typeof this.facts)[number]) =>
      (since === undefined || f.time >= since) && (until === undefined || f.time < until) && (options.tags ?? []).every((tag) => f.tags.includes(tag))
    const spans = t.dateBoost === 1 ? [] : datesInQuery(query)
    const {k, b, d} = t.bm25
    const own = this.facts.map((f) => {
      if (!accepted(f)) return 0
      let sum = 0
      let matched = 0
      reaches.forEach((r) => {
        let hit = false
        for (const [term, w] of r) {
          const tf = f.terms.filter((x) => x === term).length
          if (tf === 0) continue
          const dfx = df.get(term)!
          const idf = Math.log(1 + (n - dfx + 0.5) / (dfx + 0.5))
          sum += w * idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * f.terms.length) / avg)))
          hit = true
        }
        if (hit) matched++
      })
      const boost = spans.length > 0 && inAnySpan(f.time, spans) ? t.dateBoost : 1
      return sum * matched * boost
    })
    const loan = this.facts.map(() => 0)
    const lender = this.facts.map((): string | undefined => undefined)
    if (t.context > 0) {
      // Each thread's facts in (created_at, id) order; facts without a thread have no neighbours.
      const thread = (i: number) => {
        const name = this.facts[i]!.thread
        if (name === undefined) return [i]
        return this.facts
          .map((f, j) => ({f, j}))
          .filter(({f}) => f.thread === name)
          .sort((a, b) => a.f.time - b.f.time || (a.f.id < b.f.id ? -1 : a.f.id > b.f.id ? 1 : 0))
          .map(({j}) => j)
      }
      own.forEach((score, i) => {
        if (score === 0) return
        const order = thread(i)
        const at = order.indexOf(i)
        for (const dir of [-1, 1]) {
          let amount = score
          for (let step = 1; step <= t.contextReach; step++) {
            const to = order[at + dir * step]
            if (to === undefined || !accepted(this.facts[to]!)) break
            // A question lends more to the fact after it, its reply.
            amount *= step === 1 && dir === 1 && this.facts[i]!.asks ? t.replyShare : t.context
            if (amount > loan[to]!) {
              loan[to] = amount
              lender[to] = this.facts[i]!.id
            }
          }
        }
      })
    }
    this.facts.forEach((f, i) => {
      const s = own[i]! + loan[i]!
      if (s > 0) out.set(f.id, s)
      if (own[i] === 0 && loan[i]! > 0) this.lastLender.set(f.id, lender[i]!)
    })
    return out
  }

  /** After {@link scores}: for a fact that scored only through context, the fact it came with. */
  readonly lastLender = new Map<string, string>()

  createdAt(id: string): string {
    return this.facts.find((f) => f.id === id)!.created_at
  }
}

export function levenshtein(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }
  return row[b.length]!
}
