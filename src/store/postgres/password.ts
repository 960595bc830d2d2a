import {lstat} from 'node:fs/promises'
import {join} from 'node:path'

import pgpass from 'pgpass'

/** What node-postgres passes to a password function: the connection it is making. */
interface Connection {
  host?: string
  port?: number | string
  database?: string
  user?: string
}

/**
 * The server asked for a password and neither the URL, PGPASSWORD nor the password file gave
 * one: `looked` says where mem looked and why each place gave none, `fix` what to do.
 */
export class NoPassword extends Error {
  constructor(
    readonly looked: string,
    readonly fix: string,
  ) {
    super(`no password: ${looked}`)
    this.name = 'NoPassword'
  }
}

// mem says in its own error why the file was not read; pgpass's warning on stderr would say it twice.
pgpass.warnTo(null)

/**
 * The password file's entry for this connection, as psql reads ~/.pgpass (or PGPASSFILE);
 * node-postgres's own lookup is deprecated and warns on stderr. Rejects with NoPassword when
 * there is none: the server asked, so the login cannot go on without one.
 */
export function fromPgpass(params: unknown): Promise<string> {
  const connection = params as Connection
  return new Promise((resolve, reject) => {
    pgpass(connection, (password) => {
      if (password !== undefined) resolve(password)
      else void whyNone(connection).then(reject, reject)
    })
  })
}

/** The file pgpass reads, found as it finds it. */
function passwordFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PGPASSFILE) return env.PGPASSFILE
  return process.platform === 'win32'
    ? join(env.APPDATA || './', 'postgresql', 'pgpass.conf')
    : join(env.HOME || './', '.pgpass')
}

async function whyNone(connection: Connection): Promise<NoPassword> {
  const file = passwordFile()
  const line = `"${[connection.host, connection.port ?? 5432, connection.database, connection.user].join(':')}:PASSWORD"`
  const add = `add the line ${line} to ${file} (mode 0600), or set PGPASSWORD`
  if (process.env.PGPASSWORD !== undefined)
    return new NoPassword(
      `the URL has none, and PGPASSWORD is set but empty, which keeps ${file} from being read`,
      `set PGPASSWORD to the password, or unset it and add the line ${line} to ${file} (mode 0600)`,
    )
  const st = await lstat(file).catch(() => undefined)
  const looked = `the URL has none, PGPASSWORD is not set, and ${file}`
  if (st === undefined) return new NoPassword(`${looked} does not exist`, add)
  if (!st.isFile()) return new NoPassword(`${looked} is not a plain file`, add)
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0')
    return new NoPassword(
      `${looked} has mode ${mode}: a password file is read only when no one else may read it`,
      `run chmod 600 ${file}, or set PGPASSWORD`,
    )
  }
  return new NoPassword(`${looked} has no line for this connection`, add)
}
