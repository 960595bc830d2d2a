import * as v from 'valibot'

/** A JSON object: not an array, not null. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A JSON object (not an array, not null), kept as given: the very value, every key of it. A
 * user's JSON may use any key, `__proto__`, `constructor` and `prototype` included. valibot's
 * record() builds a new object and skips those three keys (it guards its copy against prototype
 * pollution), and copies an array into an object with numeric keys; so the check is a custom
 * schema, which returns its input. Never check user JSON with record(), looseObject() or
 * objectWithRest(): each copies it and drops those keys. Nor copy it key by key into `{}` or with
 * Object.assign: an assignment to `__proto__` sets the copy's prototype and stores no key (a
 * spread, JSON.parse, Object.fromEntries and structuredClone keep it).
 */
export const JsonObject = v.custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object')

/** A fact as stored. Superseded and deleted facts stay in the file with who replaced them and when. */
export const FactRecord = v.object({
  id: v.string(),
  content: v.string(),
  tags: v.array(v.string()),
  created_at: v.string(),
  /** The conversation the fact is a turn of (see ops/fields.ts Thread); absent for standalone facts. */
  thread: v.optional(v.string()),
  supersedes: v.optional(v.array(v.string())),
  superseded_by: v.optional(v.string()),
  superseded_at: v.optional(v.string()),
  deleted_at: v.optional(v.string()),
  reason: v.optional(v.string()),
})
export type FactRecord = v.InferOutput<typeof FactRecord>

export const CheckpointRecord = v.object({
  id: v.string(),
  created_at: v.string(),
  label: v.optional(v.string()),
  state: JsonObject,
  messages: v.optional(v.array(v.unknown())),
})
export type CheckpointRecord = v.InferOutput<typeof CheckpointRecord>

export function isLive(fact: FactRecord): boolean {
  return fact.superseded_by === undefined && fact.deleted_at === undefined
}
