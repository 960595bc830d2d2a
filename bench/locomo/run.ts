import type {Conversation} from './data.js'
import {sessionDateToIso} from './data.js'
import type {Outcome} from './metrics.js'
import type {RetrieverKind} from './retrievers.js'

export const K = 10

/** Adds each conversation to a fresh store, asks its questions, and maps result ids back to turn ids. */
export async function evaluate(kind: RetrieverKind, conversations: Conversation[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  for (const conv of conversations) {
    const store = await kind.open()
    try {
      const turnOf = new Map<string, string>()
      for (const turn of conv.turns) {
        const factId = await store.add(turn.content, sessionDateToIso(turn.session_date))
        turnOf.set(factId, turn.id)
      }
      for (const q of conv.queries) {
        const ids = await store.search(q.question, K)
        outcomes.push({
          category: q.category_name,
          evidence: q.evidence,
          ranked: ids.map((id) => turnOf.get(id) ?? `?${id}`),
        })
      }
    } finally {
      await store.close()
    }
  }
  return outcomes
}
