import * as v from 'valibot'

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
  state: v.record(v.string(), v.unknown()),
  messages: v.optional(v.array(v.unknown())),
})
export type CheckpointRecord = v.InferOutput<typeof CheckpointRecord>

export function isLive(fact: FactRecord): boolean {
  return fact.superseded_by === undefined && fact.deleted_at === undefined
}
