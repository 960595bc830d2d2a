import type pg from 'pg'

import {latestVersion, schemaVersion} from './migrate.js'
import {inTransaction} from './transaction.js'

/**
 * What kind of problem a row has, which decides what `mem doctor --fix` may do about it:
 * `agent_counters` and `search_index` are repaired (counters only ever move forward; a saved
 * index is derived data), the rest only reported, since which column is right cannot be told.
 */
export type DbProblemKind = 'corrupt_row' | 'inconsistent_row' | 'agent_counters' | 'search_index' | 'schema'

export interface DbProblem {
  kind: DbProblemKind
  agent: string
  /** The fact or checkpoint the problem is about; absent for the agent's own row. */
  id?: string
  problem: string
}

export interface DbCheck {
  ok: boolean
  /** The schema version the database is at, and the one this mem applies. */
  schema: {version: number; latest: number}
  agents: number
  facts: number
  checkpoints: number
  problems: DbProblem[]
}

/** At most this many rows of each kind are named: a database damaged throughout needs a restore, not a list. */
const SHOWN = 100

/**
 * What must hold between the rows for the store to be right, each as one query that returns
 * the rows where it does not (so a large database is checked inside PostgreSQL, not copied out):
 */
const CHECKS: {kind: DbProblemKind; problem: string; sql: string}[] = [
  {
    kind: 'corrupt_row',
    problem: 'its record is not a fact record (an object with id, content, tags and created_at of the right types)',
    sql: `SELECT agent, id FROM mem_facts
           WHERE json_typeof(record) <> 'object'
              OR json_typeof(record->'content') IS DISTINCT FROM 'string'
              OR json_typeof(record->'tags') IS DISTINCT FROM 'array'
              OR json_typeof(record->'created_at') IS DISTINCT FROM 'string'`,
  },
  {
    kind: 'corrupt_row',
    problem: "its record's id is not the row's id",
    sql: `SELECT agent, id FROM mem_facts WHERE json_typeof(record) = 'object' AND (record->>'id') IS DISTINCT FROM id`,
  },
  {
    kind: 'inconsistent_row',
    problem:
      'its column "live" disagrees with its history marks (superseded_by, deleted_at): search and the duplicate guard would be wrong',
    sql: `SELECT agent, id FROM mem_facts
           WHERE json_typeof(record) = 'object'
             AND live <> ((record->>'superseded_by') IS NULL AND (record->>'deleted_at') IS NULL)`,
  },
  {
    kind: 'inconsistent_row',
    problem: 'its duplicate key is set for a fact the guard does not cover, or missing for one it does',
    sql: `SELECT agent, id FROM mem_facts
           WHERE json_typeof(record) = 'object' AND (dup_key IS NOT NULL) <> (live AND record->'thread' IS NULL)`,
  },
  {
    kind: 'inconsistent_row',
    problem: 'it was replaced by a fact the agent does not have',
    sql: `SELECT f.agent, f.id FROM mem_facts f
           WHERE json_typeof(f.record) = 'object' AND (f.record->>'superseded_by') IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM mem_facts g WHERE g.agent = f.agent AND g.id = f.record->>'superseded_by')`,
  },
  {
    kind: 'agent_counters',
    problem: "it was changed at a revision after the agent's: servers would not see the change",
    sql: `SELECT f.agent, f.id FROM mem_facts f JOIN mem_agents a USING (agent) WHERE f.changed > a.revision`,
  },
  {
    kind: 'agent_counters',
    problem: "its position or id is past the agent's last: the next one stored could repeat it",
    sql: `SELECT f.agent, f.id FROM mem_facts f JOIN mem_agents a USING (agent)
           WHERE f.seq > a.fact_seq OR f.id > a.last_fact_id OR a.last_fact_id IS NULL`,
  },
  {
    kind: 'corrupt_row',
    problem: 'its record is not a checkpoint record, or names another id',
    sql: `SELECT agent, id FROM mem_checkpoints
           WHERE json_typeof(record) <> 'object'
              OR json_typeof(record->'state') IS DISTINCT FROM 'object'
              OR json_typeof(record->'created_at') IS DISTINCT FROM 'string'
              OR (record->>'id') IS DISTINCT FROM id`,
  },
  {
    kind: 'agent_counters',
    problem: "its position or id is past the agent's last checkpoint: the next one saved could repeat it",
    sql: `SELECT c.agent, c.id FROM mem_checkpoints c JOIN mem_agents a USING (agent)
           WHERE c.seq > a.checkpoint_seq OR c.id > a.last_checkpoint_id OR a.last_checkpoint_id IS NULL`,
  },
  {
    kind: 'search_index',
    problem: "its saved search index claims a revision after the agent's: searches would miss the changes in between",
    sql: `SELECT s.agent, NULL::text AS id FROM mem_search_index s JOIN mem_agents a USING (agent) WHERE s.revision > a.revision`,
  },
]

/**
 * `mem db check`: the connection, the schema version, and the rows against each other. Reads
 * only, in one snapshot. A schema other than the one this mem knows is reported without
 * looking at the rows.
 */
export async function checkDatabase(pool: pg.Pool): Promise<DbCheck> {
  return inTransaction(pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
    const version = await schemaVersion(client)
    const schema = {version, latest: latestVersion()}
    const problems: DbProblem[] = []
    if (version !== schema.latest) {
      problems.push({
        kind: 'schema',
        agent: '',
        problem:
          version < schema.latest
            ? `the schema is at version ${version}, behind this mem's ${schema.latest}: run "mem db migrate"`
            : `the schema is at version ${version}, newer than this mem knows (${schema.latest}): upgrade mem`,
      })
      return {ok: false, schema, agents: 0, facts: 0, checkpoints: 0, problems}
    }
    for (const check of CHECKS) {
      const {rows} = await client.query<{agent: string; id: string | null}>(
        `${check.sql} ORDER BY 1, 2 LIMIT ${SHOWN + 1}`,
      )
      for (const row of rows.slice(0, SHOWN))
        problems.push({
          kind: check.kind,
          agent: row.agent,
          ...(row.id === null ? {} : {id: row.id}),
          problem: check.problem,
        })
      if (rows.length > SHOWN)
        problems.push({
          kind: check.kind,
          agent: '',
          problem: `more rows than the ${SHOWN} named above: ${check.problem}`,
        })
    }
    const counts = await client.query<{agents: string; facts: string; checkpoints: string}>(
      `SELECT (SELECT count(*) FROM mem_agents) AS agents, (SELECT count(*) FROM mem_facts) AS facts,
              (SELECT count(*) FROM mem_checkpoints) AS checkpoints`,
    )
    const c = counts.rows[0]!
    return {
      ok: problems.length === 0,
      schema,
      agents: Number(c.agents),
      facts: Number(c.facts),
      checkpoints: Number(c.checkpoints),
      problems,
    }
  })
}

/**
 * `mem doctor --fix` for agents whose change counter, positions or last ids are behind their
 * rows: each is raised to cover them, never lowered, in one statement that holds the agent's
 * row lock as every change does. Servers then see a revision past the one their index is at
 * and read the rows changed since; the next id is taken after the largest there is.
 */
export async function raiseAgentCounters(pool: pg.Pool, agents: readonly string[]): Promise<void> {
  if (agents.length === 0) return
  await inTransaction(pool, 'BEGIN', async (client) => {
    await client.query(
      `UPDATE mem_agents a SET
         revision = GREATEST(a.revision, (SELECT max(changed) FROM mem_facts f WHERE f.agent = a.agent)),
         fact_seq = GREATEST(a.fact_seq, (SELECT max(seq) FROM mem_facts f WHERE f.agent = a.agent)),
         last_fact_id = GREATEST(a.last_fact_id, (SELECT max(id) FROM mem_facts f WHERE f.agent = a.agent)),
         checkpoint_seq = GREATEST(a.checkpoint_seq, (SELECT max(seq) FROM mem_checkpoints c WHERE c.agent = a.agent)),
         last_checkpoint_id = GREATEST(a.last_checkpoint_id, (SELECT max(id) FROM mem_checkpoints c WHERE c.agent = a.agent))
       WHERE a.agent = ANY($1)`,
      [agents],
    )
  })
}

/** `mem doctor --fix` for a saved search index ahead of its agent: derived data, deleted; the next search of the agent rebuilds it. */
export async function dropStaleSearchIndexes(pool: pg.Pool, agents: readonly string[]): Promise<void> {
  if (agents.length === 0) return
  await inTransaction(pool, 'BEGIN', async (client) => {
    await client.query(
      `DELETE FROM mem_search_index s USING mem_agents a
        WHERE s.agent = a.agent AND s.agent = ANY($1) AND s.revision > a.revision`,
      [agents],
    )
  })
}
