import {Flags} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {checkpointList} from '../ops/index.js'

export default class Checkpoints extends MemCommand {
  static override summary = "List an agent's checkpoints, newest first."
  static override description = 'Open one with `mem resume --id CHECKPOINT_ID`.'
  static override examples = [
    '<%= config.bin %> checkpoints --agent alice',
    "<%= config.bin %> checkpoints --limit 1 --json | jq -r '.checkpoints[0].id'",
  ]
  static override flags = {
    ...agentFlag,
    limit: Flags.integer({char: 'n', description: 'Most checkpoints to show (1-10000).', default: 20}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Checkpoints)
    return this.runOp(checkpointList, {agent_id: flags.agent, limit: flags.limit}, flags.agent)
  }
}
