import * as v from 'valibot'

import {AgentId, Content, Tags, Thread} from '../ops/fields.js'
import {LIMITS} from '../ops/limits.js'

/**
 * One turn of a conversation transcript (docs/export-format.md, "Conversation transcripts"):
 * who said what, when, in which conversation. `mem import` stores each turn as a fact of the
 * conversation's thread, "speaker: text", at the turn's time, so search links the turns of one
 * conversation as it links turns saved live.
 */
export const TurnLine = v.strictObject({
  type: v.literal('turn'),
  conversation: Thread,
  speaker: v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(LIMITS.tagLength, `must be at most ${LIMITS.tagLength} characters`),
    // eslint-disable-next-line no-control-regex -- a speaker's name is one line of plain text
    v.regex(/^[^\x00-\x1f\x7f]+$/, 'must not contain control characters or line breaks'),
  ),
  text: Content,
  time: v.pipe(
    v.string(),
    v.regex(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/,
      'must be an ISO 8601 time with a zone, such as 2026-01-31T09:15:00Z or 2026-01-31T10:15:00+01:00',
    ),
    v.check((s) => !Number.isNaN(Date.parse(s)), 'is not a real date and time'),
  ),
  agent_id: v.optional(AgentId),
  tags: v.optional(Tags),
})
export type TurnLine = v.InferOutput<typeof TurnLine>

export const TRANSCRIPT_FORMAT = 'transcript'

/** The fact a turn becomes, or a reason it cannot. */
export function turnFact(turn: TurnLine): {content: string; tags: string[]; thread: string; created_at: string} {
  const content = `${turn.speaker}: ${turn.text}`
  if (content.length > LIMITS.contentLength)
    throw new Error(`turn: speaker and text together must be at most ${LIMITS.contentLength} characters`)
  return {
    content,
    tags: turn.tags ?? [],
    thread: turn.conversation,
    created_at: new Date(Date.parse(turn.time)).toISOString(),
  }
}
