import {rmSync} from 'node:fs'

import {FileStore} from '../../src/store/file/file-store.js'
import {PostgresStore} from '../../src/store/postgres/postgres-store.js'
import {DeferredStore} from '../../src/store/deferred-store.js'
import {backupDatabase, backupHome} from '../helpers/backups.js'
import {freshDatabase} from '../helpers/postgres.js'
import {tempHome} from '../helpers/mem.js'
import {describeStore} from './describe-store.js'

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
