import type {PoolConfig} from 'pg'
import {parse} from 'pg-connection-string'
import pgpass from 'pgpass'

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
    // node-postgres calls it with the connection's parameters and takes undefined for "no
    // password" (lib/client.js, _getPassword), more than its types say.
    ...(passwordGiven ? {} : {password: fromPgpass as unknown as () => Promise<string>}),
  }
}

/** The ~/.pgpass entry for this connection, if any; node-postgres's own lookup is deprecated and warns on stderr. */
function fromPgpass(params: unknown): Promise<string | undefined> {
  return new Promise((resolve) => {
    pgpass(params as Parameters<typeof pgpass>[0], (password) => resolve(password))
  })
}
