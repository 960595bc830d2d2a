import {DeferredStore} from './deferred-store.js'
import {FileStore} from './file/file-store.js'
import {checkPostgresUrl} from './postgres/url.js'
import type {Meaning} from '../meaning/meaning.js'
import type {Store} from './store.js'

export interface StoreOptions {
  /** The process runs one operation and exits (the CLI); see FileStore. */
  shortLived?: boolean
  /** Rank by meaning too, with this process's embedder (src/meaning/); absent: words alone. */
  meaning?: Meaning
}

/**
 * The store every command and server uses: PostgreSQL when MEM_STORE holds a postgres:// URL
 * (docs/team.md), else the files under `home`, as always. The PostgreSQL driver is imported
 * on that path only, so the file store's commands start as fast as before.
 */
export function openStore(home: string, options: StoreOptions = {}, env: NodeJS.ProcessEnv = process.env): Store {
  const selected = env.MEM_STORE?.trim()
  if (selected === undefined || selected === '') return new FileStore(home, options)
  const url = checkPostgresUrl(selected)
  return new DeferredStore(async () => (await import('./postgres/postgres-store.js')).PostgresStore.open(url, options))
}
