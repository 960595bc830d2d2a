import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import pg from 'pg'

/**
 * A real PostgreSQL server for the tests: MEM_TEST_POSTGRES when set (a URL to a server where
 * the tests may create databases), else a throwaway cluster this process starts with initdb
 * and pg_ctl, listening on a unix socket in a temp folder only, and stops when it exits. There
 * is no skip: without PostgreSQL's binaries the tests that need it fail, saying how to fix it.
 */
let server: Promise<string> | undefined

export function postgresServer(): Promise<string> {
  server ??= Promise.resolve().then(() => process.env.MEM_TEST_POSTGRES || startCluster())
  return server
}

let made = 0

/**
 * The role that logs in with a password on the cluster these tests start (on a server named by
 * MEM_TEST_POSTGRES, whatever its pg_hba.conf says).
 */
export const PASSWORD_ROLE = 'mem_password_user'

/** The cluster this process started, or undefined when MEM_TEST_POSTGRES names one. */
export function ownCluster(): boolean {
  return cluster !== undefined
}

/** A new, empty database on the test server, as a URL for MEM_STORE. */
export async function freshDatabase(): Promise<string> {
  const base = await postgresServer()
  const name = `mem_test_${process.pid}_${++made}`
  const client = new pg.Client({connectionString: base})
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  return databaseUrl(base, name)
}

export function databaseUrl(base: string, name: string): string {
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs SQL on the database `url` names (for tests that look at or damage rows). */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
  options: {password?: string} = {},
): Promise<R[]> {
  const client = new pg.Client({connectionString: url, ...options})
  await client.connect()
  try {
    return (await client.query<R>(text, values)).rows
  } finally {
    await client.end()
  }
}

function binDir(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], {encoding: 'utf8'}).stdout.trim()
  if (onPath !== '' && existsSync(join(onPath, '..', 'initdb'))) return join(onPath, '..')
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions[0] === undefined)
    throw new Error(
      'these tests need a PostgreSQL server: install PostgreSQL (apt-get install postgresql; .ci/run does) or set MEM_TEST_POSTGRES to a postgres:// URL where they may create databases',
    )
  return join(root, versions[0], 'bin')
}

/**
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` user that
 * Debian's package creates; root still connects through the socket, as the `postgres` role.
 */
function startCluster(): string {
  const bin = binDir()
  const dir = mkdtempSync(join(tmpdir(), 'mem-pg-'))
  const asRoot = process.getuid?.() === 0
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? ['runuser', '-u', 'postgres', '--', join(bin, tool), ...args] : [join(bin, tool), ...args]
    execFileSync(command[0]!, command.slice(1), {stdio: ['ignore', 'pipe', 'pipe']})
  }
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], {encoding: 'utf8'}).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], {encoding: 'utf8'}).trim())
    chownSync(dir, uid, gid)
  }
  chmodSync(dir, 0o700)
  const data = join(dir, 'data')
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'])
  // One role must give a password, for the tests of where credentials come from; the rest need none.
  const hba = join(data, 'pg_hba.conf')
  writeFileSync(hba, `local all ${PASSWORD_ROLE} scram-sha-256\n${readFileSync(hba, 'utf8')}`)
  const options = clusterOptions(dir)
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'])
  process.on('exit', () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
    } catch {
      // Already stopped.
    }
    rmSync(dir, {recursive: true, force: true})
  })
  cluster = {dir, data, run}
  return `postgres:///postgres?host=${encodeURIComponent(dir)}&user=postgres`
}

let cluster: {dir: string; data: string; run: (tool: string, args: string[]) => void} | undefined

/**
 * A throwaway cluster: no flush to the disk is waited for (fsync off), but a commit is
 * acknowledged only once its WAL is written (synchronous_commit stays on), so an immediate stop,
 * as a crash of the server, loses nothing acknowledged. MEM_TEST_POSTGRES_DURABLE=1 keeps fsync
 * on, as a real server runs: the benchmark sets it, so PostgreSQL and the files (which fsync
 * every write) are measured with the same durability.
 */
function clusterOptions(dir: string): string {
  const durability = process.env.MEM_TEST_POSTGRES_DURABLE === '1' ? '' : ' -c fsync=off -c full_page_writes=off'
  return `-c listen_addresses='' -k ${dir}${durability} -c max_connections=200`
}

/**
 * Restarts the throwaway cluster (for the fault tests): `stop` ends it at once, as a crash
 * would; `start` brings it back on the same socket. Only for the cluster this process started.
 */
export function testCluster(): {stop: () => void; start: () => void} | undefined {
  const c = cluster
  if (!c) return undefined
  const options = clusterOptions(c.dir)
  return {
    stop: () => c.run('pg_ctl', ['-D', c.data, '-m', 'immediate', 'stop']),
    start: () => c.run('pg_ctl', ['-D', c.data, '-o', options, '-l', join(c.dir, 'log'), '-w', 'start']),
  }
}
