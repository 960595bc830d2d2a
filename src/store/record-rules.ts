import {MemError} from '../errors.js'
import type {Hit} from '../search/fact-index.js'
import type {CheckpointRecord, FactRecord} from './records.js'
import type {NewCheckpoint, NewFact, ScoredFact} from './store.js'

/**
 * What every Store implementation does the same way: the records a change makes and the errors
 * an unknown or dead fact gets, so the file store and PostgreSQL answer word for word alike.
 */

export function now(): string {
  return new Date().toISOString()
}

/** The thread key of a new record: present only when the fact has one, so older readers see the records they always saw. */
export function threadOf(fact: NewFact): {thread?: string} {
  return fact.thread === undefined ? {} : {thread: fact.thread}
}

/** What a hit says besides its fact and score: the match it came as context of, whether meaning alone found it, and with `explain` the words it matched. */
export function contextOf(hit: Hit): Pick<ScoredFact, 'contextFor' | 'matched' | 'byMeaning'> {
  return {
    ...(hit.contextFor === undefined ? {} : {contextFor: hit.contextFor}),
    ...(hit.matched === undefined ? {} : {matched: hit.matched}),
    ...(hit.byMeaning === undefined ? {} : {byMeaning: hit.byMeaning}),
  }
}

export function factRecord(id: string, fact: NewFact, createdAt: string): FactRecord {
  return {id, content: fact.content, tags: fact.tags, created_at: createdAt, ...threadOf(fact)}
}

/** The fact that replaces `ids` (reflect update and merge); the old ones are marked by the caller. */
export function supersedingRecord(
  id: string,
  next: NewFact & {reason?: string},
  ids: string[],
  createdAt: string,
): FactRecord {
  return {...factRecord(id, next, createdAt), supersedes: ids, ...(next.reason ? {reason: next.reason} : {})}
}

export function checkpointRecord(id: string, checkpoint: NewCheckpoint, createdAt: string): CheckpointRecord {
  return {
    id,
    created_at: createdAt,
    ...(checkpoint.label === undefined ? {} : {label: checkpoint.label}),
    state: checkpoint.state,
    ...(checkpoint.messages === undefined ? {} : {messages: checkpoint.messages}),
  }
}

export function knownFact(agent: string, id: string, fact: FactRecord | undefined): FactRecord {
  if (!fact) throw new MemError('not_found', `No fact "${id}" found for agent "${agent}".`)
  return fact
}

/** The fact, if it is live; otherwise what became of it, with the id to use instead. */
export function liveFact(agent: string, id: string, fact: FactRecord | undefined): FactRecord {
  const known = knownFact(agent, id, fact)
  if (known.deleted_at !== undefined)
    throw new MemError('not_found', `Fact "${id}" of agent "${agent}" was deleted at ${known.deleted_at}.`)
  if (known.superseded_by !== undefined)
    throw new MemError(
      'not_found',
      `Fact "${id}" of agent "${agent}" was replaced by "${known.superseded_by}" at ${known.superseded_at}; use that id instead.`,
    )
  return known
}

/** Records whose id is neither known nor seen earlier in the same batch. */
export function newById<T extends {id: string}>(records: T[], known: (id: string) => boolean): T[] {
  const seen = new Set<string>()
  return records.filter((r) => {
    if (known(r.id) || seen.has(r.id)) return false
    seen.add(r.id)
    return true
  })
}
