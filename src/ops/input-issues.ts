import * as v from 'valibot'

/**
 * What the value checked is, for messages about its keys: the arguments of a tool call
 * ("unknown argument "x"; memory_search takes …"), or the keys of an import line.
 */
export interface Whole {
  name: string
  part: 'argument' | 'key'
}

/**
 * A schema issue as a person reads it: what was wrong and what is allowed. valibot's own
 * wording ("Invalid key: Expected never but received "extra"") describes its internals; the
 * messages our schemas set themselves ("must be between 1 and 100") pass through as they are.
 * Values are named by their type only, so no stored text is ever quoted back.
 */
function describeInputIssue(issue: v.BaseIssue<unknown>, schema: v.GenericSchema, whole: Whole): string {
  const where = v.getDotPath(issue)
  const keys = (issue.path ?? []).map((item) => String(item.key))
  if (issue.message.startsWith('Invalid key:')) return keyIssue(issue, schema, keys, whole)
  if (issue.message.startsWith('Invalid type:')) {
    const subject = where ?? `the ${whole.part}s`
    return `${subject} must be ${TYPE_WORDS[issue.expected ?? ''] ?? issue.expected}, not ${typeWords(issue.input)}`
  }
  return where ? `${where}: ${issue.message}` : issue.message
}

/**
 * Every issue worth saying, described. An empty string fails each rule after "must not be
 * empty" too ("agent_id: must not be empty; agent_id: may use letters…"), and only the first is
 * true of it, so later issues of an empty value are left out.
 */
export function describeInputIssues(
  issues: readonly v.BaseIssue<unknown>[],
  schema: v.GenericSchema,
  whole: Whole,
): string[] {
  const emptyAt = new Set<string | null>()
  const telling = issues.filter((issue) => {
    if (issue.input !== '') return true
    const where = v.getDotPath(issue)
    if (emptyAt.has(where)) return false
    emptyAt.add(where)
    return true
  })
  return telling.map((issue) => describeInputIssue(issue, schema, whole))
}

function keyIssue(issue: v.BaseIssue<unknown>, schema: v.GenericSchema, keys: string[], whole: Whole): string {
  const key = keys.at(-1) ?? ''
  const parent = keys.slice(0, -1)
  const inside = parent.length === 0 ? '' : ` in ${parent.join('.')}`
  if (issue.expected !== 'never') return `${[...parent, key].join('.')} is required`
  const allowed = Object.keys(entriesAt(schema, parent) ?? {})
  const who = parent.length === 0 ? whole.name : parent.join('.')
  const takes = allowed.length === 0 ? `${who} takes no ${whole.part}s` : `${who} takes ${allowed.join(', ')}`
  return `unknown ${parent.length === 0 ? whole.part : 'key'} ${JSON.stringify(key)}${inside}; ${takes}`
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  Array: 'an array',
  Object: 'an object',
}

function typeWords(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return typeof value === 'undefined' ? 'missing' : `a ${typeof value}`
}

interface SchemaShape {
  entries?: Record<string, v.GenericSchema>
  pipe?: v.GenericSchema[]
  wrapped?: v.GenericSchema
  item?: v.GenericSchema
}

/** The keys an object schema takes at a path of keys (through optional, pipes and arrays). */
function entriesAt(schema: v.GenericSchema, keys: readonly string[]): Record<string, v.GenericSchema> | undefined {
  const s = schema as SchemaShape
  if (s.wrapped) return entriesAt(s.wrapped, keys)
  if (s.pipe?.[0] && s.pipe[0] !== schema) return entriesAt(s.pipe[0], keys)
  if (keys.length === 0) return s.entries
  const [first, ...rest] = keys
  const next = s.entries?.[first!] ?? s.item
  return next ? entriesAt(next, rest) : undefined
}
