import {MemCommand} from '../cli/base-command.js'
import {agentList} from '../ops/index.js'

export default class Agents extends MemCommand {
  static override summary = 'List agents with their counts and last activity.'
  static override examples = [
    '<%= config.bin %> agents',
    "<%= config.bin %> agents --json | jq -r '.agents[].agent_id'",
  ]

  async run(): Promise<unknown> {
    await this.parse(Agents)
    return this.runOp(agentList, {})
  }
}
