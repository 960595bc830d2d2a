import * as v from 'valibot'

import {ID_PATTERN} from '../store/ids.js'
import {isJsonObject, JsonObject} from '../store/records.js'
import {LIMITS} from './limits.js'

/** ASCII only, so no look-alike or invisible characters can make two agents seem one. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@+/-]*$/

export const AgentId = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(LIMITS.agentIdLength, `must be at most ${LIMITS.agentIdLength} characters`),
  v.regex(AGENT_ID_PATTERN, 'may use letters, digits and . _ : @ + / - and must start with a letter or digit'),
  v.description(
    'Whose memory to use. Usually leave this out: the server already uses the memory it was set up with. ' +
      'Pass it only when the user asks for a separate, named memory (e.g. "use my work memory"), and then the same id every time; never make one up, or memory splits in two.',
  ),
)

export const FactId = v.pipe(
  v.string(),
  v.regex(ID_PATTERN, 'must be a 26-character fact id as returned by memory_search or memory_add'),
)

export const CheckpointId = v.pipe(
  v.string(),
  v.regex(ID_PATTERN, 'must be a 26-character checkpoint id as returned by checkpoint_save'),
)

/**
 * A tag is an identifier, so it holds nothing that cannot be seen or that changes how the
 * text around it looks: no spaces, no C0 or C1 controls, no DEL, no bidirectional controls
 * (U+200E/F, U+061C, U+202A–U+202E, U+2066–U+2069) and no zero-width characters (U+200B–U+200D,
 * U+2060, U+FEFF). Otherwise `#ops` and `#o‮ps` would be two tags that look like one.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a tag must not hold
const TAG_PATTERN = /^[^\s\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]+$/
// eslint-disable-next-line no-control-regex -- the same set, to name the character found
const TAG_REFUSED = /[\s\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/

function tagMessage(issue: {input: unknown}): string {
  const found = typeof issue.input === 'string' ? TAG_REFUSED.exec(issue.input)?.[0] : undefined
  const code =
    found === undefined ? '' : ` (found U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`
  return `a tag must not contain spaces, control characters, zero-width characters or bidirectional controls${code}; use letters, digits and punctuation`
}

export const Tag = v.pipe(
  v.string(),
  v.minLength(1, 'a tag must not be empty'),
  v.maxLength(LIMITS.tagLength, `a tag must be at most ${LIMITS.tagLength} characters`),
  v.regex(TAG_PATTERN, tagMessage),
)

/**
 * A conversation's id: facts that share one are turns of one exchange, and only they lend each
 * other context in search. The agent id rule (ASCII letters, digits and `. _ : @ + / -`), so a
 * thread id is safe to show in any terminal and to type.
 */
export const Thread = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(LIMITS.threadLength, `must be at most ${LIMITS.threadLength} characters`),
  v.regex(AGENT_ID_PATTERN, 'may use letters, digits and . _ : @ + / - and must start with a letter or digit'),
)

export const THREAD_HELP =
  'The conversation this fact is a turn of, e.g. a chat or session id. Facts of one thread are searched as one exchange: a match brings in the turns around it as context. Leave it out for standalone facts.'

export const Tags = v.pipe(v.array(Tag), v.maxLength(LIMITS.tagCount, `at most ${LIMITS.tagCount} tags`))

export const Content = v.pipe(
  v.string(),
  v.regex(/\S/, 'must not be empty or only spaces'),
  v.maxLength(LIMITS.contentLength, `must be at most ${LIMITS.contentLength} characters`),
)

export const Timestamp = v.pipe(v.string(), v.description('ISO 8601 time in UTC'))

/**
 * A JSON object (not an array, not null), kept as given, every key included (see
 * store/records.ts for why it is not valibot's record()). tools.ts advertises it as
 * {"type": "object", "additionalProperties": true}.
 */
export {JsonObject}

/**
 * The same check for a JSON object a result hands back (a checkpoint's state). tools.ts
 * advertises it as results always have: an object whose values are any JSON.
 */
export const ResultJsonObject = v.custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object')
