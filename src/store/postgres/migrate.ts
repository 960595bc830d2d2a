import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {Pool, PoolClient} from 'pg'

import {MemError} from '../../errors.js'
import {inTransaction} from './transaction.js'

/**
 * The schema is plain SQL files, `migrations/NNNN_name.sql`, applied in order, each once, and
 * recorded in the table `mem_schema_versions` (docs/team.md, "The schema"). They are applied in
 * one transaction under a transaction-scoped advisory lock, so servers starting together apply
 * each file once: the others wait for the lock, then find nothing left to do.
 */
export const SCHEMA_LOCK = 4_716_931_201

export interface Migration {
  version: number
  name: string
  sql: string
}

export interface MigrateResult {
  /** The schema version the database is at now. */
  version: number
  /** The migrations this run applied, oldest first (none when the schema was current). */
  applied: {version: number; name: string}[]
}

/**
 * The migrations folder: beside this module when running from the sources, `dist/migrations`
 * in the built package (scripts/build.mjs copies it there).
 */
function migrationsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const beside = join(here, 'migrations')
  if (existsSync(beside)) return beside
  for (let dir = here; dirname(dir) !== dir; dir = dirname(dir)) {
    const built = join(dir, 'dist', 'migrations')
    if (existsSync(built)) return built
    if (dir.endsWith(`${'/'}dist`) && existsSync(join(dir, 'migrations'))) return join(dir, 'migrations')
  }
  throw new MemError(
    'internal',
    `the schema files of mem were not found (looked beside ${here} and in dist/migrations)`,
  )
}

let cached: Migration[] | undefined

export function migrations(): Migration[] {
  if (cached) return cached
  const dir = migrationsDir()
  cached = readdirSync(dir)
    .flatMap((file) => {
      const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file)
      return match ? [{version: Number(match[1]), name: match[2]!, sql: readFileSync(join(dir, file), 'utf8')}] : []
    })
    .sort((a, b) => a.version - b.version)
  cached.forEach((m, i) => {
    if (m.version !== i + 1) throw new MemError('internal', `schema file ${m.version} is out of sequence`)
  })
  return cached
}

export function latestVersion(): number {
  return migrations().at(-1)?.version ?? 0
}

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS mem_schema_versions (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`

/** The version the database is at: 0 before the first migration. */
export async function schemaVersion(db: Pool | PoolClient): Promise<number> {
  const exists = await db.query<{present: boolean}>(`SELECT to_regclass('mem_schema_versions') IS NOT NULL AS present`)
  if (!exists.rows[0]?.present) return 0
  const {rows} = await db.query<{version: number | null}>('SELECT max(version) AS version FROM mem_schema_versions')
  return rows[0]?.version ?? 0
}

function tooNew(version: number): MemError {
  return new MemError(
    'unsupported_version',
    `the database's mem schema is at version ${version}, newer than this mem knows (${latestVersion()}); upgrade mem on this machine to the version the other servers run`,
  )
}

/**
 * Brings the schema up to date. A process that finds it current (the usual case) reads one
 * row and takes no lock. With `create` false, a database without mem's tables is left as it is
 * (version 0): a read must not make a database mem's; a schema mem made before is still upgraded.
 */
export async function migrate(pool: Pool, {create = true}: {create?: boolean} = {}): Promise<MigrateResult> {
  const latest = latestVersion()
  const now = await schemaVersion(pool)
  if (now > latest) throw tooNew(now)
  if (now === latest || (now === 0 && !create)) return {version: now, applied: []}
  return inTransaction(pool, 'BEGIN', async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK])
    await client.query(VERSION_TABLE)
    // Read again under the lock: another server may have applied them while this one waited.
    const current = await schemaVersion(client)
    if (current > latest) throw tooNew(current)
    const applied: MigrateResult['applied'] = []
    for (const m of migrations()) {
      if (m.version <= current) continue
      await client.query(m.sql)
      await client.query('INSERT INTO mem_schema_versions (version, name) VALUES ($1, $2)', [m.version, m.name])
      applied.push({version: m.version, name: m.name})
    }
    return {version: Math.max(current, latest), applied}
  })
}
