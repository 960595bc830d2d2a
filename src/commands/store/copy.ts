import {resolve} from 'node:path'

import {Flags} from '@oclif/core'

import {MemCommand} from '../../cli/base-command.js'
import {resolveHome} from '../../cli/home.js'
import {MemError} from '../../errors.js'
import {plural} from '../../plural.js'
import {copyStore} from '../../store/copy.js'
import {FileStore} from '../../store/file/file-store.js'
import {checkPostgresUrl, isPostgresUrl, redactUrl, withoutFragment} from '../../store/postgres/url.js'
import type {Store} from '../../store/store.js'

export default class StoreCopy extends MemCommand {
  static override summary = 'Copy every agent of this store into another: a PostgreSQL database, or a folder of files.'
  static override description =
    "Reads the store in use (the files under MEM_HOME, or the database MEM_STORE names) and adds each agent's facts and checkpoints to the target as they are: ids, times, threads and history kept. " +
    'What the target already has is left alone, except that facts replaced or deleted here since are marked there too, so running it again is safe and brings the target up to date. ' +
    'Prints a line per agent on stderr as it goes. Prefer ~/.pgpass or PGPASSWORD to a password in --to (see docs/team.md).'
  static override examples = [
    '<%= config.bin %> store copy --to postgres://mem@db.internal/mem',
    'MEM_STORE=postgres://mem@db.internal/mem <%= config.bin %> store copy --to ~/mem-backup',
  ]
  static override flags = {
    to: Flags.string({
      description: 'Where to copy to: a postgres:// URL, or a folder to use as a mem home (created if missing).',
      required: true,
      helpValue: 'URL|FOLDER',
    }),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(StoreCopy)
    const from = this.context().store
    const {store: to, name} = await this.target(flags.to)
    try {
      const result = await copyStore(from, to, (agent, done, total, copied) =>
        process.stderr.write(
          `${done}/${total} ${agent}: ${plural(copied.facts, 'fact')} and ${plural(copied.checkpoints, 'checkpoint')} added, ${copied.marked} marked\n`,
        ),
      )
      const payload = {to: name, ...result}
      this.print(
        this.jsonMode
          ? JSON.stringify(payload)
          : `Copied ${plural(result.agents, 'agent')} to ${name}: ${plural(result.facts, 'fact')} and ${plural(result.checkpoints, 'checkpoint')} added, ${plural(result.marked, 'fact')} marked as replaced or deleted here.`,
      )
      return payload
    } finally {
      await to.close()
    }
  }

  private async target(to: string): Promise<{store: Store; name: string}> {
    const current = process.env.MEM_STORE?.trim()
    if (isPostgresUrl(to)) {
      const url = checkPostgresUrl(to, '--to')
      if (current !== undefined && isPostgresUrl(current) && withoutFragment(current) === url)
        throw sameStore(redactUrl(url))
      const {PostgresStore} = await import('../../store/postgres/postgres-store.js')
      return {store: await PostgresStore.open(url), name: redactUrl(url)}
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(to))
      throw new MemError('invalid_input', '--to must be a postgres:// URL or a folder (see mem store copy --help)')
    const home = resolve(to)
    if (!current && home === resolve(resolveHome())) throw sameStore(home)
    return {store: new FileStore(home), name: home}
  }
}

function sameStore(name: string): MemError {
  return new MemError('invalid_input', `--to names the store in use (${name}); give another database or folder`)
}
