import {Flags} from '@oclif/core'

import {MemCommand} from '../cli/base-command.js'
import {resolveHome} from '../cli/home.js'
import {doctor} from '../doctor/doctor.js'
import {checkPostgresUrl} from '../store/postgres/url.js'

export default class Doctor extends MemCommand {
  static override summary =
    'Check the data files (or the database MEM_STORE names); with --fix, repair what can be repaired safely.'
  static override description =
    'Checks every data file (that it parses, its format and version, every line of its journal), permissions (the token folder auth/ included), stale locks, symbolic links, and temporary files left by writes and searches. ' +
    '--fix removes stale locks, temporary files and a linked search-index folder, makes files and folders private, restores the last good copy of a corrupt file, ' +
    'keeping the corrupt one aside, and repairs a damaged journal by keeping every line that applies and setting the others aside in a file beside it. ' +
    'With MEM_STORE set it checks the PostgreSQL database instead: the connection, the schema version and the rows, as mem db check does; ' +
    '--fix applies a missing schema version, raises agent counters that are behind their rows and deletes a saved search index ahead of its agent, ' +
    'and says what it cannot fix (a row that is not a record, or whose values disagree: restore it from a backup). Exits with status 1 when problems are left.'
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --fix',
    '<%= config.bin %> doctor --json | jq .problems',
  ]
  static override flags = {
    fix: Flags.boolean({description: 'Repair what can be repaired safely.', default: false}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Doctor)
    // The store every other command uses: the files would be the wrong one to vouch for.
    const selected = process.env.MEM_STORE?.trim()
    if (selected) {
      const url = checkPostgresUrl(selected)
      const {doctorDatabase} = await import('../doctor/database.js')
      return this.runIn(doctorDatabase, {url}, {fix: flags.fix})
    }
    return this.runIn(doctor, {home: resolveHome()}, {fix: flags.fix})
  }
}
