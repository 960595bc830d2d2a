import {rmSync} from 'node:fs'

import {decodeIndex, encodeIndex, type DecodedIndex} from '../index/index-codec.js'
import {FactIndex, type CompactFactIndex} from '../search/fact-index.js'
import {docPairs} from '../search/inverted-index.js'
import {plural} from '../plural.js'
import {allLines} from '../search/lines.js'
import {CachedSegments} from '../store/file/cached-segments.js'
import {fileChanges, segmentsOf, segmentsVouched} from '../store/file/change-feed.js'
import {FACT_SEGMENT} from '../store/file/collections.js'
import {readIndex, saveIndex, searchIndexPath} from '../store/file/index-keeper.js'
import {isLive, type FactRecord} from '../store/records.js'
import {readRevision} from '../store/file/revision.js'
import {SIGNATURE} from '../store/search-code.js'
import {SegmentedFiles} from '../store/file/segments.js'
import type {AgentCheck, Finding} from './inspect.js'

/**
 * Checks an agent's saved search index (src/store/file/index-keeper.ts) against its fact files.
 * The index vouches for each segment whose cache key is what it was at the feed cursor it was
 * saved at; for the facts in those, what it holds (its words, date, tags and thread) must be
 * what indexing the segment now gives. A disagreement means a search would find or show text
 * the files no longer hold: --fix rebuilds the index from the files. An index that does not load
 * (damaged, from another build) is not reported: every reader ignores and rebuilds it. Segments
 * that do not decode are left to the data-file checks.
 */
export const searchIndexCheck: AgentCheck = ({dir, agent}) => searchIndexFindings(dir, agent)

function searchIndexFindings(dir: string, agent: string): Finding[] {
  const bytes = SIGNATURE === undefined ? undefined : readIndex(dir)
  const saved = bytes && decodeIndex(bytes, SIGNATURE!)
  if (!saved) return []
  let wrong: string[]
  try {
    wrong = disagreements(dir, saved)
  } catch {
    // A segment that does not read: reported (and repaired) as a data file; its index is checked next time.
    return []
  }
  if (wrong.length === 0) return []
  const shown = wrong
    .slice(0, 3)
    .map((id) => `"${id}"`)
    .join(', ')
  return [
    {
      kind: 'search_index',
      path: searchIndexPath(dir),
      agent,
      problem: `the saved search index disagrees with the fact files for ${plural(wrong.length, 'fact')} (${shown}${wrong.length > 3 ? ', ...' : ''}): a search would find or show text the files no longer hold`,
      fix: 'rebuild the search index from the fact files',
      fixed: false,
      repair: () => rebuild(dir),
    },
  ]
}

/**
 * Ids of the facts on which the saved index and the segments it vouches for disagree: those
 * segments' live facts, and the facts it holds whose every segment by range (see segmentsOf)
 * it vouches for.
 */
function disagreements(dir: string, saved: DecodedIndex): string[] {
  const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
  const current = new CachedSegments(files).currentKeys(readRevision(dir))
  const vouched = segmentsVouched(current, saved.cursor)
  const placed = segmentsOf(saved.cursor)
  if (!vouched || !placed) return []

  const facts = new Map<string, FactRecord>()
  const fresh = new FactIndex()
  for (const name of vouched) {
    for (const fact of files.read(name).records) {
      if (!isLive(fact)) continue
      facts.set(fact.id, fact)
      fresh.add(fact)
    }
  }
  const want = fresh.toCompact()
  const wantSlot = new Map(want.ids.map((id, slot) => [id, slot]))
  const got = saved.index

  const wrong: string[] = []
  const listed = new Set<string>()
  allLines(got.ids).forEach((id, slot) => {
    const segments = placed(id)
    if (segments.length === 0 || !segments.every((name) => vouched.has(name))) return
    listed.add(id)
    const at = wantSlot.get(id)
    if (at === undefined || describe(got, slot) !== describe(want, at)) wrong.push(id)
  })
  for (const id of facts.keys()) if (!listed.has(id)) wrong.push(id)
  return wrong
}

const byFact = new WeakMap<Uint32Array, ReturnType<typeof docPairs>>()

/** Each fact's terms and counts, worked out once per index from its postings. */
function docTerms(index: CompactFactIndex): ReturnType<typeof docPairs> {
  let pairs = byFact.get(index.postings)
  if (pairs === undefined) {
    index.load?.(0, index.postings.length)
    pairs = docPairs(index.lengths.length, index.starts, index.postings)
    byFact.set(index.postings, pairs)
  }
  return pairs
}

/** What the index holds of one fact, as text: its terms with their counts, length, date, tags, whether it asks, its thread. */
function describe(index: CompactFactIndex, slot: number): string {
  const terms: string[] = []
  const {offsets, pairs} = docTerms(index)
  for (let i = offsets[slot]!; i < offsets[slot + 1]!; i += 2)
    terms.push(`${index.terms.at(pairs[i]!)}:${pairs[i + 1]}`)
  const thread = index.threadOf[slot]! === 0 ? '' : index.threads[index.threadOf[slot]! - 1]
  return JSON.stringify([
    terms.sort(),
    index.lengths[slot],
    index.times[slot],
    index.tagLists[index.tagOf[slot]!],
    index.asks[slot],
    thread,
  ])
}

/** The index made anew from every fact segment, saved at the feed cursor of the segments as read. */
function rebuild(dir: string): string {
  const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
  const segments = new CachedSegments(files).currentKeys(readRevision(dir))
  const keys = new Map(segments.map((s) => [s.name, s.key]))
  const answer = fileChanges(
    {segments, read: (name) => ({records: files.read(name).records, key: keys.get(name)!})},
    undefined,
  )
  const index = new FactIndex()
  for (const fact of answer.facts) if (isLive(fact)) index.add(fact)
  // Gone first: should saving fail (a full disk), searches rebuild it rather than trust the old one.
  rmSync(searchIndexPath(dir), {force: true})
  const encoded =
    SIGNATURE === undefined ? undefined : encodeIndex(index, {cursor: answer.cursor, signature: SIGNATURE})
  if (encoded) saveIndex(dir, encoded)
  return `rebuilt the search index from ${plural(index.size, 'live fact')}`
}
