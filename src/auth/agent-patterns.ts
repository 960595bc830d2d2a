import {MemError} from '../errors.js'
import {LIMITS} from '../ops/limits.js'

/** An agent id with `*` standing for any run of characters: `alice`, `team-*`, `*`. */
const PATTERN = /^[A-Za-z0-9*][A-Za-z0-9._:@+/*-]*$/

export function checkAgentPattern(pattern: string): string {
  if (pattern.length === 0 || pattern.length > LIMITS.agentIdLength || !PATTERN.test(pattern)) {
    throw new MemError(
      'invalid_input',
      `--agent ${JSON.stringify(pattern)}: an agent pattern is an agent id (letters, digits and . _ : @ + / -, at most ${LIMITS.agentIdLength} characters) where * stands for any characters, e.g. alice or team-*`,
    )
  }
  return pattern
}

function toRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${body}$`)
}

/** Whether an agent id is one of the patterns; null patterns allow every agent. */
export function agentMatcher(patterns: string[] | null): (agent: string) => boolean {
  if (patterns === null) return () => true
  const expressions = patterns.map(toRegExp)
  return (agent) => expressions.some((re) => re.test(agent))
}

/** The agent a call naming none uses: the token's first pattern that is a plain agent id, else the server's default. */
export function defaultAgentFor(patterns: string[] | null, serverDefault: string): string {
  return patterns?.find((p) => !p.includes('*')) ?? serverDefault
}
