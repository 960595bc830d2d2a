import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {sql} from './postgres.js'

/** A MEM_HOME copied whole, and put back whole (new files, as a restore from a backup makes). */
export async function backupHome(home: string): Promise<() => Promise<void>> {
  const copy = join(mkdtempSync(join(tmpdir(), 'mem-backup-')), 'home')
  cpSync(home, copy, {recursive: true})
  return async () => {
    rmSync(home, {recursive: true, force: true})
    cpSync(copy, home, {recursive: true})
    rmSync(join(copy, '..'), {recursive: true, force: true})
  }
}

/** mem's tables copied aside, and put back in place of what they hold then. */
export async function backupDatabase(url: string): Promise<() => Promise<void>> {
  const tables = ['mem_agents', 'mem_facts', 'mem_checkpoints', 'mem_search_index', 'mem_vectors']
  for (const t of tables) await sql(url, `DROP TABLE IF EXISTS backup_${t}; CREATE TABLE backup_${t} AS TABLE ${t}`)
  return async () => {
    await sql(
      url,
      `BEGIN; TRUNCATE ${tables.join(', ')}; ${tables.map((t) => `INSERT INTO ${t} TABLE backup_${t};`).join(' ')} COMMIT`,
    )
  }
}
