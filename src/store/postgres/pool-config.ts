import type {PoolConfig} from 'pg'
import {parse} from 'pg-connection-string'

import {fromPgpass} from './password.js'
import {urlPassword} from './url.js'

/**
 * How a process connects. The URL gives what it names; PostgreSQL's own environment variables
 * (PGHOST, PGUSER, PGPASSWORD, PGDATABASE, …) fill the rest, as node-postgres reads them; and a
 * password given by neither is looked up in ~/.pgpass (or PGPASSFILE), as psql does.
 *
 * The limits keep one slow query or a lost server from stalling a server: a statement is
 * stopped after 15 s, a transaction left idle after 30 s, and waiting for a connection gives
 * up after 10 s. A process that runs one command holds one connection.
 */
export function poolConfig(url: string, options: {shortLived?: boolean}): PoolConfig {
  // Read here rather than passed as connectionString: node-postgres would let the URL's empty
  // fields (an empty password) override the password function below.
  const fields = Object.fromEntries(
    Object.entries(parse(url)).filter(([, value]) => value !== undefined && value !== null && value !== ''),
  ) as PoolConfig
  const passwordGiven = urlPassword(url) !== undefined || (process.env.PGPASSWORD ?? '') !== ''
  return {
    ...fields,
    max: options.shortLived ? 1 : 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 10_000,
    statement_timeout: 15_000,
    idle_in_transaction_session_timeout: 30_000,
    application_name: 'mem',
    // An idle connection must not keep a finished command's process alive.
    allowExitOnIdle: true,
    // Called only when the server asks for a password, with the connection's parameters
    // (node-postgres lib/client.js, _getPassword); a rejection fails the connection with it.
    ...(passwordGiven ? {} : {password: fromPgpass as () => Promise<string>}),
  }
}
