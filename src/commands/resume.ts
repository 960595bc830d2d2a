import {Flags} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {checkpointResume} from '../ops/index.js'

export default class Resume extends MemCommand {
  static override summary = 'Show the latest checkpoint (or one by id).'
  static override description = 'Exits with status 3 when there is no checkpoint, unless --on-missing empty is given.'
  static override examples = [
    '<%= config.bin %> resume --agent alice',
    '<%= config.bin %> resume --on-missing empty --json | jq .state',
    '<%= config.bin %> resume --id 01JDQ3N7X2C9V5K8M4T6R0B1AZ',
  ]
  static override flags = {
    ...agentFlag,
    id: Flags.string({description: 'Checkpoint id [default: the latest].', helpValue: 'CHECKPOINT_ID'}),
    'on-missing': Flags.string({description: 'When nothing is saved: "error" (exit 3) or "empty" (a found: false result).', default: 'error', helpValue: 'error|empty'}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Resume)
    return this.runOp(checkpointResume, {agent_id: flags.agent, checkpoint_id: flags.id, on_missing: flags['on-missing']}, flags.agent)
  }
}
