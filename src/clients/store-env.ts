import {resolve} from 'node:path'

import {checkPostgresUrl, urlPassword, withoutPassword} from '../store/postgres/url.js'

/**
 * PostgreSQL's own variables that say where and how to connect, none of them secret: passed on
 * with MEM_STORE so the server a client starts reaches the database this shell does. PGPASSFILE
 * is a path, not a password. PGPASSWORD is never passed on.
 */
const CONNECTION_VARIABLES = ['PGHOST', 'PGPORT', 'PGUSER', 'PGDATABASE', 'PGSSLMODE', 'PGPASSFILE'] as const

/** What the server entry passes on so the client uses this shell's store, and which secrets were kept out of it. */
export interface StoreEnvironment {
  env: Record<string, string>
  /** The secrets of this shell's connection that the entry does not hold: "the password in MEM_STORE", "PGPASSWORD". */
  leftOut: string[]
}

/**
 * MEM_STORE (checked as every command checks it, so a broken value is refused here rather than
 * written into a config) with its password taken out, and the connection variables set beside
 * it. A config file is read by the client, synced, backed up and shared: no place for a secret.
 */
export function storeEnvironment(env: NodeJS.ProcessEnv = process.env): StoreEnvironment {
  const selected = env.MEM_STORE?.trim()
  if (selected === undefined || selected === '') return {env: {}, leftOut: []}
  const url = checkPostgresUrl(selected)
  const out: Record<string, string> = {MEM_STORE: withoutPassword(url)}
  for (const name of CONNECTION_VARIABLES) {
    const value = env[name]?.trim()
    // Absolute: the client starts the server from a folder of its own.
    if (value) out[name] = name === 'PGPASSFILE' ? resolve(value) : value
  }
  const leftOut = [
    ...(urlPassword(url) !== undefined ? ['the password in MEM_STORE'] : []),
    ...(env.PGPASSWORD ? ['PGPASSWORD'] : []),
  ]
  return {env: out, leftOut}
}

/** The line on stderr saying what was kept out of the config and how the server will find it. */
export function leftOutNote(leftOut: readonly string[]): string | undefined {
  if (leftOut.length === 0) return undefined
  const what = leftOut.join(' and ')
  return (
    `Note: ${what} ${leftOut.length === 1 ? 'was' : 'were'} left out of the config: a config file is no place for a password. ` +
    'The server the client starts finds it in ~/.pgpass (or the file PGPASSFILE names, mode 0600), or in PGPASSWORD if the client is started with it set; see docs/team.md, Credentials.'
  )
}

/** Says on stderr, after the result, what the entry leaves out (under --json as well: stdout stays the payload). */
export function noteLeftOut(leftOut: readonly string[] | undefined): void {
  const note = leftOutNote(leftOut ?? [])
  if (note !== undefined) process.stderr.write(`${note}\n`)
}
