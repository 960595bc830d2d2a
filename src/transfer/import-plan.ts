import {createHash} from 'node:crypto'

import type {OperationContext} from '../ops/operation.js'
import {isLive} from '../store/records.js'
import type {CheckpointRecord, FactRecord} from '../store/store.js'
import type {Planned} from './import-read.js'

/** What to do with one record of the file. */
export type Decision =
  | {kind: 'write'}
  | {kind: 'mark'; patch: Partial<FactRecord>; message: string}
  | {kind: 'skip'; message: string}
  | {kind: 'reject'; message: string}

/**
 * What the check keeps of a stored record instead of the record: whether it is live, the digest
 * of the record and the digest of it without its history marks (the same when it has none).
 */
interface Stored {
  live: boolean
  full: string
  bare: string
}

/** Digests are compared by their first 16 bytes (128 bits; 22 characters of base64). */
const DIGEST_BYTES = 16

interface AgentState {
  stored: RecordDigests
  storedContent: Set<string>
  /** Ids given by earlier lines, with the line and digest, so a repeat is told from a different record. */
  earlier: RecordDigests
  earlierContent: Map<string, number>
}

/**
 * Compares each record with what its agent already has and with earlier lines, one record at
 * a time. It keeps a digest per record of the file, not the record, so a large file costs
 * little more than the agents' stored records.
 */
export class ImportPlanner {
  private readonly agents = new Map<string, AgentState>()

  constructor(private readonly ctx: OperationContext) {}

  async decide(p: Planned): Promise<Decision> {
    const state = await this.state(p.agent)
    const agent = p.agent
    if (p.kind === 'fact' && p.byContent) {
      const key = contentKey(p.record)
      if (state.storedContent.has(key))
        return {kind: 'skip', message: `agent ${agent} already has the fact "${p.record.content}"`}
      const line = state.earlierContent.get(key)
      if (line !== undefined) return {kind: 'skip', message: `repeats the fact "${p.record.content}" of line ${line}`}
      state.earlierContent.set(key, p.line)
      return {kind: 'write'}
    }
    const what = `${p.kind} ${p.record.id}`
    const kept = state.stored.get(p.record.id)
    const have = kept && {live: kept.n === 1, full: kept.digests[0]!, bare: kept.digests[1]!}
    const seen = state.earlier.get(p.record.id)
    if (have !== undefined) return compareStored(agent, what, p, have)
    if (seen !== undefined) {
      return seen.digests[0] === recordDigest(p.record)
        ? {kind: 'skip', message: `repeats ${what} of line ${seen.n}`}
        : {kind: 'reject', message: `${what} was already given on line ${seen.n} with different content`}
    }
    state.earlier.set(p.record.id, p.line, [recordDigest(p.record)])
    if (p.kind === 'fact' && isLive(p.record)) state.earlierContent.set(contentKey(p.record), p.line)
    return {kind: 'write'}
  }

  private async state(agent: string): Promise<AgentState> {
    let state = this.agents.get(agent)
    if (state) return state
    const stored = new RecordDigests(2)
    const storedContent = new Set<string>()
    await this.ctx.store.eachFact(agent, (fact) => {
      keepStored(stored, fact, isLive(fact))
      if (isLive(fact)) storedContent.add(contentKey(fact))
    })
    for (const cp of await this.ctx.store.listCheckpoints(agent)) keepStored(stored, cp, false)
    state = {stored, storedContent, earlier: new RecordDigests(1), earlierContent: new Map()}
    this.agents.set(agent, state)
    return state
  }
}

function keepStored(stored: RecordDigests, record: FactRecord | CheckpointRecord, live: boolean): void {
  const full = recordDigest(record)
  stored.set(record.id, live ? 1 : 0, [full, hasMarks(record) ? recordDigest(strip(record as FactRecord)) : full])
}

function compareStored(agent: string, what: string, p: Planned, have: Stored): Decision {
  const history =
    p.kind === 'fact' ? compareHistory(have, p.record) : have.full === recordDigest(p.record) ? 'same' : 'different'
  if (history === 'same') return {kind: 'skip', message: `agent ${agent} already has ${what}`}
  if (history === 'stored is later')
    return {kind: 'skip', message: `agent ${agent} already has ${what}, replaced or deleted since`}
  if (history === 'file is later' && p.kind === 'fact') {
    const patch = marksOf(p.record)
    const change = patch.deleted_at ? 'deleted' : `replaced by ${patch.superseded_by}`
    return {kind: 'mark', patch, message: `fact ${p.record.id} of agent ${agent} was ${change} since it was stored`}
  }
  return {
    kind: 'reject',
    message: `agent ${agent} already has ${what} and it differs from this line; mem never overwrites a record on import`,
  }
}

const MARKS = ['superseded_by', 'superseded_at', 'deleted_at', 'reason'] as const

function marksOf(fact: FactRecord): Partial<FactRecord> {
  return Object.fromEntries(MARKS.filter((k) => fact[k] !== undefined).map((k) => [k, fact[k]]))
}

/**
 * The same fact in two places differs only in its history marks when one copy was replaced
 * or deleted after the other was made. Anything else is a different record under one id.
 */
function compareHistory(stored: Stored, line: FactRecord): 'same' | 'stored is later' | 'file is later' | 'different' {
  const full = recordDigest(line)
  if (stored.full === full) return 'same'
  const bare = hasMarks(line) ? recordDigest(strip(line)) : full
  if (stored.bare !== bare) return 'different'
  if (isLive(line)) return 'stored is later'
  if (stored.live) return 'file is later'
  return 'different'
}

function hasMarks(record: FactRecord | CheckpointRecord): boolean {
  return MARKS.some((k) => (record as FactRecord)[k] !== undefined)
}

function strip(fact: FactRecord): FactRecord {
  const copy = {...fact}
  for (const k of MARKS) delete copy[k]
  return copy
}

/**
 * Same text and same tags (in any order) is the same fact for a file that has no ids; a turn
 * of a conversation is the same only in the same conversation at the same time (people say
 * "thanks" more than once). Kept as a digest: a file's worth of texts would weigh as much as it.
 */
function contentKey(fact: FactRecord): string {
  return digest(
    JSON.stringify([
      fact.content,
      [...fact.tags].sort(),
      ...(fact.thread === undefined ? [] : [fact.thread, fact.created_at]),
    ]),
  )
}

/** Equal for records equal as isDeepStrictEqual sees JSON values, whatever the order of their keys. */
function recordDigest(record: FactRecord | CheckpointRecord): string {
  return digest(canonicalJson(record))
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * The first DIGEST_BYTES of the text's SHA-256, in base64, made as a string of its own: a slice
 * of the whole digest would keep all of it alive where it is kept (the content keys).
 */
function digest(text: string): string {
  return createHash('sha256').update(text).digest().toString('base64url', 0, DIGEST_BYTES)
}

/**
 * A number and `width` digests for each id, the digests as 16 bytes each in one shared buffer
 * rather than a string per record: a file or an agent of 200,000 records costs the map of its
 * ids and little more. The earlier lines' ids keep their line and digest; the stored records'
 * whether they are live and both their digests.
 */
class RecordDigests {
  private readonly at = new Map<string, number>()
  private numbers = new Uint32Array(1024)
  private digests: Buffer

  constructor(private readonly width: 1 | 2) {
    this.digests = Buffer.alloc(1024 * width * DIGEST_BYTES)
  }

  get(id: string): {n: number; digests: string[]} | undefined {
    const i = this.at.get(id)
    if (i === undefined) return undefined
    const from = i * this.width * DIGEST_BYTES
    const digests = Array.from({length: this.width}, (_, d) =>
      this.digests.toString('base64url', from + d * DIGEST_BYTES, from + (d + 1) * DIGEST_BYTES),
    )
    return {n: this.numbers[i]!, digests}
  }

  set(id: string, n: number, digests: readonly string[]): void {
    let i = this.at.get(id)
    if (i === undefined) {
      i = this.at.size
      if (i >= this.numbers.length) this.grow()
      this.at.set(id, i)
    }
    this.numbers[i] = n
    const from = i * this.width * DIGEST_BYTES
    digests.forEach((digest, d) => this.digests.write(digest, from + d * DIGEST_BYTES, DIGEST_BYTES, 'base64url'))
  }

  private grow(): void {
    const numbers = new Uint32Array(this.numbers.length * 2)
    numbers.set(this.numbers)
    this.numbers = numbers
    const digests = Buffer.alloc(this.digests.length * 2)
    this.digests.copy(digests)
    this.digests = digests
  }
}
