import {MemCommand} from '../../cli/base-command.js'
import {postgresUrl, redactUrl} from '../../store/postgres/url.js'

export default class DbMigrate extends MemCommand {
  static override summary = 'Bring the PostgreSQL schema up to date (the database MEM_STORE names).'
  static override description =
    'Applies the schema files this mem has and the database has not, in one transaction under an advisory lock, and prints the version the schema is at. ' +
    'Servers and commands do the same when they start, so running it by hand is needed only to upgrade at a time of your choosing (see docs/team.md). ' +
    'It refuses a database whose schema is newer than this mem knows.'
  static override examples = ['MEM_STORE=postgres://mem@db.internal/mem <%= config.bin %> db migrate']

  async run(): Promise<unknown> {
    await this.parse(DbMigrate)
    const url = postgresUrl('mem db migrate')
    const {PostgresStore} = await import('../../store/postgres/postgres-store.js')
    const store = await PostgresStore.open(url, {shortLived: true, migrate: false})
    try {
      const result = await store.migrate()
      const payload = {database: redactUrl(url), version: result.version, applied: result.applied}
      const done =
        result.applied.length === 0
          ? 'nothing to apply'
          : `applied ${result.applied.map((m) => `${String(m.version).padStart(4, '0')} ${m.name}`).join(', ')}`
      this.print(
        this.jsonMode
          ? JSON.stringify(payload)
          : `The mem schema of ${payload.database} is at version ${result.version} (${done}).`,
      )
      return payload
    } finally {
      await store.close()
    }
  }
}
