import {MemCommand} from '../cli/base-command.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {resumeSpec} from '../cli/specs/resume.js'

export default class Resume extends MemCommand {
  static override summary = 'Show the latest checkpoint (or one by id).'
  static override description = 'Exits with status 3 when there is no checkpoint, unless --on-missing empty is given.'
  static override examples = [
    '<%= config.bin %> resume --agent alice',
    '<%= config.bin %> resume --on-missing empty --json | jq .state',
    '<%= config.bin %> resume --id 01JDQ3N7X2C9V5K8M4T6R0B1AZ',
  ]
  static override strict = !resumeSpec.words
  static override flags = oclifFlags(resumeSpec.flags)

  async run(): Promise<unknown> {
    return this.runSpec(resumeSpec)
  }
}
