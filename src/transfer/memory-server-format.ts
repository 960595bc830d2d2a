import * as v from 'valibot'

import {Content, Tag} from '../ops/fields.js'
import {describeIssue} from '../store/describe-issue.js'
import type {NewFact} from '../store/store.js'

/**
 * Lines of the JSONL file kept by the official MCP memory server
 * (@modelcontextprotocol/server-memory). Keys it may add later are ignored: the file is
 * not ours, and an entity is still an entity.
 */
export const EntityLine = v.object({
  type: v.literal('entity'),
  name: v.pipe(v.string(), v.regex(/\S/, 'must not be empty')),
  entityType: v.string(),
  observations: v.array(v.string()),
})
export type EntityLine = v.InferOutput<typeof EntityLine>

export const RelationLine = v.object({
  type: v.literal('relation'),
  from: v.pipe(v.string(), v.regex(/\S/, 'must not be empty')),
  to: v.pipe(v.string(), v.regex(/\S/, 'must not be empty')),
  relationType: v.pipe(v.string(), v.regex(/\S/, 'must not be empty')),
})
export type RelationLine = v.InferOutput<typeof RelationLine>

export const RELATION_TAG = 'relation'

/**
 * How the knowledge graph becomes facts (docs/export-format.md):
 * - each observation of an entity is one fact "Name: observation", tagged with the entity type;
 * - an entity with no observations is one fact "Name: entityType", so it is not lost;
 * - a relation is one fact "From relation type To" (underscores read as spaces), tagged "relation".
 */
export function entityFacts(line: EntityLine): NewFact[] {
  const tags = line.entityType.trim() === '' ? [] : [entityTag(line.entityType)]
  const name = line.name.trim()
  const texts =
    line.observations.length > 0
      ? line.observations.map((o) => `${name}: ${o.trim()}`)
      : [`${name}: ${line.entityType.trim() || 'entity'}`]
  return texts.map((content) => ({content: checked(Content, content, 'the resulting fact'), tags}))
}

export function relationFact(line: RelationLine): NewFact {
  const verb = line.relationType.trim().replace(/_+/g, ' ')
  return {
    content: checked(Content, `${line.from.trim()} ${verb} ${line.to.trim()}`, 'the resulting fact'),
    tags: [RELATION_TAG],
  }
}

/** An entity type becomes a tag: spaces turn into dashes, case is kept. */
export function entityTag(entityType: string): string {
  return checked(Tag, entityType.trim().replace(/\s+/g, '-'), `entityType ${JSON.stringify(entityType)} as a tag`)
}

function checked<S extends v.GenericSchema<string, string>>(schema: S, value: string, what: string): string {
  const result = v.safeParse(schema, value)
  if (!result.success) throw new Error(`${what}: ${describeIssue(result.issues[0])}`)
  return result.output
}
