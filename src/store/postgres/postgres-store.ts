import {createHash} from 'node:crypto'

import pg from 'pg'
import * as v from 'valibot'

import {MemError} from '../../errors.js'
import {guarded, normalizedContent} from '../duplicates.js'
import {idAfter} from '../ids.js'
import {CheckpointRecord, FactRecord, isLive} from '../records.js'
import {checkpointRecord, factRecord, knownFact, liveFact, newById, now, supersedingRecord} from '../record-rules.js'
import type {
  AddedFact,
  AddOptions,
  FactChanges,
  ImportBatch,
  ImportResult,
  NewCheckpoint,
  NewFact,
  RecordKind,
  SearchAnswer,
  SearchQuery,
  Store,
} from '../store.js'
import {bytesIn, joined, type IndexStamp} from '../../index/index-codec.js'
import type {KeptVector, VectorRecord} from '../../index/indexed-store.js'
import {SearchLayer} from '../../index/search-layer.js'
import type {EmbedProgress} from '../../index/vector-upkeep.js'
import type {Meaning} from '../../meaning/meaning.js'
import {quantizedOf, vectorBytes} from '../../meaning/vector-bytes.js'
import {changedRows, currentPoint, decodePoint, encodePoint, follows, NO_POINT, pointOf} from './change-feed.js'
import {checkDatabase, type DbCheck} from './check.js'
import {databaseError, type Outcome} from './db-errors.js'
import {migrate, type MigrateResult} from './migrate.js'
import {poolConfig} from './pool-config.js'
import {inTransaction} from './transaction.js'
import {redactUrl, urlPassword} from './url.js'

type Client = pg.PoolClient

/** Rows per INSERT of an import: bounded statements, linear in the batch. */
const INSERT_CHUNK = 1000

/** A saved search index is read this many bytes at a time (see loadIndex). */
const SAVED_SLICE_BYTES = 4 * 1024 * 1024

interface AgentRow {
  revision: string
  fact_seq: string
  checkpoint_seq: string
  last_fact_id: string | null
  last_checkpoint_id: string | null
}

/**
 * mem on PostgreSQL: the same operations, records and errors as the file store, for several
 * servers sharing one database (docs/team.md). Every change of an agent is one transaction that
 * first locks the agent's row, so the changes of one agent never interleave, on one server or
 * many; the row's `revision` counts them, and each server's search index follows it (ADR 0006).
 */
export class PostgresStore implements Store {
  /** Search over this store's change feed, its index saved in mem_search_index (ADR 0006), its vectors in mem_vectors. */
  private readonly search: SearchLayer
  private readonly where: string
  private readonly secrets: (string | undefined)[]

  private constructor(
    private readonly pool: pg.Pool,
    url: string,
    meaning: Meaning | undefined,
  ) {
    this.where = redactUrl(url)
    this.secrets = [urlPassword(url), process.env.PGPASSWORD]
    this.search = new SearchLayer(
      {
        changesSince: (agent, cursor) => this.changesSince(agent, cursor),
        getFacts: (agent, ids) => this.getFacts(agent, ids),
        factsAt: (agent, ids, cursor) => this.factsAt(agent, ids, cursor),
        keeper: {
          load: async (agent, signature) => {
            const bytes = await this.loadIndex(agent, signature)
            return bytes && bytesIn(bytes)
          },
          save: (agent, index) => this.saveIndex(agent, joined(index), index.stamp),
        },
        vectors: {
          read: (agent, embedder, from) => this.readVectors(agent, embedder, from),
          append: (agent, embedder, _dimensions, records) => this.appendVectors(agent, embedder, records),
        },
      },
      {meaning},
    )
  }

  /**
   * Connects and checks the schema: a newer one is refused, an older one of mem's brought up to
   * date (under the schema lock, see migrate.ts), and a database without mem's tables left as it
   * is until the first write. Not when `migrate` is false (mem db migrate and check do their own).
   */
  static async open(
    url: string,
    options: {shortLived?: boolean; migrate?: boolean; meaning?: Meaning} = {},
  ): Promise<PostgresStore> {
    const pool = new pg.Pool(poolConfig(url, options))
    // An idle connection the server closed (a restart) is dropped by the pool; the next query
    // opens another. Without a listener the error would end the process.
    pool.on('error', () => {})
    const store = new PostgresStore(pool, url, options.meaning)
    try {
      if (options.migrate !== false) await store.hasTables()
    } catch (error) {
      await store.close()
      throw error
    }
    return store
  }

  async migrate(): Promise<MigrateResult> {
    try {
      const result = await migrate(this.pool)
      this.tables = true
      return result
    } catch (error) {
      throw this.failure(error, 'none')
    }
  }

  /** Set once mem's tables are known to be there, at this mem's version. */
  private tables = false

  /**
   * Whether mem's tables are there (brought up to date if they are behind). A read of a database
   * without them answers as an empty store, as the file store does for a home that does not
   * exist, and creates nothing: only a write applies the schema (write, below). Until then each
   * read looks again, one query, so a server sees the tables another process made.
   */
  private async hasTables(): Promise<boolean> {
    if (this.tables) return true
    try {
      this.tables = (await migrate(this.pool, {create: false})).version > 0
    } catch (error) {
      throw this.failure(error, 'none')
    }
    return this.tables
  }

  /** mem db check: the schema and the rows against each other (check.ts). */
  async check(): Promise<DbCheck> {
    try {
      return await checkDatabase(this.pool)
    } catch (error) {
      throw this.failure(error, 'read')
    }
  }

  private closed = false

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.search.close()
    await this.pool.end()
  }

  async addFact(agent: string, fact: NewFact, options: AddOptions = {}): Promise<AddedFact> {
    const guard = !options.allowDuplicate && fact.thread === undefined
    return this.write(agent, async (w) => {
      if (guard) {
        const existing = await w.duplicateOf(fact.content)
        if (existing) return {...existing, duplicate: true as const}
      }
      const record = factRecord(w.nextFactId(), fact, now())
      await w.insertFacts([record])
      return record
    }).finally(() => this.search.wrote(agent))
  }

  async searchFacts(agent: string, query: SearchQuery): Promise<SearchAnswer> {
    if (!(await this.hasTables())) return this.search.nothing()
    return this.search.search(agent, query)
  }

  async embedPending(
    agent: string,
    progress?: (at: EmbedProgress) => void,
    signal?: AbortSignal,
  ): Promise<EmbedProgress> {
    return this.search.embedPending(agent, progress, signal)
  }

  /**
   * The vectors of `embedder` kept for the agent past the row the cursor names. Rows committed
   * out of order (two servers appending at once) may be passed over: their facts then stay
   * pending in this process and are embedded again, which costs time, never a wrong answer.
   */
  private async readVectors(
    agent: string,
    embedder: string,
    cursor: string | undefined,
  ): Promise<{records: KeptVector[]; cursor: string; reset: boolean}> {
    const from = cursor === undefined ? 0 : Number(cursor)
    if (!(await this.hasTables())) return {records: [], cursor: String(from), reset: false}
    const {rows} = await this.query<{seq: string; fact_id: string; digest: string; vector: Buffer}>(
      'SELECT seq, fact_id, digest, vector FROM mem_vectors WHERE agent = $1 AND embedder = $2 AND seq > $3 ORDER BY seq',
      [agent, embedder, Number.isSafeInteger(from) ? from : 0],
      'mem_vectors',
    )
    const records = rows.flatMap((row) => {
      const quantized = quantizedOf(row.vector)
      return quantized === undefined ? [] : [{id: row.fact_id, digest: row.digest, quantized}]
    })
    return {records, cursor: rows.length === 0 ? String(from) : rows.at(-1)!.seq, reset: false}
  }

  /** Keeps vectors just made; false when the database would not take them (they are made again later). */
  private async appendVectors(agent: string, embedder: string, records: readonly VectorRecord[]): Promise<boolean> {
    try {
      await this.pool.query(
        `INSERT INTO mem_vectors (agent, embedder, fact_id, digest, vector)
           SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::bytea[])`,
        [
          agent,
          embedder,
          records.map((r) => r.id),
          records.map((r) => r.digest),
          records.map((r) => vectorBytes(r.vector)),
        ],
      )
      return true
    } catch {
      return false
    }
  }

  async getFact(agent: string, id: string): Promise<FactRecord> {
    if (!(await this.hasTables())) return knownFact(agent, id, undefined)
    const {rows} = await this.query<{record: unknown}>('SELECT record FROM mem_facts WHERE agent = $1 AND id = $2', [
      agent,
      id,
    ])
    return knownFact(agent, id, rows[0] === undefined ? undefined : decodeFact(agent, id, rows[0].record))
  }

  async supersede(agent: string, ids: string[], next: NewFact & {reason?: string}): Promise<FactRecord> {
    // Nothing to replace in a database without mem's tables: not found, and nothing created.
    if (!(await this.hasTables())) return liveFact(agent, ids[0] ?? '', undefined)
    return this.write(agent, async (w) => {
      const current = await this.factsById(w.client, agent, ids)
      for (const id of ids) liveFact(agent, id, current.get(id))
      const time = now()
      const record = supersedingRecord(w.nextFactId(), next, ids, time)
      await w.insertFacts([record])
      for (const id of new Set(ids))
        await w.replaceFact({...current.get(id)!, superseded_by: record.id, superseded_at: time})
      return record
    })
  }

  async deleteFact(agent: string, id: string, reason?: string): Promise<FactRecord> {
    if (!(await this.hasTables())) return liveFact(agent, id, undefined)
    return this.write(agent, async (w) => {
      const fact = liveFact(agent, id, (await this.factsById(w.client, agent, [id])).get(id))
      const marked: FactRecord = {...fact, deleted_at: now(), ...(reason ? {reason} : {})}
      await w.replaceFact(marked)
      return marked
    })
  }

  async listFacts(agent: string): Promise<FactRecord[]> {
    if (!(await this.hasTables())) return []
    const {rows} = await this.query<{id: string; record: unknown}>(
      'SELECT id, record FROM mem_facts WHERE agent = $1 ORDER BY seq',
      [agent],
    )
    return rows.map((r) => decodeFact(agent, r.id, r.record))
  }

  /** The rows are decoded as listFacts does: the database, not this process, holds the records between calls. */
  async eachFact(agent: string, each: (fact: FactRecord) => void): Promise<void> {
    for (const fact of await this.listFacts(agent)) each(fact)
  }

  async getFacts(agent: string, ids: readonly string[]): Promise<FactRecord[]> {
    if (ids.length === 0 || !(await this.hasTables())) return []
    const {rows} = await this.query<{id: string; record: unknown}>(
      'SELECT id, record FROM mem_facts WHERE agent = $1 AND id = ANY($2::text[])',
      [agent, [...new Set(ids)]],
    )
    const found = new Map(rows.map((r) => [r.id, decodeFact(agent, r.id, r.record)]))
    return [...new Set(ids)].flatMap((id) => found.get(id) ?? [])
  }

  /** The rows changed past the cursor's revision, read in one snapshot with the revision now (src/store/postgres/change-feed.ts). */
  async changesSince(agent: string, cursor?: string): Promise<FactChanges> {
    const from = decodePoint(cursor)
    if (!(await this.hasTables())) {
      return {cursor: encodePoint(NO_POINT), reset: from === undefined || from.revision !== 0, facts: []}
    }
    return this.snapshot(async (client) => {
      const now = await currentPoint(client, agent)
      const sound = from !== undefined && (await follows(client, agent, from, now))
      const rows = await changedRows(client, agent, sound ? from.revision : 0)
      return {
        cursor: encodePoint(now),
        reset: !sound,
        facts: rows.map((r) => decodeFact(agent, r.id, r.record)),
      }
    })
  }

  async saveCheckpoint(agent: string, checkpoint: NewCheckpoint): Promise<CheckpointRecord> {
    return this.write(agent, async (w) => {
      const record = checkpointRecord(w.nextCheckpointId(), checkpoint, now())
      await w.insertCheckpoints([record])
      return record
    })
  }

  async getCheckpoint(agent: string, id?: string): Promise<CheckpointRecord> {
    const row = (await this.hasTables()) ? await this.checkpointRow(agent, id) : undefined
    if (row === undefined)
      throw new MemError(
        'no_checkpoint',
        id === undefined
          ? `No checkpoint found for agent "${agent}".`
          : `No checkpoint "${id}" found for agent "${agent}".`,
      )
    return decodeCheckpoint(agent, row.id, row.record)
  }

  /**
   * The checkpoint `id`, or the one with the largest id when none is named: ids follow the order
   * of saves, and an imported checkpoint keeps the id of when it was first saved (as in the file store).
   */
  private async checkpointRow(agent: string, id?: string): Promise<{id: string; record: unknown} | undefined> {
    const {rows} =
      id === undefined
        ? await this.query<{id: string; record: unknown}>(
            'SELECT id, record FROM mem_checkpoints WHERE agent = $1 ORDER BY id DESC LIMIT 1',
            [agent],
          )
        : await this.query<{id: string; record: unknown}>(
            'SELECT id, record FROM mem_checkpoints WHERE agent = $1 AND id = $2',
            [agent, id],
          )
    return rows[0]
  }

  async listCheckpoints(agent: string): Promise<CheckpointRecord[]> {
    if (!(await this.hasTables())) return []
    const {rows} = await this.query<{id: string; record: unknown}>(
      'SELECT id, record FROM mem_checkpoints WHERE agent = $1 ORDER BY seq',
      [agent],
    )
    return rows.map((r) => decodeCheckpoint(agent, r.id, r.record))
  }

  async listAgents(): Promise<string[]> {
    if (!(await this.hasTables())) return []
    const {rows} = await this.query<{agent: string}>(
      `SELECT agent FROM mem_agents a
        WHERE EXISTS (SELECT 1 FROM mem_facts f WHERE f.agent = a.agent)
           OR EXISTS (SELECT 1 FROM mem_checkpoints c WHERE c.agent = a.agent)
        ORDER BY agent`,
    )
    return rows.map((r) => r.agent)
  }

  async agentsHolding(kind: RecordKind, id: string): Promise<string[]> {
    if (!(await this.hasTables())) return []
    // One probe of the (agent, id) key per agent, rather than a scan of every row for the id.
    const table = kind === 'fact' ? 'mem_facts' : 'mem_checkpoints'
    const {rows} = await this.query<{agent: string}>(
      `SELECT a.agent FROM mem_agents a
         CROSS JOIN LATERAL (SELECT 1 FROM ${table} r WHERE r.agent = a.agent AND r.id = $1 LIMIT 1) held
        ORDER BY a.agent`,
      [id],
    )
    return rows.map((r) => r.agent)
  }

  async importRecords(agent: string, batch: ImportBatch): Promise<ImportResult> {
    return this.write(agent, async (w) => {
      const knownFacts = await this.existing(w.client, 'mem_facts', agent, batch.facts)
      const knownCheckpoints = await this.existing(w.client, 'mem_checkpoints', agent, batch.checkpoints)
      const facts = newById(batch.facts, (id) => knownFacts.has(id))
      const checkpoints = newById(batch.checkpoints, (id) => knownCheckpoints.has(id))
      // New facts are stored before old ones are marked, as in supersede.
      for (let i = 0; i < facts.length; i += INSERT_CHUNK) await w.insertFacts(facts.slice(i, i + INSERT_CHUNK))
      for (let i = 0; i < checkpoints.length; i += INSERT_CHUNK)
        await w.insertCheckpoints(checkpoints.slice(i, i + INSERT_CHUNK))
      // The last mark given for an id wins; ids come back in the order first given.
      const patches = new Map<string, Partial<FactRecord>>()
      for (const {id, patch} of batch.marks ?? []) patches.set(id, patch)
      const marked: string[] = []
      if (patches.size > 0) {
        const current = await this.factsById(w.client, agent, [...patches.keys()])
        for (const [id, patch] of patches) {
          const fact = current.get(id)
          if (!fact || !isLive(fact)) continue
          await w.replaceFact({...fact, ...patch})
          marked.push(id)
        }
      }
      return {facts: facts.map((f) => f.id), checkpoints: checkpoints.map((c) => c.id), marked}
    })
  }

  /** How many agents this process keeps warm, and their estimated cost in bytes (for tests and diagnostics). */
  cacheUse(): {agents: number; bytes: number} {
    return this.search.usage()
  }

  /**
   * The facts of `ids` and the agent's feed cursor now, in one statement (one snapshot): a warm
   * search is this one read when nothing changed the agent since its index's cursor. Prepared
   * once per connection: every warm search runs it, and planning it each time cost as much as
   * running it. Only the layer calls it, from searchFacts, once the tables are known to exist.
   */
  private async factsAt(
    agent: string,
    ids: readonly string[],
    cursor: string,
  ): Promise<{moved: boolean; facts: FactRecord[]}> {
    const {rows} = await this.query<{
      revision: string
      fact_seq: string
      last_id: string | null
      last_record: unknown
      id: string | null
      record: unknown
    }>(
      `SELECT a.revision, a.fact_seq, l.id AS last_id, l.record AS last_record, f.id, f.record
         FROM mem_agents a
         LEFT JOIN mem_facts l ON l.agent = a.agent AND l.seq = a.fact_seq
         LEFT JOIN mem_facts f ON f.agent = a.agent AND f.id = ANY($2::text[])
        WHERE a.agent = $1`,
      [agent, [...new Set(ids)]],
      'mem_search_hits',
    )
    const first = rows[0]
    const point = pointOf(
      first && {revision: first.revision, fact_seq: first.fact_seq, id: first.last_id, record: first.last_record},
    )
    const facts = rows.flatMap((row) => (row.id === null ? [] : [decodeFact(agent, row.id, row.record)]))
    return {moved: encodePoint(point) !== cursor, facts}
  }

  /**
   * The saved index's bytes, read in slices into one buffer of their own within one snapshot:
   * the whole value at once would arrive as hex text twice its size, held with its decoded copy
   * (hundreds of MiB at 100,000 facts).
   */
  private async loadIndex(agent: string, signature: string): Promise<Buffer | undefined> {
    return this.snapshot(async (client) => {
      const {rows} = await client.query<{size: number}>(
        'SELECT octet_length(data) AS size FROM mem_search_index WHERE agent = $1 AND signature = $2',
        [agent, signature],
      )
      const size = rows[0]?.size
      if (size === undefined) return undefined
      const data = Buffer.allocUnsafeSlow(size)
      for (let at = 0; at < size; at += SAVED_SLICE_BYTES) {
        const {rows: parts} = await client.query<{part: Buffer}>(
          'SELECT substring(data FROM $2 FOR $3) AS part FROM mem_search_index WHERE agent = $1',
          [agent, at + 1, SAVED_SLICE_BYTES],
        )
        const part = parts[0]?.part
        if (part === undefined || part.length !== Math.min(SAVED_SLICE_BYTES, size - at)) return undefined
        part.copy(data, at)
      }
      return data
    })
  }

  /** Saves the search layer's index of the agent; whichever server saves last wins, and a loader catches up from its cursor. */
  private async saveIndex(agent: string, bytes: Buffer, stamp: IndexStamp): Promise<void> {
    await this.pool.query(
      `INSERT INTO mem_search_index (agent, revision, signature, data) VALUES ($1, $2, $3, $4)
         ON CONFLICT (agent) DO UPDATE SET revision = EXCLUDED.revision, signature = EXCLUDED.signature, data = EXCLUDED.data`,
      [agent, decodePoint(stamp.cursor)?.revision ?? 0, stamp.signature, bytes],
    )
  }

  private async factsById(client: Client, agent: string, ids: readonly string[]): Promise<Map<string, FactRecord>> {
    const {rows} = await client.query<{id: string; record: unknown}>(
      'SELECT id, record FROM mem_facts WHERE agent = $1 AND id = ANY($2::text[])',
      [agent, [...new Set(ids)]],
    )
    return new Map(rows.map((r) => [r.id, decodeFact(agent, r.id, r.record)]))
  }

  private async existing(
    client: Client,
    table: 'mem_facts' | 'mem_checkpoints',
    agent: string,
    records: readonly {id: string}[],
  ): Promise<Set<string>> {
    if (records.length === 0) return new Set()
    const {rows} = await client.query<{id: string}>(
      `SELECT id FROM ${table} WHERE agent = $1 AND id = ANY($2::text[])`,
      [agent, records.map((r) => r.id)],
    )
    return new Set(rows.map((r) => r.id))
  }

  private async query<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
    name?: string,
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(name === undefined ? {text, values} : {name, text, values})
    } catch (error) {
      throw this.failure(error, 'read')
    }
  }

  /** A read in one snapshot (REPEATABLE READ): what a search reads all comes from one moment. */
  private async snapshot<T>(read: (client: Client) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', read, true)
  }

  /** A change of one agent: one transaction holding the agent's row lock from its first statement. */
  private async write<T>(agent: string, change: (w: AgentWriter) => Promise<T>): Promise<T> {
    if (!this.tables) await this.migrate()
    return this.transaction(
      'BEGIN',
      async (client) => {
        // Creates the agent's row if it is new and locks it either way, in one statement.
        const {rows} = await client.query<AgentRow>(
          `INSERT INTO mem_agents AS a (agent) VALUES ($1)
             ON CONFLICT (agent) DO UPDATE SET revision = a.revision
             RETURNING revision, fact_seq, checkpoint_seq, last_fact_id, last_checkpoint_id`,
          [agent],
        )
        const w = new AgentWriter(client, agent, rows[0]!)
        const result = await change(w)
        await w.finish()
        return result
      },
      false,
    )
  }

  private async transaction<T>(begin: string, work: (client: Client) => Promise<T>, readOnly: boolean): Promise<T> {
    return inTransaction(this.pool, begin, work, (error, committing) => {
      // A COMMIT the server answered with an error saved nothing; one whose answer never came may have.
      const lost = committing && !answeredByServer(error)
      return this.failure(error, readOnly ? 'read' : lost ? 'unknown' : 'nothing saved')
    })
  }

  private failure(error: unknown, outcome: Outcome): MemError {
    return databaseError(error, this.where, this.secrets, outcome)
  }
}

/**
 * The statements of one change, under the agent's row lock. Ids and positions are taken from
 * the locked row, so they are the agent's own sequence on every server.
 */
class AgentWriter {
  private changed = false
  private readonly revision: number
  private factSeq: number
  private checkpointSeq: number
  private lastFactId: string | undefined
  private lastCheckpointId: string | undefined

  constructor(
    readonly client: Client,
    readonly agent: string,
    row: AgentRow,
  ) {
    this.revision = Number(row.revision) + 1
    this.factSeq = Number(row.fact_seq)
    this.checkpointSeq = Number(row.checkpoint_seq)
    this.lastFactId = row.last_fact_id ?? undefined
    this.lastCheckpointId = row.last_checkpoint_id ?? undefined
  }

  nextFactId(): string {
    return idAfter(this.lastFactId)
  }

  nextCheckpointId(): string {
    return idAfter(this.lastCheckpointId)
  }

  /** The first stored live standalone fact that says `content` (compared as the file store compares it). */
  async duplicateOf(content: string): Promise<FactRecord | undefined> {
    const {rows} = await this.client.query<{id: string; record: unknown}>(
      'SELECT id, record FROM mem_facts WHERE agent = $1 AND dup_key = $2 ORDER BY seq',
      [this.agent, duplicateKey(content)],
    )
    const wanted = normalizedContent(content)
    for (const row of rows) {
      const fact = decodeFact(this.agent, row.id, row.record)
      if (guarded(fact) && normalizedContent(fact.content) === wanted) return fact
    }
    return undefined
  }

  async insertFacts(records: readonly FactRecord[]): Promise<void> {
    if (records.length === 0) return
    await this.client.query(
      `INSERT INTO mem_facts (agent, id, seq, changed, live, dup_key, record)
       SELECT $1, id, seq, $2, live, dup_key, record::json
         FROM unnest($3::text[], $4::bigint[], $5::boolean[], $6::text[], $7::text[]) AS r (id, seq, live, dup_key, record)`,
      [
        this.agent,
        this.revision,
        records.map((r) => r.id),
        records.map(() => ++this.factSeq),
        records.map(isLive),
        records.map((r) => (guarded(r) ? duplicateKey(r.content) : null)),
        records.map((r) => JSON.stringify(r)),
      ],
    )
    for (const r of records) if (this.lastFactId === undefined || r.id > this.lastFactId) this.lastFactId = r.id
    this.changed = true
  }

  /** Writes a fact's new history marks (the fact's content never changes under its id). */
  async replaceFact(record: FactRecord): Promise<void> {
    await this.client.query(
      'UPDATE mem_facts SET record = $3::json, live = $4, dup_key = $5, changed = $6 WHERE agent = $1 AND id = $2',
      [
        this.agent,
        record.id,
        JSON.stringify(record),
        isLive(record),
        guarded(record) ? duplicateKey(record.content) : null,
        this.revision,
      ],
    )
    this.changed = true
  }

  async insertCheckpoints(records: readonly CheckpointRecord[]): Promise<void> {
    if (records.length === 0) return
    await this.client.query(
      `INSERT INTO mem_checkpoints (agent, id, seq, record)
       SELECT $1, id, seq, record::json FROM unnest($2::text[], $3::bigint[], $4::text[]) AS r (id, seq, record)`,
      [
        this.agent,
        records.map((r) => r.id),
        records.map(() => ++this.checkpointSeq),
        records.map((r) => JSON.stringify(r)),
      ],
    )
    for (const r of records)
      if (this.lastCheckpointId === undefined || r.id > this.lastCheckpointId) this.lastCheckpointId = r.id
    this.changed = true
  }

  /** Moves the agent's revision once for the whole change, with its new positions and last ids. */
  async finish(): Promise<void> {
    if (!this.changed) return
    await this.client.query(
      `UPDATE mem_agents SET revision = $2, fact_seq = $3, checkpoint_seq = $4, last_fact_id = $5, last_checkpoint_id = $6
        WHERE agent = $1`,
      [
        this.agent,
        this.revision,
        this.factSeq,
        this.checkpointSeq,
        this.lastFactId ?? null,
        this.lastCheckpointId ?? null,
      ],
    )
  }
}

/** What the duplicate guard looks facts up by: a digest, so the index stays small whatever the fact's length. */
export function duplicateKey(content: string): string {
  return createHash('sha256').update(normalizedContent(content)).digest('hex')
}

/** An error the server sent (it has a SQLSTATE), rather than a connection that broke. */
function answeredByServer(error: unknown): boolean {
  const {code, syscall} = error as {code?: unknown; syscall?: unknown}
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && syscall === undefined
}

/** A stored record that does not decode is an error, never skipped (as a file that does not parse). */
function decodeFact(agent: string, id: string, record: unknown): FactRecord {
  const parsed = v.safeParse(FactRecord, record)
  if (!parsed.success || parsed.output.id !== id)
    throw new MemError(
      'corrupt_file',
      `fact ${id} of agent "${agent}" in the database is not a fact record mem can read; it was left untouched ("mem doctor" does not repair the database: restore the row from a backup)`,
    )
  return parsed.output
}

function decodeCheckpoint(agent: string, id: string, record: unknown): CheckpointRecord {
  const parsed = v.safeParse(CheckpointRecord, record)
  if (!parsed.success || parsed.output.id !== id)
    throw new MemError(
      'corrupt_file',
      `checkpoint ${id} of agent "${agent}" in the database is not a checkpoint record mem can read; it was left untouched (restore the row from a backup)`,
    )
  return parsed.output
}
