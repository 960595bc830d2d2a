import {sharesAWord, vocabularyOf} from './words.js'
import type {RetrieverKind} from './retrievers.js'
import type {RecallSet} from './sets.js'

export const K = 10

/** One question: its category, its evidence, what came back (best first), and how many returned facts were strays. */
export interface Outcome {
  /** The haystack (agent) the question was asked of. */
  haystack: string
  category: string
  evidence: string[]
  ranked: string[]
  evidenceGroups?: string[]
  rankedGroups?: string[]
  /** Returned facts not marked as context. */
  returned: number
  /** Of those, the ones that share no word with the question. */
  strays: number
}

/** Loads each haystack into a fresh store, asks its questions, and maps result ids back to the set's keys. */
export async function evaluate(kind: RetrieverKind, set: RecallSet): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  for (const haystack of set.haystacks) {
    const store = await kind.open()
    try {
      const ids = await store.load(haystack.docs, set.load)
      const docOf = new Map(ids.map((id, i) => [id, haystack.docs[i]!]))
      const vocabulary = vocabularyOf(haystack.docs.map((d) => d.content))
      for (const q of haystack.questions) {
        const hits = await store.search(q.question, K)
        const own = hits.filter((h) => !h.context)
        outcomes.push({
          haystack: haystack.name,
          category: q.category,
          evidence: q.evidence,
          ranked: hits.map((h) => docOf.get(h.id)?.key ?? `?${h.id}`),
          evidenceGroups: q.evidenceGroups,
          rankedGroups: q.evidenceGroups && hits.map((h) => docOf.get(h.id)?.group ?? ''),
          returned: own.length,
          strays: own.filter((h) => !sharesAWord(q.question, h.content, vocabulary)).length,
        })
      }
    } finally {
      await store.close()
    }
  }
  return outcomes
}
