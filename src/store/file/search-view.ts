import type {FactIndex} from '../../search/fact-index.js'
import {guarded} from '../duplicates.js'
import {isLive, type FactRecord} from '../records.js'
import {openPartial, reindex, type PartialIndex} from './saved-index.js'
import {factDigest, type IndexSource, type SavedIndex, type SavedSegment} from './search-cache.js'
import type {FactIndexType} from '../search-code.js'

/** One record of a segment, read alone, if the segment still has `key` (undefined: read it whole). */
export type ReadOneFn = (name: string, id: string, key: string) => FactRecord | undefined

/** A fact segment as it is now: its records and the key they were read under; `held` when the store keeps them anyway. */
export interface ReadSegment {
  records: readonly FactRecord[]
  key: string
  held: boolean
}

/** Reads a fact segment (from what the store holds when that is current); a vanished one reads as empty, under no key. */
export type ReadSegmentFn = (name: string) => ReadSegment

interface Placed {
  segment: string
  digest: readonly [number, number]
}

/**
 * What a long-running process searches by without holding every record: the saved index
 * (src/store/file/search-cache.ts), brought up to date by segment keys before every search, the way
 * a cold search brings it up to date once. For each fact segment it knows the key the index
 * reflects; a segment whose key moved since (written by any process, edited by hand, restored)
 * is read again before the search, and its facts are compared with the index by digest: facts
 * no longer live are removed, facts that read differently are indexed again, new ones added.
 *
 * A hit's record is taken from the segment it lives in, under the key the index reflects: from
 * the store's own copy when it holds the segment (the last one, which writes need), else from a
 * compact copy kept here (one line of JSON per live fact, one string per segment), made when the
 * segment was read whole, else from the record read alone from its file. So the view costs the
 * index and the copies of the few segments read whole, not an object per record.
 */
export class SearchView {
  /** Facts indexed since the saved index was loaded (or all, when it was built here), with where they live. */
  private readonly placed = new Map<string, Placed>()
  private readonly placedIn = new Map<string, Set<string>>()
  /** For each fact segment, the key of the version the index reflects. */
  private readonly trusted = new Map<string, string>()
  /**
   * Each segment's live facts as JSON lines (`\n<id>\t<json>`), under the key they were read
   * with, and where the lines of its live standalone facts start (the duplicate guard's positions).
   */
  private readonly texts = new Map<string, {key: string; text: string; guarded: Uint32Array}>()
  private textBytes = 0
  private savedSlots?: Map<string, number[]>

  private constructor(
    readonly index: FactIndex,
    private readonly saved: SavedIndex | undefined,
  ) {}

  /**
   * The saved index brought up to date with `current` (every fact segment now, with its key),
   * reading only the segments whose key moved. Undefined when it cannot be (see openPartial).
   */
  static open(
    FactIndex: FactIndexType,
    saved: SavedIndex,
    current: SavedSegment[],
    read: ReadSegmentFn,
  ): {view: SearchView; opened: PartialIndex} | undefined {
    const reads = new Map<string, ReadSegment>()
    const opened = openPartial(FactIndex, saved, current, (name) => {
      let r = reads.get(name)
      if (!r) {
        r = read(name)
        reads.set(name, r)
      }
      return r.records
    })
    if (!opened) return undefined
    const view = new SearchView(opened.index, saved)
    for (const {name, key} of current) view.trusted.set(name, reads.get(name)?.key ?? key)
    for (const [name, r] of reads)
      for (const fact of r.records)
        if (isLive(fact) && view.index.has(fact.id)) view.place(fact.id, name, factDigest(fact))
    return {view, opened}
  }

  /** A new index over every fact segment in `current`, read one after the other. */
  static build(FactIndex: FactIndexType, current: SavedSegment[], read: ReadSegmentFn): SearchView {
    const view = new SearchView(new FactIndex(), undefined)
    for (const {name} of current) {
      const r = read(name)
      view.trusted.set(name, r.key)
      for (const fact of r.records) {
        if (!isLive(fact)) continue
        view.index.add(fact)
        view.place(fact.id, name, factDigest(fact))
      }
    }
    return view
  }

  /**
   * Brings the index up to date with `current`: every segment whose key is not the one the
   * index reflects is read, and segments gone from the folder drop their facts. Returns how
   * many facts changed.
   */
  update(current: SavedSegment[], read: ReadSegmentFn): number {
    const listed = new Set<string>()
    const moved: string[] = []
    for (const {name, key} of current) {
      listed.add(name)
      if (this.trusted.get(name) !== key) moved.push(name)
    }
    const gone = [...this.trusted.keys()].filter((name) => !listed.has(name))
    if (moved.length === 0 && gone.length === 0) return 0
    const touched = new Set([...moved, ...gone])
    const before = this.idsIn(touched)

    const fresh = new Map<string, {fact: FactRecord; segment: string}>()
    for (const name of moved) {
      const r = read(name)
      this.trusted.set(name, r.key)
      for (const fact of r.records) if (isLive(fact)) fresh.set(fact.id, {fact, segment: name})
    }
    for (const name of gone) this.trusted.delete(name)
    for (const name of touched) this.dropText(name)

    let changed = 0
    for (const id of before) {
      if (fresh.has(id)) continue
      this.index.remove(id)
      this.unplace(id)
      changed++
    }
    for (const [id, {fact, segment}] of fresh) {
      const was = this.locate(id)
      const digest = factDigest(fact)
      if (!this.index.has(id)) {
        this.index.add(fact)
        changed++
      } else if (!was || was.digest[0] !== digest[0] || was.digest[1] !== digest[1]) {
        reindex(this.index, fact)
        changed++
      }
      this.place(id, segment, digest)
    }
    return changed
  }

  /**
   * The live record of an indexed fact, from the version of its segment the index reflects;
   * undefined when that version is no longer what the segment holds (it moved meanwhile: bring
   * the view up to date and search again).
   */
  record(id: string, read: ReadSegmentFn, readOne?: ReadOneFn): FactRecord | undefined {
    const where = this.locate(id)
    if (!where) return undefined
    const key = this.trusted.get(where.segment)
    const kept = this.texts.get(where.segment)
    if (kept && kept.key === key) return lineOf(kept.text, id)
    // The record alone: a search then decodes ten records, not ten segments.
    const alone = key === undefined ? undefined : readOne?.(where.segment, id, key)
    if (alone?.id === id && isLive(alone)) return alone
    const r = read(where.segment)
    if (r.key !== key) return undefined
    if (!r.held) this.keepText(where.segment, r)
    const fact = r.records.find((f) => f.id === id)
    return fact && isLive(fact) ? fact : undefined
  }

  /**
   * The live standalone facts of a segment (those the duplicate guard hashes, in the same
   * order), from the compact copy kept of it, if one was made under `key`: the guard decodes
   * only the fact at a hash's position, not every line.
   */
  guardedFacts(name: string, key: string): {count: number; at(i: number): FactRecord} | undefined {
    const kept = this.texts.get(name)
    if (kept?.key !== key) return undefined
    const {text, guarded} = kept
    return {
      count: guarded.length,
      at(i) {
        const start = guarded[i]!
        return JSON.parse(text.slice(text.indexOf('\t', start) + 1, text.indexOf('\n', start))) as FactRecord
      },
    }
  }

  /** What saving the index needs: the segments it reflects and where each fact lives. */
  source(): IndexSource {
    return {
      segments: [...this.trusted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, key]) => ({name, key})),
      locate: (id) => this.locate(id),
    }
  }

  /** An estimate of the memory held, in bytes: the index, the compact copies, the facts placed since loading. */
  cost(): number {
    return this.index.size * 500 + this.textBytes + this.placed.size * 150
  }

  /** The segment that holds `id`, if the index holds it as live. */
  segmentOf(id: string): string | undefined {
    return this.index.has(id) ? this.locate(id)?.segment : undefined
  }

  private locate(id: string): Placed | undefined {
    const placed = this.placed.get(id)
    if (placed) return placed
    const saved = this.saved
    const slot = this.index.slot(id)
    if (!saved || slot === undefined || slot >= saved.index.ids.length || saved.index.ids.at(slot) !== id)
      return undefined
    return {
      segment: saved.segments[saved.segmentOf[slot]!]!.name,
      digest: [saved.digests[2 * slot]!, saved.digests[2 * slot + 1]!],
    }
  }

  private place(id: string, segment: string, digest: readonly [number, number]): void {
    const was = this.placed.get(id)
    if (was && was.segment !== segment) this.placedIn.get(was.segment)?.delete(id)
    this.placed.set(id, {segment, digest})
    let ids = this.placedIn.get(segment)
    if (!ids) {
      ids = new Set()
      this.placedIn.set(segment, ids)
    }
    ids.add(id)
  }

  private unplace(id: string): void {
    const was = this.placed.get(id)
    if (!was) return
    this.placed.delete(id)
    this.placedIn.get(was.segment)?.delete(id)
  }

  /** The ids the index has in these segments now. */
  private idsIn(segments: ReadonlySet<string>): string[] {
    const out: string[] = []
    for (const name of segments) {
      for (const id of this.placedIn.get(name) ?? []) out.push(id)
      const saved = this.saved
      if (!saved) continue
      for (const slot of this.slotsOf(name)) {
        const id = saved.index.ids.at(slot)!
        if (!this.placed.has(id) && this.index.slot(id) === slot) out.push(id)
      }
    }
    return out
  }

  /** The saved index's slots by segment, made on first need. */
  private slotsOf(name: string): number[] {
    const saved = this.saved!
    if (!this.savedSlots) {
      const bySegment = saved.segments.map((): number[] => [])
      for (let slot = 0; slot < saved.segmentOf.length; slot++) bySegment[saved.segmentOf[slot]!]!.push(slot)
      this.savedSlots = new Map(saved.segments.map((s, i) => [s.name, bySegment[i]!]))
    }
    return this.savedSlots.get(name) ?? []
  }

  /**
   * Keeps a compact copy of a segment read whole for another reason (the duplicate guard
   * confirming a hit), when it is the version the index reflects.
   */
  keep(name: string, r: ReadSegment): void {
    if (!r.held && r.key === this.trusted.get(name) && this.texts.get(name)?.key !== r.key) this.keepText(name, r)
  }

  private keepText(name: string, r: ReadSegment): void {
    const lines = ['']
    const starts: number[] = []
    let at = 1
    for (const fact of r.records) {
      if (!isLive(fact)) continue
      const line = `${fact.id}\t${JSON.stringify(fact)}`
      if (guarded(fact)) starts.push(at)
      lines.push(line)
      at += line.length + 1
    }
    this.dropText(name)
    // Joined once rather than grown piece by piece, so that the string is flat from the start.
    lines.push('')
    const text = lines.join('\n')
    const entry = {key: r.key, text, guarded: Uint32Array.from(starts)}
    this.texts.set(name, entry)
    this.textBytes += text.length + entry.guarded.byteLength
  }

  private dropText(name: string): void {
    const kept = this.texts.get(name)
    if (!kept) return
    this.textBytes -= kept.text.length + kept.guarded.byteLength
    this.texts.delete(name)
  }
}

/** The record on the line of `id` (JSON text never holds a raw line break, so a line is one record). */
function lineOf(text: string, id: string): FactRecord | undefined {
  const at = text.indexOf(`\n${id}\t`)
  if (at < 0) return undefined
  const start = at + id.length + 2
  return JSON.parse(text.slice(start, text.indexOf('\n', start))) as FactRecord
}
