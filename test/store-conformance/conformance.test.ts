import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {FileStore} from '../../src/store/file/file-store.js'
import {PostgresStore} from '../../src/store/postgres/postgres-store.js'
import {DeferredStore} from '../../src/store/deferred-store.js'
import {freshDatabase, sql} from '../helpers/postgres.js'
import {tempHome} from '../helpers/mem.js'
import {describeStore} from './describe-store.js'

/** A MEM_HOME copied whole, and put back whole (new files, as a restore from a backup makes). */
async function backupHome(home: string): Promise<() => Promise<void>> {
  const copy = join(mkdtempSync(join(tmpdir(), 'mem-backup-')), 'home')
  cpSync(home, copy, {recursive: true})
  return async () => {
    rmSync(home, {recursive: true, force: true})
    cpSync(copy, home, {recursive: true})
    rmSync(join(copy, '..'), {recursive: true, force: true})
  }
}

/** mem's tables copied aside, and put back in place of what they hold then. */
async function backupDatabase(url: string): Promise<() => Promise<void>> {
  const tables = ['mem_agents', 'mem_facts', 'mem_checkpoints', 'mem_search_index']
  for (const t of tables) await sql(url, `DROP TABLE IF EXISTS backup_${t}; CREATE TABLE backup_${t} AS TABLE ${t}`)
  return async () => {
    await sql(
      url,
      `BEGIN; TRUNCATE ${tables.join(', ')}; ${tables.map((t) => `INSERT INTO ${t} TABLE backup_${t};`).join(' ')} COMMIT`,
    )
  }
}

describeStore('files (a long-running process)', async () => {
  const {home} = tempHome()
  return {
    open: () => new FileStore(home),
    cleanup: async () => rmSync(home, {recursive: true, force: true}),
    backup: () => backupHome(home),
  }
})

describeStore('files (one command per process)', async () => {
  const {home} = tempHome()
  return {
    open: () => new FileStore(home, {shortLived: true}),
    cleanup: async () => rmSync(home, {recursive: true, force: true}),
    backup: () => backupHome(home),
  }
})

describeStore('PostgreSQL', async () => {
  const url = await freshDatabase()
  // Opened as MEM_STORE opens it: on first use, through the deferred store.
  return {
    open: () => new DeferredStore(() => PostgresStore.open(url)),
    cleanup: async () => {},
    backup: () => backupDatabase(url),
  }
})
