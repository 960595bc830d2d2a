import {randomBytes} from 'node:crypto'
import {mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {endianness} from 'node:os'
import {join} from 'node:path'

import type {CompactFactIndex, FactIndex as FactIndexClass} from '../search/fact-index.js'
import {DIR_MODE, FILE_MODE} from './durable-file.js'
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
/** Bumped whenever the layout below changes: a file of another version is rebuilt, never read. */
const VERSION = 3

/**
 * The file: one line of JSON (this header), then the ids and the terms as UTF-8 text, one per
 * line, zero-padded to a multiple of 4 bytes, then the document offsets and term pairs as
 * 32-bit integers in the byte order the header names. Loading is a read, two splits and two
 * typed-array views: no JSON parse of the index and no object per fact.
 */
interface Header {
  format: typeof FORMAT
  version: typeof VERSION
  signature: string
  endian: 'LE' | 'BE'
  /** Byte lengths of the id and term texts, and counts of ids, terms and pair integers. */
  idBytes: number
  termBytes: number
  ids: number
  terms: number
  pairs: number
}

export function searchCachePath(agentDir: string): string {
  return join(agentDir, 'cache', 'search-index.bin')
}

/** Where the JSON index of earlier versions was saved; removed when the new one is. */
function legacyCachePath(agentDir: string): string {
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
      const live = liveFacts(facts)
      const index = FactIndex.fromCompact(saved, (id) => live.get(id))
      const changed = index.size === saved.ids.length ? reconcile(index, saved.ids, live) : undefined
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
function reconcile(index: FactIndexClass, indexed: string[], live: Map<string, FactRecord>): number | undefined {
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

function liveFacts(facts: readonly FactRecord[]): Map<string, FactRecord> {
  const live = new Map<string, FactRecord>()
  for (const fact of facts) if (isLive(fact)) live.set(fact.id, fact)
  return live
}

const LITTLE_ENDIAN = endianness() === 'LE'

/** The saved index if it is whole, of this version and from this build; undefined otherwise. */
function readSaved(agentDir: string): CompactFactIndex | undefined {
  try {
    const file = readFileSync(searchCachePath(agentDir))
    const eol = file.indexOf(10)
    if (eol < 0) return undefined
    const h = JSON.parse(file.toString('utf8', 0, eol)) as Header
    if (h?.format !== FORMAT || h.version !== VERSION || h.signature !== SIGNATURE || h.endian !== (LITTLE_ENDIAN ? 'LE' : 'BE')) return undefined
    const counts = [h.idBytes, h.termBytes, h.ids, h.terms, h.pairs]
    if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined
    const textStart = eol + 1
    const termStart = textStart + h.idBytes
    const numbersStart = align4(termStart + h.termBytes)
    const pairsStart = numbersStart + 4 * (h.ids + 1)
    if (file.length !== pairsStart + 4 * h.pairs) return undefined
    const ids = lines(file.toString('utf8', textStart, termStart))
    const terms = lines(file.toString('utf8', termStart, termStart + h.termBytes))
    if (ids.length !== h.ids || terms.length !== h.terms) return undefined
    return {ids, terms, offsets: uint32s(file, numbersStart, h.ids + 1), pairs: uint32s(file, pairsStart, h.pairs)}
  } catch {
    return undefined
  }
}

function lines(text: string): string[] {
  return text === '' ? [] : text.split('\n')
}

function align4(n: number): number {
  return (n + 3) & ~3
}

/** A view when the bytes are aligned (a file's own buffer always is), a copy otherwise. */
function uint32s(file: Buffer, start: number, count: number): Uint32Array {
  const at = file.byteOffset + start
  if (at % 4 === 0) return new Uint32Array(file.buffer, at, count)
  return new Uint32Array(file.buffer.slice(at, at + 4 * count))
}

function encode(data: CompactFactIndex): Buffer | undefined {
  // One per line: an id or term holding a line break cannot be saved (none should).
  if (data.ids.some((id) => id.includes('\n')) || data.terms.some((t) => t.includes('\n'))) return undefined
  const idText = Buffer.from(data.ids.join('\n'), 'utf8')
  const termText = Buffer.from(data.terms.join('\n'), 'utf8')
  const header: Header = {
    format: FORMAT,
    version: VERSION,
    signature: SIGNATURE!,
    endian: LITTLE_ENDIAN ? 'LE' : 'BE',
    idBytes: idText.length,
    termBytes: termText.length,
    ids: data.ids.length,
    terms: data.terms.length,
    pairs: data.pairs.length,
  }
  const head = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8')
  const textEnd = head.length + idText.length + termText.length
  const padding = Buffer.alloc(align4(textEnd) - textEnd)
  const bytes = (a: Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
  return Buffer.concat([head, idText, termText, padding, bytes(data.offsets), bytes(data.pairs)])
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
    const encoded = encode(index.toCompact())
    if (!encoded) return
    mkdirSync(join(agentDir, 'cache'), {recursive: true, mode: DIR_MODE})
    const path = searchCachePath(agentDir)
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      writeFileSync(tmp, encoded, {mode: FILE_MODE, flag: 'wx'})
      renameSync(tmp, path)
    } finally {
      rmSync(tmp, {force: true})
    }
    rmSync(legacyCachePath(agentDir), {force: true})
  } catch {
    // A cache that cannot be saved (full disk, read-only folder) only costs the next process a rebuild; the search goes on.
  }
}

/** Worth saving again: built anew, or brought up to date by more than a few cheap steps. */
export function worthSaving(opened: OpenedIndex): boolean {
  return opened.rebuilt ? opened.changed > 0 : opened.changed > Math.max(200, opened.index.size / 50)
}
