import {Flags} from '@oclif/core'

import {MemCommand} from '../cli/base-command.js'
import {resolveHome} from '../cli/home.js'
import {doctor} from '../doctor/doctor.js'
import {MemError} from '../errors.js'

export default class Doctor extends MemCommand {
  static override summary = 'Check the data files; with --fix, repair what can be repaired safely.'
  static override description =
    'Checks every data file (that it parses, its format and version), permissions, stale locks, symbolic links, and temporary files left by writes and searches. ' +
    '--fix removes stale locks, temporary files and a linked search-index folder, makes files and folders private, and restores the last good copy of a corrupt file, ' +
    'keeping the corrupt one aside. Exits with status 1 when problems are left.'
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
    // Checking the files while every other command uses the database would report on the wrong store.
    if (process.env.MEM_STORE?.trim())
      throw new MemError(
        'invalid_input',
        'MEM_STORE selects a PostgreSQL database, and mem doctor checks the files under MEM_HOME: run mem db check for the database, or unset MEM_STORE to check the files',
      )
    return this.runIn(doctor, {home: resolveHome()}, {fix: flags.fix})
  }
}
