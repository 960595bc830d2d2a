import {MemError} from '../../errors.js'
import {DamagedIndex} from '../../search/damaged-index.js'
import type {FactIndex, SearchOptions} from '../../search/fact-index.js'
import type {FactRecord} from '../records.js'
import {contextOf} from '../record-rules.js'
import type {FactIndexType} from '../search-code.js'
import type {ScoredFact} from '../store.js'
import type {AgentFiles} from './agent-files.js'
import type {Change} from './cached-segments.js'
import {bumpRevision, readRevision, type Revision} from './revision.js'
import {openIndex, openPartial, worthSaving, type OpenedIndex} from './saved-index.js'
import {factDigest, readSaved, saveIndex, type SavedIndex, type SavedSegment} from './search-cache.js'
import {SearchView, type ReadOneFn, type ReadSegmentFn} from './search-view.js'

/**
 * An agent's search, by the three paths a process may take (which one: src/store/file/mode.ts):
 * the saved index brought up to date for one search ({@link searchSaved}), the lean view a
 * long-running process keeps ({@link leanSearch}), and the full index over every fact held
 * ({@link fullSearch}).
 */

/**
 * A long-running process's search before any operation needed every record: by the view
 * (src/store/file/search-view.ts), opened from the saved index on the first search and brought up
 * to date by segment keys on every one, so that the first search costs what a cold one does
 * and no search serves a segment's text older than the file. Every other segment is checked
 * sound as for any operation that does not read it (verifySeen, as verifyRest does).
 */
export function leanSearch(
  a: AgentFiles,
  FactIndex: FactIndexType,
  text: string,
  options: SearchOptions,
): ScoredFact[] {
  for (let attempt = 0; ; attempt++) {
    const revision = a.stamp.read()
    a.revision = revision
    const read: ReadSegmentFn = (name) => a.peekFacts(name, revision)
    const one: ReadOneFn = (name, id, key) => a.facts.one(revision, name, id, key)
    const gone: Change<FactRecord>[] = []
    const current = a.facts.scanKeys(revision, gone)
    a.follow(gone)
    if (!a.view || attempt === 2) openView(a, FactIndex, current, read, attempt === 2)
    else a.view.update(current, read)
    a.facts.verifySeen(revision, a.noteMigrated('facts'))
    a.checkpoints.verifyRest(revision, a.noteMigrated('checkpoints'))
    const view = a.view!
    const hits = view.index
      .search(text, options)
      .map((hit) => ({fact: view.record(hit.id, read, one), score: hit.score, ...contextOf(hit)}))
    const found = hits.filter((hit): hit is ScoredFact => hit.fact !== undefined)
    // A hit's segment moved between the update and its reading: up to date again, and again.
    if (found.length === hits.length || attempt === 2) return found
  }
}

function openView(
  a: AgentFiles,
  FactIndex: FactIndexType,
  current: SavedSegment[],
  read: ReadSegmentFn,
  anew: boolean,
): void {
  const saved = anew ? undefined : readSaved(a.dir)
  const opened = saved && SearchView.open(FactIndex, saved, current, read)
  if (opened) {
    a.view = opened.view
    if (a.resave || worthSaving(opened.opened)) saveIndex(a.dir, opened.view.index, opened.view.source())
  } else {
    a.view = SearchView.build(FactIndex, current, read)
    saveIndex(a.dir, a.view.index, a.view.source())
  }
  a.resave = false
}

/** The search index over live facts; the facts must have been refreshed with `all`. */
export function searchIndex(a: AgentFiles, FactIndex: FactIndexType, options: {save?: boolean} = {}): FactIndex {
  if (!a.index) {
    if (!a.facts.complete())
      throw new MemError('internal', 'the facts were not all read before building the search index')
    const keys = a.facts.keys()
    const segments = a.facts.all().map((s) => ({name: s.name, key: keys[s.name] ?? '', records: s.records}))
    const opened = openIndex(FactIndex, a.dir, segments)
    if (a.resave || options.save === true || worthSaving(opened)) saveOpened(a, opened)
    a.index = opened.index
    a.view = undefined
  }
  return a.index
}

/**
 * A search for a process that runs one search and exits: the saved index, brought up to date
 * by reading only the fact segments that changed since it was saved, with the hits' records
 * taken from it too. The segments it does not read are checked sound as for any operation
 * that does not need them (verifyRest). Nothing is kept: the index made here does not follow
 * later changes. Undefined when the saved index cannot serve, which also has the full search
 * that follows save a fresh one.
 */
export function searchSaved(
  a: AgentFiles,
  FactIndex: FactIndexType,
  revision: Revision | undefined,
  text: string,
  options: SearchOptions,
): ScoredFact[] | undefined {
  const saved = readSaved(a.dir, {lazy: true})
  try {
    return searchFrom(a, FactIndex, saved, revision, text, options)
  } catch (error) {
    // Postings read during the search failed their checksum: the full search rebuilds the index.
    if (!(error instanceof DamagedIndex)) throw error
    a.resave = true
    return undefined
  } finally {
    // Nothing of the index made here is kept, so nothing more is read from its file.
    saved?.close()
  }
}

function searchFrom(
  a: AgentFiles,
  FactIndex: FactIndexType,
  saved: SavedIndex | undefined,
  revision: Revision | undefined,
  text: string,
  options: SearchOptions,
): ScoredFact[] | undefined {
  const migrated = a.noteMigrated
  // Each segment stat'ed once, as for a server's search: the keys, then the check of the rest by them.
  const gone: Change<FactRecord>[] = []
  const current = a.facts.scanKeys(revision, gone)
  a.follow(gone)
  const keys = new Map(current.map((s) => [s.name, s.key]))
  const opened =
    saved &&
    openPartial(
      FactIndex,
      saved,
      current,
      (name) => {
        a.facts.refreshSome(revision, [name], migrated('facts'))
        return a.facts.get(name)?.records ?? []
      },
      (name, id) => a.facts.one(revision, name, id, keys.get(name) ?? ''),
    )
  if (!opened) {
    a.resave = true
    return undefined
  }
  a.facts.verifySeen(revision, migrated('facts'))
  a.checkpoints.verifyRest(revision, migrated('checkpoints'))
  const hits = opened.index
    .search(text, options)
    .map((hit) => ({fact: opened.record(hit.id), score: hit.score, ...contextOf(hit)}))
  if (!hits.every((hit): hit is ScoredFact => hit.fact !== undefined)) {
    a.resave = true
    return undefined
  }
  if (worthSaving(opened)) saveIndex(a.dir, opened.index, opened.source)
  return hits
}

function saveOpened(a: AgentFiles, opened: OpenedIndex): void {
  const keys = a.facts.keys()
  const ids = a.byId()
  saveIndex(a.dir, opened.index, {
    segments: Object.entries(keys).map(([name, key]) => ({name, key})),
    locate(id) {
      const entry = ids.get(id)
      return entry && {segment: entry.segment, digest: factDigest(entry.fact)}
    },
  })
}

/**
 * After a cold read that had to decode segments the revision stamp does not vouch for (a home
 * restored or copied whole keeps every byte but no file identity), stamps their identities, so
 * that the next cold process trusts them instead of decoding them all again. Only if the lock
 * is free and the stamp exists: a search never waits for a writer, and a stamp that cannot be
 * written costs only the next process a re-read.
 */
export async function vouchChecked(a: AgentFiles, seen: Revision | undefined): Promise<void> {
  // Only a stamp that is there is added to: a reader creates nothing beside the data (a home of an
  // older format is upgraded, and stamped, by its first write).
  if (seen === undefined || a.outdated.size > 0) return
  // Not a segment with a journal: every append moves its identity, so a stamp would not outlive the next add.
  const checked = a.checked(true)
  if (Object.entries(checked).every(([key, identity]) => seen.files?.[key] === identity)) return
  try {
    const {withLockIfFree} = await import('./lock.js')
    withLockIfFree(a.dir, () => bumpRevision(a.dir, readRevision(a.dir), {}, checked, (key) => a.identityOf(key)))
  } catch {
    // Only the next process's start-up is at stake.
  }
}

/** A search over every fact, held: the agent must have been refreshed with `all` facts. */
export function fullSearch(
  a: AgentFiles,
  FactIndex: FactIndexType,
  text: string,
  options: SearchOptions,
): ScoredFact[] {
  const index = searchIndex(a, FactIndex)
  const ids = a.byId()
  return index.search(text, options).map((hit) => ({fact: ids.get(hit.id)!.fact, score: hit.score, ...contextOf(hit)}))
}
