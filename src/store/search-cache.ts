import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {FactIndex as FactIndexClass, FactIndexJSON} from '../search/fact-index.js'
import {DIR_MODE, writeFileDurably} from './durable-file.js'
import {isLive, type FactRecord} from './records.js'

/**
 * The search index of one agent, saved beside its segments so that a cold `mem search` loads
 * it instead of re-indexing every fact. It is derived data and never trusted over the
 * segments: whatever is loaded is reconciled, fact by fact, against the live facts just read
 * from the segments, and anything unreadable, from another build of the ranking code, or out
 * of order is thrown away and rebuilt. Facts never change content under the same id (an
 * update is a new fact), so reconciling by id is exact. See docs/adr/0003-storage-layout.md.
 */

/**
 * Which ranking code wrote an index: the build puts a hash of the search sources and of the
 * libraries they use here. Without it (running from sources), nothing is saved or loaded,
 * because an index saved by other code could tokenize differently.
 */
declare const MEM_SEARCH_SIGNATURE: string | undefined
const SIGNATURE: string | undefined = typeof MEM_SEARCH_SIGNATURE === 'string' ? MEM_SEARCH_SIGNATURE : undefined

const FORMAT = 'mem.search-index'

interface SavedIndex {
  format: typeof FORMAT
  signature: string
  index: FactIndexJSON
}

export function searchCachePath(agentDir: string): string {
  return join(agentDir, 'cache', 'search-index.json')
}

export type FactIndexType = typeof FactIndexClass

/** The search code, loaded on first search only, so that writes (mem add) never pay for it. */
export async function loadFactIndex(): Promise<FactIndexType> {
  return (await import('../search/fact-index.js')).FactIndex
}

export interface OpenedIndex {
  index: FactIndexClass
  /** Facts added or removed to bring a saved index up to date, or every fact when built anew. */
  changed: number
  /** True when nothing was loaded and the index was built from the facts. */
  rebuilt: boolean
}

/**
 * The index over `facts` (every record of the agent, in segment order): the saved one
 * brought up to date when it is usable, otherwise a new one. Synchronous, so that no other
 * operation of the process can change the facts while the index is being made from them.
 */
export function openIndex(FactIndex: FactIndexType, agentDir: string, facts: readonly FactRecord[]): OpenedIndex {
  const saved = SIGNATURE === undefined ? undefined : readSaved(agentDir)
  if (saved) {
    try {
      const index = FactIndex.fromJSON(saved.index)
      // The ids are read from the saved form; if its shape ever changes, this check sends it to a rebuild.
      const indexed = saved.index.facts.map((f) => (Array.isArray(f) ? f[0] : undefined))
      const usable = indexed.length === index.size && indexed.every((id) => typeof id === 'string' && index.has(id))
      const changed = usable ? reconcile(index, indexed as string[], facts) : undefined
      if (changed !== undefined) return {index, changed, rebuilt: false}
    } catch {
      // An index that does not load is rebuilt below, like a missing one.
    }
  }
  const index = new FactIndex()
  let changed = 0
  for (const fact of facts) {
    if (!isLive(fact)) continue
    index.add(fact)
    changed++
  }
  return {index, changed, rebuilt: true}
}

/**
 * Removes indexed facts that are no longer live and appends live facts the index lacks.
 * Returns the number of changes, or undefined when the missing facts are not all newer than
 * the indexed ones: appending them would put them out of order (the ranking uses the order).
 */
function reconcile(index: FactIndexClass, indexed: string[], facts: readonly FactRecord[]): number | undefined {
  const live = new Map<string, FactRecord>()
  for (const fact of facts) if (isLive(fact)) live.set(fact.id, fact)
  let changed = 0
  for (const id of indexed) {
    if (!live.has(id)) {
      index.remove(id)
      changed++
    }
  }
  let appending = false
  for (const fact of live.values()) {
    if (index.has(fact.id)) {
      if (appending) return undefined
      continue
    }
    appending = true
    index.add(fact)
    changed++
  }
  return changed
}

function readSaved(agentDir: string): SavedIndex | undefined {
  try {
    const saved = JSON.parse(readFileSync(searchCachePath(agentDir), 'utf8')) as SavedIndex
    if (saved?.format !== FORMAT || saved.signature !== SIGNATURE || !Array.isArray(saved.index?.facts)) return undefined
    return saved
  } catch {
    return undefined
  }
}

/**
 * Saves the index for the next cold process: a temporary file renamed into place (readers see
 * the old file or the new one, never half of one), mode 0600, not fsynced because losing it
 * costs only a rebuild. No lock: two savers each rename a whole file, and whichever wins is
 * reconciled by the next reader anyway.
 */
export function saveIndex(agentDir: string, index: FactIndexClass): void {
  if (SIGNATURE === undefined) return
  try {
    mkdirSync(join(agentDir, 'cache'), {recursive: true, mode: DIR_MODE})
    const saved: SavedIndex = {format: FORMAT, signature: SIGNATURE, index: index.toJSON()}
    writeFileDurably(searchCachePath(agentDir), JSON.stringify(saved), {durable: false, backup: false})
  } catch {
    // A cache that cannot be saved (full disk, read-only folder) only costs the next process a rebuild; the search goes on.
  }
}

/** Worth saving again: built anew, or brought up to date by more than a few cheap steps. */
export function worthSaving(opened: OpenedIndex): boolean {
  return opened.rebuilt ? opened.changed > 0 : opened.changed > Math.max(200, opened.index.size / 50)
}
