import * as v from 'valibot'

import {ID_PATTERN} from '../store/ids.js'
import {LIMITS} from './limits.js'

/** ASCII only, so no look-alike or invisible characters can make two agents seem one. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@+/-]*$/

export const AgentId = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(LIMITS.agentIdLength, `must be at most ${LIMITS.agentIdLength} characters`),
  v.regex(AGENT_ID_PATTERN, 'may use letters, digits and . _ : @ + / - and must start with a letter or digit'),
  v.description('Which agent\'s memory to use. Defaults to the server\'s agent (--agent, MEM_AGENT, or "default").'),
)

export const FactId = v.pipe(v.string(), v.regex(ID_PATTERN, 'must be a 26-character fact id as returned by memory_search or memory_add'))

export const CheckpointId = v.pipe(v.string(), v.regex(ID_PATTERN, 'must be a 26-character checkpoint id as returned by checkpoint_save'))

export const Tag = v.pipe(
  v.string(),
  v.minLength(1, 'a tag must not be empty'),
  v.maxLength(LIMITS.tagLength, `a tag must be at most ${LIMITS.tagLength} characters`),
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a tag must not hold
  v.regex(/^[^\s\x00-\x1f\x7f]+$/, 'a tag must not contain spaces or control characters'),
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
 * A JSON object (not an array, not null), kept as given. valibot's record() would copy an
 * array into an object with numeric keys, so the check is a custom schema; tools.ts
 * advertises it as {"type": "object"}.
 */
export const JsonObject = v.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be a JSON object',
)
