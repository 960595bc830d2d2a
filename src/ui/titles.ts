import type {FactsPage} from './backend.js'

/** A count as people read it: 5,001. */
export function counted(n: number): string {
  return n.toLocaleString('en-US')
}

export function plural(n: number, one: string, many: string): string {
  return `${counted(n)} ${n === 1 ? one : many}`
}

/**
 * What the header says of the list, every count true: "5,001 facts"; while searching,
 * "37 matches of 5,001 facts", or "the best 100 matches of 5,001 facts" when the search stopped
 * at its limit and more may match. Results that came only as context of a matching fact's
 * thread, and those found by meaning alone, are counted apart from the matches.
 */
export function factsTitle(list: {
  loaded: boolean
  count: number
  live: number | undefined
  search: FactsPage['search']
}): string {
  if (!list.loaded) return 'facts'
  if (!list.search) return plural(list.count, 'fact', 'facts')
  const {matches, capped, byMeaning = 0} = list.search
  const context = list.count - matches - byMeaning
  const found = `${capped ? 'the best ' : ''}${plural(matches, 'match', 'matches')}`
  const threads = context > 0 ? ` (+${counted(context)} from their threads)` : ''
  const meaning = byMeaning > 0 ? ` (+${counted(byMeaning)} by meaning)` : ''
  return `${found}${threads}${meaning}${list.live === undefined ? '' : ` of ${plural(list.live, 'fact', 'facts')}`}`
}
