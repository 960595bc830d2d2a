import * as v from 'valibot'

import {AgentId, CheckpointId, Content, FactId, JsonObject, Tags, Thread} from '../ops/fields.js'
import {jsonBytes, jsonDepthExceeds} from '../ops/json-bounds.js'
import {LIMITS} from '../ops/limits.js'
import {CheckpointRecord, FactRecord} from '../store/records.js'

/**
 * The `mem export` file: JSON Lines, a header line then one line per fact or checkpoint,
 * each naming its agent. docs/export-format.md is the user-facing description; the
 * version changes only when a line changes meaning, never for an added optional key.
 */
export const EXPORT_FORMAT = 'mem.export'
export const EXPORT_VERSION = 1

/** ISO 8601 in UTC as mem writes it (`2026-01-31T09:15:00.000Z`), and a real date. */
export const UtcTimestamp = v.pipe(
  v.string(),
  v.regex(
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/,
    'must be an ISO 8601 time in UTC such as 2026-01-31T09:15:00.000Z',
  ),
  v.check((s) => !Number.isNaN(Date.parse(s)), 'is not a real date and time'),
)

export const HeaderLine = v.object({
  type: v.literal('header'),
  format: v.literal(EXPORT_FORMAT, `must be "${EXPORT_FORMAT}"`),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  exported_at: v.optional(v.string()),
  mem_version: v.optional(v.string()),
  /** Agents `mem export --all` had to leave out, and why. */
  missing: v.optional(v.array(v.object({agent_id: v.string(), code: v.string(), message: v.string()}))),
})
export type HeaderLine = v.InferOutput<typeof HeaderLine>

const reason = v.pipe(v.string(), v.maxLength(LIMITS.reasonLength, `must be at most ${LIMITS.reasonLength} characters`))
const depthMessage = `is nested deeper than ${LIMITS.jsonDepth} levels`

/** A stored fact with the checks the operations apply to new input, plus its agent. */
export const FactLine = v.strictObject({
  ...FactRecord.entries,
  type: v.literal('fact'),
  agent_id: AgentId,
  id: FactId,
  content: Content,
  tags: Tags,
  created_at: UtcTimestamp,
  thread: v.optional(Thread),
  supersedes: v.optional(v.pipe(v.array(FactId), v.minLength(1), v.maxLength(LIMITS.mergeCount))),
  superseded_by: v.optional(FactId),
  superseded_at: v.optional(UtcTimestamp),
  deleted_at: v.optional(UtcTimestamp),
  reason: v.optional(reason),
})
export type FactLine = v.InferOutput<typeof FactLine>

export const CheckpointLine = v.pipe(
  v.strictObject({
    ...CheckpointRecord.entries,
    type: v.literal('checkpoint'),
    agent_id: AgentId,
    id: CheckpointId,
    created_at: UtcTimestamp,
    label: v.optional(
      v.pipe(v.string(), v.maxLength(LIMITS.labelLength, `must be at most ${LIMITS.labelLength} characters`)),
    ),
    state: v.pipe(
      JsonObject,
      v.check((s) => !jsonDepthExceeds(s, LIMITS.jsonDepth), depthMessage),
    ),
    messages: v.optional(
      v.pipe(
        v.array(v.unknown(), 'must be an array'),
        v.maxLength(LIMITS.messageCount, `must hold at most ${LIMITS.messageCount} messages`),
        v.check((m) => !jsonDepthExceeds(m, LIMITS.jsonDepth), depthMessage),
      ),
    ),
  }),
  v.check(
    (cp) => jsonBytes({state: cp.state, messages: cp.messages}) <= LIMITS.checkpointBytes,
    `state and messages together must be at most ${LIMITS.checkpointBytes} bytes of JSON`,
  ),
)
export type CheckpointLine = v.InferOutput<typeof CheckpointLine>

/** A fact line's timestamps must tell one story: marks come in pairs and never before the fact. */
export function factLineProblem(line: FactLine): string | undefined {
  if ((line.superseded_by === undefined) !== (line.superseded_at === undefined))
    return 'superseded_by and superseded_at must be given together'
  if (line.supersedes?.includes(line.id)) return 'a fact cannot supersede itself'
  if (line.superseded_by === line.id) return 'a fact cannot be superseded by itself'
  return undefined
}

/**
 * A lone surrogate (half of a UTF-16 pair, which only a malformed JSON string such as one sent
 * over MCP can carry) has no UTF-8 form. JSON.stringify writes it as an escape like `\ud83d`,
 * which strict readers refuse (jq 1.6 stops at it), so an export writes U+FFFD in its place, as
 * every UTF-8 reader must read it. JSON.stringify escapes nothing else as `\ud…`: a real pair is
 * written as it is, and a backslash in the text is itself escaped (hence the even count before).
 */
const LONE_SURROGATE = /(?<=(?:^|[^\\])(?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g

/** One export line: JSON that is valid UTF-8 whatever the store holds. */
export function exportJson(value: unknown): string {
  const text = JSON.stringify(value)
  return text.includes('\\ud') ? text.replace(LONE_SURROGATE, '\ufffd') : text
}

export function headerLine(memVersion: string, exportedAt: string): HeaderLine {
  return {
    type: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: exportedAt,
    mem_version: memVersion,
  }
}

export function factLine(agent: string, fact: FactRecord): Record<string, unknown> {
  return {type: 'fact', agent_id: agent, ...fact}
}

export function checkpointLine(agent: string, checkpoint: CheckpointRecord): Record<string, unknown> {
  return {type: 'checkpoint', agent_id: agent, ...checkpoint}
}

/** The record as the store keeps it: the line without its type and agent. */
export function toRecord<T extends {type: string; agent_id: string}>(line: T): Omit<T, 'type' | 'agent_id'> {
  const record: Partial<T> = {...line}
  delete record.type
  delete record.agent_id
  return record as Omit<T, 'type' | 'agent_id'>
}
