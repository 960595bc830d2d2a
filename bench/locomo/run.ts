import type {Conversation, Turn} from './data.js'
import {sessionDateToIso} from './data.js'
import type {Outcome} from './metrics.js'
import type {Item, RetrieverKind} from './retrievers.js'

export const K = 10

/**
 * Each turn as a fact said at its session's date, the turns of one session one second apart
 * so that their order is kept, and each session one thread.
 */
export function itemsOf(turns: readonly Turn[]): Item[] {
  let session = NaN
  let start = 0
  let step = 0
  return turns.map((turn) => {
    if (turn.session !== session) {
      session = turn.session
      const iso = sessionDateToIso(turn.session_date)
      if (iso === undefined) throw new Error(`turn ${turn.id}: session date not recognised: ${JSON.stringify(turn.session_date)}`)
      start = Date.parse(iso)
      step = 0
    }
    // One thread per session: a session is one sitting of the conversation.
    return {content: turn.content, createdAt: new Date(start + 1000 * step++).toISOString(), thread: `session-${turn.session}`}
  })
}

/** Loads each conversation into a fresh store, asks its questions, and maps result ids back to turn ids. */
export async function evaluate(kind: RetrieverKind, conversations: readonly Conversation[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  for (const conv of conversations) {
    const store = await kind.open()
    try {
      const ids = await store.load(itemsOf(conv.turns))
      const turnOf = new Map(ids.map((id, i) => [id, conv.turns[i]!.id]))
      for (const q of conv.queries) {
        const ranked = await store.search(q.question, K)
        outcomes.push({
          category: q.category_name,
          evidence: q.evidence,
          ranked: ranked.map((id) => turnOf.get(id) ?? `?${id}`),
        })
      }
    } finally {
      await store.close()
    }
  }
  return outcomes
}
