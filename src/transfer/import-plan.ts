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
 * What the check keeps of a stored record instead of the record: whether it is live (`L`) or
 * not (`-`), then the digest of the record, then, for a fact with history marks, the digest of
 * it without them. An agent of 200,000 facts costs about 30 MiB here, against some 200 MiB for
 * its records (which the store then also kept).
 */
type Stored = string

/** Digests are compared by their first 16 bytes, 22 characters of base64. */
const DIGEST_BYTES = 16
const DIGEST_CHARS = 22

interface AgentState {
  stored: Map<string, Stored>
  storedContent: Set<string>
  /** Ids given by earlier lines, with the line and digest, so a repeat is told from a different record. */
  earlier: EarlierRecords
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
    const have = state.stored.get(p.record.id)
    const seen = state.earlier.get(p.record.id)
    if (have !== undefined) return compareStored(agent, what, p, have)
    if (seen !== undefined) {
      return seen.digest === recordDigest(p.record)
        ? {kind: 'skip', message: `repeats ${what} of line ${seen.line}`}
        : {kind: 'reject', message: `${what} was already given on line ${seen.line} with different content`}
    }
    state.earlier.set(p.record.id, p.line, recordDigest(p.record))
    if (p.kind === 'fact' && isLive(p.record)) state.earlierContent.set(contentKey(p.record), p.line)
    return {kind: 'write'}
  }

  private async state(agent: string): Promise<AgentState> {
    let state = this.agents.get(agent)
    if (state) return state
    const stored = new Map<string, Stored>()
    const storedContent = new Set<string>()
    await this.ctx.store.eachFact(agent, (fact) => {
      stored.set(fact.id, storedOf(fact, isLive(fact)))
      if (isLive(fact)) storedContent.add(contentKey(fact))
    })
    for (const cp of await this.ctx.store.listCheckpoints(agent)) stored.set(cp.id, storedOf(cp, false))
    state = {stored, storedContent, earlier: new EarlierRecords(), earlierContent: new Map()}
    this.agents.set(agent, state)
    return state
  }
}

function storedOf(record: FactRecord | CheckpointRecord, live: boolean): Stored {
  const full = recordDigest(record).slice(0, DIGEST_CHARS)
  const bare = hasMarks(record) ? recordDigest(strip(record as FactRecord)).slice(0, DIGEST_CHARS) : ''
  return `${live ? 'L' : '-'}${full}${bare}`
}

function compareStored(agent: string, what: string, p: Planned, have: Stored): Decision {
  const history =
    p.kind === 'fact'
      ? compareHistory(have, p.record)
      : fullOf(have) === recordDigest(p.record).slice(0, DIGEST_CHARS)
        ? 'same'
        : 'different'
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
  const full = recordDigest(line).slice(0, DIGEST_CHARS)
  if (fullOf(stored) === full) return 'same'
  const bare = hasMarks(line) ? recordDigest(strip(line)).slice(0, DIGEST_CHARS) : full
  if (bareOf(stored) !== bare) return 'different'
  if (isLive(line)) return 'stored is later'
  if (stored.startsWith('L')) return 'file is later'
  return 'different'
}

function fullOf(stored: Stored): string {
  return stored.slice(1, 1 + DIGEST_CHARS)
}

/** The digest of the stored record without its history marks (the full one when it has none). */
function bareOf(stored: Stored): string {
  return stored.length > 1 + DIGEST_CHARS ? stored.slice(1 + DIGEST_CHARS) : fullOf(stored)
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
 * The first DIGEST_CHARS characters (132 bits) of the text's SHA-256 in base64, made as a string
 * of its own: a slice of the whole digest would keep all of it alive in the maps above.
 */
function digest(text: string): string {
  return createHash('sha256').update(text).digest().toString('base64url', 0, DIGEST_BYTES)
}

/**
 * The line and digest of each id earlier lines gave: the digest as 16 bytes in one shared array
 * rather than a string per record, so that a file of 200,000 records costs the map of its ids
 * and little more.
 */
class EarlierRecords {
  private readonly at = new Map<string, number>()
  private lines = new Uint32Array(1024)
  private digests = Buffer.alloc(1024 * DIGEST_BYTES)

  get(id: string): {line: number; digest: string} | undefined {
    const i = this.at.get(id)
    if (i === undefined) return undefined
    return {line: this.lines[i]!, digest: this.digests.toString('base64url', i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES)}
  }

  set(id: string, line: number, digest: string): void {
    const i = this.at.size
    if (i >= this.lines.length) {
      const lines = new Uint32Array(this.lines.length * 2)
      lines.set(this.lines)
      this.lines = lines
      const digests = Buffer.alloc(this.digests.length * 2)
      this.digests.copy(digests)
      this.digests = digests
    }
    this.at.set(id, i)
    this.lines[i] = line
    this.digests.write(digest, i * DIGEST_BYTES, 'base64url')
  }
}
