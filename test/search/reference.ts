import {DEFAULT_TUNING, type IndexedFact, type SearchOptions, type Tuning} from '../../src/search/fact-index.js'
import {datesInQuery, inAnySpan} from '../../src/search/query-dates.js'
import {closingQuestion} from '../../src/search/questions.js'
import {analyze, analyzeWords, queryWords, toTerm} from '../../src/search/tokenize.js'
import {termsOf as weakTermsOf} from '../../src/search/weak-words.js'
import {edits} from '../../bench/recall/words.js'

/**
 * The ranking FactIndex documents, computed the slow obvious way: every fact scored against
 * every query term, context from every fact. Tests compare FactIndex's shortcuts against it.
 */
export class ReferenceIndex {
  private facts: (IndexedFact & {terms: string[]; time: number; asked: Set<string>})[] = []
  private readonly tuning: Tuning
  /** Every word as written that stemmed to another term, ever: like the index, this never shrinks. */
  private readonly surfaces = new Set<string>()

  constructor(tuning: Partial<Tuning> = {}) {
    this.tuning = {...DEFAULT_TUNING, ...tuning}
  }

  add(fact: IndexedFact): void {
    const terms = [...analyze(fact.content), ...analyze(fact.tags.join(' '))]
    for (const w of [...analyzeWords(fact.content).surfaces, ...analyzeWords(fact.tags.join(' ')).surfaces])
      this.surfaces.add(w)
    const entry = {
      ...fact,
      tags: [...fact.tags],
      terms,
      time: Date.parse(fact.created_at),
      asked: new Set(analyze(closingQuestion(fact.content) ?? '')),
    }
    const i = this.facts.findIndex((f) => f.id === fact.id)
    if (i >= 0) this.facts[i] = entry
    else this.facts.push(entry)
  }

  remove(id: string): void {
    this.facts = this.facts.filter((f) => f.id !== id)
  }

  /** Full-precision scores of every fact with a score above 0, by id. */
  scores(
    query: string,
    options: Omit<SearchOptions, 'limit' | 'partial'> & {partial?: boolean} = {},
  ): Map<string, number> {
    const t = this.tuning
    const out = new Map<string, number>()
    this.lastLender.clear()
    const words: ReturnType<typeof queryWords> = []
    const keys = new Set<string>()
    for (const w of queryWords(query, options.partial)) {
      const key = w.partial || w.term === undefined ? `\u0000${w.surface}` : w.term
      if (!keys.has(key)) {
        keys.add(key)
        words.push(w)
      }
    }
    if (words.length === 0 || this.facts.length === 0) return out
    const n = this.facts.length
    const avg = this.facts.reduce((s, f) => s + f.terms.length, 0) / n || 1
    const df = new Map<string, number>()
    for (const f of this.facts) for (const term of new Set(f.terms)) df.set(term, (df.get(term) ?? 0) + 1)
    const idf = (term: string) => Math.log(1 + (n - df.get(term)! + 0.5) / (df.get(term)! + 0.5)) ** t.idfPower
    // Keys: live terms and every word as written; a key leads to itself as a term and to its term as a word.
    const termsOf = (key: string) =>
      [...new Set([key, ...(this.surfaces.has(key) ? [toTerm(key) ?? ''] : [])])].filter((t) => df.has(t))
    const vocab = [...new Set([...df.keys(), ...this.surfaces])].filter((k) => termsOf(k).length > 0)
    const reaches = words.map((w) => {
      const best = new Map<string, number>()
      const offer = (key: string, weight: number) => {
        for (const term of termsOf(key)) if ((best.get(term) ?? 0) < weight) best.set(term, weight)
      }
      const exact = w.term !== undefined && df.has(w.term)
      const L = w.surface.length
      if (t.prefixMinLength > 0 && (L >= t.prefixMinLength || w.partial)) {
        const starts = vocab
          .filter((v) => v.startsWith(w.surface))
          .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
        for (const v of starts.slice(0, t.prefixMaxWords))
          offer(v, (t.weights.prefix * v.length) / (v.length + 0.3 * (v.length - L)))
      }
      if (!exact && t.fuzzyMinLength > 0 && L >= t.fuzzyMinLength && !/^\p{N}+$/u.test(w.surface)) {
        const most = t.fuzzyTwoMinLength > 0 && L >= t.fuzzyTwoMinLength ? 2 : 1
        // A typo is corrected to a word some fact writes, not to a bare stem ("stori" of "stories").
        const stems = new Set([...this.surfaces].map((s) => toTerm(s)))
        for (const v of vocab) {
          if (!this.surfaces.has(v) && stems.has(v)) continue
          const e = edits(w.surface, v)
          if (e <= most) offer(v, (t.weights.fuzzy * v.length) / (v.length + e))
        }
      }
      // The exact term at full weight; a looser match at most half of it.
      const cap = exact ? idf(w.term!) / 2 : Number.POSITIVE_INFINITY
      const r: [string, number][] = [...best]
        .filter(([term]) => term !== w.term || !exact)
        .map(([term, weight]) => [term, Math.min(weight * idf(term), cap)])
      if (exact) r.push([w.term!, idf(w.term!)])
      return r
    })
    const since = options.since === undefined ? undefined : Date.parse(options.since)
    const until = options.until === undefined ? undefined : Date.parse(options.until)
    const accepted = (f: (typeof this.facts)[number]) =>
      (since === undefined || f.time >= since) &&
      (until === undefined || f.time < until) &&
      (options.tags ?? []).every((tag) => f.tags.includes(tag))
    const spans = t.dateBoost === 1 ? [] : datesInQuery(query)
    const {k, b, d} = t.bm25
    // Words that say little: weak verbs, and words in more than commonShare of the facts.
    const weakTerms = weakTermsOf(t.weakWords)
    const weak = words.map(
      (w) => !w.partial && w.term !== undefined && (weakTerms.has(w.term) || (df.get(w.term) ?? 0) > t.commonShare * n),
    )
    const informative = this.facts.map(() => false)
    const own = this.facts.map((f, fi) => {
      if (!accepted(f)) return 0
      let sum = 0
      let matched = 0
      reaches.forEach((r, q) => {
        let hit = false
        for (const [term, w] of r) {
          const tf = f.terms.filter((x) => x === term).length
          if (tf === 0) continue
          sum += w * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * f.terms.length) / avg)))
          hit = true
        }
        if (hit) matched++
        if (hit && !weak[q]) informative[fi] = true
      })
      const boost = spans.length > 0 && inAnySpan(f.time, spans) ? t.dateBoost : 1
      return sum * matched * boost
    })
    // A fact matched only by weak words is left out while another matches an informative one.
    if (weak.some((w) => w) && own.some((score, i) => score > 0 && informative[i]))
      own.forEach((_, i) => {
        if (!informative[i]) own[i] = 0
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
      const queryTerms = new Set(words.filter((w) => !w.partial).map((w) => w.term))
      const asksAbout = (asked: Set<string>) => [...asked].some((term) => queryTerms.has(term))
      own.forEach((score, i) => {
        if (score === 0) return
        const order = thread(i)
        const at = order.indexOf(i)
        for (const dir of [-1, 1]) {
          let amount = score
          for (let step = 1; step <= t.contextReach; step++) {
            const to = order[at + dir * step]
            if (to === undefined || !accepted(this.facts[to]!)) break
            // A question about a query word lends more to the fact after it, its reply.
            amount *= step === 1 && dir === 1 && asksAbout(this.facts[i]!.asked) ? t.replyShare : t.context
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
