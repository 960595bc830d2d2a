import pg from 'pg'
import * as v from 'valibot'

import {asMemError, MemError} from '../errors.js'
import {defineOperation} from '../ops/operation.js'
import {plural} from '../plural.js'
import {
  checkDatabase,
  dropStaleSearchIndexes,
  raiseAgentCounters,
  type DbCheck,
  type DbProblem,
} from '../store/postgres/check.js'
import {databaseError} from '../store/postgres/db-errors.js'
import {migrate} from '../store/postgres/migrate.js'
import {poolConfig} from '../store/postgres/pool-config.js'
import {redactUrl, urlPassword} from '../store/postgres/url.js'
import {DoctorInput} from './doctor.js'

export const DB_PROBLEM_KINDS = [
  'connection',
  'schema',
  'unsupported_version',
  'corrupt_row',
  'inconsistent_row',
  'agent_counters',
  'search_index',
] as const

/** One thing found wrong in the database, as `mem doctor` reports a file: what, what --fix does (or cannot), done or not. */
export const DbDoctorProblem = v.object({
  kind: v.picklist(DB_PROBLEM_KINDS),
  agent: v.optional(v.string()),
  /** The fact or checkpoint the problem is about. */
  id: v.optional(v.string()),
  problem: v.string(),
  fix: v.string(),
  fixed: v.boolean(),
})
export type DbDoctorProblem = v.InferOutput<typeof DbDoctorProblem>

/** The payload of `mem doctor --json` while MEM_STORE selects PostgreSQL. `ok` is true when nothing is left to fix. */
export const DbDoctorReport = v.object({
  /** The database, its password replaced by `***`. */
  database: v.string(),
  ok: v.boolean(),
  fix: v.boolean(),
  /** The schema version the database is at, and the one this mem applies; absent when it could not be read. */
  schema: v.optional(v.object({version: v.number(), latest: v.number()})),
  checked: v.object({agents: v.number(), facts: v.number(), checkpoints: v.number()}),
  problems: v.array(DbDoctorProblem),
  /** False when mem has no tables in the database yet: nothing has been stored there. */
  exists: v.optional(v.boolean()),
})
export type DbDoctorReport = v.InferOutput<typeof DbDoctorReport>

export interface DatabaseContext {
  /** MEM_STORE, checked (src/store/postgres/url.ts). */
  url: string
}

const RESTORE = 'restore the row from a backup (pg_dump, mem export; docs/team.md, Backups)'

/** What --fix does about each kind, or why it cannot. */
const FIXES: Record<DbDoctorProblem['kind'], string> = {
  connection:
    'nothing --fix can do: make the database reachable with what mem is given (MEM_STORE, PGPASSWORD, ~/.pgpass), then run mem doctor again',
  schema: 'apply the schema files this mem has and the database lacks, as mem db migrate does',
  unsupported_version: 'nothing --fix can do: upgrade mem on this machine to the version the other servers run',
  corrupt_row: `nothing --fix can do: what the row held cannot be told from it; ${RESTORE}`,
  inconsistent_row: `nothing --fix can do: which of the row's values is right cannot be told safely; ${RESTORE}`,
  agent_counters:
    "raise the agent's change counter, positions and last ids to cover its rows (never lowered, under the agent's lock), so servers see the change and no id repeats",
  search_index: "delete the agent's saved search index (derived data); its next search rebuilds it",
}

const REPAIRABLE = new Set<DbDoctorProblem['kind']>(['agent_counters', 'search_index'])

/**
 * `mem doctor` on the PostgreSQL database MEM_STORE names: the connection, the schema version
 * and the rows, with the checks of `mem db check` (src/store/postgres/check.ts). With `fix`,
 * it repairs only what can be told right from the rows themselves: a schema behind (applied
 * as every server applies it), counters behind their rows, a saved index ahead of its agent.
 * A row that is not a record, or whose values disagree, is reported for a restore: guessing
 * which value is right could lose what a user stored.
 */
export const doctorDatabase = defineOperation({
  tool: 'doctor_database',
  title: 'Check the database',
  description:
    'Checks the PostgreSQL database: connection, schema version, rows; with fix, repairs what can be repaired safely.',
  annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: DoctorInput,
  output: DbDoctorReport,
  prose,
  unfinished: (report) => !report.ok,
  async handler({url}: DatabaseContext, input): Promise<DbDoctorReport> {
    const database = redactUrl(url)
    const secrets = [urlPassword(url), process.env.PGPASSWORD]
    const empty = {agents: 0, facts: 0, checkpoints: 0}
    const pool = new pg.Pool(poolConfig(url, {shortLived: true}))
    // An idle connection the server drops must not end the process.
    pool.on('error', () => {})
    try {
      let check: DbCheck
      try {
        check = await checkDatabase(pool)
      } catch (error) {
        const problem = asMemError(databaseError(error, database, secrets, 'read')).message
        const found: DbDoctorProblem = {kind: 'connection', problem, fix: FIXES.connection, fixed: false}
        return {database, ok: false, fix: input.fix, checked: empty, problems: [found]}
      }
      if (check.schema.version === 0)
        return {database, ok: true, fix: input.fix, schema: check.schema, checked: empty, problems: [], exists: false}
      try {
        return await diagnose(pool, check, database, input.fix)
      } catch (error) {
        // Each repair is a transaction of its own: those made before the failure stay made.
        const e = databaseError(error, database, secrets, 'read')
        throw input.fix ? new MemError(e.code, `${e.message}; run mem doctor again to see what is left to fix`) : e
      }
    } finally {
      await pool.end().catch(() => {})
    }
  },
})

async function diagnose(pool: pg.Pool, first: DbCheck, database: string, fix: boolean): Promise<DbDoctorReport> {
  let check = first
  const problems: DbDoctorProblem[] = []
  const {version, latest} = check.schema
  if (version > latest) problems.push(...check.problems.map((p) => plain(p, 'unsupported_version')))
  else if (version < latest) {
    if (!fix) problems.push(...check.problems.map((p) => plain(p, 'schema')))
    else {
      // The rows are checked only once the schema is current: check.ts reads them as this mem lays them out.
      const result = await migrate(pool)
      const applied = result.applied.map((m) => `${String(m.version).padStart(4, '0')} ${m.name}`).join(', ')
      problems.push({
        kind: 'schema',
        problem: `the schema was at version ${version}, behind this mem's ${latest}`,
        fix: `applied ${applied || 'nothing: another process had applied the schema files meanwhile'}`,
        fixed: true,
      })
      check = await checkDatabase(pool)
    }
  }
  const rows = check.schema.version === check.schema.latest ? check.problems.map((p) => plain(p, p.kind)) : []
  if (fix && rows.some((p) => REPAIRABLE.has(p.kind))) {
    const agentsOf = (kind: DbDoctorProblem['kind']) => [
      ...new Set(rows.filter((p) => p.kind === kind && p.agent !== undefined).map((p) => p.agent!)),
    ]
    await raiseAgentCounters(pool, agentsOf('agent_counters'))
    await dropStaleSearchIndexes(pool, agentsOf('search_index'))
    // Looked at again: a problem is reported fixed only when the rows no longer show it.
    const left = new Set((await checkDatabase(pool)).problems.map(key))
    for (const p of rows) if (REPAIRABLE.has(p.kind) && !left.has(key(p))) p.fixed = true
  }
  problems.push(...rows)
  return {
    database,
    ok: problems.every((p) => p.fixed),
    fix,
    schema: check.schema,
    checked: {agents: check.agents, facts: check.facts, checkpoints: check.checkpoints},
    problems,
  }
}

function plain(p: DbProblem, kind: DbDoctorProblem['kind']): DbDoctorProblem {
  return {
    kind,
    ...(p.agent === '' ? {} : {agent: p.agent}),
    ...(p.id === undefined ? {} : {id: p.id}),
    problem: p.problem,
    fix: FIXES[kind],
    fixed: false,
  }
}

function key(p: {agent?: string; id?: string; problem: string}): string {
  return `${p.agent || ''}\n${p.id ?? ''}\n${p.problem}`
}

export function prose(report: DbDoctorReport): string {
  if (report.exists === false)
    return `Nothing is stored in ${report.database} yet: mem has no tables there. mem creates them when something is first stored (check MEM_STORE if you expected data here).`
  const schema = report.schema
  const head =
    schema === undefined
      ? `Could not check ${report.database}.`
      : schema.version !== schema.latest
        ? `Checked ${report.database}: schema version ${schema.version}, this mem applies ${schema.latest}.`
        : `Checked ${report.database}: schema version ${schema.version} (current), ${plural(report.checked.agents, 'agent')}, ${plural(report.checked.facts, 'fact')}, ${plural(report.checked.checkpoints, 'checkpoint')}.`
  if (report.problems.length === 0) return `${head}\nEverything is in order.`
  const lines = [head]
  for (const p of report.problems) {
    const mark = p.fixed ? 'fixed' : report.fix ? 'NOT FIXED' : 'problem'
    const where = p.agent === undefined ? report.database : `agent ${p.agent}${p.id === undefined ? '' : `, ${p.id}`}`
    lines.push(
      '',
      `[${mark}] ${where}`,
      `  ${p.problem}`,
      `  ${p.fixed ? 'Done: ' : report.fix ? 'To do: ' : '--fix: '}${p.fix}`,
    )
  }
  const left = report.problems.filter((p) => !p.fixed).length
  const fixable = report.problems.some((p) => !p.fixed && (REPAIRABLE.has(p.kind) || p.kind === 'schema'))
  lines.push(
    '',
    left === 0
      ? 'All problems were fixed.'
      : `${plural(left, 'problem')} left.${!report.fix && fixable ? ' Run "mem doctor --fix" to repair what can be repaired safely.' : ''}`,
  )
  return lines.join('\n')
}
