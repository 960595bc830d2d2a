import {createHash} from 'node:crypto'

import type pg from 'pg'

/**
 * PostgreSQL's change feed (Store.changesSince): every change of an agent bumps its row's
 * `revision` and stamps the fact rows it wrote with it (`mem_facts.changed`), so what changed
 * since revision R is the rows changed past R, read in the same snapshot as the revision now.
 *
 * The cursor is the revision, with the agent's last fact position and which fact was there (its
 * id, time and content, which never change under the id): a database restored from a backup is
 * behind the cursor, or holds another fact at that position once written to again (its id may
 * be the same, since a new id follows the last one stored, but not its time and words), and the
 * feed then resets rather than answer from a history it no longer has. (A restore followed by
 * exactly as many changes that add no fact would pass: the rows keep no stamp of which history
 * they belong to. docs/contributing.md says so.)
 */

type Queryable = Pick<pg.PoolClient, 'query'>

/** A fact row changed after a revision. */
export interface ChangedRow {
  id: string
  record: unknown
}

/** The agent's fact rows changed after revision `since`, in the order the agent's facts list. */
export async function changedRows(client: Queryable, agent: string, since: number): Promise<ChangedRow[]> {
  const {rows} = await client.query<ChangedRow>(
    'SELECT id, record FROM mem_facts WHERE agent = $1 AND changed > $2 ORDER BY seq',
    [agent, since],
  )
  return rows
}

/** Where a feed cursor stands: the agent's revision, its last fact position, and which fact is there (see factMark). */
export interface FeedPoint {
  revision: number
  seq: number
  last: string | null
}

/** What tells one fact from another stored at the same position: its id, time and content, hashed. */
function factMark(id: string, record: unknown): string {
  const {created_at, content} = (record ?? {}) as {created_at?: unknown; content?: unknown}
  const hash = createHash('sha256')
    .update(JSON.stringify([id, created_at, content]))
    .digest('base64url')
  return `${id}:${hash.slice(0, 16)}`
}

const PREFIX = 'pg.1.'

export function encodePoint(point: FeedPoint): string {
  return PREFIX + Buffer.from(JSON.stringify([point.revision, point.seq, point.last])).toString('base64url')
}

/** The point a cursor names; undefined for anything this store did not make (the caller then resets). */
export function decodePoint(cursor: string | undefined): FeedPoint | undefined {
  if (cursor === undefined || !cursor.startsWith(PREFIX)) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return undefined
  const [revision, seq, last] = parsed as unknown[]
  if (!Number.isSafeInteger(revision) || (revision as number) < 0) return undefined
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) return undefined
  if (last !== null && typeof last !== 'string') return undefined
  if ((seq === 0) !== (last === null)) return undefined
  return {revision: revision as number, seq: seq as number, last: last as string | null}
}

/** The agent's point now, in the caller's snapshot; revision 0 for an agent nobody wrote to. */
export async function currentPoint(client: Queryable, agent: string): Promise<FeedPoint> {
  const {rows} = await client.query<AgentPointRow>(
    `SELECT a.revision, a.fact_seq, f.id, f.record FROM mem_agents a
       LEFT JOIN mem_facts f ON f.agent = a.agent AND f.seq = a.fact_seq
      WHERE a.agent = $1`,
    [agent],
  )
  return pointOf(rows[0])
}

/** An agent's row with the fact at its last position (none when it holds no fact). */
export interface AgentPointRow {
  revision: string
  fact_seq: string
  id: string | null
  record: unknown
}

/** The point of an agent nobody wrote to: no row, revision 0. */
export const NO_POINT: FeedPoint = {revision: 0, seq: 0, last: null}

/** The point an agent's row says, or {@link NO_POINT} for none. */
export function pointOf(row: AgentPointRow | undefined): FeedPoint {
  if (row === undefined) return NO_POINT
  return {
    revision: Number(row.revision),
    seq: Number(row.fact_seq),
    last: row.id === null ? null : factMark(row.id, row.record),
  }
}

/**
 * Whether the history from `from` to `now` is one the database still has: not behind the
 * cursor, and the fact the cursor saw last still at its position (facts are never removed, so
 * a restored database that was written to again shows another there).
 */
export async function follows(client: Queryable, agent: string, from: FeedPoint, now: FeedPoint): Promise<boolean> {
  if (from.revision > now.revision || from.seq > now.seq) return false
  if (from.revision === now.revision) return from.seq === now.seq && from.last === now.last
  if (from.seq === 0) return true
  if (from.seq === now.seq) return from.last === now.last
  const {rows} = await client.query<{id: string; record: unknown}>(
    'SELECT id, record FROM mem_facts WHERE agent = $1 AND seq = $2',
    [agent, from.seq],
  )
  return rows[0] !== undefined && factMark(rows[0].id, rows[0].record) === from.last
}
